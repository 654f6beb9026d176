//! The in-app browser: a window (labelled `browser`) to find a site and install it as a site app
//! (docs/guides/site-apps.md; `cowork app install` does the same from the command line).
//!
//! Webviews in one window (tauri `unstable`: `Window::add_child`): the address bar on top
//! (`browser-bar`, a small page the app serves itself on its `cowork-bar:` protocol, never from
//! the web, under a CSP of its own: inline script and style, nothing else; its second row is the
//! tab strip) and one webview per tab below it (`browser-page-<id>`), only the active one shown.
//! On Linux they are packed into the window's vertical `GtkBox` (tauri-runtime-wry 2.12.3
//! `lib.rs:5171`, wry 0.57.1 `webkitgtk/mod.rs:702`, all with `expand`), so the bar is re-packed
//! without `expand` at its own height, and a hidden tab's webview takes no room: a bar above the
//! active page, resized by GTK.
//!
//! Tabs: New Tab (Ctrl+T, the bar's `+`), a link that opens a new window, and an address opened
//! from the workbench on a site no tab shows (page 04: a tab already on that site is reused) each
//! open a tab; Close Tab (Ctrl+W, a tab's `×`) closes one, the last one closes the window.
//!
//! - Neither webview has IPC: no capability names them and every command checks its caller's
//!   label. The bar talks to the shell by navigating to `https://bar.cowork.invalid/<action>`
//!   (never resolved: `.invalid`), which its navigation handler catches and refuses; the shell
//!   talks to the bar with `eval("show({…})")`.
//! - Every tab has the same data directory (`<root>/browser/`, one profile): its cookies never mix
//!   with the workbench's or a site app's.
//! - After each page load the shell reads the page and its web app manifest itself
//!   ([`cowork_sites::probe`], under the install's address rules; the page cannot answer, it has
//!   no IPC). A linked manifest shows the bar's install icon; its menu (and the window's Page
//!   menu, Ctrl+Shift+A) offers `Install <name>…`, or "Install page as app…" for any other https
//!   page (http only on this computer). Installing runs [`cowork_sites::install`] into the active
//!   workspace, shows its steps in the bar, then opens the new site app; a failure is a native
//!   dialog with the install's message and hint.

mod driving;
#[cfg(target_os = "linux")]
mod engine;
#[cfg(target_os = "linux")]
mod input;
#[cfg(target_os = "linux")]
mod screenshot;

use crate::hooks::Hooks;
use crate::menu;
use crate::session::{self, Session};
use crate::{dialogs, site_apps};
use cowork_sites::{InstallOptions, Offer, Progress};
use parking_lot::Mutex;
use serde_json::json;
use std::time::Instant;
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::webview::{NewWindowResponse, PageLoadEvent, WebviewBuilder};
use tauri::{
    AppHandle, LogicalPosition, LogicalSize, Manager, Url, Webview, WebviewUrl, Window, Wry,
};

/// The browser window's label.
pub const LABEL: &str = "browser";
/// Its address bar's webview.
pub const BAR: &str = "browser-bar";
/// The prefix of its tabs' webviews (`browser-page-<id>`).
pub const PAGE: &str = "browser-page-";

/// The bar's height in logical pixels: the address row (44) and the tab strip under it (30).
const BAR_HEIGHT: f64 = 74.0;
const WIDTH: f64 = 1100.0;
const HEIGHT: f64 = 780.0;

/// Where the bar's controls go: never resolved, always caught by the bar's navigation handler.
const BAR_HOST: &str = "bar.cowork.invalid";

/// The bar page (`__BAR_HOST__` filled in).
const BAR_PAGE: &str = include_str!("browser/bar.html");

/// The custom protocol that serves the bar page (registered on the app: [`protocol`]).
pub const SCHEME: &str = "cowork-bar";

/// The bar page's CSP: its own inline script and style, and nothing to load.
const BAR_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

/// The browser window's menu items.
pub mod id {
    pub const LOCATION: &str = "browser-location";
    pub const BACK: &str = "browser-back";
    pub const FORWARD: &str = "browser-forward";
    pub const RELOAD: &str = "browser-reload";
    pub const INSTALL: &str = "browser-install";
    pub const NEW_TAB: &str = "browser-new-tab";
    pub const CLOSE_TAB: &str = "browser-close-tab";
    pub const NEXT_TAB: &str = "browser-next-tab";
    pub const PREVIOUS_TAB: &str = "browser-previous-tab";
    pub const CLOSE: &str = "browser-close";
}

/// The install item's label when the page has no named manifest.
const PAGE_AS_APP: &str = "Install page as app…";

/// The browser's state (managed).
#[derive(Default)]
pub struct Browser {
    /// The install item of the open window's menu bar.
    install: Mutex<Option<MenuItem<Wry>>>,
    /// An install is running (the bar says what it does).
    installing: Mutex<bool>,
    /// The window's tabs, in the strip's order, and which one is shown.
    tabs: Mutex<Tabs>,
    /// Who drives the browser now (the banners), and whom the person stopped.
    driving: Mutex<driving::Drivers>,
    /// Woken by each Stop: the actions in flight look whether theirs was stopped.
    stops: tokio::sync::Notify,
}

/// The tab strip.
#[derive(Default, Debug)]
pub struct Tabs {
    /// In the strip's order.
    pub list: Vec<TabEntry>,
    /// The shown tab's id.
    pub active: u64,
    /// The id the next tab gets (ids are never reused, so a closed tab's id names nothing).
    next: u64,
}

/// One tab: its webview is `browser-page-<id>`.
#[derive(Debug, Clone)]
pub struct TabEntry {
    pub id: u64,
    /// The page's document title, as WebKit last reported it.
    pub title: String,
    /// What its page offers (`None` while it is read, or for a page that offers nothing).
    pub offer: Option<Offer>,
}

impl Tabs {
    /// A new tab's id, placed after the active one (or last), not yet shown.
    fn add(&mut self) -> u64 {
        self.next += 1;
        let id = self.next;
        let at = self.index(self.active).map_or(self.list.len(), |index| index + 1);
        self.list.insert(at, TabEntry { id, title: String::new(), offer: None });
        id
    }

