//! The app's own life: the main window on the daemon's workbench, the active workspace and
//! switching it, the daemon streams the shell follows, Do Not Disturb, and Quit.
//!
//! Two streams run for the shell's whole life — the desktop channel (show requests from a second
//! launch or `cowork open`, capture requests; its end means the daemon stopped, so the shell
//! quits) and a signal watch — and a third follows the active workspace's events (notifications,
//! badge counts, `open`), restarted on each switch. It imports no feature: what a feature does
//! at a switch, at Quit or on an event of a stream, it registered in [`crate::hooks`].

use crate::daemon_link::Link;
use crate::hooks::{self, Hooks};
use crate::main_window::{self, MAIN};
use crate::menu::{self, id};
use crate::session::{self, Active, Preferences, Quitting, Session};
use crate::workspaces;
use cowork_wire::daemon::client::{ClientError, Subscription};
use cowork_wire::daemon::desktop::{self as wire, ActiveWorkspace, ShellRequest};
use cowork_wire::daemon::notifications::NotificationsShown;
use cowork_wire::daemon::workbench::OpenApp;
use parking_lot::Mutex;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tauri::async_runtime::JoinHandle;
use tauri::menu::MenuEvent;
use tauri::{AppHandle, Manager, WebviewUrl, WebviewWindow, WebviewWindowBuilder, WindowEvent};

/// The streams the shell follows (managed state).
#[derive(Default)]
pub struct Streams {
    /// The active workspace's event stream.
    events: Mutex<Option<JoinHandle<()>>>,
    /// The streams that run for the shell's life (a feature's too: [`keep`]).
    followers: Mutex<Vec<JoinHandle<()>>>,
}

/// Why the shell stopped before its window opened.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    #[error("failed to make {0} the active workspace: {1}")]
    Activate(PathBuf, ClientError),
    #[error("failed to run the window: {0}")]
    Tauri(#[from] tauri::Error),
}

/// Makes `workspace` the active one before the window opens: the daemon names it (canonical)
/// and answers its counts.
pub fn activate(link: &Link, workspace: &Path) -> Result<(PathBuf, wire::Active), ShellError> {
    let active = ActiveWorkspace { workspace: workspace.to_path_buf() };
    let activated = tauri::async_runtime::block_on(link.daemon.set_active(&active))
        .map_err(|error| ShellError::Activate(workspace.to_path_buf(), error))?;
    Ok((PathBuf::from(&activated.workspace), activated))
}

/// The shell's part at start: the main window on `workspace`'s workbench (its close hides it),
/// and the menu items that are the shell's.
pub fn init(app: &tauri::App, workspace: &Path) -> tauri::Result<()> {
    app.manage(Streams::default());
    let hooks = app.state::<Hooks>();
    // Closing the window hides it to the tray; everything keeps running (site apps too).
    hooks.on_window_event(|window, event| {
        if let WindowEvent::CloseRequested { api, .. } = event {
            if window.label() == MAIN && !session::quitting(window.app_handle()) {
                api.prevent_close();
                let _ = window.hide();
            }
        }
    });
    app.on_menu_event(on_menu);
    open_window(app.handle(), workspace)?;
    Ok(())
}

/// Starts the streams the shell follows: `requests` is the desktop channel the link holds.
pub fn start(app: &AppHandle, requests: Subscription<ShellRequest>) {
    keep(app, tauri::async_runtime::spawn(follow_requests(app.clone(), requests)));
    keep(app, tauri::async_runtime::spawn(quit_on_signal(app.clone())));
    follow_events(app);
}

/// Keeps a stream that runs for the shell's life, to end it at Quit.
pub fn keep(app: &AppHandle, follower: JoinHandle<()>) {
    app.state::<Streams>().followers.lock().push(follower);
}

