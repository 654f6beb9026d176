//! The gates in front of every route: loopback Host, no cross-site browser request, and the owner
//! token (the owner's API) or an open pane's token (the panes' SDK). They are layers, not checks
//! inside handlers, so a new route cannot forget them.

use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use cowork_engine::{CtxError, ErrorName};

/// A gate's refusal: `Forbidden`, with the status that says which gate (401: the token).
pub(crate) fn refuse(status: StatusCode, message: &str) -> Response {
    ApiError::named(status, ErrorName::Forbidden, message).into_response()
}

/// Whether `host` (a Host header) names this daemon on loopback: a rebinding attack arrives with
/// the attacker's host name even though the connection is to 127.0.0.1.
pub(crate) fn is_loopback_host(host: &str, port: u16) -> bool {
    ["127.0.0.1", "localhost", "[::1]"].iter().any(|name| host == format!("{name}:{port}"))
}

/// Constant-time comparison, so the token cannot be guessed byte by byte from response times.
pub(crate) fn same_token(given: &str, expected: &str) -> bool {
    given.len() == expected.len()
        && given.bytes().zip(expected.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

/// What every route checks before anything else, with or without a token: the Host names this
/// daemon on loopback, and a browser request comes from the workbench's own origin. Browsers say
/// where a request comes from (`Origin`, `Sec-Fetch-Site`); the CLI sends neither header. A page on
/// another site — or a sandboxed widget frame, whose origin is `null` — must never reach the API,
/// even if it somehow had a token.
fn same_site_loopback(headers: &HeaderMap, port: u16) -> Result<(), (StatusCode, &'static str)> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    if !is_loopback_host(host, port) {
        return Err((
            StatusCode::FORBIDDEN,
            "this daemon answers only on 127.0.0.1 (the Host header names another host)",
        ));
    }
    if headers
        .get("sec-fetch-site")
        .and_then(|h| h.to_str().ok())
        .is_some_and(|s| s == "cross-site")
    {
        return Err((StatusCode::FORBIDDEN, "cross-site requests are refused"));
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|h| h.to_str().ok()) {
        if !is_workbench_origin(origin, port) {
            return Err((StatusCode::FORBIDDEN, "requests from another origin are refused"));
        }
    }
    Ok(())
}

/// Whether `origin` (an Origin header) is the workbench's: this daemon's own page on loopback.
pub(crate) fn is_workbench_origin(origin: &str, port: u16) -> bool {
    origin.strip_prefix("http://").is_some_and(|rest| is_loopback_host(rest, port))
}

/// The owner's API: [`same_site_loopback`], then the owner token.
pub(crate) async fn owner_only(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if let Err((status, message)) = same_site_loopback(request.headers(), state.port) {
        return refuse(status, message);
    }
    let token = bearer(request.headers());
    if !same_token(token, &state.token) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "the owner token is missing or wrong (the CLI reads it from <root>/daemon.token)",
        );
    }
    next.run(request).await
}

/// Routes that need no token but must not answer another site (`/api/icon`, which an `<img>` of
/// the workbench loads and so cannot carry one): [`same_site_loopback`] only.
pub(crate) async fn loopback_only(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if let Err((status, message)) = same_site_loopback(request.headers(), state.port) {
        return refuse(status, message);
    }
    next.run(request).await
}

/// The panes' SDK (`/api/sdk/*`): [`same_site_loopback`] — the workbench forwards a pane's calls
/// from its own origin — then a pane token that is still open.
pub(crate) async fn pane_only(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    if let Err((status, message)) = same_site_loopback(request.headers(), state.port) {
        return refuse(status, message);
    }
    let token = bearer(request.headers());
    let Some(pane) = state.panes.find(token) else {
        return refuse(StatusCode::UNAUTHORIZED, "a pane token is required, and this one is missing, wrong or closed (the workbench gets one per pane from POST /api/panes)");
    };
    request.extensions_mut().insert(std::sync::Arc::new(pane));
    next.run(request).await
}

/// The agents' MCP door (`/api/mcp`): [`same_site_loopback`] (403 for another Host or a foreign
/// Origin), then a live agent login's `cwa_` token (401 for a wrong or revoked one), passed on as
/// the request's `Login`. The owner token is not an agent's: it is refused here too.
pub(crate) async fn agent_only(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if let Err((status, message)) = same_site_loopback(request.headers(), state.port) {
        return refuse(status, message);
    }
    with_agent(&state, request, next).await
}

/// The agent token check of every door (this listener's and `cowork agent door`'s): a live
/// login's `cwa_` token (401 otherwise), passed on as the request's `Login`.
pub(crate) async fn with_agent(state: &AppState, mut request: Request, next: Next) -> Response {
    let logins = cowork_core::agents::Logins::new(state.engine.root());
    let Some(login) = logins.authenticate(bearer(request.headers())) else {
        let mut refused = refuse(StatusCode::UNAUTHORIZED, "an agent token (cwa_…) is required, and this one is missing, wrong or revoked (`cowork agent token <name>` gives a new one)");
        // A 401 names the scheme it wants (RFC 9110 §11.6.1): MCP clients read it to ask for a token.
        refused.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return refused;
    };
    if let Err(error) = logins.seen(&login.id) {
        tracing::warn!(%error, "an agent's last-seen time was not saved");
    }
    request.extensions_mut().insert(std::sync::Arc::new(login));
    next.run(request).await
}

