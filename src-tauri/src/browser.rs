//! The in-app browser: a window (labelled `browser`) to find a site and install it as a site app
//! (reference page 12, "Site apps"; `cowork app install` does the same from the command line).
//!
//! The page is the window's only webview, with a data directory of its own (`<root>/browser/`)
//! and no IPC (no capability names the window, and every command checks its caller's label). The
//! address shows in the window's title; the window's menu bar is its toolbar: Go › Open Location…
//! (Ctrl+L: a small address page with the current address filled in), Back, Forward, Reload, and
//! the install item. After each page load the shell reads the page and its web app manifest
//! itself ([`cowork_sites::probe`], under the install's address rules: the page cannot answer,
//! it has no IPC), and the item becomes "Install <name>…" (a manifest with a name) or "Install
//! page as app…" (any other https page, or http on this computer), else stays disabled. Choosing
//! it runs [`cowork_sites::install`] into the active workspace, shows the steps in the item, then
//! opens the new site app; a failure is a native dialog with the install's message and hint.

use crate::shell::Shell;
use crate::{dialogs, site_apps};
use cowork_sites::{InstallOptions, Offer, Progress};
use std::sync::Mutex;
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::webview::{NewWindowResponse, PageLoadEvent};
use tauri::{AppHandle, Manager, Url, WebviewUrl, WebviewWindow, WebviewWindowBuilder, Wry};

/// The browser window's label.
pub const LABEL: &str = "browser";

/// Where the address page's form goes: never resolved (`.invalid`), always caught by the
/// navigation handler, which opens what was typed.
const GO_HOST: &str = "go.cowork.invalid";

/// The browser window's menu items.
pub mod id {
    pub const LOCATION: &str = "browser-location";
    pub const BACK: &str = "browser-back";
    pub const FORWARD: &str = "browser-forward";
    pub const RELOAD: &str = "browser-reload";
    pub const INSTALL: &str = "browser-install";
    pub const CLOSE: &str = "browser-close";
}

/// The install item's label when there is nothing to install.
const NOTHING: &str = "Install page as app…";

/// The browser's state (managed).
#[derive(Default)]
pub struct Browser {
    /// The install item of the open window's menu.
    install: Mutex<Option<MenuItem<Wry>>>,
    /// What the current page offers (`None` while it is read, or for a page that offers nothing).
    offer: Mutex<Option<Offer>>,
    /// An install is running (the item says what it does).
    installing: Mutex<bool>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
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
    let has_scheme = typed.split_once("://").is_some_and(|(scheme, _)| !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)));
    let text = if has_scheme {
        typed.to_owned()
    } else {
        let host = typed.split(['/', '?', '#']).next().unwrap_or_default();
        let host = host.rsplit_once(':').filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit())).map_or(host, |(name, _)| name);
        let local = matches!(host, "localhost" | "127.0.0.1" | "[::1]");
        format!("{}://{typed}", if local { "http" } else { "https" })
    };
    let url = Url::parse(&text).map_err(|error| format!("\"{typed}\" is not a web address ({error})"))?;
    match url.scheme() {
        "http" | "https" if url.host_str().is_some_and(|host| !host.is_empty()) => Ok(url),
        "http" | "https" => Err(format!("\"{typed}\" names no site")),
        other => Err(format!("the browser opens only http and https addresses, not {other}:")),
    }
}

/// Whether any page at `url` may be installed by address alone (install's own rules decide the
/// rest): https, or http on this computer.
fn installable(url: &Url) -> bool {
    url.scheme() == "https" || (url.scheme() == "http" && matches!(url.host_str(), Some("localhost" | "127.0.0.1" | "[::1]")))
}

/// The install item's label and whether it is enabled, for the page at `url` and what it offers.
pub fn install_label(url: &Url, offer: Option<&Offer>) -> (String, bool) {
    match offer {
        Some(Offer { manifest: true, name: Some(name), .. }) => (format!("Install {name}…"), true),
        _ => (NOTHING.to_owned(), installable(url)),
    }
}

/// The window's title: the page's address (the window has no address bar).
pub fn window_title(url: &Url) -> String {
    if is_location_page(url) {
        return "Open Location — Cowork Browser".to_owned();
    }
    format!("{url} — Cowork Browser")
}

/// The address page, as a `data:` URL, with `current` filled in.
fn location_page(current: &str) -> Url {
    let value = current.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;");
    let html = format!(
        "<!doctype html><meta charset=utf-8><title>Open Location</title><style>body{{font:15px system-ui,sans-serif;margin:48px auto;max-width:640px;padding:0 16px}}input{{width:100%;box-sizing:border-box;font:inherit;padding:8px}}</style>\
<h1 style=\"font-size:18px\">Open a web page</h1><form action=\"https://{GO_HOST}/\" method=get><input name=q id=q autofocus placeholder=\"https://example.com/\" value=\"{value}\"></form>\
<p style=\"color:#666\">Press Enter to go. http and https only. When the page can be installed, the menu's Install item names it.</p><script>document.getElementById('q').select()</script>"
    );
    let mut url = Url::parse("data:text/html;charset=utf-8,").expect("a constant URL parses");
    url.set_path(&format!("text/html;charset=utf-8,{}", percent(&html)));
    url
}

