//! The browser engine: drives the in-app browser's tabs and site apps' windows for `ctx.browser`
//! and `cowork mcp-browser` (issue 43). WebKitGTK has no DevTools protocol, so the shell does it
//! itself:
//!
//! - the page half (`engine.js`) is installed in the page's own world on the first request and
//!   keeps a node↔ref map for the life of the page: snapshot, find, read, where a node is and
//!   whether a person could act on it; each call runs through WebKit's
//!   `call_async_javascript_function` and answers JSON;
//! - input is real (`input.rs`): clicks at the node's centre after it is scrolled into view, and
//!   key presses, as GDK events through GTK's own dispatch — the page sees trusted events;
//!   `fill` inserts the value as an editing command (`insertText`: trusted `beforeinput`/`input`
//!   events, the way a paste arrives);
//! - every request names what it acts on ([`Target`]); a page that navigates away, a stale ref, a
//!   closed tab and a timeout each answer their own error name.
//!
//! The daemon's requests arrive on the desktop channel (`ShellRequest::Browser`) and are answered
//! on `POST /api/desktop/browser/answer` ([`ShellAnswer`]).

use super::{input, tab_list, tab_webview, TabView};
use crate::site_apps;
use cowork_wire::browser::{
    Action, ActionResult, BrowserError, BrowserErrorName as Name, Evaluated, Found, Match,
    MouseButton, Page, Read, RefState, ShellBrowserRequest, ShellOutcome, Snapshot, Tab, Tabs,
    Target, WaitCondition,
};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tauri::{AppHandle, Manager, Url, Webview};

/// The page half.
const SCRIPT: &str = include_str!("engine.js");

/// How often a wait looks again.
const POLL: Duration = Duration::from_millis(100);
/// How long the network must be quiet for `waitFor networkIdle`.
pub const NETWORK_IDLE: Duration = Duration::from_millis(500);

const SNAPSHOT_AGAIN: &str = "take a new snapshot (or find) on the page as it is now";

fn error(name: Name, message: impl Into<String>, hint: &str) -> BrowserError {
    BrowserError::new(name, message).with_hint(hint)
}

/// What an action acts on.
#[derive(Clone)]
struct Driven {
    webview: Webview,
    /// The tab's id (none: a site app's window).
    tab: Option<u64>,
    app: Option<String>,
}

impl Driven {
    fn label(&self) -> String {
        match (&self.app, self.tab) {
            (Some(app), _) => format!("the site app {app}'s window"),
            (None, Some(id)) => format!("tab {id}"),
            (None, None) => "the page".to_owned(),
        }
    }
}

/// The page each tab or site app window showed when its last input began (a click, typing, a
/// key, a check), by webview label: `waitFor({ navigation })` counts from there, so a navigation
/// that input caused before the wait began (a link the click already followed) still counts. The
/// wait takes it. Marks of closed tabs and windows go at the next mark.
#[derive(Default)]
pub struct BeforeInput(std::sync::Mutex<std::collections::HashMap<String, String>>);

impl BeforeInput {
    fn mark(&self, driven: &Driven, page: &str) {
        let mut marks = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let app = driven.webview.app_handle();
        marks.retain(|label, _| app.get_webview(label).is_some());
        marks.insert(driven.webview.label().to_owned(), page.to_owned());
    }

    fn take(&self, driven: &Driven) -> Option<String> {
        let mut marks = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        marks.remove(driven.webview.label())
    }
}

/// The page before input that may navigate, marked for `waitFor({ navigation })`.
async fn before_input(driven: &Driven, deadline: Instant) -> Result<Info, BrowserError> {
    let before = info(driven, deadline).await?;
    driven.webview.state::<BeforeInput>().mark(driven, &before.id);
    Ok(before)
}

/// Runs one request: its result, or its named error.
pub async fn run(app: &AppHandle, request: &ShellBrowserRequest) -> ShellOutcome {
    let deadline = Instant::now() + Duration::from_millis(request.timeout_ms.max(1));
    match act(app, &request.target, &request.action, deadline, &request.sites).await {
        Ok(Outcome::Done(result)) => ShellOutcome::Done { result },
        Ok(Outcome::Consent { site, url }) => ShellOutcome::ConsentNeeded { site, url },
        Err(error) => ShellOutcome::Failed { error },
    }
}

enum Outcome {
    Done(ActionResult),
    Consent { site: String, url: String },
}

