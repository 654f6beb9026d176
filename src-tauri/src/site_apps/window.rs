//! A site app's window: its page (`web.url`) in a webview of its own, on the data directory
//! [`super::storage`] gives it (cookies and storage that persist across restarts, apart by site,
//! never mixed with the workbench's), the app's title and icon, no address bar, navigation kept
//! inside `scope`, and the page's popups (sign-ins) as child windows sharing its storage.

use super::{Site, INJECTED};
use crate::dialogs;
use crate::window_places::Area;
use cowork_core::manifest::Display;
use cowork_sites::Scope;
use parking_lot::Mutex;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use tauri::webview::NewWindowResponse;
use tauri::{AppHandle, Manager, Url, WebviewUrl, WebviewWindow, WebviewWindowBuilder};
use tauri_plugin_dialog::{MessageDialogButtons, MessageDialogResult};
use tauri_plugin_opener::OpenerExt;

/// Width of a `sidebar` or `right` site app's window, docked beside the main window.
const DOCKED_WIDTH: f64 = 440.0;

/// Popup windows opened so far (their labels are `popup-<app>-<n>`).
static POPUPS: AtomicU32 = AtomicU32::new(0);

/// The injected script for `scope`: the template with the scope filled in.
pub fn script(scope: &Scope) -> String {
    let site = serde_json::json!({ "origin": scope.origin(), "path": scope.path() });
    INJECTED.replace("__COWORK_SITE__", &site.to_string())
}

/// Which web process a site app's window may run in.
pub enum Process {
    /// One of its own.
    Own,
    /// A process of its storage that other site apps share (joined, or started and offered:
    /// [`super::process`]); `origins` are the workspace's site apps', whose service workers may
    /// show notifications (a process started now lets them all).
    Shared { origins: Vec<String> },
}

/// Builds the window of `site` (label `label`) on the page `start` (`web.url`, or where it was
/// when it hibernated), storing its data under `data_directory`, in `process`; returns it and its
/// navigation policy.
pub async fn build(
    app: &AppHandle,
    site: &Site,
    start: &Url,
    label: &str,
    data_directory: std::path::PathBuf,
    process: Process,
) -> tauri::Result<(WebviewWindow, Arc<Navigation>)> {
    #[cfg(target_os = "linux")]
    if let Process::Shared { origins } = process {
        // Views live on the main thread: a shared process's view is taken, and the window built,
        // there.
        let (sent, built) = tokio::sync::oneshot::channel();
        let (main, site, start, label) =
            (app.clone(), site.clone(), start.clone(), label.to_string());
        app.run_on_main_thread(move || {
            let window = build_here(&main, &site, &start, &label, data_directory, Some(origins));
            let _ = sent.send(window);
        })?;
        return built.await.map_err(|_| tauri::Error::FailedToReceiveMessage)?;
    }
    #[cfg(not(target_os = "linux"))]
    let _ = process;
    build_here(app, site, start, label, data_directory, None)
}

