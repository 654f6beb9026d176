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
use cowork_core::audit::{self, AuditError, Record, RecordedError, Source, Status};
use cowork_engine::running::RunningRun;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Runs a page lists unless asked for fewer.
const PAGE: usize = 50;
/// The most a page may list.
const PAGE_MAX: usize = 200;

#[derive(Deserialize)]
pub struct RunsQuery {
    workspace: Option<PathBuf>,
    /// Only the runs of this agent login.
    agent: Option<String>,
    /// `ok`, `error` or `denied`.
    status: Option<String>,
    /// The cursor of the page before (its `next`).
    before: Option<String>,
    limit: Option<usize>,
}

/// A finished run, as the Executions table shows it.
#[derive(Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct FinishedRun {
    pub run_id: String,
    /// When it started, RFC 3339 UTC.
    pub ts: String,
    pub routine: String,
    pub app: Option<String>,
    #[ts(type = "\"ok\" | \"error\" | \"denied\"")]
    pub status: Status,
    pub duration_ms: u64,
    /// How long a triggered run waited for a concurrency slot before it started, when it did.
    pub queued_ms: Option<u64>,
    /// The audit `source`.
    #[ts(type = "Source")]
    pub source: Source,
    /// The app whose widget or routine asked, when one did.
    pub caller_app: Option<String>,
    /// Who asked: the agent's name; none when it was you (or a trigger you armed).
    pub agent: Option<String>,
    pub task: Option<String>,
    #[ts(type = "{ name: string; message: string } | null")]
    pub error: Option<RecordedError>,
}

impl From<Record> for FinishedRun {
    fn from(record: Record) -> Self {
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
            agent: context.agent,
            task: context.task_id,
            error: record.error,
        }
    }
}

/// `GET /api/runs?workspace=`.
#[derive(Serialize, ts_rs::TS)]
pub struct Runs {
    /// Started and not finished, oldest first; a triggered run waiting for a slot is `queued`.
    #[ts(type = "Array<RunningRun>")]
    pub running: Vec<RunningRun>,
    pub runs: Vec<FinishedRun>,
    /// The `before` of the next page, when there is one.
    pub next: Option<String>,
}

pub async fn list(
    State(state): State<AppState>,
    Query(query): Query<RunsQuery>,
) -> Result<Json<Runs>, ApiError> {
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
    Ok(Json(Runs {
        running: ws.running(),
        runs: page.runs.into_iter().map(FinishedRun::from).collect(),
        next: page.next,
    }))
}
