//! The folders inside a workspace that Cowork writes into by itself, and the rule that none of
//! them is a symlink.
//!
//! A workspace is often a folder someone else made (a clone, an archive, a shared drive). Opening
//! one writes into it: `.cowork/local/` gets the SDK types, a `.gitignore`, the task store and the
//! routines' mirror, `.cowork/data/` its `.gitignore`, and `.claude/skills/` the apps' skill
//! links. If one of those folders were a link to `~/.ssh`, the write would land there (a
//! `.gitignore` replaced outside the workspace). So Cowork refuses to open a workspace whose own
//! folders are links ([`check`]: the engine, `workspace.json`'s lock, the skill links and the
//! task store each ask), and `cowork doctor` names them; below them, files are written with
//! [`crate::fs_atomic::write_inside`], which follows no link either.

use std::path::{Path, PathBuf};

/// The workspace's folders Cowork writes into, relative to the workspace.
pub const OWN_FOLDERS: [&str; 5] =
    [".cowork", ".cowork/local", ".cowork/data", ".claude", ".claude/skills"];

/// One of [`OWN_FOLDERS`] is a symlink: Cowork will not write through it.
#[derive(Debug, thiserror::Error)]
#[error(
    "failed to open the workspace {}: {folder} is a symlink (to {}), and Cowork writes into it",
    workspace.display(),
    target.display()
)]
pub struct SymlinkedFolder {
    /// The workspace.
    pub workspace: PathBuf,
    /// The folder, relative to the workspace (`.cowork/local`).
    pub folder: &'static str,
    /// Where the link leads, as it says.
    pub target: PathBuf,
}

impl SymlinkedFolder {
    /// What to do about it.
    pub fn hint(&self) -> String {
        format!(
            "Cowork never writes through a link in a workspace: make {} a real folder (move the \
             link away; copy in what it led to if you want it), or open {} on its own",
            self.folder,
            self.target.display()
        )
    }
}

/// Refuses a workspace where one of [`OWN_FOLDERS`] is a symlink (a missing one is fine: Cowork
/// creates it as a real folder).
pub fn check(workspace: &Path) -> Result<(), SymlinkedFolder> {
    for folder in OWN_FOLDERS {
        let path = workspace.join(folder);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(SymlinkedFolder {
                workspace: workspace.to_path_buf(),
                folder,
                target: std::fs::read_link(&path).unwrap_or_default(),
            });
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_linked_cowork_folder_is_refused_naming_it_and_where_it_leads() {
        let ws = tempfile::tempdir().unwrap();
        assert!(check(ws.path()).is_ok(), "a workspace without the folders opens");
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(ws.path().join(".cowork")).unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join(".cowork/local")).unwrap();
        let error = check(ws.path()).unwrap_err();
        assert_eq!(error.folder, ".cowork/local");
        assert!(
            error.to_string().ends_with(&format!(
                ".cowork/local is a symlink (to {}), and Cowork writes into it",
                outside.path().display()
            )),
            "{error}"
        );
        assert!(error.hint().contains("make .cowork/local a real folder"), "{}", error.hint());
    }
}
