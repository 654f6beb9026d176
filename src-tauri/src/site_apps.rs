//! Site apps in the shell (docs/guides/site-apps.md): a web site installed as an app runs in
//! a window of its own, and its notifications and unread count become the app's.
//!
//! - Opening: a rail click (the workbench calls `open_site_app`), `cowork app open` (the daemon's
//!   `open` event), or a click on one of its banners. One window per app, labelled `site-<app>`,
//!   for the active workspace's site apps only: a switch of workspace closes them; hiding the main
//!   window to the tray does not.
//! - Reporting: an injected script ([`window::script`], `site_apps/inject.js`) turns the page's
//!   `Notification`, `showNotification` and `setAppBadge` into calls of one command,
//!   [`site_report`], which a runtime capability grants to that window on the scope's origin only
//!   and which checks again that the caller is a site window on a page in its scope.
//! - Notifications go to the daemon (`POST /api/desktop/notify`), through the same hub as
//!   `cowork.notify`; the banner comes back as every notification's does, and a click on it shows
//!   the site's window and fires the page's own `click` listeners. On Linux a registration's
//!   banner is shown by the engine at the shell's word ([`ask_page_to_show`]), so that its
//!   click is the service worker's `notificationclick` (`notifications::engine`).
//! - The unread count ([`unread`]) goes to `POST /api/desktop/badge` whenever it changes.
//! - Hibernation ([`hibernate`], off by default per app): a window out of sight for the app's
//!   idle time is released with its web process, and the app opens again at the same page.

pub mod hibernate;
mod scope;
mod storage;
mod unread;
mod window;

use crate::commands::CommandError;
use crate::shell::{self, Shell};
use cowork_core::manifest::Display;
use cowork_sites::hibernation::Idle;
use parking_lot::Mutex;
use scope::Scope;
use serde::Deserialize;
use serde_json::json;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use tauri::ipc::CapabilityBuilder;
use tauri::{AppHandle, Manager, Url, Webview, WebviewWindow, WindowEvent};
use unread::{Source, Unread};

/// The script injected into every frame of a site app's window (`__COWORK_SITE__` filled in).
const INJECTED: &str = include_str!("site_apps/inject.js");

/// Every site app's window label starts with this; the rest is the app's name.
pub const PREFIX: &str = "site-";

/// How many of a page's notifications a banner click can still find.
const RECENT: usize = 50;

/// A site app, as the workspace's registry describes it.
#[derive(Debug, Clone)]
pub struct Site {
    pub workspace: PathBuf,
    pub app: String,
    pub title: String,
    pub url: Url,
    pub scope: Scope,
    pub display: Display,
    /// The app's icon file, when it is one.
    pub icon: Option<PathBuf>,
}

/// Why a site app could not open.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    #[error("no app \"{app}\" in {workspace}")]
    NotFound { app: String, workspace: String },
    #[error("\"{0}\" is not a site app (its cowork.json has no \"web.url\")")]
    NotASite(String),
    #[error("\"{app}\" has no address Cowork can open: {detail}")]
    BadAddress { app: String, detail: String },
    #[error("failed to open the window of \"{app}\": {source}")]
    Window { app: String, source: tauri::Error },
    #[error(
        "failed to make the storage of \"{app}\" (its cookies and sign-ins) in {}: {source}\nhint: check that this folder can be written",
        folder.display()
    )]
    Storage { app: String, folder: PathBuf, source: std::io::Error },
}

/// The window label of `app`.
pub fn label(app: &str) -> String {
    format!("{PREFIX}{app}")
}

