//! The in-app browser: a window (labelled `browser`) to find a site and install it as a site app
//! (docs/guides/site-apps.md; `cowork app install` does the same from the command line).
//!
//! Two webviews in one window (tauri `unstable`: `Window::add_child`): the address bar on top
//! (`browser-bar`, a small page the app serves itself on its `cowork-bar:` protocol, never from
//! the web, under a CSP of its own: inline script and style, nothing else) and the page
//! below (`browser-page`). On Linux both are packed into the window's vertical `GtkBox` (tauri-
//! runtime-wry 2.12.3 `lib.rs:5171`, wry 0.57.1 `webkitgtk/mod.rs:702`, both with `expand`), so
//! the bar is re-packed without `expand` at its own height: a bar above the page, resized by GTK.
//!
//! - Neither webview has IPC: no capability names them and every command checks its caller's
//!   label. The bar talks to the shell by navigating to `https://bar.cowork.invalid/<action>`
//!   (never resolved: `.invalid`), which its navigation handler catches and refuses; the shell
//!   talks to the bar with `eval("show({…})")`.
//! - The page has a data directory of its own (`<root>/browser/`): its cookies never mix with the
//!   workbench's or a site app's.
//! - After each page load the shell reads the page and its web app manifest itself
//!   ([`cowork_sites::probe`], under the install's address rules; the page cannot answer, it has
//!   no IPC). A linked manifest shows the bar's install icon; its menu (and the window's Page
//!   menu, Ctrl+Shift+A) offers `Install <name>…`, or "Install page as app…" for any other https
//!   page (http only on this computer). Installing runs [`cowork_sites::install`] into the active
//!   workspace, shows its steps in the bar, then opens the new site app; a failure is a native
//!   dialog with the install's message and hint.

use crate::hooks::Hooks;
use crate::menu;
use crate::session::{self, Session};
use crate::{dialogs, site_apps};
use cowork_sites::{InstallOptions, Offer, Progress};
use parking_lot::Mutex;
use serde_json::json;
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::webview::{NewWindowResponse, PageLoadEvent, WebviewBuilder};
use tauri::{
    AppHandle, LogicalPosition, LogicalSize, Manager, Url, Webview, WebviewUrl, Window, Wry,
};

/// The browser window's label.
pub const LABEL: &str = "browser";
/// Its address bar's webview.
pub const BAR: &str = "browser-bar";
/// Its page's webview.
pub const PAGE: &str = "browser-page";

/// The bar's height in logical pixels.
const BAR_HEIGHT: f64 = 44.0;
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
    pub const CLOSE: &str = "browser-close";
}

/// The install item's label when the page has no named manifest.
const PAGE_AS_APP: &str = "Install page as app…";

/// The browser's state (managed).
#[derive(Default)]
pub struct Browser {
    /// The install item of the open window's menu bar.
    install: Mutex<Option<MenuItem<Wry>>>,
    /// What the current page offers (`None` while it is read, or for a page that offers nothing).
    offer: Mutex<Option<Offer>>,
    /// An install is running (the bar says what it does).
    installing: Mutex<bool>,
    /// The page's document title, as WebKit last reported it.
    title: Mutex<String>,
}

/// What a widget's `browser.status()` answers in the desktop app: the browser window's one page
/// as its one tab (the window has no other tabs), or `open: false`.
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

/// The browser window's state for `browser.status()`.
pub fn status(app: &AppHandle) -> Status {
    if app.get_window(LABEL).is_none() {
        return Status { open: false, tabs: Vec::new() };
    }
    let title = lock(&app.state::<Browser>().title).clone();
    let tabs = page_url(app)
        .map(|url| Tab { url: url.to_string(), title, active: true })
        .into_iter()
        .collect();
    Status { open: true, tabs }
}

fn lock<T>(mutex: &Mutex<T>) -> parking_lot::MutexGuard<'_, T> {
    mutex.lock()
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
            &install,
            &PredefinedMenuItem::separator(app)?,
            &MenuItem::with_id(app, id::CLOSE, "Close Window", true, Some("CmdOrCtrl+W"))?,
        ],
    )?;
    Ok((Menu::with_items(app, &[&page])?, install))
}

fn page(app: &AppHandle) -> Option<Webview> {
    app.get_webview(PAGE)
}

