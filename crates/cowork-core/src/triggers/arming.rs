//! Whether a workspace's triggers fire on this machine: the owner's consent, kept apart from the
//! checked-in [`super::deployments`].
//!
//! Kept in `<root>/workspaces/<key>/triggers.json` — machine-local and outside the workspace, so a
//! cloned, checked-in or imported `workspace.json` never fires anything: the file is missing there,
//! and a missing file is "not armed". It holds
//!
//! * `armed`: the workspace's switch, a stop for all of them. `cowork deploy triggers on|off` sets
//!   it; `cowork routine active <id> on` turns it on.
//! * `routines.<id>`: a routine's Active switch (`active`) and the [`Digest`] of what the owner
//!   armed when they switched it on: its local triggers — the schedule, the webhook with its hook
//!   token on or off and its CORS origin, the apps whose notifications it gets. A routine fires only
//!   while its switch is on AND its deployment in `workspace.json` still matches that digest.
//!   The workspace is writable by every routine (and so by an agent calling one), so anything that
//!   changed there since — a schedule made every minute, a token taken off a hook, an origin
//!   widened, an app added — is "changed since armed" and fires nothing until the owner confirms it
//!   (the same switch, on again). Arming one routine arms no other.
//! * `workspace`: the workspace's path, so the daemon finds the armed workspaces (and a webhook
//!   URL's workspace) from the root alone.
//! * `version`: [`VERSION`]. A file written before digests (no version) named no digest: each
//!   routine it let fire — switched on, or following the armed workspace as it then did — reads as
//!   changed since armed until it is confirmed. Nothing it armed fires unseen.
//!
//! Read-modify-writes hold `triggers.json.lock` (the CLI and the daemon both write) and replace the
//! file atomically.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::deployments::{Deployment, Trigger};
use crate::paths::Root;

/// The file under the workspace's folder in the Cowork root.
pub const FILE: &str = "triggers.json";

/// Why the armed state could not be read or changed.
#[derive(Debug, thiserror::Error)]
pub enum ArmingError {
    /// The file is not what Cowork writes: nothing is guessed, nothing fires.
    #[error("{} is not valid JSON ({source}); fix or delete it — until then no trigger fires", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Where the JSON breaks.
        source: serde_json::Error,
    },
    /// The file or its lock could not be read or written.
    #[error("failed to {what} {}", path.display())]
    Io {
        /// `read`, `lock` or `write`.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: io::Error,
    },
}

/// What the owner armed for one routine: its local triggers as `workspace.json` declared them when
/// the Active switch was turned on. Kept whole rather than hashed, so what changed can be shown.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Digest {
    /// The cron this machine fires (a `deployed` schedule is the target's, not ours).
    #[serde(default)]
    pub schedule: Option<String>,
    /// A webhook answers here.
    #[serde(default)]
    pub webhook: bool,
    /// The webhook asks for its hook token.
    #[serde(default)]
    pub hook_token: bool,
    /// The origin the webhook's answers allow (`*` when the deployment names none).
    #[serde(default)]
    pub cors_origin: Option<String>,
    /// The apps (or `*`) whose notifications start the routine, sorted.
    #[serde(default)]
    pub notifications: Vec<String>,
}

impl Digest {
    /// What `deployment` asks this machine to answer, defaults filled in (an absent `corsOrigin`
    /// is `*`), so two spellings of the same thing are one digest.
    pub fn of(deployment: &Deployment) -> Digest {
        let mut notifications = deployment.notifications.clone();
        notifications.sort();
        notifications.dedup();
        Digest {
            schedule: deployment.local_schedule().map(str::to_owned),
            webhook: deployment.webhook,
            hook_token: deployment.webhook && deployment.hook_token,
            cors_origin: deployment
                .webhook
                .then(|| deployment.cors_origin.clone().unwrap_or_else(|| "*".into())),
            notifications,
        }
    }
}

