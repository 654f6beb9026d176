//! `cowork.capture` as the daemon sees it: the rules a request must pass before the desktop shell
//! asks the person (what the manifest's `capture` declares, where the file goes, free space, one
//! capture per workspace), the order sent down the desktop channel, and the sessions it answers.
//!
//! The daemon never records: the shell does (its `capture` module), after its own native dialog.
//! A pane's call waits here for the shell's answer (`POST /api/desktop/capture/answer`); what a
//! recording sends later — live audio, its end — arrives at `POST /api/desktop/capture/event` and
//! goes on to the one pane that holds the session, as an `Event::Capture`.

use cowork_core::error_name::ErrorName;
use cowork_core::manifest::Capture;
use cowork_wire::daemon::capture::{Outcome, RecordParams};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use tokio::sync::{oneshot, watch};

/// Below this much free space a recording does not start, and one that runs stops.
pub const MIN_FREE_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// Where recordings and stills go by default, inside the workspace.
pub const RECORDINGS: &str = "Recordings";

/// Why a capture request is refused before anyone is asked.
#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    #[error("this app's cowork.json does not declare {missing} in \"capture\" (add it: \"capture\": [{list}])")]
    /// The app's manifest does not declare what is asked (`capture`).
    NotDeclared {
        /// What is asked and not declared.
        missing: String,
        /// What the manifest should list.
        list: String,
    },
    #[error("{given} is outside the workspace: a capture is saved inside it (leave `file` out for {RECORDINGS}/)")]
    /// `file` leads outside the workspace.
    Outside {
        /// The `file` as given.
        given: String,
    },
    #[error("`file` \"{given}\" must end in .{ext}")]
    /// `file` has the wrong extension for what is captured.
    Extension {
        /// The `file` as given.
        given: String,
        /// The extension it needs (`webm`, `png`…).
        ext: &'static str,
    },
    #[error(
        "only {free} MB free where {file} would be written: a capture needs 2 GB (free some space)"
    )]
    /// Less than 2 GB free where the capture would be written.
    DiskFull {
        /// Megabytes free.
        free: u64,
        /// The file it would be written to.
        file: String,
    },
    #[error("failed to check the free space under {dir}: {source}")]
    /// The free space could not be checked.
    Space {
        /// The folder checked.
        dir: String,
        /// What the system said.
        source: std::io::Error,
    },
    #[error("a recording already runs in this workspace (by {app}): one capture at a time")]
    /// A recording already runs in this workspace: one capture at a time.
    Busy {
        /// The app whose recording runs.
        app: String,
    },
    /// Nothing to record: no video and no sound asked.
    #[error("ask for something to record: `video`, `audio.system` or `audio.mic`")]
    Nothing,
}

impl RuleError {
    /// The name the pane's promise rejects with.
    pub fn name(&self) -> ErrorName {
        use ErrorName as N;
        match self {
            RuleError::NotDeclared { .. } => N::NotDeclared,
            RuleError::Outside { .. } => N::Forbidden,
            RuleError::Extension { .. } | RuleError::Nothing => N::BadRequest,
            RuleError::DiskFull { .. } => N::DiskFull,
            RuleError::Space { .. } => N::Unavailable,
            RuleError::Busy { .. } => N::Busy,
        }
    }
}

/// What `declared` (the manifest's `capture`) lacks for a recording of `params`, if anything.
pub fn check_record(declared: &[Capture], params: &RecordParams) -> Result<(), RuleError> {
    if params.video.is_none() && !params.audio.system && !params.audio.mic {
        return Err(RuleError::Nothing);
    }
    let wanted = [
        (params.video.is_some(), Capture::Screen, "\"screen\""),
        (params.audio.system, Capture::SystemAudio, "\"system-audio\""),
        (params.audio.mic, Capture::Mic, "\"mic\""),
    ];
    missing(declared, &wanted)
}

/// What `declared` lacks for a still.
pub fn check_shot(declared: &[Capture]) -> Result<(), RuleError> {
    missing(declared, &[(true, Capture::Screenshot, "\"screenshot\"")])
}

