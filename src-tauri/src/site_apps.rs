//! Site apps in the shell (docs/guides/site-apps.md): a web site installed as an app runs in
//! a window of its own, and its notifications and unread count become the app's.
//!
//! - Opening: a rail click (the workbench calls `open_site_app`), `cowork app open` (the daemon's
//!   `open` event), or a click on one of its banners. One window per app, labelled `site-<app>`,
//!   for the active workspace's site apps only: a switch of workspace closes them; hiding the main
//!   window to the tray does not.
//! - Reporting ([`bridge`], the page's side): an injected script ([`window::script`],
//!   `site_apps/inject.js`) turns the page's `Notification`, `showNotification` and `setAppBadge`
//!   into calls of one command, [`bridge::site_report`], which a runtime capability grants to that
//!   window on the scope's origin only and which checks again that the caller is a site window on
//!   a page in its scope.
//! - Notifications go to the daemon (`POST /api/desktop/notify`), through the same hub as
//!   `cowork.notify`; the banner comes back as every notification's does, and a click on it shows
//!   the site's window and fires the page's own `click` listeners. On Linux a registration's
//!   banner is shown by the engine at the shell's word ([`bridge::ask_page_to_show`]), so that
//!   its click is the service worker's `notificationclick` (`notifications::engine`).
//! - The unread count ([`unread`]) goes to `POST /api/desktop/badge` whenever it changes.
//! - Hibernation ([`hibernate`], off by default per app): a window out of sight for the app's
//!   idle time is released with its web process, and the app opens again at the same page.
//! - Web processes ([`process`], Linux): the apps that share a storage share one web process,
//!   except an app that hibernates.

pub mod bridge;
pub mod hibernate;
#[cfg(target_os = "linux")]
mod keys;
#[cfg(target_os = "linux")]
mod process;
mod storage;
mod unread;
mod window;

use crate::hooks::Hooks;
use crate::session::{self, Session};
use bridge::PageNotification;
use cowork_core::manifest::Display;
use cowork_sites::hibernation::Idle;
use cowork_sites::Scope;
use cowork_wire::daemon::events::Event;
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use tauri::ipc::CapabilityBuilder;
use tauri::{AppHandle, Manager, Url, WebviewWindow, WindowEvent};
use unread::{Source, Unread};

/// The script injected into every frame of a site app's window (`__COWORK_SITE__` filled in).
const INJECTED: &str = include_str!("site_apps/inject.js");

/// Every site app's window label starts with this; the rest is the app's name.
pub const PREFIX: &str = "site-";

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

