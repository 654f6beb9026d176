//! The daemon's HTTP API. Handlers are thin: extract, call the engine, map the result.

use crate::guard;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use cowork_engine::{Engine, RunRequest, Source};
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::Notify;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::StreamExt;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub engine: Arc<Engine>,
    /// The owner token every request must carry.
    pub token: Arc<str>,
    /// The port we listen on (the Host header must name it).
    pub port: u16,
    pub started: Instant,
    /// Notified by `POST /api/stop`.
    pub shutdown: Arc<Notify>,
    /// The open widget panes and their tokens.
    pub panes: Arc<crate::panes::Panes>,
    /// The workspace the workbench shows when the page names none (`cowork app serve <folder>`).
    pub default_workspace: Option<PathBuf>,
    /// Turns true when the daemon begins to stop: event streams end then (see [`until_stopped`]).
    pub stopping: tokio::sync::watch::Receiver<bool>,
    /// The desktop shell attached to this daemon, if any.
    pub desktop: Arc<crate::desktop::DesktopChannel>,
    /// The one-time codes workbench pages trade for the owner token.
    pub codes: Arc<crate::session::Codes>,
}

/// The router: the owner's API behind the owner gate, the panes' SDK calls behind the pane gate,
/// app icons behind the same-site check (an `<img>` carries no token), and the static workbench
/// and frame pages (host-checked, nothing secret) for everything else.
pub fn app(state: AppState) -> Router {
    use crate::{assets, desktop, panes, workbench};
    let sdk = Router::new()
        .route("/api/sdk/{method}", post(panes::sdk))
        .layer(axum::middleware::from_fn_with_state(state.clone(), guard::pane_only));
    let icons = Router::new()
        .route("/api/icon", get(workbench::icon))
        .route("/api/session", post(crate::session::exchange))
        .layer(axum::middleware::from_fn_with_state(state.clone(), guard::loopback_only));
    let public = Router::new().fallback(assets::serve);
    let owner = Router::new()
        .route("/api/health", get(health))
        .route("/api/workbench", get(workbench::summary))
        .route("/api/files", get(workbench::files))
        .route("/api/file", get(workbench::file))
        .route("/api/route", get(workbench::route))
        .route("/api/apps/enable", post(workbench::switch))
        .route("/api/apps/mute", post(workbench::switch))
        .route("/api/rail", post(workbench::rail))
        .route("/api/open-with", post(workbench::open_with))
        .route("/api/statusbar", get(workbench::status_bar_refresh))
        .route("/api/statusbar/click", post(workbench::status_bar_click))
        .route("/api/panes", post(panes::open))
        .route("/api/open", post(workbench::open))
        .route("/api/status", get(status))
        .route("/api/stop", post(stop))
        .route("/api/session/code", post(crate::session::issue))
        .route("/api/routines/run", post(run_routine))
        .route("/api/events", get(events))
        .route("/api/credentials", get(credential_status))
        .route("/api/credentials/connect", post(credential_connect))
        .route("/api/consent/requests", get(consent_requests))
        .route("/api/consent/answer", post(consent_answer))
        .route("/api/desktop/requests", get(desktop::requests))
        .route("/api/desktop/show", post(desktop::show))
        .route("/api/desktop/active", post(desktop::active))
        .route("/api/desktop/notify", post(desktop::site_notify))
        .route("/api/desktop/badge", post(desktop::site_badge))
        .route("/api/notifications/shown", post(desktop::shown))
        .layer(axum::middleware::from_fn_with_state(state.clone(), guard::owner_only));
    owner.merge(sdk).merge(icons).merge(public).with_state(state)
}

/// `stream`, ending when the daemon begins to stop: a graceful stop waits for running routines,
/// never for a window that follows events (it would wait forever).
pub fn until_stopped<S: tokio_stream::Stream>(
    state: &AppState,
    stream: S,
) -> impl tokio_stream::Stream<Item = S::Item> {
    let mut stopping = state.stopping.clone();
    futures_util::StreamExt::take_until(stream, async move {
        let _ = stopping.wait_for(|stopping| *stopping).await;
    })
}

/// A request the daemon cannot serve: the name a caller branches on, and a message for the person.
pub struct ApiError(StatusCode, &'static str, String);

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError(status, "BadRequest", message.into())
    }

    /// An error with a name of its own (`NotHere`).
    pub fn named(status: StatusCode, name: &'static str, message: impl Into<String>) -> Self {
        ApiError(status, name, message.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": { "name": self.1, "message": self.2 } }))).into_response()
    }
}

