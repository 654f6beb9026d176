//! Which workspace a command acts on: `--workspace <dir>`, else the current folder.

use crate::exit::{Exit, Failure};
use std::path::{Path, PathBuf};

/// The canonical workspace folder, or a failure naming the folder that is not there.
pub fn resolve(flag: Option<&Path>) -> Result<PathBuf, Failure> {
    let path = match flag {
        Some(path) => path.to_path_buf(),
        None => std::env::current_dir().map_err(|e| Failure::new(Exit::Failed, format!("failed to read the current folder: {e}")))?,
    };
    let canonical = path.canonicalize().map_err(|e| Failure::new(Exit::NotFound, format!("failed to open the workspace {}: {e}", path.display())).hint("pass an existing folder with --workspace <dir>"))?;
    if !canonical.is_dir() {
        return Err(Failure::new(Exit::Usage, format!("{} is not a folder", canonical.display())).hint("--workspace takes the workspace folder (the one holding .cowork/)"));
    }
    Ok(canonical)
}

/// A hint for a workspace with no apps folder: the most common reason nothing is found.
pub fn no_apps_hint(workspace: &Path) -> Option<String> {
    (!workspace.join(".cowork/apps").is_dir()).then(|| format!("{} has no .cowork/apps folder: is it a Cowork workspace? Pass one with --workspace <dir>", workspace.display()))
}
