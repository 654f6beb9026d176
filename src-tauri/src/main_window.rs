//! The main window — the workbench — by its label: bringing it up, hiding it, its title. A leaf,
//! so every feature that shows something over the main window or brings it up names it from here.

use crate::workspaces;
use std::path::Path;
use tauri::{AppHandle, Manager};

/// The label of the main window: the workbench.
pub const MAIN: &str = "main";

/// Brings the main window up: shown, unminimized, focused.
pub fn show(app: &AppHandle) {
    if let Some(window) = app.get_webview_window(MAIN) {
        let _ = window.show();
        let _ = window.unminimize();
        let _ = window.set_focus();
    }
}

/// Closes the main window as its close button does: it hides to the tray (`shell::init`), and
/// where there is no tray the person is told how to get it back (`tray`).
pub fn close(app: &AppHandle) {
    if let Some(window) = app.get_webview_window(MAIN) {
        let _ = window.close();
    }
}

/// The window's title for `workspace`.
pub fn title(workspace: &Path) -> String {
    format!("Cowork Studio — {}", workspaces::display_name(workspace))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_names_the_workspace_folder() {
        assert_eq!(title(Path::new("/home/me/Cowork")), "Cowork Studio — Cowork");
    }
}
