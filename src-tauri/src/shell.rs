//! The app itself: the main window on the daemon's workbench, the active workspace and switching
//! it, the daemon streams the shell follows, show and hide, and Quit.
//!
//! Three streams run for the shell's whole life: the desktop channel (show requests from a second
//! launch or `cowork open`; its end means the daemon stopped, so the shell quits), the consent
//! questions of routines, and the active workspace's events (notifications and badge counts),
//! which is restarted on each switch.

use crate::daemon_link::Link;
use crate::workspaces::{self, DesktopState};
use crate::{badge, consent, menu, notifications, site_apps, tray};
use cowork_core::paths::Root;
use cowork_daemon::client::{ClientError, EventStream};
use parking_lot::Mutex;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tauri::async_runtime::JoinHandle;
use tauri::{
    AppHandle, Manager, RunEvent, WebviewUrl, WebviewWindow, WebviewWindowBuilder, WindowEvent,
};

/// The label of the one window: the workbench.
pub const MAIN: &str = "main";

/// The shell's state (managed).
pub struct Shell {
    pub root: Root,
    pub link: Link,
    /// The workspace the window shows (canonical, as the daemon named it).
    active: Mutex<PathBuf>,
    /// `desktop.json`.
    prefs: Mutex<DesktopState>,
    /// The active workspace's event stream.
    events: Mutex<Option<JoinHandle<()>>>,
    /// The streams that run for the shell's life.
    followers: Mutex<Vec<JoinHandle<()>>>,
    quitting: AtomicBool,
    /// One switch at a time: a second waits for the first.
    switching: tokio::sync::Mutex<()>,
}

fn lock<T>(mutex: &Mutex<T>) -> parking_lot::MutexGuard<'_, T> {
    mutex.lock()
}

impl Shell {
    /// The workspace the window shows.
    pub fn active(&self) -> PathBuf {
        lock(&self.active).clone()
    }

    /// A copy of `desktop.json`.
    pub fn prefs(&self) -> DesktopState {
        lock(&self.prefs).clone()
    }

    pub fn do_not_disturb(&self) -> bool {
        lock(&self.prefs).do_not_disturb
    }

    /// Whether Quit has started (the window's close then really closes).
    pub fn quitting(&self) -> bool {
        self.quitting.load(Ordering::SeqCst)
    }

    fn update_prefs(&self, change: impl FnOnce(&mut DesktopState)) {
        let mut prefs = lock(&self.prefs);
        change(&mut prefs);
        if let Err(error) = prefs.save(&self.root) {
            tracing::warn!("failed to write {}: {error}", DesktopState::file(&self.root).display());
        }
    }
}

/// Why the shell stopped before its window opened.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    #[error("failed to make {0} the active workspace: {1}")]
    Activate(PathBuf, ClientError),
    #[error("failed to run the window: {0}")]
    Tauri(#[from] tauri::Error),
}

/// `path?workspace=<workspace>`, percent-encoded.
pub fn with_workspace(path: &str, workspace: &Path) -> String {
    let mut url = tauri::Url::parse("http://127.0.0.1/").expect("a constant URL parses");
    url.set_path(path);
    url.query_pairs_mut().append_pair("workspace", &workspace.to_string_lossy());
    format!("{}?{}", url.path(), url.query().unwrap_or_default())
}

/// The window's title for `workspace`.
pub fn title(workspace: &Path) -> String {
    format!("Cowork Studio — {}", workspaces::display_name(workspace))
}

