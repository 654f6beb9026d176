//! Hibernation (off by default, per app: `cowork_sites::settings`): a site app whose window has
//! been out of sight for its idle time gives its window — and with it its web process, the bulk
//! of its memory — back, and opens again at the same page when it is shown (a rail click,
//! `cowork app open`, a click on one of its banners).
//!
//! - Out of sight: hidden or minimized. The close button of an app that hibernates hides its
//!   window rather than stop the site (it keeps notifying until it hibernates), as the main window
//!   hides to the tray.
//! - Asleep, the app keeps its place ([`super::Running`] with `asleep` set): its unread count stays
//!   at its last value, its data directory (cookies, storage: the sign-in) is the one it wakes
//!   with. It runs no page, so it sends no notifications.
//! - The rail dims an asleep app's tile, and the tray lists it (choosing it wakes it).
//! - One watcher task looks at the running apps' windows every [`TICK`] (sooner when an idle time
//!   ends before), and at once when a window hides or a setting changes.

use super::{label, SiteApps};
use crate::ipc::CommandError;
use crate::main_window::MAIN;
use crate::session::{self, Session};
use cowork_sites::settings::{self, SiteSettings};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tauri::{AppHandle, Manager, Url, Webview, WebviewWindow};

/// How often the windows are looked at when nothing is due sooner (a minimized window is noticed
/// by this look; a hidden one at once).
const TICK: Duration = Duration::from_secs(15);

/// How long `app` (of `workspace`) stays out of sight before it hibernates; `None`: it does not.
/// A settings file that cannot be read is logged and counts as off.
pub fn after(root: &cowork_core::paths::Root, workspace: &Path, app: &str) -> Option<Duration> {
    settings::of(root, workspace, app)
        .inspect_err(|error| tracing::warn!("{error}"))
        .ok()?
        .hibernation()
}

/// Starts the watcher unless it runs (it runs for the life of the shell once a site app opened).
pub fn watch(app: &AppHandle) {
    let sites = app.state::<SiteApps>();
    if sites.watching.swap(true, Ordering::SeqCst) {
        sites.nudge.notify_one();
        return;
    }
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        loop {
            let wait = look(&app).await;
            let sites = app.state::<SiteApps>();
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = sites.nudge.notified() => {}
            }
        }
    });
}

/// A site window is in sight: shown and not minimized.
fn in_sight(window: &WebviewWindow) -> bool {
    window.is_visible().unwrap_or(true) && !window.is_minimized().unwrap_or(false)
}

/// Looks at every running app's window: records whether it is in sight, hibernates those whose
/// time came; returns how long until the next look.
async fn look(app: &AppHandle) -> Duration {
    let root = &app.state::<Session>().root;
    let sites = app.state::<SiteApps>();
    let awake: Vec<_> = sites
        .running()
        .iter()
        .filter(|(_, running)| running.asleep.is_none())
        .map(|(label, running)| {
            (label.clone(), running.site.workspace.clone(), running.site.app.clone())
        })
        .collect();
    let mut next = TICK;
    for (label, workspace, name) in awake {
        let Some(window) = app.get_webview_window(&label) else { continue };
        let shown = in_sight(&window);
        let after = after(root, &workspace, &name);
        let now = Instant::now();
        let due = {
            let mut running = sites.running();
            let Some(running) = running.get_mut(&label) else { continue };
            running.idle.observe(shown, now);
            if let Some(remaining) = running.idle.remaining(after, now) {
                next = next.min(remaining);
            }
            running.idle.due(after, now)
        };
        if due {
            hibernate(app, &label).await;
        }
    }
    // Never a busy loop: an idle time that just ended is acted on in the look after this one.
    next.max(Duration::from_millis(250))
}

/// The window of `label` was hidden (its close button): the wait starts now.
pub fn hidden(app: &AppHandle, label: &str) {
    let sites = app.state::<SiteApps>();
    if let Some(running) = sites.running().get_mut(label) {
        running.idle.observe(false, Instant::now());
    }
    sites.nudge.notify_one();
}