async fn act(
    app: &AppHandle,
    target: &Target,
    action: &Action,
    deadline: Instant,
    sites: &[String],
) -> Result<Outcome, BrowserError> {
    // Browser-wide actions first.
    match action {
        Action::Tabs {} => return Ok(Outcome::Done(ActionResult::Tabs(tabs(app)))),
        Action::Open { url } => {
            let url = match url {
                Some(url) => Some(address(url)?),
                None => None,
            };
            if let Some(url) = &url {
                if let Some(consent) = consent(sites, url) {
                    return Ok(consent);
                }
            }
            let Some(url) = url else {
                super::open(app, None).map_err(unavailable)?;
                let driven = resolve(app, &Target::default())?;
                return Ok(Outcome::Done(ActionResult::Page(Page {
                    tab: tab_of(app, &driven),
                    navigated: false,
                })));
            };
            if app.get_window(super::LABEL).is_none() {
                super::open(app, Some(url)).map_err(unavailable)?;
            } else {
                super::new_tab(app, Some(url)).map_err(unavailable)?;
            }
            let driven = resolve(app, &Target::default())?;
            wait_loaded(&driven, None, deadline).await?;
            return Ok(Outcome::Done(ActionResult::Page(Page {
                tab: tab_of(app, &driven),
                navigated: true,
            })));
        }
        _ => {}
    }
    let driven = resolve(app, target)?;
    let url = driven.webview.url().map_err(|_| closed(&driven))?;
    if let Action::Navigate { url: to } = action {
        let to = address(to)?;
        if let Some(consent) = consent(sites, &to) {
            return Ok(consent);
        }
        let before = info(&driven, deadline).await.ok().map(|page| page.id);
        driven.webview.navigate(to).map_err(|_| closed(&driven))?;
        wait_loaded(&driven, before.as_deref(), deadline).await?;
        return Ok(page(app, &driven, true));
    }
    if let Some(consent) = consent(sites, &url) {
        return Ok(consent);
    }
    let result = match action {
        Action::Snapshot { node, cursor } => {
            let out = call(&driven, "snapshot", json!({ "ref": node, "cursor": cursor }), deadline)
                .await?;
            ActionResult::Snapshot(Snapshot {
                tab: tab_of(app, &driven),
                text: text(&out, "text"),
                cursor: out.get("next").and_then(Value::as_str).map(str::to_owned),
            })
        }
        Action::Find { role, name, text: wanted, exact } => {
            let out = call(
                &driven,
                "find",
                json!({ "role": role, "name": name, "text": wanted, "exact": exact }),
                deadline,
            )
            .await?;
            let matches = out["matches"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|found| Match {
                    node: text(found, "ref"),
                    role: text(found, "role"),
                    name: text(found, "name"),
                    line: text(found, "line"),
                })
                .collect();
            ActionResult::Found(Found { tab: tab_of(app, &driven), matches })
        }
        Action::Read { node, cursor } => {
            let out =
                call(&driven, "read", json!({ "ref": node, "cursor": cursor }), deadline).await?;
            ActionResult::Read(Read {
                tab: tab_of(app, &driven),
                markdown: text(&out, "markdown"),
                cursor: out.get("next").and_then(Value::as_str).map(str::to_owned),
            })
        }
        Action::Click { node, button, double } => {
            let before = before_input(&driven, deadline).await?;
            let point = call(&driven, "point", json!({ "ref": node }), deadline).await?;
            let button = match button {
                MouseButton::Left => 1,
                MouseButton::Middle => 2,
                MouseButton::Right => 3,
            };
            let (x, y) = (point["x"].as_f64().unwrap_or(0.0), point["y"].as_f64().unwrap_or(0.0));
            let count = if *double { 2 } else { 1 };
            let sent = seen(&driven, Input::Clicks, deadline).await;
            on_main(&driven, move |widget| input::click(widget, x, y, button, count)).await?;
            all_seen(&driven, Input::Clicks, sent, u64::from(count), deadline).await;
            return Ok(page(app, &driven, settled(&driven, &before.id, deadline).await?));
        }
        Action::Fill { node, value } => {
            let before = info(&driven, deadline).await?;
            call(&driven, "point", json!({ "ref": node, "kind": "edit" }), deadline).await?;
            call(&driven, "fill", json!({ "ref": node, "value": value }), deadline)
                .await
                .map_err(|error| during(error, &before.id, "filling"))?;
            return Ok(page(app, &driven, false));
        }
        Action::Type { node, text: typed, submit } => {
            let before = before_input(&driven, deadline).await?;
            if let Some(node) = node {
                call(&driven, "point", json!({ "ref": node, "kind": "edit" }), deadline).await?;
                call(&driven, "focusForTyping", json!({ "ref": node, "replace": false }), deadline)
                    .await?;
            }
            let sent = seen(&driven, Input::Keys, deadline).await;
            let count = typed.chars().count() as u64;
            let typed = typed.clone();
            on_main(&driven, move |widget| input::type_text(widget, &typed)).await?;
            all_seen(&driven, Input::Keys, sent, count, deadline).await;
            let after = info(&driven, deadline).await;
            if after.as_ref().map_or(true, |page| page.id != before.id) {
                return Err(error(
                    Name::NavigatedAway,
                    format!("the page left {} while the text was typed", before.url),
                    "snapshot the new page; the text may have been typed only in part",
                )
                .with_url(before.url));
            }
            if *submit {
                let enter = input::chord("Enter").map_err(bad_request)?;
                on_main(&driven, move |widget| input::press(widget, &enter)).await?;
                return Ok(page(app, &driven, settled(&driven, &before.id, deadline).await?));
            }
            return Ok(page(app, &driven, false));
        }
        Action::Press { node, key } => {
            let chord = input::chord(key).map_err(|message| {
                error(
                    Name::BadRequest,
                    format!("failed to read the key \"{key}\": {message}"),
                    "name keys as \"Enter\", \"ArrowDown\", \"a\", \"Control+A\", \"Shift+Tab\"",
                )
            })?;
            let before = before_input(&driven, deadline).await?;
            if let Some(node) = node {
                call(&driven, "focusForTyping", json!({ "ref": node, "replace": false }), deadline)
                    .await?;
            }
            let sent = seen(&driven, Input::Keys, deadline).await;
            let command = input::editing_command(&chord);
            on_main(&driven, move |widget| input::press(widget, &chord)).await?;
            all_seen(&driven, Input::Keys, sent, 1, deadline).await;
            if let Some(command) = command {
                // As a browser's Edit menu does, unless the page took the key itself (an
                // editor with its own undo).
                let quick = (Instant::now() + Duration::from_millis(1000)).min(deadline);
                let out = call(&driven, "seen", Value::Null, quick).await;
                if out.is_ok_and(|out| out["keyHandled"] == false) {
                    driven
                        .webview
                        .with_webview(move |platform| {
                            use webkit2gtk::WebViewExt;
                            platform.inner().execute_editing_command(command);
                        })
                        .map_err(|_| closed(&driven))?;
                }
            }
            return Ok(page(app, &driven, settled(&driven, &before.id, deadline).await?));
        }
        Action::Select { node, values } => {
            call(&driven, "point", json!({ "ref": node }), deadline).await?;
            call(&driven, "select", json!({ "ref": node, "values": values }), deadline).await?;
            return Ok(page(app, &driven, false));
        }
        Action::Check { node, checked } => {
            let before = before_input(&driven, deadline).await?;
            let state = call(&driven, "checkState", json!({ "ref": node }), deadline).await?;
            if state["checked"].as_bool() != Some(*checked) {
                let point = call(&driven, "point", json!({ "ref": node }), deadline).await?;
                let (x, y) =
                    (point["x"].as_f64().unwrap_or(0.0), point["y"].as_f64().unwrap_or(0.0));
                let sent = seen(&driven, Input::Clicks, deadline).await;
                on_main(&driven, move |widget| input::click(widget, x, y, 1, 1)).await?;
                all_seen(&driven, Input::Clicks, sent, 1, deadline).await;
                let navigated = settled(&driven, &before.id, deadline).await?;
                if !navigated {
                    let state =
                        call(&driven, "checkState", json!({ "ref": node }), deadline).await?;
                    if state["checked"].as_bool() != Some(*checked) {
                        return Err(error(
                            Name::NotActionable,
                            format!("ref {node} did not change when clicked"),
                            "the page handles it in its own way: click it, or snapshot to see why",
                        ));
                    }
                }
                return Ok(page(app, &driven, navigated));
            }
            return Ok(page(app, &driven, false));
        }
        Action::WaitFor { condition } => {
            let navigated = wait_for(&driven, condition, deadline).await?;
            return Ok(page(app, &driven, navigated));
        }
        Action::Evaluate { js } => {
            let value = evaluate(&driven, js, deadline).await?;
            ActionResult::Evaluated(Evaluated { tab: tab_of(app, &driven), value })
        }
        Action::Close {} => {
            match driven.tab {
                Some(id) => super::close_tab(app, id),
                None => {
                    let _ = driven.webview.window().close();
                }
            }
            return Ok(Outcome::Done(ActionResult::Tabs(tabs(app))));
        }
        Action::Screenshot { node, full_page } => {
            // The node's box from the page half (scrolled into view), the pixels from WebKit.
            let crop = match node {
                Some(node) => super::screenshot::Rect::from_box(
                    &call(&driven, "box", json!({ "ref": node }), deadline).await?,
                ),
                None => None,
            };
            let shot = super::screenshot::take(&driven.webview, crop, *full_page, deadline).await?;
            let (png_base64, width, height) = (shot.png_base64, shot.width, shot.height);
            ActionResult::Screenshot(cowork_wire::browser::Screenshot {
                tab: tab_of(app, &driven),
                png_base64,
                width,
                height,
            })
        }
        Action::Tabs {} | Action::Open { .. } | Action::Navigate { .. } => unreachable!(),
    };
    Ok(Outcome::Done(result))
}

