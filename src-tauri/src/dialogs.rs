//! Native dialogs (messages and the folder picker), over the main window, awaited without
//! blocking a thread.

use crate::main_window::MAIN;
use std::path::{Path, PathBuf};
use tauri::{AppHandle, Manager, WebviewWindow};
use tauri_plugin_dialog::{
    DialogExt, MessageDialogButtons, MessageDialogKind, MessageDialogResult,
};

/// Asks a question with custom buttons and waits for the answer (closing the dialog is `Cancel`).
pub async fn ask(
    app: &AppHandle,
    title: &str,
    message: &str,
    buttons: MessageDialogButtons,
) -> MessageDialogResult {
    ask_over(app, app.get_webview_window(MAIN).as_ref(), title, message, buttons).await
}

/// [`ask`], over `window` (a site app's window) rather than the main one.
pub async fn ask_over(
    app: &AppHandle,
    window: Option<&WebviewWindow>,
    title: &str,
    message: &str,
    buttons: MessageDialogButtons,
) -> MessageDialogResult {
    let (answer, answered) = tokio::sync::oneshot::channel();
    let mut dialog = app
        .dialog()
        .message(message)
        .title(title)
        .kind(MessageDialogKind::Warning)
        .buttons(buttons);
    if let Some(window) = window {
        dialog = dialog.parent(window);
    }
    dialog.show_with_result(move |result| {
        let _ = answer.send(result);
    });
    answered.await.unwrap_or(MessageDialogResult::Cancel)
}

/// Tells the person something failed (a menu action has no page to report to).
pub fn error(app: &AppHandle, title: &str, message: &str) {
    tracing::warn!("{title}: {message}");
    let mut dialog = app.dialog().message(message).title(title).kind(MessageDialogKind::Error);
    if let Some(window) = app.get_webview_window(MAIN) {
        dialog = dialog.parent(&window);
    }
    dialog.show(|_| {});
}

/// Tells the person something happened that no page asked about (recordings repaired at start,
/// which happens on Linux only).
#[cfg(target_os = "linux")]
pub fn info(app: &AppHandle, title: &str, message: &str) {
    tracing::info!("{title}: {message}");
    app.dialog().message(message).title(title).kind(MessageDialogKind::Info).show(|_| {});
}

/// Tells the person something in a window of its own that waits for nothing (Linux): shown, it
/// leaves the app's loop running, so Quit still ends the app while it is open (the plugin's
/// dialogs hold a loop of their own until answered, and Quit waited for them).
#[cfg(target_os = "linux")]
pub fn note(app: &AppHandle, title: &str, message: &str) {
    tracing::info!("{title}: {message}");
    let (title, message) = (title.to_owned(), message.to_owned());
    let shown = app.run_on_main_thread(move || {
        use gtk::prelude::*;
        let dialog = gtk::MessageDialog::builder()
            .title(title.as_str())
            .text(title.as_str())
            .secondary_text(message.as_str())
            .message_type(gtk::MessageType::Info)
            .buttons(gtk::ButtonsType::Ok)
            .window_position(gtk::WindowPosition::Center)
            .build();
        dialog.connect_response(|dialog, _| dialog.close());
        dialog.show_all();
    });
    if let Err(error) = shown {
        tracing::warn!("failed to show a note: {error}");
    }
}

/// The native folder picker, over the main window, in the folder that holds the active
/// workspace (GTK's own start is an empty "Recent").
pub async fn pick_folder(app: &AppHandle) -> Option<PathBuf> {
    let (picked, chosen) = tokio::sync::oneshot::channel();
    let mut dialog = app.dialog().file().set_title("Open Folder");
    let home = std::env::var_os("HOME").map(PathBuf::from);
    if let Some(folder) = start_folder(&crate::session::active(app), home.as_deref()) {
        dialog = dialog.set_directory(folder);
    }
    if let Some(window) = app.get_webview_window(MAIN) {
        dialog = dialog.set_parent(&window);
    }
    dialog.pick_folder(move |folder| {
        let _ = picked.send(folder);
    });
    chosen.await.ok().flatten().and_then(|folder| folder.into_path().ok())
}

/// Where the folder picker starts: the folder that holds `workspace` (its siblings are the likely
/// next workspaces), else `home`, whichever is a folder.
fn start_folder(workspace: &Path, home: Option<&Path>) -> Option<PathBuf> {
    workspace.parent().into_iter().chain(home).find(|folder| folder.is_dir()).map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_picker_starts_beside_the_workspace_else_at_home() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("projects/notes");
        std::fs::create_dir_all(&workspace).unwrap();
        let home = dir.path();
        assert_eq!(start_folder(&workspace, Some(home)), Some(dir.path().join("projects")));
        // Its folder is gone (moved, unmounted): home.
        let gone = dir.path().join("gone/notes");
        assert_eq!(start_folder(&gone, Some(home)), Some(home.to_path_buf()));
        assert_eq!(start_folder(&gone, None), None);
    }
}
