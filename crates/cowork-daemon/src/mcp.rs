//! The agents' door: `/api/mcp?ws=<workspace>`, MCP over Streamable HTTP, JSON-RPC answered with
//! single JSON bodies (no server-sent streams: nothing here needs one).
//!
//! Both protocol eras on one endpoint, chosen by what the client sends:
//! * the initialize era (2025-03-26, 2025-06-18, 2025-11-25): `initialize` echoes the client's
//!   version when it is one of these, else answers the newest; the answer carries an
//!   `Mcp-Session-Id` every later request must send (400 without, 404 for an unknown or ended
//!   one); an `MCP-Protocol-Version` header naming another version is a 400; DELETE ends the
//!   session; GET is 405 (no server-initiated stream);
//! * the stateless era (2026-07-28): no initialize, `server/discover`, the version and the client
//!   capabilities in every request's `_meta` (a request without them is `-32602`, 400), the
//!   version in the header too (they must agree: `HeaderMismatch`, 400), `Mcp-Method` and
//!   `Mcp-Name` mirrored from the body (checked the same way), an unknown version
//!   `UnsupportedProtocolVersion` (400), an unknown method 404.
//!
//! Who calls is the agent whose `cwa_` token the gate found (`guard::agent_only`); which
//! workspace it may open is [`open_for`]'s business (one of the login's, checked on every request
//! before the folder is touched); what it may run there is `tools::View`'s. The tools are the
//! reference's four (`tools.rs`): `start_task`, `list_capabilities`, `read` and `run`.

mod tools;
// The JSON-RPC and MCP shapes, shared with `cowork mcp-browser` (the stdio server of the CLI);
// the MCP specification documents each field.
#[allow(missing_docs)]
pub mod wire;

use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use cowork_core::agents::{self, Login};
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wire::{code, Incoming, Outgoing, RpcError};

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";

/// `?ws=`: the workspace folder the agent works in; `&task=`: the task of every call made through
/// this address unless a call names its own (the Chat gives its conversation so).
#[derive(Deserialize)]
pub struct DoorQuery {
    ws: Option<PathBuf>,
    task: Option<String>,
}

/// What one request is answered with: a status and, for a request, a JSON-RPC message.
struct Answer {
    status: StatusCode,
    body: Option<Outgoing>,
    session: Option<String>,
}

impl Answer {
    fn ok(id: Value, result: impl serde::Serialize) -> Answer {
        Answer { status: StatusCode::OK, body: Some(Outgoing::result(id, result)), session: None }
    }

    fn fail(status: StatusCode, id: Value, code: i64, message: impl Into<String>) -> Answer {
        let error = RpcError::new(code, message);
        Answer { status, body: Some(Outgoing::error(id, error)), session: None }
    }

    fn accepted() -> Answer {
        Answer { status: StatusCode::ACCEPTED, body: None, session: None }
    }
}

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        let mut response = match self.body {
            Some(body) => (self.status, Json(body)).into_response(),
            None => self.status.into_response(),
        };
        if let Some(id) = self.session.and_then(|id| HeaderValue::from_str(&id).ok()) {
            response.headers_mut().insert(SESSION_HEADER, id);
        }
        response
    }
}

/// GET: no server-initiated stream is offered (both eras allow 405), saying what is (RFC 9110:
/// a 405 carries `Allow`).
pub async fn get() -> impl IntoResponse {
    (StatusCode::METHOD_NOT_ALLOWED, [(axum::http::header::ALLOW, "POST, DELETE")])
}

/// DELETE: ends the caller's session (initialize era).
pub async fn delete(
    State(state): State<AppState>,
    Extension(login): Extension<Arc<Login>>,
    headers: HeaderMap,
) -> StatusCode {
    let id = header(&headers, SESSION_HEADER).unwrap_or_default();
    if state.mcp.end(id, &login.id) {
        StatusCode::NO_CONTENT
    } else {
        StatusCode::NOT_FOUND
    }
}