    /// The strip position of tab `id`.
    pub fn index(&self, id: u64) -> Option<usize> {
        self.list.iter().position(|tab| tab.id == id)
    }

    fn get_mut(&mut self, id: u64) -> Option<&mut TabEntry> {
        self.list.iter_mut().find(|tab| tab.id == id)
    }

    /// Removes tab `id`; the tab to show next when it was the active one (its right neighbour,
    /// else its left one), `None` when no tab is left or another tab stays active.
    fn remove(&mut self, id: u64) -> Option<u64> {
        let index = self.index(id)?;
        self.list.remove(index);
        if self.active != id {
            return None;
        }
        let next = self.list.get(index).or_else(|| self.list.last()).map(|tab| tab.id)?;
        self.active = next;
        Some(next)
    }

    /// The id of the tab `step` places from the active one, wrapping around.
    fn neighbour(&self, step: isize) -> Option<u64> {
        let count = self.list.len() as isize;
        let index = self.index(self.active)? as isize;
        let at = (index + step).rem_euclid(count.max(1)) as usize;
        self.list.get(at).map(|tab| tab.id)
    }
}

/// A tab's webview label.
pub fn tab_label(id: u64) -> String {
    format!("{PAGE}{id}")
}

/// What a widget's `browser.status()` answers in the desktop app: the browser window's tabs in
/// the strip's order, or `open: false`.
#[derive(serde::Serialize, Debug, PartialEq)]
pub struct Status {
    pub open: bool,
    pub tabs: Vec<Tab>,
}

/// A tab of [`Status`].
#[derive(serde::Serialize, Debug, PartialEq)]
pub struct Tab {
    pub url: String,
    pub title: String,
    pub active: bool,
}

/// The address bar's protocol, registered on the app before any webview exists.
pub fn protocol(builder: tauri::Builder<Wry>) -> tauri::Builder<Wry> {
    builder.register_uri_scheme_protocol(SCHEME, |_, request| serve_bar(&request))
}

/// The browser's part in the shell's life: its state, its menu items (and the menus' New Browser
/// Window), and its window closing when Quit starts.
pub fn init(app: &tauri::App) {
    app.manage(Browser::default());
    app.manage(crate::page_loads::PageLoads::default());
    app.manage(engine::BeforeInput::default());
    // The engine's requests (`ctx.browser`, `cowork mcp-browser`) from the desktop channel.
    app.state::<Hooks>().on_request(|app, request| {
        use cowork_wire::daemon::desktop::ShellRequest;
        match request {
            ShellRequest::Browser(request) => on_request(app, request.clone()),
            ShellRequest::BrowserConsent(question) => on_consent(app, question.clone()),
            _ => {}
        }
    });
    app.state::<Hooks>().on_quitting(|app| {
        if let Some(window) = app.get_window(LABEL) {
            let _ = window.destroy();
        }
    });
    app.on_menu_event(|app, event| {
        let chosen = event.id().as_ref();
        if on_menu(app, chosen) || chosen != menu::id::OPEN_BROWSER {
            return;
        }
        if let Err(error) = open(app, None) {
            dialogs::error(app, "Cowork Studio could not open the browser", &error.to_string());
        }
    });
}

/// Runs a browser request and posts its answer (elsewhere than Linux: `Unsupported`).
fn on_request(app: &AppHandle, request: cowork_wire::browser::ShellBrowserRequest) {
    use cowork_wire::browser::ShellAnswer;
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let outcome = drive(&app, &request).await;
        let answer = ShellAnswer { id: request.id.clone(), outcome };
        let daemon = &app.state::<Session>().link.daemon;
        if let Err(error) = daemon.browser_answer(&answer).await {
            tracing::warn!("failed to answer the browser request {}: {error}", request.id);
        }
    });
}

/// Runs one action under its driver's banner, raced against the banner's Stop: a stopped driver's
/// action in flight ends at once, and its later ones do not start (`Stopped`).
async fn drive(
    app: &AppHandle,
    request: &cowork_wire::browser::ShellBrowserRequest,
) -> cowork_wire::browser::ShellOutcome {
    use cowork_wire::browser::ShellOutcome;
    let key = request.driver.key();
    let place = match &request.target.app {
        Some(name) => driving::Place::App(name.clone()),
        None => driving::Place::Browser,
    };
    let session = request.session.as_deref();
    let browser = app.state::<Browser>();
    let label = request.driver.label();
    if !lock(&browser.driving).begin(&key, &label, session, place.clone()) {
        return ShellOutcome::Failed { error: stopped(request) };
    }
    show_driving(app, &place);
    let stop = async {
        loop {
            // Made before the look, so that a Stop between the two still wakes it.
            let notified = browser.stops.notified();
            if lock(&browser.driving).is_stopped(&key, session) {
                return;
            }
            notified.await;
        }
    };
    #[cfg(target_os = "linux")]
    let acting = engine::run(app, request);
    #[cfg(not(target_os = "linux"))]
    let acting = std::future::ready(ShellOutcome::Failed {
        error: cowork_wire::browser::BrowserError::new(
            cowork_wire::browser::BrowserErrorName::Unsupported,
            "failed to drive the browser: its engine runs on Linux (WebKitGTK) only for now",
        ),
    });
    let outcome = tokio::select! {
        outcome = acting => outcome,
        () = stop => ShellOutcome::Failed { error: stopped(request) },
    };
    lock(&browser.driving).end(&key);
    show_driving(app, &place);
    // The banner goes once the driver has been quiet a while (unless it acts again meanwhile).
    let later = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(driving::LINGER + std::time::Duration::from_millis(100)).await;
        show_driving(&later, &place);
    });
    outcome
}

/// The named error of a stopped driver's action.
fn stopped(
    request: &cowork_wire::browser::ShellBrowserRequest,
) -> cowork_wire::browser::BrowserError {
    cowork_wire::browser::BrowserError::new(
        cowork_wire::browser::BrowserErrorName::Stopped,
        format!(
            "failed to {}: the person pressed Stop on the banner while {} drove the browser",
            request.action.name(),
            request.driver.label()
        ),
    )
    .with_hint(
        "the person stopped this driver: it may drive again from its next run (a routine) or its \
         next `cowork mcp-browser` session (an agent)",
    )
}