/// Reads the site app `app` of `workspace` from its cowork.json (through the registry, which has
/// validated `web.url` and defaulted `web.scope`).
pub fn find(workspace: &Path, app: &str) -> Result<Site, SiteError> {
    let registry = cowork_core::registry::load(workspace);
    let found = registry.app_by_name(app).ok_or_else(|| SiteError::NotFound {
        app: app.to_string(),
        workspace: workspace.display().to_string(),
    })?;
    let manifest = &found.manifest;
    let web = manifest
        .web
        .as_ref()
        .filter(|web| web.url.is_some())
        .ok_or_else(|| SiteError::NotASite(app.to_string()))?;
    let bad = |detail: String| SiteError::BadAddress { app: app.to_string(), detail };
    let url_text = web.url.as_deref().unwrap_or_default();
    let url = Url::parse(url_text).map_err(|error| bad(format!("{url_text}: {error}")))?;
    let scope_text = web.scope.as_deref().unwrap_or(url_text);
    let scope = Scope::parse(scope_text)
        .ok_or_else(|| bad(format!("the scope {scope_text} is not an http(s) address")))?;
    if !scope.contains(&url) {
        return Err(bad(format!("{url} is outside its scope {scope_text}")));
    }
    Ok(Site {
        workspace: workspace.to_path_buf(),
        app: manifest.name.clone(),
        title: if manifest.title.is_empty() {
            manifest.name.clone()
        } else {
            manifest.title.clone()
        },
        url,
        scope,
        display: manifest.display,
        icon: manifest.icon_file().map(|file| found.path.join(file)),
    })
}

/// The data directory of `site` ([`storage`]): shared with the workspace's site apps on other
/// sites, its own beside one on the same site.
fn data_directory(root: &cowork_core::paths::Root, site: &Site) -> std::io::Result<PathBuf> {
    let registry = cowork_core::registry::load(&site.workspace);
    let others: Vec<Url> = registry
        .apps
        .iter()
        .filter(|app| app.manifest.name != site.app)
        .filter_map(|app| app.manifest.web.as_ref()?.url.as_deref())
        .filter_map(|url| Url::parse(url).ok())
        .collect();
    storage::data_directory(root, &site.workspace, &site.app, &site.url, &others)
}

/// A site app whose window is open, or that hibernates (its window released).
struct Running {
    site: Site,
    unread: Unread,
    /// What the daemon was last told: `(source, count)`.
    posted: Option<(Source, u64)>,
    /// The page's latest notifications, newest last.
    recent: VecDeque<PageNotification>,
    /// Where the window may go (`None` asleep, and in unit tests, which have no window).
    navigation: Option<std::sync::Arc<window::Navigation>>,
    /// How long its window has been out of sight.
    idle: Idle,
    /// Asleep: its window released; the page it wakes at.
    asleep: Option<Url>,
}

impl Running {
    fn new(site: Site, navigation: Option<std::sync::Arc<window::Navigation>>) -> Running {
        Running {
            site,
            unread: Unread::default(),
            posted: None,
            recent: VecDeque::new(),
            navigation,
            idle: Idle::default(),
            asleep: None,
        }
    }
}

/// The open site windows, by label (managed state).
#[derive(Default)]
pub struct SiteApps {
    running: Mutex<HashMap<String, Running>>,
    /// `(label, origin)` pairs already granted `site_report` (a capability cannot be taken back;
    /// the command checks the scope itself anyway).
    granted: Mutex<HashSet<(String, String)>>,
    /// One open at a time: a rail click and the `open` event of the same request both ask, and
    /// the second must find the first's window rather than build another with the same label.
    opening: tokio::sync::Mutex<()>,
    /// Whether the hibernation watcher runs, and its wake-up call.
    watching: AtomicBool,
    nudge: tokio::sync::Notify,
}

impl SiteApps {
    fn running(&self) -> parking_lot::MutexGuard<'_, HashMap<String, Running>> {
        self.running.lock()
    }

    /// Whether `app` is a site app with an open window, or asleep.
    pub fn is_running(&self, app: &str) -> bool {
        self.running().contains_key(&label(app))
    }

    /// `app`'s latest notification titled `title`, by the page's id for it (a banner click fires
    /// its `click`); unknown ones are `None`.
    pub fn page_notification(&self, app: &str, title: &str) -> Option<PageNotification> {
        let running = self.running();
        let recent = &running.get(&label(app))?.recent;
        recent.iter().rev().find(|each| each.title == title).cloned()
    }
}