/// POST: one JSON-RPC message.
pub async fn post(
    State(state): State<AppState>,
    Extension(login): Extension<Arc<Login>>,
    Query(query): Query<DoorQuery>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    // Over the limit (2 MB), said as JSON-RPC by its name like every other refusal here.
    let body = match body {
        Ok(body) => body,
        Err(rejection) => {
            let status = rejection.status();
            let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
                "TooLarge: a message to the door is at most 2 MB".to_string()
            } else {
                format!("the body could not be read: {rejection}")
            };
            return Answer::fail(status, Value::Null, code::INVALID_REQUEST, message)
                .into_response();
        }
    };
    let value: Value = match serde_json::from_slice(&body) {
        Ok(value) => value,
        Err(e) => {
            return Answer::fail(
                StatusCode::BAD_REQUEST,
                Value::Null,
                code::PARSE,
                format!("the body is not JSON: {e}"),
            )
            .into_response()
        }
    };
    let message = match Incoming::read(value) {
        Ok(message) => message,
        Err(error) => {
            let answer = Outgoing::error(Value::Null, error);
            return (StatusCode::BAD_REQUEST, Json(answer)).into_response();
        }
    };
    if let Some(problem) = query.task.as_deref().and_then(tools::task_problem) {
        let id = message.id.unwrap_or(Value::Null);
        let message = format!("{problem} (the address's task=)");
        return Answer::fail(StatusCode::BAD_REQUEST, id, code::INVALID_PARAMS, message)
            .into_response();
    }
    let stateless = header(&headers, VERSION_HEADER) == Some(wire::STATELESS_VERSION)
        || message.meta(wire::META_VERSION).is_some();
    let answer = if stateless {
        stateless_era(&state, &login, query, &headers, message).await
    } else {
        session_era(&state, &login, query, &headers, message).await
    };
    answer.into_response()
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Why the door did not open a workspace: the status and the message for the agent.
struct Refused(StatusCode, String);

impl Refused {
    fn answer(self, id: Value) -> Answer {
        Answer::fail(self.0, id, code::INVALID_PARAMS, self.1)
    }
}

/// The workspace at `path` (`?ws=`, or the session's), opened for `login` — only when it is one
/// of the login's workspaces, which only its owner adds. The check comes before anything touches
/// the folder: opening a workspace writes into it (`.cowork/local`, `.claude/skills`) and watches
/// it. Called on every request, so a workspace taken from the login closes its open sessions too.
/// A folder the login does not serve is refused alike whether or not it exists or is a workspace,
/// so the door tells an agent nothing about the disk.
fn open_for(
    state: &AppState,
    login: &Login,
    path: Option<&Path>,
) -> Result<Arc<cowork_engine::Workspace>, Refused> {
    let Some(path) = path.filter(|p| p.is_absolute()) else {
        return Err(Refused(
            StatusCode::BAD_REQUEST,
            "the door's address names the workspace by its absolute path: /api/mcp?ws=<folder>"
                .into(),
        ));
    };
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    if !login.serves(&canonical) {
        tracing::warn!(agent = %login.name, workspace = %canonical.display(), "an agent asked for a workspace it does not serve");
        return Err(Refused(
            StatusCode::FORBIDDEN,
            format!(
                "Forbidden: the agent {} is not allowed in {}. Its owner lets it in with: {}",
                login.name,
                canonical.display(),
                agents::add_command(&login.name, &canonical)
            ),
        ));
    }
    if agents::check_workspace(&canonical).is_err() {
        return Err(Refused(
            StatusCode::BAD_REQUEST,
            format!(
                "{} is not a Cowork workspace (a folder holding .cowork/)",
                canonical.display()
            ),
        ));
    }
    state.engine.workspace(&canonical).map_err(|e| Refused(StatusCode::BAD_REQUEST, e.to_string()))
}

