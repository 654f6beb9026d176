//! The commands the workbench may call (`window.__TAURI_INTERNALS__.invoke`), and who may call them.
//!
//! The capability (`capabilities/main.json`) already limits them to the window labelled `main`
//! on `http://127.0.0.1:*`, and Tauri injects its IPC only into a page's main frame, so widget
//! frames (sandboxed, on `*.app.localhost`) have no way in. Each command still checks its caller
//! itself — the webview's label and that its page is on *this* daemon's origin — since any script
//! on an allowed page could call it.

use crate::shell::{self, Shell};
use serde::Serialize;
use tauri::{AppHandle, Manager, Runtime, Url, Webview};
use tauri_plugin_dialog::DialogExt;

/// A refused or failed command, as the page receives it: `{name, message}`.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct CommandError {
    /// `Forbidden`, `BadRequest`, `Cancelled` or `Failed`.
    pub name: &'static str,
    pub message: String,
}

impl CommandError {
    pub(crate) fn new(name: &'static str, message: impl ToString) -> CommandError {
        CommandError { name, message: message.to_string() }
    }
}

impl From<crate::external::LinkError> for CommandError {
    fn from(error: crate::external::LinkError) -> Self {
        use crate::external::LinkError;
        let name = match error {
            LinkError::NotALink(_) | LinkError::Scheme(_) => "BadRequest",
            LinkError::Cancelled(_) => "Cancelled",
            LinkError::Open { .. } => "Failed",
        };
        CommandError::new(name, error)
    }
}

/// Whether `url` is a page of the daemon on `port` (the workbench, or a widget frame on its own
/// `<app>.app.localhost` origin): loopback, plain http, that port.
pub fn is_daemon_page(url: &Url, port: u16) -> bool {
    let loopback = matches!(url.host_str(), Some("127.0.0.1" | "localhost"))
        || url.host_str().is_some_and(|host| host.ends_with(".localhost"));
    url.scheme() == "http" && loopback && url.port() == Some(port)
}

/// Only the main window, on the workbench of this daemon (`http://127.0.0.1:<port>`), may call.
pub fn check_caller(label: &str, url: &Url, port: u16) -> Result<(), CommandError> {
    if label != shell::MAIN {
        return Err(CommandError::new(
            "Forbidden",
            format!("only Cowork Studio's main window may call this, not the window \"{label}\""),
        ));
    }
    let origin = url.origin().ascii_serialization();
    let expected = format!("http://127.0.0.1:{port}");
    if origin != expected {
        return Err(CommandError::new(
            "Forbidden",
            format!("only the workbench at {expected} may call this, not a page on {origin}"),
        ));
    }
    Ok(())
}

pub(crate) fn caller<R: Runtime>(webview: &Webview<R>) -> Result<(), CommandError> {
    let port = webview.state::<Shell>().link.daemon.port();
    let url = webview.url().map_err(|error| {
        CommandError::new(
            "Forbidden",
            format!("failed to read the calling page's address: {error}"),
        )
    })?;
    check_caller(webview.label(), &url, port)
}

/// `openExternal(url)`: the trust prompt, then the browser. Rejects `Cancelled` when the person
/// says no, `BadRequest` for a link that is not http, https or mailto.
#[tauri::command]
pub async fn open_external(
    app: AppHandle,
    webview: Webview,
    url: String,
) -> Result<(), CommandError> {
    caller(&webview)?;
    Ok(crate::external::open(&app, &url).await?)
}