/// The site apps that hibernate now, `(name, title)`, by name (only the active workspace's run).
pub fn asleep(app: &AppHandle) -> Vec<(String, String)> {
    let sites = app.state::<SiteApps>();
    let mut asleep: Vec<_> = sites
        .running()
        .values()
        .filter(|running| running.asleep.is_some())
        .map(|running| (running.site.app.clone(), running.site.title.clone()))
        .collect();
    asleep.sort();
    asleep
}

/// Opens (or brings up) the window of the active workspace's site app `app`; an asleep app wakes
/// at the page it was on.
pub async fn open(app: &AppHandle, name: &str) -> Result<(), SiteError> {
    let sites = app.state::<SiteApps>();
    let _one_at_a_time = sites.opening.lock().await;
    let shell = app.state::<Shell>();
    let workspace = shell.active();
    let site = find(&workspace, name)?;
    let label = label(&site.app);
    if let Some(window) = app.get_webview_window(&label) {
        bring_up(&window);
        return Ok(());
    }
    grant(app, &label, &site.scope);
    let directory = data_directory(&shell.root, &site).map_err(|source| SiteError::Storage {
        app: site.app.clone(),
        folder: shell.root.dir().join("sites"),
        source,
    })?;
    let woken = hibernate::wake_at(&sites, &site);
    let start = woken.clone().unwrap_or_else(|| site.url.clone());
    let (window, navigation) = window::build(app, &site, &start, &label, directory)
        .map_err(|source| SiteError::Window { app: site.app.clone(), source })?;
    tracing::info!(app = %site.app, url = %start, display = ?site.display, woken = woken.is_some(), "opened a site app's window");
    {
        let mut running = sites.running();
        // Woken: its counts and recent notifications carry on.
        let entry = running.entry(label).or_insert_with(|| Running::new(site.clone(), None));
        entry.site = site;
        entry.navigation = Some(navigation);
        entry.idle = Idle::default();
        entry.asleep = None;
    }
    bring_up(&window);
    if woken.is_some() {
        hibernate::announce(app);
    }
    hibernate::watch(app);
    Ok(())
}

/// Gives `label` the right to call `site_report` from pages on the scope's origin, and nothing else.
fn grant(app: &AppHandle, label: &str, scope: &Scope) {
    let key = (label.to_string(), scope.origin().to_string());
    let sites = app.state::<SiteApps>();
    if sites.granted.lock().contains(&key) {
        return;
    }
    // Tauri panics on a pattern it cannot parse, deep in the capability's resolution.
    let pattern = scope.remote_pattern();
    if let Err(error) = pattern.parse::<tauri::utils::acl::RemoteUrlPattern>() {
        tracing::warn!("failed to let {label} report its notifications: {pattern}: {error}");
        return;
    }
    let capability = CapabilityBuilder::new(format!("{label}-{}", sites.granted.lock().len()))
        .window(label)
        .remote(pattern)
        .local(false)
        .permission("allow-site-report");
    match app.add_capability(capability) {
        Ok(()) => {
            sites.granted.lock().insert(key);
        }
        Err(error) => tracing::warn!("failed to let {label} report its notifications: {error}"),
    }
}

fn bring_up(window: &WebviewWindow) {
    let _ = window.show();
    let _ = window.unminimize();
    let _ = window.set_focus();
}

/// Opens `name` from a place that cannot wait (an event, a banner click); a failure is logged.
pub fn open_later(app: &AppHandle, name: &str) {
    let (app, name) = (app.clone(), name.to_string());
    tauri::async_runtime::spawn(async move {
        if let Err(error) = open(&app, &name).await {
            tracing::warn!("{error}");
        }
    });
}

