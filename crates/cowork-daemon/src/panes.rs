//! Widget panes: each opened pane gets a token that NAMES ITS APP, and the workbench forwards that
//! pane's `window.cowork` calls to `POST /api/sdk/<method>` with it. The daemon takes the app from
//! the token, never from the request, so a pane can never act as another app. The owner token is
//! not accepted here (it names no app), and a pane token is accepted nowhere else. The gate in
//! front of `/api/sdk/*` is `guard::pane_only`; the workbench ends a pane's token with `pane.close`
//! when it detaches the pane, and its page session's end ends the rest (`pane_tokens`).

use crate::assets::frame_url;
use crate::capture_routes;
use crate::error::{ApiError, Body};
use crate::pane_tokens::Pane;
use crate::state::AppState;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode};
use axum::{Extension, Json};
use cowork_engine::{CtxError, ErrorName};
use cowork_engine::{Event, RunRequest, Source};
use cowork_wire::daemon::consent::ConsentReply;
use cowork_wire::daemon::notifications::Delivered;
use cowork_wire::daemon::panes::{
    ConsentParams, CredentialParams, LogParams, OpenPane, OpenedPane, PostParams, RunParams,
    RunsParams, SdkAnswer, SdkError, StateParams, Widget,
};
use cowork_wire::daemon::{Answer, Flag};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// Largest `cowork.state` value per view: state is a cache, keep it bounded.
const STATE_LIMIT: usize = 256 * 1024;
/// How long a widget's consent question waits for the person: a widget has no run deadline.
const CONSENT_WAIT: std::time::Duration = std::time::Duration::from_secs(300);

/// `POST /api/panes` (owner): a pane for `file` of `app`: its frame URL, its token (which ends
/// with the asking page's session, see `pane_tokens`) and the widget prepared to run (or why it
/// cannot).
pub async fn open(
    State(state): State<AppState>,
    headers: HeaderMap,
    Body(body): Body<OpenPane>,
) -> Result<Json<OpenedPane>, ApiError> {
    let ws = state.engine.workspace(&body.workspace)?;
    let registry = ws.registry();
    let app = registry.app_by_name(&body.app).filter(|a| a.enabled).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no switched-on app \"{}\" in this workspace", body.app),
        )
    })?;
    // A pane shows a file of its own app: an absolute path, `..` or a symlink leading out of the
    // app folder would hand any readable file to a frame. (A missing file is the widget's error.)
    if app.path.join(&body.file).exists()
        && !cowork_core::manifest::stays_inside(&app.path, &body.file)
    {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, format!("the widget file \"{}\" is outside the folder of {}: a pane shows a widget file of its own app", body.file, app.manifest.name)));
    }
    let widget =
        match cowork_engine::widgets::prepare(state.engine.transpiler(), &app.path, &body.file) {
            Ok(prepared) => Widget::Ready(prepared),
            Err(error) => Widget::Broken { file: body.file, error },
        };
    let session = crate::pane_tokens::session_of(&headers);
    let (token, pane) =
        state.panes.open(session, ws.root().to_path_buf(), app.manifest.name.clone());
    Ok(Json(OpenedPane {
        src: frame_url(ws.root(), &pane.app, state.port),
        pane_id: pane.id,
        pane_token: token,
        widget,
        workspace_root: ws.root().to_path_buf(),
    }))
}

fn ok(result: impl Serialize) -> Json<SdkAnswer> {
    let result = serde_json::to_value(result).expect("an SDK answer has string keys only");
    Json(Answer::Done { ok: Flag, result })
}

fn answer<T: Serialize>(outcome: Result<T, CtxError>) -> Json<SdkAnswer> {
    match outcome {
        Ok(result) => ok(result),
        Err(error) => Json(Answer::Failed { ok: Flag, error: SdkError::Call(error) }),
    }
}

fn fail(name: ErrorName, message: impl Into<String>) -> Json<SdkAnswer> {
    let error = CtxError::new(name, message);
    Json(Answer::Failed { ok: Flag, error: SdkError::Call(error) })
}

