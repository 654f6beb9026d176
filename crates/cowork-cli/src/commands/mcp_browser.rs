//! `cowork mcp-browser`: a stdio MCP server whose tools are the desktop app's browser actions
//! (`snapshot` → refs → `click` / `fill` / `read` …). Each call goes to the running daemon
//! (`POST /api/browser`, owner token), which asks consent and forwards it to the shell. It speaks
//! the protocol versions the MCP door negotiates (the door's JSON-RPC types), answers while a
//! long action is in flight, and runs until the client closes its stdin.

use crate::exit::{CommandResult, Exit, Failure};
use crate::workspace;
use cowork_core::paths::Root;
use cowork_daemon::mcp_wire::{
    self as wire, code, CallParams, Incoming, Outgoing, RpcError, SESSION_VERSIONS,
    STATELESS_VERSION,
};
use cowork_wire::browser::{
    Action, ActionResult, BrowserError, BrowserErrorName, DriveRequest, Tab, Target,
};
use cowork_wire::daemon::client::ClientError;
use serde_json::{json, Map, Value};
use std::path::Path;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The name the audit line and the consent dialog use when neither `--agent` nor the client's
/// `clientInfo` gives one.
const DEFAULT_AGENT: &str = "agent";

const INSTRUCTIONS: &str = "Drives the Cowork Studio desktop app's browser, signed in as the person. \
Call `snapshot` first: every actionable or named node carries its ref (`- button \"Sign in\" [e7]`); act with `click`, `fill`, `type`, \
`press`, `select`, `check` on those refs, then `snapshot` again (refs of a page that navigated are stale). \
`find` locates nodes by role/name/text; `read` gives the page's text as markdown. The person is asked \
the first time, and for each new site.";

