//! A routine's schedule: a 5-field cron expression read by `croner` (no cron parser of ours), and
//! when it falls due in a time zone.
//!
//! Daylight saving follows croner, which follows the Open Cron Pattern Specification and
//! Vixie cron: a fixed time (`30 2 * * *`) that a spring-forward gap skips fires at the first
//! minute after the gap, and one that a fall-back repeats fires once, the first time; a wildcard or
//! stepped minute or hour (`*/15 * * * *`) fires on the wall clock, so nothing in a gap and twice in
//! a repeated hour.

use croner::parser::{CronParser, Seconds, Year};
use croner::Cron;
use jiff::tz::TimeZone;
use jiff::{Timestamp, Zoned};

/// The most occurrences one [`Schedule::last_due`] walks through (a week of every-minute fires):
/// a longer gap only needs the latest one, found by stepping back.
const WALK_LIMIT: usize = 7 * 24 * 60;

/// A cron expression that is not 5 fields croner reads.
#[derive(Debug, thiserror::Error)]
#[error("\"{text}\" is not a 5-field cron expression (minute hour day-of-month month day-of-week): {reason}")]
pub struct ScheduleError {
    /// What was given.
    pub text: String,
    /// What croner said.
    pub reason: String,
}

/// A parsed schedule.
#[derive(Debug, Clone)]
pub struct Schedule {
    cron: Cron,
}

impl Schedule {
    /// Reads `text`: five fields (no seconds, no year), names (`MON`, `JAN`) and `@daily`-style
    /// aliases allowed.
    pub fn parse(text: &str) -> Result<Schedule, ScheduleError> {
        let error = |reason: String| ScheduleError { text: text.to_owned(), reason };
        if !text.trim_start().starts_with('@') && text.split_whitespace().count() != 5 {
            return Err(error(format!("{} fields", text.split_whitespace().count())));
        }
        let parser =
            CronParser::builder().seconds(Seconds::Disallowed).year(Year::Disallowed).build();
        let cron = parser.parse(text).map_err(|e| error(e.to_string()))?;
        Ok(Schedule { cron })
    }

    /// The first fire strictly after `after`, in `tz`.
    pub fn next_after(&self, after: Timestamp, tz: &TimeZone) -> Option<Timestamp> {
        let start = after.to_zoned(tz.clone());
        self.cron.find_next_occurrence(&start, false).ok().map(|z: Zoned| z.timestamp())
    }

    /// The latest fire in `(after, until]`, in `tz`, and how many fell in that span (up to the
    /// walk limit).
    pub fn last_due(
        &self,
        after: Timestamp,
        until: Timestamp,
        tz: &TimeZone,
    ) -> Option<(Timestamp, usize)> {
        let mut latest = None;
        let mut count = 0;
        for fire in self.cron.iter_after(after.to_zoned(tz.clone())).take(WALK_LIMIT) {
            let fire = fire.timestamp();
            if fire > until {
                return latest.map(|t| (t, count));
            }
            latest = Some(fire);
            count += 1;
        }
        // More than the walk holds: the latest is the last one at or before `until`.
        let until_zoned = until.to_zoned(tz.clone());
        let last = self.cron.find_previous_occurrence(&until_zoned, true).ok()?.timestamp();
        (last > after).then_some((last, count))
    }
}
