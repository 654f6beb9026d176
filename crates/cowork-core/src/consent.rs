//! Commands the owner approved ahead of time, per workspace: what lets `ctx.command.run` and
//! `ctx.consent.request` proceed where no window can ask (a headless server).
//!
//! An approval is keyed by the app that asks and the value it asks with: an "Always allow" given to
//! one app's `"list files"` lets no other app run something else under the same label.
//!
//! Kept in `<root>/workspaces/<key>/consent.json` as `{"approvals": [{"app", "value"}, …]}` —
//! machine-local and outside the workspace, so a checked-in or imported workspace can never approve
//! its own commands. Writes are atomic. The older `{"allowed": ["<value>"]}` entries named no app:
//! they approve nothing any more (the person is asked again) and are dropped on the next write.

use crate::paths::Root;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A failure to read or write the approvals.
#[derive(Debug, thiserror::Error)]
pub enum ConsentError {
    /// `consent.json` could not be written.
    #[error("failed to write {path}: {source}")]
    Write {
        /// The file Cowork tried to write.
        path: PathBuf,
        /// Why the write failed.
        source: std::io::Error,
    },
    /// `consent.json` is not what Cowork wrote: never guessed at, since it decides what runs.
    #[error("{path} is not valid JSON ({source}); fix or delete it — approvals are never guessed")]
    Corrupt {
        /// The file that does not parse.
        path: PathBuf,
        /// What the parser found wrong.
        source: serde_json::Error,
    },
    /// A value to approve that is empty or more than one line.
    #[error("a consent value is a non-empty line of text")]
    BadValue,
}

/// One approval: `value`, asked by `app`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// The app that asked (its package name).
    pub app: String,
    /// The exact one-line value it asked with.
    pub value: String,
}

#[derive(Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    approvals: Vec<Approval>,
    /// Label-only approvals from before they were keyed by app: read to be counted, never honoured.
    #[serde(default, skip_serializing)]
    allowed: Vec<String>,
}

/// One workspace's approvals.
pub struct Approvals {
    path: PathBuf,
}

impl Approvals {
    /// The approvals of `workspace` (canonical path) under `root`.
    pub fn new(root: &Root, workspace: &Path) -> Self {
        Approvals { path: root.workspace_dir(workspace).join("consent.json") }
    }

    fn read(&self) -> Result<File, ConsentError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|source| ConsentError::Corrupt { path: self.path.clone(), source }),
            Err(_) => Ok(File::default()),
        }
    }

    fn write(&self, file: &File) -> Result<(), ConsentError> {
        let text = serde_json::to_string_pretty(file).expect("strings serialize");
        crate::fs_atomic::write(&self.path, format!("{text}\n").as_bytes(), true)
            .map_err(|source| ConsentError::Write { path: self.path.clone(), source })
    }

    /// The approvals, in the order they were given.
    pub fn list(&self) -> Result<Vec<Approval>, ConsentError> {
        Ok(self.read()?.approvals)
    }

    /// How many label-only approvals from before approvals named their app are still in the file
    /// (they approve nothing: each is asked again).
    pub fn outdated(&self) -> Result<usize, ConsentError> {
        Ok(self.read()?.allowed.len())
    }

    /// Whether `app` may proceed with `value`.
    pub fn is_allowed(&self, app: &str, value: &str) -> bool {
        self.read().is_ok_and(|f| f.approvals.iter().any(|a| a.app == app && a.value == value))
    }

    /// Approves `value` for `app`; false when it already was.
    pub fn allow(&self, app: &str, value: &str) -> Result<bool, ConsentError> {
        if value.trim().is_empty() || value.contains('\n') || app.trim().is_empty() {
            return Err(ConsentError::BadValue);
        }
        let mut file = self.read()?;
        if file.approvals.iter().any(|a| a.app == app && a.value == value) {
            return Ok(false);
        }
        file.approvals.push(Approval { app: app.to_string(), value: value.to_string() });
        self.write(&file).map(|()| true)
    }

    /// Withdraws `app`'s approval of `value`; false when there was none.
    pub fn revoke(&self, app: &str, value: &str) -> Result<bool, ConsentError> {
        let mut file = self.read()?;
        let before = file.approvals.len();
        file.approvals.retain(|a| !(a.app == app && a.value == value));
        if file.approvals.len() == before {
            return Ok(false);
        }
        self.write(&file).map(|()| true)
    }
}

/// The exact command that approves `value` for `app` in `workspace`, quoted for a POSIX shell. The
/// value is always single-quoted, as the reference writes the line (`cowork consent allow
/// '<value>'`), so a person copies one shape whatever the value; the others only when they need it.
pub fn allow_command(app: &str, value: &str, workspace: &Path) -> String {
    format!(
        "cowork consent allow {} --app {} --workspace {}",
        crate::shell::single_quoted(value),
        crate::shell::quote(app),
        crate::shell::quote(&workspace.display().to_string())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_revoke_list() {
        let home = tempfile::tempdir().unwrap();
        let approvals = Approvals::new(&Root::new(home.path()), Path::new("/w"));
        assert!(!approvals.is_allowed("git", "git pull"));
        assert!(approvals.allow("git", "git pull").unwrap());
        assert!(!approvals.allow("git", "git pull").unwrap());
        assert!(approvals.allow("report", "python3 report.py").unwrap());
        let listed: Vec<(String, String)> =
            approvals.list().unwrap().into_iter().map(|a| (a.app, a.value)).collect();
        assert_eq!(
            listed,
            [("git".into(), "git pull".into()), ("report".into(), "python3 report.py".into())]
        );
        assert!(approvals.revoke("git", "git pull").unwrap());
        assert!(!approvals.revoke("git", "git pull").unwrap());
        assert!(!approvals.is_allowed("git", "git pull"));
        assert!(matches!(approvals.allow("git", " "), Err(ConsentError::BadValue)));
    }

    #[test]
    fn an_approval_is_one_apps_not_every_app_using_the_label() {
        let home = tempfile::tempdir().unwrap();
        let approvals = Approvals::new(&Root::new(home.path()), Path::new("/w"));
        approvals.allow("files", "list files").unwrap();
        assert!(approvals.is_allowed("files", "list files"));
        assert!(!approvals.is_allowed("intruder", "list files"));
    }

    #[test]
    fn label_only_approvals_from_before_approve_nothing() {
        let home = tempfile::tempdir().unwrap();
        let root = Root::new(home.path());
        let approvals = Approvals::new(&root, Path::new("/w"));
        let file = root.workspace_dir(Path::new("/w")).join("consent.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, r#"{"allowed": ["list files"]}"#).unwrap();
        assert!(!approvals.is_allowed("files", "list files"));
        assert_eq!(approvals.outdated().unwrap(), 1);
        assert!(approvals.list().unwrap().is_empty());
    }

    #[test]
    fn the_allow_line_is_quoted_for_the_shell() {
        assert_eq!(
            allow_command("ops", "pip-install", Path::new("/srv/work")),
            "cowork consent allow 'pip-install' --app ops --workspace /srv/work"
        );
        assert_eq!(
            allow_command("ops", "pip install -r req.txt", Path::new("/srv/work")),
            "cowork consent allow 'pip install -r req.txt' --app ops --workspace /srv/work"
        );
        assert_eq!(
            allow_command("ops", "it's rm -rf", Path::new("/a b")),
            r"cowork consent allow 'it'\''s rm -rf' --app ops --workspace '/a b'"
        );
    }
}