/// [`build`], where it is called; `shared`: the origins of a process to join or offer (Linux, on
/// the main thread).
fn build_here(
    app: &AppHandle,
    site: &Site,
    start: &Url,
    label: &str,
    data_directory: std::path::PathBuf,
    shared: Option<Vec<String>>,
) -> tauri::Result<(WebviewWindow, Arc<Navigation>)> {
    let navigation = Arc::new(Navigation {
        app: app.clone(),
        label: label.to_string(),
        title: site.title.clone(),
        scope: site.scope.clone(),
        asked: Mutex::default(),
        last_in_scope: Mutex::new(start.clone()),
    });
    let page_load = navigation.clone();
    let policy = navigation.clone();
    let popup_app = app.clone();
    let popup_label = label.to_string();
    let popup_name = site.app.clone();
    let title_app = app.clone();
    let mut builder = WebviewWindowBuilder::new(app, label, WebviewUrl::External(start.clone()))
        .title(&site.title)
        // macOS has no data directory for WKWebView: a data store of its own, by identifier
        // (macOS 14 and later; before, the site shares the default store). Ignored elsewhere.
        .data_store_identifier(store_identifier(&data_directory))
        .data_directory(data_directory.clone())
        .initialization_script_for_all_frames(script(&site.scope))
        .on_navigation(move |url| navigation.decide(url))
        .on_page_load(move |window, payload| {
            if payload.event() == tauri::webview::PageLoadEvent::Finished {
                // The browser engine's waits for a load (a routine driving this window).
                if let Some(loads) = window.try_state::<crate::page_loads::PageLoads>() {
                    loads.finished();
                }
            }
            page_load.page_load(&window, payload)
        })
        .on_new_window(move |url, features| {
            popup(&popup_app, &popup_label, &popup_name, &url, features)
        })
        .on_document_title_changed(move |window, title| {
            super::bridge::title_changed(&title_app, window.label(), &title)
        });
    builder = match site.display {
        Display::Sidebar | Display::Right => {
            docked(app, builder, label, site.display == Display::Right)
        }
        _ => crate::window_places::place(app, label, builder, (1100.0, 780.0)),
    };
    if let Some(icon) = site.icon.as_deref().and_then(|path| {
        tauri::image::Image::from_path(path)
            .inspect_err(|error| tracing::debug!("no icon for {}: {error}", site.app))
            .ok()
    }) {
        builder = builder.icon(icon)?;
    }
    // Before the window's web process starts (it asks for its permissions then).
    #[cfg(target_os = "linux")]
    let offered = {
        let mut origins = WORKER_ORIGINS.lock();
        origins.insert(site.scope.origin().to_string());
        origins.extend(shared.iter().flatten().cloned());
        let joined = shared
            .as_ref()
            .and_then(|_| super::process::to_join(&data_directory, site.scope.origin()));
        match joined {
            Some((view, joined)) => {
                builder = builder.with_related_view(view);
                Some((data_directory.clone(), joined))
            }
            None => shared.map(|_| (data_directory.clone(), origins.clone())),
        }
    };
    #[cfg(not(target_os = "linux"))]
    let _ = shared;
    let window = builder.build()?;
    crate::crashed_pages::reload_after_crash(&window);
    #[cfg(target_os = "linux")]
    {
        super::keys::follow(&window);
        refuse_pages_outside_scope(&window, &policy);
        allow_worker_notifications(&window, app, start);
        if let Some((data_directory, origins)) = offered {
            let result = window.with_webview(move |platform| {
                super::process::offer(&platform.inner(), &data_directory, origins)
            });
            if let Err(error) = result {
                tracing::warn!("failed to offer a site app's web process to the next: {error}");
            }
        }
    }
    Ok((window, policy))
}

/// Linux: a response that would become the page itself (a script's navigation, a redirect, a
/// form) from outside the scope is refused before any of it is shown or run, and the page stays
/// where it was. The navigation question cannot do this (see [`Navigation`]); WebKitGTK's
/// response policy says which response is the page's own.
#[cfg(target_os = "linux")]
fn refuse_pages_outside_scope(window: &WebviewWindow, navigation: &Arc<Navigation>) {
    use gtk::glib::Cast;
    use webkit2gtk::{
        PolicyDecisionExt, PolicyDecisionType, ResponsePolicyDecision, ResponsePolicyDecisionExt,
        URIRequestExt, WebViewExt,
    };
    let navigation = navigation.clone();
    let result = window.with_webview(move |platform| {
        platform.inner().connect_decide_policy(move |_, decision, kind| {
            if kind != PolicyDecisionType::Response {
                return false;
            }
            let Some(response) = decision.downcast_ref::<ResponsePolicyDecision>() else {
                return false;
            };
            if !response.is_main_frame_main_resource() {
                return false;
            }
            let url = response.request().and_then(|request| request.uri());
            let Some(url) = url.and_then(|url| Url::parse(&url).ok()) else { return false };
            if !navigation.leaves_scope(&url) {
                return false;
            }
            tracing::info!(app = %navigation.label, %url, "the page's answer from outside the app's scope was refused");
            decision.ignore();
            navigation.ask(&url);
            true
        });
    });
    if let Err(error) = result {
        tracing::warn!("failed to watch the answers of a site app's page: {error}");
    }
}

