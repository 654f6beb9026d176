//! How a workbench page gets the owner token without the token ever travelling through a
//! process's arguments, a terminal or a log: whoever holds the token (`cowork start`, `cowork app serve`)
//! asks for a one-time code, puts `#code=…` in the address it opens or prints, and the page trades
//! the code for the token over a POST on loopback. A code is good once, for
//! [`crate::session_codes::CODE_LIFETIME`]: one read from `ps` or a scrollback is worth nothing
//! after the page has used it, or a minute later.

use crate::error::ApiError;
use crate::guard::Window;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use cowork_engine::ErrorName;
use cowork_wire::daemon::session::{Exchange, Issued, SessionToken};

/// `POST /api/session/code` (owner token): a code for one workbench page.
pub(crate) async fn issue(State(state): State<AppState>) -> Json<Issued> {
    Json(Issued { code: state.codes.issue() })
}

/// The most a code exchange's body holds: `{"code": "…"}` with a code of 43 characters.
const EXCHANGE_BODY_LIMIT: usize = 1024;

/// `POST /api/session` (no token; loopback Host, the workbench's origin and a loopback peer): a
/// code for the owner token. Where the request comes from is checked before its body is read, and
/// the body may hold a code and little else: nobody who may not exchange a code gets to make the
/// daemon wait for, or hold, a body.
pub(crate) async fn exchange(
    State(state): State<AppState>,
    window: Window,
    body: axum::body::Body,
) -> Result<Json<SessionToken>, ApiError> {
    if !window.local {
        return Err(ApiError::named(
            StatusCode::FORBIDDEN,
            ErrorName::NotHere,
            "a workbench code is exchanged only on this computer",
        ));
    }
    // A body that stalls is the serve loop's (`Timeout`); one that goes on is too large.
    let bytes = axum::body::to_bytes(body, EXCHANGE_BODY_LIMIT).await.map_err(|_| {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("failed to read the code: a body of more than {EXCHANGE_BODY_LIMIT} bytes (send {{\"code\": \"…\"}})"),
        )
    })?;
    let Json(body) = Json::<Exchange>::from_bytes(&bytes)?;
    if !state.codes.redeem(&body.code) {
        return Err(ApiError::named(
            StatusCode::UNAUTHORIZED,
            ErrorName::Forbidden,
            // Both commands print such links; the message cannot tell which one this came from.
            "this workbench link was used already or is over a minute old: run `cowork open --browser` (or `cowork app serve`) again for a new one",
        ));
    }
    Ok(Json(SessionToken { token: state.token.to_string() }))
}

/// `POST /api/session/end` (owner token): the page named by `x-cowork-session` is going away, so
/// its pane tokens end now rather than when its event stream's grace runs out.
pub(crate) async fn end(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    let session = crate::pane_tokens::session_of(&headers).ok_or_else(|| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "name the page session to end in the x-cowork-session header (letters, digits, - and _)",
        )
    })?;
    state.panes.end_session(&session);
    Ok(StatusCode::NO_CONTENT)
}

/// A key for an address the owner's API hands out and a tag loads without a token (an `<img>` of
/// `/api/icon`): it proves the address came from an answer to the owner, and is good only for the
/// `parts` it was made for and only while this daemon (its token) lives.
pub(crate) fn address_key(token: &str, parts: &[&str]) -> String {
    use sha2::Digest;
    let mut hash = sha2::Sha256::new();
    hash.update(token.as_bytes());
    for part in parts {
        hash.update([0]);
        hash.update(part.as_bytes());
    }
    hex::encode(hash.finalize())
}
