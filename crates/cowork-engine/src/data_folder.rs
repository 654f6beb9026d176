//! The workspace folder of the apps' data, `.cowork/data/` (`ctx.data`, and `ctx.db` files placed
//! there), and the `.gitignore` that keeps it out of git: a leaf, read by the run that hands the
//! runner its data folder and by `ctx.db` when it creates a file there.

use std::path::Path;

/// The workspace folder of the apps' data (`ctx.data`, and `ctx.db` files placed there).
pub(crate) const DATA_DIR: &str = ".cowork/data";
/// `.cowork/data/.gitignore`: app data is local to a machine, never committed.
pub(crate) const DATA_GITIGNORE: &str = "# Cowork app data (ctx.data): local to this machine\n*\n";

/// Writes `.cowork/data/.gitignore` when it is missing (runner.mjs does the same for `ctx.data`,
/// with this text from its init answer).
pub(crate) fn ignore_data_folder(workspace: &Path) {
    let path = workspace.join(DATA_DIR).join(".gitignore");
    if !path.exists() {
        // The data is there either way; a failure only risks it being committed, so say so.
        let written = cowork_core::fs_atomic::write_inside(
            workspace,
            &path,
            DATA_GITIGNORE.as_bytes(),
            false,
        );
        if let Err(error) = written {
            tracing::warn!(%error, path = %path.display(), "could not keep app data out of git");
        }
    }
}
