//! Cowork Studio, the desktop app: a Tauri 2 shell around the Cowork daemon.
//!
//! It starts the daemon in this process (or attaches to the one already running for the Cowork
//! root), opens the daemon's workbench in its window, and adds what a web page cannot do: a tray
//! icon, OS banners for notifications, the dock/taskbar badge, native dialogs (consent, the
//! external-link trust prompt, the folder picker). Single instance through the daemon: a second
//! launch asks the first to show itself and exits.
//!
//! ```sh
//! cowork-desktop [FOLDER]    # FOLDER, else the last workspace, else ~/Cowork
//! ```

// A release build on Windows opens no console window beside the app.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

// Each feature brings its own state and hooks in its `init`; `run` calls them in order. The
// modules under them share nothing but the leaves: `session` (the state every feature reads),
// `main_window`, `hooks` (the moments features follow), `ipc`, `dialogs`, `menu`, `workspaces`.
mod badge;
mod browser;
// Recording needs X11 and GStreamer: elsewhere every capture is answered `Unsupported`.
#[cfg_attr(not(target_os = "linux"), path = "capture/elsewhere.rs")]
mod capture;
mod commands;
mod consent;
mod crashed_pages;
mod daemon_link;
mod dialogs;
mod external;
mod hooks;
mod ipc;
mod main_window;
mod menu;
mod notifications;
mod page_loads;
mod save_as;
mod session;
mod shell;
mod site_apps;
mod start_trace;
mod theme;
mod tray;
mod window_places;
mod workspaces;

/// A literal address in the unit tests.
#[cfg(test)]
fn url(text: &str) -> tauri::Url {
    tauri::Url::parse(text).unwrap()
}

use clap::Parser;
use cowork_core::paths::Root;
use cowork_wire::daemon::client::Subscription;
use cowork_wire::daemon::desktop::ShellRequest;
use daemon_link::{Launch, Link};
use hooks::Hooks;
use session::{Active, Preferences, Quitting, Session};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tauri::RunEvent;
use workspaces::DesktopState;

/// Cowork Studio: the Cowork workbench in a desktop window.
#[derive(Parser)]
#[command(name = "cowork-desktop", version)]
struct Args {
    /// The workspace folder to open (default: the last one, else ~/Cowork).
    folder: Option<PathBuf>,
}

fn main() -> ExitCode {
    start_trace::mark("main");
    draw_into_shared_memory();
    let args = Args::parse();
    cowork_daemon::log::init("info");
    if !has_display() {
        eprintln!("error: no display to open Cowork Studio's window on (neither DISPLAY nor WAYLAND_DISPLAY is set)");
        eprintln!("hint: `cowork app serve <folder>` serves the workbench to a browser; `cowork start --headless` runs the daemon alone");
        return ExitCode::FAILURE;
    }
    let root = Root::from_env();
    let prefs = DesktopState::load(&root);
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    let workspace = match workspaces::start_workspace(args.folder.as_deref(), &prefs, &home) {
        Ok(workspace) => workspace,
        Err(error) => {
            return fail(&error, Some("give a folder that exists: `cowork-desktop <folder>`"))
        }
    };
    let launch = match tauri::async_runtime::block_on(daemon_link::connect(&root, &workspace)) {
        Ok(launch) => launch,
        Err(error) => return fail(&error, error.hint()),
    };
    start_trace::mark("daemon linked");
    match launch {
        Launch::HandedOver => {
            eprintln!("Cowork Studio is already running: its window shows {}", workspace.display());
            ExitCode::SUCCESS
        }
        Launch::Linked(linked) => {
            match run(root, prefs, &workspace, linked.link, linked.requests) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => fail(&error, None),
            }
        }
    }
}

/// Runs the app until Quit: the shared state, then each feature's `init`, in the order their
/// hooks must run (a recording stops before site apps close at a switch, site apps close before
/// the browser at Quit) and each needs the ones before it (the tray shows the badge's counts in
/// the main window's theme); the streams start last, once every hook is in place.
fn run(
    root: Root,
    mut prefs: DesktopState,
    workspace: &Path,
    link: Link,
    requests: Subscription<ShellRequest>,
) -> Result<(), shell::ShellError> {
    let (workspace, activated) = shell::activate(&link, workspace)?;
    start_trace::mark("workspace active");
    prefs.remember(&workspace);
    if let Err(error) = prefs.save(&root) {
        tracing::warn!("failed to write {}: {error}", DesktopState::file(&root).display());
    }
    let builder = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init());
    // Linux banners go to the session bus directly (see notifications/freedesktop.rs).
    #[cfg(not(target_os = "linux"))]
    let builder = builder.plugin(tauri_plugin_notification::init());
    let builder = builder
        .manage(Session { root, link })
        .manage(Active::new(workspace.clone()))
        .manage(Preferences::new(prefs))
        .manage(Quitting::default())
        .manage(Hooks::default());
    let app = browser::protocol(builder)
        .invoke_handler(commands::handler())
        .on_window_event(hooks::window_event)
        .setup(move |app| {
            start_trace::mark("setup");
            notifications::init(app);
            capture::init(app);
            site_apps::init(app);
            browser::init(app);
            external::init(app);
            window_places::init(app);
            shell::init(app, &workspace)?;
            start_trace::mark("window built");
            badge::init(app, &activated);
            tray::init(app)?;
            consent::init(app);
            shell::start(app.handle(), requests);
            start_trace::mark("setup done");
            Ok(())
        })
        .build(tauri::generate_context!())?;
    start_trace::mark("event loop");
    app.run(|_, event| {
        // The window only hides, so "the last window closed" never means Quit; Quit calls exit.
        if let RunEvent::ExitRequested { code: None, api, .. } = event {
            api.prevent_exit();
        }
    });
    Ok(())
}

/// Has WebKitGTK's web processes draw into shared memory rather than GPU (DMA-BUF) buffers of their
/// own, unless the person chose otherwise by setting `WEBKIT_DISABLE_DMABUF_RENDERER` themselves
/// (`=0` keeps the buffers). Each window's buffers cost about 50 MB of PSS (BENCHMARKS.md, "Site
/// apps": the workbench and three site apps 606–639 MB with them, 406 MB without, against 393 MB
/// for Chromium's three app windows). The price is a copy of each frame a page draws with the GPU
/// (video, WebGL, heavy animation) where the buffers would have been handed over whole: a person
/// with such a site app sets `=0`. It also sidesteps WebKit's blank windows on NVIDIA's driver,
/// which the same variable is known for.
/// Set before anything else runs: WebKit reads it when it starts a web process, and changing the
/// environment is only sound while this process has one thread.
fn draw_into_shared_memory() {
    const VARIABLE: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";
    if cfg!(target_os = "linux") && std::env::var_os(VARIABLE).is_none() {
        std::env::set_var(VARIABLE, "1");
    }
}

/// Whether a window can open at all (GTK would panic without a display, after the daemon started).
fn has_display() -> bool {
    !cfg!(target_os = "linux")
        || std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

/// Prints `error:`, its causes and the hint, as the `cowork` CLI does.
fn fail(error: &dyn std::error::Error, hint: Option<&str>) -> ExitCode {
    eprintln!("error: {error}");
    let mut source = error.source();
    while let Some(cause) = source {
        eprintln!("Caused by: {cause}");
        source = cause.source();
    }
    if let Some(hint) = hint {
        eprintln!("hint: {hint}");
    }
    ExitCode::FAILURE
}