/// The app whose window `label` is, if it is a site app's.
pub fn name_of_label(label: &str) -> Option<String> {
    label.strip_prefix(PREFIX).map(str::to_owned)
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

/// The site app of `workspace` whose pages include `url` (its start page, or a page in its
/// scope): installing that page again would only make a second app of the same site.
pub fn installed_at(workspace: &Path, url: &Url) -> Option<Site> {
    let registry = cowork_core::registry::load(workspace);
    find(workspace, &cowork_sites::installed_at(&registry, url)?.manifest.name).ok()
}

/// The addresses of the workspace's site apps other than `site`.
fn other_sites(site: &Site) -> Vec<Url> {
    let registry = cowork_core::registry::load(&site.workspace);
    registry
        .apps
        .iter()
        .filter(|app| app.manifest.name != site.app)
        .filter_map(|app| app.manifest.web.as_ref()?.url.as_deref())
        .filter_map(|url| Url::parse(url).ok())
        .collect()
}

/// The web process of `site`'s window, stored in `directory` ([`process`]): shared with the site
/// apps of that storage when the person set `COWORK_SITE_PROCESSES=shared`, unless the app
/// hibernates (to give its process back).
fn process_of(
    root: &cowork_core::paths::Root,
    site: &Site,
    directory: &Path,
    others: &[Url],
) -> window::Process {
    #[cfg(target_os = "linux")]
    let sharing = process::sharing();
    #[cfg(not(target_os = "linux"))]
    let sharing = false;
    let shares = sharing
        && storage::is_shared(directory)
        && hibernate::after(root, &site.workspace, &site.app).is_none();
    if !shares {
        return window::Process::Own;
    }
    let origins = others.iter().chain([&site.url]).map(|url| url.origin().ascii_serialization());
    window::Process::Shared { origins: origins.collect() }
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
}

/// Site apps' part in the shell's life: their state, their windows' events, the `open` event,
/// the tray's asleep apps, and closing them all when the workspace switches or Quit starts.
pub fn init(app: &tauri::App) {
    app.manage(SiteApps::default());
    let hooks = app.state::<Hooks>();
    hooks.on_window_event(on_window_event);
    hooks.on_event(|app, event| {
        matches!(*event, Event::Open { .. }).then(|| async move { on_open_event(&app, &event) })
    });
    hooks.on_leaving(|app, _| close_all(app));
    hooks.on_quitting(close_all);
    app.on_menu_event(|app, event| {
        if let Some(name) = event.id().as_ref().strip_prefix(crate::menu::id::ASLEEP) {
            open_later(app, name);
        }
    });
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
    let session = app.state::<Session>();
    let workspace = session::active(app);
    let site = find(&workspace, name)?;
    let label = label(&site.app);
    if let Some(window) = app.get_webview_window(&label) {
        bring_up(&window);
        return Ok(());
    }
    grant(app, &label, &site.scope);
    let others = other_sites(&site);
    let directory =
        storage::data_directory(&session.root, &site.workspace, &site.app, &site.url, &others)
            .map_err(|source| SiteError::Storage {
                app: site.app.clone(),
                folder: session.root.dir().join("sites"),
                source,
            })?;
    let process = process_of(&session.root, &site, &directory, &others);
    let woken = hibernate::wake_at(&sites, &site);
    let start = woken.clone().unwrap_or_else(|| site.url.clone());
    let (window, navigation) = window::build(app, &site, &start, &label, directory, process)
        .await
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

/// The URL pattern of every page on the scope's origin, for the capability's `remote.urls`. An
/// IPv6 host's colons are escaped: a bare `:` starts a named group in a pattern, so `[::1]` would
/// not parse (and Tauri panics on a pattern that does not).
fn remote_pattern(scope: &Scope) -> String {
    let origin = scope.origin();
    let (scheme, authority) = origin.split_once("://").unwrap_or(("", origin));
    match authority.strip_prefix('[').and_then(|rest| rest.split_once(']')) {
        Some((address, port)) => format!("{scheme}://[{}]{port}/*", address.replace(':', "\\:")),
        None => format!("{origin}/*"),
    }
}

/// Gives `label` the right to call `site_report` from pages on the scope's origin, and nothing else.
fn grant(app: &AppHandle, label: &str, scope: &Scope) {
    let key = (label.to_string(), scope.origin().to_string());
    let sites = app.state::<SiteApps>();
    if sites.granted.lock().contains(&key) {
        return;
    }
    // Tauri panics on a pattern it cannot parse, deep in the capability's resolution.
    let pattern = remote_pattern(scope);
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
pub fn on_open_event(app: &AppHandle, event: &Event) {
    let Event::Open { workspace: of, app: name, file: None, .. } = event else { return };
    let workspace = session::active(app);
    if Path::new(of) != workspace.as_path() {
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
        bridge::stopped(app, running);
    }
    if forgot && !session::quitting(app) {
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
            bridge::post_unread(app, label);
        }
        WindowEvent::CloseRequested { api, .. } => {
            let Some((workspace, name)) = sites
                .running()
                .get(label)
                .map(|running| (running.site.workspace.clone(), running.site.app.clone()))
            else {
                return;
            };
            let root = &app.state::<Session>().root;
            if !session::quitting(app) && hibernate::after(root, &workspace, &name).is_some() {
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
            bridge::stopped(app, running);
        }
        _ => {}
    }
}

/// A [`SiteApps`] with one running app (no window), for the tests.
#[cfg(test)]
pub(crate) fn sites_with(app: &str, scope: &str) -> SiteApps {
    let sites = SiteApps::default();
    let site = Site {
        workspace: "/w".into(),
        app: app.into(),
        title: "Inbox".into(),
        url: crate::url(scope),
        scope: Scope::parse(scope).unwrap(),
        display: Display::Tab,
        icon: None,
    };
    sites.running().insert(label(app), Running::new(site, None));
    sites
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url;

    #[test]
    fn the_capability_pattern_parses_and_matches_the_origin_for_ipv6_too() {
        for (scope, page, elsewhere) in [
            (
                "https://chat.example.com/app/",
                "https://chat.example.com/other/",
                "https://example.com/",
            ),
            ("http://127.0.0.1:8080/a/", "http://127.0.0.1:8080/b?c#d", "http://127.0.0.1:8081/a/"),
            ("http://[::1]:8080/cookie/", "http://[::1]:8080/x/", "http://[::1]:9090/cookie/"),
            ("http://[::1]/", "http://[::1]/y", "http://127.0.0.1/"),
        ] {
            let pattern = remote_pattern(&Scope::parse(scope).unwrap());
            let parsed: tauri::utils::acl::RemoteUrlPattern =
                pattern.parse().unwrap_or_else(|error| panic!("{pattern}: {error}"));
            assert!(parsed.test(&url(page)), "{pattern} matches {page}");
            assert!(!parsed.test(&url(elsewhere)), "{pattern} does not match {elsewhere}");
        }
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
    fn a_page_of_an_installed_site_names_that_app_not_a_new_one() {
        let dir = tempfile::tempdir().unwrap();
        let app = dir.path().join(".cowork/apps/chat");
        std::fs::create_dir_all(&app).unwrap();
        let manifest = r#"{"name": "chat", "version": "1.0.0", "title": "Chat",
            "web": {"url": "https://chat.example.com/app/", "scope": "https://chat.example.com/app/"}}"#;
        std::fs::write(app.join("cowork.json"), manifest).unwrap();
        let installed = |page: &str| installed_at(dir.path(), &url(page)).map(|site| site.title);
        assert_eq!(installed("https://chat.example.com/app/").as_deref(), Some("Chat"));
        assert_eq!(installed("https://chat.example.com/app/room/7?x=1").as_deref(), Some("Chat"));
        // Another part of the same host, another host: not that app.
        assert_eq!(installed("https://chat.example.com/blog/"), None);
        assert_eq!(installed("https://mail.example.com/app/"), None);
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