impl fmt::Display for Digest {
    /// `schedule "0 6 * * *", webhook (no token, any origin), notifications of mail, chat`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(cron) = &self.schedule {
            parts.push(format!("schedule \"{cron}\""));
        }
        if self.webhook {
            let token = if self.hook_token { "token" } else { "no token" };
            let origin = match self.cors_origin.as_deref() {
                None | Some("*") => "any origin".to_owned(),
                Some(origin) => format!("origin {origin}"),
            };
            parts.push(format!("webhook ({token}, {origin})"));
        }
        if !self.notifications.is_empty() {
            parts.push(format!("notifications of {}", self.notifications.join(", ")));
        }
        if parts.is_empty() {
            return f.write_str("no trigger");
        }
        f.write_str(&parts.join(", "))
    }
}

/// How a routine's triggers differ from what the owner armed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// What was armed; `None` for a switch an earlier version turned on without recording it.
    pub armed: Option<Digest>,
    /// What `workspace.json` declares now.
    pub now: Digest,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.armed {
            Some(armed) => write!(f, "armed: {armed}; now: {}", self.now),
            None => write!(
                f,
                "armed by an earlier version, which kept no record of what; now: {}",
                self.now
            ),
        }
    }
}

/// One routine's Active switch.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Switch {
    /// The switch's position.
    pub active: bool,
    /// What was armed when it was turned on (absent when off, and in a file from before digests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<Digest>,
}

/// The `version` this code writes: 2 since each switch keeps its [`Digest`].
pub const VERSION: u32 = 2;

/// A workspace's armed state on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Armed {
    /// The file's format: absent (0) before digests, else [`VERSION`].
    #[serde(default)]
    pub version: u32,
    /// The workspace's path (written on every change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<PathBuf>,
    /// The workspace's triggers are on (each still needs its own switch).
    #[serde(default)]
    pub armed: bool,
    /// Routine id → its switch, for the routines whose switch was used.
    #[serde(default)]
    pub routines: BTreeMap<String, Switch>,
}

/// The last column of `cowork routine list`, as page 03 names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Switched off (`cowork app disable`, `disabled.routines`): refuses every run.
    Off,
    /// No trigger here: runs only when something calls it.
    OnDemand,
    /// A trigger that fires: `<cron>`, `webhook` or `notifications`.
    Active(String),
    /// A trigger declared but not armed.
    NotArmed(String),
    /// Switched on, but its triggers are no longer what the owner armed: nothing fires until they
    /// confirm it.
    Changed(String),
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            State::Off => f.write_str("off"),
            State::OnDemand => f.write_str("on demand"),
            State::Active(what) => write!(f, "active · {what}"),
            State::NotArmed(what) => write!(f, "{what} · not armed"),
            State::Changed(what) => write!(f, "{what} · changed since armed"),
        }
    }
}

impl State {
    /// Whether the routine runs on its own.
    pub fn is_active(&self) -> bool {
        matches!(self, State::Active(_))
    }
}

fn label(trigger: &Trigger) -> String {
    match trigger {
        Trigger::Schedule(cron) => cron.clone(),
        Trigger::Webhook => "webhook".into(),
        Trigger::Notifications(_) => "notifications".into(),
    }
}

impl Armed {
    /// Whether routine `id`'s triggers, as `deployment` declares them now, fire: the workspace is
    /// on, the routine's switch is on, and nothing changed since the owner armed it.
    pub fn fires(&self, id: &str, deployment: &Deployment) -> bool {
        self.armed
            && self.routines.get(id).is_some_and(|s| {
                s.active && s.digest.as_ref().is_some_and(|d| *d == Digest::of(deployment))
            })
    }

    /// How routine `id`'s triggers changed since its switch was turned on, if they did.
    pub fn change(&self, id: &str, deployment: &Deployment) -> Option<Change> {
        let switch = self.routines.get(id).filter(|s| s.active)?;
        let now = Digest::of(deployment);
        (switch.digest.as_ref() != Some(&now)).then(|| Change { armed: switch.digest.clone(), now })
    }

