//! The browser's routes: an agent's action (`POST /api/browser`, what `cowork mcp-browser`
//! sends) and the desktop shell's answers (`POST /api/desktop/browser/answer`). What they do is in
//! `browser`.

use crate::error::{ApiError, Body};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use cowork_engine::browser::BrowserCall;
use cowork_engine::ErrorName;
use cowork_wire::browser::{
    ActionResult, BrowserError, BrowserErrorName, DriveRequest, Driver, ShellAnswer,
    DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS,
};
use cowork_wire::daemon::{Flag, Taken};

pub fn router() -> axum::Router<AppState> {
    use axum::routing::post;
    axum::Router::new()
        .route("/api/browser", post(drive))
        .route("/api/desktop/browser/answer", post(answer))
}

/// A browser error as the daemon's error body: its name, message and hint, and the status that
/// fits it.
fn refused(error: BrowserError) -> ApiError {
    let status = match error.name {
        BrowserErrorName::BadRequest => StatusCode::BAD_REQUEST,
        BrowserErrorName::Denied | BrowserErrorName::Stopped => StatusCode::FORBIDDEN,
        BrowserErrorName::NotFound => StatusCode::NOT_FOUND,
        BrowserErrorName::Timeout => StatusCode::GATEWAY_TIMEOUT,
        BrowserErrorName::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        BrowserErrorName::Unsupported | BrowserErrorName::Unavailable => {
            StatusCode::SERVICE_UNAVAILABLE
        }
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    };
    let name = serde_json::from_value(error.name.as_str().into()).unwrap_or(ErrorName::Unavailable);
    let api = ApiError::named(status, name, error.message);
    match error.hint {
        Some(hint) => api.with_hint(hint),
        None => api,
    }
}

/// `POST /api/browser` (owner): an agent's action, through consent and the shell; one audit
/// line in `workspace`.
pub async fn drive(
    State(state): State<AppState>,
    Body(body): Body<DriveRequest>,
) -> Result<Json<ActionResult>, ApiError> {
    let agent = body.agent.trim();
    if agent.is_empty() || agent.len() > 64 {
        return Err(refused(BrowserError::new(
            BrowserErrorName::BadRequest,
            format!("failed to drive the browser: the agent's name \"{agent}\" is empty or longer than 64 characters"),
        )));
    }
    let timeout_ms = body.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    if timeout_ms == 0 || timeout_ms > MAX_TIMEOUT_MS {
        return Err(refused(BrowserError::new(
            BrowserErrorName::BadRequest,
            format!("failed to drive the browser: timeoutMs {timeout_ms} is not from 1 to {MAX_TIMEOUT_MS}"),
        )));
    }
    let call = BrowserCall {
        workspace: body.workspace,
        driver: Driver::Agent { name: agent.to_string() },
        target: body.target,
        timeout_ms,
        session: body.session,
        action: body.action,
    };
    let account = state.engine.account();
    crate::browser::drive(&state.desktop, state.engine.root(), account.as_ref(), call)
        .await
        .map(Json)
        .map_err(refused)
}

/// `POST /api/desktop/browser/answer` (the shell): its answer to an action or a consent question.
pub async fn answer(
    State(state): State<AppState>,
    Body(body): Body<ShellAnswer>,
) -> Result<Json<Taken>, ApiError> {
    if !state.desktop.browser.waiting.answer(&body.id, body.outcome) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no browser request {} is waiting (its caller gave up)", body.id),
        ));
    }
    Ok(Json(Taken { ok: Flag }))
}
