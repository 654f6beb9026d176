//! Commands the owner approved ahead of time, per workspace: what lets `ctx.command.run` and
//! `ctx.consent.request` proceed where no window can ask (a headless server).
//!
//! Kept in `<root>/workspaces/<key>/consent.json` as `{"allowed": ["<value>", …]}` — machine-local
//! and outside the workspace, so a checked-in or imported workspace can never approve its own
//! commands. Writes are atomic.

use crate::paths::Root;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A failure to read or write the approvals.
#[derive(Debug, thiserror::Error)]
pub enum ConsentError {
    #[error("failed to write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{path} is not valid JSON ({source}); fix or delete it — approvals are never guessed")]
    Corrupt { path: PathBuf, source: serde_json::Error },
    #[error("a consent value is a non-empty line of text")]
    BadValue,
}

#[derive(Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
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

    /// The approved values, in the order they were approved.
    pub fn list(&self) -> Result<Vec<String>, ConsentError> {
        Ok(self.read()?.allowed)
    }

    /// Whether `value` is approved.
    pub fn is_allowed(&self, value: &str) -> bool {
        self.read().is_ok_and(|f| f.allowed.iter().any(|v| v == value))
    }

    /// Approves `value`; false when it already was.
    pub fn allow(&self, value: &str) -> Result<bool, ConsentError> {
        if value.trim().is_empty() || value.contains('\n') {
            return Err(ConsentError::BadValue);
        }
        let mut file = self.read()?;
        if file.allowed.iter().any(|v| v == value) {
            return Ok(false);
        }
        file.allowed.push(value.to_string());
        self.write(&file).map(|()| true)
    }

    /// Withdraws an approval; false when there was none.
    pub fn revoke(&self, value: &str) -> Result<bool, ConsentError> {
        let mut file = self.read()?;
        let before = file.allowed.len();
        file.allowed.retain(|v| v != value);
        if file.allowed.len() == before {
            return Ok(false);
        }
        self.write(&file).map(|()| true)
    }
}

/// The exact command that approves `value` for `workspace`, quoted for a POSIX shell. The value is
/// always single-quoted, as the reference writes the line (`cowork consent allow '<value>'`), so a
/// person copies one shape whatever the value; the folder only when it needs it.
pub fn allow_command(value: &str, workspace: &Path) -> String {
    format!(
        "cowork consent allow {} --workspace {}",
        crate::shell::single_quoted(value),
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
        assert!(!approvals.is_allowed("git pull"));
        assert!(approvals.allow("git pull").unwrap());
        assert!(!approvals.allow("git pull").unwrap());
        assert!(approvals.allow("python3 report.py").unwrap());
        assert_eq!(approvals.list().unwrap(), ["git pull", "python3 report.py"]);
        assert!(approvals.revoke("git pull").unwrap());
        assert!(!approvals.revoke("git pull").unwrap());
        assert!(!approvals.is_allowed("git pull"));
        assert!(matches!(approvals.allow(" "), Err(ConsentError::BadValue)));
    }

    #[test]
    fn the_allow_line_is_quoted_for_the_shell() {
        assert_eq!(
            allow_command("pip-install", Path::new("/srv/work")),
            "cowork consent allow 'pip-install' --workspace /srv/work"
        );
        assert_eq!(
            allow_command("pip install -r req.txt", Path::new("/srv/work")),
            "cowork consent allow 'pip install -r req.txt' --workspace /srv/work"
        );
        assert_eq!(
            allow_command("it's rm -rf", Path::new("/a b")),
            r"cowork consent allow 'it'\''s rm -rf' --workspace '/a b'"
        );
    }
}