/// The params of `method`, typed: a missing or mistyped field is a `BadRequest` answer naming it.
/// No params at all (`null`) read as `{}`.
fn params<T: DeserializeOwned>(method: &str, params: Value) -> Result<T, Json<SdkAnswer>> {
    let params = if params.is_null() { Value::Object(Default::default()) } else { params };
    serde_path_to_error::deserialize(params).map_err(|error| {
        let field = error.path().to_string();
        let error = error.into_inner();
        fail(
            ErrorName::BadRequest,
            format!("{method}: the params do not fit at `{field}`: {error}"),
        )
    })
}

/// Where a connection stands, and — after starting a sign-in — the address the browser opens.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConnectionAnswer {
    #[serde(flatten)]
    status: cowork_engine::credentials::Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    auth_url: Option<String>,
}

/// Reads `method`'s params as `T`, or answers the call with why they do not fit.
macro_rules! read {
    ($method:expr, $params:expr) => {
        match params($method, $params) {
            Ok(read) => read,
            Err(answer) => return Ok(answer),
        }
    };
}

/// `POST /api/sdk/<method>`: one `window.cowork` call of a pane, as its app.
pub async fn sdk(
    State(state): State<AppState>,
    Extension(pane): Extension<Arc<Pane>>,
    window: crate::guard::Window,
    UrlPath(method): UrlPath<String>,
    Body(params): Body<Value>,
) -> Result<Json<SdkAnswer>, ApiError> {
    let ws = state.engine.workspace(&pane.workspace)?;
    let app = pane.app.as_str();
    Ok(match method.as_str() {
        "routines.run" => {
            let run: RunParams = read!(&method, params);
            let args = run.args.unwrap_or_else(|| Value::Object(Default::default()));
            let mut request = RunRequest::new(&run.id, args, Source::App);
            request.caller_app = Some(app.to_string());
            request.timeout_ms = run.timeout_ms;
            match ws.run(request).await {
                Ok(success) => ok(success.result),
                Err(failure) => Json(Answer::Failed { ok: Flag, error: SdkError::Run(failure) }),
            }
        }
        "routines.runs" => {
            let runs: RunsParams = read!(&method, params);
            let visible = crate::pane_runs::visible(&ws, app, runs.id, runs.app.as_deref())
                .map_err(|e| ApiError::internal("failed to read the audit log", &e))?;
            ok(visible.into_iter().map(crate::pane_runs::pane_run).collect::<Vec<_>>())
        }
        "notify" => match ws.notify(app, None, &params) {
            Ok(delivery) => ok(Delivered { delivery }),
            Err(error) => fail(ErrorName::BadRequest, error.to_string()),
        },
        "badge" => match ws.badge(app, None, &params["count"]) {
            Ok(count) => ok(count),
            Err(error) => fail(ErrorName::BadRequest, error.to_string()),
        },
        "consent.request" => {
            let params = read!(&method, params);
            tokio::select! {
                answer = consent(&ws, app, params) => answer,
                // The pane closed while its question was open: the question is withdrawn, so
                // every window closes its dialog instead of asking for a view that is gone.
                () = state.panes.closed(&pane.id) => {
                    ok(ConsentReply::refused("the view that asked was closed"))
                }
            }
        }
        "capture.record" => {
            answer(capture_routes::record(&state, &ws, app, &pane.id, read!(&method, params)).await)
        }
        "capture.shot" => {
            answer(capture_routes::shot(&state, &ws, app, read!(&method, params)).await)
        }
        "capture.current" => answer(capture_routes::current(&state, &ws, app, &pane.id)),
        "capture.stop" => {
            answer(capture_routes::stop(&state, &ws, app, read!(&method, params)).await)
        }
        "credentials.get" | "credentials.connect" => {
            credentials(&state, &ws, app, &method, read!(&method, params), &window).await
        }
        "state.get" | "state.set" => {
            let path = state.engine.root().workspace_dir(&pane.workspace).join("state.json");
            let params: StateParams = read!(&method, params);
            let key = format!("{}/{}", pane.app, params.view.as_deref().unwrap_or("main"));
            let set = (method == "state.set").then_some(params.value);
            tokio::task::spawn_blocking(move || view_state(&path, &key, set))
                .await
                .map_err(|e| ApiError::internal("the pane's state failed", &e))?
        }
        "queue" => answer(crate::queues::pane_call(&ws, read!(&method, params)).await),
        "tables.schema" | "tables.query" | "tables.exec" => {
            answer(crate::queues::tables(ws.root(), app, &method, read!(&method, params)).await)
        }
        "stream.write" | "stream.resize" | "stream.close" | "stream.ack" => {
            crate::streams::answer(&pane, &method, params).await
        }
        "identity.currentUser" => ok(state.engine.account().identity().current_user()),
        "pane.close" => {
            state.panes.close(&pane.id);
            crate::streams::close_pane(&pane.id);
            ok(Value::Null)
        }
        "log" => {
            let log: LogParams = read!(&method, params);
            let parts: Vec<String> = log
                .parts
                .into_iter()
                .map(|p| p.as_str().map(String::from).unwrap_or_else(|| p.to_string()))
                .collect();
            ws.emit(Event::Log {
                workspace: ws.display(),
                run_id: String::new(),
                routine: app.to_string(),
                stream: "widget".into(),
                line: parts.join(" "),
            });
            ok(Value::Null)
        }
        "app.post" => {
            let post: PostParams = read!(&method, params);
            ws.emit(Event::AppMessage {
                workspace: ws.display(),
                app: app.to_string(),
                from_pane: pane.id.clone(),
                message: post.message,
            });
            ok(Value::Null)
        }
        m if m == "chat.ask" || m.starts_with("agent.") => {
            ws.emit(Event::Agent {
                workspace: ws.display(),
                app: app.to_string(),
                method: m.to_string(),
                params,
            });
            ok(Value::Null)
        }
        other => fail(ErrorName::NotFound, format!("no SDK method \"{other}\" behind the daemon")),
    })
}

