//! A workspace's notifications: every `cowork.notify` / `ctx.notify` and `badge` of a workspace, under the
//! rules of the reference — title required, lengths cut, at most 6 per app per minute, a tag
//! replacing this app's not-yet-shown one, muted apps dropped (the call still resolves), and badge
//! counts where the latest call wins and a muted app leaves the sum.
//!
//! What is delivered is kept for the bell and sent on the daemon's event stream; showing a banner
//! is the desktop shell's job.

use parking_lot::Mutex;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::{Duration, Instant};

/// Longest title, body and tag; longer ones are cut.
pub const TITLE_MAX: usize = 100;
/// Longest body; longer ones are cut.
pub const BODY_MAX: usize = 300;
/// Longest tag; longer ones are cut.
pub const TAG_MAX: usize = 64;
/// At most this many notifications per app per [`RATE_WINDOW`].
pub const RATE_LIMIT: usize = 6;
/// The window [`RATE_LIMIT`] counts over.
pub const RATE_WINDOW: Duration = Duration::from_secs(60);
/// A notification nobody showed within this long is dropped, and so is never replaced by tag.
pub const SHOW_WITHIN: Duration = Duration::from_secs(60);
/// How many delivered notifications the bell keeps.
const BELL_SIZE: usize = 200;

// What crosses the wire (the bell, the event stream, `cowork status`) is defined once, in
// cowork-wire; the hub keeps and counts them.
pub use cowork_wire::daemon::notifications::{Badges, Delivery, Notification};

/// A notification an app raised, as notification triggers receive it.
#[derive(Debug, Clone)]
pub struct Raised {
    /// The workspace (canonical path).
    pub workspace: std::path::PathBuf,
    /// The notification.
    pub notification: Notification,
}

/// A notification request that cannot be delivered at all.
#[derive(Debug, thiserror::Error)]
pub enum NotifyError {
    /// `notify` without a title.
    #[error("notify needs a title: cowork.notify({{ title: \"…\", body?, tag?, urgent? }})")]
    MissingTitle,
    /// A badge count that is not a whole number ≥ 0 (the value as given).
    #[error("badge(count) needs a whole number ≥ 0, got {0}")]
    BadCount(String),
}

/// Who a notification is posted as.
pub struct Poster<'a> {
    /// The app's name.
    pub app: &'a str,
    /// Its title.
    pub app_title: &'a str,
    /// It is muted: its notifications are dropped.
    pub muted: bool,
    /// Its workspace is not the active one: dropped like a muted app's.
    pub inactive: bool,
}

struct Pending {
    app: String,
    tag: String,
    raised: Instant,
    bell_index: u64,
}

#[derive(Default)]
struct State {
    bell: VecDeque<(u64, Notification)>,
    next_index: u64,
    sent: HashMap<String, VecDeque<Instant>>,
    pending: Vec<Pending>,
    badges: BTreeMap<String, u64>,
    unread_sources: BTreeMap<String, String>,
}

/// One workspace's notifications and badge counts.
#[derive(Default)]
pub struct Notifications {
    state: Mutex<State>,
}

fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

impl Notifications {
    /// Takes one notification from `raw` (`{title, body?, tag?, urgent?}`), applying the rules.
    pub fn notify(
        &self,
        poster: Poster<'_>,
        raw: &serde_json::Value,
        at: String,
    ) -> Result<(Delivery, Notification), NotifyError> {
        let title = raw["title"]
            .as_str()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or(NotifyError::MissingTitle)?;
        let notification = Notification {
            app: poster.app.to_string(),
            app_title: poster.app_title.to_string(),
            title: cut(raw["title"].as_str().unwrap_or(title), TITLE_MAX),
            body: raw["body"].as_str().map(|b| cut(b, BODY_MAX)),
            tag: raw["tag"].as_str().filter(|t| !t.is_empty()).map(|t| cut(t, TAG_MAX)),
            urgent: raw["urgent"].as_bool().unwrap_or(false),
            at,
        };
        if poster.muted {
            return Ok((Delivery::Muted, notification));
        }
        if poster.inactive {
            return Ok((Delivery::Inactive, notification));
        }
        let now = Instant::now();
        let mut state = self.state.lock();
        let sent = state.sent.entry(poster.app.to_string()).or_default();
        while sent.front().is_some_and(|t| now.duration_since(*t) >= RATE_WINDOW) {
            sent.pop_front();
        }
        if sent.len() >= RATE_LIMIT {
            return Ok((Delivery::RateLimited, notification));
        }
        sent.push_back(now);
        state.pending.retain(|p| now.duration_since(p.raised) < SHOW_WITHIN);
        let index = state.next_index;
        state.next_index += 1;
        let mut delivery = Delivery::Delivered;
        if let Some(tag) = &notification.tag {
            if let Some(pos) =
                state.pending.iter().position(|p| p.app == poster.app && &p.tag == tag)
            {
                let old = state.pending.remove(pos);
                state.bell.retain(|(i, _)| *i != old.bell_index);
                delivery = Delivery::Replaced;
            }
            state.pending.push(Pending {
                app: poster.app.to_string(),
                tag: tag.clone(),
                raised: now,
                bell_index: index,
            });
        }
        state.bell.push_back((index, notification.clone()));
        while state.bell.len() > BELL_SIZE {
            state.bell.pop_front();
        }
        Ok((delivery, notification))
    }

