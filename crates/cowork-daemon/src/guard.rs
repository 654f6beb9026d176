//! The gates in front of every route: loopback Host, no cross-site browser request, and the owner
//! token (the owner's API) or an open pane's token (the panes' SDK). They are layers, not checks
//! inside handlers, so a new route cannot forget them.

use crate::routes::AppState;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;

fn refuse(status: StatusCode, message: &str) -> Response {
    (status, Json(serde_json::json!({ "error": { "name": "Forbidden", "message": message } }))).into_response()
}

/// Whether `host` (a Host header) names this daemon on loopback: a rebinding attack arrives with
/// the attacker's host name even though the connection is to 127.0.0.1.
pub(crate) fn is_loopback_host(host: &str, port: u16) -> bool {
    ["127.0.0.1", "localhost", "[::1]"].iter().any(|name| host == format!("{name}:{port}"))
}

/// Constant-time comparison, so the token cannot be guessed byte by byte from response times.
fn same_token(given: &str, expected: &str) -> bool {
    given.len() == expected.len() && given.bytes().zip(expected.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

/// What every route checks before anything else, with or without a token: the Host names this
/// daemon on loopback, and a browser request comes from the workbench's own origin. Browsers say
/// where a request comes from (`Origin`, `Sec-Fetch-Site`); the CLI sends neither header. A page on
/// another site — or a sandboxed widget frame, whose origin is `null` — must never reach the API,
/// even if it somehow had a token.
fn same_site_loopback(headers: &HeaderMap, port: u16) -> Result<(), Response> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    if !is_loopback_host(host, port) {
        return Err(refuse(StatusCode::FORBIDDEN, "this daemon answers only on 127.0.0.1 (the Host header names another host)"));
    }
    if headers.get("sec-fetch-site").and_then(|h| h.to_str().ok()).is_some_and(|s| s == "cross-site") {
        return Err(refuse(StatusCode::FORBIDDEN, "cross-site requests are refused"));
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|h| h.to_str().ok()) {
        if !is_workbench_origin(origin, port) {
            return Err(refuse(StatusCode::FORBIDDEN, "requests from another origin are refused"));
        }
    }
    Ok(())
}

/// Whether `origin` (an Origin header) is the workbench's: this daemon's own page on loopback.
pub(crate) fn is_workbench_origin(origin: &str, port: u16) -> bool {
    origin.strip_prefix("http://").is_some_and(|rest| is_loopback_host(rest, port))
}

/// The owner's API: [`same_site_loopback`], then the owner token.
pub(crate) async fn owner_only(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if let Err(refusal) = same_site_loopback(request.headers(), state.port) {
        return refusal;
    }
    let token = bearer(request.headers());
    if !same_token(token, &state.token) {
        return refuse(StatusCode::UNAUTHORIZED, "the owner token is missing or wrong (the CLI reads it from <root>/daemon.token)");
    }
    next.run(request).await
}

/// Routes that need no token but must not answer another site (`/api/icon`, which an `<img>` of
/// the workbench loads and so cannot carry one): [`same_site_loopback`] only.
pub(crate) async fn loopback_only(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if let Err(refusal) = same_site_loopback(request.headers(), state.port) {
        return refusal;
    }
    next.run(request).await
}

/// The panes' SDK (`/api/sdk/*`): [`same_site_loopback`] — the workbench forwards a pane's calls
/// from its own origin — then a pane token that is still open.
pub(crate) async fn pane_only(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    if let Err(refusal) = same_site_loopback(request.headers(), state.port) {
        return refusal;
    }
    let token = bearer(request.headers());
    let Some(pane) = state.panes.find(token) else {
        return refuse(StatusCode::UNAUTHORIZED, "a pane token is required, and this one is missing, wrong or closed (the workbench gets one per pane from POST /api/panes)");
    };
    request.extensions_mut().insert(std::sync::Arc::new(pane));
    next.run(request).await
}

fn bearer(headers: &HeaderMap) -> &str {
    headers.get(header::AUTHORIZATION).and_then(|h| h.to_str().ok()).and_then(|h| h.strip_prefix("Bearer ")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_names_on_our_port() {
        assert!(is_loopback_host("127.0.0.1:47913", 47913));
        assert!(is_loopback_host("localhost:47913", 47913));
        assert!(is_loopback_host("[::1]:47913", 47913));
        assert!(!is_loopback_host("evil.example:47913", 47913));
        assert!(!is_loopback_host("127.0.0.1:1", 47913));
        assert!(!is_loopback_host("127.0.0.1", 47913));
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same_token("abc", "abc"));
        assert!(!same_token("abd", "abc"));
        assert!(!same_token("ab", "abc"));
        assert!(!same_token("", "abc"));
    }
}