fn is_location_page(url: &Url) -> bool {
    url.scheme() == "data" && url.as_str().contains(GO_HOST)
}

/// Percent-encodes everything but unreserved characters (a `data:` URL's body).
fn percent(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The address typed into the address page's form (`https://go.cowork.invalid/?q=…`), if `url` is that.
fn typed(url: &Url) -> Option<String> {
    (url.host_str() == Some(GO_HOST)).then(|| url.query_pairs().find(|(key, _)| key == "q").map(|(_, value)| value.into_owned()).unwrap_or_default())
}

fn window_menu(app: &AppHandle) -> tauri::Result<(Menu<Wry>, MenuItem<Wry>)> {
    let install = MenuItem::with_id(app, id::INSTALL, NOTHING, false, Some("CmdOrCtrl+Shift+A"))?;
    let go = Submenu::with_items(
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
    Ok((Menu::with_items(app, &[&go])?, install))
}

/// Opens the browser window (or brings it up) on `url`, else on the address page.
pub fn open(app: &AppHandle, url: Option<Url>) -> tauri::Result<()> {
    let url = url.unwrap_or_else(|| location_page(""));
    if let Some(window) = app.get_webview_window(LABEL) {
        window.navigate(url)?;
        bring_up(&window);
        return Ok(());
    }
    let directory = app.state::<Shell>().root.dir().join("browser");
    if let Err(error) = std::fs::create_dir_all(&directory) {
        tracing::warn!("failed to make {}: {error}", directory.display());
    }
    let (menu, install) = window_menu(app)?;
    *lock(&app.state::<Browser>().install) = Some(install);
    let navigation_app = app.clone();
    let new_window_app = app.clone();
    let load_app = app.clone();
    let window = WebviewWindowBuilder::new(app, LABEL, WebviewUrl::External(url.clone()))
        .title(window_title(&url))
        .inner_size(1100.0, 780.0)
        .menu(menu)
        .data_directory(directory)
        .on_navigation(move |url| navigate(&navigation_app, url))
        .on_new_window(move |url, _| {
            // A link that opens a new window opens here (one browser window).
            if matches!(url.scheme(), "http" | "https") {
                go_later(&new_window_app, url);
            }
            NewWindowResponse::Deny
        })
        .on_page_load(move |window, payload| {
            if payload.event() == PageLoadEvent::Finished {
                loaded(&load_app, &window, payload.url().clone());
            }
        })
        .build()?;
    bring_up(&window);
    Ok(())
}

fn bring_up(window: &WebviewWindow) {
    let _ = window.show();
    let _ = window.unminimize();
    let _ = window.set_focus();
}

/// The page may go to http(s) pages (and its own `about:`, `blob:`, `data:` frames); the address
/// page's form opens what was typed; `mailto:` goes to the system after the trust prompt.
fn navigate(app: &AppHandle, url: &Url) -> bool {
    if let Some(text) = typed(url) {
        match normalize(&text) {
            Ok(target) => go_later(app, target),
            Err(message) => dialogs::error(app, "Cowork Browser cannot open that", &message),
        }
        return false;
    }
    match url.scheme() {
        "http" | "https" | "about" | "blob" | "data" => true,
        "mailto" => {
            crate::external::open_later(app, url.as_str());
            false
        }
        _ => false,
    }
}

/// Navigates the window later (not from inside a navigation decision).
fn go_later(app: &AppHandle, url: Url) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Some(window) = app.get_webview_window(LABEL) {
            let _ = window.navigate(url);
        }
    });
}

/// A page finished loading: its address in the title, then what it offers to install.
fn loaded(app: &AppHandle, window: &WebviewWindow, url: Url) {
    let _ = window.set_title(&window_title(&url));
    let browser = app.state::<Browser>();
    *lock(&browser.offer) = None;
    if !*lock(&browser.installing) {
        show_item(app, &url, None);
    }
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
        let current = app.get_webview_window(LABEL).and_then(|window| window.url().ok());
        if current.as_ref() != Some(&url) {
            return;
        }
        tracing::info!(url = %url, manifest = offer.as_ref().is_some_and(|o| o.manifest), name = ?offer.as_ref().and_then(|o| o.name.clone()), "the browser read the page");
        let browser = app.state::<Browser>();
        *lock(&browser.offer) = offer.clone();
        if !*lock(&browser.installing) {
            show_item(&app, &url, offer.as_ref());
        }
    });
}

