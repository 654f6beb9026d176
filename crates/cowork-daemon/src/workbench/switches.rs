//! The switches that write `workspace.json`: an app on or off, muted or not
//! (`POST /api/apps/enable`, `POST /api/apps/mute`), the rail's folders (`POST /api/rail`) and
//! which app opens a file type (`POST /api/open-with`). Each reloads the workspace's registry.

use super::workspace;
use crate::error::{ApiError, Body};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use cowork_core::workspace_json;
use cowork_wire::daemon::workbench::{AppSwitch, OpenWith, RailFolders};
use cowork_wire::daemon::Changed;
use serde_json::{json, Value};

fn written(
    result: Result<bool, workspace_json::WorkspaceJsonError>,
) -> Result<Json<Changed>, ApiError> {
    Ok(Json(Changed { changed: result? }))
}

/// `POST /api/apps/enable` and `POST /api/apps/mute`: switches in `workspace.json`.
pub async fn switch(
    State(state): State<AppState>,
    Body(body): Body<AppSwitch>,
) -> Result<Json<Changed>, ApiError> {
    let ws = workspace(&state, body.workspace.as_deref())?;
    let app =
        ws.registry().resolve_app(&body.app).map(|a| a.dir.clone()).ok_or_else(|| {
            ApiError::new(StatusCode::NOT_FOUND, format!("no app \"{}\"", body.app))
        })?;
    let result = match (body.enabled, body.muted) {
        (Some(enabled), None) => workspace_json::set_app_disabled(ws.root(), &app, !enabled),
        (None, Some(muted)) => workspace_json::set_app_muted(ws.root(), &app, muted),
        _ => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "send either \"enabled\" or \"muted\"",
            ))
        }
    };
    let answer = written(result);
    ws.reload();
    answer
}

/// `POST /api/rail`: the rail's folders, written to `workspace.json#rail.folders` when they fit the
/// schema (else refused, `InvalidWorkspaceJson`, and nothing is written).
pub async fn rail(
    State(state): State<AppState>,
    Body(body): Body<RailFolders>,
) -> Result<Json<Changed>, ApiError> {
    let ws = workspace(&state, body.workspace.as_deref())?;
    let answer = written(workspace_json::set_rail_folders(ws.root(), body.folders));
    ws.reload();
    answer
}

/// `POST /api/open-with`: the person's answer to "which app opens this file type".
pub async fn open_with(
    State(state): State<AppState>,
    Body(body): Body<OpenWith>,
) -> Result<Json<Changed>, ApiError> {
    let ws = workspace(&state, body.workspace.as_deref())?;
    let (glob, app) = (body.glob, body.app);
    let result = workspace_json::update(ws.root(), move |map, _| {
        let open_with = map.entry("openWith").or_insert_with(|| json!({}));
        if let Some(open_with) = open_with.as_object_mut() {
            open_with.insert(glob, Value::String(app));
        }
        Ok(())
    });
    let answer = written(result);
    ws.reload();
    answer
}