/// Runs the server on stdin/stdout until the client closes stdin.
pub async fn run(agent: Option<String>, folder: Option<&Path>) -> CommandResult {
    let workspace = workspace::resolve(folder)?;
    let server = Arc::new(Server {
        root: Root::from_env(),
        workspace: workspace.display().to_string(),
        agent: Mutex::new(agent),
    });
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = out_rx.recv().await {
            if stdout.write_all(line.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut calls = tokio::task::JoinSet::new();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(error) => {
                return Err(Failure::new(Exit::Failed, format!("failed to read stdin: {error}")))
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let (server, out) = (server.clone(), out_tx.clone());
        // Each request on its own task: a `waitFor` or a consent dialog does not hold up a ping.
        calls.spawn(async move {
            if let Some(answer) = server.handle(&line).await {
                let mut text = serde_json::to_string(&answer).expect("MCP answers serialize");
                text.push('\n');
                let _ = out.send(text);
            }
        });
    }
    while calls.join_next().await.is_some() {}
    drop(out_tx);
    let _ = writer.await;
    Ok(Exit::Ok)
}

struct Server {
    root: Root,
    workspace: String,
    /// `--agent`, else the client's name from `initialize`.
    agent: Mutex<Option<String>>,
}

impl Server {
    /// One message: an answer for a request, none for a notification or a response.
    async fn handle(&self, line: &str) -> Option<Outgoing> {
        let message = match serde_json::from_str(line) {
            Ok(value) => match Incoming::read(value) {
                Ok(message) => message,
                // A batch, a null id, not JSON-RPC: named as the HTTP door names them.
                Err(error) => return Some(Outgoing::error(Value::Null, error)),
            },
            Err(error) => {
                return Some(Outgoing::error(
                    Value::Null,
                    RpcError::new(code::PARSE, format!("failed to parse the message: {error}")),
                ))
            }
        };
        // The stateless era (2026-07-28) says who the client is in every request's `_meta`.
        if let Some(name) = message.meta(wire::META_CLIENT_INFO).and_then(|info| info.get("name")) {
            self.name_agent(name.as_str());
        }
        let id = message.id.clone()?;
        let method = message.method.as_deref()?;
        let stateless =
            message.meta(wire::META_VERSION).and_then(Value::as_str) == Some(STATELESS_VERSION);
        let params = message.params.clone().unwrap_or(Value::Null);
        Some(match method {
            "initialize" => self.initialize(id, &params),
            "ping" => Outgoing::result(id, json!({})),
            "server/discover" => Outgoing::result(
                id,
                wire::DiscoverResult {
                    result_type: "complete",
                    supported_versions: std::iter::once(STATELESS_VERSION)
                        .chain(SESSION_VERSIONS)
                        .collect(),
                    capabilities: json!({"tools": {}}),
                    instructions: INSTRUCTIONS.into(),
                    ttl_ms: 3_600_000,
                    cache_scope: "public",
                    meta: json!({ wire::META_SERVER_INFO: server_info() }),
                },
            ),
            "tools/list" => Outgoing::result(
                id,
                wire::ToolList {
                    result_type: stateless.then_some("complete"),
                    ttl_ms: None,
                    cache_scope: None,
                    tools: tools(),
                },
            ),
            "tools/call" => {
                let call: CallParams = match serde_json::from_value(params) {
                    Ok(call) => call,
                    Err(error) => {
                        return Some(Outgoing::error(
                            id,
                            RpcError::new(
                                code::INVALID_PARAMS,
                                format!("failed to read tools/call's params: {error}"),
                            ),
                        ))
                    }
                };
                let mut result = self.call(call).await;
                if stateless {
                    result["resultType"] = json!("complete");
                }
                Outgoing::result(id, result)
            }
            other => Outgoing::error(
                id,
                RpcError::new(code::METHOD_NOT_FOUND, format!("no method \"{other}\"")),
            ),
        })
    }

    /// `initialize`: the client's version when it is one the door speaks, else the newest.
    fn initialize(&self, id: Value, params: &Value) -> Outgoing {
        let asked = params.get("protocolVersion").and_then(Value::as_str).unwrap_or_default();
        let version =
            SESSION_VERSIONS.iter().find(|v| **v == asked).copied().unwrap_or(SESSION_VERSIONS[0]);
        self.name_agent(params.pointer("/clientInfo/name").and_then(Value::as_str));
        Outgoing::result(
            id,
            json!({
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": server_info(),
                "instructions": INSTRUCTIONS,
            }),
        )
    }

    /// The client's own name names the agent, unless `--agent` did.
    fn name_agent(&self, client: Option<&str>) {
        let mut agent = self.agent.lock().expect("agent lock");
        if agent.is_none() {
            *agent = client.map(agent_name);
        }
    }

    /// `tools/call`: one browser action through the daemon; a failure is a tool error the
    /// model reads (`StaleRef: …`), never a JSON-RPC error.
    async fn call(&self, call: CallParams) -> Value {
        let request = match self.request(&call.name, call.arguments.unwrap_or_default()) {
            Ok(request) => request,
            Err(error) => return failed(&error),
        };
        let running = match cowork_daemon::discovery::discover(&self.root).await {
            Some(running) => running,
            None => return failed(&no_desktop()),
        };
        match running.daemon.browser(&request).await {
            Ok(result) => answered(&call.name, result),
            Err(ClientError::Refused { error, .. }) => failed(&BrowserError {
                name: serde_json::from_value(json!(error.name.as_str()))
                    .unwrap_or(BrowserErrorName::Unknown),
                message: error.message,
                hint: error.hint,
                url: None,
            }),
            Err(ClientError::Unreachable { .. }) => failed(&no_desktop()),
            Err(other) => {
                failed(&BrowserError::new(BrowserErrorName::Unavailable, other.to_string()))
            }
        }
    }

    /// The tool's arguments as the daemon's request: the action's own fields, the page
    /// (`tabIndex`, `app`) and the budget (`timeoutMs`).
    fn request(
        &self,
        tool: &str,
        mut args: Map<String, Value>,
    ) -> Result<DriveRequest, BrowserError> {
        let bad = |message: String| BrowserError::new(BrowserErrorName::BadRequest, message);
        let Some(action) = TOOLS.iter().find(|t| t.name == tool).map(|t| t.action) else {
            return Err(bad(format!("no tool \"{tool}\"")).with_hint("tools/list names them"));
        };
        let target = Target {
            tab_index: take(&mut args, "tabIndex")
                .map(|v| {
                    v.as_u64()
                        .map(|n| n as u32)
                        .ok_or_else(|| bad(format!("tabIndex {v} is not a tab's index")))
                })
                .transpose()?,
            app: take(&mut args, "app").and_then(|v| v.as_str().map(str::to_string)),
        };
        let timeout_ms = take(&mut args, "timeoutMs").and_then(|v| v.as_u64());
        if action == "waitFor" && !args.contains_key("condition") {
            args = Map::from_iter([("condition".to_string(), condition(args)?)]);
        }
        args.insert("action".into(), json!(action));
        let action: Action = serde_json::from_value(Value::Object(args))
            .map_err(|error| bad(format!("failed to read {tool}'s arguments: {error}")))?;
        let agent = self.agent.lock().expect("agent lock").clone();
        Ok(DriveRequest {
            agent: agent.unwrap_or_else(|| DEFAULT_AGENT.into()),
            workspace: self.workspace.clone(),
            target,
            timeout_ms,
            session: Some(session().to_owned()),
            action,
        })
    }
}

/// This server's session (its process and start): the banner's Stop holds for the agent until
/// another `cowork mcp-browser` starts.
fn session() -> &'static str {
    static SESSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SESSION.get_or_init(|| {
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos());
        format!("mcp-{}-{started:x}", std::process::id())
    })
}