/// An `open` event of the active workspace (`cowork app open`, `POST /api/open`): a site app's
/// window opens. (The workbench asks too, through `open_site_app`; opening twice only focuses.)
pub fn on_open_event(app: &AppHandle, event: &serde_json::Value) {
    let Some(name) = event["app"].as_str() else { return };
    if event["file"].is_string() {
        return;
    }
    let workspace = app.state::<Shell>().active();
    if event["workspace"].as_str().map(Path::new) != Some(workspace.as_path()) {
        return;
    }
    if find(&workspace, name).is_ok() {
        open_later(app, name);
    }
}

/// The app a popup window belongs to (its label is `popup-<app>-<n>`).
fn popup_of(label: &str) -> Option<&str> {
    let (app, number) = label.strip_prefix("popup-")?.rsplit_once('-')?;
    number.bytes().all(|b| b.is_ascii_digit()).then_some(app)
}

/// Closes every site app's window, and forgets the asleep ones (a switch of workspace, Quit).
pub fn close_all(app: &AppHandle) {
    for (label, window) in app.webview_windows() {
        if label.starts_with(PREFIX) || label.starts_with("popup-") {
            let _ = window.destroy();
        }
    }
    let sites = app.state::<SiteApps>();
    let asleep: Vec<Running> = {
        let mut running = sites.running();
        let labels: Vec<String> = running
            .iter()
            .filter(|(_, each)| each.asleep.is_some())
            .map(|(label, _)| label.clone())
            .collect();
        labels.into_iter().filter_map(|label| running.remove(&label)).collect()
    };
    let forgot = !asleep.is_empty();
    for running in asleep {
        stopped(app, running);
    }
    if forgot && !app.state::<Shell>().quitting() {
        hibernate::announce(app);
    }
}

/// A site window's events: the focus resets "notifications since focused"; the close button of an
/// app that hibernates hides its window; a closed window stops the site (unless it hibernated),
/// and its count goes.
pub fn on_window_event(window: &tauri::Window, event: &WindowEvent) {
    let label = window.label();
    if !label.starts_with(PREFIX) {
        return;
    }
    let app = window.app_handle();
    let sites = app.state::<SiteApps>();
    match event {
        WindowEvent::Focused(true) => {
            if let Some(running) = sites.running().get_mut(label) {
                running.unread.on_focus();
            }
            post_unread(app, label);
        }
        WindowEvent::CloseRequested { api, .. } => {
            let Some((workspace, name)) = sites
                .running()
                .get(label)
                .map(|running| (running.site.workspace.clone(), running.site.app.clone()))
            else {
                return;
            };
            let shell = app.state::<Shell>();
            if !shell.quitting() && hibernate::after(&shell.root, &workspace, &name).is_some() {
                api.prevent_close();
                let _ = window.hide();
                tracing::info!(app = %name, "a site app that hibernates was hidden, not closed");
                hibernate::hidden(app, label);
            }
        }
        WindowEvent::Destroyed => {
            let running = {
                let mut running = sites.running();
                if running.get(label).is_some_and(|each| each.asleep.is_some()) {
                    return;
                }
                let Some(closed) = running.remove(label) else { return };
                closed
            };
            tracing::info!(app = %running.site.app, "a site app's window closed");
            stopped(app, running);
        }
        _ => {}
    }
}

/// A site app stopped (its window closed, or it was asleep when its workspace was left): its
/// count goes. At Quit the counts go with the daemon's memory anyway.
fn stopped(app: &AppHandle, running: Running) {
    if running.posted.is_none_or(|(_, count)| count == 0) || app.state::<Shell>().quitting() {
        return;
    }
    let body = json!({ "workspace": running.site.workspace, "app": running.site.app, "count": 0 });
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Err(error) = app.state::<Shell>().link.daemon.post("/api/desktop/badge", &body).await
        {
            tracing::warn!("failed to clear a closed site app's count: {error}");
        }
    });
}

