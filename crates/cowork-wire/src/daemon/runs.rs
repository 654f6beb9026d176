//! Runs: `POST /api/routines/run` (`cowork routine run`) and its one answer shape, a run's failure
//! as the engine reports it, and the lists of runs — `GET /api/runs` (Manage Workspace ›
//! Observability › Executions), the running runs, and a pane's `routines.runs`.

use super::{ErrorName, Flag};
use cowork_core::audit::{RecordedError, Source, Status};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// `POST /api/routines/run`: what `cowork routine run` asks the daemon.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunBody {
    /// The workspace the routine is in.
    pub workspace: PathBuf,
    /// The routine's id (`<app>/<routine>`).
    pub id: String,
    /// The routine's input (null reads as `{}`).
    #[serde(default)]
    pub args: Value,
    /// How long the run may take, in milliseconds; none = the routine's own timeout.
    pub timeout_ms: Option<u64>,
    /// The agent login the run is for (`--agent`).
    pub agent: Option<String>,
}

/// A run's answer: `{ok: true, result, runId, warnings}` or `{ok: false, error: {name, message,
/// runId?, hint?}}`. A routine that failed is a normal answer (200), not an HTTP error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum RunAnswer {
    /// The routine ran and returned.
    Ran {
        /// Always `true`.
        ok: Flag<true>,
        /// What the routine returned (JSON).
        result: Value,
        /// The run's id, as its audit line names it.
        run_id: String,
        /// What the run warned about (a result that was not JSON, …).
        warnings: Vec<String>,
    },
    /// The routine failed, or was refused before it ran.
    Failed {
        /// Always `false`.
        ok: Flag<false>,
        /// Why, by name, with the run's id when it ran.
        error: RunError,
    },
}

/// A failed run as it is answered: the engine's failure, and the fix when the daemon knows one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunError {
    /// The engine's failure: its name, message and run id.
    #[serde(flatten)]
    pub failure: RunFailure,
    /// The fix, when the daemon knows one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// A run that failed or was refused: `name` is what a caller branches on; a refusal (nothing ran)
/// has no `run_id`. The workbench and a widget's frame call it `WireError`: the shape every error
/// crosses their wire in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(rename = "WireError"))]
#[serde(rename_all = "camelCase")]
pub struct RunFailure {
    /// What kind of failure: what a caller branches on (`Timeout`, `Denied`, a name the routine threw…).
    #[cfg_attr(feature = "typescript", ts(type = "string"))]
    pub name: ErrorName,
    /// What failed, in words.
    pub message: String,
    /// The run's id; none when it was refused before it started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub run_id: Option<String>,
}

impl RunFailure {
    /// A run refused before it started: no run id.
    pub fn refusal(name: ErrorName, message: impl Into<String>) -> Self {
        RunFailure { name, message: message.into(), run_id: None }
    }
}

impl std::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.name, self.message)
    }
}

/// A run in progress, or queued for a slot: who started it, for what, and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RunningRun {
    /// The run's id.
    pub run_id: String,
    /// The routine that runs (`<app>/<routine>`).
    pub routine: String,
    /// The app the routine belongs to.
    pub app: String,
    /// When it started, RFC 3339 UTC with milliseconds (as an audit line's `ts`); while it is
    /// `queued`, when it was queued.
    pub started: String,
    /// The audit `source`.
    #[cfg_attr(feature = "typescript", ts(type = "Source"))]
    pub source: Source,
    /// Who asked: the agent login, for a call through the MCP door (the audit's `principal`);
    /// none when it was you.
    pub principal: Option<String>,
    /// The client it came through (`claude-code`, `codex` …) as the client named itself: a label
    /// beside the login, never who.
    pub agent: Option<String>,
    /// The task an agent runs it for.
    pub task: Option<String>,
    /// It waits for a concurrency slot: a run a trigger started while every slot is busy.
    pub queued: bool,
    /// How long it waited for a slot before it started, in milliseconds; none when it did not.
    pub queued_ms: Option<u64>,
}