/// Shows (or takes down) the banner of the window `place` names, as the drivers stand now.
fn show_driving(app: &AppHandle, place: &driving::Place) {
    match place {
        driving::Place::Browser => show_bar(app),
        driving::Place::App(name) => {
            let text = lock(&app.state::<Browser>().driving).banner(place, Instant::now());
            #[cfg(target_os = "linux")]
            engine::app_banner(app, name, text.as_deref());
            #[cfg(not(target_os = "linux"))]
            let _ = (name, text);
        }
    }
}

/// The person pressed Stop on `place`'s banner.
fn stop(app: &AppHandle, place: &driving::Place) {
    let browser = app.state::<Browser>();
    let keys = lock(&browser.driving).stop(place);
    tracing::info!(?keys, ?place, "the person stopped the browser's drivers");
    browser.stops.notify_waiters();
    show_driving(app, place);
}

/// The daemon asks whether a routine or an agent may drive the browser (on a site): Cowork's own
/// dialog says who and which site; Allow or Deny goes back as the answer.
fn on_consent(app: &AppHandle, question: cowork_wire::browser::ConsentQuestion) {
    use cowork_wire::browser::{ShellAnswer, ShellOutcome};
    use tauri_plugin_dialog::{MessageDialogButtons, MessageDialogResult};
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let who = question.driver.label();
        let title = format!("Let {who} drive the browser?");
        let message = match &question.site {
            Some(site) => format!(
                "{who} wants to use Cowork's browser on {site}, signed in as you: it can read \
                 those pages and click and type in them.\n\nA banner shows while it drives."
            ),
            None => format!("{who} wants to use Cowork's browser, signed in as you."),
        };
        let buttons = MessageDialogButtons::OkCancelCustom("Allow".into(), "Deny".into());
        let answer = dialogs::ask(&app, &title, &message, buttons).await;
        let allowed = matches!(&answer, MessageDialogResult::Custom(label) if label == "Allow")
            || matches!(answer, MessageDialogResult::Ok);
        let answer =
            ShellAnswer { id: question.id.clone(), outcome: ShellOutcome::Consent { allowed } };
        let daemon = &app.state::<Session>().link.daemon;
        if let Err(error) = daemon.browser_answer(&answer).await {
            tracing::warn!(
                "failed to answer the browser consent question {}: {error}",
                question.id
            );
        }
    });
}

/// The browser window's state for `browser.status()`: every tab on a web page.
pub fn status(app: &AppHandle) -> Status {
    if app.get_window(LABEL).is_none() {
        return Status { open: false, tabs: Vec::new() };
    }
    let tabs = tab_list(app)
        .into_iter()
        .filter_map(|tab| {
            let url = tab.url.filter(|url| matches!(url.scheme(), "http" | "https"))?;
            Some(Tab { url: url.to_string(), title: tab.title, active: tab.active })
        })
        .collect();
    Status { open: true, tabs }
}

/// A tab as the strip shows it.
#[derive(Debug, Clone)]
pub struct TabView {
    pub id: u64,
    pub url: Option<Url>,
    pub title: String,
    pub active: bool,
}

/// The window's tabs in the strip's order (none when the window is closed).
pub fn tab_list(app: &AppHandle) -> Vec<TabView> {
    if app.get_window(LABEL).is_none() {
        return Vec::new();
    }
    let (list, active) = with_tabs(app, |tabs| (tabs.list.clone(), tabs.active));
    list.into_iter()
        .map(|tab| TabView {
            id: tab.id,
            url: app.get_webview(&tab_label(tab.id)).and_then(|page| page.url().ok()),
            title: tab.title,
            active: tab.id == active,
        })
        .collect()
}

/// The active tab's id, when the window is open.
pub fn active_tab(app: &AppHandle) -> Option<u64> {
    app.get_window(LABEL)?;
    with_tabs(app, |tabs| tabs.index(tabs.active).map(|_| tabs.active))
}

/// Tab `id`'s webview, when it is open.
pub fn tab_webview(app: &AppHandle, id: u64) -> Option<Webview> {
    app.get_webview(&tab_label(id))
}

fn lock<T>(mutex: &Mutex<T>) -> parking_lot::MutexGuard<'_, T> {
    mutex.lock()
}

/// Runs `f` on the tab strip, locked.
fn with_tabs<R>(app: &AppHandle, f: impl FnOnce(&mut Tabs) -> R) -> R {
    let browser = app.state::<Browser>();
    let mut tabs = lock(&browser.tabs);
    f(&mut tabs)
}

/// Reads typed text as an address: http and https only; a bare host (`example.com`,
/// `example.com/path`) is https, `localhost[:port]` and `127.0.0.1[:port]` are http.
pub fn normalize(typed: &str) -> Result<Url, String> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Err("type an address, e.g. https://example.com/".to_owned());
    }
    if typed.contains(char::is_whitespace) {
        return Err(format!("\"{typed}\" is not a web address"));
    }
    let has_scheme = typed.split_once(':').is_some_and(|(scheme, rest)| {
        !scheme.is_empty()
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && !rest.chars().next().is_some_and(|c| c.is_ascii_digit())
    });
    let text = if has_scheme {
        typed.to_owned()
    } else {
        let host = typed.split(['/', '?', '#']).next().unwrap_or_default();
        let host = host
            .rsplit_once(':')
            .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
            .map_or(host, |(name, _)| name);
        let local = matches!(host, "localhost" | "127.0.0.1" | "[::1]");
        format!("{}://{typed}", if local { "http" } else { "https" })
    };
    let url =
        Url::parse(&text).map_err(|error| format!("\"{typed}\" is not a web address ({error})"))?;
    match url.scheme() {
        "http" | "https" if url.host_str().is_some_and(|host| !host.is_empty()) => Ok(url),
        "http" | "https" => Err(format!("\"{typed}\" names no site")),
        other => Err(format!("the browser opens only http and https addresses, not {other}:")),
    }
}

/// Whether any page at `url` may be installed by address alone (the install's own rules decide
/// the rest): https, or http on this computer.
fn installable(url: &Url) -> bool {
    url.scheme() == "https"
        || (url.scheme() == "http"
            && matches!(url.host_str(), Some("localhost" | "127.0.0.1" | "[::1]")))
}

