//! The window's menu bar (File › Open Folder…, Open Recent, New Browser Window, Close Window,
//! Quit), the items the tray's menu shares with it, and their ids. What choosing an item does is
//! its feature's: each listens for its own ids (the shell's, the browser's, the tray's, site
//! apps'). The tray's menu is rebuilt whole when what it lists changes (a switch, a count, Do Not
//! Disturb): it is small, and a rebuilt menu cannot drift from the state it shows.

use crate::hooks;
use crate::main_window::MAIN;
use crate::session::{self, Preferences};
use crate::workspaces;
use std::path::{Path, PathBuf};
use tauri::menu::{CheckMenuItem, Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::{AppHandle, Manager, Wry};

/// Item ids, shared by the tray's menu and the menu bar.
pub mod id {
    pub const SHOW: &str = "show";
    pub const OPEN_FOLDER: &str = "open-folder";
    pub const OPEN_BROWSER: &str = "open-browser";
    pub const CLOSE_WINDOW: &str = "close-window";
    pub const DO_NOT_DISTURB: &str = "do-not-disturb";
    pub const START_AT_LOGIN: &str = "start-at-login";
    pub const QUIT: &str = "quit";
    /// Followed by the workspace's path.
    pub const WORKSPACE: &str = "workspace:";
    /// Followed by the app's name (a disabled line: nothing to choose).
    pub const COUNT: &str = "count:";
    /// Followed by the name of a site app that hibernates: choosing it wakes it.
    pub const ASLEEP: &str = "asleep:";
}

const FILE: &str = "file";
const OPEN_RECENT: &str = "open-recent";

/// The recent workspaces as check items (the active one checked); folders gone from disk are left out.
pub fn recent_items(
    app: &AppHandle,
    recent: &[PathBuf],
    active: &Path,
) -> tauri::Result<Vec<CheckMenuItem<Wry>>> {
    recent
        .iter()
        .filter(|path| path.is_dir())
        .map(|path| {
            CheckMenuItem::with_id(
                app,
                format!("{}{}", id::WORKSPACE, path.display()),
                recent_label(path),
                true,
                path == active,
                None::<&str>,
            )
        })
        .collect()
}

/// A recent workspace's line: its folder's name, then where it is.
pub fn recent_label(path: &Path) -> String {
    match path.parent() {
        Some(parent) if parent != Path::new("/") && parent != Path::new("") => {
            format!("{}  ({})", workspaces::display_name(path), parent.display())
        }
        _ => workspaces::display_name(path),
    }
}

/// The window's menu bar.
pub fn window_menu(app: &AppHandle, recent: &[PathBuf], active: &Path) -> tauri::Result<Menu<Wry>> {
    let open_recent = Submenu::with_id(app, OPEN_RECENT, "Open Recent", true)?;
    for item in recent_items(app, recent, active)? {
        open_recent.append(&item)?;
    }
    let file = Submenu::with_id_and_items(
        app,
        FILE,
        "File",
        true,
        &[
            &MenuItem::with_id(app, id::OPEN_FOLDER, "Open Folder…", true, Some("CmdOrCtrl+O"))?,
            &open_recent,
            &MenuItem::with_id(
                app,
                id::OPEN_BROWSER,
                "New Browser Window",
                true,
                Some("CmdOrCtrl+Shift+B"),
            )?,
            &PredefinedMenuItem::separator(app)?,
            // Ctrl+W is the workbench's, as in VS Code: it closes the editor tab shown.
            &MenuItem::with_id(
                app,
                id::CLOSE_WINDOW,
                "Close Window",
                true,
                Some("CmdOrCtrl+Shift+W"),
            )?,
            &MenuItem::with_id(app, id::QUIT, "Quit", true, Some("CmdOrCtrl+Q"))?,
        ],
    )?;
    Menu::with_items(app, &[&file])
}

/// Shows a new recent list or active workspace in the menu bar's Open Recent and in the tray. Open
/// Recent's items are replaced in place: a new menu bar would drop and re-add every accelerator.
pub fn refresh(app: &AppHandle) {
    let prefs = app.state::<Preferences>().get();
    let open_recent = app
        .get_webview_window(MAIN)
        .and_then(|window| window.menu())
        .and_then(|bar| bar.get(FILE))
        .and_then(|file| file.as_submenu()?.get(OPEN_RECENT))
        .and_then(|item| item.as_submenu().cloned());
    if let Some(open_recent) = open_recent {
        let replaced = open_recent
            .items()
            .and_then(|old| old.iter().try_for_each(|item| open_recent.remove(item)))
            .and_then(|()| recent_items(app, &prefs.recent, &session::active(app)))
            .and_then(|items| items.iter().try_for_each(|item| open_recent.append(item)));
        if let Err(error) = replaced {
            tracing::warn!("failed to update File › Open Recent: {error}");
        }
    }
    hooks::status_changed(app);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recent_line_names_the_folder_then_where_it_is() {
        assert_eq!(recent_label(Path::new("/home/me/Cowork")), "Cowork  (/home/me)");
        assert_eq!(recent_label(Path::new("/srv")), "srv");
    }
}