/// `GET /api/runs?workspace=&agent=&status=&before=&limit=`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunsQuery {
    /// The workspace whose runs to list; none = the daemon's default workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<PathBuf>,
    /// Only the runs of this agent login.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// `ok`, `error` or `denied`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// The cursor of the page before (its `next`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// How many finished runs in a page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// `GET /api/runs`: the runs running now, then a page of finished ones, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(rename = "Runs"))]
pub struct RunsPage {
    /// Started and not finished, oldest first; a triggered run waiting for a slot is `queued`.
    pub running: Vec<RunningRun>,
    /// A page of finished runs, newest first.
    pub runs: Vec<FinishedRun>,
    /// The `before` of the next page, when there is one.
    pub next: Option<String>,
}

/// A finished run, as the Executions table shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FinishedRun {
    /// The run's id.
    pub run_id: String,
    /// When it started, RFC 3339 UTC.
    pub ts: String,
    /// The routine that ran.
    pub routine: String,
    /// The app the routine belongs to, when it belongs to one.
    pub app: Option<String>,
    /// `ok`, `error` or `denied`.
    #[cfg_attr(feature = "typescript", ts(type = "\"ok\" | \"error\" | \"denied\""))]
    pub status: Status,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// How long a triggered run waited for a concurrency slot before it started, when it did.
    pub queued_ms: Option<u64>,
    /// The audit `source`.
    #[cfg_attr(feature = "typescript", ts(type = "Source"))]
    pub source: Source,
    /// The app whose widget or routine asked, when one did.
    pub caller_app: Option<String>,
    /// Who asked: the agent login, for a call through the MCP door (the audit's `principal`);
    /// none when it was you (or a trigger you armed).
    pub principal: Option<String>,
    /// The client it came through (`claude-code`, `codex` …) as the client named itself: a label
    /// beside the login, never who — a client that names itself nothing is still its login.
    pub agent: Option<String>,
    /// The task an agent ran it for.
    pub task: Option<String>,
    /// Why it failed, masked as its audit line is.
    #[cfg_attr(feature = "typescript", ts(type = "{ name: string; message: string } | null"))]
    pub error: Option<RecordedError>,
}

/// One run in a pane's `routines.runs` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PaneRun {
    /// The run's id.
    pub run_id: String,
    /// The routine that ran.
    pub routine: String,
    /// The app the routine belongs to, when it belongs to one.
    pub app: Option<String>,
    /// Whether that app is an app or a capability.
    #[cfg_attr(feature = "typescript", ts(type = "\"app\" | \"capability\" | null"))]
    pub kind: Option<cowork_core::manifest::Kind>,
    /// `ok`, `error` or `denied`.
    #[cfg_attr(feature = "typescript", ts(type = "\"ok\" | \"error\" | \"denied\""))]
    pub status: Status,
    /// When it started, RFC 3339 UTC.
    pub ts: String,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// The apps and routines that led to this run, when another one called it.
    pub chain: Option<Vec<String>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_answer_reads_back_in_both_shapes() {
        let ran = r#"{"ok":true,"result":{"n":1},"runId":"r1","warnings":[]}"#;
        let answer: RunAnswer = serde_json::from_str(ran).unwrap();
        assert!(matches!(&answer, RunAnswer::Ran { run_id, .. } if run_id == "r1"));
        assert_eq!(serde_json::to_string(&answer).unwrap(), ran);
        let failed = r#"{"ok":false,"error":{"name":"Timeout","message":"late","runId":"r2","hint":"raise it"}}"#;
        let answer: RunAnswer = serde_json::from_str(failed).unwrap();
        let RunAnswer::Failed { error, .. } = &answer else { panic!("{answer:?}") };
        assert_eq!(error.failure.name, ErrorName::Timeout);
        assert_eq!(error.hint.as_deref(), Some("raise it"));
        assert_eq!(serde_json::to_string(&answer).unwrap(), failed);
    }
}
