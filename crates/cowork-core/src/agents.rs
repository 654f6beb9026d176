//! Agent logins and grants: who an agent (Claude Code, Codex, any MCP client) is to Cowork, and
//! which of a workspace's capability routines it may run through the MCP door.
//!
//! * **Logins** belong to the account on this machine: `<root>/agents.json` (0600) keeps each
//!   agent's name, id, when it was last seen, whether it is revoked, the workspaces it serves, and
//!   a SHA-256 hash of its token — never the token, which [`Logins::create`] and
//!   [`Logins::new_token`] hand out once. A token (`cwa_` and 64 hex digits) is compared hash to
//!   hash in constant time. Every change is a read-modify-write under `agents.json.lock`
//!   ([`crate::fs_atomic::lock`]): the daemon (last seen) and the CLI (token, revoke) write it at
//!   once, and an unlocked write could put back a token or a login another one had just ended.
//! * **A login serves the workspaces the owner opened for it** ([`Login::serves`]): the one it was
//!   made in, and those added with `cowork agent workspaces add` (or Manage Workspace ›
//!   Permissions). Only the owner writes that list — it lives under the Cowork root, out of reach
//!   of routines and of the door — so a token never opens, or even touches, a workspace its owner
//!   did not name for it. A login from before this list was kept has none: it serves nothing until
//!   the owner adds a workspace ([`add_command`] is the line to run).
//! * **Grants** belong to a workspace on this machine: `<root>/workspaces/<key>/grants.json` (0600),
//!   a default per `<capability>/<routine>` (or `<capability>/*`) and an override per agent. Both
//!   live outside the workspace folder, so a workspace that is cloned, imported or checked in
//!   carries no token and grants nothing.
//! * **The rule** is [`decide`], a pure function: only a `kind: "capability"` routine is offered; one
//!   whose connection is not connected is unavailable whatever is granted; otherwise the agent's own
//!   setting, else the workspace default, else on only for a read (a read marked `destructive` or
//!   `reachesOthers` is not one).
//!
//! ```no_run
//! use cowork_core::agents::{Logins, Grants, Target, Setting};
//! let root = cowork_core::paths::Root::from_env();
//! let ws = std::path::Path::new("/work/ws");
//! let (login, token) = Logins::new(&root).create("claude", ws).unwrap();
//! assert!(login.serves(ws));
//! let grants = Grants::new(&root, ws);
//! grants.set(&Target::parse("clickup/clickup-comment").unwrap(), Some(Setting::Allow), Some(&login.id)).unwrap();
//! assert_eq!(Logins::new(&root).authenticate(&token).unwrap().name, "claude");
//! ```

use crate::manifest::Kind;
use crate::paths::Root;
use crate::registry::{Registry, RoutineEntry};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What every agent token starts with, so a leaked one is recognisable (secret scanners, logs).
pub const TOKEN_PREFIX: &str = "cwa_";

/// The workbench Chat's own login: Cowork makes it when the Chat first runs and keeps its token
/// (`<root>/chat/agent.token`, renewed by the Chat itself). Grants apply to it as to any agent;
/// a person cannot create, re-token or revoke it — a login of theirs by that name would be
/// re-tokened under them by the Chat, and a revoked one would end the Chat for good.
pub const CHAT: &str = "chat";

