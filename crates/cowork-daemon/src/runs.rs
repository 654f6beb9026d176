//! `GET /api/runs`: the runs running now, then the finished ones newest first as `cowork routine
//! runs` lists them (runs that changed nothing left out: what the reference calls executions), each
//! with **Who** asked (you, or the agent) and the task — what Manage Workspace › Observability ›
//! Executions shows. Behind the owner token: inputs are redacted in the audit log, but which agent
//! did what is the owner's to read.

use crate::error::ApiError;
use crate::state::AppState;
use crate::workbench::workspace;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::Json;
use cowork_core::audit::{self, AuditError, Record, Status};
use cowork_wire::daemon::runs::{FinishedRun, RunsPage, RunsQuery};

/// Runs a page lists unless asked for fewer.
const PAGE: usize = 50;
/// The most a page may list.
const PAGE_MAX: usize = 200;

/// A finished run, as the Executions table shows it.
fn finished(record: Record) -> FinishedRun {
    let context = record.context;
    FinishedRun {
        run_id: context.run_id,
        ts: record.ts,
        routine: record.capability,
        app: context.app_id,
        status: record.status,
        duration_ms: record.duration_ms,
        queued_ms: record.queued_ms,
        source: context.source,
        caller_app: context.caller.and_then(|c| c.app),
        principal: context.principal,
        agent: context.agent,
        task: context.task_id,
        error: record.error,
    }
}

/// `GET /api/runs?workspace=`.
pub async fn list(
    State(state): State<AppState>,
    Query(query): Query<RunsQuery>,
) -> Result<Json<RunsPage>, ApiError> {
    let ws = workspace(&state, query.workspace.as_deref())?;
    let status = match query.status.as_deref() {
        None => None,
        Some("ok") => Some(Status::Ok),
        Some("error") => Some(Status::Error),
        Some("denied") => Some(Status::Denied),
        Some(other) => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                format!("status: \"{other}\" is not a run status (ok, error or denied)"),
            ))
        }
    };
    let filter = audit::Query {
        agent: query.agent,
        status,
        before: query.before,
        limit: query.limit.unwrap_or(PAGE).clamp(1, PAGE_MAX),
        ..audit::Query::default()
    };
    let page = ws.audit().list(&filter).map_err(|error| match error {
        AuditError::UnknownCursor(_) => ApiError::new(StatusCode::NOT_FOUND, error.to_string()),
        other => ApiError::internal("Cowork could not read the audit log", &other),
    })?;
    Ok(Json(RunsPage {
        running: ws.running(),
        runs: page.runs.into_iter().map(finished).collect(),
        next: page.next,
    }))
}
