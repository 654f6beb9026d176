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

/// The most occurrences one [`Schedule::last_due`] walks through (a week of every-minute fires);
/// past that, the latest is found by stepping back from the end.
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

    /// The latest fire in `(after, until]`, in `tz`.
    pub fn last_due(&self, after: Timestamp, until: Timestamp, tz: &TimeZone) -> Option<Timestamp> {
        let mut latest = None;
        for fire in self.cron.iter_after(after.to_zoned(tz.clone())).take(WALK_LIMIT) {
            let fire = fire.timestamp();
            if fire > until {
                return latest;
            }
            latest = Some(fire);
        }
        // More than the walk holds: the latest is the last one at or before `until`.
        let until_zoned = until.to_zoned(tz.clone());
        let last = self.cron.find_previous_occurrence(&until_zoned, true).ok()?.timestamp();
        (last > after).then_some(last)
    }
}

#[cfg(test)]
mod tests {
    //! Vectors from croner-rust's own suite (`tests/jiff.rs`, `tests/ocps.rs`, the Open Cron
    //! Pattern Specification cases), run against the parser we configure: 5 fields, no seconds.

    use super::*;

    fn next(cron: &str, after: &str) -> String {
        let tz = TimeZone::UTC;
        let after: Timestamp = after.parse().unwrap();
        Schedule::parse(cron).unwrap().next_after(after, &tz).unwrap().to_string()
    }

    #[test]
    fn next_fires_match_the_cron_library_suite() {
        // tests/jiff.rs: finds_the_next_and_previous_occurrence (2024-01-03 is a Wednesday).
        assert_eq!(next("0 0 * * FRI", "2024-01-03T12:00:00Z"), "2024-01-05T00:00:00Z");
        // tests/jiff.rs: iterates_forwards_and_backwards.
        assert_eq!(next("0 0 * * MON", "2022-02-28T23:59:00Z"), "2022-03-07T00:00:00Z");
        // tests/jiff.rs: works_with_an_unzoned_civil_datetime (last day of a leap February).
        assert_eq!(next("0 0 L * *", "2024-02-01T00:00:00Z"), "2024-02-29T00:00:00Z");
        // tests/ocps.rs: the last Friday of July 2025 is the 25th; its second Tuesday the 8th;
        // the weekday closest to Saturday the 5th is Friday the 4th.
        assert_eq!(next("0 0 * * 5L", "2025-07-01T00:00:00Z"), "2025-07-25T00:00:00Z");
        assert_eq!(next("0 0 * * 2#2", "2025-07-01T00:00:00Z"), "2025-07-08T00:00:00Z");
        assert_eq!(next("0 0 5W 7 *", "2025-07-01T00:00:00Z"), "2025-07-04T00:00:00Z");
        // tests/ocps.rs: chrono_test_logical_or_for_date_fields — day-of-month OR day-of-week
        // (Vixie cron): the 1st (a Tuesday) and every Monday.
        assert_eq!(next("0 12 1 * MON", "2025-06-30T13:00:00Z"), "2025-07-01T12:00:00Z");
        assert_eq!(next("0 12 1 * MON", "2025-07-01T13:00:00Z"), "2025-07-07T12:00:00Z");
        // Aliases (tests/ocps.rs, OCPS 1.1).
        assert_eq!(next("@daily", "2025-07-01T13:00:00Z"), "2025-07-02T00:00:00Z");
        assert_eq!(next("*/15 * * * *", "2025-07-01T13:07:00Z"), "2025-07-01T13:15:00Z");
    }

    #[test]
    fn patterns_the_suite_accepts_and_refuses() {
        // tests/ocps.rs: test_5_field_baseline, test_special_chars_wildcard_list_range_step.
        for ok in ["15 10 1 10 *", "*/15 0-4,8-12 * JAN-MAR,DEC MON-FRI", "0-30/10 * * * *"] {
            assert!(Schedule::parse(ok).is_ok(), "{ok}");
        }
        // tests/ocps.rs: X/Z steps are refused (only */Z and X-Y/Z), and so are seconds and
        // years here: a schedule has minute granularity.
        for bad in [
            "0/10 * * * *",
            "/10 * * * *",
            "30 15 10 1 10 *",
            "0 0 12 1 1 * 2025",
            "",
            "61 * * * *",
        ] {
            let error = Schedule::parse(bad).expect_err(bad);
            assert!(error.to_string().contains("5-field cron expression"), "{error}");
        }
    }
}