/// The install item's label and whether it is enabled, for the page at `url` and what it offers.
pub fn install_label(url: &Url, offer: Option<&Offer>) -> (String, bool) {
    match offer {
        Some(Offer { manifest: true, name: Some(name), .. }) => (format!("Install {name}…"), true),
        _ => (PAGE_AS_APP.to_owned(), installable(url)),
    }
}

/// The window's title: the page's address (none yet: just the browser's name).
pub fn window_title(url: &Url) -> String {
    if url.scheme() == "about" {
        return "Cowork Browser".to_owned();
    }
    format!("{url} — Cowork Browser")
}

/// What a control of the bar asked for.
#[derive(Debug, PartialEq, Eq)]
pub enum Action {
    /// Go to what was typed.
    Go(String),
    Back,
    Forward,
    Reload,
    /// The install icon or the menu button: the install menu.
    Menu,
    /// The strip's `+`.
    NewTab,
    /// A tab of the strip was clicked: show it.
    Select(u64),
    /// A tab's `×`.
    CloseTab(u64),
    /// The banner's Stop: whoever drives the browser stops.
    Stop,
}

/// The bar's request in `url` (`https://bar.cowork.invalid/<action>[?q=…]`), if it is one.
pub fn bar_action(url: &Url) -> Option<Action> {
    if url.scheme() != "https" || url.host_str() != Some(BAR_HOST) {
        return None;
    }
    Some(match url.path() {
        "/go" => Action::Go(
            url.query_pairs()
                .find(|(key, _)| key == "q")
                .map(|(_, value)| value.into_owned())
                .unwrap_or_default(),
        ),
        "/back" => Action::Back,
        "/forward" => Action::Forward,
        "/reload" => Action::Reload,
        "/menu" => Action::Menu,
        "/new-tab" => Action::NewTab,
        "/stop" => Action::Stop,
        "/tab" | "/close-tab" => {
            let id = url
                .query_pairs()
                .find(|(key, _)| key == "id")
                .and_then(|(_, value)| value.parse().ok())?;
            if url.path() == "/tab" {
                Action::Select(id)
            } else {
                Action::CloseTab(id)
            }
        }
        _ => return None,
    })
}

/// The bar page's address: `cowork-bar://localhost/` (Windows and Android serve custom
/// protocols on `http://cowork-bar.localhost/`).
fn bar_url() -> Url {
    let text = if cfg!(any(windows, target_os = "android")) {
        format!("http://{SCHEME}.localhost/")
    } else {
        format!("{SCHEME}://localhost/")
    };
    Url::parse(&text).expect("a constant URL parses")
}

/// Whether `url` is the bar page.
fn is_bar_page(url: &Url) -> bool {
    let bar = bar_url();
    url.scheme() == bar.scheme() && url.host_str() == bar.host_str() && url.path() == "/"
}

/// Answers the `cowork-bar:` protocol: the bar page at `/`, nothing else.
pub fn serve_bar(request: &tauri::http::Request<Vec<u8>>) -> tauri::http::Response<Vec<u8>> {
    let builder = tauri::http::Response::builder();
    let response = if request.uri().path() == "/" {
        builder
            .header("content-type", "text/html; charset=utf-8")
            .header("content-security-policy", BAR_CSP)
            .header("cache-control", "no-store")
            .body(BAR_PAGE.replace("__BAR_HOST__", BAR_HOST).into_bytes())
    } else {
        builder.status(404).body(Vec::new())
    };
    response.unwrap_or_else(|_| tauri::http::Response::new(Vec::new()))
}

fn window_menu(app: &AppHandle) -> tauri::Result<(Menu<Wry>, MenuItem<Wry>)> {
    let install =
        MenuItem::with_id(app, id::INSTALL, PAGE_AS_APP, false, Some("CmdOrCtrl+Shift+A"))?;
    let page = Submenu::with_items(
        app,
        "Page",
        true,
        &[
            &MenuItem::with_id(app, id::LOCATION, "Open Location…", true, Some("CmdOrCtrl+L"))?,
            &MenuItem::with_id(app, id::BACK, "Back", true, Some("Alt+Left"))?,
            &MenuItem::with_id(app, id::FORWARD, "Forward", true, Some("Alt+Right"))?,
            &MenuItem::with_id(app, id::RELOAD, "Reload", true, Some("CmdOrCtrl+R"))?,
            &PredefinedMenuItem::separator(app)?,
            &MenuItem::with_id(app, id::NEW_TAB, "New Tab", true, Some("CmdOrCtrl+T"))?,
            &MenuItem::with_id(app, id::NEXT_TAB, "Next Tab", true, Some("CmdOrCtrl+PageDown"))?,
            &MenuItem::with_id(
                app,
                id::PREVIOUS_TAB,
                "Previous Tab",
                true,
                Some("CmdOrCtrl+PageUp"),
            )?,
            &MenuItem::with_id(app, id::CLOSE_TAB, "Close Tab", true, Some("CmdOrCtrl+W"))?,
            &PredefinedMenuItem::separator(app)?,
            &install,
            &PredefinedMenuItem::separator(app)?,
            &MenuItem::with_id(app, id::CLOSE, "Close Window", true, Some("CmdOrCtrl+Shift+W"))?,
        ],
    )?;
    Ok((Menu::with_items(app, &[&page])?, install))
}

/// The active tab's page.
fn page(app: &AppHandle) -> Option<Webview> {
    active_tab(app).and_then(|id| tab_webview(app, id))
}

/// The active tab's address, when it is a web page.
fn page_url(app: &AppHandle) -> Option<Url> {
    page(app)
        .and_then(|page| page.url().ok())
        .filter(|url| matches!(url.scheme(), "http" | "https"))
}