    /// The state of routine `id`, switched off (`disabled`) or not, with its deployment if any.
    pub fn state(&self, id: &str, deployment: Option<&Deployment>, disabled: bool) -> State {
        if disabled {
            return State::Off;
        }
        let Some(deployment) = deployment else { return State::OnDemand };
        let Some(first) = deployment.local_triggers().first().map(label) else {
            return State::OnDemand;
        };
        if self.change(id, deployment).is_some() {
            State::Changed(first)
        } else if self.fires(id, deployment) {
            State::Active(first)
        } else {
            State::NotArmed(first)
        }
    }

    /// Brings a file from before digests to [`VERSION`]: every routine it let fire — switched on,
    /// or (with the workspace armed) a schedule or webhook without a switch, which then followed
    /// the workspace — gets an active switch without a digest, which reads as changed since armed.
    fn migrate(&mut self, deployments: &BTreeMap<String, Deployment>) {
        if self.version >= VERSION {
            return;
        }
        if self.armed {
            for (id, deployment) in deployments {
                if deployment.local_schedule().is_some() || deployment.webhook {
                    self.routines
                        .entry(id.clone())
                        .or_insert(Switch { active: true, digest: None });
                }
            }
        }
        self.version = VERSION;
    }
}

/// One workspace's armed state under a Cowork root.
pub struct Arming {
    workspace: PathBuf,
    path: PathBuf,
}