/// Origins whose pages' service workers may show notifications through WebKit: every site app's
/// opened in this process (Linux).
#[cfg(target_os = "linux")]
static WORKER_ORIGINS: Mutex<std::collections::BTreeSet<String>> =
    Mutex::new(std::collections::BTreeSet::new());

/// Linux: a site's service worker may show notifications through WebKit, on the site's origin
/// (the shell asks the page to, for a notification the hub gave a banner: only a banner WebKit
/// showed itself fires the worker's `notificationclick` when clicked; see
/// `notifications::engine`). WebKit hands a web process its permissions once, when the process
/// starts, asking its context then: a context answers with every site app's origin (contexts are
/// shared, and an answer replaces the last). The first window of a context started its process
/// before the context could answer, so its page starts again in a new one.
#[cfg(target_os = "linux")]
fn allow_worker_notifications(window: &WebviewWindow, app: &AppHandle, start: &Url) {
    use webkit2gtk::{SecurityOrigin, WebContext, WebContextExt, WebViewExt};
    thread_local! {
        /// The contexts that answer already.
        static ANSWERING: std::cell::RefCell<Vec<gtk::glib::WeakRef<WebContext>>> =
            std::cell::RefCell::default();
    }
    fn answer(context: &WebContext) {
        let origins: Vec<SecurityOrigin> =
            WORKER_ORIGINS.lock().iter().map(|origin| SecurityOrigin::for_uri(origin)).collect();
        context.initialize_notification_permissions(&origins.iter().collect::<Vec<_>>(), &[]);
    }
    let (app, start) = (app.clone(), start.clone());
    let result = window.with_webview(move |platform| {
        let view = platform.inner();
        let Some(context) = view.context() else { return };
        let answering = ANSWERING.with_borrow_mut(|answering| {
            answering.retain(|each| each.upgrade().is_some());
            let known = answering.iter().any(|each| each.upgrade().as_ref() == Some(&context));
            if !known {
                let weak = gtk::glib::WeakRef::new();
                weak.set(Some(&context));
                answering.push(weak);
            }
            known
        });
        // Without the shell following WebKit's banners, they would pass the hub: no permission.
        if !answering && crate::hooks::worker_banners(&app) {
            context.connect_initialize_notification_permissions(answer);
            answer(&context);
            view.terminate_web_process();
            view.load_uri(start.as_str());
        }
    });
    if let Err(error) = result {
        tracing::warn!("failed to let a site app's service worker show notifications: {error}");
    }
}

/// A WKWebView data store identifier for a site app's data directory: the same across restarts
/// and builds (FNV-1a, two 64-bit halves with different offsets; not `DefaultHasher`, which may
/// change between Rust releases and would lose the store).
pub fn store_identifier(data_directory: &std::path::Path) -> [u8; 16] {
    let fnv = |offset: u64| {
        data_directory
            .to_string_lossy()
            .bytes()
            .fold(offset, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3))
    };
    let mut identifier = [0; 16];
    identifier[..8].copy_from_slice(&fnv(0xcbf2_9ce4_8422_2325).to_be_bytes());
    identifier[8..].copy_from_slice(&fnv(0x6c62_272e_07bb_0142).to_be_bytes());
    identifier
}