/// Opens the browser window (or brings it up) on `url`, else on its active tab (a new empty one
/// when the window was closed) with the address bar focused. An address on a site a tab already
/// shows goes to that tab (page 04), any other to a new tab.
pub fn open(app: &AppHandle, url: Option<Url>) -> tauri::Result<()> {
    let Some(window) = app.get_window(LABEL) else {
        let window = open_window(app)?;
        new_tab(app, url)?;
        bring_up(&window);
        return Ok(());
    };
    match url {
        Some(url) => match tab_on_site(app, &url) {
            Some(id) => {
                if let Some(page) = tab_webview(app, id) {
                    page.navigate(url)?;
                }
                select_tab(app, id);
            }
            None => {
                new_tab(app, Some(url))?;
            }
        },
        None => focus_address(app),
    }
    bring_up(&window);
    show_active(app);
    Ok(())
}

/// Shows the active tab alone again: showing the window shows every child widget (GTK's
/// `show_all`), the hidden tabs' webviews too.
fn show_active(app: &AppHandle) {
    if let Some(id) = active_tab(app) {
        select_tab(app, id);
    }
}

/// The first tab whose page is on `url`'s site (scheme, host and port).
fn tab_on_site(app: &AppHandle, url: &Url) -> Option<u64> {
    tab_list(app)
        .into_iter()
        .find(|tab| tab.url.as_ref().is_some_and(|shown| shown.origin() == url.origin()))
        .map(|tab| tab.id)
}

/// The window with its bar and no tab yet.
fn open_window(app: &AppHandle) -> tauri::Result<Window> {
    *lock(&app.state::<Browser>().tabs) = Tabs::default();
    let (menu, install) = window_menu(app)?;
    *lock(&app.state::<Browser>().install) = Some(install);
    let window = tauri::window::WindowBuilder::new(app, LABEL)
        .title(window_title(&Url::parse("about:blank").expect("a constant URL parses")))
        .inner_size(WIDTH, HEIGHT)
        .menu(menu)
        .build()?;

    let bar_app = app.clone();
    let bar_loaded = app.clone();
    let bar = WebviewBuilder::new(BAR, WebviewUrl::External(bar_url()))
        .on_navigation(move |url| {
            if let Some(action) = bar_action(url) {
                let app = bar_app.clone();
                // Not from inside the navigation decision.
                tauri::async_runtime::spawn(async move { act(&app, action) });
                return false;
            }
            is_bar_page(url)
        })
        .on_new_window(|_, _| NewWindowResponse::Deny)
        .on_page_load(move |_, payload| {
            if payload.event() == PageLoadEvent::Finished {
                show_bar(&bar_loaded);
                if page_url(&bar_loaded).is_none() {
                    focus_address(&bar_loaded);
                }
            }
        });
    let bar = window.add_child(
        bar.auto_resize(),
        LogicalPosition::new(0.0, 0.0),
        LogicalSize::new(WIDTH, BAR_HEIGHT),
    )?;
    #[cfg(target_os = "linux")]
    keep_height(&bar);
    #[cfg(not(target_os = "linux"))]
    let _ = bar;
    Ok(window)
}

/// Opens a tab on `url` (none: an empty page, the address bar focused) after the active one and
/// shows it; its id.
pub fn new_tab(app: &AppHandle, url: Option<Url>) -> tauri::Result<u64> {
    let Some(window) = app.get_window(LABEL) else {
        return Err(tauri::Error::WindowNotFound);
    };
    let empty = url.is_none();
    let url = url.unwrap_or_else(|| Url::parse("about:blank").expect("a constant URL parses"));
    let directory = app.state::<Session>().root.dir().join("browser");
    if let Err(error) = std::fs::create_dir_all(&directory) {
        tracing::warn!("failed to make {}: {error}", directory.display());
    }
    let id = lock(&app.state::<Browser>().tabs).add();

    let navigation_app = app.clone();
    let new_window_app = app.clone();
    let load_app = app.clone();
    let title_app = app.clone();
    let content = WebviewBuilder::new(tab_label(id), WebviewUrl::External(url))
        .data_directory(directory)
        .on_document_title_changed(move |_, title| {
            if let Some(tab) = lock(&title_app.state::<Browser>().tabs).get_mut(id) {
                tab.title = title;
            }
            show_bar(&title_app);
        })
        .on_navigation(move |url| navigate(&navigation_app, url))
        .on_new_window(move |url, _| {
            // A link that opens a new window opens a new tab (one browser window).
            if matches!(url.scheme(), "http" | "https") {
                new_tab_later(&new_window_app, url);
            }
            NewWindowResponse::Deny
        })
        .on_page_load(move |_, payload| {
            let url = payload.url().clone();
            match payload.event() {
                PageLoadEvent::Started => started(&load_app, id, &url),
                PageLoadEvent::Finished => {
                    loaded(&load_app, id, url);
                    load_app.state::<crate::page_loads::PageLoads>().finished();
                }
            }
        });
    let added = window.add_child(
        content.auto_resize(),
        LogicalPosition::new(0.0, BAR_HEIGHT),
        LogicalSize::new(WIDTH, HEIGHT - BAR_HEIGHT),
    );
    if let Err(error) = added {
        lock(&app.state::<Browser>().tabs).remove(id);
        return Err(error);
    }
    select_tab(app, id);
    if empty {
        focus_address(app);
    }
    Ok(id)
}

/// Shows tab `id` (hiding the others) and puts the keyboard in it.
pub fn select_tab(app: &AppHandle, id: u64) {
    let list = with_tabs(app, |tabs| {
        tabs.index(id)?;
        tabs.active = id;
        Some(tabs.list.iter().map(|tab| tab.id).collect::<Vec<_>>())
    });
    let Some(list) = list else { return };
    for other in list.into_iter().filter(|other| *other != id) {
        if let Some(page) = tab_webview(app, other) {
            let _ = page.hide();
        }
    }
    if let Some(page) = tab_webview(app, id) {
        let _ = page.show();
        let _ = page.set_focus();
        if let (Some(window), Ok(url)) = (app.get_window(LABEL), page.url()) {
            let _ = window.set_title(&window_title(&url));
        }
    }
    show_bar(app);
}

/// Closes tab `id`: its neighbour shows; closing the last tab closes the window.
pub fn close_tab(app: &AppHandle, id: u64) {
    let removed = with_tabs(app, |tabs| {
        tabs.index(id)?;
        Some((tabs.remove(id), tabs.list.len()))
    });
    let Some((next, left)) = removed else { return };
    if let Some(page) = tab_webview(app, id) {
        let _ = page.close();
    }
    if left == 0 {
        if let Some(window) = app.get_window(LABEL) {
            let _ = window.close();
        }
        return;
    }
    match next {
        Some(next) => select_tab(app, next),
        None => show_bar(app),
    }
}

