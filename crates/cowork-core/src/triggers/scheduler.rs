//! When the armed schedules of a workspace fall due, in local time: pure functions of the
//! schedules, their last fires and an injected `now` and time zone. The daemon's tick loop
//! (`cowork_daemon::triggers`) reads the armed workspaces, takes each one's registry from the
//! engine (kept fresh by its watcher), asks [`due`] what fell due since each schedule last fired,
//! and writes the last fires to `<root>/workspaces/<key>/schedule.json` BEFORE the runs start, so
//! a restart never fires a minute twice (a crash between the two loses that one run rather than
//! doubling it).
//!
//! Missed fires (the machine slept, the daemon was down): at most ONE catch-up run, at once, for
//! all the minutes missed; its audit line says so (`context.caller.source` = `catch-up`). A single
//! fire found within [`GRACE`] of its minute is an ordinary one. A schedule seen for the first time (just
//! armed, just added) starts counting from now: arming never fires the past.

use super::arming::Armed;
use super::deployments;
use super::schedule::{Schedule, ScheduleError};
use crate::paths::Root;
use crate::registry::Registry;
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How late a fire may be and still count as on time.
pub const GRACE: SignedDuration = SignedDuration::from_secs(120);

/// The file, under the workspace's folder in the Cowork root.
pub const FILE: &str = "schedule.json";

/// A schedule's fire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fire {
    /// The routine.
    pub id: String,
    /// The minute it is for.
    pub at: Timestamp,
    /// It stands for minutes missed: its own by more than [`GRACE`], or earlier ones besides it.
    pub catch_up: bool,
}

/// The last fire of each schedule of one workspace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LastFires {
    /// Routine id → the minute it last fired for (or when its schedule was first seen).
    #[serde(default)]
    pub last_fire: BTreeMap<String, Timestamp>,
}

impl LastFires {
    fn path(root: &Root, workspace: &Path) -> PathBuf {
        root.workspace_dir(workspace).join(FILE)
    }

    /// Reads them; a missing or damaged file starts every schedule from now.
    pub fn read(root: &Root, workspace: &Path) -> LastFires {
        std::fs::read_to_string(Self::path(root, workspace))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    /// Writes them atomically.
    pub fn write(&self, root: &Root, workspace: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).expect("timestamps serialize");
        crate::fs_atomic::write(&Self::path(root, workspace), format!("{text}\n").as_bytes(), true)
    }
}

/// What is due at `now` among `schedules` (routine id → schedule), given and updating `last`.
/// Schedules no longer listed are forgotten.
pub fn due(
    schedules: &BTreeMap<String, Schedule>,
    last: &mut LastFires,
    now: Timestamp,
    tz: &TimeZone,
) -> Vec<Fire> {
    last.last_fire.retain(|id, _| schedules.contains_key(id));
    let mut fires = Vec::new();
    for (id, schedule) in schedules {
        let Some(&previous) = last.last_fire.get(id) else {
            last.last_fire.insert(id.clone(), now);
            continue;
        };
        // A clock set back: count from now, never from the future.
        let previous = previous.min(now);
        if let Some(at) = schedule.last_due(previous, now, tz) {
            last.last_fire.insert(id.clone(), at);
            // Late, or standing for earlier minutes too (a daemon down from 20:55 to 20:58:33
            // finds 20:58 on time, but 20:56 and 20:57 were missed).
            let missed_earlier = schedule.next_after(previous, tz).is_some_and(|first| first < at);
            let catch_up = now.duration_since(at) > GRACE || missed_earlier;
            fires.push(Fire { id: id.clone(), at, catch_up });
        }
    }
    fires
}

