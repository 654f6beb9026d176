//! Linux banners, spoken straight to `org.freedesktop.Notifications` on the session bus.
//!
//! Why not tauri-plugin-notification here (2.8.0 reads as of this writing): on Linux it always
//! sends `replaces_id = 0`, no `urgency` hint and the server's default timeout, so a tagged
//! notification cannot replace its banner and an urgent one cannot stay up. notify-rust's own
//! handle (`show()` then `wait_for_action`) opens a connection per banner and consumes the handle
//! while it waits, so a banner cannot be both replaced and followed for clicks; and servers like
//! dunst send a banner's signals only to the connection that sent it. So, as the plugin itself
//! does inside: one connection sends every banner and receives every signal.

use std::collections::HashMap;
use tokio_stream::StreamExt;
use zbus::zvariant::Value;

pub const DESTINATION: &str = "org.freedesktop.Notifications";
pub const PATH: &str = "/org/freedesktop/Notifications";
pub const INTERFACE: &str = "org.freedesktop.Notifications";

/// Every banner's sender, as the server names it.
pub const APP_NAME: &str = "Cowork Studio";
/// The installed desktop entry: servers take the app's icon from it.
pub const DESKTOP_ENTRY: &str = "studio.cowork.desktop";
/// "default" is the spec's click on the banner itself; servers offer a click only for a banner
/// that lists it.
pub const ACTIONS: [&str; 2] = ["default", "Open"];

/// The `urgency` hint: critical for an urgent banner, else normal.
pub fn urgency(urgent: bool) -> u8 {
    if urgent {
        2
    } else {
        1
    }
}

/// The expiry: 0 keeps an urgent banner until the person acts on it; -1 is the server's default.
pub fn timeout(urgent: bool) -> i32 {
    if urgent {
        0
    } else {
        -1
    }
}

/// What the server reports about a banner, by its server id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// The person clicked the banner (the spec's `default` action).
    Clicked(u32),
    /// The banner is gone (expired, dismissed, or closed after a click).
    Closed(u32),
}

/// The session-bus connection banners go through.
pub struct Bus {
    connection: zbus::Connection,
    /// The server reads markup in bodies (`body-markup`): text must be escaped to show as sent.
    markup: bool,
}

/// One banner to send.
pub struct Message<'a> {
    pub summary: &'a str,
    pub body: &'a str,
    pub urgent: bool,
    /// The server id of the banner this one replaces in place, or 0 for a new banner.
    pub replaces: u32,
}

impl Bus {
    /// Connects to the session bus and follows the server's signals; `on_signal` runs on the
    /// async runtime for each. The subscription is in place when this returns, so no click on a
    /// later banner is missed.
    pub async fn connect(on_signal: impl Fn(Signal) + Send + 'static) -> zbus::Result<Bus> {
        let connection = zbus::Connection::session().await?;
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .path(PATH)?
            .interface(INTERFACE)?
            .build();
        let mut signals = zbus::MessageStream::for_match_rule(rule, &connection, None).await?;
        tauri::async_runtime::spawn(async move {
            while let Some(message) = signals.next().await {
                let Ok(message) = message else { continue };
                if let Some(signal) = parse(&message) {
                    on_signal(signal);
                }
            }
        });
        let capabilities: Vec<String> = match connection
            .call_method(Some(DESTINATION), PATH, Some(INTERFACE), "GetCapabilities", &())
            .await
        {
            Ok(reply) => reply.body().deserialize().unwrap_or_default(),
            Err(_) => Vec::new(),
        };
        Ok(Bus { connection, markup: capabilities.iter().any(|c| c == "body-markup") })
    }

    /// The server reads markup in bodies.
    pub fn markup(&self) -> bool {
        self.markup
    }

    /// Sends a banner; returns its server id (the same as `replaces` when it replaced one).
    pub async fn notify(&self, message: &Message<'_>) -> zbus::Result<u32> {
        let mut hints: HashMap<&str, Value<'_>> = HashMap::new();
        hints.insert("urgency", Value::U8(urgency(message.urgent)));
        hints.insert("desktop-entry", Value::from(DESKTOP_ENTRY));
        let body = if self.markup { escape_markup(message.body) } else { message.body.to_string() };
        let reply = self
            .connection
            .call_method(
                Some(DESTINATION),
                PATH,
                Some(INTERFACE),
                "Notify",
                &(
                    APP_NAME,
                    message.replaces,
                    "",
                    message.summary,
                    body.as_str(),
                    &ACTIONS[..],
                    hints,
                    timeout(message.urgent),
                ),
            )
            .await?;
        reply.body().deserialize()
    }
}

/// A body as plain text on a server that reads markup: `<b>` from an app is shown, not applied.
pub fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn parse(message: &zbus::Message) -> Option<Signal> {
    let header = message.header();
    match header.member()?.as_str() {
        "ActionInvoked" => {
            let (id, action): (u32, String) = message.body().deserialize().ok()?;
            (action == "default").then_some(Signal::Clicked(id))
        }
        "NotificationClosed" => {
            let (id, _reason): (u32, u32) = message.body().deserialize().ok()?;
            Some(Signal::Closed(id))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn markup_in_a_body_is_shown_as_written() {
        assert_eq!(
            super::escape_markup("<b>Q3</b> & <report>"),
            "&lt;b&gt;Q3&lt;/b&gt; &amp; &lt;report&gt;"
        );
    }
}
