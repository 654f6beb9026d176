//! A site app's unread count, from the best source the site offers (docs/guides/site-apps.md): the
//! count it sets with `navigator.setAppBadge`, else the `(N)` in front of its page title, else the
//! notifications it raised since its window last had the focus.
//!
//! Titles are read with care: only a leading `(N) ` or `[N] ` with N ≤ 9999 is a count, and not a
//! four-digit number that reads as a year (1900–2099: `(2024) Report`), nor `(beta)`; and a title that blinks — `(3) Inbox` one second, `New message!`
//! the next — keeps the count. A title without a count clears it at once only when it is the same
//! title without its prefix (`Inbox`); any other title clears it once it has held for [`HOLD`].

use std::time::{Duration, Instant};

/// How long a title without a count must stay before the count it replaced is gone: longer than
/// any blink (sites alternate every 1–2 s).
pub const HOLD: Duration = Duration::from_secs(4);

/// Where the count comes from (shown as `unreadSource`): the daemon's word for it.
pub use cowork_wire::daemon::notifications::UnreadSource as Source;

/// The count a title starts with, and the rest of the title: `(N) ` or `[N] `, N of 1–4 digits and
/// not a year (1900–2099: a count that high is rare and would be a site's own badge;
/// `(2024) Report` is common). Anything else is not a count.
fn split_title(title: &str) -> Option<(u64, &str)> {
    let title = title.trim_start();
    let close = match title.chars().next()? {
        '(' => ')',
        '[' => ']',
        _ => return None,
    };
    let inner_end = title.find(close)?;
    let digits = &title[1..inner_end];
    if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rest = title[inner_end + 1..].strip_prefix(' ')?;
    let count: u64 = digits.parse().ok()?;
    if digits.len() == 4 && (1900..=2099).contains(&count) {
        return None;
    }
    Some((count, rest.trim()))
}

/// What the titles said.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TitleCount {
    count: u64,
    /// The last counted title without its prefix: `Inbox` for `(3) Inbox`.
    base: String,
    /// A title without a count, and since when it shows.
    pending: Option<(String, Instant)>,
}

/// One site app's unread state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unread {
    /// Set once the site used `setAppBadge` or `clearAppBadge`: from then on the only source.
    badge: Option<u64>,
    /// Set once a title carried a count.
    title: Option<TitleCount>,
    since_focus: u64,
}

impl Unread {
    pub fn source(&self) -> Source {
        if self.badge.is_some() {
            Source::Badge
        } else if self.title.is_some() {
            Source::Title
        } else {
            Source::Notifications
        }
    }

    /// The count of the source in use.
    pub fn count(&self) -> u64 {
        match (self.badge, &self.title) {
            (Some(badge), _) => badge,
            (None, Some(title)) => title.count,
            (None, None) => self.since_focus,
        }
    }

    /// `setAppBadge(n)` (`Some(n)`), `setAppBadge()` (a flag: `None`, counted as 1), or
    /// `clearAppBadge()` (`Some(0)`).
    pub fn on_badge(&mut self, count: Option<u64>) {
        self.badge = Some(count.unwrap_or(1));
    }

    /// The page's title changed. Returns whether a count is waiting to be cleared: call
    /// [`Unread::settle`] after [`HOLD`].
    pub fn on_title(&mut self, title: &str, now: Instant) -> bool {
        if let Some((count, base)) = split_title(title) {
            self.title = Some(TitleCount { count, base: base.to_string(), pending: None });
            return false;
        }
        let Some(counted) = self.title.as_mut() else { return false };
        let title = title.trim();
        if title == counted.base {
            counted.count = 0;
            counted.pending = None;
            return false;
        }
        match &counted.pending {
            Some((pending, _)) if pending == title => {}
            _ => counted.pending = Some((title.to_string(), now)),
        }
        counted.count > 0
    }

    /// Clears a title's count when a title without one has held for [`HOLD`] by `now`.
    pub fn settle(&mut self, now: Instant) {
        let Some(counted) = self.title.as_mut() else { return };
        if let Some((title, since)) = counted.pending.take() {
            if now.duration_since(since) >= HOLD {
                counted.count = 0;
                counted.base = title;
            } else {
                counted.pending = Some((title, since));
            }
        }
    }

    /// The site raised a notification that was delivered; `focused`: its window had the focus.
    pub fn on_notification(&mut self, focused: bool) {
        if !focused {
            self.since_focus += 1;
        }
    }