fn take(args: &mut Map<String, Value>, key: &str) -> Option<Value> {
    args.remove(key).filter(|v| !v.is_null())
}

/// `wait_for`'s flat arguments as the wire's condition.
fn condition(args: Map<String, Value>) -> Result<Value, BrowserError> {
    let get = |k: &str| args.get(k).filter(|v| !v.is_null()).cloned();
    if let Some(node) = get("ref") {
        return Ok(
            json!({"for": "ref", "ref": node, "state": get("state").unwrap_or(json!("visible"))}),
        );
    }
    if let Some(text) = get("text") {
        return Ok(
            json!({"for": "text", "text": text, "gone": get("gone").unwrap_or(json!(false))}),
        );
    }
    if get("networkIdle").is_some_and(|v| v == json!(true)) {
        return Ok(json!({"for": "networkIdle"}));
    }
    if get("navigation").is_some() || get("url").is_some() {
        return Ok(match get("url") {
            Some(url) => json!({"for": "navigation", "url": url}),
            None => json!({"for": "navigation"}),
        });
    }
    Err(BrowserError::new(
        BrowserErrorName::BadRequest,
        "wait_for needs one of: text (and gone), ref and state, navigation (and url), networkIdle",
    ))
}

/// A client's name as an agent's: `claude-code` stays, `Claude Code` becomes `claude-code`.
fn agent_name(client: &str) -> String {
    let name: String = client
        .trim()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .take(64)
        .collect();
    if name.trim_matches('-').is_empty() {
        DEFAULT_AGENT.into()
    } else {
        name
    }
}

fn server_info() -> Value {
    json!({"name": "cowork-browser", "title": "Cowork Studio browser", "version": env!("CARGO_PKG_VERSION")})
}

fn no_desktop() -> BrowserError {
    BrowserError::new(
        BrowserErrorName::Unsupported,
        "failed to drive the browser: the Cowork Studio desktop app is not running",
    )
    .with_hint("start it (`cowork open`, or the Cowork Studio icon), then call the tool again; this server keeps running")
}