/// The initialize era: a session per `initialize`, then requests under it.
async fn session_era(
    state: &AppState,
    login: &Login,
    query: DoorQuery,
    headers: &HeaderMap,
    message: Incoming,
) -> Answer {
    if let Some(version) = header(headers, VERSION_HEADER) {
        if !wire::SESSION_VERSIONS.contains(&version) {
            return Answer::fail(
                StatusCode::BAD_REQUEST,
                message.id.unwrap_or(Value::Null),
                code::INVALID_REQUEST,
                format!(
                    "unsupported MCP-Protocol-Version {version}; this door speaks {} and {}",
                    wire::SESSION_VERSIONS.join(", "),
                    wire::STATELESS_VERSION
                ),
            );
        }
    }
    let (Some(id), Some(method)) = (message.id.clone(), message.method.clone()) else {
        // A notification (`notifications/initialized`, a cancellation) or a response: accepted.
        return Answer::accepted();
    };
    if method == "initialize" {
        return initialize(state, login, query, id, &message);
    }
    let Some(session_id) = header(headers, SESSION_HEADER) else {
        return Answer::fail(StatusCode::BAD_REQUEST, id, code::INVALID_REQUEST, "no Mcp-Session-Id: send initialize first (or speak 2026-07-28, with the version in _meta)");
    };
    let Some(session) = state.mcp.find(session_id, &login.id) else {
        return Answer::fail(
            StatusCode::NOT_FOUND,
            id,
            code::INVALID_REQUEST,
            "this session has ended or never was: initialize again",
        );
    };
    let ws = match open_for(state, login, Some(&session.workspace)) {
        Ok(ws) => ws,
        Err(refused) => return refused.answer(id),
    };
    let task =
        task_of(&message).or(session.task).or(query.task).or_else(|| Some(session_id.to_string()));
    match method.as_str() {
        "ping" => Answer::ok(id, json!({})),
        _ => {
            let call = Call {
                id,
                method: &method,
                message,
                task,
                client: session.client,
                session: Some(session_id),
                result_type: None,
            };
            serve(state, login, ws, call).await
        }
    }
}

fn initialize(
    state: &AppState,
    login: &Login,
    query: DoorQuery,
    id: Value,
    message: &Incoming,
) -> Answer {
    let params = message.params.clone().unwrap_or(Value::Null);
    let Ok(params) = serde_json::from_value::<wire::InitializeParams>(params) else {
        return Answer::fail(
            StatusCode::OK,
            id,
            code::INVALID_PARAMS,
            "initialize needs params.protocolVersion",
        );
    };
    let ws = match open_for(state, login, query.ws.as_deref()) {
        Ok(ws) => ws,
        Err(refused) => return refused.answer(id),
    };
    let version = if wire::SESSION_VERSIONS.contains(&params.protocol_version.as_str()) {
        params.protocol_version
    } else {
        wire::SESSION_VERSIONS[0].to_string()
    };
    let view = tools::View::of(&ws, &state.engine);
    let client = params.client_info.as_ref().and_then(|c| client_label(&c.name));
    let session = state.mcp.open(&login.id, ws.root().to_path_buf(), &version, client);
    let mut answer = Answer::ok(
        id,
        wire::InitializeResult {
            protocol_version: version,
            capabilities: json!({ "tools": { "listChanged": false } }),
            server_info: wire::SERVER,
            instructions: view.instructions(login),
        },
    );
    answer.session = Some(session);
    answer
}

