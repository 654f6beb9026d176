//! The runs of a workspace that have started and not yet finished: what Manage Workspace ›
//! Observability › Executions lists as running now, with the triggered runs waiting for a slot
//! (queued). The audit log holds a run only once it ends; this is the other half, kept in memory
//! (a run does not outlive its daemon).

use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::Arc;

pub use cowork_wire::daemon::runs::RunningRun;

/// The running runs, by run id.
#[derive(Default)]
pub(crate) struct Running(Arc<Mutex<BTreeMap<String, RunningRun>>>);

impl Running {
    /// Lists `run` until the returned guard drops: when the run ends, fails, or its future is
    /// dropped (a caller that went away), so no entry outlives its run.
    pub(crate) fn enter(&self, run: RunningRun) -> Entered {
        let id = run.run_id.clone();
        self.0.lock().insert(id.clone(), run);
        Entered { runs: self.0.clone(), id }
    }

    /// Oldest first.
    pub(crate) fn list(&self) -> Vec<RunningRun> {
        let mut runs: Vec<RunningRun> = self.0.lock().values().cloned().collect();
        runs.sort_by(|a, b| a.started.cmp(&b.started));
        runs
    }
}

/// Removes its run from the list when dropped.
pub(crate) struct Entered {
    runs: Arc<Mutex<BTreeMap<String, RunningRun>>>,
    id: String,
}

impl Entered {
    /// The queued run got its slot at `started`, after `queued_ms`.
    pub(crate) fn start(&self, started: String, queued_ms: u64) {
        if let Some(run) = self.runs.lock().get_mut(&self.id) {
            run.started = started;
            run.queued = false;
            run.queued_ms = Some(queued_ms);
        }
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        self.runs.lock().remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, started: &str) -> RunningRun {
        RunningRun {
            run_id: id.into(),
            routine: "notes-list".into(),
            app: "notes".into(),
            started: started.into(),
            source: cowork_core::audit::Source::Cli,
            principal: None,
            agent: None,
            task: None,
            queued: false,
            queued_ms: None,
        }
    }

    #[test]
    fn a_run_is_listed_until_its_guard_drops_oldest_first() {
        let running = Running::default();
        let first = running.enter(run("b", "2026-12-02T04:00:00.000Z"));
        let second = running.enter(run("a", "2026-12-02T04:00:01.000Z"));
        let ids = |r: &Running| r.list().into_iter().map(|r| r.run_id).collect::<Vec<_>>();
        assert_eq!(ids(&running), ["b", "a"]);
        drop(second);
        assert_eq!(ids(&running), ["b"]);
        drop(first);
        assert!(running.list().is_empty());
    }

    #[test]
    fn a_queued_run_is_listed_from_when_it_was_queued_and_says_how_long_it_waited() {
        let running = Running::default();
        let queued =
            running.enter(RunningRun { queued: true, ..run("q", "2026-12-02T04:00:00.000Z") });
        assert!(running.list()[0].queued);
        queued.start("2026-12-02T04:00:02.500Z".into(), 2500);
        let listed = &running.list()[0];
        assert_eq!(
            (listed.queued, listed.queued_ms, listed.started.as_str()),
            (false, Some(2500), "2026-12-02T04:00:02.500Z")
        );
    }
}