/// Linux: the bar keeps its height and the page takes the rest (both were packed with `expand`).
#[cfg(target_os = "linux")]
fn keep_height(bar: &Webview) {
    let result = bar.with_webview(|platform| {
        use gtk::prelude::*;
        let widget: gtk::Widget = platform.inner().upcast();
        widget.set_size_request(-1, BAR_HEIGHT as i32);
        if let Some(parent) = widget.parent().and_then(|parent| parent.downcast::<gtk::Box>().ok())
        {
            parent.set_child_packing(&widget, false, true, 0, gtk::PackType::Start);
        }
    });
    if let Err(error) = result {
        tracing::warn!("failed to fix the browser's address bar height: {error}");
    }
}

fn bring_up(window: &Window) {
    let _ = window.show();
    let _ = window.unminimize();
    let _ = window.set_focus();
}

/// Puts the keyboard in the bar's address field, all of it selected.
fn focus_address(app: &AppHandle) {
    if let Some(bar) = app.get_webview(BAR) {
        let _ = bar.set_focus();
        let _ = bar.eval("focusAddress()");
    }
}

/// The page may go to http(s) pages (and its own `about:`, `blob:`, `data:` frames); `mailto:`
/// goes to the system after the trust prompt.
fn navigate(app: &AppHandle, url: &Url) -> bool {
    match url.scheme() {
        "http" | "https" | "about" | "blob" | "data" => true,
        "mailto" => {
            crate::external::open_later(app, url.as_str());
            false
        }
        _ => false,
    }
}

/// Opens a tab on `url` later (not from inside a navigation decision).
fn new_tab_later(app: &AppHandle, url: Url) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Err(error) = new_tab(&app, Some(url)) {
            tracing::warn!("failed to open a tab: {error}");
        }
    });
}

/// A control of the bar was used.
fn act(app: &AppHandle, action: Action) {
    match action {
        Action::NewTab => {
            if let Err(error) = new_tab(app, None) {
                tracing::warn!("failed to open a tab: {error}");
            }
            return;
        }
        Action::Select(id) => return select_tab(app, id),
        Action::CloseTab(id) => return close_tab(app, id),
        Action::Stop => return stop(app, &driving::Place::Browser),
        _ => {}
    }
    let Some(page) = page(app) else { return };
    match action {
        Action::Go(text) => match normalize(&text) {
            Ok(url) => {
                let _ = page.navigate(url);
                let _ = page.set_focus();
                if let Some(bar) = app.get_webview(BAR) {
                    let _ = bar.eval("document.activeElement?.blur()");
                }
            }
            Err(message) => bar_status(app, &message),
        },
        Action::Back => {
            let _ = page.eval("history.back()");
        }
        Action::Forward => {
            let _ = page.eval("history.forward()");
        }
        Action::Reload => {
            let _ = page.eval("location.reload()");
        }
        Action::Menu => install_menu(app),
        Action::NewTab | Action::Select(_) | Action::CloseTab(_) | Action::Stop => {}
    }
}

/// The install icon's menu, where the pointer is: `Install <name>…` or "Install page as app…".
fn install_menu(app: &AppHandle) {
    let Some(window) = app.get_window(LABEL) else { return };
    let (label, enabled) = match page_url(app) {
        Some(url) => install_label(&url, active_offer(app).as_ref()),
        None => (PAGE_AS_APP.to_owned(), false),
    };
    let enabled = enabled && !*lock(&app.state::<Browser>().installing);
    let menu = MenuItem::with_id(app, id::INSTALL, label, enabled, None::<&str>)
        .and_then(|item| Menu::with_items(app, &[&item]));
    match menu {
        Ok(menu) => {
            if let Err(error) = window.popup_menu(&menu) {
                tracing::warn!("failed to show the install menu: {error}");
            }
        }
        Err(error) => tracing::warn!("failed to build the install menu: {error}"),
    }
}

/// What the active tab's page offers.
fn active_offer(app: &AppHandle) -> Option<Offer> {
    with_tabs(app, |tabs| {
        let active = tabs.active;
        tabs.list.iter().find(|tab| tab.id == active).and_then(|tab| tab.offer.clone())
    })
}

/// Tab `id`'s page started loading: nothing offered yet; when it is the active tab, its address in
/// the bar and the title.
fn started(app: &AppHandle, id: u64, url: &Url) {
    if let Some(tab) = lock(&app.state::<Browser>().tabs).get_mut(id) {
        tab.offer = None;
    }
    if active_tab(app) == Some(id) {
        if let Some(window) = app.get_window(LABEL) {
            let _ = window.set_title(&window_title(url));
        }
    }
    show_bar(app);
}

/// Tab `id`'s page finished loading: then what it offers to install.
fn loaded(app: &AppHandle, id: u64, url: Url) {
    started(app, id, &url);
    if !matches!(url.scheme(), "http" | "https") {
        return;
    }
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let offer = match cowork_sites::probe(url.as_str(), &InstallOptions::default()).await {
            Ok(offer) => Some(offer),
            Err(error) => {
                tracing::debug!("the browser's page offers nothing to install: {error}");
                None
            }
        };
        // Only if the tab is still on that page.
        if tab_webview(&app, id).and_then(|page| page.url().ok()).as_ref() != Some(&url) {
            return;
        }
        tracing::info!(url = %url, manifest = offer.as_ref().is_some_and(|o| o.manifest), name = ?offer.as_ref().and_then(|o| o.name.clone()), "the browser read the page");
        if let Some(tab) = lock(&app.state::<Browser>().tabs).get_mut(id) {
            tab.offer = offer;
        }
        show_bar(&app);
    });
}

