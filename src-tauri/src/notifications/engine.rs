//! Linux: the banners of a site's service worker notifications, which WebKit itself sends.
//!
//! A click on a banner reaches only the bus connection that sent it, and WebKitGTK fires a
//! service worker's `notificationclick` only for a banner its own connection sent, with no API to
//! hand it a click. So when the hub gives such a notification a banner, the page shows it through
//! the engine (`site_apps::ask_page_to_show`), and this module, a filter on the process's
//! shared session-bus connection (the one WebKit uses), makes WebKit's `Notify` call the app's
//! banner before it leaves (the same heading, text, urgency and click as every banner of
//! [`super::freedesktop`]), learns the id the server gives it, and follows that banner's clicks:
//! WebKit gets the click for the worker, the shell shows the app's window.
//!
//! A `Notify` call on that connection the shell did not ask for (a service worker raising one on
//! its own, past the hub's mute and limits) never reaches the server: it is answered here with
//! the id 0, which WebKit takes for a banner it cannot follow. The shell's own banners go through
//! a connection of their own ([`super::freedesktop`]), so nothing else of ours is refused.

use super::{freedesktop, Notice, Notifier};
use gtk::gio;
use gtk::glib::{self, ToVariant};
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;
use tauri::{AppHandle, Manager};

/// Where a `Notify` call the shell did not ask for goes instead: an object of our own.
const REFUSED: &str = "/studio/cowork/RefusedNotifications";
const REFUSED_XML: &str = r#"<node><interface name="org.freedesktop.Notifications">
<method name="Notify"><arg type="s" direction="in"/><arg type="u" direction="in"/>
<arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="s" direction="in"/>
<arg type="as" direction="in"/><arg type="a{sv}" direction="in"/><arg type="i" direction="in"/>
<arg type="u" direction="out"/></method></interface></node>"#;

/// How long the shell waits for WebKit's call after asking a page, before it shows the banner
/// itself (the page went away, or WebKit could not show it).
pub const PATIENCE: Duration = Duration::from_secs(3);

/// A banner the shell asked a page to show through the engine.
#[derive(Debug)]
struct Expected {
    ticket: u64,
    notice: Notice,
    /// What a click opens (see `Target::site`).
    site: Option<Option<u64>>,
    /// The page's own title and body, as WebKit sends them (the notice's may be cut).
    title: String,
    body: String,
}

#[derive(Default)]
struct State {
    tickets: u64,
    /// Asked of a page, not yet sent by WebKit.
    expected: Vec<Expected>,
    /// Sent, by the call's serial, until the server answers with the banner's id.
    sent: HashMap<u32, Expected>,
    /// The server's ids of the banners on screen, and the server's bus name.
    shown: HashSet<u32>,
    server: Option<String>,
}

/// The filter, installed once per process.
pub struct Engine {
    state: Arc<Mutex<State>>,
    /// WebKit sent nothing once when asked: its notification service did not start in this
    /// process (it gives the server 20 ms, once, to say what it can do), so the shell shows every
    /// banner itself from then on.
    silent: std::sync::atomic::AtomicBool,
}

impl Engine {
    /// Installs the filter on the shared session-bus connection; `markup`: the server reads
    /// markup in bodies.
    pub fn install(app: &AppHandle, markup: bool) -> Result<Engine, glib::Error> {
        let connection = gio::bus_get_sync(gio::BusType::Session, gio::Cancellable::NONE)?;
        let interface = gio::DBusNodeInfo::for_xml(REFUSED_XML)?
            .lookup_interface("org.freedesktop.Notifications")
            .expect("the interface is in the XML");
        connection.register_object(
            REFUSED,
            &interface,
            |_, _, _, _, _, _, invocation| invocation.return_value(Some(&(0u32,).to_variant())),
            |_, _, _, _, _| ().to_variant(),
            |_, _, _, _, _, _| false,
        )?;
        let own_name = connection.unique_name().map(|name| name.to_string()).unwrap_or_default();
        let state = Arc::new(Mutex::new(State::default()));
        let filter_state = state.clone();
        let app = app.clone();
        // Runs on GDBus's own thread, for every message in and out.
        connection.add_filter(move |_, message, incoming| {
            let mut state = filter_state.lock();
            if incoming {
                on_incoming(&app, &mut state, message);
                Some(message.clone())
            } else if is_notify(message) {
                Some(on_notify(&mut state, message, markup, &own_name))
            } else {
                Some(message.clone())
            }
        });
        Ok(Engine { state, silent: Default::default() })
    }

