//! The one gate in front of every route: loopback Host, no cross-site browser request, the owner
//! token. It is a layer, not a check inside handlers, so a new route cannot forget it.

use crate::routes::AppState;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
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

pub(crate) async fn owner_only(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    if !is_loopback_host(host, state.port) {
        return refuse(StatusCode::FORBIDDEN, "this daemon answers only on 127.0.0.1 (the Host header names another host)");
    }
    // Browsers say where a request comes from; the CLI sends neither header. A page on another
    // site must never reach the owner's API, even if it somehow had the token.
    if headers.get("sec-fetch-site").and_then(|h| h.to_str().ok()).is_some_and(|s| s == "cross-site") {
        return refuse(StatusCode::FORBIDDEN, "cross-site requests are refused");
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|h| h.to_str().ok()) {
        if !origin.strip_prefix("http://").is_some_and(|rest| is_loopback_host(rest, state.port)) {
            return refuse(StatusCode::FORBIDDEN, "requests from another origin are refused");
        }
    }
    let token = headers.get(header::AUTHORIZATION).and_then(|h| h.to_str().ok()).and_then(|h| h.strip_prefix("Bearer ")).unwrap_or_default();
    if !same_token(token, &state.token) {
        return refuse(StatusCode::UNAUTHORIZED, "the owner token is missing or wrong (the CLI reads it from <root>/daemon.token)");
    }
    next.run(request).await
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