/// The page's title changed (its `(N)` may be the unread count).
fn title_changed(app: &AppHandle, label: &str, title: &str) {
    let pending = match app.state::<SiteApps>().running().get_mut(label) {
        Some(running) => running.unread.on_title(title, Instant::now()),
        None => return,
    };
    post_unread(app, label);
    if pending {
        let (app, label) = (app.clone(), label.to_string());
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(unread::HOLD + std::time::Duration::from_millis(50)).await;
            if let Some(running) = app.state::<SiteApps>().running().get_mut(&label) {
                running.unread.settle(Instant::now());
            }
            post_unread(&app, &label);
        });
    }
}

/// Tells the daemon the site's count when it (or its source) changed since last told.
fn post_unread(app: &AppHandle, label: &str) {
    let sites = app.state::<SiteApps>();
    let body = {
        let mut running = sites.running();
        let Some(running) = running.get_mut(label) else { return };
        let now = (running.unread.source(), running.unread.count());
        if running.posted == Some(now) {
            return;
        }
        // The first report of a site that never counted anything says nothing.
        if running.posted.is_none() && now.1 == 0 {
            return;
        }
        running.posted = Some(now);
        // `unreadSource` is for Manage Workspace; the daemon ignores it until it keeps it.
        json!({ "workspace": running.site.workspace, "app": running.site.app, "count": now.1, "unreadSource": now.0 })
    };
    tracing::info!(count = %body["count"], source = %body["unreadSource"], app = %body["app"], "a site app's unread count");
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Err(error) = app.state::<Shell>().link.daemon.post("/api/desktop/badge", &body).await
        {
            tracing::warn!("failed to report a site app's unread count: {error}");
        }
    });
}

/// What the injected script reports.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum Report {
    /// `new Notification(title, {body, tag, requireInteraction})` (the page keeps it by `id` for a
    /// click) or a registration's `showNotification` (`worker`: the page keeps it by `id` for the
    /// engine to show).
    Notify {
        id: u64,
        #[serde(default)]
        worker: bool,
        title: String,
        #[serde(default)]
        body: String,
        #[serde(default)]
        tag: String,
        #[serde(default)]
        urgent: bool,
    },
    /// `setAppBadge(n)` (`count`), `setAppBadge()` (`null`), `clearAppBadge()` (0).
    Badge { count: Option<u64> },
    /// The person clicked a link to `url`, outside the scope; the script cancelled it: the shell
    /// asks about the browser (what the page leaving its scope would have led to anyway).
    Outside { url: String },
}

/// A notification a site app's page raised lately, as the page knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageNotification {
    /// The page's id for it.
    pub id: u64,
    /// Raised through a service worker registration: the engine shows its banner when it gets one.
    pub worker: bool,
    /// As the page gave them (the hub may have cut them).
    pub title: String,
    pub body: String,
}

/// Who may report: a site app's window (`site-<app>`, open) on a page inside that app's scope.
/// Returns the app's label.
fn check_reporter(sites: &SiteApps, label: &str, url: &Url) -> Result<String, CommandError> {
    if !label.starts_with(PREFIX) {
        return Err(CommandError::new(
            "Forbidden",
            format!("only a site app's window may report, not the window \"{label}\""),
        ));
    }
    let running = sites.running();
    let site = &running
        .get(label)
        .ok_or_else(|| {
            CommandError::new(
                "Forbidden",
                format!("the window \"{label}\" is not an open site app"),
            )
        })?
        .site;
    if !site.scope.contains(url) {
        return Err(CommandError::new(
            "Forbidden",
            format!("{url} is outside {}'s scope", site.app),
        ));
    }
    Ok(label.to_string())
}

