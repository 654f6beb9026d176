//! `cowork agent door`: the agents' MCP door on a listener of its own, for agents on other
//! machines. It serves `/api/mcp` alone — never the owner's API, the panes' SDK or the workbench —
//! behind the same agent tokens, with the Host and Origin checked against the address agents are
//! told to use (`--url`). Listening on every interface (0.0.0.0) needs that address, and the door
//! speaks plain HTTP: put HTTPS in front of it. It stays open until `cowork agent door off`: the
//! daemon writes where it listens to `<root>/door.json` and opens it again at its next start.

use crate::error::{ApiError, Body};
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{from_fn_with_state, Next};
use axum::response::Response;
use axum::routing::post;
use axum::{Json, Router};
use cowork_wire::daemon::agents::{DoorInfo, OpenDoor};
use cowork_wire::daemon::Changed;
use std::net::SocketAddr;

/// What the door's gate checks a request against.
#[derive(Clone)]
struct Gate {
    state: AppState,
    /// The Host agents send: the URL's authority.
    host: String,
    /// The Origin a browser on the URL's site sends.
    origin: String,
}

/// `GET /api/agents/door`: the open door, or null.
pub async fn show(State(state): State<AppState>) -> Json<Option<DoorInfo>> {
    Json(state.door.info())
}

/// `POST /api/agents/door/off`: closes it (requests in flight finish) and forgets it, so the next
/// start does not open it again.
pub async fn close(State(state): State<AppState>) -> Json<Changed> {
    let forgotten = match std::fs::remove_file(state.engine.root().door_file()) {
        Ok(()) => true,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => false,
        Err(error) => {
            tracing::warn!(%error, "could not remove door.json: the door opens again at the next start");
            false
        }
    };
    Json(Changed { changed: state.door.close() || forgotten })
}

/// Opens the door `door.json` remembers, at the daemon's start. One that cannot listen any more
/// (its port taken, its address gone) stays closed and is reported in the daemon's log; the file
/// is kept, so a later start tries again.
pub fn reopen(state: AppState) {
    let file = state.engine.root().door_file();
    let Ok(text) = std::fs::read_to_string(&file) else { return };
    let saved: DoorInfo = match serde_json::from_str(&text) {
        Ok(saved) => saved,
        Err(error) => {
            tracing::warn!(%error, file = %file.display(), "door.json is not a door: it stays closed");
            return;
        }
    };
    tokio::spawn(async move {
        match listen(&state, &saved.listen.to_string(), Some(saved.url)).await {
            Ok(info) => {
                tracing::info!(listen = %info.listen, url = %info.url, "the agents' door is open again")
            }
            Err(error) => {
                let (_, message) = error.name_and_message();
                tracing::warn!(listen = %saved.listen, %message, "could not open the agents' door again");
            }
        }
    });
}

/// The Origin and Host of an http(s) `url` (`https://door.example.com/api/mcp` →
/// `https://door.example.com`, `door.example.com`).
fn authority(url: &str) -> Option<(String, String)> {
    let (scheme, rest) = url.split_once("://").filter(|(s, _)| *s == "http" || *s == "https")?;
    let host = rest.split(['/', '?', '#']).next().filter(|h| !h.is_empty() && !h.contains('@'))?;
    Some((format!("{scheme}://{host}"), host.to_string()))
}

/// `POST /api/agents/door`: opens the door on `listen` (replacing an open one), and remembers it
/// for the next start.
pub async fn open(
    State(state): State<AppState>,
    Body(body): Body<OpenDoor>,
) -> Result<Json<DoorInfo>, ApiError> {
    let info = listen(&state, &body.listen, body.url).await?;
    let saved = serde_json::to_vec_pretty(&info).expect("a door serializes");
    if let Err(error) =
        cowork_core::fs_atomic::write(&state.engine.root().door_file(), &saved, true)
    {
        tracing::warn!(%error, "could not write door.json: the door stays open until the daemon stops");
    }
    Ok(Json(info))
}

/// Opens the door's listener on `listen` (closing an open one), agents told to use `url`.
async fn listen(state: &AppState, listen: &str, url: Option<String>) -> Result<DoorInfo, ApiError> {
    let bad = |message: String| ApiError::new(StatusCode::BAD_REQUEST, message);
    let listen: SocketAddr = listen
        .parse()
        .map_err(|_| bad(format!("\"{listen}\" is not host:port (e.g. 127.0.0.1:47914)")))?;
    if listen.ip().is_unspecified() && url.is_none() {
        return Err(bad(format!(
            "{listen} listens on every interface: say the address agents use with --url (and put HTTPS in front of it)"
        )));
    }
    if let Some(url) = url.as_deref().filter(|u| authority(u).is_none()) {
        return Err(bad(format!("--url {url} is not an http(s) address with a host")));
    }
    state.door.close();
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| bad(format!("failed to listen on {listen}: {e}")))?;
    let listen =
        listener.local_addr().map_err(|e| bad(format!("failed to listen on {listen}: {e}")))?;
    let url = url.unwrap_or_else(|| format!("http://{listen}/api/mcp"));
    let (origin, host) = authority(&url).expect("checked above, or made from a socket address");
    let gate = Gate { state: state.clone(), origin, host };
    let router = Router::new()
        .route("/api/mcp", post(crate::mcp::post).get(crate::mcp::get).delete(crate::mcp::delete))
        .route_layer(from_fn_with_state(gate, door_only))
        .with_state(state.clone());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let mut stopping = state.stopping.clone();
    tokio::spawn(crate::limits::serve(listener, router, async move {
        tokio::select! {
            _ = stopped => {}
            _ = stopping.wait_for(|s| *s) => {}
        }
    }));
    let info = DoorInfo { listen, url };
    state.door.opened(info.clone(), stop);
    Ok(info)
}

/// The door's gate: the Host is the URL's, an Origin (a browser) is the URL's site, then an agent
/// token as on the daemon's own listener.
async fn door_only(State(gate): State<Gate>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    if host != gate.host {
        return crate::guard::refuse(
            StatusCode::FORBIDDEN,
            "this door answers only at the address it was opened for (--url)",
        );
    }
    if headers.get(header::ORIGIN).is_some_and(|o| o.to_str().ok() != Some(gate.origin.as_str())) {
        return crate::guard::refuse(
            StatusCode::FORBIDDEN,
            "requests from another origin are refused",
        );
    }
    crate::guard::with_agent(&gate.state, request, next).await
}