/// A `sidebar` or `right` site app: a window as tall as the main window, beside it (left or right).
fn docked<'a>(
    app: &AppHandle,
    builder: WebviewWindowBuilder<'a, tauri::Wry, AppHandle>,
    label: &str,
    right: bool,
) -> WebviewWindowBuilder<'a, tauri::Wry, AppHandle> {
    let Some(main) = app.get_webview_window(crate::main_window::MAIN) else {
        return builder.inner_size(DOCKED_WIDTH, 780.0);
    };
    if main.is_maximized().unwrap_or(false) {
        if let Some(side) = make_room(app, &main, label, right) {
            return builder.inner_size(side.width, side.height).position(side.x, side.y);
        }
    }
    let scale = main.scale_factor().unwrap_or(1.0);
    // The inner geometry: a window manager's frame is outside it (and without one, as under
    // Xvfb, GTK reports a 1×1 outer size).
    let (Ok(position), Ok(size)) = (main.inner_position(), main.inner_size()) else {
        return builder.inner_size(DOCKED_WIDTH, 780.0);
    };
    let position = position.to_logical::<f64>(scale);
    let size = size.to_logical::<f64>(scale);
    // Beside the main window, but on its screen: where there is no room it overlaps the main
    // window's edge rather than leave the screen.
    let screen = main.current_monitor().ok().flatten().map(|monitor| {
        let origin = monitor.position().to_logical::<f64>(scale);
        let extent = monitor.size().to_logical::<f64>(scale);
        (origin.x, origin.x + extent.width)
    });
    let x = if right { position.x + size.width } else { position.x - DOCKED_WIDTH };
    let x = match screen {
        Some((left, right_edge)) => x.min(right_edge - DOCKED_WIDTH).max(left),
        None => x.max(0.0),
    };
    tracing::debug!(x, y = position.y, height = size.height, "a docked site window's place");
    builder.inner_size(DOCKED_WIDTH, size.height).position(x, position.y)
}

/// A maximised main window leaves no room beside it: it is un-maximised to the monitor's work
/// area less the docked window's width, and the docked window (`label`) takes that strip (on the
/// left for `sidebar`, the right for `right`). Where the docked window goes, or `None` when the
/// monitor is not known.
fn make_room(app: &AppHandle, main: &WebviewWindow, label: &str, right: bool) -> Option<Area> {
    let scale = main.scale_factor().unwrap_or(1.0);
    let monitor = main.current_monitor().ok().flatten()?;
    let work = monitor.work_area();
    let position = work.position.to_logical::<f64>(scale);
    let size = work.size.to_logical::<f64>(scale);
    let work = Area { x: position.x, y: position.y, width: size.width, height: size.height };
    let (room, side) = beside(work, DOCKED_WIDTH, right, frame(main));
    let _ = main.unmaximize();
    place(main, room);
    tracing::info!(?room, ?side, "the maximised main window made room for a docked site window");
    // A window manager frames a maximised window more thinly (no borders): once it has put the
    // whole frame back, both windows are fitted again, frames and all, inside the work area.
    let (app, main, label) = (app.clone(), main.clone(), label.to_string());
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let (room, side) = beside(work, DOCKED_WIDTH, right, frame(&main));
        place(&main, room);
        if let Some(docked) = app.get_webview_window(&label) {
            place(&docked, side);
        }
    });
    Some(side)
}

/// The width and height a window manager's frame adds to `window` (0 without one).
fn frame(window: &WebviewWindow) -> (f64, f64) {
    let scale = window.scale_factor().unwrap_or(1.0);
    match (window.outer_size(), window.inner_size()) {
        (Ok(outer), Ok(inner)) if outer.width >= inner.width && outer.height >= inner.height => {
            let (outer, inner) = (outer.to_logical::<f64>(scale), inner.to_logical::<f64>(scale));
            (outer.width - inner.width, outer.height - inner.height)
        }
        _ => (0.0, 0.0),
    }
}

/// Puts `window` at `area`'s place, `area`'s size inside.
fn place(window: &WebviewWindow, area: Area) {
    let _ = window.set_position(tauri::LogicalPosition::new(area.x, area.y));
    let _ = window.set_size(tauri::LogicalSize::new(area.width, area.height));
}

/// The work area `work` shared between the main window and a docked window `width` wide (on the
/// right when `right`), each given its place and its inner size (less the window manager's
/// `frame`: extra width and height): `(main, docked)`.
fn beside(work: Area, width: f64, right: bool, frame: (f64, f64)) -> (Area, Area) {
    let height = work.height - frame.1;
    let main_x = if right { work.x } else { work.x + width };
    let docked_x = if right { work.x + work.width - width } else { work.x };
    let main = Area { x: main_x, y: work.y, width: work.width - width - frame.0, height };
    let docked = Area { x: docked_x, y: work.y, width: width - frame.0, height };
    (main, docked)
}