/// The one command a site app's page may call (through the injected script): its notifications
/// and its badge, as the app's.
#[tauri::command]
pub async fn site_report(
    app: AppHandle,
    webview: Webview,
    report: Report,
) -> Result<(), CommandError> {
    let url = webview.url().map_err(|error| {
        CommandError::new(
            "Forbidden",
            format!("failed to read the calling page's address: {error}"),
        )
    })?;
    let label = check_reporter(&app.state::<SiteApps>(), webview.label(), &url)?;
    match report {
        Report::Badge { count } => {
            if let Some(running) = app.state::<SiteApps>().running().get_mut(&label) {
                running.unread.on_badge(count);
            }
            post_unread(&app, &label);
            Ok(())
        }
        Report::Notify { id, worker, title, body, tag, urgent } => {
            let page = PageNotification { id, worker, title, body };
            notify(&app, &label, page, tag, urgent).await
        }
        Report::Outside { url } => {
            let sites = app.state::<SiteApps>();
            let running = sites.running();
            let Some(running) = running.get(&label) else { return Ok(()) };
            let url = outside_link(&running.site.scope, &url)?;
            if let Some(navigation) = &running.navigation {
                navigation.ask(&url);
            }
            Ok(())
        }
    }
}

/// The link a page reports as clicked outside its scope, if it is one the shell may offer to open:
/// http, https or mailto, and really outside the scope.
fn outside_link(scope: &Scope, url: &str) -> Result<Url, CommandError> {
    let url = Url::parse(url)
        .map_err(|_| CommandError::new("BadRequest", format!("not a link: {url}")))?;
    if !matches!(url.scheme(), "http" | "https" | "mailto") {
        return Err(CommandError::new(
            "BadRequest",
            format!("Cowork opens only http, https and mailto links, not {}:", url.scheme()),
        ));
    }
    if scope.contains(&url) {
        return Err(CommandError::new("BadRequest", format!("{url} is inside the app's scope")));
    }
    Ok(url)
}

async fn notify(
    app: &AppHandle,
    label: &str,
    page: PageNotification,
    tag: String,
    urgent: bool,
) -> Result<(), CommandError> {
    let (title, body) = (page.title.clone(), page.body.clone());
    let sites = app.state::<SiteApps>();
    let (workspace, name) = {
        let mut running = sites.running();
        let Some(running) = running.get_mut(label) else { return Ok(()) };
        // Before the daemon hears of it: its banner may come back before the answer does.
        running.recent.push_back(page);
        if running.recent.len() > RECENT {
            running.recent.pop_front();
        }
        (running.site.workspace.clone(), running.site.app.clone())
    };
    let mut notification = json!({ "title": title, "urgent": urgent });
    if !body.is_empty() {
        notification["body"] = json!(body);
    }
    if !tag.is_empty() {
        notification["tag"] = json!(tag);
    }
    let answer = app
        .state::<Shell>()
        .link
        .daemon
        .post(
            "/api/desktop/notify",
            &json!({ "workspace": workspace, "app": name, "notification": notification }),
        )
        .await
        .map_err(|error| CommandError::new("Failed", error))?;
    let delivery = answer["delivery"].as_str().unwrap_or_default();
    tracing::info!(app = %name, %title, %delivery, "a site app's notification");
    if matches!(delivery, "delivered" | "replaced") {
        let focused = app
            .get_webview_window(label)
            .is_some_and(|window| window.is_focused().unwrap_or(false));
        if let Some(running) = app.state::<SiteApps>().running().get_mut(label) {
            running.unread.on_notification(focused);
        }
        post_unread(app, label);
    }
    Ok(())
}

/// Asks `app`'s page to show its service worker notification `id` through the engine; false when
/// the window is not open (asleep, or closed since).
pub fn ask_page_to_show(app: &AppHandle, name: &str, id: u64) -> bool {
    let Some(window) = app.get_webview_window(&label(name)) else { return false };
    window
        .eval(format!("window.__coworkSiteShow && window.__coworkSiteShow({id})"))
        .inspect_err(|error| {
            tracing::warn!("failed to ask {name}'s page to show a notification: {error}")
        })
        .is_ok()
}