/// A failure to read or change logins or grants.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// A file could not be written.
    #[error("failed to write {path}: {source}")]
    Write {
        /// The file Cowork tried to write.
        path: PathBuf,
        /// Why the write failed.
        source: std::io::Error,
    },
    /// A file is not what Cowork wrote: never guessed at, since it decides who may run what.
    #[error(
        "{path} is not valid ({source}); fix or delete it — logins and grants are never guessed"
    )]
    Corrupt {
        /// The file that does not parse.
        path: PathBuf,
        /// What the parser found wrong.
        source: serde_json::Error,
    },
    /// An agent name outside the allowed shape.
    #[error("\"{0}\" is not an agent name: 1–40 lowercase letters, digits, `-` or `_`, starting with a letter or digit")]
    BadName(String),
    /// `create` with a name that is taken.
    #[error("there is already an agent named \"{0}\"")]
    Exists(String),
    /// `create` with the name of a revoked agent.
    #[error(
        "\"{0}\" is a revoked agent's name; a revoked login stays revoked — pick another name"
    )]
    RevokedName(String),
    /// No agent by that name.
    #[error("no agent named \"{0}\"")]
    Unknown(String),
    /// `create`, `token` or `revoke` of the workbench Chat's own login ([`CHAT`]), and why not.
    #[error("\"chat\" is the workbench Chat's own login: {0}")]
    ChatLogin(&'static str),
    /// A token for, or a change to, a revoked agent.
    #[error("the agent \"{0}\" is revoked")]
    Revoked(String),
    /// A grant naming a capability the workspace does not have.
    #[error("no capability \"{0}\" in this workspace")]
    NoCapability(String),
    /// A grant naming a routine its capability does not have.
    #[error("the capability {capability} has no routine \"{routine}\"")]
    NoRoutine {
        /// The capability the grant named.
        capability: String,
        /// The routine it does not have.
        routine: String,
    },
    /// A grant target that is not `<capability>/<routine>` or `<capability>/*`.
    #[error("\"{0}\" is not a grant target: write <capability>/<routine> or <capability>/*")]
    BadTarget(String),
    /// A login bound to a folder that is not a Cowork workspace: the door would refuse it anyway.
    #[error("{} is not a Cowork workspace (it has no .cowork folder)", .0.display())]
    NotAWorkspace(PathBuf),
    /// The logins file's lock could not be taken.
    #[error("failed to lock {path}: {source}")]
    Lock {
        /// The file whose lock (`<file>.lock` beside it) could not be taken.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
}

/// One agent login.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Login {
    /// Stable id (16 hex digits): grants name the agent by it.
    pub id: String,
    /// What the person calls it (`claude`, `codex`), unique on this machine.
    pub name: String,
    /// SHA-256 of the token, hex.
    pub token_hash: String,
    /// When the login was made, RFC 3339 UTC.
    pub created: String,
    /// When its token last opened the door.
    #[serde(default)]
    pub last_seen: Option<String>,
    /// Signed out for good.
    #[serde(default)]
    pub revoked: bool,
    /// The workspaces (canonical paths) its token opens, in the order they were added. A login
    /// from before the list was kept reads as none.
    #[serde(default)]
    pub workspaces: Vec<PathBuf>,
}

impl Login {
    /// Whether its token opens `workspace` (a canonical path): the owner made it there or added
    /// the workspace to it.
    pub fn serves(&self, workspace: &Path) -> bool {
        self.workspaces.iter().any(|w| w == workspace)
    }
}

#[derive(Default, Serialize, Deserialize)]
struct LoginFile {
    #[serde(default)]
    agents: Vec<Login>,
}

/// The agent logins of one Cowork root.
pub struct Logins {
    path: PathBuf,
}

impl Logins {
    /// The logins under `root` (`<root>/agents.json`).
    pub fn new(root: &Root) -> Self {
        Logins { path: root.dir().join("agents.json") }
    }

    /// Every login, revoked ones too, in the order they were made.
    pub fn list(&self) -> Result<Vec<Login>, AgentError> {
        Ok(read_json::<LoginFile>(&self.path)?.agents)
    }

    /// The login named `name`.
    pub fn get(&self, name: &str) -> Result<Login, AgentError> {
        self.list()?
            .into_iter()
            .find(|l| l.name == name)
            .ok_or_else(|| AgentError::Unknown(name.to_string()))
    }

    /// The login named `name`, refusing a revoked one (it can be given nothing).
    pub fn live(&self, name: &str) -> Result<Login, AgentError> {
        let login = self.get(name)?;
        if login.revoked {
            return Err(AgentError::Revoked(name.to_string()));
        }
        Ok(login)
    }

    /// A new login and its token (the only time the token exists outside the agent), serving
    /// `workspace` (canonical): the workspace the owner made it in.
    pub fn create(&self, name: &str, workspace: &Path) -> Result<(Login, String), AgentError> {
        check_name(name)?;
        if name == CHAT {
            return Err(AgentError::ChatLogin(
                "Cowork makes it when the Chat first runs — pick another name",
            ));
        }
        self.make(name, workspace)
    }

    /// The workbench Chat's login ([`CHAT`]) and its token, made when the Chat first runs.
    pub fn create_chat(&self, workspace: &Path) -> Result<(Login, String), AgentError> {
        self.make(CHAT, workspace)
    }