impl From<cowork_engine::EngineError> for ApiError {
    fn from(error: cowork_engine::EngineError) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, error.to_string())
    }
}

async fn health(State(state): State<AppState>) -> Json<Value> {
    Json(json!({
        "service": "cowork-studio",
        "version": env!("CARGO_PKG_VERSION"),
        "pid": std::process::id(),
        "port": state.port,
        "root": state.engine.root().dir(),
        "desktop": state.desktop.attached(),
    }))
}

async fn status(State(state): State<AppState>) -> Json<Value> {
    let engine = &state.engine;
    // The daemon's own view (its environment chooses the key source, not the CLI's); the
    // keychain is asked over D-Bus, so off the async threads.
    let root = engine.root().clone();
    let secrets = tokio::task::spawn_blocking(move || {
        crate::client::key_mode_json(&cowork_secrets::probe(&root))
    })
    .await
    .unwrap_or(Value::Null);
    let (used, max) = engine.slots();
    let workspaces: Vec<Value> = engine
        .open_workspaces()
        .iter()
        .map(|ws| {
            let registry = ws.registry();
            json!({
                "path": ws.root(),
                "apps": registry.apps.len(),
                "routines": registry.routines.len(),
                "notifications": ws.hub().bell(),
                "badges": ws.hub().badges(|app| ws.is_muted(app)),
            })
        })
        .collect();
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "pid": std::process::id(),
        "port": state.port,
        "root": engine.root().dir(),
        "uptimeS": state.started.elapsed().as_secs(),
        "runtime": engine.runtime().ok(),
        "runtimeError": engine.runtime().err().map(|e| e.to_string()),
        "slots": { "used": used, "max": max },
        "secrets": secrets,
        "workspaces": workspaces,
    }))
}

async fn stop(State(state): State<AppState>) -> Json<Value> {
    state.shutdown.notify_one();
    Json(json!({ "stopping": true }))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunBody {
    workspace: PathBuf,
    id: String,
    #[serde(default)]
    args: Value,
    timeout_ms: Option<u64>,
    agent: Option<String>,
}

/// `{ok: true, result, runId, warnings?}` or `{ok: false, error: {name, message, runId?}}`: a
/// routine that failed is a normal answer (200), not an HTTP error.
async fn run_routine(
    State(state): State<AppState>,
    Json(body): Json<RunBody>,
) -> Result<Json<Value>, ApiError> {
    let ws = state.engine.workspace(&body.workspace)?;
    let mut request = RunRequest::new(
        body.id,
        if body.args.is_null() { json!({}) } else { body.args },
        Source::Cli,
    );
    request.timeout_ms = body.timeout_ms;
    request.agent = body.agent;
    // Detached from the request: a client that goes away mid-run (Ctrl-C, a dropped connection)
    // drops this handler, but the run still finishes, kills its tree and writes its audit line.
    let run = tokio::spawn(async move { ws.run(request).await });
    let outcome = run.await.map_err(|error| {
        tracing::error!(%error, "a routine run panicked");
        ApiError::named(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal",
            "the run failed inside the daemon (see its log)",
        )
    })?;
    Ok(Json(match outcome {
        Ok(success) => {
            json!({ "ok": true, "result": success.result, "runId": success.run_id, "warnings": success.warnings })
        }
        Err(failure) => json!({ "ok": false, "error": failure }),
    }))
}

#[derive(Deserialize)]
struct EventsQuery {
    workspace: Option<PathBuf>,
}

/// Server-sent events: notifications, badges, registry changes, log lines and finished runs.
async fn events(
    State(state): State<AppState>,
    Query(query): Query<EventsQuery>,
) -> Result<impl IntoResponse, ApiError> {
    let only = match query.workspace {
        Some(path) => Some(state.engine.workspace(&path)?.root().display().to_string()),
        None => None,
    };
    let stream = BroadcastStream::new(state.engine.subscribe()).filter_map(move |event| {
        let event = event.ok()?;
        let value = serde_json::to_value(&event).ok()?;
        if let Some(only) = &only {
            if value["workspace"].as_str() != Some(only.as_str()) {
                return None;
            }
        }
        Some(Ok::<_, std::convert::Infallible>(SseEvent::default().data(value.to_string())))
    });
    Ok(Sse::new(until_stopped(&state, stream)).keep_alive(KeepAlive::default()))
}

/// The questions routines ask (`ctx.command.run`, `ctx.consent.request`), for a window that shows
/// the consent modal. While one is connected, routines wait for its answer instead of being refused.
async fn consent_requests(State(state): State<AppState>) -> impl IntoResponse {
    let stream = async_stream_of_requests(state.engine.clone());
    Sse::new(until_stopped(&state, stream)).keep_alive(KeepAlive::default())
}

fn async_stream_of_requests(
    engine: Arc<Engine>,
) -> impl tokio_stream::Stream<Item = Result<SseEvent, std::convert::Infallible>> {
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tokio::spawn(async move {
        let broker = engine.consent().clone();
        let mut listener = broker.listen();
        loop {
            tokio::select! {
                request = listener.requests.recv() => match request {
                    Ok(request) => {
                        let data = serde_json::to_string(&request).expect("a request serializes");
                        if tx.send(Ok(SseEvent::default().data(data))).await.is_err() {
                            break;
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(_) => break,
                },
                () = tx.closed() => break,
            }
        }
    });
    tokio_stream::wrappers::ReceiverStream::new(rx)
}

#[derive(Deserialize)]
struct ConsentAnswer {
    id: String,
    granted: bool,
    #[serde(default)]
    remember: bool,
}

async fn consent_answer(
    State(state): State<AppState>,
    Json(body): Json<ConsentAnswer>,
) -> Result<Json<Value>, ApiError> {
    let answered = state.engine.consent().answer(
        &body.id,
        cowork_engine::consent::Answer { granted: body.granted, remember: body.remember },
    );
    if !answered {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!(
                "no consent question {} is waiting (answered already, or its run ended)",
                body.id
            ),
        ));
    }
    Ok(Json(json!({ "answered": true })))
}

#[derive(Deserialize)]
struct CredentialQuery {
    workspace: PathBuf,
    name: String,
}

fn connection(
    state: &AppState,
    workspace: &std::path::Path,
    name: &str,
) -> Result<cowork_engine::credentials::Connection, ApiError> {
    let ws = state.engine.workspace(workspace)?;
    cowork_engine::credentials::declared(&ws.registry()).remove(name).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            cowork_engine::credentials::CredentialError::Unknown(name.to_string()).to_string(),
        )
    })
}

