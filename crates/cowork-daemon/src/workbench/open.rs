//! `POST /api/open` (`cowork app open`): the open workbench shows an app or one of its widget
//! files.

use super::workspace;
use crate::error::{ApiError, Body};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use cowork_engine::ErrorName;
use cowork_wire::daemon::workbench::{OpenApp, Opened};

/// `POST /api/open` (`cowork app open`): asks the open workbench to show an app or a widget file.
pub async fn open(
    State(state): State<AppState>,
    Body(body): Body<OpenApp>,
) -> Result<Json<Opened>, ApiError> {
    let ws = workspace(&state, Some(&body.workspace))?;
    if ws.registry().app_by_name(&body.app).is_none() {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no app \"{}\" in {}", body.app, ws.display()),
        ));
    }
    // A workbench page, or the desktop shell (it opens site apps' windows itself, even while its
    // page reloads) — not any subscriber: the daemon's own (triggers, the door) listen too, so a
    // headless daemon answered "opened" with no window to open it in.
    if state.panes.windows() == 0 && !state.desktop.attached() {
        return Err(ApiError::named(
            StatusCode::CONFLICT,
            ErrorName::Unavailable,
            "no workbench is open: `cowork app serve` opens one",
        ));
    }
    ws.emit(cowork_engine::Event::Open {
        workspace: ws.display(),
        app: body.app,
        file: body.file,
        r#as: body.r#as,
    });
    Ok(Json(Opened { opened: true }))
}