/// `credentials.get/connect` from a pane: only the connections of the capabilities its app uses.
async fn credentials(
    state: &AppState,
    ws: &cowork_engine::Workspace,
    app: &str,
    method: &str,
    params: CredentialParams,
    window: &crate::guard::Window,
) -> Json<SdkAnswer> {
    let name = params.name.as_str();
    let registry = ws.registry();
    let uses: Vec<String> = registry
        .app_by_name(app)
        .map(|a| a.manifest.uses.keys().cloned().collect())
        .unwrap_or_default();
    let Some(connection) = cowork_engine::credentials::declared(&registry)
        .remove(name)
        .filter(|c| c.used_by.iter().any(|cap| uses.contains(cap) || cap == app))
    else {
        return fail(ErrorName::NotFound, format!("{app} uses no capability with a connection named \"{name}\" (add the capability to \"uses\" in its cowork.json)"));
    };
    if method == "credentials.connect" {
        use cowork_engine::credentials::ConnectError;
        // No `fields` is a sign-in; `fields` that are not names to strings are a mistake, never a sign-in.
        let fields: Option<std::collections::BTreeMap<String, String>> = match params.fields {
            None | Some(Value::Null) => None,
            Some(given) => match serde_json::from_value(given) {
                Ok(fields) => Some(fields),
                Err(_) => return fail(ErrorName::BadRequest, format!("credentials.connect(\"{name}\", fields): fields are the key's fields by name, each a string (like {{ token: \"…\" }}); leave them out to sign in")),
            },
        };
        let store = match state.engine.secrets() {
            Ok(store) => store,
            Err(error) => return fail(ErrorName::Unavailable, error.to_string()),
        };
        let oauth = state.engine.oauth();
        let connect =
            cowork_engine::credentials::connect(oauth, store, &connection, fields, || {
                window.may_sign_in()
            });
        return match connect.await {
            Ok(connected) => {
                ok(ConnectionAnswer { status: connected.status, auth_url: connected.auth_url })
            }
            Err(ConnectError::Fields(error)) => fail(ErrorName::BadRequest, error.to_string()),
            Err(ConnectError::NotHere(error)) => answer::<Value>(Err(error)),
            Err(ConnectError::SignIn(error)) => fail(error.name, error.message),
        };
    }
    let store = match state.engine.secrets() {
        Ok(store) => store,
        Err(error) => return fail(ErrorName::Unavailable, error.to_string()),
    };
    ok(cowork_engine::credentials::status(&store, &connection))
}