/// Whether `app`'s window is visible and focused (its banners then stay in the bell).
pub fn focused(app: &AppHandle, name: &str) -> bool {
    app.get_webview_window(&label(name)).is_some_and(|window| {
        window.is_visible().unwrap_or(false) && window.is_focused().unwrap_or(false)
    })
}

/// A click on a site app's banner: its window comes up (opened again if it was closed) and the
/// page's notification `page` gets its `click`.
pub async fn clicked(app: &AppHandle, workspace: &Path, name: &str, page: Option<u64>) {
    if let Err(error) = shell::switch_workspace(app, workspace).await {
        tracing::warn!("{error}");
        return;
    }
    let was_open = app.get_webview_window(&label(name)).is_some();
    if let Err(error) = open(app, name).await {
        tracing::warn!("{error}");
        return;
    }
    if let (true, Some(id), Some(window)) = (was_open, page, app.get_webview_window(&label(name))) {
        if let Err(error) =
            window.eval(format!("window.__coworkSiteClick && window.__coworkSiteClick({id})"))
        {
            tracing::warn!("failed to pass the click to {name}'s page: {error}");
        }
    }
    let body = json!({ "workspace": workspace, "app": name });
    if let Err(error) =
        app.state::<Shell>().link.daemon.post("/api/notifications/shown", &body).await
    {
        tracing::warn!("failed to mark {name}'s notifications as seen: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url;
    use serde_json::json;

    fn sites_with(app: &str, scope: &str) -> SiteApps {
        let sites = SiteApps::default();
        let site = Site {
            workspace: "/w".into(),
            app: app.into(),
            title: "Inbox".into(),
            url: url(scope),
            scope: Scope::parse(scope).unwrap(),
            display: Display::Tab,
            icon: None,
        };
        sites.running().insert(label(app), Running::new(site, None));
        sites
    }

    #[test]
    fn only_an_open_site_window_on_a_page_in_its_scope_may_report() {
        let sites = sites_with("inbox", "http://127.0.0.1:8123/inbox/");
        assert_eq!(
            check_reporter(&sites, "site-inbox", &url("http://127.0.0.1:8123/inbox/x.html")),
            Ok("site-inbox".into())
        );
        for (label, page) in [
            ("main", "http://127.0.0.1:8123/inbox/"),
            ("site-other", "http://127.0.0.1:8123/inbox/"),
            ("popup-inbox-1", "http://127.0.0.1:8123/inbox/"),
            ("site-inbox", "http://127.0.0.1:8123/elsewhere/"),
            ("site-inbox", "http://127.0.0.1:9999/inbox/"),
            ("site-inbox", "https://evil.example/inbox/"),
        ] {
            assert_eq!(
                check_reporter(&sites, label, &url(page)).unwrap_err().name,
                "Forbidden",
                "{label} on {page}"
            );
        }
    }

    #[test]
    fn reports_parse_strictly() {
        let notify: Report = serde_json::from_value(json!({"kind": "notify", "id": 3, "title": "Ana", "body": "Lunch?", "tag": "", "urgent": false})).unwrap();
        assert_eq!(
            notify,
            Report::Notify {
                id: 3,
                worker: false,
                title: "Ana".into(),
                body: "Lunch?".into(),
                tag: String::new(),
                urgent: false
            }
        );
        assert_eq!(
            serde_json::from_value::<Report>(json!({"kind": "badge", "count": null})).unwrap(),
            Report::Badge { count: None }
        );
        assert!(serde_json::from_value::<Report>(json!({"kind": "badge", "count": -1})).is_err());
        assert!(serde_json::from_value::<Report>(json!({"kind": "open", "url": "x"})).is_err());
        assert!(
            serde_json::from_value::<Report>(json!({"kind": "badge", "count": 1, "app": "other"}))
                .is_err(),
            "a page cannot name another app"
        );
    }

    #[test]
    fn only_a_real_link_outside_the_scope_is_asked_about() {
        let scope = Scope::parse("https://chat.example/app/").unwrap();
        assert_eq!(
            outside_link(&scope, "https://docs.example/x").unwrap().as_str(),
            "https://docs.example/x"
        );
        assert!(outside_link(&scope, "mailto:a@example.com").is_ok());
        assert_eq!(
            outside_link(&scope, "https://chat.example/app/settings").unwrap_err().name,
            "BadRequest"
        );
        assert_eq!(outside_link(&scope, "file:///etc/passwd").unwrap_err().name, "BadRequest");
        assert_eq!(outside_link(&scope, "javascript:alert(1)").unwrap_err().name, "BadRequest");
        assert_eq!(outside_link(&scope, "not a link").unwrap_err().name, "BadRequest");
        let parsed: Report =
            serde_json::from_value(json!({"kind": "outside", "url": "https://docs.example/"}))
                .unwrap();
        assert_eq!(parsed, Report::Outside { url: "https://docs.example/".into() });
    }

    #[test]
    fn a_banner_click_finds_the_latest_page_notification_with_its_title() {
        let sites = sites_with("inbox", "http://127.0.0.1:8123/");
        let recent = |title: &str, id, worker| PageNotification {
            id,
            worker,
            title: title.into(),
            body: String::new(),
        };
        sites.running().get_mut("site-inbox").unwrap().recent.extend([
            recent("Ana", 1, false),
            recent("Bo", 2, false),
            recent("Ana", 3, false),
            recent("Sw", 4, true),
        ]);
        assert_eq!(sites.page_notification("inbox", "Ana"), Some(recent("Ana", 3, false)));
        assert_eq!(
            sites.page_notification("inbox", "Sw"),
            Some(recent("Sw", 4, true)),
            "a service worker's, for the engine to show"
        );
        assert_eq!(sites.page_notification("inbox", "Zed"), None);
        assert_eq!(sites.page_notification("other", "Ana"), None);
    }

    #[test]
    fn the_injected_script_names_the_scope_and_nothing_else() {
        let script = window::script(&Scope::parse("https://web.example.com/app/").unwrap());
        assert!(
            script.contains(r#"const SITE = {"origin":"https://web.example.com","path":"/app/"}"#),
            "{script}"
        );
        assert!(!script.contains("__COWORK_SITE__"));
        // The one command it calls.
        let invokes: Vec<_> = script.match_indices(".invoke(").collect();
        assert_eq!(invokes.len(), 1);
        assert!(script.contains(r#"invoke("site_report""#));
    }

    #[test]
    fn an_asleep_app_wakes_at_its_page_while_that_is_in_its_scope() {
        let sites = sites_with("inbox", "http://127.0.0.1:8123/inbox/");
        let site = sites.running()["site-inbox"].site.clone();
        assert_eq!(hibernate::wake_at(&sites, &site), None, "awake: opens as usual");
        let page = url("http://127.0.0.1:8123/inbox/thread/7?x=1#reply");
        sites.running().get_mut("site-inbox").unwrap().asleep = Some(page.clone());
        assert_eq!(hibernate::wake_at(&sites, &site), Some(page));
        // Its scope changed while it slept: its start page instead.
        let mut moved = site.clone();
        moved.scope = Scope::parse("http://127.0.0.1:8123/mail/").unwrap();
        moved.url = url("http://127.0.0.1:8123/mail/");
        assert_eq!(hibernate::wake_at(&sites, &moved), Some(moved.url.clone()));
        assert!(sites.is_running("inbox"), "an asleep app keeps its place (and its count)");
    }

    #[test]
    fn a_popup_belongs_to_the_app_its_label_names() {
        assert_eq!(popup_of("popup-inbox-3"), Some("inbox"));
        assert_eq!(popup_of("popup-team-chat-12"), Some("team-chat"));
        assert_eq!(popup_of("popup-inbox"), None);
        assert_eq!(popup_of("site-inbox"), None);
        assert_eq!(popup_of("popup-inbox-x"), None);
    }
}