/// Runs the install on a thread of its own (its future holds the progress callback, which is not
/// `Send`), showing each step in the install item.
async fn run_install(app: &AppHandle, root: cowork_core::paths::Root, workspace: std::path::PathBuf, start: String) -> Result<cowork_sites::Installed, String> {
    let progress_app = app.clone();
    let task = tauri::async_runtime::spawn_blocking(move || {
        let mut progress = move |step: Progress| {
            let text = match step {
                Progress::Fetching(_) => "Installing… (reading the page)",
                Progress::ReadingManifest => "Installing… (reading its manifest)",
                Progress::FetchingIcon => "Installing… (fetching its icon)",
            };
            set_item(&progress_app, text, false);
        };
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|error| format!("failed to start the install: {error}"))?;
        runtime.block_on(cowork_sites::install(&root, &workspace, &start, &InstallOptions::default(), &mut progress)).map_err(|error| install_message(&error))
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

fn show_item(app: &AppHandle, url: &Url, offer: Option<&Offer>) {
    let (text, enabled) = install_label(url, offer);
    set_item(app, &text, enabled);
}

fn set_item(app: &AppHandle, text: &str, enabled: bool) {
    let item = lock(&app.state::<Browser>().install).clone();
    if let Some(item) = item {
        let _ = item.set_text(text);
        let _ = item.set_enabled(enabled);
    }
}

/// An item of the browser window's menu was chosen; `false` if `chosen` is not one.
pub fn on_menu(app: &AppHandle, chosen: &str) -> bool {
    let Some(window) = app.get_webview_window(LABEL) else { return chosen.starts_with("browser-") };
    match chosen {
        id::LOCATION => {
            let current = window.url().ok().filter(|url| matches!(url.scheme(), "http" | "https")).map(String::from).unwrap_or_default();
            let _ = window.navigate(location_page(&current));
        }
        id::BACK => {
            let _ = window.eval("history.back()");
        }
        id::FORWARD => {
            let _ = window.eval("history.forward()");
        }
        id::RELOAD => {
            let _ = window.eval("location.reload()");
        }
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
    let Some(url) = app.get_webview_window(LABEL).and_then(|window| window.url().ok()) else { return };
    if !matches!(url.scheme(), "http" | "https") {
        return;
    }
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
        let shell = app.state::<Shell>();
        let workspace = shell.active();
        let offer = lock(&app.state::<Browser>().offer).clone();
        let start = offer.as_ref().map_or_else(|| url.to_string(), |offer| offer.url.clone());
        set_item(&app, "Installing…", false);
        let result = run_install(&app, shell.root.clone(), workspace.clone(), start).await;
        *lock(&app.state::<Browser>().installing) = false;
        show_item(&app, &url, offer.as_ref());
        match result {
            Ok(installed) => {
                tracing::info!(app = %installed.name, url = %installed.url, workspace = %workspace.display(), "installed a site app from the browser");
                // The registry follows the new folder within a moment; the shell reads it itself.
                if let Err(error) = site_apps::open(&app, &installed.name).await {
                    dialogs::error(&app, "Cowork Studio installed the app but could not open it", &error.to_string());
                }
            }
            Err(message) => dialogs::error(&app, "Cowork Studio could not install the page", &message),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn typed_text_becomes_an_http_or_https_address() {
        assert_eq!(normalize("example.com").unwrap().as_str(), "https://example.com/");
        assert_eq!(normalize("  example.com/a?b=c ").unwrap().as_str(), "https://example.com/a?b=c");
        assert_eq!(normalize("https://web.whatsapp.com/").unwrap().as_str(), "https://web.whatsapp.com/");
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
        let offer = |manifest: bool, name: Option<&str>| Offer { url: page.to_string(), manifest, name: name.map(str::to_owned) };
        assert_eq!(install_label(&page, Some(&offer(true, Some("Chat")))), ("Install Chat…".to_owned(), true));
        assert_eq!(install_label(&page, Some(&offer(true, None))), ("Install page as app…".to_owned(), true));
        assert_eq!(install_label(&page, Some(&offer(false, None))), ("Install page as app…".to_owned(), true));
        assert_eq!(install_label(&page, None), ("Install page as app…".to_owned(), true));
        assert_eq!(install_label(&url("http://127.0.0.1:4000/"), None), ("Install page as app…".to_owned(), true));
        assert_eq!(install_label(&url("http://example.com/"), None), ("Install page as app…".to_owned(), false));
    }

    #[test]
    fn the_address_page_sends_what_was_typed_to_the_shell_only() {
        let page = location_page("https://a.example/?x=\"<b>&y");
        assert!(is_location_page(&page));
        assert!(!page.as_str().contains('"'));
        assert_eq!(typed(&url("https://go.cowork.invalid/?q=example.com%2Fa")).as_deref(), Some("example.com/a"));
        assert_eq!(typed(&url("https://example.com/?q=x")), None);
        assert_eq!(window_title(&url("https://a.example/b")), "https://a.example/b — Cowork Browser");
    }
}