/// Releases the window of `label` (and its popups): the app is asleep at the page it was on.
async fn hibernate(app: &AppHandle, label: &str) {
    let sites = app.state::<SiteApps>();
    // Not while it is being opened (or woken).
    let _one_at_a_time = sites.opening.lock().await;
    let Some(window) = app.get_webview_window(label) else { return };
    if in_sight(&window) {
        return;
    }
    let name = {
        let mut running = sites.running();
        let Some(running) = running.get_mut(label) else { return };
        let page = window.url().ok().filter(|url| running.site.scope.contains(url));
        let page = page
            .or_else(|| running.navigation.as_ref().map(|navigation| navigation.last_in_scope()))
            .unwrap_or_else(|| running.site.url.clone());
        tracing::info!(app = %running.site.app, %page, "a site app hibernated");
        running.asleep = Some(page);
        running.navigation = None;
        running.site.app.clone()
    };
    for (popup_label, popup) in app.webview_windows() {
        if super::popup_of(&popup_label) == Some(name.as_str()) {
            let _ = popup.destroy();
        }
    }
    if let Err(error) = window.destroy() {
        tracing::warn!("failed to release the window of {name}: {error}");
    }
    // Still holding the open lock until the window is gone: a wake that came first would find the
    // dying window (or have its entry taken by the late `Destroyed`).
    for _ in 0..40 {
        if app.get_webview_window(label).is_none() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    announce(app);
}

/// Where an asleep app wakes: the page it was on, while it is still in the app's scope (its
/// cowork.json may have changed since); `None` when it is not asleep.
pub fn wake_at(sites: &SiteApps, site: &super::Site) -> Option<Url> {
    let running = sites.running();
    let page = running.get(&label(&site.app))?.asleep.clone()?;
    Some(if site.scope.contains(&page) { page } else { site.url.clone() })
}

/// Shows who sleeps: the tray lists the asleep apps, and the workbench reads the states again
/// (`site_hibernation`; its rail dims an asleep app's tile) — asked by an event on its window, not
/// a push over IPC: the workbench page is granted no event permission.
pub fn announce(app: &AppHandle) {
    crate::hooks::status_changed(app);
    if let Some(main) = app.get_webview_window(MAIN) {
        if let Err(error) = main.eval("window.dispatchEvent(new Event('cowork:site-apps'))") {
            tracing::debug!("failed to tell the workbench about the site apps: {error}");
        }
    }
}

/// One site app's hibernation, as Manage Workspace and the rail show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hibernation {
    /// Seconds out of sight before it hibernates; `None`: it does not.
    pub hibernate_after: Option<u64>,
    /// It is asleep now.
    pub asleep: bool,
}

/// The active workspace's site apps that hibernate or sleep, by app name (the others: neither).
#[tauri::command]
pub fn site_hibernation(
    app: AppHandle,
    webview: Webview,
) -> Result<BTreeMap<String, Hibernation>, CommandError> {
    crate::ipc::caller(&webview)?;
    let root = &app.state::<Session>().root;
    let workspace = session::active(&app);
    let saved =
        settings::load(root, &workspace).map_err(|error| CommandError::new("Failed", error))?;
    let mut states: BTreeMap<String, Hibernation> = saved
        .into_iter()
        .map(|(name, settings)| {
            (name, Hibernation { hibernate_after: settings.hibernate_after, asleep: false })
        })
        .collect();
    for running in app.state::<SiteApps>().running().values() {
        if running.asleep.is_some() && running.site.workspace == workspace {
            states
                .entry(running.site.app.clone())
                .or_insert(Hibernation { hibernate_after: None, asleep: false })
                .asleep = true;
        }
    }
    Ok(states)
}

/// Switches the hibernation of the active workspace's site app `app` on (after `after` seconds out
/// of sight) or off (`null`). Rejects `NotFound` for no such app, `BadRequest` for an app that is
/// not a site app or an idle time of 0 or over a day, `Failed` when the setting cannot be saved.
#[tauri::command]
pub fn set_site_hibernation(
    app: AppHandle,
    webview: Webview,
    name: String,
    after: Option<u64>,
) -> Result<SiteSettings, CommandError> {
    crate::ipc::caller(&webview)?;
    let root = &app.state::<Session>().root;
    let workspace = session::active(&app);
    let site = super::find(&workspace, &name).map_err(|error| {
        let kind = if matches!(error, super::SiteError::NotFound { .. }) {
            "NotFound"
        } else {
            "BadRequest"
        };
        CommandError::new(kind, error)
    })?;
    let written =
        settings::set_hibernation(root, &workspace, &site.app, after.map(Duration::from_secs))
            .map_err(|error| match error {
                settings::SettingsError::Interval(_) => CommandError::new("BadRequest", error),
                _ => CommandError::new("Failed", error),
            })?;
    tracing::info!(app = %site.app, after = ?written.hibernate_after, "a site app's hibernation");
    app.state::<SiteApps>().nudge.notify_one();
    announce(&app);
    Ok(written)
}