    /// Marks this app's pending notifications as shown, so a later tag no longer replaces them.
    pub fn shown(&self, app: &str) {
        let mut state = self.state.lock();
        state.pending.retain(|p| p.app != app);
    }

    /// Sets an app's badge count (`0` clears it); the latest call wins.
    pub fn badge(&self, app: &str, raw: &serde_json::Value) -> Result<u64, NotifyError> {
        let count = raw
            .as_u64()
            .or_else(|| raw.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64))
            .ok_or_else(|| NotifyError::BadCount(raw.to_string()))?;
        let mut state = self.state.lock();
        if count == 0 {
            state.badges.remove(app);
        } else {
            state.badges.insert(app.to_string(), count);
        }
        Ok(count)
    }

    /// Where a site app's count comes from (`badge`, `title`, `notifications`): Manage Workspace
    /// says so, since a site never tells.
    pub fn set_unread_source(&self, app: &str, source: &str) {
        let mut state = self.state.lock();
        state.unread_sources.insert(app.to_string(), source.to_string());
    }

    /// The source of an app's count, once its shell said.
    pub fn unread_source(&self, app: &str) -> Option<String> {
        self.state.lock().unread_sources.get(app).cloned()
    }

    /// Every app's count, and the sum of those `muted` does not exclude.
    pub fn badges(&self, muted: impl Fn(&str) -> bool) -> Badges {
        let state = self.state.lock();
        let total = state.badges.iter().filter(|(app, _)| !muted(app)).map(|(_, n)| n).sum();
        Badges { apps: state.badges.clone(), total }
    }

    /// The bell: delivered notifications, oldest first.
    pub fn bell(&self) -> Vec<Notification> {
        let state = self.state.lock();
        state.bell.iter().map(|(_, n)| n.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn poster(app: &str, muted: bool) -> Poster<'_> {
        Poster { app, app_title: "App", muted, inactive: false }
    }

    #[test]
    fn lengths_are_cut_and_a_title_is_required() {
        let notifications = Notifications::default();
        let (_, n) = notifications
            .notify(
                poster("a", false),
                &json!({"title": "t".repeat(150), "body": "b".repeat(400), "tag": "g".repeat(80)}),
                "now".into(),
            )
            .unwrap();
        assert_eq!((n.title.len(), n.body.unwrap().len(), n.tag.unwrap().len()), (100, 300, 64));
        assert!(matches!(
            notifications.notify(poster("a", false), &json!({"body": "x"}), "now".into()),
            Err(NotifyError::MissingTitle)
        ));
        assert!(matches!(
            notifications.notify(poster("a", false), &json!({"title": "  "}), "now".into()),
            Err(NotifyError::MissingTitle)
        ));
    }

    #[test]
    fn seven_in_a_minute_deliver_six_per_app() {
        let notifications = Notifications::default();
        let outcomes: Vec<_> = (0..7)
            .map(|i| {
                notifications
                    .notify(poster("a", false), &json!({"title": format!("n{i}")}), "now".into())
                    .unwrap()
                    .0
            })
            .collect();
        assert_eq!(outcomes.iter().filter(|d| **d == Delivery::Delivered).count(), 6);
        assert_eq!(outcomes[6], Delivery::RateLimited);
        assert_eq!(
            notifications
                .notify(poster("b", false), &json!({"title": "other app"}), "now".into())
                .unwrap()
                .0,
            Delivery::Delivered
        );
        assert_eq!(notifications.bell().len(), 7);
    }

    #[test]
    fn a_tag_replaces_the_pending_one_and_mute_drops() {
        let notifications = Notifications::default();
        notifications
            .notify(poster("a", false), &json!({"title": "1 new", "tag": "inbox"}), "now".into())
            .unwrap();
        let (d, _) = notifications
            .notify(poster("a", false), &json!({"title": "2 new", "tag": "inbox"}), "now".into())
            .unwrap();
        assert_eq!(d, Delivery::Replaced);
        assert_eq!(
            notifications.bell().iter().map(|n| n.title.as_str()).collect::<Vec<_>>(),
            ["2 new"]
        );
        notifications.shown("a");
        let (d, _) = notifications
            .notify(poster("a", false), &json!({"title": "3 new", "tag": "inbox"}), "now".into())
            .unwrap();
        assert_eq!(d, Delivery::Delivered, "a shown notification is not replaced");
        assert_eq!(
            notifications
                .notify(poster("a", true), &json!({"title": "quiet"}), "now".into())
                .unwrap()
                .0,
            Delivery::Muted
        );
        assert_eq!(notifications.bell().len(), 2);
    }

    #[test]
    fn badges_latest_wins_zero_clears_muted_leaves_sum() {
        let notifications = Notifications::default();
        notifications.badge("a", &json!(3)).unwrap();
        notifications.badge("a", &json!(5)).unwrap();
        notifications.badge("b", &json!(2)).unwrap();
        assert_eq!(notifications.badges(|_| false).total, 7);
        assert_eq!(notifications.badges(|app| app == "b").total, 5);
        notifications.badge("a", &json!(0)).unwrap();
        assert_eq!(notifications.badges(|_| false).apps.len(), 1);
        assert!(notifications.badge("a", &json!(-1)).is_err());
        assert!(notifications.badge("a", &json!("x")).is_err());
    }
}
