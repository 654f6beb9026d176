//! Whether a workspace's triggers fire on this machine: the owner's consent, kept apart from the
//! checked-in [`crate::deployments`].
//!
//! Kept in `<root>/workspaces/<key>/triggers.json` — machine-local and outside the workspace, so a
//! cloned, checked-in or imported `workspace.json` never fires anything: the file is missing there,
//! and a missing file is "not armed". It holds
//!
//! * `armed`: the workspace's switch. `cowork deploy triggers on|off` sets it; the first
//!   `cowork routine active <id> on` turns it on.
//! * `routines.<id>.active`: a routine's Active switch. Absent means "follows the workspace" for a
//!   schedule or a webhook; a notifications trigger needs it `true` (see below).
//! * `routines.<id>.consented`: the apps whose notifications the owner agreed to hand to the routine
//!   when they switched it on. A notifications trigger fires only while that list covers the
//!   deployment's: adding an app to the deployment (by `cowork deploy add` or by hand) switches it
//!   off until the switch is used again.
//! * `workspace`: the workspace's path, so the daemon finds the armed workspaces (and a webhook
//!   URL's workspace) from the root alone.
//!
//! Read-modify-writes hold `triggers.json.lock` (the CLI and the daemon both write) and replace the
//! file atomically.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::deployments::{Deployment, Trigger};
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

/// One routine's Active switch.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Switch {
    /// The switch's position.
    pub active: bool,
    /// The apps (or `*`) whose notifications the owner agreed to hand to the routine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub consented: Vec<String>,
}

/// A workspace's armed state on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Armed {
    /// The workspace's path (written on every change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<PathBuf>,
    /// The workspace's triggers are on.
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
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            State::Off => f.write_str("off"),
            State::OnDemand => f.write_str("on demand"),
            State::Active(what) => write!(f, "active · {what}"),
            State::NotArmed(what) => write!(f, "{what} · not armed"),
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
    /// Whether `trigger` of routine `id` fires now.
    pub fn fires(&self, id: &str, trigger: &Trigger) -> bool {
        let switch = self.routines.get(id);
        if !self.armed || switch.is_some_and(|s| !s.active) {
            return false;
        }
        match trigger {
            Trigger::Schedule(_) | Trigger::Webhook => true,
            // The notifications need the routine's own switch: it is the consent to hand these
            // apps' titles and bodies to it.
            Trigger::Notifications(apps) => switch.is_some_and(|s| {
                s.consented.iter().any(|c| c == "*")
                    || apps.iter().all(|app| s.consented.contains(app))
            }),
        }
    }

    /// The state of routine `id`, switched off (`disabled`) or not, with its deployment if any.
    pub fn state(&self, id: &str, deployment: Option<&Deployment>, disabled: bool) -> State {
        if disabled {
            return State::Off;
        }
        let triggers = deployment.map(Deployment::local_triggers).unwrap_or_default();
        let Some(first) = triggers.first() else { return State::OnDemand };
        match triggers.iter().find(|t| self.fires(id, t)) {
            Some(firing) => State::Active(label(firing)),
            None => State::NotArmed(label(first)),
        }
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

    /// The state; a missing file is "not armed".
    pub fn read(&self) -> Result<Armed, ArmingError> {
        read_file(&self.path)
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

    /// Turns the workspace's triggers on or off (`cowork deploy triggers on|off`).
    pub fn set_armed(&self, armed: bool) -> Result<Armed, ArmingError> {
        self.update(|state| state.armed = armed)
    }

    /// The Active switch of routine `id`, whose deployment is `deployment`: `on` arms the workspace
    /// too and records the notifications it consents to; `off` stops this routine only.
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
            let consented = if on { deployment.notifications.clone() } else { Vec::new() };
            state.routines.insert(id.to_owned(), Switch { active: on, consented });
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
    /// This switch armed the workspace (its other opted-in triggers fire too now).
    pub armed_workspace: bool,
}

/// The Active switch of routine `id` in `workspace` (`cowork routine active`, Manage › Workflows,
/// the Monitor): the one place the CLI and the daemon route use.
pub fn switch_routine(
    root: &Root,
    workspace: &Path,
    id: &str,
    on: bool,
) -> Result<Switched, SwitchError> {
    let registry = crate::registry::load(workspace);
    let entry = registry.routine(id).ok_or_else(|| SwitchError::NotFound(id.to_owned()))?;
    let deployments = crate::deployments::of(&registry.config);
    let deployment = deployments
        .get(id)
        .filter(|d| !d.local_triggers().is_empty())
        .ok_or_else(|| SwitchError::NoTrigger(id.to_owned()))?;
    let arming = Arming::new(root, workspace);
    let was_armed = arming.read().map(|s| s.armed).unwrap_or(false);
    let state = arming.set_active(id, deployment, on)?;
    Ok(Switched {
        active: on,
        state: state.state(id, Some(deployment), entry.disabled),
        armed_workspace: on && !was_armed,
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
    fn nothing_fires_until_the_owner_switches_it_on() {
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

        // The first switch arms the workspace: the other opted-in schedules and webhooks too.
        let state = arming.set_active("nightly", &nightly, true).unwrap();
        assert_eq!(state.state("nightly", Some(&nightly), false).to_string(), "active · 0 6 * * *");
        assert_eq!(state.state("hook", Some(&hook), false).to_string(), "active · webhook");
        assert_eq!(armed_workspaces(&root).len(), 1);
        assert_eq!(workspace_of_key(&root, &crate::paths::workspace_key(ws)).as_deref(), Some(ws));

        // Off stops that routine only; triggers off stops them all.
        let state = arming.set_active("hook", &hook, false).unwrap();
        assert_eq!(state.state("hook", Some(&hook), false).to_string(), "webhook · not armed");
        assert!(state.state("nightly", Some(&nightly), false).is_active());
        let state = arming.set_armed(false).unwrap();
        assert!(!state.state("nightly", Some(&nightly), false).is_active());
        assert!(armed_workspaces(&root).is_empty());
    }

    #[test]
    fn notifications_need_their_own_switch_and_each_added_app_asks_again() {
        let root = tempfile::tempdir().unwrap();
        let arming = Arming::new(&Root::new(root.path()), Path::new("/ws"));
        let mail = deployment(None, false, &["mail"]);
        let state = arming.set_armed(true).unwrap();
        assert_eq!(
            state.state("triage", Some(&mail), false).to_string(),
            "notifications · not armed"
        );
        let state = arming.set_active("triage", &mail, true).unwrap();
        assert_eq!(state.state("triage", Some(&mail), false).to_string(), "active · notifications");

        let more = deployment(None, false, &["mail", "chat"]);
        assert_eq!(
            state.state("triage", Some(&more), false).to_string(),
            "notifications · not armed"
        );
        let fewer = deployment(None, false, &[]);
        assert_eq!(state.state("triage", Some(&fewer), false), State::OnDemand);
        let state = arming.set_active("triage", &more, true).unwrap();
        assert!(state.state("triage", Some(&more), false).is_active());
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