impl Arming {
    /// The armed state of `workspace` (an absolute, canonical path) under `root`.
    pub fn new(root: &Root, workspace: &Path) -> Self {
        Arming {
            workspace: workspace.to_path_buf(),
            path: root.workspace_dir(workspace).join(FILE),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The state; a missing file is "not armed", one from before digests is read as migrated.
    pub fn read(&self) -> Result<Armed, ArmingError> {
        let mut state = read_file(&self.path)?;
        if state.version < VERSION && state.armed {
            state.migrate(&crate::triggers::deployments::read(&self.workspace));
        }
        Ok(state)
    }

    /// Lets `edit` change the state under the lock and writes it back atomically; returns it.
    pub fn update(&self, edit: impl FnOnce(&mut Armed)) -> Result<Armed, ArmingError> {
        let failed = |what, path: &Path| {
            let path = path.to_path_buf();
            move |source| ArmingError::Io { what, path, source }
        };
        let _lock = crate::fs_atomic::lock(&self.path)
            .map_err(failed("lock", &self.path.with_extension("json.lock")))?;
        let mut state = self.read()?;
        state.version = VERSION;
        edit(&mut state);
        state.workspace = Some(self.workspace.clone());
        let text = serde_json::to_string_pretty(&state).expect("the armed state serializes");
        crate::fs_atomic::write(&self.path, format!("{text}\n").as_bytes(), true)
            .map_err(failed("write", &self.path))?;
        Ok(state)
    }

    /// Records where the workspace is, changing nothing else: its webhook URLs then resolve (and
    /// answer "not armed" until the owner arms them).
    pub fn register(&self) -> Result<Armed, ArmingError> {
        self.update(|_| {})
    }

    /// Turns the workspace's triggers on or off (`cowork deploy triggers on|off`): on lets the
    /// routines switched on fire again, as they were armed; it arms nothing new.
    pub fn set_armed(&self, armed: bool) -> Result<Armed, ArmingError> {
        self.update(|state| state.armed = armed)
    }

    /// The Active switch of routine `id`, whose deployment is `deployment`: `on` arms its triggers
    /// as `deployment` declares them (their [`Digest`]) and turns the workspace on; `off` stops
    /// this routine only.
    pub fn set_active(
        &self,
        id: &str,
        deployment: &Deployment,
        on: bool,
    ) -> Result<Armed, ArmingError> {
        self.update(|state| {
            if on {
                state.armed = true;
            }
            let digest = on.then(|| Digest::of(deployment));
            state.routines.insert(id.to_owned(), Switch { active: on, digest });
        })
    }

    /// Forgets routine `id`'s switch (its deployment was removed).
    pub fn forget(&self, id: &str) -> Result<Armed, ArmingError> {
        self.update(|state| {
            state.routines.remove(id);
        })
    }
}

/// Why a routine's Active switch could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SwitchError {
    /// The workspace has no routine by that id.
    #[error("no routine \"{0}\" in this workspace")]
    NotFound(String),
    /// `on` needs a trigger this machine answers.
    #[error("{0} has no trigger here: nothing would run it on its own")]
    NoTrigger(String),
    /// The owner confirmed triggers they were shown, and the file says something else now.
    #[error("{id}'s triggers changed again since they were shown to you: now {now}")]
    ChangedAgain {
        /// The routine.
        id: String,
        /// What the file declares now.
        now: Digest,
    },
    /// The armed state could not be changed.
    #[error(transparent)]
    Arming(#[from] ArmingError),
}

/// What the Active switch did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Switched {
    /// The switch's new position.
    pub active: bool,
    /// The routine's state now.
    pub state: State,
    /// What is armed now (`on`): the routine's triggers as `workspace.json` declares them.
    pub digest: Option<Digest>,
    /// The change this switch confirmed, when the routine was changed since armed.
    pub confirmed: Option<Change>,
    /// The other routines that fire again because this switch turned the workspace back on (each
    /// was switched on before, and still matches what was armed).
    pub also_firing: Vec<String>,
}

/// The Active switch of routine `id` in `workspace` (`cowork routine active`, Manage › Workflows,
/// the Monitor): the one place the CLI and the daemon route use, to switch a routine on or off and
/// to confirm one changed since armed (on again). `expected` is what the owner was shown (the
/// Workflows view sends it): when the file declares something else by now, nothing is armed.
pub fn switch_routine(
    root: &Root,
    workspace: &Path,
    id: &str,
    on: bool,
    expected: Option<&Digest>,
) -> Result<Switched, SwitchError> {
    let registry = crate::registry::load(workspace);
    let entry = registry.routine(id).ok_or_else(|| SwitchError::NotFound(id.to_owned()))?;
    let deployments = crate::triggers::deployments::of(&registry.config);
    let deployment = deployments
        .get(id)
        .filter(|d| !d.local_triggers().is_empty())
        .ok_or_else(|| SwitchError::NoTrigger(id.to_owned()))?;
    let digest = Digest::of(deployment);
    if on && expected.is_some_and(|shown| *shown != digest) {
        return Err(SwitchError::ChangedAgain { id: id.to_owned(), now: digest });
    }
    let arming = Arming::new(root, workspace);
    let before = arming.read().unwrap_or_default();
    let state = arming.set_active(id, deployment, on)?;
    let firing = |armed: &Armed, other: &String, d: &Deployment| {
        other != id && registry.routine(other).is_some_and(|r| !r.disabled) && armed.fires(other, d)
    };
    let also_firing = deployments
        .iter()
        .filter(|(other, d)| firing(&state, other, d) && !firing(&before, other, d))
        .map(|(other, _)| other.clone())
        .collect();
    Ok(Switched {
        active: on,
        state: state.state(id, Some(deployment), entry.disabled),
        digest: on.then_some(digest),
        confirmed: if on { before.change(id, deployment) } else { None },
        also_firing,
    })
}

fn read_file(path: &Path) -> Result<Armed, ArmingError> {
    match fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|source| ArmingError::Corrupt { path: path.to_path_buf(), source }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Armed::default()),
        Err(source) => Err(ArmingError::Io { what: "read", path: path.to_path_buf(), source }),
    }
}

/// Every workspace under `root` whose triggers are on, with its state (a file that does not read
/// arms nothing).
pub fn armed_workspaces(root: &Root) -> Vec<(PathBuf, Armed)> {
    let Ok(entries) = fs::read_dir(root.workspaces_dir()) else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| read_file(&entry.path().join(FILE)).ok())
        .filter(|state| state.armed)
        .filter_map(|state| Some((state.workspace.clone()?, state)))
        .collect()
}