    fn make(&self, name: &str, workspace: &Path) -> Result<(Login, String), AgentError> {
        let token = new_token();
        let login = self.update(|file| {
            if let Some(taken) = file.agents.iter().find(|l| l.name == name) {
                return Err(if taken.revoked {
                    AgentError::RevokedName(name.to_string())
                } else {
                    AgentError::Exists(name.to_string())
                });
            }
            let login = Login {
                id: hex::encode(rand::random::<[u8; 8]>()),
                name: name.to_string(),
                token_hash: hash(&token),
                created: now(),
                last_seen: None,
                revoked: false,
                workspaces: vec![workspace.to_path_buf()],
            };
            file.agents.push(login.clone());
            Ok(login)
        })?;
        Ok((login, token))
    }

    /// Lets `name`'s token open `workspace` (canonical) too; false when it already did.
    pub fn add_workspace(&self, name: &str, workspace: &Path) -> Result<(Login, bool), AgentError> {
        let mut added = false;
        let login = self.change(name, |login| {
            if !login.serves(workspace) {
                login.workspaces.push(workspace.to_path_buf());
                added = true;
            }
        })?;
        Ok((login, added))
    }

    /// Stops `name`'s token opening `workspace`; false when it did not. An open session there ends
    /// with it: the door checks the list on every request.
    pub fn remove_workspace(
        &self,
        name: &str,
        workspace: &Path,
    ) -> Result<(Login, bool), AgentError> {
        let mut removed = false;
        let login = self.change(name, |login| {
            let before = login.workspaces.len();
            login.workspaces.retain(|w| w != workspace);
            removed = login.workspaces.len() != before;
        })?;
        Ok((login, removed))
    }

    /// A new token for `name`; the old one stops working at once.
    pub fn new_token(&self, name: &str) -> Result<(Login, String), AgentError> {
        if name == CHAT {
            return Err(AgentError::ChatLogin(
                "the Chat keeps its token and renews it itself; one made here would stop working at its next conversation",
            ));
        }
        self.rotate(name)
    }

    /// A new token for the workbench Chat's login ([`CHAT`]), when the one it kept is gone.
    pub fn new_chat_token(&self) -> Result<(Login, String), AgentError> {
        self.rotate(CHAT)
    }

    fn rotate(&self, name: &str) -> Result<(Login, String), AgentError> {
        let token = new_token();
        let login = self.change(name, |login| login.token_hash = hash(&token))?;
        Ok((login, token))
    }

    /// Signs `name` out for good.
    pub fn revoke(&self, name: &str) -> Result<Login, AgentError> {
        if name == CHAT {
            return Err(AgentError::ChatLogin(
                "revoked, the Chat could never run a routine again (a revoked login stays revoked)",
            ));
        }
        self.change(name, |login| login.revoked = true)
    }

    /// The live login whose token this is (`None` for a wrong, revoked or malformed one). Every
    /// login's hash is compared, each in constant time, so the answer takes as long whoever asks.
    pub fn authenticate(&self, token: &str) -> Option<Login> {
        if !token.starts_with(TOKEN_PREFIX) {
            return None;
        }
        let given = hash(token);
        let mut found = None;
        for login in self.list().ok()? {
            if same_bytes(given.as_bytes(), login.token_hash.as_bytes()) && !login.revoked {
                found = Some(login);
            }
        }
        found
    }

    /// Records that `id` opened the door now; at most once a minute, so calls do not rewrite the
    /// file each time. Under the lock like every change: a stale copy written back here would
    /// undo a `token` or `revoke` made in between.
    pub fn seen(&self, id: &str) -> Result<(), AgentError> {
        let now = time::OffsetDateTime::now_utc();
        let recent = |login: &Login| {
            login
                .last_seen
                .as_deref()
                .and_then(|t| {
                    let rfc3339 = &time::format_description::well_known::Rfc3339;
                    time::OffsetDateTime::parse(t, rfc3339).ok()
                })
                .is_some_and(|t| now - t < time::Duration::minutes(1))
        };
        // Most calls find it recent: they read and take no lock.
        if self.list()?.iter().find(|l| l.id == id).is_none_or(recent) {
            return Ok(());
        }
        self.update(|file| {
            if let Some(login) = file.agents.iter_mut().find(|l| l.id == id) {
                if !recent(login) {
                    login.last_seen = Some(crate::audit::format_ts(now));
                }
            }
            Ok(())
        })
    }

