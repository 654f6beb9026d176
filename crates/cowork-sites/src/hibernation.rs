//! When a site app hibernates: its window has been out of sight (hidden or minimized) for the idle
//! time its settings name ([`crate::settings`]), without a moment shown in between. The shell
//! then releases the window and its web process, and opens it again at the same page when the
//! person shows it.
//!
//! The decision is data and time only — the caller observes the window and passes the clock's
//! `now` — so it is tested without a window or a wait.
//!
//! ```
//! use cowork_sites::hibernation::Idle;
//! use std::time::{Duration, Instant};
//! let start = Instant::now();
//! let mut idle = Idle::default();
//! idle.observe(false, start); // hidden
//! let after = Some(Duration::from_secs(600));
//! assert!(!idle.due(after, start + Duration::from_secs(599)));
//! assert!(idle.due(after, start + Duration::from_secs(600)));
//! ```

use std::time::{Duration, Instant};

/// How long a site app's window has been out of sight.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Idle {
    /// Since when it is hidden; `None` while it shows (or before it was ever seen hidden).
    hidden_since: Option<Instant>,
}

impl Idle {
    /// Records what the window looks like at `now`: `shown` (visible and not minimized) or not.
    /// Hidden again after a moment shown starts the wait over.
    pub fn observe(&mut self, shown: bool, now: Instant) {
        if shown {
            self.hidden_since = None;
        } else if self.hidden_since.is_none() {
            self.hidden_since = Some(now);
        }
    }

    /// Whether the app should hibernate at `now`, given its setting (`None`: it never does).
    pub fn due(&self, after: Option<Duration>, now: Instant) -> bool {
        match (self.hidden_since, after) {
            (Some(since), Some(after)) => now.saturating_duration_since(since) >= after,
            _ => false,
        }
    }

    /// How long until [`Idle::due`] can first be true, from `now` (`None`: not hidden, or never).
    pub fn remaining(&self, after: Option<Duration>, now: Instant) -> Option<Duration> {
        let since = self.hidden_since?;
        Some(after?.saturating_sub(now.saturating_duration_since(since)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEN_MINUTES: Option<Duration> = Some(Duration::from_secs(600));

    fn at(start: Instant, seconds: u64) -> Instant {
        start + Duration::from_secs(seconds)
    }

    #[test]
    fn a_window_hidden_for_the_idle_time_hibernates() {
        let start = Instant::now();
        let mut idle = Idle::default();
        idle.observe(false, start);
        // Seen hidden again and again: the wait runs from the first time.
        idle.observe(false, at(start, 300));
        assert!(!idle.due(TEN_MINUTES, at(start, 599)));
        assert_eq!(idle.remaining(TEN_MINUTES, at(start, 599)), Some(Duration::from_secs(1)));
        assert!(idle.due(TEN_MINUTES, at(start, 600)));
        assert_eq!(idle.remaining(TEN_MINUTES, at(start, 700)), Some(Duration::ZERO));
    }

    #[test]
    fn a_moment_shown_starts_the_wait_over() {
        let start = Instant::now();
        let mut idle = Idle::default();
        idle.observe(false, start);
        idle.observe(true, at(start, 500));
        assert!(!idle.due(TEN_MINUTES, at(start, 700)), "shown at 500 s");
        assert_eq!(idle.remaining(TEN_MINUTES, at(start, 700)), None);
        idle.observe(false, at(start, 800));
        assert!(!idle.due(TEN_MINUTES, at(start, 1399)));
        assert!(idle.due(TEN_MINUTES, at(start, 1400)));
    }

    #[test]
    fn a_window_in_sight_or_an_app_without_the_setting_never_hibernates() {
        let start = Instant::now();
        let mut shown = Idle::default();
        shown.observe(true, start);
        assert!(!shown.due(TEN_MINUTES, at(start, 86_400)));
        assert!(!Idle::default().due(TEN_MINUTES, at(start, 86_400)), "never seen hidden");
        let mut hidden = Idle::default();
        hidden.observe(false, start);
        assert!(!hidden.due(None, at(start, 86_400)), "hibernation off (the default)");
        assert_eq!(hidden.remaining(None, at(start, 1)), None);
        // Switched on while hidden: the time already hidden counts.
        assert!(hidden.due(TEN_MINUTES, at(start, 600)));
    }

    #[test]
    fn a_clock_that_goes_back_is_no_time_hidden() {
        let start = at(Instant::now(), 1000);
        let mut idle = Idle::default();
        idle.observe(false, start);
        assert!(!idle.due(Some(Duration::from_secs(1)), start - Duration::from_secs(5)));
    }
}