    /// The site's window got the focus.
    pub fn on_focus(&mut self) {
        self.since_focus = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn title_count(title: &str) -> Option<u64> {
        split_title(title).map(|(count, _)| count)
    }

    #[test]
    fn only_a_leading_small_number_in_brackets_then_a_space_is_a_count() {
        assert_eq!(title_count("(3) Inbox"), Some(3));
        assert_eq!(title_count("[12] Chat"), Some(12));
        assert_eq!(title_count("(9999) Lots"), Some(9999));
        assert_eq!(title_count("(0) Inbox"), Some(0));
        assert_eq!(title_count("(10000) Too many"), None, "more than 4 digits is not a count");
        assert_eq!(title_count("(2024) Report"), None, "a year");
        assert_eq!(title_count("(1999) Party"), None, "a year");
        assert_eq!(title_count("(2100) Unread"), Some(2100));
        assert_eq!(title_count("(0199) Odd"), Some(199));
        assert_eq!(title_count("(2024)Report"), None, "no space after it");
        assert_eq!(title_count("(beta) App"), None);
        assert_eq!(title_count("( 3) Inbox"), None);
        assert_eq!(title_count("(3 new) Inbox"), None);
        assert_eq!(title_count("(-1) Inbox"), None);
        assert_eq!(title_count("(3] Inbox"), None);
        assert_eq!(title_count("Inbox (3)"), None, "not at the start");
        assert_eq!(title_count("(3)"), None);
        assert_eq!(title_count(""), None);
        assert_eq!(title_count("(٣) Inbox"), None, "ASCII digits only");
    }

    #[test]
    fn a_blinking_title_keeps_its_count() {
        let start = Instant::now();
        let mut unread = Unread::default();
        assert!(!unread.on_title("(3) Inbox", start));
        assert_eq!((unread.source(), unread.count()), (Source::Title, 3));
        for second in 1..10 {
            let title = if second % 2 == 1 { "New message!" } else { "(3) Inbox" };
            unread.on_title(title, start + Duration::from_secs(second));
            unread.settle(start + Duration::from_secs(second) + Duration::from_millis(900));
            assert_eq!(unread.count(), 3, "after {title:?} at {second} s");
        }
    }

    #[test]
    fn the_same_title_without_its_count_clears_it_at_once() {
        let now = Instant::now();
        let mut unread = Unread::default();
        unread.on_title("(3) Inbox", now);
        assert!(!unread.on_title("Inbox", now));
        assert_eq!((unread.source(), unread.count()), (Source::Title, 0));
    }

    #[test]
    fn another_title_without_a_count_clears_it_once_it_holds() {
        let start = Instant::now();
        let mut unread = Unread::default();
        unread.on_title("(3) Inbox", start);
        assert!(unread.on_title("Sent", start + Duration::from_secs(1)), "a clear is pending");
        unread.settle(start + Duration::from_secs(2));
        assert_eq!(unread.count(), 3, "not yet: it could be a blink");
        // The same title again does not restart the wait.
        unread.on_title("Sent", start + Duration::from_secs(3));
        unread.settle(start + Duration::from_secs(1) + HOLD);
        assert_eq!(unread.count(), 0);
        unread.on_title("(1) Sent", start + Duration::from_secs(9));
        assert_eq!(unread.count(), 1);
    }

    #[test]
    fn titles_that_never_count_leave_the_notifications_source() {
        let now = Instant::now();
        let mut unread = Unread::default();
        unread.on_title("(beta) Dashboard", now);
        unread.on_title("Report [draft]", now);
        assert_eq!(unread.source(), Source::Notifications);
        unread.on_notification(false);
        unread.on_notification(false);
        unread.on_notification(true);
        assert_eq!(unread.count(), 2, "one arrived while the window was focused");
        unread.on_focus();
        assert_eq!(unread.count(), 0);
    }

    #[test]
    fn set_app_badge_wins_over_the_title_once_used() {
        let now = Instant::now();
        let mut unread = Unread::default();
        unread.on_title("(3) Inbox", now);
        unread.on_badge(Some(4));
        assert_eq!((unread.source(), unread.count()), (Source::Badge, 4));
        unread.on_title("(7) Inbox", now);
        assert_eq!(unread.count(), 4);
        unread.on_badge(Some(0));
        assert_eq!(
            (unread.source(), unread.count()),
            (Source::Badge, 0),
            "cleared, still the source"
        );
        unread.on_badge(None);
        assert_eq!(unread.count(), 1, "a badge without a number counts as 1");
    }
}