/// Runs the shell until Quit: `requests` is the desktop channel `link` holds.
pub fn run(
    root: Root,
    mut prefs: DesktopState,
    workspace: &Path,
    link: Link,
    requests: EventStream,
) -> Result<(), ShellError> {
    // The daemon names the workspace (canonical) and answers its counts before the window opens.
    let activated = tauri::async_runtime::block_on(
        link.daemon.post("/api/desktop/active", &json!({ "workspace": workspace })),
    )
    .map_err(|error| ShellError::Activate(workspace.to_path_buf(), error))?;
    let workspace =
        activated["workspace"].as_str().map_or_else(|| workspace.to_path_buf(), PathBuf::from);
    crate::start_trace::mark("workspace active");
    prefs.remember(&workspace);
    if let Err(error) = prefs.save(&root) {
        tracing::warn!("failed to write {}: {error}", DesktopState::file(&root).display());
    }
    let shell = Shell {
        root,
        link,
        active: Mutex::new(workspace.clone()),
        prefs: Mutex::new(prefs),
        events: Mutex::default(),
        followers: Mutex::default(),
        quitting: AtomicBool::new(false),
        switching: tokio::sync::Mutex::new(()),
    };
    let builder = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init());
    // Linux banners go to the session bus directly (see notifications/freedesktop.rs).
    #[cfg(not(target_os = "linux"))]
    let builder = builder.plugin(tauri_plugin_notification::init());
    let app = builder
        .manage(shell)
        .manage(badge::Badges::default())
        .manage(crate::external::TrustedHosts::default())
        .manage(site_apps::SiteApps::default())
        .manage(crate::browser::Browser::default())
        .manage(crate::capture::Capturing::default())
        .invoke_handler(tauri::generate_handler![
            crate::commands::open_external,
            crate::commands::open_folder,
            crate::commands::switch_workspace,
            crate::commands::open_site_app,
            crate::commands::open_browser,
            crate::commands::browser_status,
            crate::commands::sign_in,
            site_apps::hibernate::site_hibernation,
            site_apps::hibernate::set_site_hibernation,
            site_apps::site_report
        ])
        .register_uri_scheme_protocol(crate::browser::SCHEME, |_, request| {
            crate::browser::serve_bar(&request)
        })
        .on_menu_event(menu::on_event)
        .on_window_event(|window, event| {
            site_apps::on_window_event(window, event);
            // Closing the window hides it to the tray; everything keeps running (site apps too).
            // A site app's window really closes: its site stops.
            if let WindowEvent::CloseRequested { api, .. } = event {
                if window.label() == MAIN && !window.app_handle().state::<Shell>().quitting() {
                    api.prevent_close();
                    let _ = window.hide();
                }
            }
        })
        .setup(move |app| {
            crate::start_trace::mark("setup");
            notifications::init(app);
            let handle = app.handle();
            open_window(handle, &workspace)?;
            crate::start_trace::mark("window built");
            tray::build(handle)?;
            app.state::<badge::Badges>().set(badge::Counts::from_badges(&activated["badges"]));
            badge::show(handle);
            follow(handle, requests);
            crate::capture::init(handle);
            crate::start_trace::mark("setup done");
            Ok(())
        })
        .build(tauri::generate_context!())?;
    crate::start_trace::mark("event loop");
    app.run(|_, event| {
        // The window only hides, so "the last window closed" never means Quit; Quit calls exit.
        if let RunEvent::ExitRequested { code: None, api, .. } = event {
            api.prevent_exit();
        }
    });
    Ok(())
}

fn open_window(app: &AppHandle, workspace: &Path) -> tauri::Result<WebviewWindow> {
    let shell = app.state::<Shell>();
    let url: tauri::Url = shell
        .link
        .daemon
        .workbench_url(workspace)
        .parse()
        .expect("the daemon's workbench address is a URL");
    let port = shell.link.daemon.port();
    let prefs = shell.prefs();
    let navigation_app = app.clone();
    let new_window_app = app.clone();
    WebviewWindowBuilder::new(app, MAIN, WebviewUrl::External(url))
        .title(title(workspace))
        .inner_size(1280.0, 820.0)
        .min_inner_size(760.0, 480.0)
        .menu(menu::window_menu(app, &prefs.recent, workspace)?)
        // The workbench and its widget frames stay on the daemon; a page elsewhere opens in the
        // browser, after the same trust prompt as `openExternal`.
        .on_navigation(move |url| {
            if stays_in_workbench(url, port) {
                return true;
            }
            if matches!(url.scheme(), "http" | "https" | "mailto") {
                crate::external::open_later(&navigation_app, url.as_str());
            }
            false
        })
        .on_new_window(move |url, _| {
            crate::external::open_later(&new_window_app, url.as_str());
            tauri::webview::NewWindowResponse::Deny
        })
        .build()
}

/// Whether the main window may go to `url`: the daemon's pages (the workbench and its widget
/// frames) and `about:` frames. A `data:` or `blob:` page would replace the workbench with
/// whatever a pane wrote into it (a look-alike asking for a password), so neither is followed,
/// here or in the browser. WebKitGTK asks this for frames too and cannot say which: a widget's own
/// `data:`/`blob:` subframe is refused with it (a widget's frames load from its app's origin).
fn stays_in_workbench(url: &tauri::Url, port: u16) -> bool {
    crate::commands::is_daemon_page(url, port) || url.scheme() == "about"
}

/// Starts the streams the shell follows.
fn follow(app: &AppHandle, requests: EventStream) {
    let shell = app.state::<Shell>();
    let mut followers = lock(&shell.followers);
    followers.push(tauri::async_runtime::spawn(follow_requests(app.clone(), requests)));
    followers.push(tauri::async_runtime::spawn(consent::follow(app.clone())));
    followers.push(tauri::async_runtime::spawn(quit_on_signal(app.clone())));
    drop(followers);
    follow_events(app);
}