/// The stateless era: every request stands alone, its version in `_meta` and the headers.
async fn stateless_era(
    state: &AppState,
    login: &Login,
    query: DoorQuery,
    headers: &HeaderMap,
    message: Incoming,
) -> Answer {
    let id = message.id.clone().unwrap_or(Value::Null);
    let Some(method) = message.method.clone() else {
        return Answer::fail(
            StatusCode::BAD_REQUEST,
            id,
            code::INVALID_REQUEST,
            "clients send no responses in 2026-07-28",
        );
    };
    if message.id.is_some() && method != "initialize" {
        if let Some(missing) = missing_meta(&message) {
            return Answer::fail(
                StatusCode::BAD_REQUEST,
                id,
                code::INVALID_PARAMS,
                format!("Invalid params: {missing}; in 2026-07-28 every request carries params._meta with {} and {} (an empty object is enough)", wire::META_VERSION, wire::META_CLIENT_CAPABILITIES),
            );
        }
    }
    let meta_version = message.meta(wire::META_VERSION).and_then(Value::as_str);
    let header_version = header(headers, VERSION_HEADER);
    let mismatch = |text: String| {
        Answer::fail(StatusCode::BAD_REQUEST, id.clone(), code::HEADER_MISMATCH, text)
    };
    if header_version.is_none() || header_version != meta_version {
        return mismatch(format!(
            "Header mismatch: MCP-Protocol-Version {} does not match _meta {} {}",
            header_version.unwrap_or("(missing)"),
            wire::META_VERSION,
            meta_version.unwrap_or("(missing)")
        ));
    }
    if meta_version != Some(wire::STATELESS_VERSION) {
        let mut answer = Answer::fail(
            StatusCode::BAD_REQUEST,
            id,
            code::UNSUPPORTED_VERSION,
            "Unsupported protocol version",
        );
        if let Some(error) = answer.body.as_mut().and_then(|b| b.error.as_mut()) {
            error.data = Some(json!({ "supported": supported(), "requested": meta_version }));
        }
        return answer;
    }
    if header(headers, METHOD_HEADER) != Some(method.as_str()) {
        return mismatch(format!(
            "Header mismatch: Mcp-Method {} does not match the body's method {method}",
            header(headers, METHOD_HEADER).unwrap_or("(missing)")
        ));
    }
    if method == "tools/call" {
        let body_name = message.params.as_ref().and_then(|p| p.get("name")).and_then(Value::as_str);
        let header_name = header(headers, NAME_HEADER).map(decode_header);
        if header_name.is_none() || header_name.as_deref() != body_name {
            return mismatch(format!(
                "Header mismatch: Mcp-Name {} does not match the body's name {}",
                header_name.as_deref().unwrap_or("(missing)"),
                body_name.unwrap_or("(missing)")
            ));
        }
    }
    if message.id.is_none() {
        return Answer::accepted();
    }
    let ws = match open_for(state, login, query.ws.as_deref()) {
        Ok(ws) => ws,
        Err(refused) => return refused.answer(id),
    };
    let task = task_of(&message).or(query.task);
    let client = message
        .meta(wire::META_CLIENT_INFO)
        .and_then(|info| info.get("name"))
        .and_then(Value::as_str)
        .and_then(client_label);
    match method.as_str() {
        "server/discover" => {
            let view = tools::View::of(&ws, &state.engine);
            Answer::ok(
                id,
                wire::DiscoverResult {
                    result_type: "complete",
                    supported_versions: supported(),
                    capabilities: json!({ "tools": {} }),
                    instructions: view.instructions(login),
                    ttl_ms: 0,
                    cache_scope: "private",
                    meta: json!({ wire::META_SERVER_INFO: wire::SERVER }),
                },
            )
        }
        _ => {
            let call = Call {
                id,
                method: &method,
                message,
                task,
                client,
                session: None,
                result_type: Some("complete"),
            };
            serve(state, login, ws, call).await
        }
    }
}

/// Every version the door speaks, newest first.
fn supported() -> Vec<&'static str> {
    std::iter::once(wire::STATELESS_VERSION).chain(wire::SESSION_VERSIONS).collect()
}

/// An `Mcp-Name` value, decoded when it uses the `=?base64?…?=` form.
fn decode_header(value: &str) -> String {
    use base64::Engine as _;
    value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
        .and_then(|b64| base64::engine::general_purpose::STANDARD.decode(b64).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_else(|| value.to_string())
}

/// What a 2026-07-28 request lacks of the `_meta` the revision requires, if anything.
fn missing_meta(message: &Incoming) -> Option<String> {
    let Some(meta) = message.params.as_ref().and_then(|p| p.get("_meta")) else {
        return Some("the request has no params._meta".into());
    };
    if !meta.is_object() {
        return Some(format!("params._meta is {meta}, not an object"));
    }
    if !meta.get(wire::META_VERSION).is_some_and(Value::is_string) {
        return Some(format!("params._meta has no {}", wire::META_VERSION));
    }
    if !meta.get(wire::META_CLIENT_CAPABILITIES).is_some_and(Value::is_object) {
        return Some(format!("params._meta has no {}", wire::META_CLIENT_CAPABILITIES));
    }
    None
}

/// The audit's `agent` for a client named `name` (`clientInfo.name`): `claude-code` and `codex`
/// as page 02 spells them, any other client by its own name (cut to 64 characters of
/// `[A-Za-z0-9._/-]`), none for an empty one. Only a label: it decides nothing.
fn client_label(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("claude-code") || lower.starts_with("claude code") {
        return Some("claude-code".into());
    }
    if lower.contains("codex") {
        return Some("codex".into());
    }
    let label: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "._/-".contains(*c))
        .take(64)
        .collect();
    (!label.is_empty()).then_some(label)
}