fn missing(declared: &[Capture], wanted: &[(bool, Capture, &str)]) -> Result<(), RuleError> {
    let lacking: Vec<&str> = wanted
        .iter()
        .filter(|(asked, what, _)| *asked && !declared.contains(what))
        .map(|(_, _, name)| *name)
        .collect();
    if lacking.is_empty() {
        return Ok(());
    }
    let mut list: Vec<&str> = wanted.iter().filter(|(asked, ..)| *asked).map(|w| w.2).collect();
    list.dedup();
    Err(RuleError::NotDeclared { missing: lacking.join(" and "), list: list.join(", ") })
}

/// The file a capture is saved to: `given` (workspace-relative, or absolute inside the workspace)
/// or `Recordings/<date-time>-<app>.<ext>`. Anything that leads out of the workspace — `..`, an
/// absolute path elsewhere, a folder that is a symlink out — or into `.cowork/` is refused.
pub fn target(
    root: &Path,
    app: &str,
    given: Option<&str>,
    ext: &'static str,
    now: jiff::civil::DateTime,
) -> Result<PathBuf, RuleError> {
    let Some(given) = given else {
        let stamp = now.strftime("%Y-%m-%d-%H%M%S");
        return Ok(root.join(RECORDINGS).join(format!("{stamp}-{app}.{ext}")));
    };
    let outside = || RuleError::Outside { given: given.to_string() };
    let path = Path::new(given);
    let relative =
        if path.is_absolute() { path.strip_prefix(root).map_err(|_| outside())? } else { path };
    let mut inside = PathBuf::new();
    for part in relative.components() {
        match part {
            Component::Normal(name) => inside.push(name),
            Component::CurDir => {}
            Component::ParentDir if inside.pop() => {}
            _ => return Err(outside()),
        }
    }
    if inside.as_os_str().is_empty() || inside.starts_with(".cowork") {
        return Err(outside());
    }
    if inside.extension().and_then(|e| e.to_str()) != Some(ext) {
        return Err(RuleError::Extension { given: given.to_string(), ext });
    }
    // The nearest folder that exists must really be inside (a symlinked folder could lead out).
    let real_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let full = root.join(&inside);
    if let Some(existing) = full.ancestors().skip(1).find(|dir| dir.exists()) {
        let real = existing.canonicalize().map_err(|_| outside())?;
        if !real.starts_with(&real_root) {
            return Err(outside());
        }
    }
    Ok(full)
}

/// Free space for this user under the nearest existing folder of `file`.
pub fn free_space(file: &Path) -> Result<u64, RuleError> {
    let dir = file.ancestors().skip(1).find(|dir| dir.exists()).unwrap_or(Path::new("/"));
    fs4::available_space(dir)
        .map_err(|source| RuleError::Space { dir: dir.display().to_string(), source })
}

/// [`RuleError::DiskFull`] when less than [`MIN_FREE_BYTES`] is free where `file` goes.
pub fn check_room(file: &Path, shown: &str) -> Result<(), RuleError> {
    let free = free_space(file)?;
    if free < MIN_FREE_BYTES {
        return Err(RuleError::DiskFull { free: free / (1024 * 1024), file: shown.to_string() });
    }
    Ok(())
}

/// A recording in progress, as the daemon tracks it.
#[derive(Debug, Clone)]
pub struct Session {
    /// The session id that names the recording (`capture.stop`, events).
    pub id: String,
    /// The app that started it.
    pub app: String,
    /// The pane its events go to: the one that started it, or the last to call `current()`.
    pub pane: String,
    /// Workspace-relative.
    pub file: String,
    /// Turns true when the recording has stopped and its file is final.
    pub done: watch::Receiver<bool>,
    done_tx: std::sync::Arc<watch::Sender<bool>>,
}

/// The capture slot of each workspace, and the requests waiting for the shell's answer.
#[derive(Default)]
pub struct Captures {
    /// Workspace → what holds its one capture slot: a request being asked, or a recording.
    slots: Mutex<HashMap<String, Slot>>,
    waiting: Mutex<HashMap<String, oneshot::Sender<Outcome>>>,
}

#[derive(Debug, Clone)]
enum Slot {
    Asking { app: String },
    Recording(Session),
}