/// The workspace whose folder under `root` is named `key` (see [`crate::paths::workspace_key`]),
/// if its armed state was ever written.
pub fn workspace_of_key(root: &Root, key: &str) -> Option<PathBuf> {
    if key.contains(['/', '\\']) || key.starts_with('.') {
        return None;
    }
    let state = read_file(&root.workspaces_dir().join(key).join(FILE)).ok()?;
    state.workspace.filter(|ws| crate::paths::workspace_key(ws) == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment(schedule: Option<&str>, webhook: bool, apps: &[&str]) -> Deployment {
        Deployment {
            target: "container".into(),
            schedule: schedule.map(str::to_owned),
            webhook,
            notifications: apps.iter().map(|a| a.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn nothing_fires_until_the_owner_switches_it_on_and_one_switch_arms_one_routine() {
        let root = tempfile::tempdir().unwrap();
        let root = Root::new(root.path());
        let ws = Path::new("/home/ana/cloned");
        let arming = Arming::new(&root, ws);
        let nightly = deployment(Some("0 6 * * *"), false, &[]);
        let hook = deployment(None, true, &[]);
        let state = arming.read().unwrap();
        assert_eq!(
            state.state("nightly", Some(&nightly), false).to_string(),
            "0 6 * * * · not armed"
        );
        assert_eq!(state.state("hook", Some(&hook), false).to_string(), "webhook · not armed");
        assert_eq!(state.state("plain", None, false), State::OnDemand);
        assert_eq!(state.state("nightly", Some(&nightly), true), State::Off);
        assert!(armed_workspaces(&root).is_empty());

        // The switch arms that routine (and turns the workspace on), no other.
        let state = arming.set_active("nightly", &nightly, true).unwrap();
        assert_eq!(state.state("nightly", Some(&nightly), false).to_string(), "active · 0 6 * * *");
        assert_eq!(state.state("hook", Some(&hook), false).to_string(), "webhook · not armed");
        assert!(!state.fires("hook", &hook));
        assert_eq!(armed_workspaces(&root).len(), 1);
        assert_eq!(workspace_of_key(&root, &crate::paths::workspace_key(ws)).as_deref(), Some(ws));

        // Off stops that routine only; triggers off stops them all, on brings back what was armed.
        let state = arming.set_active("hook", &hook, true).unwrap();
        assert!(state.fires("hook", &hook));
        let state = arming.set_active("hook", &hook, false).unwrap();
        assert_eq!(state.state("hook", Some(&hook), false).to_string(), "webhook · not armed");
        assert!(state.state("nightly", Some(&nightly), false).is_active());
        let state = arming.set_armed(false).unwrap();
        assert!(!state.state("nightly", Some(&nightly), false).is_active());
        assert!(armed_workspaces(&root).is_empty());
        let state = arming.set_armed(true).unwrap();
        assert!(state.fires("nightly", &nightly));
        assert!(!state.fires("hook", &hook));
    }

    #[test]
    fn anything_changed_since_armed_fires_nothing_until_confirmed() {
        let root = tempfile::tempdir().unwrap();
        let arming = Arming::new(&Root::new(root.path()), Path::new("/ws"));
        let hook = Deployment {
            hook_token: true,
            cors_origin: Some("https://app.example".into()),
            ..deployment(Some("0 6 * * *"), true, &["mail"])
        };
        let state = arming.set_active("sync", &hook, true).unwrap();
        assert!(state.fires("sync", &hook));
        assert_eq!(state.change("sync", &hook), None);

        // Each thing the digest keeps, changed alone.
        let changed = [
            Deployment { schedule: Some("* * * * *".into()), ..hook.clone() },
            Deployment { mode: Some(crate::triggers::deployments::Mode::Deployed), ..hook.clone() },
            Deployment { webhook: false, hook_token: false, cors_origin: None, ..hook.clone() },
            Deployment { hook_token: false, ..hook.clone() },
            Deployment { cors_origin: None, ..hook.clone() },
            Deployment { cors_origin: Some("https://evil.example".into()), ..hook.clone() },
            Deployment { notifications: vec!["mail".into(), "chat".into()], ..hook.clone() },
            Deployment { notifications: vec![], ..hook.clone() },
        ];
        for now in &changed {
            assert!(!state.fires("sync", now), "{now:?}");
            let what = state.state("sync", Some(now), false).to_string();
            assert!(what.ends_with(" · changed since armed"), "{what}");
        }
        let wider = &changed[4];
        assert_eq!(
            state.change("sync", wider).unwrap().to_string(),
            "armed: schedule \"0 6 * * *\", webhook (token, origin https://app.example), notifications of mail; \
             now: schedule \"0 6 * * *\", webhook (token, any origin), notifications of mail"
        );
        // What does not change what fires is no change: the target, a secret's name, the order
        // of the apps, an explicit "*".
        let same = Deployment {
            target: "cloudflare-worker".into(),
            secrets: vec!["mail.token".into()],
            ..hook.clone()
        };
        assert!(state.fires("sync", &same));
        let plain = deployment(None, true, &["b", "a"]);
        let state = arming.set_active("plain", &plain, true).unwrap();
        let star = Deployment {
            cors_origin: Some("*".into()),
            notifications: vec!["a".into(), "b".into()],
            ..plain
        };
        assert!(state.fires("plain", &star));

        // The owner confirms: the new triggers are what is armed now.
        let state = arming.set_active("sync", wider, true).unwrap();
        assert!(state.fires("sync", wider));
        assert!(!state.fires("sync", &hook), "the old triggers are no longer armed");
    }

    #[test]
    fn a_file_from_before_digests_fires_nothing_it_armed_until_confirmed() {
        let root = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let arming = Arming::new(&Root::new(root.path()), ws.path());
        let nightly = deployment(Some("0 6 * * *"), false, &[]);
        let hook = deployment(None, true, &[]);
        let off = deployment(None, true, &[]);
        let triage = deployment(None, false, &["mail"]);
        crate::triggers::deployments::put(ws.path(), "nightly", &nightly).unwrap();
        crate::triggers::deployments::put(ws.path(), "hook", &hook).unwrap();
        crate::triggers::deployments::put(ws.path(), "off", &off).unwrap();
        crate::triggers::deployments::put(ws.path(), "triage", &triage).unwrap();
        // As the earlier version wrote it: the workspace armed, `nightly` following it (no
        // switch), `hook` switched on, `off` switched off, `triage` consented.
        fs::create_dir_all(arming.path().parent().unwrap()).unwrap();
        let legacy = serde_json::json!({
            "workspace": ws.path(),
            "armed": true,
            "routines": {
                "hook": { "active": true },
                "off": { "active": false },
                "triage": { "active": true, "consented": ["mail"] },
            },
        });
        fs::write(arming.path(), legacy.to_string()).unwrap();

        let state = arming.read().unwrap();
        for (id, d, expected) in [
            ("nightly", &nightly, "0 6 * * * · changed since armed"),
            ("hook", &hook, "webhook · changed since armed"),
            ("off", &off, "webhook · not armed"),
            ("triage", &triage, "notifications · changed since armed"),
        ] {
            assert_eq!(state.state(id, Some(d), false).to_string(), expected, "{id}");
            assert!(!state.fires(id, d), "{id}");
        }
        assert!(armed_workspaces(&Root::new(root.path()))
            .iter()
            .all(|(_, armed)| !armed.fires("nightly", &nightly) && !armed.fires("hook", &hook)));

        // The next write keeps them so; confirming one arms that one.
        let state = arming.set_active("hook", &hook, true).unwrap();
        assert_eq!(state.version, VERSION);
        assert!(state.fires("hook", &hook));
        assert_eq!(
            state.state("nightly", Some(&nightly), false).to_string(),
            "0 6 * * * · changed since armed"
        );
        assert!(!arming.read().unwrap().fires("nightly", &nightly));
    }

    #[test]
    fn a_damaged_file_arms_nothing() {
        let root = tempfile::tempdir().unwrap();
        let root = Root::new(root.path());
        let arming = Arming::new(&root, Path::new("/ws"));
        fs::create_dir_all(arming.path().parent().unwrap()).unwrap();
        fs::write(arming.path(), "{ armed: true").unwrap();
        assert!(matches!(arming.read(), Err(ArmingError::Corrupt { .. })));
        assert!(armed_workspaces(&root).is_empty());
        assert!(workspace_of_key(&root, "../x").is_none());
    }
}
