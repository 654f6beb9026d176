//! What a run is asked with and what it answers: the request, its source, its time limit, and
//! its success or failure.

use crate::masks::Masks;
use crate::slots::SlotWait;
use cowork_core::audit::{CallerSource, Source};
use cowork_core::registry::RoutineEntry;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest any run may take.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(300);

/// Calls nest at most this deep: a → b → c, and c calling another is refused.
pub const MAX_DEPTH: usize = 2;

/// One request to run a routine.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// The routine's id.
    pub routine: String,
    /// Its arguments, as the routine's first parameter receives them.
    pub args: Value,
    /// Where the request came from: the audit line's `source`.
    pub source: Source,
    /// The agent (Claude Code, Codex) that ran the CLI, or the agent login of a call through
    /// the MCP door.
    pub agent: Option<String>,
    /// The agent login a call through the MCP door was made with: the audit line's `principal`
    /// (`agent` is then the client it spoke through).
    pub principal: Option<String>,
    /// The task an agent ran it for (a call through the MCP door): the audit line's `taskId`.
    pub task: Option<String>,
    /// The app the caller is (a widget's app, the calling routine's app); None for the owner's CLI.
    pub caller_app: Option<String>,
    /// What part of the caller asked, recorded as the audit line's `context.caller.source`: a
    /// footer item's refresh is tagged `status-bar` (page 12). Not passed on to nested runs,
    /// except [`CallerSource::Notification`].
    pub caller_source: Option<CallerSource>,
    /// Per-call timeout, capped at 300 s.
    pub timeout_ms: Option<u64>,
    /// The routines that called this one, outermost first.
    pub chain: Vec<String>,
    /// A nested run never outlives its caller.
    pub deadline: Option<Instant>,
    /// Whether it waits for a concurrency slot when every one is busy: only a run a trigger
    /// started does; any other is refused at once with `TooManyRoutines`.
    pub slot_wait: SlotWait,
    /// The calling run's masks, for a nested run: the values it reads are masked there too.
    caller_masks: Option<Arc<Masks>>,
    /// Says why the person stopped the run (`cowork routine run`'s Ctrl-C), once they have: it
    /// ends as `Stopped`, its processes ended and its record written. Nested runs share it.
    pub stop: Option<Stop>,
}

/// The person's stop of a run, shared with whoever may give it ([`Stop::stop`]).
#[derive(Debug, Clone, Default)]
pub struct Stop(Arc<tokio::sync::watch::Sender<Option<String>>>);

impl Stop {
    /// A stop not given yet.
    pub fn new() -> Stop {
        Stop(Arc::new(tokio::sync::watch::channel(None).0))
    }

    /// Stops the run, saying why (`Ctrl-C`).
    pub fn stop(&self, why: impl Into<String>) {
        self.0.send_replace(Some(why.into()));
    }

    /// Why, once the run has been stopped; pending until then.
    pub async fn stopped(&self) -> String {
        let mut given = self.0.subscribe();
        let why = given.wait_for(Option::is_some).await;
        why.ok().and_then(|why| why.clone()).unwrap_or_default()
    }
}

impl RunRequest {
    /// A top-level request with no caller app.
    pub fn new(routine: impl Into<String>, args: Value, source: Source) -> Self {
        RunRequest {
            routine: routine.into(),
            args,
            source,
            agent: None,
            principal: None,
            task: None,
            caller_app: None,
            caller_source: None,
            timeout_ms: None,
            chain: Vec::new(),
            deadline: None,
            slot_wait: SlotWait::Never,
            caller_masks: None,
            stop: None,
        }
    }

