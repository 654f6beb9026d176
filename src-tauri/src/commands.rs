//! The commands the workbench may call (`window.__TAURI_INTERNALS__.invoke`), registered in one
//! place ([`handler`]) and declared in `build.rs`; each checks its caller first ([`crate::ipc::caller`]).
//! A site app's page has one command of its own, `site_report` ([`site_apps::bridge`]).

use crate::ipc::{caller, CommandError};
use crate::session::Session;
use crate::site_apps::{self, SiteError};
use crate::{browser, dialogs, external, shell};
use tauri::{AppHandle, Manager, Url, Webview};

/// Every command of the app, for `invoke_handler`.
pub fn handler() -> impl Fn(tauri::ipc::Invoke) -> bool + Send + Sync + 'static {
    tauri::generate_handler![
        open_external,
        open_folder,
        switch_workspace,
        open_site_app,
        open_browser,
        browser_status,
        sign_in,
        crate::theme::set_theme,
        site_apps::hibernate::site_hibernation,
        site_apps::hibernate::set_site_hibernation,
        site_apps::bridge::site_report
    ]
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
    Ok(external::open(&app, &url).await?)
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
    let started = app
        .state::<Session>()
        .link
        .daemon
        .sign_in(&cowork_wire::daemon::account::SignIn { hub })
        .await
        .map_err(|error| CommandError::new("Failed", error))?;
    let url = started.url.as_str();
    let parsed = Url::parse(url).map_err(|_| {
        CommandError::new("Failed", format!("the daemon answered no sign-in address: {url:?}"))
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
    let Some(folder) = dialogs::pick_folder(&app).await else { return Ok(None) };
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
    site_apps::open(&handle, &app).await.map_err(|error| {
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
        .map(browser::normalize)
        .transpose()
        .map_err(|message| CommandError::new("BadRequest", message))?;
    browser::open(&app, url).map_err(|error| {
        CommandError::new("Failed", format!("failed to open the browser window: {error}"))
    })
}

/// `browser.status()` of a widget: the browser window's page, or `open: false` when it is closed.
#[tauri::command]
pub fn browser_status(app: AppHandle, webview: Webview) -> Result<browser::Status, CommandError> {
    caller(&webview)?;
    Ok(browser::status(&app))
}
