//! Who drives the browser now, for the banner and its Stop (issue 43): while a routine or an
//! agent acts on a page (an action in flight, or one ended less than [`LINGER`] ago), the window it
//! acts on shows a banner naming it with a Stop button. Stop makes that driver's action in flight
//! and every later one fail `Stopped` until the driver starts again: a request that comes with
//! another session (a routine's next run, the agent's next `cowork mcp-browser`).
//!
//! The bookkeeping is here, free of GTK, so that it is tested alone; `browser.rs` shows the
//! banners and `on_request` races each action against its driver's Stop.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How long the banner stays after a driver's last action: a routine's next action comes within
/// that, so the banner does not flicker between actions.
pub const LINGER: Duration = Duration::from_secs(4);

/// The window an action is on: the browser window (any tab), or a site app's window by name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Place {
    Browser,
    App(String),
}

#[derive(Debug)]
struct Active {
    label: String,
    session: Option<String>,
    place: Place,
    in_flight: usize,
    last: Instant,
}

/// Every driver acting now or lately, and the ones the person stopped.
#[derive(Debug, Default)]
pub struct Drivers {
    active: HashMap<String, Active>,
    /// Driver key → the session that was stopped.
    stopped: HashMap<String, Option<String>>,
}

impl Drivers {
    /// An action of the driver `key` (read as `label`) in `session` starts on `place`; `false`
    /// when the person stopped this driver in this session (the action must not run).
    pub fn begin(&mut self, key: &str, label: &str, session: Option<&str>, place: Place) -> bool {
        if let Some(stopped) = self.stopped.get(key) {
            if stopped.as_deref() == session {
                return false;
            }
            // Another run or session: the driver started again.
            self.stopped.remove(key);
        }
        let active = self.active.entry(key.to_owned()).or_insert_with(|| Active {
            label: label.to_owned(),
            session: None,
            place: place.clone(),
            in_flight: 0,
            last: Instant::now(),
        });
        active.label = label.to_owned();
        active.session = session.map(str::to_owned);
        active.place = place;
        active.in_flight += 1;
        active.last = Instant::now();
        true
    }

    /// An action of `key` ended (done, failed or stopped).
    pub fn end(&mut self, key: &str) {
        if let Some(active) = self.active.get_mut(key) {
            active.in_flight = active.in_flight.saturating_sub(1);
            active.last = Instant::now();
        }
    }

    /// Whether `key` in `session` is stopped now.
    pub fn is_stopped(&self, key: &str, session: Option<&str>) -> bool {
        self.stopped.get(key).is_some_and(|stopped| stopped.as_deref() == session)
    }

    /// The person pressed Stop on `place`'s banner: every driver it names is stopped; their keys.
    pub fn stop(&mut self, place: &Place) -> Vec<String> {
        let keys: Vec<String> = self
            .active
            .iter()
            .filter(|(_, active)| &active.place == place)
            .map(|(key, _)| key.clone())
            .collect();
        for key in &keys {
            if let Some(active) = self.active.remove(key) {
                self.stopped.insert(key.clone(), active.session);
            }
        }
        keys
    }

    /// What `place`'s banner says at `now` (none: no banner): the drivers acting on it now or
    /// within [`LINGER`], by name.
    pub fn banner(&self, place: &Place, now: Instant) -> Option<String> {
        let mut labels: Vec<&str> = self
            .active
            .values()
            .filter(|active| &active.place == place)
            .filter(|active| active.in_flight > 0 || now.duration_since(active.last) < LINGER)
            .map(|active| active.label.as_str())
            .collect();
        if labels.is_empty() {
            return None;
        }
        labels.sort_unstable();
        labels.dedup();
        let verb = if labels.len() == 1 { "is" } else { "are" };
        Some(format!("{} {verb} driving this window", labels.join(" and ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cowork_wire::browser::Driver;

    fn app(name: &str) -> Driver {
        Driver::App { workspace: "/w".into(), app: name.into(), title: name.into() }
    }

    #[test]
    fn a_banner_names_the_driver_while_it_acts_and_a_little_after() {
        let mut drivers = Drivers::default();
        let notes = app("notes").key();
        assert_eq!(notes, "app:/w:notes", "the consent file's spelling");
        assert_eq!(drivers.banner(&Place::Browser, Instant::now()), None);
        assert!(drivers.begin(&notes, "Notes (app)", Some("run-1"), Place::Browser));
        let shown = drivers.banner(&Place::Browser, Instant::now());
        assert_eq!(shown.as_deref(), Some("Notes (app) is driving this window"));
        assert_eq!(drivers.banner(&Place::App("mail".into()), Instant::now()), None);
        let agent = Driver::Agent { name: "claude-code".into() }.key();
        assert!(drivers.begin(&agent, "claude-code (agent)", Some("mcp-1"), Place::Browser));
        let both = drivers.banner(&Place::Browser, Instant::now());
        assert_eq!(
            both.as_deref(),
            Some("Notes (app) and claude-code (agent) are driving this window")
        );
        drivers.end(&agent);
        drivers.end(&notes);
        assert!(drivers.banner(&Place::Browser, Instant::now()).is_some(), "it lingers");
        let later = Instant::now() + LINGER + Duration::from_millis(10);
        assert_eq!(drivers.banner(&Place::Browser, later), None);
    }

    #[test]
    fn stop_holds_for_the_stopped_session_until_the_driver_starts_again() {
        let mut drivers = Drivers::default();
        let notes = app("notes").key();
        let agent = Driver::Agent { name: "claude-code".into() }.key();
        assert!(drivers.begin(&notes, "Notes (app)", Some("run-1"), Place::Browser));
        assert!(drivers.begin(
            &agent,
            "claude-code (agent)",
            Some("mcp-1"),
            Place::App("mail".into())
        ));
        assert_eq!(drivers.stop(&Place::Browser), vec![notes.clone()], "only the banner's drivers");
        assert!(drivers.is_stopped(&notes, Some("run-1")));
        assert_eq!(drivers.banner(&Place::Browser, Instant::now()), None, "the banner goes");
        assert!(!drivers.begin(&notes, "Notes (app)", Some("run-1"), Place::Browser), "same run");
        assert!(!drivers.is_stopped(&agent, Some("mcp-1")));
        // The routine's next run drives again.
        assert!(drivers.begin(&notes, "Notes (app)", Some("run-2"), Place::Browser));
        assert!(!drivers.is_stopped(&notes, Some("run-1")));
        // A driver without a session stays stopped until one comes with a session.
        drivers.stop(&Place::Browser);
        assert!(drivers.begin(&agent, "claude-code (agent)", None, Place::Browser));
        drivers.stop(&Place::Browser);
        assert!(!drivers.begin(&agent, "claude-code (agent)", None, Place::Browser));
        assert!(drivers.begin(&agent, "claude-code (agent)", Some("mcp-2"), Place::Browser));
    }
}