fn store(state: &AppState) -> Result<std::sync::Arc<cowork_secrets::SecretStore>, ApiError> {
    state
        .engine
        .secrets()
        .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, e.to_string()))
}

/// `cowork.credentials.get(name)`: the state of a connection — never its key or token.
async fn credential_status(
    State(state): State<AppState>,
    Query(query): Query<CredentialQuery>,
) -> Result<Json<Value>, ApiError> {
    let connection = connection(&state, &query.workspace, &query.name)?;
    Ok(Json(json!(cowork_engine::credentials::status(&*store(&state)?, &connection))))
}

#[derive(Deserialize)]
struct ConnectBody {
    workspace: PathBuf,
    name: String,
    fields: Option<std::collections::BTreeMap<String, String>>,
}

/// `cowork.credentials.connect(name, fields?)`: saves a key, or starts a sign-in and answers with
/// the address the browser opens (the sign-in then finishes on its own; only from a window on this
/// computer, else `NotHere`).
async fn credential_connect(
    State(state): State<AppState>,
    window: guard::Window,
    Json(body): Json<ConnectBody>,
) -> Result<Json<Value>, ApiError> {
    let connection = connection(&state, &body.workspace, &body.name)?;
    let store = store(&state)?;
    let mut answer =
        match body.fields {
            Some(fields) => {
                cowork_engine::credentials::connect_key(&store, &connection, &fields)
                    .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e.to_string()))?;
                json!({})
            }
            None => {
                window.may_sign_in().map_err(|(name, message)| {
                    ApiError::named(StatusCode::FORBIDDEN, name, message)
                })?;
                let pending =
                    state.engine.oauth().start(store.clone(), &connection).await.map_err(
                        |(_, message, _)| ApiError::new(StatusCode::BAD_REQUEST, message),
                    )?;
                json!({ "authUrl": pending.auth_url })
            }
        };
    let status = json!(cowork_engine::credentials::status(&store, &connection));
    if let (Some(out), Some(status)) = (answer.as_object_mut(), status.as_object()) {
        out.extend(status.clone());
    }
    Ok(Json(answer))
}