/// Where the app's window may go.
///
/// WebKitGTK asks the same question (`on_navigation`) for the page and for every frame in it, and
/// does not say which: refusing every address outside the scope there would also refuse a site's
/// third-party frames (sign-in, captcha, embeds) and ask about each. So a frame may load anything
/// http(s), and the page itself is watched where only the page is reported: on Linux its answer
/// from outside the scope is refused ([`refuse_pages_outside_scope`]), elsewhere the moment it
/// starts loading one (`on_page_load`) the window goes back to the app's last page in scope; the
/// person is asked about the browser.
pub struct Navigation {
    app: AppHandle,
    label: String,
    title: String,
    scope: Scope,
    /// Addresses being asked about (one dialog per address at a time).
    asked: Mutex<HashSet<String>>,
    /// The page's last address inside the scope: where the window goes back to.
    last_in_scope: Mutex<Url>,
}

impl Navigation {
    /// Inside `scope`, the browser's own `about:`, `blob:`, `data:` pages, and (for frames) any
    /// http(s) address: followed. `mailto:` and other schemes are not (a `mailto:` link is offered
    /// to the system).
    fn decide(self: &Arc<Self>, url: &Url) -> bool {
        if self.scope.contains(url)
            || matches!(url.scheme(), "about" | "blob" | "data" | "http" | "https")
        {
            return true;
        }
        tracing::info!(app = %self.label, %url, "a navigation to a scheme the app's window does not open was refused");
        if url.scheme() == "mailto" {
            self.ask(url);
        }
        false
    }

    /// Whether the page at `url` would be outside the app (an http(s) address outside the scope).
    fn leaves_scope(&self, url: &Url) -> bool {
        matches!(url.scheme(), "http" | "https") && !self.scope.contains(url)
    }

    /// The page (not a frame) started or finished loading. Its addresses in scope are kept, to go
    /// back to. A page outside the scope is taken back: on Linux only one that finished loading
    /// all the same (its answer is refused before that, [`refuse_pages_outside_scope`]; a load
    /// that was refused has started at the address outside), elsewhere as soon as it starts.
    fn page_load(
        self: &Arc<Self>,
        window: &WebviewWindow,
        payload: tauri::webview::PageLoadPayload<'_>,
    ) {
        use tauri::webview::PageLoadEvent;
        let url = payload.url();
        if self.scope.contains(url) {
            *self.last_in_scope.lock() = url.clone();
            return;
        }
        let outside = match payload.event() {
            PageLoadEvent::Started => !cfg!(target_os = "linux"),
            PageLoadEvent::Finished => cfg!(target_os = "linux"),
        };
        if outside && self.leaves_scope(url) {
            self.take_back(window, url);
        }
    }

    /// The page went to `url`, outside the scope: back to its last page in scope, and the person
    /// is asked about the browser.
    fn take_back(self: &Arc<Self>, window: &WebviewWindow, url: &Url) {
        let back = self.last_in_scope.lock().clone();
        tracing::info!(app = %self.label, %url, back = %back, "the page left the app's scope: not followed, back to the app");
        let window = window.clone();
        tauri::async_runtime::spawn(async move {
            if let Err(error) = window.navigate(back) {
                tracing::warn!("failed to take {} back to its page: {error}", window.label());
            }
        });
        self.ask(url);
    }

    /// The page's last address inside the scope.
    pub fn last_in_scope(&self) -> Url {
        self.last_in_scope.lock().clone()
    }

    /// Asks about `url`, once at a time per address (asked again after the answer): a link the
    /// person clicked (the injected script cancels it and reports it), or a page left behind.
    pub fn ask(self: &Arc<Self>, url: &Url) {
        if !self.asked.lock().insert(url.to_string()) {
            return;
        }
        let (navigation, url) = (self.clone(), url.clone());
        tauri::async_runtime::spawn(async move {
            offer_browser(&navigation.app, &navigation.label, &navigation.title, &url).await;
            navigation.asked.lock().remove(url.as_str());
        });
    }
}