/// A failed action as the tool's error result.
fn failed(error: &BrowserError) -> Value {
    let mut text = format!("{}: {}", error.name, error.message);
    if let Some(hint) = &error.hint {
        text.push_str(&format!("\nHint: {hint}"));
    }
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

fn page_line(tab: &Tab) -> String {
    let which = match (&tab.app, tab.index) {
        (Some(app), _) => format!("site app {app}"),
        (None, Some(index)) => format!("tab {index}"),
        (None, None) => "tab".into(),
    };
    format!("{which}: {} — {}", tab.url, tab.title)
}

/// A done action as the tool's result: text the model reads, or the PNG of a screenshot.
fn answered(tool: &str, result: ActionResult) -> Value {
    let text = match result {
        ActionResult::Screenshot(shot) => {
            return json!({"content": [
                {"type": "image", "data": shot.png_base64, "mimeType": "image/png"},
                {"type": "text", "text": format!("{} ({}×{})", page_line(&shot.tab), shot.width, shot.height)},
            ], "isError": false})
        }
        ActionResult::Page(page) => {
            let moved = if page.navigated {
                "\nThe page navigated: take a new snapshot (old refs are stale)."
            } else {
                ""
            };
            format!("{tool}: done. {}{moved}", page_line(&page.tab))
        }
        ActionResult::Snapshot(snapshot) => {
            let more = snapshot
                .cursor
                .map(|c| format!("\n(more: call snapshot with cursor \"{c}\")"))
                .unwrap_or_default();
            format!("{}\n{}{more}", page_line(&snapshot.tab), snapshot.text)
        }
        ActionResult::Found(found) => {
            let lines: Vec<String> = found.matches.iter().map(|m| m.line.clone()).collect();
            if lines.is_empty() {
                format!("{}\nNo node matched.", page_line(&found.tab))
            } else {
                format!("{}\n{}", page_line(&found.tab), lines.join("\n"))
            }
        }
        ActionResult::Read(read) => {
            let more = read
                .cursor
                .map(|c| format!("\n(more: call read with cursor \"{c}\")"))
                .unwrap_or_default();
            format!("{}\n{}{more}", page_line(&read.tab), read.markdown)
        }
        ActionResult::Tabs(tabs) => {
            let mut lines =
                vec![format!("browser window {}", if tabs.open { "open" } else { "closed" })];
            for tab in tabs.tabs.iter().chain(&tabs.apps) {
                let active = if tab.active { " (active)" } else { "" };
                lines.push(format!("{}{active}", page_line(tab)));
            }
            lines.join("\n")
        }
        ActionResult::Evaluated(evaluated) => {
            serde_json::to_string(&evaluated.value).expect("a JSON value serializes")
        }
    };
    json!({"content": [{"type": "text", "text": text}], "isError": false})
}

/// One tool: its name, the action it sends, what it says, its own arguments (the page and the
/// budget are added to each), and whether it only reads.
struct ToolSpec {
    name: &'static str,
    action: &'static str,
    description: &'static str,
    properties: fn() -> Value,
    required: &'static [&'static str],
    read_only: bool,
}

fn no_properties() -> Value {
    json!({})
}

const TOOLS: &[ToolSpec] = &[
    ToolSpec { name: "open", action: "open", description: "Open `url` in a new tab (made active); without `url`, show the browser on its last-active tab.", properties: || json!({"url": {"type": "string", "description": "http(s) address"}}), required: &[], read_only: false },
    ToolSpec { name: "navigate", action: "navigate", description: "Go to `url` in the page (the active tab, or tabIndex / app).", properties: || json!({"url": {"type": "string"}}), required: &["url"], read_only: false },
    ToolSpec { name: "snapshot", action: "snapshot", description: "The page's accessibility tree, one node a line with its ref (`- button \"Sign in\" [e7]`). Use the refs with the other tools. Pass `cursor` for the next part of a long page, `ref` for one subtree.", properties: || json!({"ref": {"type": "string"}, "cursor": {"type": "string"}}), required: &[], read_only: true },
    ToolSpec { name: "find", action: "find", description: "Nodes by role (button, textbox, link, row…) and/or accessible name, or by text; case-insensitive substring unless exact.", properties: || json!({"role": {"type": "string"}, "name": {"type": "string"}, "text": {"type": "string"}, "exact": {"type": "boolean"}}), required: &[], read_only: true },
    ToolSpec { name: "click", action: "click", description: "Click the node, as a person would.", properties: || json!({"ref": {"type": "string"}, "button": {"type": "string", "enum": ["left", "middle", "right"]}, "double": {"type": "boolean"}}), required: &["ref"], read_only: false },
    ToolSpec { name: "fill", action: "fill", description: "Replace a text field's value.", properties: || json!({"ref": {"type": "string"}, "value": {"type": "string"}}), required: &["ref", "value"], read_only: false },
    ToolSpec { name: "type", action: "type", description: "Type text key by key (real key events) into the node, or the focused one; `submit` presses Enter after.", properties: || json!({"ref": {"type": "string"}, "text": {"type": "string"}, "submit": {"type": "boolean"}}), required: &["text"], read_only: false },
    ToolSpec { name: "press", action: "press", description: "Press a key or chord (Enter, Tab, Escape, Control+a) on the node or the focus.", properties: || json!({"ref": {"type": "string"}, "key": {"type": "string"}}), required: &["key"], read_only: false },
    ToolSpec { name: "select", action: "select", description: "Select options of a <select> by value or label.", properties: || json!({"ref": {"type": "string"}, "values": {"type": "array", "items": {"type": "string"}}}), required: &["ref", "values"], read_only: false },
    ToolSpec { name: "check", action: "check", description: "Check or uncheck a checkbox, radio button or switch.", properties: || json!({"ref": {"type": "string"}, "checked": {"type": "boolean"}}), required: &["ref", "checked"], read_only: false },
    ToolSpec { name: "wait_for", action: "waitFor", description: "Wait until `text` appears (or is `gone`), a `ref` reaches `state`, the page navigates (`navigation`, `url`), or the network is idle (`networkIdle`); Timeout after timeoutMs.", properties: || json!({"text": {"type": "string"}, "gone": {"type": "boolean"}, "ref": {"type": "string"}, "state": {"type": "string", "enum": ["visible", "hidden", "enabled", "disabled", "checked", "unchecked", "detached"]}, "navigation": {"type": "boolean"}, "url": {"type": "string"}, "networkIdle": {"type": "boolean"}}), required: &[], read_only: true },
    ToolSpec { name: "read", action: "read", description: "The page's (or a node's) main text as markdown.", properties: || json!({"ref": {"type": "string"}, "cursor": {"type": "string"}}), required: &[], read_only: true },
    ToolSpec { name: "screenshot", action: "screenshot", description: "A PNG of the viewport, the full page, or one node.", properties: || json!({"ref": {"type": "string"}, "fullPage": {"type": "boolean"}}), required: &[], read_only: true },
    ToolSpec { name: "tabs", action: "tabs", description: "The browser's tabs (index, url, title, active) and the open site app windows.", properties: no_properties, required: &[], read_only: true },
    ToolSpec { name: "close", action: "close", description: "Close the tab (tabIndex, or the active one).", properties: no_properties, required: &[], read_only: false },
    ToolSpec { name: "evaluate", action: "evaluate", description: "Run JavaScript in the page's own world (its session); an expression or `() => …`; answers the value as JSON.", properties: || json!({"js": {"type": "string"}}), required: &["js"], read_only: false },
];