fn open_window(app: &AppHandle, workspace: &Path) -> tauri::Result<WebviewWindow> {
    let session = app.state::<Session>();
    let url: tauri::Url = session
        .link
        .daemon
        .workbench_url(workspace)
        .parse()
        .expect("the daemon's workbench address is a URL");
    let port = session.link.daemon.port();
    let prefs = app.state::<Preferences>().get();
    let navigation_app = app.clone();
    let new_window_app = app.clone();
    let theme = crate::theme::saved(app);
    let builder = WebviewWindowBuilder::new(app, MAIN, WebviewUrl::External(url))
        // The workbench's storage (its theme, each workspace's window and shell) under the Cowork
        // root, as the browser's and the site apps' are: not in the user's data folder, where
        // every COWORK_HOME (each test run's) shared one.
        .data_directory(session.root.dir().join("workbench"))
        .title(main_window::title(workspace))
        .min_inner_size(760.0, 480.0)
        // Shown once its colour is set (`theme::show_painted`).
        .visible(false);
    let mut builder = crate::window_places::place(app, MAIN, builder, (1280.0, 820.0));
    // The window in the workbench's colour until its page paints (it was black before).
    if let Some(theme) = theme {
        builder = builder.background_color(theme.background());
    }
    let window = builder
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
        // A page's save under a new name asks where, with the native save dialog.
        .on_download(crate::save_as::on_download)
        .build()?;
    // A first start paints in the system's theme, which the workbench then follows too.
    let theme = theme.unwrap_or_else(|| crate::theme::system(&window));
    crate::theme::apply(app, theme);
    crate::theme::show_painted(&window, theme);
    crate::crashed_pages::reload_after_crash(&window);
    Ok(window)
}

/// Whether the main window may go to `url`: the daemon's pages (the workbench and its widget
/// frames) and `about:` frames. A `data:` or `blob:` page would replace the workbench with
/// whatever a pane wrote into it (a look-alike asking for a password), so neither is followed,
/// here or in the browser. WebKitGTK asks this for frames too and cannot say which: a widget's own
/// `data:`/`blob:` subframe is refused with it (a widget's frames load from its app's origin).
///
/// One exception: a `blob:` of an app's own origin (`blob:http://<app>-<hash>.app.localhost:<port>/…`).
/// WebKitGTK asks this before it turns an `<a download>` into a download — a web app's "save as"
/// (save_as.rs asks where) — and refusing it dropped the save silently. It gives a page nothing it
/// has not already: its own origin's page may load in the window anyway (the line above).
fn stays_in_workbench(url: &tauri::Url, port: u16) -> bool {
    let app_blob = url.scheme() == "blob"
        && tauri::Url::parse(url.path()).is_ok_and(|inner| {
            crate::ipc::is_daemon_page(&inner, port)
                && inner.host_str().is_some_and(|host| host.ends_with(".app.localhost"))
        });
    crate::ipc::is_daemon_page(url, port) || url.scheme() == "about" || app_blob
}

/// The menu items that are the shell's (of the menu bar and the tray alike).
fn on_menu(app: &AppHandle, event: MenuEvent) {
    let chosen = event.id().as_ref();
    match chosen {
        id::SHOW => main_window::show(app),
        id::OPEN_FOLDER => pick_folder_from_menu(app),
        id::CLOSE_WINDOW => main_window::close(app),
        id::DO_NOT_DISTURB => set_do_not_disturb(app, !app.state::<Preferences>().do_not_disturb()),
        id::QUIT => quit(app),
        _ => {
            if let Some(path) = chosen.strip_prefix(id::WORKSPACE) {
                main_window::show(app);
                switch_from_menu(app, PathBuf::from(path));
            }
        }
    }
}

/// File › Open Folder… and the tray's Open Folder…: pick, then switch.
fn pick_folder_from_menu(app: &AppHandle) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Some(folder) = crate::dialogs::pick_folder(&app).await {
            main_window::show(&app);
            switch_from_menu(&app, folder);
        }
    });
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

/// The desktop channel: show requests (and the features' requests), until the daemon goes away
/// (then the shell quits too).
async fn follow_requests(app: AppHandle, mut requests: Subscription<ShellRequest>) {
    while let Some(request) = requests.next().await {
        hooks::request(&app, &request);
        if let ShellRequest::Show { workspace } = request {
            let workspace = workspace.map(PathBuf::from);
            main_window::show(&app);
            if let Some(workspace) = workspace {
                if let Err(error) = switch_workspace(&app, &workspace).await {
                    tracing::warn!("{error}");
                }
            }
        }
    }
    if !session::quitting(&app) {
        tracing::info!("the Cowork daemon stopped, so Cowork Studio quits");
        quit(&app);
    }
}

/// (Re)starts following the active workspace's events.
fn follow_events(app: &AppHandle) {
    let workspace = session::active(app);
    let task = tauri::async_runtime::spawn(events(app.clone(), workspace));
    let previous = app.state::<Streams>().events.lock().replace(task);
    if let Some(previous) = previous {
        previous.abort();
    }
}