    /// The shell is about to ask a page to show `notice` through the engine, as the page raised
    /// it (`title`, `body`); `site`: what a click on it opens. Returns its ticket.
    pub fn expect(
        &self,
        notice: Notice,
        site: Option<Option<u64>>,
        title: String,
        body: String,
    ) -> u64 {
        let mut state = self.state.lock();
        state.tickets += 1;
        let ticket = state.tickets;
        state.expected.push(Expected { ticket, notice, site, title, body });
        ticket
    }

    /// Whether WebKit shows the banners it is asked for (see [`Engine::silent`]).
    pub fn works(&self) -> bool {
        !self.silent.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Takes back the banner of `ticket` if WebKit has not sent it after [`PATIENCE`] (the shell
    /// shows it instead, and every one after it); false when WebKit has.
    pub fn give_up(&self, ticket: u64) -> bool {
        let mut state = self.state.lock();
        let before = state.expected.len();
        state.expected.retain(|each| each.ticket != ticket);
        let gave_up = state.expected.len() != before;
        if gave_up {
            self.silent.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        gave_up
    }

    /// Takes back the banner of `ticket` at once: the page could not be asked.
    pub fn withdraw(&self, ticket: u64) {
        self.state.lock().expected.retain(|each| each.ticket != ticket);
    }
}

/// A `Notify` call to the notification server (WebKit's proxy sends it to the server's unique
/// name, not the well-known one).
fn is_notify(message: &gio::DBusMessage) -> bool {
    message.message_type() == gio::DBusMessageType::MethodCall
        && message.path().as_deref() == Some(freedesktop::PATH)
        && message.interface().as_deref() == Some(freedesktop::INTERFACE)
        && message.member().as_deref() == Some("Notify")
}

/// WebKit's `Notify`: the app's banner when the shell asked for it, else refused.
fn on_notify(
    state: &mut State,
    message: &gio::DBusMessage,
    markup: bool,
    own_name: &str,
) -> gio::DBusMessage {
    let Ok(copy) = message.copy() else { return message.clone() };
    let call = message.body().as_ref().and_then(read_notify);
    let found = call.as_ref().and_then(|call| {
        state.expected.iter().position(|each| each.title == call.1 && each.body == call.2)
    });
    match (call, found) {
        (Some(call), Some(index)) => {
            let expected = state.expected.remove(index);
            let (heading, text) = expected.notice.banner();
            let text = if markup { freedesktop::escape_markup(&text) } else { text };
            let urgent = expected.notice.urgent;
            let hints: HashMap<String, glib::Variant> = [
                ("urgency".to_string(), freedesktop::urgency(urgent).to_variant()),
                ("desktop-entry".to_string(), freedesktop::DESKTOP_ENTRY.to_variant()),
            ]
            .into();
            let body = (
                freedesktop::APP_NAME,
                call.0,
                "",
                heading,
                text.as_str(),
                freedesktop::ACTIONS.to_vec(),
                hints,
                freedesktop::timeout(urgent),
            );
            copy.set_body(&body.to_variant());
            state.sent.insert(message.serial(), expected);
        }
        _ => {
            tracing::info!("a service worker's notification the hub did not pass was not shown");
            copy.set_destination(Some(own_name));
            copy.set_path(Some(REFUSED));
        }
    }
    copy
}

/// What this module reads of WebKit's `Notify` call: its replaces id, summary and body.
fn read_notify(body: &glib::Variant) -> Option<(u32, String, String)> {
    type Call =
        (String, u32, String, String, String, Vec<String>, HashMap<String, glib::Variant>, i32);
    let (_, replaces, _, summary, body, _, _, _) = body.get::<Call>()?;
    Some((replaces, summary, body))
}

/// The server's answers and signals: a banner's id, its clicks and its end.
fn on_incoming(app: &AppHandle, state: &mut State, message: &gio::DBusMessage) {
    match message.message_type() {
        gio::DBusMessageType::MethodReturn => {
            let Some(expected) = state.sent.remove(&message.reply_serial()) else { return };
            let Some((id,)) = message.body().and_then(|body| body.get::<(u32,)>()) else {
                return;
            };
            state.shown.insert(id);
            state.server = message.sender().map(|sender| sender.to_string());
            app.state::<Notifier>().banners().shown(id, &expected.notice, expected.site);
        }
        gio::DBusMessageType::Error => {
            if let Some(expected) = state.sent.remove(&message.reply_serial()) {
                tracing::warn!(app = %expected.notice.app, error = ?message.error_name(), "the notification server refused a service worker's banner");
            }
        }
        gio::DBusMessageType::Signal => {
            if message.interface().as_deref() != Some(freedesktop::INTERFACE)
                || message.sender().map(|sender| sender.to_string()) != state.server
            {
                return;
            }
            let body = message.body();
            match message.member().as_deref() {
                Some("ActionInvoked") => {
                    let Some((id, action)) = body.and_then(|b| b.get::<(u32, String)>()) else {
                        return;
                    };
                    if action == "default" && state.shown.contains(&id) {
                        super::clicked(app, id);
                    }
                }
                Some("NotificationClosed") => {
                    let Some((id, _)) = body.and_then(|b| b.get::<(u32, u32)>()) else { return };
                    if state.shown.remove(&id) {
                        app.state::<Notifier>().banners().closed(id);
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERVER: &str = ":1.2";

    fn notice() -> Notice {
        Notice {
            workspace: "/w".into(),
            app: "chat-site".into(),
            app_title: "Chat Site".into(),
            title: "Bo".into(),
            body: Some("<b>in</b> #general".into()),
            tag: None,
            urgent: false,
            replaced: false,
        }
    }

    /// WebKit's call, as its proxy sends it.
    fn webkit_notify(replaces: u32, summary: &str, body: &str) -> gio::DBusMessage {
        let message = gio::DBusMessage::new_method_call(
            Some(SERVER),
            freedesktop::PATH,
            Some(freedesktop::INTERFACE),
            "Notify",
        );
        let hints: HashMap<String, glib::Variant> =
            [("desktop-entry".to_string(), "org.webkit.app-1".to_variant())].into();
        let args = (
            "cowork-desktop",
            replaces,
            "",
            summary,
            body,
            vec!["default", "Acknowledge"],
            hints,
            -1i32,
        );
        message.set_body(&args.to_variant());
        message
    }

    fn expecting(notice: Notice) -> State {
        let mut state = State::default();
        let (title, body) = (notice.title.clone(), "<b>in</b> #general".to_string());
        state.expected.push(Expected { ticket: 1, notice, site: Some(None), title, body });
        state
    }

    #[test]
    fn webkits_call_for_a_banner_the_shell_asked_for_becomes_the_apps_banner() {
        let mut state = expecting(notice());
        let call = webkit_notify(7, "Bo", "<b>in</b> #general");
        assert!(is_notify(&call));
        let sent = on_notify(&mut state, &call, true, ":1.9");
        assert_eq!(sent.destination().as_deref(), Some(SERVER));
        assert_eq!(sent.path().as_deref(), Some(freedesktop::PATH));
        type Call =
            (String, u32, String, String, String, Vec<String>, HashMap<String, glib::Variant>, i32);
        let (app, replaces, icon, summary, body, actions, hints, timeout) =
            sent.body().unwrap().get::<Call>().unwrap();
        assert_eq!(
            (app.as_str(), replaces, icon.as_str()),
            ("Cowork Studio", 7, ""),
            "WebKit's replacement of a tag kept"
        );
        assert_eq!(summary, "Chat Site", "headed by the app, as every banner");
        assert_eq!(body, "Bo\n&lt;b&gt;in&lt;/b&gt; #general", "the text as the page wrote it");
        assert_eq!(actions, ["default", "Open"]);
        assert_eq!(hints["urgency"].get::<u8>(), Some(1));
        assert_eq!(hints["desktop-entry"].str(), Some("studio.cowork.desktop"));
        assert_eq!(timeout, -1);
        assert!(state.expected.is_empty(), "taken");
        assert!(state.sent.contains_key(&call.serial()), "its id is awaited");
    }

    #[test]
    fn a_call_the_shell_did_not_ask_for_is_answered_in_the_app() {
        let mut state = expecting(notice());
        let call = webkit_notify(0, "Spam", "<b>in</b> #general");
        let sent = on_notify(&mut state, &call, true, ":1.9");
        assert_eq!(sent.destination().as_deref(), Some(":1.9"));
        assert_eq!(sent.path().as_deref(), Some(REFUSED));
        assert_eq!(sent.body().unwrap().child_value(3).str(), Some("Spam"), "unchanged");
        assert_eq!(state.expected.len(), 1, "the banner asked for still awaited");
        assert!(state.sent.is_empty());
    }

    #[test]
    fn only_notify_calls_to_the_server_are_read() {
        let other = gio::DBusMessage::new_method_call(
            Some(SERVER),
            freedesktop::PATH,
            Some(freedesktop::INTERFACE),
            "GetCapabilities",
        );
        assert!(!is_notify(&other));
        let elsewhere = gio::DBusMessage::new_method_call(
            Some(SERVER),
            "/org/freedesktop/portal/desktop",
            Some("org.freedesktop.portal.Notification"),
            "Notify",
        );
        assert!(!is_notify(&elsewhere));
    }
}