/// The page's address, when it is a web page.
fn page_url(app: &AppHandle) -> Option<Url> {
    page(app)
        .and_then(|page| page.url().ok())
        .filter(|url| matches!(url.scheme(), "http" | "https"))
}

/// Opens the browser window (or brings it up) on `url`, else on an empty page with the address
/// bar focused.
pub fn open(app: &AppHandle, url: Option<Url>) -> tauri::Result<()> {
    if let Some(window) = app.get_window(LABEL) {
        match (url, page(app)) {
            (Some(url), Some(page)) => page.navigate(url)?,
            _ => focus_address(app),
        }
        bring_up(&window);
        return Ok(());
    }
    let empty = url.is_none();
    let url = url.unwrap_or_else(|| Url::parse("about:blank").expect("a constant URL parses"));
    let directory = app.state::<Session>().root.dir().join("browser");
    if let Err(error) = std::fs::create_dir_all(&directory) {
        tracing::warn!("failed to make {}: {error}", directory.display());
    }
    let (menu, install) = window_menu(app)?;
    *lock(&app.state::<Browser>().install) = Some(install);
    let window = tauri::window::WindowBuilder::new(app, LABEL)
        .title(window_title(&url))
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
                if empty {
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

    let navigation_app = app.clone();
    let new_window_app = app.clone();
    let load_app = app.clone();
    let title_app = app.clone();
    let content = WebviewBuilder::new(PAGE, WebviewUrl::External(url))
        .data_directory(directory)
        .on_document_title_changed(move |_, title| {
            *lock(&title_app.state::<Browser>().title) = title;
        })
        .on_navigation(move |url| navigate(&navigation_app, url))
        .on_new_window(move |url, _| {
            // A link that opens a new window opens here (one browser window).
            if matches!(url.scheme(), "http" | "https") {
                go_later(&new_window_app, url);
            }
            NewWindowResponse::Deny
        })
        .on_page_load(move |_, payload| {
            let url = payload.url().clone();
            match payload.event() {
                PageLoadEvent::Started => started(&load_app, &url),
                PageLoadEvent::Finished => loaded(&load_app, url),
            }
        });
    window.add_child(
        content.auto_resize(),
        LogicalPosition::new(0.0, BAR_HEIGHT),
        LogicalSize::new(WIDTH, HEIGHT - BAR_HEIGHT),
    )?;
    bring_up(&window);
    Ok(())
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

/// Navigates the page later (not from inside a navigation decision).
fn go_later(app: &AppHandle, url: Url) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Some(page) = page(&app) {
            let _ = page.navigate(url);
        }
    });
}

/// A control of the bar was used.
fn act(app: &AppHandle, action: Action) {
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
    }
}

/// The install icon's menu, where the pointer is: `Install <name>…` or "Install page as app…".
fn install_menu(app: &AppHandle) {
    let Some(window) = app.get_window(LABEL) else { return };
    let (label, enabled) = match page_url(app) {
        Some(url) => install_label(&url, lock(&app.state::<Browser>().offer).as_ref()),
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

/// A page started loading: its address in the bar and the title, nothing offered yet.
fn started(app: &AppHandle, url: &Url) {
    *lock(&app.state::<Browser>().offer) = None;
    if let Some(window) = app.get_window(LABEL) {
        let _ = window.set_title(&window_title(url));
    }
    show_bar(app);
}

/// A page finished loading: then what it offers to install.
fn loaded(app: &AppHandle, url: Url) {
    started(app, &url);
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
        // Only if the window is still on that page.
        if page(&app).and_then(|page| page.url().ok()).as_ref() != Some(&url) {
            return;
        }
        tracing::info!(url = %url, manifest = offer.as_ref().is_some_and(|o| o.manifest), name = ?offer.as_ref().and_then(|o| o.name.clone()), "the browser read the page");
        *lock(&app.state::<Browser>().offer) = offer;
        show_bar(&app);
    });
}

/// Shows the current address and what it offers in the bar and the menu bar's install item.
fn show_bar(app: &AppHandle) {
    let browser = app.state::<Browser>();
    let installing = *lock(&browser.installing);
    let offer = lock(&browser.offer).clone();
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
    let state = json!({ "url": shown, "install": manifest.then_some(&label), "menu": enabled, "installing": installing });
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
        let offer = lock(&app.state::<Browser>().offer).clone();
        let start = offer.as_ref().map_or_else(|| url.to_string(), |offer| offer.url.clone());
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
