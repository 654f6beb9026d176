//! The workspace's last capture: as the desktop app leaves a workspace (a switch to another, Quit),
//! the main window as it is becomes `<root>/workspaces/<key>/last-capture.png` (0600, written
//! atomically), which `cowork publish --screenshot` offers as a store card's first screenshot. Only
//! the window's own pixels are taken, never the screen around it. A capture that fails (no display,
//! the window hidden to the tray) is logged: it never holds up the switch or Quit.

use super::still;
use crate::hooks::Hooks;
use crate::main_window::{self, MAIN};
use crate::session::{Active, Session};
use cowork_core::paths::Root;
use std::path::{Path, PathBuf};
use tauri::{AppHandle, Manager};

/// Takes the capture as a workspace is left: on a switch (before the window shows the next one) and
/// as Quit starts (before the window closes).
pub fn init(app: &tauri::App) {
    let hooks = app.state::<Hooks>();
    hooks.on_leaving(keep);
    hooks.on_quitting(|app| keep(app, &app.state::<Active>().get()));
}

/// Captures the main window, which still shows `workspace` and carries its title, and keeps it.
fn keep(app: &AppHandle, workspace: &Path) {
    if app.get_webview_window(MAIN).is_none() {
        return;
    }
    let root = &app.state::<Session>().root;
    let written = still::own_window(&main_window::title(workspace))
        .map_err(|error| error.to_string())
        .and_then(|png| write(root, workspace, &png).map_err(|error| error.to_string()));
    match written {
        Ok(path) => tracing::info!("kept the last capture of {}: {}", workspace.display(), path.display()),
        Err(error) => tracing::warn!(
            "failed to keep the last capture of the workspace {}: {error} (`cowork publish --screenshot` has none to offer until the next leave)",
            workspace.display()
        ),
    }
}

/// Writes `png` as `workspace`'s last capture under `root`: atomically (a reader never sees half
/// an image, and a failed write keeps the one before), readable by the owner only (it is the window
/// as it was, which can show more than the workspace's files).
pub fn write(root: &Root, workspace: &Path, png: &[u8]) -> std::io::Result<PathBuf> {
    let path = root.last_capture_file(workspace);
    cowork_core::fs_atomic::write(&path, png, true)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_last_capture_is_written_where_publish_looks_owner_only_and_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path().join("root"));
        let workspace = dir.path().join("work");
        let path = write(&root, &workspace, b"\x89PNG\r\n\x1a\nfirst").unwrap();
        assert_eq!(path, root.workspace_dir(&workspace).join("last-capture.png"));
        assert_eq!(std::fs::read(&path).unwrap(), b"\x89PNG\r\n\x1a\nfirst");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        write(&root, &workspace, b"\x89PNG\r\n\x1a\nsecond").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"\x89PNG\r\n\x1a\nsecond");
        // Nothing but the capture is left in the folder (no temporary file).
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["last-capture.png"]);
    }
}
