//! The JSON-RPC 2.0 messages of the MCP door as types: what a client sends, what the door
//! answers, and the error codes both eras use.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The protocol revisions of the initialize era the door speaks, newest first.
pub const SESSION_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];
/// The stateless revision (no initialize, the version in every request's `_meta`).
pub const STATELESS_VERSION: &str = "2026-07-28";

/// `_meta` keys of the stateless revision.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Required in every 2026-07-28 request, with [`META_VERSION`].
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// Who the client says it is (2026-07-28; `clientInfo` of `initialize` before).
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The task an agent says a call is for (any era); otherwise a session's calls are one task.
pub const META_TASK: &str = "studio.cowork/task";

/// JSON-RPC and MCP error codes.
pub mod code {
    pub const PARSE: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    /// 2026-07-28: the HTTP headers do not match the body, or one is missing.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// 2026-07-28: the requested protocol version is not one the server speaks.
    pub const UNSUPPORTED_VERSION: i64 = -32022;
}

/// Any message a client may POST: a request (`id` and `method`), a notification (`method`, no
/// `id`) or a response to the server (`id`, no `method`).
#[derive(Debug, Deserialize)]
pub struct Incoming {
    #[serde(default)]
    pub jsonrpc: Option<String>,
    #[serde(default)]
    pub id: Option<Value>,
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    pub params: Option<Value>,
}

impl Incoming {
    /// The one JSON-RPC 2.0 message in `value`, or the `-32600` error that says why it is not
    /// one: a batch (not supported: one message at a time), a request whose `id` is null (MCP:
    /// an id must not be null — it is not a notification either), anything not JSON-RPC 2.0.
    pub fn read(value: Value) -> Result<Incoming, RpcError> {
        let invalid = |message: &str| Err(RpcError::new(code::INVALID_REQUEST, message));
        if value.is_array() {
            return invalid("batches are not supported: send one JSON-RPC message at a time");
        }
        if value.get("id").is_some_and(Value::is_null) {
            return invalid("a request's id must not be null (a notification has no id at all)");
        }
        match serde_json::from_value::<Incoming>(value) {
            Ok(message) if message.jsonrpc.as_deref() == Some("2.0") => Ok(message),
            _ => invalid("not a JSON-RPC 2.0 message"),
        }
    }

    /// `params._meta[key]`.
    pub fn meta(&self, key: &str) -> Option<&Value> {
        self.params.as_ref()?.get("_meta")?.get(key)
    }
}

/// `initialize` params (the part the door reads).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    pub protocol_version: String,
    #[serde(default)]
    pub client_info: Option<ClientInfo>,
}

/// What a client says it is (`clientInfo`): only a label for the audit line, never a permission.
#[derive(Debug, Deserialize)]
pub struct ClientInfo {
    pub name: String,
}

/// `tools/call` params.
#[derive(Debug, Deserialize)]
pub struct CallParams {
    pub name: String,
    #[serde(default)]
    pub arguments: Option<Map<String, Value>>,
}

/// One answer to a request.
#[derive(Debug, Serialize)]
pub struct Outgoing {
    pub jsonrpc: &'static str,
    /// `null` only for an error about a request whose id could not be read.
    pub id: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RpcError>,
}

impl Outgoing {
    pub fn result(id: Value, result: impl Serialize) -> Self {
        let result = serde_json::to_value(result).expect("MCP results serialize");
        Outgoing { jsonrpc: "2.0", id, result: Some(result), error: None }
    }

    pub fn error(id: Value, error: RpcError) -> Self {
        Outgoing { jsonrpc: "2.0", id, result: None, error: Some(error) }
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Serialize)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError { code, message: message.into(), data: None }
    }
}

/// Who the door is (`serverInfo`).
#[derive(Debug, Serialize)]
pub struct Implementation {
    pub name: &'static str,
    pub title: &'static str,
    pub version: &'static str,
}

pub const SERVER: Implementation =
    Implementation { name: "cowork", title: "Cowork Studio", version: env!("CARGO_PKG_VERSION") };

/// `initialize`'s answer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    pub protocol_version: String,
    pub capabilities: Value,
    pub server_info: Implementation,
    pub instructions: String,
}

/// `server/discover`'s answer (2026-07-28): who the server is goes in `_meta`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    pub result_type: &'static str,
    pub supported_versions: Vec<&'static str>,
    pub capabilities: Value,
    pub instructions: String,
    pub ttl_ms: u64,
    pub cache_scope: &'static str,
    #[serde(rename = "_meta")]
    pub meta: Value,
}

/// One tool of `tools/list`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    pub name: String,
    pub title: String,
    pub description: String,
    pub input_schema: Value,
    pub annotations: Annotations,
}

/// A tool's hints, set from its manifest (a client's own claims are never read back).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    pub read_only_hint: bool,
    pub destructive_hint: bool,
    pub idempotent_hint: bool,
    pub open_world_hint: bool,
}

/// `tools/list`'s answer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolList {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<&'static str>,
    /// 2026-07-28: how long a client may cache it (0: grants change at any time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// 2026-07-28: `private`: the list is this agent's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<&'static str>,
    pub tools: Vec<Tool>,
}

/// What `list_capabilities` answers (as JSON text): every switched-on capability of the
/// workspace with every routine, and what this agent may do with each.
#[derive(Debug, Serialize)]
pub struct Listing {
    pub workspace: String,
    /// The agent login asking.
    pub agent: String,
    pub capabilities: Vec<CapabilityListing>,
}

/// One capability in [`Listing`].
#[derive(Debug, Serialize)]
pub struct CapabilityListing {
    /// What `read` / `run` take as `capability`.
    pub capability: String,
    pub title: String,
    pub version: String,
    /// Its `SKILL.md`: how to use its routines, from its author (cut at 16 KB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guide: Option<String>,
    pub routines: Vec<RoutineListing>,
}

/// One routine in [`CapabilityListing`].
#[derive(Debug, Serialize)]
pub struct RoutineListing {
    /// What `read` / `run` take as `tool`.
    pub tool: String,
    pub description: String,
    /// The JSON Schema `params` must match.
    pub input: Value,
    /// `low` (a read), `medium`, or `high` (destructive or reaching others).
    pub risk: cowork_core::manifest::Risk,
    /// The door tool that calls it: `read` for a read, `run` for the rest.
    pub call: &'static str,
    /// `granted`, `not granted`, or `unavailable: not connected`.
    pub state: &'static str,
    /// Not granted: the line the workspace's owner runs to grant it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grant: Option<String>,
    /// Unavailable: what connects it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connect: Option<String>,
}

/// `tools/call`'s answer: the routine's result as JSON text, or why it did not run.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<&'static str>,
    pub content: Vec<Content>,
    pub is_error: bool,
}

/// One content block.
#[derive(Debug, Serialize)]
pub struct Content {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub text: String,
}

impl CallResult {
    pub fn text(text: String, is_error: bool) -> Self {
        CallResult { result_type: None, content: vec![Content { kind: "text", text }], is_error }
    }
}
