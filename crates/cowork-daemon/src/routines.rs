//! `POST /api/routines/run` (`cowork routine run`), and [`RunAnswer`], the one shape of its
//! answer: the daemon serializes it and the CLI reads it back.

use crate::error::{ApiError, Body};
use crate::state::AppState;
use crate::wire::Flag;
use axum::extract::State;
use axum::Json;
use cowork_engine::{RunFailure, RunRequest, RunResult, Source};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// What `cowork routine run` asks the daemon.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunBody {
    pub workspace: PathBuf,
    pub id: String,
    #[serde(default)]
    pub args: Value,
    pub timeout_ms: Option<u64>,
    pub agent: Option<String>,
}

/// A run's answer: `{ok: true, result, runId, warnings}` or `{ok: false, error: {name, message,
/// runId?, hint?}}`. A routine that failed is a normal answer (200), not an HTTP error.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum RunAnswer {
    Ran { ok: Flag<true>, result: Value, run_id: String, warnings: Vec<String> },
    Failed { ok: Flag<false>, error: RunError },
}

/// A failed run as it is answered: the engine's failure, and the fix when the CLI knows one.
#[derive(Debug, Serialize, Deserialize)]
pub struct RunError {
    #[serde(flatten)]
    pub failure: RunFailure,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl From<RunResult> for RunAnswer {
    fn from(outcome: RunResult) -> Self {
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
}

/// Runs a routine as the CLI.
pub async fn run(
    State(state): State<AppState>,
    Body(body): Body<RunBody>,
) -> Result<Json<RunAnswer>, ApiError> {
    let ws = state.engine.workspace(&body.workspace)?;
    let args = if body.args.is_null() { Value::Object(Default::default()) } else { body.args };
    let mut request = RunRequest::new(body.id, args, Source::Cli);
    request.timeout_ms = body.timeout_ms;
    request.agent = body.agent;
    // Detached from the request: a client that goes away mid-run (Ctrl-C, a dropped connection)
    // drops this handler, but the run still finishes, kills its tree and writes its audit line.
    let run = tokio::spawn(async move { ws.run(request).await });
    let outcome = run
        .await
        .map_err(|error| ApiError::internal("the run failed inside the daemon", &error))?;
    Ok(Json(outcome.into()))
}
