//! `GET /api/icon`: an app's image icon, for an `<img>` of the workbench (no token: a key bound to
//! the workspace and app, which only `/api/workbench` hands out).

use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use cowork_engine::ErrorName;
use cowork_wire::daemon::workbench::IconQuery;
use std::path::Path;

/// `GET /api/icon`: an app's image icon (≤ 256 KB, checked by the manifest validation), of a
/// workspace the workbench opened already: this route carries no token, so it never opens one.
pub async fn icon(
    State(state): State<AppState>,
    Query(query): Query<IconQuery>,
) -> Result<axum::response::Response, ApiError> {
    use axum::response::IntoResponse;
    let path = query.workspace.or_else(|| state.default_workspace.clone()).ok_or_else(|| {
        ApiError::new(StatusCode::BAD_REQUEST, "name the workspace: ?workspace=<folder>")
    })?;
    // Before anything that would tell which workspaces are open or which apps they have.
    let key = crate::session::address_key(&state.token, &[&path.display().to_string(), &query.app]);
    if !crate::guard::same_token(&query.key, &key) {
        return Err(ApiError::named(
            StatusCode::UNAUTHORIZED,
            ErrorName::Forbidden,
            "an icon's address comes from /api/workbench (its key is missing or wrong)",
        ));
    }
    let ws = state.engine.opened(&path).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("{} is not an open workspace: open it in the workbench first", path.display()),
        )
    })?;
    let registry = ws.registry();
    let app = registry
        .app_by_name(&query.app)
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "no such app"))?;
    let file = app
        .manifest
        .icon_file()
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "the app's icon is not an image"))?;
    let bytes = std::fs::read(app.path.join(file))
        .map_err(|e| ApiError::new(StatusCode::NOT_FOUND, e.to_string()))?;
    let kind = match Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("svg") => "image/svg+xml",
        Some("webp") => "image/webp",
        Some("jpg" | "jpeg") => "image/jpeg",
        _ => "image/png",
    };
    Ok((
        [
            (axum::http::header::CONTENT_TYPE, kind),
            (
                axum::http::header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'",
            ),
        ],
        bytes,
    )
        .into_response())
}
