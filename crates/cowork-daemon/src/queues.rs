//! The task queues, the skill journal and the workspace tables behind the daemon: a widget's
//! `cowork.queue` / `cowork.journal` / `cowork.tables` (pane SDK methods `queue`, `tables.*`) and
//! the workbench's Tasks view (`POST /api/queues`, `GET /api/tables`, owner only). Each call
//! takes a store from the workspace's pool (kept open: [`cowork_queue::Pool`]) on a blocking
//! thread and runs one [`cowork_queue::Call`] — the operation `ctx.queue` runs too (the CLI calls
//! the same store's methods itself) — so a widget, a routine and an agent's shell see one set of
//! tasks. A pane's call is a [`WidgetCall`] (files as content only, never a path), and its tables
//! are the workspace's own `.db` files, under `cowork_queue::tables`' guard.

use crate::error::{ApiError, Body};
use crate::state::AppState;
use axum::extract::{Query, State};
use axum::Json;
use cowork_engine::{CtxError, ErrorName, Workspace};
use cowork_queue::{tables, Call, QueueError, WidgetCall};
use cowork_wire::daemon::queues::{QueuesAnswer, QueuesCall, TablesParams};
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One store operation in a workspace, on a blocking thread (SQLite waits on locks).
pub async fn call(ws: &Workspace, call: Call) -> Result<Value, CtxError> {
    let pool = ws.queues().clone();
    blocking(move || pool.get()?.call(call)).await
}

/// A pane's `cowork.queue` / `cowork.journal` call: its files are content it sends, so the store
/// reads no workspace file on its behalf.
pub async fn pane_call(ws: &Workspace, call: WidgetCall) -> Result<Value, CtxError> {
    self::call(ws, call.into()).await
}

/// `tables.<verb>` from a pane of `app` in a workspace.
pub async fn tables(
    workspace: &Path,
    app: &str,
    verb: &str,
    params: TablesParams,
) -> Result<Value, CtxError> {
    let (workspace, app, verb) = (workspace.to_path_buf(), app.to_string(), verb.to_string());
    blocking(move || {
        let TablesParams { db, sql, params, limit, cursor } = params;
        let (ws, app) = (workspace.as_path(), app.as_str());
        let answer = match verb.as_str() {
            "tables.schema" => json(tables::schema(ws, app, &db)?),
            "tables.query" => {
                json(tables::query(ws, app, &db, &sql, &params, limit, cursor.as_deref())?)
            }
            _ => json(tables::exec(ws, app, &db, &sql, &params)?),
        };
        Ok(answer)
    })
    .await
}

/// `POST /api/queues`: the workbench's Tasks view, as the owner.
pub async fn owner(
    State(state): State<AppState>,
    Body(body): Body<QueuesCall<Call>>,
) -> Result<Json<QueuesAnswer>, ApiError> {
    let ws = state.engine.workspace(&body.workspace)?;
    Ok(Json(call(&ws, body.call).await.into()))
}

/// `?workspace=`.
#[derive(Deserialize)]
pub struct WorkspaceQuery {
    workspace: PathBuf,
}

/// `GET /api/tables`: the workspace's `.cowork/data/*.db`, for Manage Workspace.
pub async fn owner_tables(
    State(state): State<AppState>,
    Query(query): Query<WorkspaceQuery>,
) -> Result<Json<Value>, ApiError> {
    let ws = state.engine.workspace(&query.workspace)?;
    let root = ws.root().to_path_buf();
    let listed = blocking(move || Ok(json(tables::list(&root)?))).await;
    listed
        .map(Json)
        .map_err(|e| ApiError::internal("failed to list the workspace's tables", &e.message))
}

async fn blocking(
    work: impl FnOnce() -> Result<Value, QueueError> + Send + 'static,
) -> Result<Value, CtxError> {
    let named = |e: QueueError| {
        let error = CtxError::new(e.name(), e.to_string());
        match e.hint() {
            Some(hint) => error.with_hint(hint),
            None => error,
        }
    };
    match tokio::task::spawn_blocking(work).await {
        Ok(answer) => answer.map_err(named),
        Err(error) => Err(CtxError::new(
            ErrorName::Unavailable,
            format!("the task store call stopped: {error}"),
        )),
    }
}

fn json<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).expect("store answers serialize")
}