/// The armed local schedules of the workspace `registry` describes whose routine is switched on:
/// a schedule changed since its owner armed it is not among them. Each is read, or why its cron
/// does not read (the caller says so; it fires nothing).
pub fn armed_schedules(
    registry: &Registry,
    armed: &Armed,
) -> BTreeMap<String, Result<Schedule, ScheduleError>> {
    deployments::of(&registry.config)
        .into_iter()
        .filter(|(id, _)| registry.routine(id).is_some_and(|r| !r.disabled))
        .filter_map(|(id, deployment)| {
            let cron = deployment.local_schedule()?.to_owned();
            armed.fires(&id, &deployment).then(|| (id, Schedule::parse(&cron)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn one(cron: &str) -> BTreeMap<String, Schedule> {
        BTreeMap::from([("job".to_owned(), Schedule::parse(cron).unwrap())])
    }

    #[test]
    fn a_new_schedule_never_fires_the_past_and_a_minute_fires_once() {
        let tz = TimeZone::UTC;
        let schedules = one("0 6 * * *");
        let mut last = LastFires::default();
        assert!(due(&schedules, &mut last, at("2026-03-01T06:00:30Z"), &tz).is_empty());
        assert!(due(&schedules, &mut last, at("2026-03-01T06:00:40Z"), &tz).is_empty());
        let fires = due(&schedules, &mut last, at("2026-03-02T06:00:05Z"), &tz);
        assert_eq!(
            fires,
            [Fire { id: "job".into(), at: at("2026-03-02T06:00:00Z"), catch_up: false }]
        );
        assert!(due(&schedules, &mut last, at("2026-03-02T06:00:15Z"), &tz).is_empty());
    }

    #[test]
    fn a_restart_never_fires_a_minute_twice() {
        let root = tempfile::tempdir().unwrap();
        let root = Root::new(root.path());
        let ws = Path::new("/ws");
        let tz = TimeZone::UTC;
        let schedules = one("*/5 * * * *");
        let mut last = LastFires::default();
        due(&schedules, &mut last, at("2026-03-01T10:01:00Z"), &tz);
        let fired = due(&schedules, &mut last, at("2026-03-01T10:05:01Z"), &tz);
        assert_eq!(fired.len(), 1);
        last.write(&root, ws).unwrap();

        // A new daemon, a few seconds later, in the same minute.
        let mut reread = LastFires::read(&root, ws);
        assert_eq!(reread, last);
        assert!(due(&schedules, &mut reread, at("2026-03-01T10:05:09Z"), &tz).is_empty());
        let next = due(&schedules, &mut reread, at("2026-03-01T10:10:00Z"), &tz);
        assert_eq!(next[0].at, at("2026-03-01T10:10:00Z"));
    }

    #[test]
    fn missed_minutes_make_one_catch_up_run() {
        let tz = TimeZone::UTC;
        let schedules = one("0 * * * *");
        let mut last = LastFires::default();
        due(&schedules, &mut last, at("2026-03-01T08:30:00Z"), &tz);
        // Asleep from 08:30 to 13:20: 09:00 … 13:00 missed, one run for them all.
        let fires = due(&schedules, &mut last, at("2026-03-01T13:20:00Z"), &tz);
        assert_eq!(
            fires,
            [Fire { id: "job".into(), at: at("2026-03-01T13:00:00Z"), catch_up: true }]
        );
        assert!(due(&schedules, &mut last, at("2026-03-01T13:21:00Z"), &tz).is_empty());
        // Weeks away: still one, and the walk stays bounded.
        let fires = due(&schedules, &mut last, at("2026-05-01T00:30:00Z"), &tz);
        assert_eq!(fires.len(), 1);
        assert_eq!(fires[0].at, at("2026-05-01T00:00:00Z"));
        assert!(fires[0].catch_up);
        // Every minute, ten days away: more than the walk holds, found by stepping back. The
        // last minute is on time, but it stands for all the others: a catch-up.
        let every = one("* * * * *");
        let mut last = LastFires::default();
        due(&every, &mut last, at("2026-03-01T00:00:30Z"), &tz);
        let fires = due(&every, &mut last, at("2026-03-11T00:00:30Z"), &tz);
        assert_eq!(
            fires,
            [Fire { id: "job".into(), at: at("2026-03-11T00:00:00Z"), catch_up: true }]
        );
        // Down three minutes, found 33 s after the last: the two before it make it a catch-up.
        due(&every, &mut last, at("2026-03-11T00:55:40Z"), &tz);
        let fires = due(&every, &mut last, at("2026-03-11T00:58:33Z"), &tz);
        assert_eq!(
            fires,
            [Fire { id: "job".into(), at: at("2026-03-11T00:58:00Z"), catch_up: true }]
        );
        // One minute looked at on time is ordinary.
        let fires = due(&every, &mut last, at("2026-03-11T00:59:10Z"), &tz);
        assert!(!fires[0].catch_up);
    }

    /// Central European time as a POSIX TZ rule (no tz database needed): 2025-03-30 02:00 CET
    /// jumps to 03:00 CEST; 2025-10-26 03:00 CEST falls back to 02:00 CET.
    fn cet() -> TimeZone {
        TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap()
    }

    /// Drives the scheduler minute by minute over `[from, to)` (UTC) and lists what fired, as
    /// local wall-clock times.
    fn fired_between(cron: &str, from: &str, to: &str) -> Vec<String> {
        let tz = cet();
        let schedules = one(cron);
        let mut last = LastFires::default();
        let mut now = at(from);
        let mut fired = Vec::new();
        while now < at(to) {
            for fire in due(&schedules, &mut last, now, &tz) {
                assert!(!fire.catch_up, "a daemon that looks every minute is never late");
                fired.push(fire.at.to_zoned(tz.clone()).strftime("%H:%M %Z").to_string());
            }
            now += SignedDuration::from_secs(30);
        }
        fired
    }

    #[test]
    fn a_fixed_time_in_the_spring_gap_fires_right_after_it() {
        // 02:30 does not exist on 2025-03-30 in CET.
        let fired = fired_between("30 2 * * *", "2025-03-29T22:00:00Z", "2025-03-31T03:00:00Z");
        assert_eq!(fired, ["03:00 CEST", "02:30 CEST"]);
    }

    #[test]
    fn a_wildcard_hour_skips_the_gap_and_repeats_in_the_fall() {
        let spring = fired_between("15 * * * *", "2025-03-30T00:00:00Z", "2025-03-30T03:00:00Z");
        assert_eq!(spring, ["01:15 CET", "03:15 CEST", "04:15 CEST"]);
        let fall = fired_between("15 * * * *", "2025-10-25T22:30:00Z", "2025-10-26T02:30:00Z");
        assert_eq!(fall, ["01:15 CEST", "02:15 CEST", "02:15 CET", "03:15 CET"]);
    }

    #[test]
    fn a_fixed_time_in_the_repeated_hour_fires_once() {
        let fired = fired_between("30 2 * * *", "2025-10-25T20:00:00Z", "2025-10-26T06:00:00Z");
        assert_eq!(fired, ["02:30 CEST"]);
    }
}
