//! Which workspace a command acts on: `--workspace <dir>`, else the current folder.

use crate::exit::{Exit, Failure};
use std::path::{Path, PathBuf};

/// The canonical workspace folder, or a failure naming the folder that is not there.
pub fn resolve(flag: Option<&Path>) -> Result<PathBuf, Failure> {
    let path = match flag {
        Some(path) => path.to_path_buf(),
        None => std::env::current_dir().map_err(|e| {
            Failure::new(Exit::Failed, format!("failed to read the current folder: {e}"))
        })?,
    };
    let canonical = path.canonicalize().map_err(|e| {
        Failure::new(
            Exit::NotFound,
            format!("failed to open the workspace {}: {e}", path.display()),
        )
        .hint("pass an existing folder with --workspace <dir>")
    })?;
    if !canonical.is_dir() {
        return Err(Failure::new(Exit::Usage, format!("{} is not a folder", canonical.display()))
            .hint("--workspace takes the workspace folder (the one holding .cowork/)"));
    }
    Ok(canonical)
}

/// A hint for a workspace with no apps folder: the most common reason nothing is found. Inside a
/// workspace (in `.cowork/apps/notes`, say) it names the enclosing one: the default stays the
/// current folder (docs/reference/cli.md), so the person is told where to run rather than silently
/// moved.
pub fn no_apps_hint(workspace: &Path) -> Option<String> {
    if workspace.join(APPS).is_dir() {
        return None;
    }
    let missing = format!("{} has no .cowork/apps folder", workspace.display());
    Some(match workspace.ancestors().skip(1).find(|dir| dir.join(APPS).is_dir()) {
        Some(enclosing) => {
            let quoted = cowork_core::shell::quote(&enclosing.display().to_string());
            format!("{missing}; it is inside the workspace {}: run from there or pass --workspace {quoted}", enclosing.display())
        }
        None => format!("{missing}: is it a Cowork workspace? Pass one with --workspace <dir>"),
    })
}

/// The apps folder, relative to a workspace.
const APPS: &str = ".cowork/apps";
