//! An app's footer item: its routine run for a refresh (`GET /api/statusbar`, audited with the
//! tag `status-bar`) or for a click (`POST /api/statusbar/click`).

use super::workspace;
use crate::error::{ApiError, Body};
use crate::state::AppState;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::Json;
use cowork_engine::{CallerSource, ErrorName, RunFailure, RunRequest, RunSuccess, Source};
use cowork_wire::daemon::workbench::{
    AppQuery, StatusBarAnswer, StatusBarClick, StatusBarItem, STATUS_BAR_DATA_MAX,
};
use cowork_wire::daemon::Flag;
use serde_json::Value;

/// `GET /api/statusbar?workspace=&app=`: a refresh of the app's footer item, tagged `status-bar`
/// in the audit log.
pub async fn refresh(
    State(state): State<AppState>,
    Query(query): Query<AppQuery>,
) -> Result<Json<StatusBarAnswer>, ApiError> {
    run_status_bar(
        &state,
        StatusBarClick { workspace: query.workspace, app: query.app, args: None },
        Some(CallerSource::StatusBar),
    )
    .await
}

/// `POST /api/statusbar/click`: the app's footer routine with the click's `args` (or its
/// manifest `args`) — the click's work, not a refresh, so untagged.
pub async fn click(
    State(state): State<AppState>,
    Body(body): Body<StatusBarClick>,
) -> Result<Json<StatusBarAnswer>, ApiError> {
    run_status_bar(&state, body, None).await
}

/// The app's footer routine, run as the app (audited, like every run). A routine that failed is
/// an answer (`{ok: false, error}`, HTTP 200), which the footer shows as a warning.
async fn run_status_bar(
    state: &AppState,
    body: StatusBarClick,
    tag: Option<CallerSource>,
) -> Result<Json<StatusBarAnswer>, ApiError> {
    let ws = workspace(state, body.workspace.as_deref())?;
    let registry = ws.registry();
    let app = registry
        .app_by_name(&body.app)
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no app \"{}\"", body.app)))?;
    let item = app.manifest.status_bar.as_ref().ok_or_else(|| {
        ApiError::new(StatusCode::NOT_FOUND, format!("{} has no statusBar", body.app))
    })?;
    let args = body.args.unwrap_or_else(|| Value::Object(item.args.clone()));
    let mut request = RunRequest::new(item.routine.clone(), args, Source::App);
    request.caller_app = Some(app.manifest.name.clone());
    request.caller_source = tag;
    Ok(Json(match ws.run(request).await.and_then(footer_item) {
        Ok(item) => StatusBarAnswer::Drawn { ok: Flag, item: item.map(Box::new) },
        Err(error) => StatusBarAnswer::Failed { ok: Flag, error },
    }))
}

/// What the routine returned, read as a footer item: a shape the footer cannot draw fails the
/// refresh by name (the footer shows it as its warning) instead of drawing a broken item.
fn footer_item(success: RunSuccess) -> Result<Option<StatusBarItem>, RunFailure> {
    let RunSuccess { run_id, result, .. } = success;
    let failure =
        |name, message: String| RunFailure { name, message, run_id: Some(run_id.clone()) };
    let item: Option<StatusBarItem> = serde_json::from_value(result).map_err(|e| {
        failure(
            ErrorName::BadRoutine,
            format!(
                "the statusBar routine returned no footer item ({e}); return {{ text, icon?, \
                 tooltip?, tone?, click?, menu?, data? }} or null"
            ),
        )
    })?;
    let data_len =
        item.as_ref().and_then(|item| item.data.as_ref()).map_or(0, |data| data.to_string().len());
    if data_len > STATUS_BAR_DATA_MAX {
        return Err(failure(
            ErrorName::TooLarge,
            format!(
                "the footer item's data is {data_len} bytes as JSON; at most {STATUS_BAR_DATA_MAX} \
                 (keep bigger things in ctx.db or a file)"
            ),
        ));
    }
    Ok(item)
}