/// Shows the current address and what it offers in the bar and the menu bar's install item.
fn show_bar(app: &AppHandle) {
    let browser = app.state::<Browser>();
    let installing = *lock(&browser.installing);
    let offer = active_offer(app);
    let url = page(app).and_then(|page| page.url().ok());
    let (label, enabled) = match url.as_ref().filter(|url| matches!(url.scheme(), "http" | "https"))
    {
        Some(url) => install_label(url, offer.as_ref()),
        None => (PAGE_AS_APP.to_owned(), false),
    };
    let manifest = offer.as_ref().is_some_and(|offer| offer.manifest);
    if !installing {
        set_item(app, &label, enabled);
    }
    let shown = url.filter(|url| url.scheme() != "about").map(String::from).unwrap_or_default();
    let tabs: Vec<_> = tab_list(app)
        .into_iter()
        .map(|tab| {
            let url = tab.url.filter(|url| url.scheme() != "about").map(String::from);
            let title = if tab.title.is_empty() {
                url.clone().unwrap_or_else(|| "New Tab".to_owned())
            } else {
                tab.title
            };
            json!({ "id": tab.id, "title": title, "url": url, "active": tab.active })
        })
        .collect();
    let driving = lock(&browser.driving).banner(&driving::Place::Browser, Instant::now());
    let state = json!({ "url": shown, "install": manifest.then_some(&label), "menu": enabled, "installing": installing, "tabs": tabs, "driving": driving });
    if let Some(bar) = app.get_webview(BAR) {
        let _ = bar.eval(format!("show({state})"));
    }
}

/// A line of text in the bar (an address that cannot be opened, an install's step).
fn bar_status(app: &AppHandle, text: &str) {
    if let Some(bar) = app.get_webview(BAR) {
        let _ = bar.eval(format!("status({})", json!(text)));
    }
}

fn set_item(app: &AppHandle, text: &str, enabled: bool) {
    let item = lock(&app.state::<Browser>().install).clone();
    if let Some(item) = item {
        let _ = item.set_text(text);
        let _ = item.set_enabled(enabled);
    }
}

/// An item of the browser window's menus was chosen; `false` if `chosen` is not one.
fn on_menu(app: &AppHandle, chosen: &str) -> bool {
    if !chosen.starts_with("browser-") {
        return false;
    }
    let Some(window) = app.get_window(LABEL) else { return true };
    match chosen {
        id::LOCATION => focus_address(app),
        id::BACK => act(app, Action::Back),
        id::FORWARD => act(app, Action::Forward),
        id::RELOAD => act(app, Action::Reload),
        id::INSTALL => install_current(app),
        id::NEW_TAB => act(app, Action::NewTab),
        id::CLOSE_TAB => {
            if let Some(id) = active_tab(app) {
                close_tab(app, id);
            }
        }
        id::NEXT_TAB | id::PREVIOUS_TAB => {
            let step = if chosen == id::NEXT_TAB { 1 } else { -1 };
            let next = lock(&app.state::<Browser>().tabs).neighbour(step);
            if let Some(next) = next {
                select_tab(app, next);
            }
        }
        id::CLOSE => {
            let _ = window.close();
        }
        _ => return false,
    }
    true
}

/// Installs the page the window shows into the active workspace, then opens the new site app.
pub fn install_current(app: &AppHandle) {
    let Some(url) = page_url(app) else { return };
    {
        let browser = app.state::<Browser>();
        let mut installing = lock(&browser.installing);
        if *installing {
            return;
        }
        *installing = true;
    }
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let root = app.state::<Session>().root.clone();
        let workspace = session::active(&app);
        let offer = active_offer(&app);
        let start = offer.as_ref().map_or_else(|| url.to_string(), |offer| offer.url.clone());
        // The site is an app here already: that app opens, rather than a second of the same site.
        let installed = Url::parse(&start).ok().and_then(|start| {
            site_apps::installed_at(&workspace, &start)
                .or_else(|| site_apps::installed_at(&workspace, &url))
        });
        if let Some(site) = installed {
            *lock(&app.state::<Browser>().installing) = false;
            tracing::info!(app = %site.app, url = %url, "the page is an installed site app already: opened it");
            bar_status(&app, &format!("{} is installed here already: opened it", site.title));
            if let Err(error) = site_apps::open(&app, &site.app).await {
                dialogs::error(&app, "Cowork Studio could not open the app", &error.to_string());
            }
            return;
        }
        show_bar(&app);
        set_item(&app, "Installing…", false);
        let result = run_install(&app, root, workspace.clone(), start).await;
        *lock(&app.state::<Browser>().installing) = false;
        show_bar(&app);
        match result {
            Ok(installed) => {
                tracing::info!(app = %installed.name, url = %installed.url, workspace = %workspace.display(), "installed a site app from the browser");
                bar_status(&app, &format!("Installed {} in {}", installed.title, installed.dir));
                if let Err(error) = site_apps::open(&app, &installed.name).await {
                    dialogs::error(
                        &app,
                        "Cowork Studio installed the app but could not open it",
                        &error.to_string(),
                    );
                }
            }
            Err(message) => {
                bar_status(&app, "The install failed");
                dialogs::error(&app, "Cowork Studio could not install the page", &message);
            }
        }
    });
}

/// Runs the install on a thread of its own (its future holds the progress callback, which is not
/// `Send`), showing each step in the bar.
async fn run_install(
    app: &AppHandle,
    root: cowork_core::paths::Root,
    workspace: std::path::PathBuf,
    start: String,
) -> Result<cowork_sites::Installed, String> {
    let progress_app = app.clone();
    let task = tauri::async_runtime::spawn_blocking(move || {
        let mut progress = move |step: Progress| {
            let text = match step {
                Progress::Fetching(url) => format!("Installing… reading {url}"),
                Progress::ReadingManifest => "Installing… reading its web app manifest".to_owned(),
                Progress::FetchingIcon => "Installing… fetching its icon".to_owned(),
            };
            bar_status(&progress_app, &text);
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| format!("failed to start the install: {error}"))?;
        runtime
            .block_on(cowork_sites::install(
                &root,
                &workspace,
                &start,
                &InstallOptions::default(),
                &mut progress,
            ))
            .map_err(|error| install_message(&error))
    });
    task.await.unwrap_or_else(|error| Err(format!("the install stopped: {error}")))
}