/// Where a request comes from, for what only a window on this computer may do: a sign-in, whose
/// browser must come back to a loopback listener on this machine. Local means the workbench this
/// daemon serves on loopback — or the CLI — on this computer: the peer is a loopback address, the
/// Host names this daemon on loopback, and an `Origin`, when there is one, is the workbench's.
/// There are no remote windows yet (the daemon listens on 127.0.0.1 only), so today every request
/// that passed a gate is local; the check is here so that a remote window, when it comes, gets
/// `NotHere` instead of an address it cannot finish. Without the peer address (a router served
/// without connect info) nothing is local: fail closed.
pub(crate) struct Window {
    pub local: bool,
}

impl axum::extract::FromRequestParts<AppState> for Window {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .is_some_and(|info| info.0.ip().is_loopback());
        let host = parts
            .headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .is_some_and(|host| is_loopback_host(host, state.port));
        let origin = parts
            .headers
            .get(header::ORIGIN)
            .is_none_or(|o| o.to_str().is_ok_and(|o| is_workbench_origin(o, state.port)));
        Ok(Window { local: peer && host && origin })
    }
}

impl Window {
    /// `NotHere` unless the request comes from a window on this computer.
    pub(crate) fn may_sign_in(&self) -> Result<(), CtxError> {
        if self.local {
            return Ok(());
        }
        Err(CtxError::new(ErrorName::NotHere, "a sign-in opens a browser on this computer and comes back to it (a loopback address): start it from Cowork Studio or `cowork credential connect` on the computer the daemon runs on"))
    }
}

fn bearer(headers: &HeaderMap) -> &str {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "))
        .unwrap_or_default()
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
    fn only_the_workbench_origin_is_ours() {
        assert!(is_workbench_origin("http://127.0.0.1:47913", 47913));
        assert!(!is_workbench_origin("null", 47913));
        assert!(!is_workbench_origin("https://127.0.0.1:47913", 47913));
        assert!(!is_workbench_origin("http://notes-0123abcd.app.localhost:47913", 47913));
    }

    /// What `Window` makes of a request from `peer` with these headers, to a daemon on port 47913.
    async fn window(peer: Option<&str>, headers: &[(&str, &str)]) -> Result<(), CtxError> {
        use axum::extract::FromRequestParts;
        let home = tempfile::tempdir().unwrap();
        let engine = cowork_engine::Engine::new(
            cowork_core::paths::Root::new(home.path()),
            cowork_engine::EngineConfig { watch: false, ..Default::default() },
        );
        let state = AppState {
            engine,
            token: "t".into(),
            port: 47913,
            started: std::time::Instant::now(),
            shutdown: Default::default(),
            panes: Default::default(),
            default_workspace: None,
            stopping: tokio::sync::watch::channel(false).1,
            desktop: Default::default(),
            codes: Default::default(),
            mcp: Default::default(),
            door: Default::default(),
            account: crate::account::AccountHost::new(&cowork_core::paths::Root::new(home.path())),
            chat: Default::default(),
        };
        let mut request = axum::http::Request::builder().uri("/api/credentials/connect");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let (mut parts, ()) = request.body(()).unwrap().into_parts();
        if let Some(peer) = peer {
            parts
                .extensions
                .insert(axum::extract::ConnectInfo(peer.parse::<std::net::SocketAddr>().unwrap()));
        }
        Window::from_request_parts(&mut parts, &state).await.unwrap().may_sign_in()
    }

    #[tokio::test]
    async fn only_a_window_on_this_computer_may_sign_in() {
        let host = ("host", "127.0.0.1:47913");
        assert!(window(Some("127.0.0.1:50000"), &[host]).await.is_ok(), "the CLI");
        assert!(
            window(Some("127.0.0.1:50000"), &[host, ("origin", "http://127.0.0.1:47913")])
                .await
                .is_ok(),
            "the workbench"
        );
        assert!(window(Some("[::1]:50000"), &[("host", "[::1]:47913")]).await.is_ok());
        let refused = window(Some("192.168.1.20:50000"), &[host]).await.unwrap_err();
        assert_eq!(
            refused.name,
            ErrorName::NotHere,
            "a window on another computer (a tunnel keeping the Host)"
        );
        assert!(refused.message.contains("on the computer the daemon runs on"), "{refused}");
        assert_eq!(
            window(Some("127.0.0.1:50000"), &[host, ("origin", "null")]).await.unwrap_err().name,
            ErrorName::NotHere
        );
        assert_eq!(
            window(Some("127.0.0.1:50000"), &[("host", "cowork.example:47913")])
                .await
                .unwrap_err()
                .name,
            ErrorName::NotHere
        );
        assert_eq!(
            window(None, &[host]).await.unwrap_err().name,
            ErrorName::NotHere,
            "no peer address: fail closed"
        );
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same_token("abc", "abc"));
        assert!(!same_token("abd", "abc"));
        assert!(!same_token("ab", "abc"));
        assert!(!same_token("", "abc"));
    }
}
