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
use crate::wire::{Delivered, Flag};
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode};
use axum::{Extension, Json};
use cowork_engine::widgets::{PreparedWidget, WidgetError};
use cowork_engine::{CtxError, ErrorName, RunFailure};
use cowork_engine::{Event, RunRequest, Source};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use ts_rs::TS;

/// Largest `cowork.state` value per view: state is a cache, keep it bounded.
const STATE_LIMIT: usize = 256 * 1024;
/// How long a widget's consent question waits for the person: a widget has no run deadline.
const CONSENT_WAIT: std::time::Duration = std::time::Duration::from_secs(300);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenPane {
    workspace: PathBuf,
    /// The app's manifest name.
    app: String,
    /// The widget file, relative to the app folder.
    file: String,
}

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

/// A pane, opened: the frame page on the app's own origin, its token, and its widget.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OpenedPane {
    pub pane_id: String,
    pub pane_token: String,
    /// The frame page on the app's own origin.
    pub src: String,
    pub widget: Widget,
    pub workspace_root: PathBuf,
}

/// A pane's widget: prepared to run, or why it cannot.
#[derive(Serialize, TS)]
#[serde(untagged)]
pub enum Widget {
    Ready(#[ts(type = "PreparedWidget")] PreparedWidget),
    Broken {
        file: String,
        #[ts(type = "WidgetError")]
        error: WidgetError,
    },
}

/// One SDK call's answer: `{ok: true, result}`, or `{ok: false, error}` — a call that failed is
/// an answer the widget's promise rejects with, not an HTTP error.
#[derive(Serialize, TS)]
#[serde(untagged)]
pub enum SdkAnswer {
    Done {
        #[ts(type = "true")]
        ok: Flag<true>,
        #[ts(type = "unknown")]
        result: Value,
    },
    Failed {
        #[ts(type = "false")]
        ok: Flag<false>,
        #[ts(type = "WireError")]
        error: SdkError,
    },
}

/// Why an SDK call failed: a routine's run failure (with its run id), or the call's own.
#[derive(Serialize)]
#[serde(untagged)]
pub enum SdkError {
    Run(RunFailure),
    Call(CtxError),
}

fn ok(result: impl Serialize) -> Json<SdkAnswer> {
    let result = serde_json::to_value(result).expect("an SDK answer has string keys only");
    Json(SdkAnswer::Done { ok: Flag, result })
}

fn answer(outcome: Result<Value, CtxError>) -> Json<SdkAnswer> {
    match outcome {
        Ok(result) => ok(result),
        Err(error) => Json(SdkAnswer::Failed { ok: Flag, error: SdkError::Call(error) }),
    }
}

fn fail(name: ErrorName, message: impl Into<String>) -> Json<SdkAnswer> {
    let error = CtxError::new(name, message);
    Json(SdkAnswer::Failed { ok: Flag, error: SdkError::Call(error) })
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

/// `routines.run({id, args, timeoutMs})`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunParams {
    id: String,
    #[serde(default)]
    args: Option<Value>,
    #[serde(default)]
    timeout_ms: Option<u64>,
}

/// `routines.runs({id, app})`: both narrow the list.
#[derive(Deserialize)]
struct RunsParams {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    app: Option<String>,
}

/// One run in the `routines.runs` answer.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PaneRun {
    pub run_id: String,
    pub routine: String,
    pub app: Option<String>,
    #[ts(type = "\"app\" | \"capability\" | null")]
    pub kind: Option<cowork_core::manifest::Kind>,
    #[ts(type = "\"ok\" | \"error\" | \"denied\"")]
    pub status: cowork_core::audit::Status,
    pub ts: String,
    pub duration_ms: u64,
    /// The apps and routines that led to this run, when another one called it.
    pub chain: Option<Vec<String>>,
}