/// An install error as the dialog says it: the message, its causes, then the hint.
fn install_message(error: &cowork_sites::InstallError) -> String {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    if let Some(hint) = error.hint() {
        message.push_str(&format!("\n\nhint: {hint}"));
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url;

    #[test]
    fn typed_text_becomes_an_http_or_https_address() {
        assert_eq!(normalize("example.com").unwrap().as_str(), "https://example.com/");
        assert_eq!(
            normalize("  example.com/a?b=c ").unwrap().as_str(),
            "https://example.com/a?b=c"
        );
        assert_eq!(
            normalize("https://web.whatsapp.com/").unwrap().as_str(),
            "https://web.whatsapp.com/"
        );
        assert_eq!(normalize("http://example.com").unwrap().as_str(), "http://example.com/");
        assert_eq!(normalize("localhost:8080/app").unwrap().as_str(), "http://localhost:8080/app");
        assert_eq!(normalize("127.0.0.1:5000").unwrap().as_str(), "http://127.0.0.1:5000/");
        assert!(normalize("").is_err());
        assert!(normalize("two words").is_err());
        assert!(normalize("file:///etc/passwd").unwrap_err().contains("http and https"));
        assert!(normalize("javascript:alert(1)").is_err());
        assert!(normalize("ftp://example.com/").unwrap_err().contains("not ftp:"));
    }

    #[test]
    fn the_install_item_names_the_manifests_app_else_the_page() {
        let page = url("https://chat.example/");
        let offer = |manifest: bool, name: Option<&str>| Offer {
            url: page.to_string(),
            manifest,
            name: name.map(str::to_owned),
        };
        assert_eq!(
            install_label(&page, Some(&offer(true, Some("Chat")))),
            ("Install Chat…".to_owned(), true)
        );
        assert_eq!(
            install_label(&page, Some(&offer(true, None))),
            ("Install page as app…".to_owned(), true)
        );
        assert_eq!(
            install_label(&page, Some(&offer(false, None))),
            ("Install page as app…".to_owned(), true)
        );
        assert_eq!(install_label(&page, None), ("Install page as app…".to_owned(), true));
        assert_eq!(
            install_label(&url("http://127.0.0.1:4000/"), None),
            ("Install page as app…".to_owned(), true)
        );
        assert_eq!(
            install_label(&url("http://example.com/"), None),
            ("Install page as app…".to_owned(), false)
        );
    }

    #[test]
    fn tabs_open_after_the_active_one_and_closing_shows_a_neighbour() {
        let mut tabs = Tabs::default();
        let first = tabs.add();
        tabs.active = first;
        let second = tabs.add();
        tabs.active = second;
        // A tab opened from the first lands right after it, before the second.
        tabs.active = first;
        let third = tabs.add();
        let order = |tabs: &Tabs| tabs.list.iter().map(|tab| tab.id).collect::<Vec<_>>();
        assert_eq!(order(&tabs), [first, third, second]);
        assert_eq!(tabs.neighbour(1), Some(third));
        assert_eq!(tabs.neighbour(-1), Some(second), "wraps around");
        // Closing the active tab shows its right neighbour, else its left one.
        assert_eq!(tabs.remove(first), Some(third));
        assert_eq!(tabs.active, third);
        tabs.active = second;
        assert_eq!(tabs.remove(second), Some(third));
        // Closing a tab that is not the active one changes nothing shown.
        let fourth = tabs.add();
        assert_eq!(tabs.remove(fourth), None);
        assert_eq!(tabs.active, third);
        assert_eq!(tabs.remove(third), None, "no tab left");
        assert!(tabs.list.is_empty());
        // Ids are never reused: a closed tab's id names nothing.
        assert!(tabs.add() > fourth);
        assert_eq!(tabs.remove(first), None);
    }

    #[test]
    fn the_bar_asks_through_addresses_that_never_resolve() {
        assert_eq!(
            bar_action(&url("https://bar.cowork.invalid/go?q=example.com%2Fa")),
            Some(Action::Go("example.com/a".to_owned()))
        );
        assert_eq!(
            bar_action(&url("https://bar.cowork.invalid/go")),
            Some(Action::Go(String::new()))
        );
        assert_eq!(bar_action(&url("https://bar.cowork.invalid/menu")), Some(Action::Menu));
        assert_eq!(bar_action(&url("https://bar.cowork.invalid/back")), Some(Action::Back));
        assert_eq!(bar_action(&url("https://bar.cowork.invalid/new-tab")), Some(Action::NewTab));
        assert_eq!(bar_action(&url("https://bar.cowork.invalid/stop")), Some(Action::Stop));
        assert_eq!(
            bar_action(&url("https://bar.cowork.invalid/tab?id=3")),
            Some(Action::Select(3))
        );
        assert_eq!(
            bar_action(&url("https://bar.cowork.invalid/close-tab?id=12")),
            Some(Action::CloseTab(12))
        );
        assert_eq!(bar_action(&url("https://bar.cowork.invalid/tab?id=x")), None);
        assert_eq!(bar_action(&url("https://bar.cowork.invalid/close-tab")), None);
        assert_eq!(bar_action(&url("https://bar.cowork.invalid/other")), None);
        assert_eq!(bar_action(&url("https://example.com/go?q=x")), None);
        assert_eq!(bar_action(&url("http://bar.cowork.invalid/go?q=x")), None);
        assert!(is_bar_page(&bar_url()));
        assert!(!is_bar_page(&url("cowork-bar://localhost/other")));
        assert!(!is_bar_page(&url("https://localhost/")));
        let page = serve_bar(
            &tauri::http::Request::builder()
                .uri("cowork-bar://localhost/")
                .body(Vec::new())
                .unwrap(),
        );
        assert_eq!(page.status(), 200);
        assert!(String::from_utf8_lossy(page.body()).contains("https://bar.cowork.invalid/go"));
        assert_eq!(
            serve_bar(
                &tauri::http::Request::builder()
                    .uri("cowork-bar://localhost/x")
                    .body(Vec::new())
                    .unwrap()
            )
            .status(),
            404
        );
        assert_eq!(
            window_title(&url("https://a.example/b")),
            "https://a.example/b — Cowork Browser"
        );
        assert_eq!(window_title(&url("about:blank")), "Cowork Browser");
    }
}