/// `signIn(hub?)`: the daemon starts a browser sign-in to the Cowork hub (its loopback listener
/// waits for the browser's return) and the shell opens the hub's sign-in page in the browser —
/// no trust prompt: the address is the daemon's, built for the hub this machine names, never the
/// page's. Rejects `Failed` when the daemon refuses (no hub named, the hub does not answer).
#[tauri::command]
pub async fn sign_in(
    app: AppHandle,
    webview: Webview,
    hub: Option<String>,
) -> Result<(), CommandError> {
    use tauri_plugin_opener::OpenerExt;
    caller(&webview)?;
    let body = serde_json::json!({ "hub": hub });
    let started = app
        .state::<Shell>()
        .link
        .daemon
        .post("/api/account/sign-in", &body)
        .await
        .map_err(|error| CommandError::new("Failed", error))?;
    let url = started["url"].as_str().unwrap_or_default();
    let parsed = Url::parse(url).map_err(|_| {
        CommandError::new("Failed", format!("the daemon answered no sign-in address: {started}"))
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(CommandError::new(
            "Failed",
            format!("the sign-in address {url} is not http(s)"),
        ));
    }
    app.opener().open_url(parsed.as_str(), None::<&str>).map_err(|error| {
        CommandError::new("Failed", format!("failed to open the browser on {url}: {error}"))
    })
}

/// A native folder picker, then a switch to the folder picked: its path, or `null` when the
/// person cancelled.
#[tauri::command]
pub async fn open_folder(app: AppHandle, webview: Webview) -> Result<Option<String>, CommandError> {
    caller(&webview)?;
    let Some(folder) = pick_folder(&app).await else { return Ok(None) };
    let path = shell::switch_workspace(&app, &folder)
        .await
        .map_err(|error| CommandError::new("Failed", error))?;
    Ok(Some(path.display().to_string()))
}

/// Switches the window to the workspace at `path`: its canonical path.
#[tauri::command]
pub async fn switch_workspace(
    app: AppHandle,
    webview: Webview,
    path: String,
) -> Result<String, CommandError> {
    caller(&webview)?;
    let path = shell::switch_workspace(&app, std::path::Path::new(&path))
        .await
        .map_err(|error| CommandError::new("Failed", error))?;
    Ok(path.display().to_string())
}

/// Opens (or brings up) the window of the active workspace's site app `app`: the workbench hands
/// site apps to the shell (a rail click, its `open` event). Rejects `NotFound` for no such app,
/// `BadRequest` for an app that is not a site app, `Failed` when the window cannot open.
#[tauri::command]
pub async fn open_site_app(
    handle: AppHandle,
    webview: Webview,
    app: String,
) -> Result<(), CommandError> {
    caller(&webview)?;
    crate::site_apps::open(&handle, &app).await.map_err(|error| {
        use crate::site_apps::SiteError;
        let kind = match error {
            SiteError::NotFound { .. } => "NotFound",
            SiteError::NotASite(_) | SiteError::BadAddress { .. } => "BadRequest",
            SiteError::Window { .. } | SiteError::Storage { .. } => "Failed",
        };
        CommandError::new(kind, error)
    })
}

/// Opens the in-app browser window (or brings it up) on `url` (typed text is read as the address
/// bar reads it: a bare host is https), else on its address page. Rejects `BadRequest` for an
/// address that is not http or https, `Failed` when the window cannot open.
#[tauri::command]
pub async fn open_browser(
    app: AppHandle,
    webview: Webview,
    url: Option<String>,
) -> Result<(), CommandError> {
    caller(&webview)?;
    let url = url
        .as_deref()
        .map(crate::browser::normalize)
        .transpose()
        .map_err(|message| CommandError::new("BadRequest", message))?;
    crate::browser::open(&app, url).map_err(|error| {
        CommandError::new("Failed", format!("failed to open the browser window: {error}"))
    })
}

/// `browser.status()` of a widget: the browser window's page, or `open: false` when it is closed.
#[tauri::command]
pub fn browser_status(
    app: AppHandle,
    webview: Webview,
) -> Result<crate::browser::Status, CommandError> {
    caller(&webview)?;
    Ok(crate::browser::status(&app))
}

/// The native folder picker, over the main window.
async fn pick_folder(app: &AppHandle) -> Option<std::path::PathBuf> {
    let (picked, chosen) = tokio::sync::oneshot::channel();
    let mut dialog = app.dialog().file().set_title("Open Folder");
    if let Some(window) = app.get_webview_window(shell::MAIN) {
        dialog = dialog.set_parent(&window);
    }
    dialog.pick_folder(move |folder| {
        let _ = picked.send(folder);
    });
    chosen.await.ok().flatten().and_then(|folder| folder.into_path().ok())
}

/// File › Open Folder… and the tray's Open Folder…: pick, then switch.
pub fn pick_folder_from_menu(app: &AppHandle) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Some(folder) = pick_folder(&app).await {
            shell::show_main(&app);
            shell::switch_from_menu(&app, folder);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url;

    #[test]
    fn only_the_main_window_on_the_daemons_origin_may_call() {
        assert_eq!(
            check_caller("main", &url("http://127.0.0.1:47913/?workspace=/w#token=x"), 47913),
            Ok(())
        );
        assert_eq!(
            check_caller("other", &url("http://127.0.0.1:47913/"), 47913).unwrap_err().name,
            "Forbidden"
        );
        for foreign in [
            "http://127.0.0.1:8080/",
            "http://localhost:47913/",
            "https://127.0.0.1:47913/",
            "http://notes-1a2b.app.localhost:47913/frame.html",
            "tauri://localhost/",
            "http://evil.example/",
        ] {
            let error = check_caller("main", &url(foreign), 47913).unwrap_err();
            assert_eq!(error.name, "Forbidden", "{foreign}");
            assert!(error.message.contains("http://127.0.0.1:47913"), "{}", error.message);
        }
    }

    #[test]
    fn the_window_stays_on_the_daemons_pages() {
        assert!(is_daemon_page(&url("http://127.0.0.1:47913/?workspace=/w"), 47913));
        assert!(is_daemon_page(&url("http://notes-1a2b.app.localhost:47913/frame.html"), 47913));
        assert!(!is_daemon_page(&url("http://127.0.0.1:8080/"), 47913));
        assert!(!is_daemon_page(&url("https://example.com/"), 47913));
        assert!(!is_daemon_page(&url("http://localhost.evil.example:47913/"), 47913));
    }

    #[test]
    fn errors_reach_the_page_as_name_and_message() {
        let error = CommandError::from(crate::external::LinkError::Scheme("file".into()));
        assert_eq!(
            serde_json::to_value(&error).unwrap(),
            serde_json::json!({"name": "BadRequest", "message": "Cowork opens only http, https and mailto links, not file:"})
        );
    }
}
