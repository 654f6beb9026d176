//! `POST /api/routines/run` (`cowork routine run`): the run's answer is cowork-wire's
//! [`RunAnswer`], which the CLI reads back.

use crate::error::{ApiError, Body};
use crate::state::AppState;
use axum::extract::State;
use axum::Json;
use cowork_engine::{run_answer, RunRequest, Source};
use cowork_wire::daemon::runs::{RunAnswer, RunBody};
use serde_json::Value;

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
    Ok(Json(run_answer(outcome)))
}