/// Holds a workspace's capture slot while its request is asked; let go on drop unless it became
/// a recording.
pub struct Reservation<'a> {
    captures: &'a Captures,
    workspace: String,
    kept: bool,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if !self.kept {
            let mut slots = self.captures.slots.lock();
            if matches!(slots.get(&self.workspace), Some(Slot::Asking { .. })) {
                slots.remove(&self.workspace);
            }
        }
    }
}

impl Captures {
    /// Takes the workspace's capture slot for `app`, or says who holds it.
    pub fn reserve(&self, workspace: &str, app: &str) -> Result<Reservation<'_>, RuleError> {
        let mut slots = self.slots.lock();
        if let Some(held) = slots.get(workspace) {
            let app = match held {
                Slot::Asking { app } => app,
                Slot::Recording(session) => &session.app,
            };
            return Err(RuleError::Busy { app: app.clone() });
        }
        slots.insert(workspace.to_string(), Slot::Asking { app: app.to_string() });
        Ok(Reservation { captures: self, workspace: workspace.to_string(), kept: false })
    }

    /// The reserved slot becomes the recording `id` of `pane`.
    pub fn started(
        &self,
        mut reservation: Reservation<'_>,
        id: &str,
        app: &str,
        pane: &str,
        file: &str,
    ) {
        let (done_tx, done) = watch::channel(false);
        let session = Session {
            id: id.to_string(),
            app: app.to_string(),
            pane: pane.to_string(),
            file: file.to_string(),
            done,
            done_tx: std::sync::Arc::new(done_tx),
        };
        self.slots.lock().insert(reservation.workspace.clone(), Slot::Recording(session));
        reservation.kept = true;
    }

    /// The recording `app` runs in `workspace`, now owned by `pane` (a remounted pane takes it).
    pub fn current(&self, workspace: &str, app: &str, pane: &str) -> Option<Session> {
        let mut slots = self.slots.lock();
        match slots.get_mut(workspace) {
            Some(Slot::Recording(session)) if session.app == app => {
                session.pane = pane.to_string();
                Some(session.clone())
            }
            _ => None,
        }
    }

    /// The recording `id`, wherever it runs: its workspace and session.
    pub fn session(&self, id: &str) -> Option<(String, Session)> {
        self.slots.lock().iter().find_map(|(workspace, slot)| match slot {
            Slot::Recording(session) if session.id == id => {
                Some((workspace.clone(), session.clone()))
            }
            _ => None,
        })
    }

    /// The recording `id` ended: its slot is free and whoever waits on it is told.
    pub fn ended(&self, id: &str) -> Option<(String, Session)> {
        let mut slots = self.slots.lock();
        let workspace = slots.iter().find_map(|(workspace, slot)| match slot {
            Slot::Recording(session) if session.id == id => Some(workspace.clone()),
            _ => None,
        })?;
        let Some(Slot::Recording(session)) = slots.remove(&workspace) else {
            unreachable!("the slot was just found recording")
        };
        session.done_tx.send_replace(true);
        Some((workspace, session))
    }

    /// Waits for the shell's answer to request `id`.
    pub fn expect(&self, id: &str) -> oneshot::Receiver<Outcome> {
        let (tx, rx) = oneshot::channel();
        self.waiting.lock().insert(id.to_string(), tx);
        rx
    }

    /// Stops waiting for `id` (asked, then given up).
    pub fn forget(&self, id: &str) {
        self.waiting.lock().remove(id);
    }

    /// Hands the shell's answer to the call waiting for it; false when none waits.
    pub fn answer(&self, id: &str, outcome: Outcome) -> bool {
        self.waiting.lock().remove(id).is_some_and(|tx| tx.send(outcome).is_ok())
    }

    /// The shell went away: every recording is over (a crashed shell's `.part` is repaired at its
    /// next start), and whoever waits on one is told.
    pub fn abandon(&self) {
        let mut slots = self.slots.lock();
        slots.retain(|_, slot| match slot {
            Slot::Recording(session) => {
                session.done_tx.send_replace(true);
                false
            }
            Slot::Asking { .. } => true,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cowork_wire::daemon::capture::Video;

    fn record(json: serde_json::Value) -> RecordParams {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn a_recording_needs_each_thing_it_asks_for_declared() {
        let params = record(serde_json::json!({"audio": {"system": true, "mic": true}}));
        let error = check_record(&[Capture::Screen, Capture::Mic], &params).unwrap_err();
        assert_eq!(error.name(), ErrorName::NotDeclared);
        assert_eq!(
            error.to_string(),
            "this app's cowork.json does not declare \"system-audio\" in \"capture\" (add it: \"capture\": [\"screen\", \"system-audio\", \"mic\"])"
        );
        let all = [Capture::Screen, Capture::SystemAudio, Capture::Mic];
        check_record(&all, &params).unwrap();
        let sound_only = record(serde_json::json!({"video": false, "audio": {"mic": true}}));
        check_record(&[Capture::Mic], &sound_only).unwrap();
        assert!(check_shot(&all).is_err());
        check_shot(&[Capture::Screenshot]).unwrap();
    }

    #[test]
    fn video_is_screen_by_default_window_or_false() {
        assert_eq!(record(serde_json::json!({})).video, Some(Video::Screen));
        assert_eq!(record(serde_json::json!({"video": "window"})).video, Some(Video::Window));
        assert_eq!(record(serde_json::json!({"video": false})).video, None);
        assert!(serde_json::from_value::<RecordParams>(serde_json::json!({"video": true})).is_err());
        let nothing = record(serde_json::json!({"video": false}));
        assert!(matches!(check_record(&[], &nothing), Err(RuleError::Nothing)));
    }

    #[test]
    fn a_capture_file_stays_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let now = jiff::civil::date(2026, 12, 2).at(4, 5, 6, 0);
        assert_eq!(
            target(root, "notes", None, "webm", now).unwrap(),
            root.join("Recordings/2026-12-02-040506-notes.webm")
        );
        assert_eq!(
            target(root, "notes", Some("talks/./a.webm"), "webm", now).unwrap(),
            root.join("talks/a.webm")
        );
        let inside = root.join("b.png");
        assert_eq!(target(root, "n", inside.to_str(), "png", now).unwrap(), inside);
        for outside in ["../a.webm", "/tmp/a.webm", "x/../../a.webm", ".cowork/local/a.webm"] {
            let error = target(root, "n", Some(outside), "webm", now).unwrap_err();
            assert!(matches!(error, RuleError::Outside { .. }), "{outside}: {error}");
        }
        let error = target(root, "n", Some("a.mp4"), "webm", now).unwrap_err();
        assert_eq!(error.to_string(), "`file` \"a.mp4\" must end in .webm");
        #[cfg(unix)]
        {
            let elsewhere = tempfile::tempdir().unwrap();
            std::os::unix::fs::symlink(elsewhere.path(), root.join("out")).unwrap();
            let error = target(root, "n", Some("out/a.webm"), "webm", now).unwrap_err();
            assert!(matches!(error, RuleError::Outside { .. }), "{error}");
        }
    }

    #[test]
    fn one_capture_per_workspace() {
        let captures = Captures::default();
        let asking = captures.reserve("/w", "notes").unwrap();
        let busy = captures.reserve("/w", "other").err().unwrap();
        assert_eq!(
            busy.to_string(),
            "a recording already runs in this workspace (by notes): one capture at a time"
        );
        captures.reserve("/elsewhere", "other").unwrap();
        captures.started(asking, "r1", "notes", "pane-1", "Recordings/a.webm");
        assert!(captures.reserve("/w", "other").is_err(), "a recording holds the slot");
        assert!(captures.current("/w", "other", "p").is_none(), "another app's recording");
        assert_eq!(captures.current("/w", "notes", "pane-2").unwrap().pane, "pane-2");
        assert_eq!(captures.session("r1").unwrap().1.pane, "pane-2");
        let (_, ended) = captures.ended("r1").unwrap();
        assert!(*ended.done.borrow());
        captures.reserve("/w", "other").unwrap();
        // A refused request lets go of the slot.
        assert!(captures.reserve("/w", "other").is_ok());
    }
}