/// SIGTERM (a session ending) or Ctrl-C is Quit. The in-process daemon hears the same signal and
/// starts its graceful stop, which waits for the open connections: Quit is what closes ours.
async fn quit_on_signal(app: AppHandle) {
    #[cfg(unix)]
    {
        let Ok(mut term) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        else {
            return;
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    if tokio::signal::ctrl_c().await.is_err() {
        return;
    }
    tracing::info!("asked to stop by a signal: quitting");
    quit(&app);
}

/// The desktop channel: show requests, until the daemon goes away (then the shell quits too).
async fn follow_requests(app: AppHandle, mut requests: EventStream) {
    while let Some(request) = requests.next().await {
        match request["type"].as_str() {
            Some("capture") => crate::capture::on_request(&app, request.clone()),
            Some("captureStop") => crate::capture::on_stop_request(&app, &request),
            _ => {}
        }
        if request["type"] == "show" {
            let workspace = request["workspace"].as_str().map(PathBuf::from);
            show_main(&app);
            if let Some(workspace) = workspace {
                if let Err(error) = switch_workspace(&app, &workspace).await {
                    tracing::warn!("{error}");
                }
            }
        }
    }
    if !app.state::<Shell>().quitting() {
        tracing::info!("the Cowork daemon stopped, so Cowork Studio quits");
        quit(&app);
    }
}

/// (Re)starts following the active workspace's events: notifications and badge counts.
fn follow_events(app: &AppHandle) {
    let shell = app.state::<Shell>();
    let workspace = shell.active();
    let task = tauri::async_runtime::spawn(events(app.clone(), workspace));
    let previous = lock(&shell.events).replace(task);
    if let Some(previous) = previous {
        previous.abort();
    }
}

async fn events(app: AppHandle, workspace: PathBuf) {
    let path = with_workspace("/api/events", &workspace);
    loop {
        match app.state::<Shell>().link.daemon.stream(&path).await {
            Ok(mut stream) => {
                // Counts that changed before the stream was up, and the apps' titles.
                badge::refetch(&app).await;
                while let Some(event) = stream.next().await {
                    match event["type"].as_str() {
                        Some("notification") => notifications::on_event(&app, &event).await,
                        Some("badge") => badge::on_event(&app, &event),
                        Some("registry") => badge::refetch(&app).await,
                        Some("open") => site_apps::on_open_event(&app, &event),
                        _ => {}
                    }
                }
            }
            Err(error) => {
                tracing::warn!("failed to follow the events of {}: {error}", workspace.display())
            }
        }
        if app.state::<Shell>().quitting() {
            return;
        }
        // The stream ended without Quit (the daemon dropped us a moment): pick up again.
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Brings the main window up: shown, unminimized, focused.
pub fn show_main(app: &AppHandle) {
    if let Some(window) = app.get_webview_window(MAIN) {
        let _ = window.show();
        let _ = window.unminimize();
        let _ = window.set_focus();
    }
}

/// Hides the main window to the tray.
pub fn hide_main(app: &AppHandle) {
    if let Some(window) = app.get_webview_window(MAIN) {
        let _ = window.hide();
    }
}

/// Makes `workspace` the active one: the daemon delivers only its notifications, the window shows
/// its workbench, it heads the recent list, and its counts and events are followed.
pub async fn switch_workspace(app: &AppHandle, workspace: &Path) -> Result<PathBuf, SwitchError> {
    let shell = app.state::<Shell>();
    let _one_at_a_time = shell.switching.lock().await;
    let folder = workspaces::canonical_folder(workspace)?;
    if folder == shell.active() {
        return Ok(folder);
    }
    let activated = shell
        .link
        .daemon
        .post("/api/desktop/active", &json!({ "workspace": folder }))
        .await
        .map_err(|source| SwitchError::Daemon { path: folder.clone(), source })?;
    let folder = activated["workspace"].as_str().map_or(folder, PathBuf::from);
    let left = std::mem::replace(&mut *lock(&shell.active), folder.clone());
    crate::capture::on_switch(app, &left);
    // Only the active workspace's site apps run.
    site_apps::close_all(app);
    shell.update_prefs(|prefs| prefs.remember(&folder));
    if let Some(window) = app.get_webview_window(MAIN) {
        let url: tauri::Url = shell
            .link
            .daemon
            .workbench_url(&folder)
            .parse()
            .expect("the daemon's workbench address is a URL");
        let _ = window.navigate(url);
        let _ = window.set_title(&title(&folder));
    }
    menu::refresh(app);
    app.state::<badge::Badges>().set(badge::Counts::from_badges(&activated["badges"]));
    badge::show(app);
    follow_events(app);
    tracing::info!("switched to the workspace {}", folder.display());
    Ok(folder)
}

/// Why a switch of workspace failed.
#[derive(Debug, thiserror::Error)]
pub enum SwitchError {
    #[error(transparent)]
    Folder(#[from] workspaces::WorkspaceError),
    #[error("failed to open the workspace {path}: {source}")]
    Daemon { path: PathBuf, source: ClientError },
}

/// Switches to `workspace` from a menu: a failure is told in a dialog, since no page asked.
pub fn switch_from_menu(app: &AppHandle, workspace: PathBuf) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Err(error) = switch_workspace(&app, &workspace).await {
            crate::dialogs::error(
                &app,
                "Cowork Studio could not open the folder",
                &error.to_string(),
            );
        }
        // The check item chosen toggled itself: show the truth again (also after no switch).
        menu::refresh(&app);
    });
}

/// Do Not Disturb on or off (remembered in `desktop.json`).
pub fn set_do_not_disturb(app: &AppHandle, on: bool) {
    app.state::<Shell>().update_prefs(|prefs| prefs.do_not_disturb = on);
    tray::refresh(app);
}

/// A banner was clicked: the window comes up on `app_name`'s pane in `workspace`.
pub async fn open_app(app: &AppHandle, workspace: &Path, app_name: &str) {
    if let Err(error) = switch_workspace(app, workspace).await {
        tracing::warn!("{error}");
        return;
    }
    show_main(app);
    let shell = app.state::<Shell>();
    let body = json!({ "workspace": shell.active(), "app": app_name });
    // After a switch the workbench page is still loading: it answers 409 until it listens.
    for _ in 0..50 {
        match shell.link.daemon.post("/api/open", &body).await {
            Err(ClientError::Refused { status: 409, .. }) => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            Err(error) => {
                tracing::warn!("failed to open {app_name}'s pane: {error}");
                break;
            }
            Ok(_) => break,
        }
    }
    if let Err(error) = shell.link.daemon.post("/api/notifications/shown", &body).await {
        tracing::warn!("failed to mark {app_name}'s notifications as seen: {error}");
    }
}

/// Quit: the window goes, the streams stop, the daemon this shell started stops (running routines
/// finish and write their audit line first), then the process exits. A daemon that was already
/// running is left running.
pub fn quit(app: &AppHandle) {
    let shell = app.state::<Shell>();
    if shell.quitting.swap(true, Ordering::SeqCst) {
        return;
    }
    // Everything that holds a connection to the daemon open goes first: a graceful stop waits for
    // open connections, and the page's and our event streams never end by themselves.
    site_apps::close_all(app);
    if let Some(window) = app.get_window(crate::browser::LABEL) {
        let _ = window.destroy();
    }
    if let Some(window) = app.get_webview_window(MAIN) {
        let _ = window.destroy();
    }
    if let Some(events) = lock(&shell.events).take() {
        events.abort();
    }
    for follower in lock(&shell.followers).drain(..) {
        follower.abort();
    }
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        // A recording's file is made whole before the daemon that hears its end goes.
        crate::capture::stop_for_quit(&app).await;
        app.state::<Shell>().link.shutdown().await;
        app.exit(0);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pane_cannot_replace_the_workbench_with_a_data_or_blob_page() {
        let stays = |url: &str| stays_in_workbench(&url.parse().unwrap(), 47913);
        assert!(stays("http://127.0.0.1:47913/?workspace=/w"));
        assert!(stays("http://notes-0123abcd.app.localhost:47913/frame"));
        assert!(stays("about:blank"));
        assert!(!stays("data:text/html,<h1>Sign in again</h1>"));
        assert!(!stays("blob:http://127.0.0.1:47913/4b1d0c2e-0000-4000-8000-000000000000"));
        assert!(!stays("https://example.com/"));
    }

    #[test]
    fn workspace_queries_are_percent_encoded() {
        assert_eq!(
            with_workspace("/api/events", Path::new("/home/a b/ws&x")),
            "/api/events?workspace=%2Fhome%2Fa+b%2Fws%26x"
        );
    }

    #[test]
    fn the_title_names_the_workspace_folder() {
        assert_eq!(title(Path::new("/home/me/Cowork")), "Cowork Studio — Cowork");
    }
}