fn page(app: &AppHandle, driven: &Driven, navigated: bool) -> Outcome {
    Outcome::Done(ActionResult::Page(Page { tab: tab_of(app, driven), navigated }))
}

fn text(value: &Value, key: &str) -> String {
    value.get(key).and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// An address a driver gave: http or https.
fn address(text: &str) -> Result<Url, BrowserError> {
    super::normalize(text).map_err(|message| {
        error(
            Name::BadRequest,
            format!("failed to open \"{text}\": {message}"),
            "give an http(s) address",
        )
    })
}

/// Consent needed before acting on `url`, when its site is not among `sites`.
fn consent(sites: &[String], url: &Url) -> Option<Outcome> {
    let site = cowork_wire::browser::site_of(url.as_str())?;
    (!sites.contains(&site)).then(|| Outcome::Consent { site, url: url.to_string() })
}

fn unavailable(error: tauri::Error) -> BrowserError {
    BrowserError::new(Name::Unavailable, format!("failed to open the browser: {error}"))
}

fn bad_request(message: String) -> BrowserError {
    BrowserError::new(Name::BadRequest, message)
}

fn closed(driven: &Driven) -> BrowserError {
    error(
        Name::TabClosed,
        format!("{} was closed", driven.label()),
        "list the tabs (tabs) and act on one that is open, or open(url) a new one",
    )
}

/// The webview a target names.
fn resolve(app: &AppHandle, target: &Target) -> Result<Driven, BrowserError> {
    if let Some(name) = &target.app {
        let webview = app.get_webview(&site_apps::label(name)).ok_or_else(|| {
            error(
                Name::NotFound,
                format!("no site app \"{name}\" is open"),
                "open the site app first (its window must be open), or list them with tabs",
            )
        })?;
        return Ok(Driven { webview, tab: None, app: Some(name.clone()) });
    }
    let list = tab_list(app);
    if list.is_empty() {
        return Err(error(
            Name::NotFound,
            "the browser has no open tab",
            "open(url) opens the browser on a page",
        ));
    }
    let tab: &TabView = match target.tab_index {
        Some(index) => list.get(index as usize).ok_or_else(|| {
            error(
                Name::NotFound,
                format!("no tab at index {index} (the browser has {})", list.len()),
                "list the tabs (tabs): indexes count from 0 in the tab strip's order",
            )
        })?,
        None => list.iter().find(|tab| tab.active).unwrap_or(&list[0]),
    };
    let webview = tab_webview(app, tab.id).ok_or_else(|| {
        error(Name::TabClosed, "the tab was closed", "list the tabs (tabs) and act on an open one")
    })?;
    Ok(Driven { webview, tab: Some(tab.id), app: None })
}

/// What a driver's answers say about the tab.
fn tab_of(app: &AppHandle, driven: &Driven) -> Tab {
    let url = driven.webview.url().map(String::from).unwrap_or_default();
    match driven.tab {
        Some(id) => {
            let list = tab_list(app);
            let index = list.iter().position(|tab| tab.id == id);
            let tab = index.map(|index| &list[index]);
            Tab {
                index: index.map(|index| index as u32),
                app: None,
                url,
                title: tab.map(|tab| tab.title.clone()).unwrap_or_default(),
                active: tab.is_some_and(|tab| tab.active),
            }
        }
        None => Tab {
            index: None,
            app: driven.app.clone(),
            url,
            title: driven.webview.window().title().unwrap_or_default(),
            active: false,
        },
    }
}

fn tabs(app: &AppHandle) -> Tabs {
    let list = tab_list(app);
    let open = app.get_window(super::LABEL).is_some();
    let tabs = list
        .into_iter()
        .enumerate()
        .map(|(index, tab)| Tab {
            index: Some(index as u32),
            app: None,
            url: tab.url.map(String::from).unwrap_or_default(),
            title: tab.title,
            active: tab.active,
        })
        .collect();
    let apps = app
        .webviews()
        .into_iter()
        .filter_map(|(label, webview)| {
            let name = site_apps::name_of_label(&label)?;
            Some(Tab {
                index: None,
                app: Some(name),
                url: webview.url().map(String::from).unwrap_or_default(),
                title: webview.window().title().unwrap_or_default(),
                active: false,
            })
        })
        .collect();
    Tabs { open, tabs, apps }
}

/// Runs `body` (a function body: `return …`, may `await`) in the page's own world; its value
/// serialized by the page as a JSON string.
async fn script(driven: &Driven, body: String, deadline: Instant) -> Result<String, BrowserError> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    driven
        .webview
        .with_webview(move |platform| {
            use webkit2gtk::WebViewExt;
            let view = platform.inner();
            view.call_async_javascript_function(
                &body,
                None,
                None,
                None,
                None::<&webkit2gtk::gio::Cancellable>,
                move |result| {
                    use javascriptcore::ValueExt;
                    let _ = sender.send(
                        result.map(|value| value.to_str().to_string()).map_err(|e| e.to_string()),
                    );
                },
            );
        })
        .map_err(|_| closed(driven))?;
    let left = deadline.saturating_duration_since(Instant::now());
    match tokio::time::timeout(left, receiver).await {
        Err(_) => Err(error(
            Name::Timeout,
            format!("the page in {} did not answer in time", driven.label()),
            "give the action a longer timeout, or wait for the page (waitFor) first",
        )),
        Ok(Err(_)) => Err(closed(driven)),
        Ok(Ok(Err(message))) => Err(BrowserError::new(
            Name::ScriptError,
            format!("failed to run in the page: {message}"),
        )),
        Ok(Ok(Ok(text))) => Ok(text),
    }
}