    fn change(&self, name: &str, edit: impl FnOnce(&mut Login)) -> Result<Login, AgentError> {
        self.update(|file| {
            let login = file
                .agents
                .iter_mut()
                .find(|l| l.name == name)
                .ok_or_else(|| AgentError::Unknown(name.to_string()))?;
            if login.revoked {
                return Err(AgentError::Revoked(name.to_string()));
            }
            edit(login);
            Ok(login.clone())
        })
    }

    /// Reads the file, lets `edit` change it and writes it back, all under the lock; nothing is
    /// written when `edit` fails.
    fn update<T>(
        &self,
        edit: impl FnOnce(&mut LoginFile) -> Result<T, AgentError>,
    ) -> Result<T, AgentError> {
        let _lock = lock(&self.path)?;
        let mut file: LoginFile = read_json(&self.path)?;
        let answer = edit(&mut file)?;
        write_json(&self.path, &file)?;
        Ok(answer)
    }
}

/// That `workspace` is a Cowork workspace (a folder holding `.cowork/`), the only kind of folder
/// a login can serve.
pub fn check_workspace(workspace: &Path) -> Result<(), AgentError> {
    if workspace.join(".cowork").is_dir() {
        Ok(())
    } else {
        Err(AgentError::NotAWorkspace(workspace.to_path_buf()))
    }
}

/// The exact command that lets the agent `name` into `workspace`.
pub fn add_command(name: &str, workspace: &Path) -> String {
    format!(
        "cowork agent workspaces add {} --workspace {}",
        crate::shell::quote(name),
        crate::shell::quote(&workspace.display().to_string())
    )
}

fn check_name(name: &str) -> Result<(), AgentError> {
    let ok = (1..=40).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(AgentError::BadName(name.to_string()))
    }
}

fn new_token() -> String {
    format!("{TOKEN_PREFIX}{}", hex::encode(rand::random::<[u8; 32]>()))
}

fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Constant-time equality: the time taken does not depend on where two values first differ.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn now() -> String {
    crate::audit::format_ts(time::OffsetDateTime::now_utc())
}

/// An owner's answer for a routine: allowed or denied (no answer = the rule decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Setting {
    /// The routine may run for the agent.
    Allow,
    /// The routine may not run: the call is a `denied` audit line.
    Deny,
}

/// What a grant names: one routine of a capability, or all of them (`<capability>/*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The capability's package name (`gmail`).
    pub capability: String,
    /// `None` for `*`.
    pub routine: Option<String>,
}

impl Target {
    /// Reads `<capability>/<routine>` or `<capability>/*`.
    pub fn parse(text: &str) -> Result<Target, AgentError> {
        let bad = || AgentError::BadTarget(text.to_string());
        let (capability, routine) = text.split_once('/').ok_or_else(bad)?;
        let word = |s: &str| {
            !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
        };
        if !word(capability) || !(routine == "*" || word(routine)) {
            return Err(bad());
        }
        Ok(Target {
            capability: capability.to_string(),
            routine: (routine != "*").then(|| routine.to_string()),
        })
    }

    /// The key in grants.json: `cap/routine` or `cap/*`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.capability, self.routine.as_deref().unwrap_or("*"))
    }
}

/// Settings by target key (`cap/routine`, `cap/*`).
pub type Settings = BTreeMap<String, Setting>;

/// A workspace's grants as stored: the defaults and each agent's overrides (by agent id).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GrantFile {
    /// The workspace's defaults, for every agent without a setting of its own.
    #[serde(default)]
    pub defaults: Settings,
    /// Each agent's own settings, which win over the defaults (by agent id).
    #[serde(default)]
    pub agents: BTreeMap<String, Settings>,
}

impl GrantFile {
    /// The workspace default for `capability/routine` (its own, else the capability's `*`).
    pub fn default_for(&self, capability: &str, routine: &str) -> Option<Setting> {
        lookup(&self.defaults, capability, routine)
    }

    /// The agent's own setting for `capability/routine` (its own, else the capability's `*`).
    pub fn own(&self, agent_id: &str, capability: &str, routine: &str) -> Option<Setting> {
        self.agents.get(agent_id).and_then(|s| lookup(s, capability, routine))
    }
}

fn lookup(settings: &Settings, capability: &str, routine: &str) -> Option<Setting> {
    settings
        .get(&format!("{capability}/{routine}"))
        .or_else(|| settings.get(&format!("{capability}/*")))
        .copied()
}