/// The task a call names in `_meta`, if any.
fn task_of(message: &Incoming) -> Option<String> {
    message.meta(wire::META_TASK).and_then(Value::as_str).map(str::to_string)
}

/// A request both eras answer alike, with what its era adds: the stateless era marks each result
/// `resultType: "complete"` and answers an unknown method 404.
struct Call<'a> {
    id: Value,
    method: &'a str,
    message: Incoming,
    task: Option<String>,
    /// The client it speaks through (the audit's `agent`).
    client: Option<String>,
    /// The initialize era's session, where `start_task` leaves its task.
    session: Option<&'a str>,
    result_type: Option<&'static str>,
}

/// The methods both eras share: `tools/list` (the four tools) and `tools/call`.
async fn serve(
    state: &AppState,
    login: &Login,
    ws: Arc<cowork_engine::Workspace>,
    call: Call<'_>,
) -> Answer {
    let Call { id, method, message, task, client, session, result_type } = call;
    // The task `_meta` names; `task` may be the session's fallback.
    let named_task = task_of(&message);
    let not_found = if result_type.is_some() { StatusCode::NOT_FOUND } else { StatusCode::OK };
    // Checked before anything remembers or records it (start_task's session, a denied call's line).
    if let Some(problem) = named_task.as_deref().and_then(tools::task_problem) {
        let status = if result_type.is_some() { StatusCode::BAD_REQUEST } else { StatusCode::OK };
        let message = format!("{problem} (params._meta[\"{}\"])", wire::META_TASK);
        return Answer::fail(status, id, code::INVALID_PARAMS, message);
    }
    match method {
        "tools/list" => Answer::ok(
            id,
            wire::ToolList {
                result_type,
                ttl_ms: result_type.map(|_| 0),
                cache_scope: result_type.map(|_| "private"),
                tools: tools::list(),
            },
        ),
        "tools/call" => {
            let params = message.params.unwrap_or(Value::Null);
            let Ok(params) = serde_json::from_value::<wire::CallParams>(params) else {
                return Answer::fail(
                    StatusCode::OK,
                    id,
                    code::INVALID_PARAMS,
                    "tools/call needs params.name",
                );
            };
            let view = tools::View::of(&ws, &state.engine);
            let mut result = match params.name.as_str() {
                tools::START_TASK => {
                    let task = named_task.unwrap_or_else(|| {
                        format!("t-{}", hex::encode(rand::random::<[u8; 8]>()))
                    });
                    if let Some(session) = session {
                        state.mcp.start_task(session, &login.id, &task);
                    }
                    let text = json!({ "taskId": task }).to_string();
                    wire::CallResult::text(text, false)
                }
                tools::LIST => {
                    let listing = serde_json::to_string(&view.listing(login))
                        .expect("a listing serializes");
                    wire::CallResult::text(listing, false)
                }
                tools::READ | tools::RUN => {
                    let caller = tools::Caller { login, client, task };
                    let only_reads = params.name == tools::READ;
                    tools::call(ws, &view, caller, only_reads, params.arguments).await
                }
                other => {
                    return Answer::fail(
                        StatusCode::OK,
                        id,
                        code::INVALID_PARAMS,
                        format!("Unknown tool: {other} (the door's tools are start_task, list_capabilities, read and run)"),
                    )
                }
            };
            result.result_type = result_type;
            Answer::ok(id, result)
        }
        other => Answer::fail(
            not_found,
            id,
            code::METHOD_NOT_FOUND,
            format!("Method not found: {other}"),
        ),
    }
}
