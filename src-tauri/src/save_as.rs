//! "Save as" from the main window's pages asks where with the native save dialog. A web app's
//! save under a name other than its routed file's — `showSaveFilePicker` through the daemon's file
//! script (web_file.js, which WebKitGTK, having no picker of its own, turns into a download), or an
//! `<a download>` — and a widget's download are all WebKitGTK downloads; left alone, WebKitGTK
//! drops them in ~/Downloads without asking.
//!
//! WebKitGTK must be told where a download goes while it asks (synchronously, on the main thread,
//! where no dialog can be awaited), and a page's bytes are most often a `blob:` address only that
//! page can read. So the download goes first to a staging folder inside the Cowork root (private
//! like the root: never a shared temporary folder another user could have made first, and usually
//! on the same file system as the target, so the move is a rename); when it has finished, the save dialog opens over the main window, on the active
//! workspace's folder with the page's name filled in. Chosen: the file is moved there atomically
//! (renamed, or copied beside the target and renamed over it). Cancelled: the staged copy is
//! removed and nothing is written anywhere. A save through the file script's `showSaveFilePicker`
//! handle then gets the answer ([`answer_the_page`]): its `close()` resolves, or rejects with an
//! `AbortError` on Cancel; a page's own `<a download>` has no answer in the web platform.

use crate::main_window::MAIN;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use tauri::webview::DownloadEvent;
use tauri::{AppHandle, Manager, Webview};
use tauri_plugin_dialog::DialogExt;

/// The main window's download handler: stage, then ask where (see the module's doc).
pub fn on_download(webview: Webview, event: DownloadEvent<'_>) -> bool {
    match event {
        DownloadEvent::Requested { destination, .. } => {
            // WebKitGTK's suggestion: ~/Downloads and the page's name for the file.
            let name = destination
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "download".into());
            let root = webview.state::<crate::session::Session>().root.dir().to_path_buf();
            match staging_folder(&root) {
                Ok(folder) => {
                    *destination = folder.join(name);
                    true
                }
                Err(error) => {
                    tracing::warn!("failed to make a folder for a download: {error}");
                    false
                }
            }
        }
        DownloadEvent::Finished { url, path, success } => {
            let app = webview.app_handle().clone();
            let staged = match path {
                Some(staged) if success => staged,
                // Failed (or refused a staging folder): nothing to ask about, nothing saved.
                failed => {
                    if let Some(staged) = failed {
                        remove_staged(&staged);
                    }
                    answer_the_page(&app, &url, false);
                    return true;
                }
            };
            tauri::async_runtime::spawn(async move {
                let saved = ask_and_place(&app, staged).await;
                answer_the_page(&app, &url, saved);
            });
            true
        }
        _ => true,
    }
}

/// A new, private folder for one download: `<root>/save-as/<pid>-<n>`.
fn staging_folder(root: &Path) -> std::io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let parent = root.join("save-as");
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let folder = parent.join(format!("{}-{n}", std::process::id()));
    builder.create(&folder)?;
    Ok(folder)
}

/// Removes a staged download and its folder.
fn remove_staged(staged: &Path) {
    if let Some(folder) = staged.parent() {
        let _ = std::fs::remove_dir_all(folder);
    }
}

/// Tells the web app page that made the `blob:` address `url` whether its bytes were saved: the
/// workbench (the main frame, the page's parent) posts `{ cowork: "save-as", url, saved }` to the
/// frames of that origin only; web_file.js settles the page's save with it.
fn answer_the_page(app: &AppHandle, url: &tauri::Url, saved: bool) {
    let Ok(inner) = tauri::Url::parse(url.path()) else { return };
    if url.scheme() != "blob" {
        return;
    }
    let Some(window) = app.get_webview_window(MAIN) else { return };
    let answer = serde_json::json!({ "cowork": "save-as", "url": url.as_str(), "saved": saved });
    let origin = serde_json::Value::from(inner.origin().ascii_serialization());
    let script = format!(
        "for (const frame of document.querySelectorAll('[data-web-app] iframe')) frame.contentWindow?.postMessage({answer}, {origin})"
    );
    if let Err(error) = window.eval(script) {
        tracing::warn!("failed to tell the page whether {url} was saved: {error}");
    }
}

/// The save dialog for `staged`; the file moved where the person chose, or removed on Cancel.
/// Whether it was saved.
async fn ask_and_place(app: &AppHandle, staged: PathBuf) -> bool {
    let name = staged.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (picked, chosen) = tokio::sync::oneshot::channel();
    let mut dialog = app
        .dialog()
        .file()
        .set_title("Save As")
        .set_file_name(&name)
        .set_directory(crate::session::active(app));
    if let Some(window) = app.get_webview_window(MAIN) {
        dialog = dialog.set_parent(&window);
    }
    dialog.save_file(move |path| {
        let _ = picked.send(path);
    });
    let target = chosen.await.ok().flatten().and_then(|path| path.into_path().ok());
    let placed = match &target {
        Some(target) => place(&staged, target),
        None => {
            tracing::info!("the save of {name} was cancelled: nothing was written");
            Ok(())
        }
    };
    remove_staged(&staged);
    let saved = target.is_some() && placed.is_ok();
    if let (Err(error), Some(target)) = (placed, target) {
        crate::dialogs::error(
            app,
            "Cowork Studio could not save the file",
            &format!(
                "failed to save {name} to {}: {error}\n\nChoose a folder you can write to, with free space.",
                target.display()
            ),
        );
    }
    saved
}

/// Moves `staged` to `target` so that `target` is never half written: a rename, or across file
/// systems a copy beside `target` renamed over it.
fn place(staged: &Path, target: &Path) -> std::io::Result<()> {
    if std::fs::rename(staged, target).is_ok() {
        return Ok(());
    }
    let folder = target.parent().unwrap_or(Path::new("."));
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let beside = folder.join(format!(".{name}.cowork-save-{}", std::process::id()));
    let copied = std::fs::copy(staged, &beside)
        .and_then(|_| std::fs::File::open(&beside)?.sync_all())
        .and_then(|()| std::fs::rename(&beside, target));
    if copied.is_err() {
        let _ = std::fs::remove_file(&beside);
    }
    copied
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_staged_file_is_placed_whole_and_its_folder_is_private() {
        let root = tempfile::tempdir().unwrap();
        let folder = staging_folder(root.path()).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&folder).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700);
        }
        let staged = folder.join("copy.note");
        std::fs::write(&staged, "milk").unwrap();
        let out = tempfile::tempdir().unwrap();
        let target = out.path().join("copy.note");
        std::fs::write(&target, "old").unwrap();
        place(&staged, &target).unwrap();
        remove_staged(&staged);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "milk");
        assert!(!folder.exists(), "the staging folder is gone");
        let left: Vec<_> = std::fs::read_dir(out.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "no temporary file beside the target");
    }
}