    /// The request of a run that `caller` (this request's run of `entry`) starts with
    /// `ctx.routines.run`: as the caller's app, under its chain and `deadline`, masking in
    /// `masks` what it reads.
    pub(crate) fn nested(
        &self,
        entry: &RoutineEntry,
        routine: String,
        args: Value,
        timeout_ms: Option<u64>,
        deadline: Instant,
        masks: Arc<Masks>,
    ) -> RunRequest {
        let mut chain = self.chain.clone();
        chain.push(entry.id.clone());
        RunRequest {
            routine,
            args,
            source: self.source,
            agent: self.agent.clone(),
            principal: self.principal.clone(),
            task: self.task.clone(),
            caller_app: Some(entry.app_name.clone()),
            // Only the notification mark passes on: a nested run's notify starts no trigger either.
            caller_source: self.caller_source.filter(|s| *s == CallerSource::Notification),
            timeout_ms,
            chain,
            deadline: Some(deadline),
            // It holds its caller's slot while it waits: waiting for another could wait forever.
            slot_wait: SlotWait::Never,
            caller_masks: Some(masks),
            stop: self.stop.clone(),
        }
    }

    /// Whether a notification trigger started this run (or the run that called it).
    pub fn started_by_notification(&self) -> bool {
        self.caller_source == Some(CallerSource::Notification)
    }

    /// The calling run's masks, for a nested run: the values it reads are masked there too.
    pub(crate) fn caller_masks(&self) -> Option<&Arc<Masks>> {
        self.caller_masks.as_ref()
    }
}

/// A run's result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSuccess {
    /// The run's id (`executionId` in its audit line).
    pub run_id: String,
    /// What the routine returned.
    pub result: Value,
    /// What went wrong without failing the run (its audit line could not be written …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

pub use cowork_wire::daemon::runs::RunFailure;
use cowork_wire::daemon::runs::{RunAnswer, RunError};
use cowork_wire::daemon::Flag;

/// The result of [`Workspace::run`].
pub type RunResult = Result<RunSuccess, RunFailure>;

/// A run's outcome as it is answered — by the daemon to `POST /api/routines/run` and a webhook,
/// and by `cowork routine run` when it ran the routine itself: a failed run is an answer too.
pub fn run_answer(outcome: RunResult) -> RunAnswer {
    match outcome {
        Ok(success) => RunAnswer::Ran {
            ok: Flag,
            result: success.result,
            run_id: success.run_id,
            warnings: success.warnings,
        },
        Err(failure) => RunAnswer::Failed { ok: Flag, error: RunError { failure, hint: None } },
    }
}

/// How long a run may take, and what set that: the message of a run that overran says what to raise.
pub(crate) struct TimeLimit {
    pub duration: Duration,
    pub deadline: Instant,
    pub set_by: LimitSource,
}

/// Where a run's time limit came from.
pub(crate) enum LimitSource {
    /// The routine's `timeout` in cowork.json (or the default).
    Manifest,
    /// The call's own `timeoutMs` (`ctx.routines.run`, `--timeout-ms`).
    Call,
    /// What the calling routine had left of its own time, shorter than either of the above.
    Caller(String),
}

impl TimeLimit {
    pub(crate) fn of(entry: &RoutineEntry, request: &RunRequest, started: Instant) -> TimeLimit {
        let (own, mut set_by) = match request.timeout_ms {
            Some(ms) => (Duration::from_millis(ms), LimitSource::Call),
            None => (Duration::from_secs(u64::from(entry.timeout_s)), LimitSource::Manifest),
        };
        let mut duration = own.min(MAX_TIMEOUT);
        if let Some(deadline) = request.deadline {
            let left = deadline.saturating_duration_since(started);
            if left < duration {
                duration = left;
                set_by = LimitSource::Caller(request.chain.last().cloned().unwrap_or_default());
            }
        }
        TimeLimit { duration, deadline: started + duration, set_by }
    }

    /// Why `routine` was stopped, and what to change so it has time enough.
    pub fn overrun_message(&self, routine: &str) -> String {
        let secs = self.duration.as_secs_f64().ceil() as u64;
        let hint = match &self.set_by {
            LimitSource::Manifest => "raise \"timeout\" for it in cowork.json, at most 300".to_string(),
            LimitSource::Call => "the call's timeoutMs set that limit; raise it, at most 300000".to_string(),
            LimitSource::Caller(caller) => format!("that was what its caller {caller} had left of its own time; raise \"timeout\" for {caller} in cowork.json, at most 300"),
        };
        format!("{routine} did not finish within {secs} s and was stopped ({hint})")
    }
}

/// A run id: 32 hex digits, unique enough to name a run in `cowork routine runs show`.
pub(crate) fn new_run_id() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}