/// One workspace's grants on this machine.
pub struct Grants {
    path: PathBuf,
}

impl Grants {
    /// The grants of `workspace` (canonical path) under `root`.
    pub fn new(root: &Root, workspace: &Path) -> Self {
        Grants { path: root.workspace_dir(workspace).join("grants.json") }
    }

    /// What is set.
    pub fn read(&self) -> Result<GrantFile, AgentError> {
        read_json(&self.path)
    }

    /// Sets (or with `None` drops) the answer for `target`, for one agent or (`None`) as the
    /// workspace default. A `cap/*` answer stands for every routine of the capability, so it
    /// replaces the routines' own answers at that level.
    pub fn set(
        &self,
        target: &Target,
        setting: Option<Setting>,
        agent_id: Option<&str>,
    ) -> Result<(), AgentError> {
        // The CLI and Manage Workspace both set grants: one at a time.
        let _lock = lock(&self.path)?;
        let mut file = self.read()?;
        let scope = match agent_id {
            Some(id) => file.agents.entry(id.to_string()).or_default(),
            None => &mut file.defaults,
        };
        if target.routine.is_none() {
            let prefix = format!("{}/", target.capability);
            scope.retain(|key, _| !key.starts_with(&prefix));
        }
        match setting {
            Some(setting) => scope.insert(target.key(), setting),
            None => scope.remove(&target.key()),
        };
        file.agents.retain(|_, settings| !settings.is_empty());
        write_json(&self.path, &file)
    }
}

/// What the rule needs to know about a routine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tool {
    /// Its package is `kind: "capability"`.
    pub capability: bool,
    /// Its capability's connection (`credential`) is connected, or it declares none.
    pub connected: bool,
    /// Its `risk.readOnly`: it only reads.
    pub read_only: bool,
    /// Its `risk.destructive`: it deletes or overwrites.
    pub destructive: bool,
    /// Its `risk.reachesOthers`: it sends something to other people.
    pub reaches_others: bool,
}

impl Tool {
    /// A read: `readOnly`, and neither `destructive` nor `reachesOthers`.
    pub fn is_read(&self) -> bool {
        self.read_only && !self.destructive && !self.reaches_others
    }
}

/// Who settled a routine's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The agent's own setting.
    Agent,
    /// The workspace default.
    Default,
    /// Nothing set: reads on, the rest off.
    Rule,
}

/// What an agent may do with a routine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Not a capability's routine: never offered to agents.
    NotOffered,
    /// Its connection is not connected: unavailable whatever is granted.
    NotConnected,
    /// It may run.
    Allowed(Source),
    /// It may not.
    Denied(Source),
}

impl Decision {
    /// Whether the routine may run (for any reason the rule found).
    pub fn allowed(self) -> bool {
        matches!(self, Decision::Allowed(_))
    }
}

/// The grant rule: the agent's own setting, else the workspace default, else on only for a read —
/// for a capability's routine whose connection is connected.
pub fn decide(tool: Tool, own: Option<Setting>, default: Option<Setting>) -> Decision {
    if !tool.capability {
        return Decision::NotOffered;
    }
    if !tool.connected {
        return Decision::NotConnected;
    }
    let (setting, source) = match (own, default) {
        (Some(own), _) => (own, Source::Agent),
        (None, Some(default)) => (default, Source::Default),
        (None, None) => (if tool.is_read() { Setting::Allow } else { Setting::Deny }, Source::Rule),
    };
    match setting {
        Setting::Allow => Decision::Allowed(source),
        Setting::Deny => Decision::Denied(source),
    }
}

/// One answer as `cowork agent grants` and Manage Workspace show it: on or off, and whether it was
/// set at that level (else the rule, or for an agent the workspace default, decided it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Answer {
    /// On or off.
    pub answer: Setting,
    /// Set at this level, rather than inherited from the workspace default or the rule.
    pub set: bool,
}