async fn events(app: AppHandle, workspace: PathBuf) {
    loop {
        match app.state::<Session>().link.daemon.events(Some(&workspace)).await {
            Ok(mut stream) => {
                // What changed before the stream was up (the counts, the apps' titles).
                hooks::connected(&app).await;
                while let Some(event) = stream.next().await {
                    hooks::event(&app, event).await;
                }
            }
            Err(error) => {
                tracing::warn!("failed to follow the events of {}: {error}", workspace.display())
            }
        }
        if session::quitting(&app) {
            return;
        }
        // The stream ended without Quit (the daemon dropped us a moment): pick up again.
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Makes `workspace` the active one: the daemon delivers only its notifications, the window shows
/// its workbench, it heads the recent list, and its counts and events are followed.
pub async fn switch_workspace(app: &AppHandle, workspace: &Path) -> Result<PathBuf, SwitchError> {
    let active = app.state::<Active>();
    let _one_at_a_time = active.one_switch_at_a_time().await;
    let folder = workspaces::canonical_folder(workspace)?;
    if folder == active.get() {
        return Ok(folder);
    }
    let session = app.state::<Session>();
    let activated = session
        .link
        .daemon
        .set_active(&ActiveWorkspace { workspace: folder.clone() })
        .await
        .map_err(|source| SwitchError::Daemon { path: folder.clone(), source })?;
    let folder = PathBuf::from(&activated.workspace);
    let left = active.replace(folder.clone());
    // A recording of the workspace left stops; only the active workspace's site apps run.
    hooks::leaving(app, &left);
    app.state::<Preferences>().update(&session.root, |prefs| prefs.remember(&folder));
    if let Some(window) = app.get_webview_window(MAIN) {
        let url: tauri::Url = session
            .link
            .daemon
            .workbench_url(&folder)
            .parse()
            .expect("the daemon's workbench address is a URL");
        let _ = window.navigate(url);
        let _ = window.set_title(&main_window::title(&folder));
    }
    menu::refresh(app);
    // The counts the daemon answered.
    hooks::entered(app, &activated);
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
    let root = &app.state::<Session>().root;
    app.state::<Preferences>().update(root, |prefs| prefs.do_not_disturb = on);
    hooks::status_changed(app);
}

/// A banner was clicked: the window comes up on `app_name`'s pane in `workspace`.
pub async fn open_app(app: &AppHandle, workspace: &Path, app_name: &str) {
    if let Err(error) = switch_workspace(app, workspace).await {
        tracing::warn!("{error}");
        return;
    }
    main_window::show(app);
    let session = app.state::<Session>();
    let workspace = session::active(app);
    let open =
        OpenApp { workspace: workspace.clone(), app: app_name.to_string(), file: None, r#as: None };
    // After a switch the workbench page is still loading: it answers 409 until it listens.
    for _ in 0..50 {
        match session.link.daemon.open(&open).await {
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
    let shown = NotificationsShown { workspace, app: app_name.to_string() };
    if let Err(error) = session.link.daemon.notifications_shown(&shown).await {
        tracing::warn!("failed to mark {app_name}'s notifications as seen: {error}");
    }
}

/// Quit: the windows go, the streams stop, the daemon this shell started stops (running routines
/// finish and write their audit line first), then the process exits. A daemon that was already
/// running is left running.
pub fn quit(app: &AppHandle) {
    if app.state::<Quitting>().start() {
        return;
    }
    // Everything that holds a connection to the daemon open goes first: a graceful stop waits for
    // open connections, and the page's and our event streams never end by themselves.
    hooks::quitting(app);
    if let Some(window) = app.get_webview_window(MAIN) {
        let _ = window.destroy();
    }
    let streams = app.state::<Streams>();
    if let Some(events) = streams.events.lock().take() {
        events.abort();
    }
    for follower in streams.followers.lock().drain(..) {
        follower.abort();
    }
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        // A recording's file is made whole before the daemon that hears its end goes.
        hooks::before_exit(&app).await;
        app.state::<Session>().link.shutdown().await;
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
    fn a_web_apps_save_as_download_of_its_own_blob_is_let_through() {
        let stays = |url: &str| stays_in_workbench(&url.parse().unwrap(), 47913);
        assert!(stays(
            "blob:http://notes-0123abcd.app.localhost:47913/4b1d0c2e-0000-4000-8000-000000000000"
        ));
        // Another daemon's port, another host, or a blob of an opaque origin: refused as before.
        assert!(!stays("blob:http://notes-0123abcd.app.localhost:1/4b1d0c2e"));
        assert!(!stays("blob:https://example.com/4b1d0c2e"));
        assert!(!stays("blob:null/4b1d0c2e"));
    }
}