/// `cowork.consent.request({value, title, body, detail})` (docs/reference/sdk.md): the same broker
/// as a routine's — approved ahead of time, asked in a window, or refused at once with the line
/// that approves it.
async fn consent(
    ws: &cowork_engine::Workspace,
    app: &str,
    params: ConsentParams,
) -> Json<SdkAnswer> {
    let Some(value) = params.value.as_deref().filter(|v| !v.trim().is_empty()) else {
        return fail(
            ErrorName::BadRequest,
            "consent needs a `value`: the stable label the approval is remembered under",
        );
    };
    if let Err(message) = cowork_engine::consent::one_line(value) {
        return fail(ErrorName::BadRequest, message);
    }
    fn text(given: Option<&str>) -> Option<&str> {
        given.filter(|t| !t.is_empty())
    }
    let description = match (text(params.body.as_deref()), text(params.detail.as_deref())) {
        (Some(body), Some(detail)) => Some(format!("{body}\n\n{detail}")),
        (body, detail) => body.or(detail).map(String::from),
    };
    let question = cowork_engine::consent::Question {
        app: app.to_string(),
        routine: None,
        value: value.to_string(),
        title: text(params.title.as_deref()).map(String::from),
        description,
        command: None,
    };
    let decision = ws.consent(question, std::time::Instant::now() + CONSENT_WAIT).await;
    ok(decision.reply)
}

/// One `state.json` holds every app's views, and a set reads, changes and replaces the whole
/// file: two sets at once (two panes, or one pane's quick clicks on two connections) would each
/// write what they read, and one of them would be lost. So each file has a lock its sets take, and
/// a widget saving as fast as it can slows only its own workspace's sets. A get takes none: the
/// file is replaced whole, never written in place.
static STATE_FILES: std::sync::Mutex<
    std::collections::BTreeMap<std::path::PathBuf, std::sync::Arc<std::sync::Mutex<()>>>,
> = std::sync::Mutex::new(std::collections::BTreeMap::new());

/// The lock of one `state.json` (one per workspace the daemon has served a set for).
fn state_file_lock(path: &std::path::Path) -> std::sync::Arc<std::sync::Mutex<()>> {
    let mut files = STATE_FILES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    files.entry(path.to_path_buf()).or_default().clone()
}

/// `cowork.state`, per view (`key` is `<app>/<view>`), persisted in the workspace's folder under
/// the Cowork root: the view's value, or `set` saved in its place.
fn view_state(path: &std::path::Path, key: &str, set: Option<Value>) -> Json<SdkAnswer> {
    let file = set.is_some().then(|| state_file_lock(path));
    let _only_writer =
        file.as_ref().map(|file| file.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
    let mut all: serde_json::Map<String, Value> = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let Some(value) = set else {
        return ok(all.get(key).cloned().unwrap_or(Value::Null));
    };
    if value.to_string().len() > STATE_LIMIT {
        return fail(
            ErrorName::BadRequest,
            format!(
                "cowork.state holds at most {} KB per view: keep it a small cache",
                STATE_LIMIT / 1024
            ),
        );
    }
    all.insert(key.to_string(), value);
    match cowork_core::fs_atomic::write(path, Value::Object(all).to_string().as_bytes(), true) {
        Ok(()) => ok(Value::Null),
        Err(error) => {
            fail(ErrorName::Unavailable, format!("failed to save the pane's state: {error}"))
        }
    }
}