/// Calls the page half's `op`.
async fn call(
    driven: &Driven,
    op: &str,
    args: Value,
    deadline: Instant,
) -> Result<Value, BrowserError> {
    // The page half is sent once per page: a call names the op alone, and only a page that has
    // no engine yet (a new page after a navigation) is sent the whole script (~27 KB for WebKit
    // to parse on every call otherwise).
    let op = json!(op);
    let quick = format!(
        "const engine = window.__coworkEngine;\n\
         return engine ? engine.run({op}, {args}) : {ENGINE_MISSING:?};"
    );
    let mut text = script(driven, quick, deadline).await?;
    if text == ENGINE_MISSING {
        let body = format!("{SCRIPT}\nreturn window.__coworkEngine.run({op}, {args});");
        text = script(driven, body, deadline).await?;
    }
    answer(&text, driven)
}

/// What a call answers on a page that has no engine yet (never JSON, as the engine's answers are).
const ENGINE_MISSING: &str = "cowork: no engine on this page";

/// The page half's answer: `{ok}` or `{error: {name, message, hint}}`.
fn answer(text: &str, driven: &Driven) -> Result<Value, BrowserError> {
    let mut value: Value = serde_json::from_str(text).map_err(|_| {
        BrowserError::new(Name::Unavailable, format!("the page answered no JSON: {text:.200}"))
    })?;
    if let Some(ok) = value.get_mut("ok") {
        return Ok(ok.take());
    }
    let failed = &value["error"];
    let name = serde_json::from_value(failed["name"].clone()).unwrap_or(Name::Unavailable);
    let mut error = BrowserError::new(name, text_of(failed, "message"));
    if let Some(hint) = failed["hint"].as_str() {
        error = error.with_hint(hint);
    }
    if let Ok(url) = driven.webview.url() {
        error = error.with_url(url.as_str());
    }
    Err(error)
}

fn text_of(value: &Value, key: &str) -> String {
    text(value, key)
}

/// The page's identity (new on every navigation), address and load state.
struct Info {
    id: String,
    url: String,
    complete: bool,
}

async fn info(driven: &Driven, deadline: Instant) -> Result<Info, BrowserError> {
    let out = call(driven, "info", Value::Null, deadline).await?;
    Ok(Info {
        id: text(&out, "page"),
        url: text(&out, "url"),
        complete: out["readyState"] == "complete",
    })
}

/// After input that may navigate (a click, Enter): whether the page went to another one, which
/// is then waited for until it has loaded.
async fn settled(driven: &Driven, before: &str, deadline: Instant) -> Result<bool, BrowserError> {
    // A navigation starts asynchronously: give the input a moment to take effect.
    tokio::time::sleep(Duration::from_millis(150)).await;
    let quick = Instant::now() + Duration::from_millis(1000);
    let now = info(driven, quick.min(deadline)).await;
    match now {
        Ok(page) if page.id == before => Ok(false),
        Err(error) if error.name == Name::TabClosed => Err(error),
        _ => {
            wait_loaded(driven, Some(before), deadline).await?;
            Ok(true)
        }
    }
}

/// Waits until the page is not `before` (any page when none) and has loaded.
async fn wait_loaded(
    driven: &Driven,
    before: Option<&str>,
    deadline: Instant,
) -> Result<(), BrowserError> {
    let loads = driven.webview.state::<crate::page_loads::PageLoads>();
    loop {
        // Registered before the look, so a load that finishes during it still wakes the wait.
        let loaded = loads.next();
        tokio::pin!(loaded);
        loaded.as_mut().enable();
        let quick = (Instant::now() + Duration::from_millis(1000)).min(deadline);
        match info(driven, quick).await {
            Ok(page)
                if page.complete
                    && Some(page.id.as_str()) != before
                    && page.url != "about:blank" =>
            {
                return Ok(())
            }
            Err(error) if error.name == Name::TabClosed => return Err(error),
            _ => {}
        }
        if Instant::now() + POLL >= deadline {
            return Err(error(
                Name::Timeout,
                format!("the page in {} did not finish loading in time", driven.label()),
                "give the action a longer timeout (a slow page), or waitFor text that shows it loaded",
            ));
        }
        // A page's load-finished (a tab's or a site app window's) wakes this at once; the poll
        // is for a page whose `readyState` trails the signal.
        tokio::select! {
            () = &mut loaded => {}
            () = tokio::time::sleep(POLL) => {}
        }
    }
}

/// Real input the page counts as seen: key releases, button releases.
#[derive(Clone, Copy)]
enum Input {
    Keys,
    Clicks,
}

/// How many trusted `input` events the page has seen, and which page it is (none when it does not
/// answer).
async fn seen(driven: &Driven, input: Input, deadline: Instant) -> Option<(u64, String)> {
    let quick = (Instant::now() + Duration::from_millis(1000)).min(deadline);
    let out = call(driven, "seen", Value::Null, quick).await.ok()?;
    let count = out[match input {
        Input::Keys => "keys",
        Input::Clicks => "clicks",
    }]
    .as_u64()?;
    Some((count, out["page"].as_str()?.to_owned()))
}