/// One capability routine's answers: the workspace default and each agent's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RoutineGrants {
    /// The capability's package name.
    pub capability: String,
    /// The routine's id.
    pub routine: String,
    /// Its `risk` flags, which decide the rule's answer.
    #[cfg_attr(feature = "typescript", ts(type = "Risk"))]
    pub risk: crate::manifest::Risk,
    /// Its manifest's description, shown beside the switch.
    pub description: Option<String>,
    /// The workspace default's answer.
    pub default: Answer,
    /// Agent name → its answer.
    pub agents: BTreeMap<String, Answer>,
    /// Why no agent can run it now whatever is granted — `not connected`: its capability's
    /// connection is not connected (what `list_capabilities` says); none when it can.
    pub unavailable: Option<String>,
}

/// Every routine agents can be granted in `registry` (its capabilities', by capability then id),
/// with the default and each of `agents`' answers — what is granted — and whether it is
/// unavailable now: `connected` (capability → whether its connection is connected; absent = it
/// declares none) marks a routine whose connection is not, as the door refuses it.
pub fn table(
    registry: &Registry,
    grants: &GrantFile,
    agents: &[Login],
    connected: &BTreeMap<String, bool>,
) -> Vec<RoutineGrants> {
    let mut routines: Vec<&RoutineEntry> =
        registry.routines.values().filter(|r| r.kind == Kind::Capability).collect();
    routines.sort_by(|a, b| (&a.app_name, &a.id).cmp(&(&b.app_name, &b.id)));
    routines
        .into_iter()
        .map(|entry| RoutineGrants {
            capability: entry.app_name.clone(),
            routine: entry.id.clone(),
            risk: entry.risk,
            description: entry.description.clone(),
            default: answer(grants, entry, None),
            agents: agents
                .iter()
                .map(|a| (a.name.clone(), answer(grants, entry, Some(a))))
                .collect(),
            unavailable: (connected.get(&entry.app_name) == Some(&false))
                .then(|| "not connected".to_string()),
        })
        .collect()
}

fn answer(grants: &GrantFile, entry: &RoutineEntry, agent: Option<&Login>) -> Answer {
    let tool = Tool {
        capability: true,
        connected: true,
        read_only: entry.read_only,
        destructive: entry.destructive,
        reaches_others: entry.reaches_others,
    };
    let default = grants.default_for(&entry.app_name, &entry.id);
    let own = agent.and_then(|a| grants.own(&a.id, &entry.app_name, &entry.id));
    let set = if agent.is_some() { own.is_some() } else { default.is_some() };
    let answer = if decide(tool, own, default).allowed() { Setting::Allow } else { Setting::Deny };
    Answer { answer, set }
}

/// That `target` names routines agents can be granted in `registry`; else why not.
pub fn check_target(registry: &Registry, target: &Target) -> Result<(), AgentError> {
    let of_cap: Vec<&RoutineEntry> = registry
        .routines
        .values()
        .filter(|r| r.kind == Kind::Capability && r.app_name == target.capability)
        .collect();
    if of_cap.is_empty() {
        return Err(AgentError::NoCapability(target.capability.clone()));
    }
    match &target.routine {
        Some(id) if !of_cap.iter().any(|r| &r.id == id) => Err(AgentError::NoRoutine {
            capability: target.capability.clone(),
            routine: id.clone(),
        }),
        _ => Ok(()),
    }
}

/// The exact command that allows `capability/routine` for the agent `name` in `workspace`.
pub fn grant_command(capability: &str, routine: &str, name: &str, workspace: &Path) -> String {
    format!(
        "cowork agent grant {capability}/{routine} allow --agent {} --workspace {}",
        crate::shell::quote(name),
        crate::shell::quote(&workspace.display().to_string())
    )
}

/// The door's address for a workspace, and the lines that connect Claude Code and Codex to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Connect {
    /// `http://127.0.0.1:<port>/api/mcp?ws=<the workspace path, percent-encoded>`.
    pub url: String,
    /// Claude Code's command (local scope: private to the folder it runs in, never in git).
    pub claude: String,
    /// Codex's `[mcp_servers.cowork]` block for `~/.codex/config.toml`.
    pub codex: String,
    /// The variable Codex reads the token from.
    pub codex_env: String,
}

/// The variable the Codex block names for the token.
pub const CODEX_TOKEN_ENV: &str = "COWORK_AGENT_TOKEN";

/// `text` as a value in a URL's query: every byte but `A-Za-z0-9-_.~` percent-encoded.
pub fn query_value(text: &str) -> String {
    text.bytes()
        .map(|b| match b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            true => (b as char).to_string(),
            false => format!("%{b:02X}"),
        })
        .collect()
}

