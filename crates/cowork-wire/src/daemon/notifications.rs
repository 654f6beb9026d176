//! Notifications and badge counts as they cross the wire: what the engine's hub delivers (the
//! bell, the event stream, `cowork status`), how a notification was delivered, and what the
//! desktop shell reports for a site app (`POST /api/desktop/notify`, `POST /api/desktop/badge`)
//! and when the person saw an app's notifications (`POST /api/notifications/shown`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A delivered notification, as the bell, `cowork.onNotification` and notification triggers
/// receive it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(rename = "DaemonNotification"))]
#[serde(rename_all = "camelCase")]
pub struct Notification {
    /// The app it was posted as (its manifest `name`).
    pub app: String,
    /// The app's title, as the bell shows it.
    pub app_title: String,
    /// The notification's title.
    pub title: String,
    /// More text under the title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub body: Option<String>,
    /// A later notification of the same app with this tag replaces this one while it is not yet shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub tag: Option<String>,
    /// Keeps the banner up and asks for attention (dock bounce, flashing taskbar).
    pub urgent: bool,
    /// RFC 3339 time it was raised.
    pub at: String,
}

/// Per-app badge counts and their sum over the apps that are not muted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Badges {
    /// Each app's count, by its manifest name.
    pub apps: BTreeMap<String, u64>,
    /// The sum over the apps that are not muted.
    pub total: u64,
}

/// What happened to a notification; every outcome resolves the caller's promise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Delivery {
    /// Delivered: in the bell, and a banner while the window is not focused.
    Delivered,
    /// It replaced a not-yet-shown one with the same tag.
    Replaced,
    /// The person muted the app's notifications: dropped.
    Muted,
    /// Past 6 a minute: dropped.
    RateLimited,
    /// Posted by a workspace that is not the active one.
    Inactive,
}

/// How a notification was delivered (`cowork.notify`, `POST /api/desktop/notify`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delivered {
    /// What happened to it.
    pub delivery: Delivery,
}

/// Where a site app's unread count came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum UnreadSource {
    /// The site's `navigator.setAppBadge`.
    Badge,
    /// Its title's `(N)`.
    Title,
    /// The shell's count of its notifications since its window was last focused.
    Notifications,
}

impl UnreadSource {
    /// Every source, best first.
    pub const ALL: [UnreadSource; 3] =
        [UnreadSource::Badge, UnreadSource::Title, UnreadSource::Notifications];

    /// The source `text` names, if any.
    pub fn parse(text: &str) -> Option<UnreadSource> {
        UnreadSource::ALL.into_iter().find(|source| source.as_str() == text)
    }

    /// The source as it travels: `badge`, `title` or `notifications`.
    pub fn as_str(self) -> &'static str {
        match self {
            UnreadSource::Badge => "badge",
            UnreadSource::Title => "title",
            UnreadSource::Notifications => "notifications",
        }
    }
}

/// `POST /api/desktop/notify` and `POST /api/desktop/badge`: what a site app's page reported
/// through the desktop shell — a notification (`{title, body?, tag?, urgent?}`, checked by the hub
/// as a widget's `cowork.notify` is) or an unread count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteReport {
    /// The workspace the site app belongs to.
    pub workspace: PathBuf,
    /// The site app's manifest name.
    pub app: String,
    /// The notification the page raised; null when it reports a count.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub notification: serde_json::Value,
    /// The unread count the page shows; null when it reports a notification.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub count: serde_json::Value,
    /// Where the count came from: an [`UnreadSource`] by name (a name that is none of them is
    /// refused by the daemon with the list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unread_source: Option<String>,
}

/// A site app's unread count, as the hub keeps it (`POST /api/desktop/badge`'s answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counted {
    /// The count as the hub now keeps it.
    pub count: u64,
}

/// `POST /api/notifications/shown`: the person saw this app's notifications (clicked a banner,
/// opened the app), so a later one with the same tag no longer replaces them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotificationsShown {
    /// The workspace of the app.
    pub workspace: PathBuf,
    /// The app whose notifications were seen.
    pub app: String,
}