/// `<App> went to a page outside the app`: the address, and Open in Browser or Stay.
async fn offer_browser(app: &AppHandle, label: &str, title: &str, url: &Url) {
    let window = app.get_webview_window(label);
    let question = format!("{title} went to a page outside the app");
    let message = format!("{url}\n\nIt is not shown in {title}'s window. Open it in your browser?");
    let buttons = MessageDialogButtons::OkCancelCustom("Open in Browser".into(), "Stay".into());
    let answer = dialogs::ask_over(app, window.as_ref(), &question, &message, buttons).await;
    if matches!(&answer, MessageDialogResult::Custom(label) if label == "Open in Browser")
        || matches!(answer, MessageDialogResult::Ok)
    {
        if let Err(error) = app.opener().open_url(url.as_str(), None::<&str>) {
            tracing::warn!("failed to open {url} in the browser: {error}");
        }
    }
}

/// A window the page opens itself (`window.open`, `target=_blank`): a sign-in popup, kept inside
/// the app as a child window that shares the page's web process and storage (WebKitGTK: a
/// webview related to the page's), so the login it completes is the app's. It may go anywhere a
/// sign-in goes; it gets no injected script and no command.
fn popup(
    app: &AppHandle,
    parent_label: &str,
    app_name: &str,
    url: &Url,
    features: tauri::webview::NewWindowFeatures,
) -> NewWindowResponse<tauri::Wry> {
    if !matches!(url.scheme(), "http" | "https" | "about" | "blob" | "data") {
        return NewWindowResponse::Deny;
    }
    let label = format!("popup-{app_name}-{}", POPUPS.fetch_add(1, Ordering::Relaxed) + 1);
    #[cfg(target_os = "linux")]
    let related = features.opener().webview.clone();
    let mut builder = WebviewWindowBuilder::new(
        app,
        &label,
        WebviewUrl::External("about:blank".parse().expect("a constant URL parses")),
    )
    .title(url.host_str().unwrap_or("Sign in"))
    .inner_size(520.0, 680.0)
    .window_features(features)
    .on_document_title_changed(|window, title| {
        let _ = window.set_title(&title);
    });
    #[cfg(target_os = "linux")]
    {
        builder = builder.with_related_view(related);
    }
    if let Some(parent) = app.get_webview_window(parent_label) {
        builder = match builder.parent(&parent) {
            Ok(builder) => builder,
            Err(error) => {
                tracing::warn!("failed to make the popup a child of {parent_label}: {error}");
                return NewWindowResponse::Deny;
            }
        };
    }
    match builder.build() {
        Ok(window) => {
            tracing::info!(app = %app_name, %url, popup = %label, "a popup opened inside the app");
            NewWindowResponse::Create { window }
        }
        Err(error) => {
            tracing::warn!("failed to open {app_name}'s popup for {url}: {error}");
            NewWindowResponse::Deny
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORK: Area = Area { x: 0.0, y: 32.0, width: 1440.0, height: 868.0 };

    #[test]
    fn a_maximised_main_window_shares_the_work_area_with_a_docked_one() {
        // `sidebar`: on the left, the main window the rest; nothing overlaps, nothing is lost.
        let (main, side) = beside(WORK, 440.0, false, (0.0, 0.0));
        assert_eq!(side, Area { x: 0.0, y: 32.0, width: 440.0, height: 868.0 });
        assert_eq!(main, Area { x: 440.0, y: 32.0, width: 1000.0, height: 868.0 });
        // `right`: on the right.
        let (main, side) = beside(WORK, 440.0, true, (0.0, 0.0));
        assert_eq!(main, Area { x: 0.0, y: 32.0, width: 1000.0, height: 868.0 });
        assert_eq!(side, Area { x: 1000.0, y: 32.0, width: 440.0, height: 868.0 });
    }

    #[test]
    fn the_window_managers_frame_fits_inside_the_share() {
        let (main, side) = beside(WORK, 440.0, false, (2.0, 24.0));
        assert_eq!((main.width, main.height), (998.0, 844.0));
        assert_eq!((side.width, side.height), (438.0, 844.0));
        assert_eq!(main.x, side.x + 440.0);
    }
}