impl From<cowork_core::audit::Record> for PaneRun {
    fn from(record: cowork_core::audit::Record) -> Self {
        PaneRun {
            run_id: record.context.run_id,
            routine: record.capability,
            app: record.context.app_id,
            kind: record.context.kind,
            status: record.status,
            ts: record.ts,
            duration_ms: record.duration_ms,
            chain: record.context.caller.map(|c| c.chain),
        }
    }
}

/// `credentials.get/connect({name, fields})`: no `fields` is a sign-in.
#[derive(Deserialize)]
struct CredentialParams {
    name: String,
    #[serde(default)]
    fields: Option<Value>,
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

/// `consent.request({value, title, body, detail})`.
#[derive(Deserialize)]
struct ConsentParams {
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    detail: Option<String>,
}

/// `state.get({view})` / `state.set({view, value})`.
#[derive(Deserialize)]
struct StateParams {
    #[serde(default)]
    view: Option<String>,
    #[serde(default)]
    value: Value,
}

/// `log({parts})`: strings are logged as they are, anything else as its JSON.
#[derive(Deserialize)]
struct LogParams {
    #[serde(default)]
    parts: Vec<Value>,
}

/// `app.post({message})`: the message goes to every pane of the app.
#[derive(Deserialize)]
struct PostParams {
    #[serde(default)]
    message: Value,
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
                Err(failure) => Json(SdkAnswer::Failed { ok: Flag, error: SdkError::Run(failure) }),
            }
        }
        "routines.runs" => {
            let runs: RunsParams = read!(&method, params);
            let visible = crate::pane_runs::visible(&ws, app, runs.id, runs.app.as_deref())
                .map_err(|e| ApiError::internal("failed to read the audit log", &e))?;
            ok(visible.into_iter().map(PaneRun::from).collect::<Vec<_>>())
        }
        "notify" => match ws.notify(app, None, &params) {
            Ok(delivery) => ok(Delivered { delivery }),
            Err(error) => fail(ErrorName::BadRequest, error.to_string()),
        },
        "badge" => match ws.badge(app, None, &params["count"]) {
            Ok(count) => ok(count),
            Err(error) => fail(ErrorName::BadRequest, error.to_string()),
        },
        "consent.request" => consent(&ws, app, read!(&method, params)).await,
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
        "state.get" | "state.set" => view_state(&state, &pane, &method, read!(&method, params)),
        "queue" => answer(crate::queues::pane_call(&ws, read!(&method, params)).await),
        "tables.schema" | "tables.query" | "tables.exec" => {
            answer(crate::queues::tables(ws.root(), app, &method, read!(&method, params)).await)
        }
        "identity.currentUser" => ok(state.engine.account().identity().current_user()),
        "pane.close" => {
            state.panes.close(&pane.id);
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
                stream: "widget",
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
            Err(ConnectError::NotHere(error)) => answer(Err(error)),
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

/// `cowork.state`, per view, persisted in the workspace's folder under the Cowork root.
fn view_state(state: &AppState, pane: &Pane, method: &str, params: StateParams) -> Json<SdkAnswer> {
    let view = params.view.as_deref().unwrap_or("main");
    let path = state.engine.root().workspace_dir(&pane.workspace).join("state.json");
    let mut all: serde_json::Map<String, Value> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let key = format!("{}/{view}", pane.app);
    if method == "state.get" {
        return ok(all.get(&key).cloned().unwrap_or(Value::Null));
    }
    let value = params.value;
    if value.to_string().len() > STATE_LIMIT {
        return fail(
            ErrorName::BadRequest,
            format!(
                "cowork.state holds at most {} KB per view: keep it a small cache",
                STATE_LIMIT / 1024
            ),
        );
    }
    all.insert(key, value);
    match cowork_core::fs_atomic::write(&path, Value::Object(all).to_string().as_bytes(), true) {
        Ok(()) => ok(Value::Null),
        Err(error) => {
            fail(ErrorName::Unavailable, format!("failed to save the pane's state: {error}"))
        }
    }
}