/// `tools/list`: every tool, each also taking the page (`tabIndex`, `app`) and `timeoutMs`.
fn tools() -> Vec<wire::Tool> {
    TOOLS
        .iter()
        .map(|spec| {
            let mut properties = (spec.properties)();
            let common = json!({
                "tabIndex": {"type": "integer", "minimum": 0, "description": "a tab by its index (tabs); default: the active tab"},
                "app": {"type": "string", "description": "a site app's name: its own window"},
                "timeoutMs": {"type": "integer", "minimum": 1, "maximum": cowork_wire::browser::MAX_TIMEOUT_MS},
            });
            let (Some(own), Value::Object(common)) = (properties.as_object_mut(), common) else {
                unreachable!("tool properties are objects")
            };
            own.extend(common);
            wire::Tool {
                name: spec.name.into(),
                title: spec.name.replace('_', " "),
                description: spec.description.into(),
                input_schema: json!({"type": "object", "properties": properties, "required": spec.required}),
                annotations: wire::Annotations {
                    read_only_hint: spec.read_only,
                    destructive_hint: false,
                    idempotent_hint: spec.read_only,
                    open_world_hint: true,
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_names_an_action_the_wire_knows() {
        for spec in TOOLS {
            let mut args = Map::new();
            for field in spec.required {
                let value = match *field {
                    "values" => json!(["a"]),
                    "checked" => json!(true),
                    _ => json!("x"),
                };
                args.insert(field.to_string(), value);
            }
            let server =
                Server { root: Root::from_env(), workspace: "/w".into(), agent: Mutex::new(None) };
            let args = if spec.name == "wait_for" {
                Map::from_iter([("text".into(), json!("Saved"))])
            } else {
                args
            };
            let request =
                server.request(spec.name, args).unwrap_or_else(|e| panic!("{}: {e}", spec.name));
            assert_eq!(request.action.name(), spec.action);
            assert_eq!(request.agent, DEFAULT_AGENT);
        }
    }

    #[test]
    fn the_page_and_the_budget_are_taken_out_of_the_arguments() {
        let server = Server {
            root: Root::from_env(),
            workspace: "/w".into(),
            agent: Mutex::new(Some("claude-code".into())),
        };
        let args = json!({"ref": "e3", "value": "ana", "tabIndex": 1, "timeoutMs": 5000});
        let request = server.request("fill", args.as_object().unwrap().clone()).unwrap();
        assert_eq!(request.target.tab_index, Some(1));
        assert_eq!(request.timeout_ms, Some(5000));
        assert_eq!(request.action, Action::Fill { node: "e3".into(), value: "ana".into() });
        assert_eq!(agent_name("Claude Code"), "claude-code");
    }
}