/// Waits until the page has seen the `count` events sent after it had seen `before`: WebKit
/// hands them to the page one by one, after `input` sent them all. Returns at once when another
/// page answers (the input navigated: the new page counts from zero); gives up quietly when the
/// page stops taking them (it swallows them) for a while, or at the deadline: the action's own
/// checks then say what happened.
async fn all_seen(
    driven: &Driven,
    input: Input,
    before: Option<(u64, String)>,
    count: u64,
    deadline: Instant,
) {
    let Some((before, page)) = before else { return };
    let mut last = before;
    let mut moved = Instant::now();
    while Instant::now() < deadline && moved.elapsed() < Duration::from_millis(1000) {
        match seen(driven, input, deadline).await {
            Some((_, now_page)) if now_page != page => return,
            Some((now, _)) if now >= before + count => return,
            Some((now, _)) if now != last => {
                last = now;
                moved = Instant::now();
            }
            Some(_) => {}
            None => return,
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// An error of an action that ran while the page may have gone: `NavigatedAway` if it did.
fn during(error: BrowserError, _before: &str, doing: &str) -> BrowserError {
    if error.name == Name::ScriptError {
        return BrowserError::new(
            Name::NavigatedAway,
            format!("the page went away while {doing}: {}", error.message),
        )
        .with_hint(SNAPSHOT_AGAIN);
    }
    error
}

/// Waits for `condition`; whether the page navigated meanwhile.
async fn wait_for(
    driven: &Driven,
    condition: &WaitCondition,
    deadline: Instant,
) -> Result<bool, BrowserError> {
    let start = info(driven, deadline).await?;
    if let WaitCondition::Navigation { url } = condition {
        let marks = driven.webview.state::<BeforeInput>();
        let from = marks.take(driven).unwrap_or(start.id);
        let loads = driven.webview.state::<crate::page_loads::PageLoads>();
        loop {
            // As in wait_loaded: a load that finishes during the look still wakes the wait.
            let loaded = loads.next();
            tokio::pin!(loaded);
            loaded.as_mut().enable();
            let quick = (Instant::now() + Duration::from_millis(1000)).min(deadline);
            match info(driven, quick).await {
                Ok(page)
                    if page.id != from
                        && page.complete
                        && url.as_ref().is_none_or(|wanted| page.url.contains(wanted.as_str())) =>
                {
                    // Input made while this waited (the click it was asked before) is counted
                    // by this wait: the next one counts from here.
                    marks.take(driven);
                    return Ok(true);
                }
                Err(error) if error.name == Name::TabClosed => return Err(error),
                _ => {}
            }
            if Instant::now() + POLL >= deadline {
                let what = url
                    .as_ref()
                    .map_or("another page".to_owned(), |url| format!("a page at \"{url}\""));
                return Err(error(
                    Name::Timeout,
                    format!("the tab did not go to {what} in time"),
                    "give waitFor a longer timeout, or check the action that should navigate",
                ));
            }
            tokio::select! {
                () = &mut loaded => {}
                () = tokio::time::sleep(POLL) => {}
            }
        }
    }
    let idle_since = Instant::now();
    loop {
        let met = match condition {
            WaitCondition::Text { text: wanted, gone } => {
                let out = call(driven, "hasText", json!({ "text": wanted }), deadline).await?;
                out["present"].as_bool() != Some(*gone)
            }
            WaitCondition::Ref { node, state } => {
                let out = call(driven, "refState", json!({ "ref": node }), deadline).await?;
                let flag = |key: &str| out[key].as_bool().unwrap_or(false);
                match state {
                    RefState::Detached => flag("removed"),
                    _ if flag("removed") => {
                        return Err(error(
                            Name::StaleRef,
                            format!("ref {node} was removed from the page while waiting"),
                            SNAPSHOT_AGAIN,
                        ))
                    }
                    RefState::Visible => flag("visible"),
                    RefState::Hidden => !flag("visible"),
                    RefState::Enabled => flag("enabled"),
                    RefState::Disabled => !flag("enabled"),
                    RefState::Checked => flag("checked"),
                    RefState::Unchecked => !flag("checked"),
                }
            }
            WaitCondition::NetworkIdle {} => {
                let out = call(driven, "network", Value::Null, deadline).await?;
                let quiet = out["idleFor"].as_f64().unwrap_or(0.0);
                quiet >= NETWORK_IDLE.as_millis() as f64
                    && idle_since.elapsed() >= Duration::from_millis(0)
            }
            WaitCondition::Navigation { .. } => unreachable!(),
        };
        if met {
            return Ok(info(driven, deadline).await.map_or(true, |page| page.id != start.id));
        }
        if Instant::now() + POLL >= deadline {
            let what = match condition {
                WaitCondition::Text { text, gone: false } => format!("the text \"{text}\" to show"),
                WaitCondition::Text { text, gone: true } => format!("the text \"{text}\" to go"),
                WaitCondition::Ref { node, state } => format!("ref {node} to be {state:?}"),
                WaitCondition::NetworkIdle {} => {
                    "the network to be idle (no request for 500 ms)".to_owned()
                }
                WaitCondition::Navigation { .. } => unreachable!(),
            };
            return Err(error(
                Name::Timeout,
                format!("timed out waiting for {what}"),
                "give waitFor a longer timeout, or snapshot to see what the page shows",
            ));
        }
        tokio::time::sleep(POLL).await;
    }
}

/// `evaluate(js)`: an expression, a function (called), or a body with `return`, in the page's own
/// world; its value as JSON.
async fn evaluate(driven: &Driven, js: &str, deadline: Instant) -> Result<Value, BrowserError> {
    let body = format!(
        "try {{ const __value = await ({}); return JSON.stringify({{ ok: __value === undefined ? null : __value }}) }} \
         catch (error) {{ return JSON.stringify({{ error: {{ name: \"ScriptError\", message: `the script threw: ${{error && error.message || error}}`, hint: \"fix the script; it runs in the page as an async function body\" }} }}) }}",
        evaluable(js)
    );
    // A page that navigates away while the script runs never answers it: watched for here.
    let before = info(driven, deadline).await?;
    let text = tokio::select! {
        text = script(driven, body, deadline) => text?,
        left = navigated_away(driven, &before, deadline) => return Err(left),
    };
    answer(&text, driven)
}

/// Resolves once the page `before` is gone from `driven` (its address changed and another page
/// answers there, or none does): a `NavigatedAway` error. An address changed by the page itself
/// (`history.pushState`, a fragment) keeps the page, and the watch goes on.
async fn navigated_away(driven: &Driven, before: &Info, deadline: Instant) -> BrowserError {
    loop {
        tokio::time::sleep(POLL).await;
        let now = driven.webview.url().map(String::from).unwrap_or_default();
        if now == before.url {
            continue;
        }
        // The address moves when a load starts; the page goes when it commits.
        let quick = (Instant::now() + Duration::from_millis(1000)).min(deadline);
        match info(driven, quick).await {
            Ok(page) if page.id == before.id => continue,
            _ => {
                return error(
                    Name::NavigatedAway,
                    format!("the page left {} while the script ran", before.url),
                    "the script may have run only in part; snapshot the new page",
                )
                .with_url(now)
            }
        }
    }
}

/// The JavaScript that evaluates to `js`'s value.
pub fn evaluable(js: &str) -> String {
    let trimmed = js.trim().trim_end_matches(';');
    // An arrow function's parameters close before its `=>`; `(() => 1)()` (a function already
    // called, as ctx.browser.evaluate sends a function) is an expression.
    let function = trimmed.starts_with("function")
        || trimmed.starts_with("async ")
        || (trimmed.starts_with('(')
            && closing_paren(trimmed)
                .is_some_and(|close| trimmed[close + 1..].trim_start().starts_with("=>")));
    // A function called at once, `(() => { …; return x })()` (how ctx.browser.evaluate sends a
    // function with a block body), is an expression however many `return`s it holds.
    let called = trimmed.starts_with('(')
        && closing_paren(trimmed).is_some_and(|close| {
            let rest = trimmed[close + 1..].trim_start();
            rest.starts_with('(') && closing_paren(rest) == Some(rest.len() - 1)
        });
    if function {
        format!("({trimmed})()")
    } else if called {
        format!("({trimmed})")
    } else if trimmed.split(|c: char| !c.is_alphanumeric() && c != '_').any(|word| word == "return")
        || trimmed.contains(';')
    {
        format!("(async () => {{ {trimmed} }})()")
    } else {
        format!("({trimmed})")
    }
}

/// A site app window's banner (the browser window's is in its bar): the page has no bar, so the
/// shell puts a pill in the page itself, bottom right — a closed shadow root the page's own styles
/// do not reach, `aria-hidden` so that snapshots and reads leave it out — and its Stop sets a flag
/// the shell reads. Called with the banner's text (none: take it down); answers whether Stop was
/// pressed since the last look.
const APP_BANNER: &str = r#"(text) => {
  const id = "__cowork_driving"
  let host = document.getElementById(id)
  if (!text) { host?.remove(); return false }
  if (!host) {
    host = document.createElement("div")
    host.id = id
    host.setAttribute("aria-hidden", "true")
    host.style.cssText = "all:initial;position:fixed;right:12px;bottom:12px;z-index:2147483647"
    const root = host.attachShadow({ mode: "closed" })
    root.innerHTML = `<style>div{display:flex;align-items:center;gap:10px;font:600 13px system-ui,sans-serif;background:#f7c948;color:#1f1f1f;padding:6px 6px 6px 12px;border-radius:8px;box-shadow:0 2px 8px #0004}button{font:inherit;background:#b3261e;color:#fff;border:0;border-radius:6px;width:72px;height:30px;cursor:pointer}</style><div role="alert"><span>\u25cf</span><span></span><button>Stop</button></div>`
    root.querySelector("button").addEventListener("click", () => { window.__coworkStopPressed = true })
    host.__coworkText = root.querySelectorAll("span")[1]
    ;(document.body || document.documentElement).append(host)
  }
  host.__coworkText.textContent = text
  const pressed = window.__coworkStopPressed === true
  window.__coworkStopPressed = false
  return pressed
}"#;

/// How often a site app's banner is looked at (its Stop, and put back after a navigation).
const BANNER_LOOK: Duration = Duration::from_millis(250);

/// Shows `text` as the banner of the site app `name`'s window (none: takes it down), and while it
/// shows, looks at it every [`BANNER_LOOK`]: a Stop pressed stops its drivers, a page that
/// navigated gets it back.
pub fn app_banner(app: &AppHandle, name: &str, text: Option<&str>) {
    static WATCHED: std::sync::Mutex<std::collections::BTreeSet<String>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let Some(webview) = app.get_webview(&site_apps::label(name)) else { return };
    if text.is_none() {
        let _ = webview.eval(format!("({APP_BANNER})(null)"));
        return;
    }
    if !WATCHED.lock().map(|mut watched| watched.insert(name.to_owned())).unwrap_or(false) {
        return;
    }
    let (app, name) = (app.clone(), name.to_owned());
    tauri::async_runtime::spawn(async move {
        let place = super::driving::Place::App(name.clone());
        loop {
            let text =
                super::lock(&app.state::<super::Browser>().driving).banner(&place, Instant::now());
            let Some(webview) = app.get_webview(&site_apps::label(&name)) else { break };
            let driven = Driven { webview, tab: None, app: Some(name.clone()) };
            let body = format!("return JSON.stringify(({APP_BANNER})({}))", json!(text));
            let pressed = script(&driven, body, Instant::now() + Duration::from_secs(2)).await;
            if pressed.as_deref() == Ok("true") {
                super::stop(&app, &place);
            }
            if text.is_none() {
                break;
            }
            tokio::time::sleep(BANNER_LOOK).await;
        }
        if let Ok(mut watched) = WATCHED.lock() {
            watched.remove(&name);
        }
    });
}

/// Where the parenthesis that opens `text` closes (by depth; parentheses in strings count too,
/// which only makes a rare parameter default read as an expression).
fn closing_paren(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (at, ch) in text.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

/// Runs `act` on the main thread with the page's GTK widget.
async fn on_main(
    driven: &Driven,
    act: impl FnOnce(&gtk::Widget) -> Result<(), String> + Send + 'static,
) -> Result<(), BrowserError> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    driven
        .webview
        .with_webview(move |platform| {
            use gtk::prelude::*;
            let widget: gtk::Widget = platform.inner().upcast();
            let _ = sender.send(act(&widget));
        })
        .map_err(|_| closed(driven))?;
    match receiver.await {
        Err(_) => Err(closed(driven)),
        Ok(Err(message)) => Err(BrowserError::new(
            Name::Unavailable,
            format!("failed to send input to the page: {message}"),
        )),
        Ok(Ok(())) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluate_takes_an_expression_a_function_or_a_body() {
        assert_eq!(evaluable("document.title"), "(document.title)");
        assert_eq!(evaluable("() => document.title"), "(() => document.title)()");
        assert_eq!(evaluable("async () => 1;"), "(async () => 1)()");
        assert_eq!(evaluable("function () { return 2 }"), "(function () { return 2 })()");
        assert_eq!(
            evaluable("const a = 1; return a + 1"),
            "(async () => { const a = 1; return a + 1 })()"
        );
        assert_eq!(evaluable("(1 + 2)"), "((1 + 2))");
        // A function ctx.browser.evaluate sent is called already: its value, not called again.
        assert_eq!(evaluable("(() => [1])()"), "((() => [1])())");
        assert_eq!(
            evaluable("(() => { const a = 1; return a })()"),
            "((() => { const a = 1; return a })())",
            "a block-bodied function, called, answers its value"
        );
        assert_eq!(evaluable("(f)(1); return 2"), "(async () => { (f)(1); return 2 })()");
        assert_eq!(evaluable("(a, b = (1)) => a"), "((a, b = (1)) => a)()");
    }
}

/// The page half on fixture pages, in headless Chromium (the same DOM APIs WebKitGTK has; the
/// desktop suite runs it in WebKitGTK itself). Each test's steps run after the page loaded and
/// return a value, which comes back through `--dump-dom`.
#[cfg(test)]
mod page_tests {
    use super::SCRIPT;
    use serde_json::Value;
    use std::process::Command;

    const CHROMIUM: &str = "/usr/bin/chromium";

    /// Runs `steps` (a function body; `E(op, args)` calls the engine and answers its parsed JSON)
    /// on `page` once it loaded (its frames too); what they return.
    fn on_page(page: &str, steps: &str) -> Value {
        assert!(
            std::path::Path::new(CHROMIUM).exists(),
            "failed to find {CHROMIUM}\nhint: scripts/install-deps installs Debian's chromium"
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("page.html");
        let html = format!(
            "<!doctype html><meta charset=utf-8>{page}\n<script>{SCRIPT}</script>\n<script>\
             const E = (op, args) => JSON.parse(window.__coworkEngine.run(op, args));\
             addEventListener('load', () => {{ const __out = (() => {{ {steps} }})();\
             const __pre = document.createElement('pre'); __pre.id = '__out';\
             __pre.textContent = JSON.stringify(__out); document.documentElement.append(__pre) }})</script>"
        );
        std::fs::write(&file, html).unwrap();
        let output = Command::new(CHROMIUM)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                "--window-size=1000,800",
            ])
            .arg(format!("--user-data-dir={}", dir.path().join("profile").display()))
            .arg("--dump-dom")
            .arg(format!("file://{}", file.display()))
            .output()
            .unwrap();
        let dom = String::from_utf8_lossy(&output.stdout);
        let start = dom.find("<pre id=\"__out\">").unwrap_or_else(|| panic!("no output: {dom}"));
        let text = &dom[start + "<pre id=\"__out\">".len()..];
        let text = &text[..text.find("</pre>").unwrap()];
        let text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    }

    const FORM: &str = r#"<title>Sign in</title>
        <h1>Sign in</h1>
        <form aria-label="Login">
          <label>Email <input id=email type=email value="ana@example.com" required></label>
          <label for=pw>Password</label><input id=pw type=password value="secret">
          <label><input type=checkbox checked> Remember me</label>
          <select aria-label="Team"><option value=a>Alpha</option><option value=b selected>Beta</option></select>
          <button type=submit disabled>Sign in</button>
          <div hidden><button>Hidden one</button></div>
          <div style="display:none"><a href="/x">Gone link</a></div>
        </form>
        <iframe title="Help" srcdoc="<p>Need help?</p><button>Chat with us</button>"></iframe>"#;

    #[test]
    fn a_node_whose_whole_content_is_one_text_says_it_once() {
        let page = r#"<title>Orders</title><p>500 orders</p>
            <table><tr><th>Owner</th></tr><tr><td>Ana</td><td><button>Open 1</button></td></tr></table>"#;
        let out = on_page(page, "return E('snapshot', {})");
        let lines: Vec<&str> = out["ok"]["text"].as_str().unwrap().lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                "- paragraph [e1]: 500 orders",
                "- table [e2]",
                "  - row [e3]",
                "    - columnheader \"Owner\" [e4]",
                "  - row [e5]",
                "    - cell \"Ana\" [e6]",
                "    - cell \"Open 1\" [e7]",
                "      - button \"Open 1\" [e8]",
            ]
        );
    }

    #[test]
    fn a_snapshot_lists_roles_names_states_and_values_in_document_order() {
        let out = on_page(FORM, "return E('snapshot', {})");
        let text = out["ok"]["text"].as_str().unwrap();
        let expected = [
            "- page \"Sign in\"",
            "- heading \"Sign in\" [e1 level=1]",
            "- form \"Login\" [e2]",
            "  - text: Email",
            "  - textbox \"Email\" [e3 required]: ana@example.com",
            "  - text: Password",
            "  - textbox \"Password\" [e4]: ••••",
            "  - checkbox \"Remember me\" [e5 checked]",
            "  - text: Remember me",
            "  - combobox \"Team\" [e6]: Beta",
            "  - button \"Sign in\" [e7 disabled]",
            "- iframe \"Help\" [e8]",
            "  - paragraph [e9]: Need help?",
            "  - button \"Chat with us\" [e10]",
        ];
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with(expected[0]), "{text}");
        assert_eq!(&lines[1..], &expected[1..], "{text}");
        assert!(!text.contains("secret"), "a password's value never shows");
        assert!(
            !text.contains("Hidden one") && !text.contains("Gone link"),
            "hidden nodes are left out"
        );
        assert_eq!(out["ok"]["refs"], 10);
        // Refs last as long as the page: a second snapshot gives the same ones.
        let again = on_page(FORM, "E('snapshot', {}); return E('snapshot', {})");
        let body = |value: &Value| {
            value["ok"]["text"].as_str().unwrap().lines().skip(1).collect::<Vec<_>>().join("\n")
        };
        assert_eq!(
            body(&again),
            body(&out),
            "the same refs (the first line names each run's own file)"
        );
    }

    #[test]
    fn a_long_snapshot_comes_in_pages_with_a_cursor() {
        let list: String = (0..200).map(|n| format!("<li>Row number {n}</li>")).collect();
        let out = on_page(
            &format!("<ul>{list}</ul>"),
            "const first = E('snapshot', { maxChars: 2000 }); \
             const second = E('snapshot', { maxChars: 2000, cursor: first.ok.next }); \
             const bad = E('snapshot', { cursor: 'zzz:4' }); return { first, second, bad }",
        );
        let first = out["first"]["ok"]["text"].as_str().unwrap();
        let second = out["second"]["ok"]["text"].as_str().unwrap();
        assert!(first.len() <= 2000 && first.contains("Row number 0"), "{first}");
        let last_of_first = first.lines().last().unwrap();
        assert!(!second.contains(last_of_first), "pages do not overlap");
        assert!(out["first"]["ok"]["next"].is_string());
        assert_eq!(out["bad"]["error"]["name"], "BadRequest");
    }

    #[test]
    fn find_gives_refs_by_role_and_name_or_by_text() {
        let out = on_page(
            FORM,
            "return [E('find', { role: 'button', name: 'chat' }), E('find', { text: 'Need help' }), \
             E('find', { role: 'button', name: 'Sign', exact: true }), E('find', {})]",
        );
        assert_eq!(out[0]["ok"]["matches"][0]["name"], "Chat with us");
        assert_eq!(out[0]["ok"]["matches"][0]["line"], "- button \"Chat with us\" [e1]");
        assert_eq!(out[1]["ok"]["matches"][0]["role"], "paragraph");
        assert_eq!(out[2]["ok"]["total"], 0);
        assert_eq!(out[3]["error"]["name"], "BadRequest");
    }

    #[test]
    fn a_removed_node_or_a_ref_of_another_page_is_a_stale_ref() {
        let out = on_page(
            "<ul id=list><li><button>Delete me</button></li></ul>",
            "const ref = E('find', { role: 'button' }).ok.matches[0].ref; \
             document.getElementById('list').innerHTML = ''; \
             return [E('point', { ref }), E('point', { ref: 'e99' }), E('point', { ref: 'button' })]",
        );
        assert_eq!(out[0]["error"]["name"], "StaleRef");
        assert!(out[0]["error"]["message"].as_str().unwrap().contains("was removed"));
        assert!(out[0]["error"]["hint"].as_str().unwrap().contains("snapshot"));
        assert_eq!(out[1]["error"]["name"], "StaleRef");
        assert_eq!(out[2]["error"]["name"], "BadRequest");
    }

    #[test]
    fn a_covered_hidden_or_disabled_node_is_not_actionable() {
        let out = on_page(
            r#"<button id=under style="position:absolute;top:10px;left:10px">Under</button>
               <div style="position:fixed;inset:0;background:#0008" aria-label="Cookie banner" role=dialog></div>
               <button disabled>Off</button><input readonly aria-label="Fixed">
               <button style="visibility:hidden">Ghost</button>"#,
            "const f = (name) => E('find', { name }).ok.matches[0].ref; \
             const ghost = document.querySelectorAll('button')[2]; ghost.style.visibility = 'visible'; \
             const g = f('Ghost'); ghost.style.visibility = 'hidden'; \
             return [E('point', { ref: f('Under') }), E('point', { ref: f('Off') }), \
             E('point', { ref: f('Fixed'), kind: 'edit' }), E('point', { ref: g })]",
        );
        for (index, words) in [
            (0, "covered by dialog \"Cookie banner\""),
            (1, "disabled"),
            (2, "not editable"),
            (3, "hidden"),
        ] {
            assert_eq!(out[index]["error"]["name"], "NotActionable", "{index}: {out}");
            let message = out[index]["error"]["message"].as_str().unwrap();
            assert!(message.contains(words), "{message}");
        }
    }

    #[test]
    fn a_node_in_view_answers_its_centre_in_the_top_windows_coordinates() {
        let out = on_page(
            r#"<div style="height:2000px"></div><button style="width:100px;height:40px">Far</button>"#,
            "const ref = E('find', { name: 'Far' }).ok.matches[0].ref; return E('point', { ref })",
        );
        let (x, y) = (out["ok"]["x"].as_f64().unwrap(), out["ok"]["y"].as_f64().unwrap());
        assert!(y > 0.0 && y < 800.0, "scrolled into view: {out}");
        assert!(x > 8.0 && x < 120.0, "{out}");
    }

    #[test]
    fn fill_select_and_check_state_act_on_the_right_kind_of_node() {
        let out = on_page(
            r#"<input aria-label="Name" value="old"><div contenteditable aria-label="Notes">x</div>
               <select aria-label="Size"><option value=s>Small</option><option value=l>Large</option></select>
               <input type=checkbox aria-label="Agree"><p id=log></p>
               <script>document.querySelector('input').addEventListener('input', (e) => { document.getElementById('log').textContent = 'input:' + e.target.value })</script>"#,
            "const f = (name) => E('find', { name }).ok.matches[0].ref; \
             return [E('fill', { ref: f('Name'), value: 'Ana' }), document.querySelector('input').value, \
             document.getElementById('log').textContent, E('fill', { ref: f('Notes'), value: 'hello' }), \
             document.querySelector('[contenteditable]').innerText, \
             E('select', { ref: f('Size'), values: ['Large'] }), E('select', { ref: f('Size'), values: ['XL'] }), \
             E('select', { ref: f('Name'), values: ['a'] }), E('checkState', { ref: f('Agree') }), E('checkState', { ref: f('Name') })]",
        );
        assert_eq!(out[0]["ok"]["filled"], true);
        assert_eq!(out[1], "Ana");
        assert_eq!(out[2], "input:Ana", "the page saw an input event");
        assert_eq!(out[4], "hello");
        assert_eq!(out[5]["ok"]["selected"][0], "l");
        assert_eq!(out[6]["error"]["name"], "NotFound");
        assert!(out[6]["error"]["hint"].as_str().unwrap().contains("\"Small\""));
        assert_eq!(out[7]["error"]["name"], "NotActionable");
        assert_eq!(out[8]["ok"]["checked"], false);
        assert_eq!(out[9]["error"]["name"], "NotActionable");
    }

    #[test]
    fn read_gives_the_main_text_as_markdown() {
        let out = on_page(
            r#"<nav><a href="/home">Home</a></nav>
               <main><h1>Release notes</h1><p>Version <strong>2.0</strong> is out, see <a href="https://example.com/log">the log</a>.</p>
               <ul><li>Tabs</li><li>An engine</li></ul><ol><li>First</li><li>Second</li></ol>
               <table><tr><th>Name</th><th>Size</th></tr><tr><td>a.txt</td><td>3</td></tr></table>
               <pre>let x = 1</pre></main><footer>Footer text</footer>"#,
            "return E('read', {})",
        );
        let markdown = out["ok"]["markdown"].as_str().unwrap();
        assert_eq!(
            markdown,
            "# Release notes\n\nVersion **2.0** is out, see [the log](https://example.com/log).\n\n\
             - Tabs\n- An engine\n\n1. First\n2. Second\n\n| Name | Size |\n| --- | --- |\n| a.txt | 3 |\n\n\
             ```\nlet x = 1\n```"
        );
    }

    #[test]
    fn wait_conditions_read_text_ref_states_and_the_network() {
        let out = on_page(
            r#"<button aria-expanded="false">Menu</button><p>Loading…</p>"#,
            "const ref = E('find', { name: 'Menu' }).ok.matches[0].ref; \
             const before = E('refState', { ref }); \
             document.querySelector('button').remove(); \
             return [E('hasText', { text: 'loading' }), E('hasText', { text: 'Done' }), before, \
             E('refState', { ref }), E('network', {})]",
        );
        assert_eq!(out[0]["ok"]["present"], true);
        assert_eq!(out[1]["ok"]["present"], false);
        assert_eq!(out[2]["ok"]["visible"], true);
        assert_eq!(out[2]["ok"]["expanded"], false);
        assert_eq!(out[3]["ok"]["removed"], true);
        assert_eq!(out[4]["ok"]["inflight"], 0);
    }
}