/// The connect lines for `token` to the door at `base` (`http://127.0.0.1:47913`) on `workspace`.
pub fn connect(base: &str, workspace: &Path, token: &str) -> Connect {
    let url = format!("{base}/api/mcp?ws={}", query_value(&workspace.display().to_string()));
    Connect {
        claude: format!(
            "claude mcp add --transport http cowork '{url}' --header \"Authorization: Bearer {token}\""
        ),
        codex: format!(
            "[mcp_servers.cowork]\nurl = \"{url}\"\nbearer_token_env_var = \"{CODEX_TOKEN_ENV}\""
        ),
        codex_env: format!("export {CODEX_TOKEN_ENV}={token}"),
        url,
    }
}

fn read_json<T: Default + serde::de::DeserializeOwned>(path: &Path) -> Result<T, AgentError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|source| AgentError::Corrupt { path: path.to_path_buf(), source }),
        Err(_) => Ok(T::default()),
    }
}

fn lock(path: &Path) -> Result<std::fs::File, AgentError> {
    crate::fs_atomic::lock(path)
        .map_err(|source| AgentError::Lock { path: path.to_path_buf(), source })
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), AgentError> {
    let text = serde_json::to_string_pretty(value).expect("logins and grants serialize");
    crate::fs_atomic::write(path, format!("{text}\n").as_bytes(), true)
        .map_err(|source| AgentError::Write { path: path.to_path_buf(), source })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Setting::{Allow, Deny};

    /// A case of the rule: its name, the routine, the agent's own setting, the default, the answer.
    type Case = (&'static str, Tool, Option<Setting>, Option<Setting>, Decision);

    #[test]
    fn the_grant_rule_case_by_case() {
        let read = Tool { capability: true, connected: true, read_only: true, ..Tool::default() };
        let write = Tool { read_only: false, ..read };
        let destructive_read = Tool { destructive: true, ..read };
        let reaching_read = Tool { reaches_others: true, ..read };
        let unconnected = Tool { connected: false, ..read };
        let app_routine = Tool { capability: false, ..read };
        use Decision::*;
        #[rustfmt::skip]
        let cases: &[Case] = &[
            ("a read, nothing set", read, None, None, Allowed(Source::Rule)),
            ("a write, nothing set", write, None, None, Denied(Source::Rule)),
            ("a bare routine is a write", Tool { capability: true, connected: true, ..Tool::default() }, None, None, Denied(Source::Rule)),
            ("a destructive read is no read", destructive_read, None, None, Denied(Source::Rule)),
            ("a read reaching others is no read", reaching_read, None, None, Denied(Source::Rule)),
            ("default allows a write", write, None, Some(Allow), Allowed(Source::Default)),
            ("default denies a read", read, None, Some(Deny), Denied(Source::Default)),
            ("own allows over a default deny", write, Some(Allow), Some(Deny), Allowed(Source::Agent)),
            ("own denies over a default allow", write, Some(Deny), Some(Allow), Denied(Source::Agent)),
            ("own denies a read", read, Some(Deny), None, Denied(Source::Agent)),
            ("own allows a write", write, Some(Allow), None, Allowed(Source::Agent)),
            ("not connected, even if allowed", Tool { connected: false, ..write }, Some(Allow), Some(Allow), NotConnected),
            ("not connected read", unconnected, None, None, NotConnected),
            ("an app's routine is never offered", app_routine, Some(Allow), Some(Allow), NotOffered),
        ];
        for (name, tool, own, default, expected) in cases {
            assert_eq!(decide(*tool, *own, *default), *expected, "{name}");
        }
    }

    #[test]
    fn a_routine_answer_wins_over_its_capability_star_at_the_same_level() {
        let mut file = GrantFile::default();
        file.defaults.insert("mail/*".into(), Deny);
        file.defaults.insert("mail/mail-send".into(), Allow);
        assert_eq!(file.default_for("mail", "mail-send"), Some(Allow));
        assert_eq!(file.default_for("mail", "mail-list"), Some(Deny));
        assert_eq!(file.default_for("notes", "notes-list"), None);
    }

    #[test]
    fn targets_parse() {
        assert_eq!(
            Target::parse("mail/mail-send").unwrap(),
            Target { capability: "mail".into(), routine: Some("mail-send".into()) }
        );
        assert_eq!(Target::parse("mail/*").unwrap().key(), "mail/*");
        for bad in ["mail", "mail/", "/x", "a/b/c", "mail/se nd"] {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn logins_keep_only_a_hash_and_a_new_token_ends_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path());
        let logins = Logins::new(&root);
        let (login, token) = logins.create("claude", Path::new("/w")).unwrap();
        assert!(token.starts_with("cwa_") && token.len() == 68, "{token}");
        let text = std::fs::read_to_string(dir.path().join("agents.json")).unwrap();
        assert!(!text.contains(&token[4..]), "the token is never stored");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("agents.json")).unwrap().permissions();
            assert_eq!(mode.mode() & 0o777, 0o600);
        }
        assert_eq!(logins.authenticate(&token).unwrap().id, login.id);
        assert!(matches!(logins.create("claude", Path::new("/w")), Err(AgentError::Exists(_))));
        assert!(matches!(logins.create("Claude", Path::new("/w")), Err(AgentError::BadName(_))));

        let (_, fresh) = logins.new_token("claude").unwrap();
        assert!(logins.authenticate(&token).is_none(), "the old token stops at once");
        assert!(logins.authenticate(&fresh).is_some());
        logins.revoke("claude").unwrap();
        assert!(logins.authenticate(&fresh).is_none());
        assert!(matches!(logins.new_token("claude"), Err(AgentError::Revoked(_))));
        assert!(matches!(
            logins.create("claude", Path::new("/w")),
            Err(AgentError::RevokedName(_))
        ));
        assert!(logins.authenticate("cwa_").is_none());
        assert!(logins.authenticate("").is_none());
    }

    #[test]
    fn a_star_grant_replaces_the_routine_answers_of_its_level() {
        let dir = tempfile::tempdir().unwrap();
        let grants = Grants::new(&Root::new(dir.path()), Path::new("/w"));
        let send = Target::parse("mail/mail-send").unwrap();
        let all = Target::parse("mail/*").unwrap();
        grants.set(&send, Some(Allow), Some("a1")).unwrap();
        grants.set(&send, Some(Allow), None).unwrap();
        grants.set(&all, Some(Deny), None).unwrap();
        let file = grants.read().unwrap();
        assert_eq!(file.default_for("mail", "mail-send"), Some(Deny));
        assert_eq!(file.own("a1", "mail", "mail-send"), Some(Allow), "another level is kept");
        grants.set(&send, None, Some("a1")).unwrap();
        assert!(grants.read().unwrap().agents.is_empty(), "an agent with nothing set is dropped");
    }

    #[test]
    fn a_login_serves_the_workspace_it_was_made_in_and_those_added_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let logins = Logins::new(&Root::new(dir.path()));
        let (made, _) = logins.create("claude", Path::new("/a")).unwrap();
        assert!(made.serves(Path::new("/a")));
        assert!(!made.serves(Path::new("/b")));
        assert!(!made.serves(Path::new("/a/sub")), "a folder inside is another workspace");
        let (login, added) = logins.add_workspace("claude", Path::new("/b")).unwrap();
        assert!(added && login.serves(Path::new("/b")));
        assert!(!logins.add_workspace("claude", Path::new("/b")).unwrap().1, "once is enough");
        let (login, removed) = logins.remove_workspace("claude", Path::new("/a")).unwrap();
        assert!(removed && !login.serves(Path::new("/a")));
        assert_eq!(logins.get("claude").unwrap().workspaces, [PathBuf::from("/b")]);
        assert!(matches!(
            logins.add_workspace("nobody", Path::new("/b")),
            Err(AgentError::Unknown(_))
        ));
        logins.revoke("claude").unwrap();
        assert!(matches!(
            logins.add_workspace("claude", Path::new("/c")),
            Err(AgentError::Revoked(_))
        ));
    }

    #[test]
    fn a_login_from_before_workspaces_were_kept_serves_none() {
        let dir = tempfile::tempdir().unwrap();
        let old = r#"{ "agents": [ { "id": "0123456789abcdef", "name": "claude", "tokenHash": "00", "created": "2026-01-01T00:00:00.000Z" } ] }"#;
        std::fs::write(dir.path().join("agents.json"), old).unwrap();
        let login = Logins::new(&Root::new(dir.path())).get("claude").unwrap();
        assert!(login.workspaces.is_empty());
        assert!(!login.serves(Path::new("/w")));
    }
}
