//! Agents: `cowork agent …` (logins, tokens, grants) pinned with snapshots, and the MCP door of a
//! real daemon spoken to directly, case by case — version negotiation, sessions, headers, the
//! gates — and a call that is not granted: refused, never started, recorded `denied`.

use crate::support::*;
use serde_json::{json, Value};

fn settings(env: &Env) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&path_str(&env.ws_path())), "[WS]");
    settings.add_filter(&url_escape(&path_str(&env.ws_path())), "[WS-URL]");
    settings.add_filter(r"cwa_[0-9a-f]{64}", "cwa_[TOKEN]");
    settings.add_filter(r"\b[0-9a-f]{16}\b", "[ID]");
    settings.add_filter(r"127\.0\.0\.1:\d+", "127.0.0.1:[PORT]");
    settings.add_filter(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", "[TS]");
    settings.add_filter(r"cowork(\.exe)?\b", "cowork");
    settings.add_filter(r" {2,}", "  ");
    settings
}

/// The workspace path as the door's address writes it, as a regex.
fn url_escape(text: &str) -> String {
    text.bytes()
        .map(|b| match b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            true => regex_escape(&(b as char).to_string()),
            false => format!("%{b:02X}"),
        })
        .collect()
}

/// A workspace with a capability (a read, a bare write that leaves a marker file, a destructive
/// read that is therefore no read) and an app whose routine agents are never offered.
pub(crate) fn workspace() -> Env {
    let env = Env::new(runtimes()[0]);
    env.app(
        "tasks",
        r#"{ "name": "tasks", "version": "1.0.0", "kind": "capability", "routines": {
            "tasks-list": { "file": "list.ts", "readOnly": true, "description": "Lists the open tasks", "input": { "type": "object", "properties": { "tag": { "type": "string" } } } },
            "tasks-add": "add.ts",
            "tasks-purge": { "file": "add.ts", "readOnly": true, "destructive": true, "description": "Deletes every task" } } }"#,
        &[
            ("list.ts", "export default (args: any) => ({ tasks: ['write the report'], tag: args.tag ?? null });\n"),
            (
                "add.ts",
                "import fs from 'node:fs';\nimport path from 'node:path';\nexport default (args: any, ctx: any) => { fs.writeFileSync(path.join(ctx.workspaceRoot, 'added.txt'), String(args.title)); return { added: args.title }; };\n",
            ),
            ("SKILL.md", "---\nname: tasks\ndescription: The team's tasks. Use when asked about work items.\n---\nList before you add.\n"),
        ],
    );
    env.app(
        "board",
        r#"{ "name": "board", "version": "1.0.0", "kind": "app", "routines": { "board-refresh": { "file": "r.ts", "readOnly": true } } }"#,
        &[("r.ts", "export default () => 1;\n")],
    );
    env
}

/// `cowork agent create <name> --json`: the token.
pub(crate) fn create(env: &Env, name: &str) -> String {
    env.json(&["agent", "create", name])["token"].as_str().unwrap().to_string()
}

#[test]
fn agent_create_prints_the_token_once_and_the_connect_lines() {
    let env = workspace();
    let out = env.run(&["agent", "create", "claude"]);
    settings(&env).bind(|| insta::assert_snapshot!("agent_create", transcript(&out)));
    let token = stdout(&out).lines().nth(2).unwrap().trim().to_string();
    assert!(token.starts_with("cwa_"), "{token}");
    assert!(grep(env.home.path(), &token).is_empty(), "the token is never stored");
    let json = env.json(&["agent", "create", "codex"]);
    assert_eq!(json["name"], "codex");
    assert!(json["claude"].as_str().unwrap().contains(json["token"].as_str().unwrap()));
    assert!(json["codex"]
        .as_str()
        .unwrap()
        .contains("bearer_token_env_var = \"COWORK_AGENT_TOKEN\""));

    let taken = env.run(&["agent", "create", "claude"]);
    settings(&env).bind(|| insta::assert_snapshot!("agent_create_taken", transcript(&taken)));
    let bad = env.run(&["agent", "create", "Claude Code"]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
}

#[test]
fn agent_list_token_and_revoke() {
    let env = workspace();
    let first = create(&env, "claude");
    let list = env.json(&["agent", "list"]);
    assert_eq!(list[0]["name"], "claude");
    assert_eq!(list[0]["revoked"], false);
    assert_eq!(list[0]["lastSeen"], Value::Null);

    let renewed = env.json(&["agent", "token", "claude"]);
    assert_ne!(renewed["token"].as_str().unwrap(), first);

    let unconfirmed = env.run(&["agent", "revoke", "claude"]);
    settings(&env)
        .bind(|| insta::assert_snapshot!("agent_revoke_unconfirmed", transcript(&unconfirmed)));
    let revoked = env.run(&["agent", "revoke", "claude", "--yes"]);
    assert!(revoked.status.success(), "{}", stderr(&revoked));
    let listed = env.run(&["agent", "list"]);
    settings(&env).bind(|| insta::assert_snapshot!("agent_list", transcript(&listed)));
    let again = env.run(&["agent", "token", "claude"]);
    settings(&env).bind(|| insta::assert_snapshot!("agent_token_revoked", transcript(&again)));
    assert_eq!(env.run(&["agent", "revoke", "nobody", "--yes"]).status.code(), Some(3));
}

#[test]
fn agent_grants_show_the_rule_and_grant_changes_it() {
    let env = workspace();
    create(&env, "claude");
    let before = env.run(&["agent", "grants"]);
    settings(&env).bind(|| insta::assert_snapshot!("agent_grants_rule", transcript(&before)));

    let allowed = env.run(&["agent", "grant", "tasks/tasks-add", "allow", "--agent", "claude"]);
    assert_eq!(
        stdout(&allowed),
        format!("Allowed tasks/tasks-add for claude in {}.\n", path_str(&env.ws_path()))
    );
    assert!(env.run(&["agent", "grant", "tasks/*", "deny"]).status.success());
    let after = env.run(&["agent", "grants"]);
    settings(&env).bind(|| insta::assert_snapshot!("agent_grants_set", transcript(&after)));
    let json = env.json(&["agent", "grants", "--agent", "claude"]);
    let add = json.as_array().unwrap().iter().find(|r| r["routine"] == "tasks-add").unwrap();
    assert_eq!(add["agents"]["claude"], json!({ "answer": "allow", "set": true }));
    assert_eq!(add["default"], json!({ "answer": "deny", "set": true }));

    let unknown = env.run(&["agent", "grant", "board/board-refresh", "allow"]);
    settings(&env)
        .bind(|| insta::assert_snapshot!("agent_grant_not_a_capability", transcript(&unknown)));
    let bad = env.run(&["agent", "grant", "tasks", "allow"]);
    settings(&env).bind(|| insta::assert_snapshot!("agent_grant_bad_target", transcript(&bad)));
    assert!(
        !env.ws.path().join(".cowork").read_dir().unwrap().any(|e| {
            let name = e.unwrap().file_name();
            name == "grants.json" || name == "agents.json"
        }),
        "nothing of it lives in the workspace: a clone carries no grant and no token"
    );
}

/// A JSON-RPC exchange with the door.
pub(crate) struct Door {
    http: reqwest::blocking::Client,
    url: String,
    token: String,
}

impl Door {
    pub(crate) fn new(daemon: &Daemon, env: &Env, token: &str) -> Door {
        Door::at(daemon, &env.ws_path(), token)
    }

    /// The door of `daemon` on the workspace at `ws` (any path: `?ws=` is the agent's to choose).
    pub(crate) fn at(daemon: &Daemon, ws: &std::path::Path, token: &str) -> Door {
        let ws: String = url_escape(&path_str(ws)).replace('\\', "");
        Door {
            http: reqwest::blocking::Client::new(),
            url: format!("http://127.0.0.1:{}/api/mcp?ws={ws}", daemon.port),
            token: token.to_string(),
        }
    }

    /// POSTs `body` with the bearer token and `headers`: the status, the session header, the body.
    pub(crate) fn post(
        &self,
        body: Value,
        headers: &[(&str, &str)],
    ) -> (u16, Option<String>, Value) {
        let mut request = self
            .http
            .post(&self.url)
            .header("authorization", format!("Bearer {}", self.token))
            .header("accept", "application/json, text/event-stream")
            .json(&body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().unwrap();
        let status = response.status().as_u16();
        let session =
            response.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_string());
        let text = response.text().unwrap();
        (status, session, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    pub(crate) fn initialize(&self, version: &str) -> (String, Value) {
        self.initialize_as(version, "test")
    }

    /// `initialize` as the client `client` (its `clientInfo.name`).
    pub(crate) fn initialize_as(&self, version: &str, client: &str) -> (String, Value) {
        let (status, session, body) = self.post(
            json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": version, "capabilities": {}, "clientInfo": { "name": client, "version": "1" } } }),
            &[],
        );
        assert_eq!(status, 200, "{body}");
        (session.expect("a session id"), body["result"].clone())
    }

    /// A request in the session.
    pub(crate) fn call(&self, session: &str, method: &str, params: Value) -> (u16, Value) {
        let (status, _, body) = self.post(
            json!({ "jsonrpc": "2.0", "id": 2, "method": method, "params": params }),
            &[("mcp-session-id", session), ("mcp-protocol-version", "2025-06-18")],
        );
        (status, body)
    }

    /// A stateless (2026-07-28) request with its headers mirrored from the body.
    pub(crate) fn stateless(
        &self,
        method: &str,
        params: Value,
        extra: &[(&str, &str)],
    ) -> (u16, Value) {
        let mut params = params;
        params["_meta"] = json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": { "name": "codex-mcp-client", "version": "1" } });
        let name = params["name"].as_str().map(str::to_string);
        let mut headers = vec![("mcp-protocol-version", "2026-07-28"), ("mcp-method", method)];
        if let Some(name) = name.as_deref() {
            headers.push(("mcp-name", name));
        }
        for (k, v) in extra {
            headers.retain(|(name, _)| name != k);
            headers.push((k, v));
        }
        let (status, _, body) = self.post(
            json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params }),
            &headers,
        );
        (status, body)
    }
}

/// The text of a `tools/call` answer and whether it is an error.
fn answer(body: &Value) -> (String, bool) {
    let result = &body["result"];
    assert!(result.is_object(), "a tool result: {body}");
    (result["content"][0]["text"].as_str().unwrap().to_string(), result["isError"] == true)
}

#[test]
fn the_door_lists_every_routine_reads_refuses_a_write_with_its_grant_line_then_runs_it() {
    let env = workspace();
    let token = create(&env, "claude");
    let daemon = env.daemon(&[]);
    let door = Door::new(&daemon, &env, &token);
    let ws = path_str(&env.ws_path());

    let (session, init) = door.initialize_as("2025-06-18", "claude-code");
    assert_eq!(init["protocolVersion"], "2025-06-18", "a supported version is echoed");
    let instructions = init["instructions"].as_str().unwrap();
    assert!(instructions.contains("List before you add."), "{init}");
    assert!(instructions.contains("`read` (a granted read) and `run`"), "{init}");

    // The four tools, the same for every agent.
    let (_, list) = door.call(&session, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["start_task", "list_capabilities", "read", "run"]);
    assert_eq!(tools[2]["annotations"]["readOnlyHint"], true, "read: clients may run it unasked");
    assert_eq!(tools[3]["annotations"]["readOnlyHint"], false);
    assert_eq!(tools[2]["inputSchema"]["required"], json!(["capability", "tool"]));

    let (_, started) = door.call(&session, "tools/call", json!({ "name": "start_task" }));
    let task: Value = serde_json::from_str(&answer(&started).0).unwrap();
    let task = task["taskId"].as_str().unwrap().to_string();
    assert!(task.starts_with("t-"), "{task}");

    // Every routine of every capability, with its state for this agent; an app's are not there.
    let (_, listed) = door.call(&session, "tools/call", json!({ "name": "list_capabilities" }));
    let listing: Value = serde_json::from_str(&answer(&listed).0).unwrap();
    assert_eq!(listing["agent"], "claude");
    let capabilities = listing["capabilities"].as_array().unwrap();
    assert_eq!(capabilities.len(), 1, "the capability, not the app: {listing}");
    let tasks = &capabilities[0];
    assert_eq!(tasks["capability"], "tasks");
    assert!(tasks["guide"].as_str().unwrap().contains("List before you add."));
    let grant = format!("cowork agent grant tasks/tasks-add allow --agent claude --workspace {ws}");
    assert_eq!(
        tasks["routines"],
        json!([
            { "tool": "tasks-add", "description": "The tasks capability's routine tasks-add (its author gave no description).", "input": { "type": "object" }, "risk": "medium", "call": "run", "state": "not granted", "grant": grant },
            { "tool": "tasks-list", "description": "Lists the open tasks", "input": { "type": "object", "properties": { "tag": { "type": "string" } } }, "risk": "low", "call": "read", "state": "granted" },
            { "tool": "tasks-purge", "description": "Deletes every task", "input": { "type": "object" }, "risk": "high", "call": "run", "state": "not granted", "grant": format!("cowork agent grant tasks/tasks-purge allow --agent claude --workspace {ws}") },
        ])
    );

    let (_, read) = door.call(
        &session,
        "tools/call",
        json!({ "name": "read", "arguments": { "capability": "tasks", "tool": "tasks-list", "params": { "tag": "q3" } } }),
    );
    let (text, error) = answer(&read);
    assert!(!error, "{read}");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        json!({ "tasks": ["write the report"], "tag": "q3" })
    );
    let (_, bad) = door.call(
        &session,
        "tools/call",
        json!({ "name": "read", "arguments": { "capability": "tasks", "tool": "tasks-list", "params": { "tag": 3 } } }),
    );
    assert_eq!(
        answer(&bad),
        ("BadRequest: the params of tasks-list do not match its input schema:\n- \"params.tag\": 3 is not a string\nlist_capabilities shows the schema.".to_string(), true),
        "checked by the daemon, field by field"
    );
    let (_, envelope) = door.call(
        &session,
        "tools/call",
        json!({ "name": "read", "arguments": { "tool": 7, "arguments": {} } }),
    );
    let (text, error) = answer(&envelope);
    assert!(error, "{envelope}");
    assert!(text.contains("- \"capability\" is missing"), "{text}");
    assert!(text.contains("- \"tool\": 7 is not a string"), "{text}");
    let (_, write_as_read) = door.call(
        &session,
        "tools/call",
        json!({ "name": "read", "arguments": { "capability": "tasks", "tool": "tasks-add" } }),
    );
    assert!(answer(&write_as_read).0.contains("tasks-add is not a read"), "{write_as_read}");
    let (_, app) = door.call(
        &session,
        "tools/call",
        json!({ "name": "run", "arguments": { "capability": "board", "tool": "board-refresh" } }),
    );
    assert!(
        answer(&app).0.starts_with("NotFound: \"board\" is not a switched-on capability"),
        "{app}"
    );

    let (_, refused) = door.call(
        &session,
        "tools/call",
        json!({ "name": "run", "arguments": { "capability": "tasks", "tool": "tasks-add", "params": { "title": "x" } } }),
    );
    assert_eq!(
        answer(&refused),
        (format!("Denied: tasks-add is not granted to the agent claude. Ask the owner of the workspace {ws} to allow it: {grant}"), true)
    );
    assert!(!env.file("added.txt").exists(), "a call not granted never starts");
    let (_, purge) = door.call(
        &session,
        "tools/call",
        json!({ "name": "run", "arguments": { "capability": "tasks", "tool": "tasks-purge" } }),
    );
    assert!(answer(&purge).1, "a destructive read is no read: {purge}");

    let denied =
        env.json(&["routine", "runs", "--status", "denied", "--agent", "claude", "--task", &task]);
    let runs = denied["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{denied}");
    assert_eq!(runs[1]["capability"], "tasks-add");
    let context = &runs[1]["context"];
    assert_eq!(
        (&context["source"], &context["principal"], &context["agent"], &context["taskId"]),
        (&json!("mcp"), &json!("claude"), &json!("claude-code"), &json!(task)),
        "page 02: source, principal = the login, agent = the client, taskId"
    );
    assert_eq!(runs[1]["error"]["name"], "Denied");

    let args: Vec<&str> = grant.split(' ').skip(1).collect();
    assert!(env.run(&args).status.success());
    let (_, listed) = door.call(&session, "tools/call", json!({ "name": "list_capabilities" }));
    let listing: Value = serde_json::from_str(&answer(&listed).0).unwrap();
    assert_eq!(listing["capabilities"][0]["routines"][0]["state"], "granted");
    assert_eq!(listing["capabilities"][0]["routines"][0].get("grant"), None);
    let (_, ran) = door.call(&session, "tools/call", json!({ "name": "run", "arguments": { "capability": "tasks", "tool": "tasks-add", "params": { "title": "ship it" }, "taskId": "release-42" } }));
    assert!(!answer(&ran).1, "{ran}");
    assert_eq!(std::fs::read_to_string(env.file("added.txt")).unwrap(), "ship it");
    let ok = env.json(&["routine", "runs", "--task", "release-42"]);
    assert_eq!(ok["runs"][0]["status"], "ok", "{ok}");
    assert_eq!(ok["runs"][0]["context"]["principal"], "claude");
    let (_, meta) = door.call(&session, "tools/call", json!({ "name": "read", "arguments": { "capability": "tasks", "tool": "tasks-list" }, "_meta": { "studio.cowork/task": "from-meta" } }));
    assert!(!answer(&meta).1, "{meta}");
    assert_eq!(env.json(&["routine", "runs", "--task", "from-meta"])["runs"][0]["status"], "ok");
    let by_client = env.json(&["routine", "runs", "--agent", "claude-code"]);
    assert_eq!(by_client["runs"].as_array().unwrap().len(), 5, "{by_client}");
    assert_ne!(env.json(&["agent", "list"])[0]["lastSeen"], Value::Null);

    assert!(env.run(&["agent", "revoke", "claude", "--yes"]).status.success());
    let (status, _) = door.call(&session, "tools/list", json!({}));
    assert_eq!(status, 401, "a revoked token stops at once");
}

#[test]
fn the_door_checks_versions_sessions_and_headers_case_by_case() {
    let env = workspace();
    let token = create(&env, "claude");
    let daemon = env.daemon(&[]);
    let door = Door::new(&daemon, &env, &token);
    let list = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/list" });

    // Initialize era.
    assert_eq!(door.initialize("2025-03-26").1["protocolVersion"], "2025-03-26");
    assert_eq!(door.initialize("2025-11-25").1["protocolVersion"], "2025-11-25");
    assert_eq!(
        door.initialize("1999-01-01").1["protocolVersion"],
        "2025-11-25",
        "unknown: the newest"
    );
    let (session, _) = door.initialize("2025-06-18");
    let (status, _, body) = door.post(list.clone(), &[]);
    assert_eq!((status, body["error"]["code"].clone()), (400, json!(-32600)), "no session: {body}");
    let (status, _, _) = door.post(list.clone(), &[("mcp-session-id", "made-up")]);
    assert_eq!(status, 404, "an unknown session");
    let (status, _, _) = door.post(
        list.clone(),
        &[("mcp-session-id", &session), ("mcp-protocol-version", "2024-01-01")],
    );
    assert_eq!(status, 400, "an unsupported MCP-Protocol-Version");
    let (status, _, body) = door.post(list.clone(), &[("mcp-session-id", &session)]);
    assert_eq!(status, 200, "no version header: taken as 2025-03-26: {body}");
    let (status, _, _) = door.post(
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        &[("mcp-session-id", &session)],
    );
    assert_eq!(status, 202, "a notification is accepted");
    let (status, _, body) = door.post(
        json!({ "jsonrpc": "2.0", "id": 4, "method": "resources/list" }),
        &[("mcp-session-id", &session)],
    );
    assert_eq!((status, body["error"]["code"].clone()), (200, json!(-32601)));
    let (status, _, body) = door.post(json!([list.clone()]), &[("mcp-session-id", &session)]);
    assert_eq!(status, 400, "no batches: {body}");

    let url = door.url.clone();
    let http = reqwest::blocking::Client::new();
    let with = |method: reqwest::Method, headers: &[(&str, &str)]| {
        let mut request = http.request(method, &url).json(&list);
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        request.send().unwrap().status().as_u16()
    };
    let bearer = format!("Bearer {token}");
    let auth = ("authorization", bearer.as_str());
    let sid = ("mcp-session-id", session.as_str());
    assert_eq!(with(reqwest::Method::GET, &[auth, sid]), 405, "no server stream");
    assert_eq!(with(reqwest::Method::POST, &[auth, sid, ("origin", "https://evil.example")]), 403);
    assert_eq!(with(reqwest::Method::POST, &[auth, sid, ("host", "evil.example")]), 403);
    assert_eq!(with(reqwest::Method::POST, &[sid]), 401, "no token");
    let owner = format!("Bearer {}", env.owner_token());
    assert_eq!(
        with(reqwest::Method::POST, &[("authorization", &owner), sid]),
        401,
        "the owner token is no agent's"
    );
    let other = create(&env, "codex");
    let other = format!("Bearer {other}");
    assert_eq!(
        with(reqwest::Method::POST, &[("authorization", &other), sid]),
        404,
        "another agent's session is unknown to it"
    );
    assert_eq!(with(reqwest::Method::DELETE, &[auth, sid]), 204);
    assert_eq!(with(reqwest::Method::POST, &[auth, sid]), 404, "an ended session");

    // Stateless era.
    let (status, discover) = door.stateless("server/discover", json!({}), &[]);
    assert_eq!(status, 200, "{discover}");
    assert_eq!(
        discover["result"]["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"])
    );
    assert_eq!(discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "cowork");
    let (status, tools) = door.stateless("tools/list", json!({}), &[]);
    assert_eq!((status, tools["result"]["resultType"].clone()), (200, json!("complete")));
    assert_eq!(tools["result"]["tools"][2]["name"], "read");
    let read = json!({ "name": "read", "arguments": { "capability": "tasks", "tool": "tasks-list", "taskId": "t-stateless" } });
    let (status, called) = door.stateless("tools/call", read.clone(), &[]);
    assert_eq!((status, called["result"]["isError"].clone()), (200, json!(false)), "{called}");
    let audited = env.json(&["routine", "runs", "--task", "t-stateless"]);
    assert_eq!(audited["runs"][0]["context"]["agent"], "codex", "clientInfo from _meta: {audited}");
    assert_eq!(audited["runs"][0]["context"]["principal"], "claude");
    let (status, mismatch) =
        door.stateless("tools/list", json!({}), &[("mcp-method", "tools/call")]);
    assert_eq!((status, mismatch["error"]["code"].clone()), (400, json!(-32020)));
    let (status, mismatch) = door.stateless("tools/call", read.clone(), &[("mcp-name", "run")]);
    assert_eq!((status, mismatch["error"]["code"].clone()), (400, json!(-32020)));
    let (status, encoded) =
        door.stateless("tools/call", read.clone(), &[("mcp-name", "=?base64?cmVhZA==?=")]);
    assert_eq!(status, 200, "a base64 Mcp-Name is decoded: {encoded}");
    let (status, mismatch) =
        door.stateless("tools/list", json!({}), &[("mcp-protocol-version", "2025-06-18")]);
    assert_eq!(
        (status, mismatch["error"]["code"].clone()),
        (400, json!(-32020)),
        "header and _meta disagree"
    );
    let (status, _, old) = door.post(
        json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": { "_meta": { "io.modelcontextprotocol/protocolVersion": "2030-01-01", "io.modelcontextprotocol/clientCapabilities": {} } } }),
        &[("mcp-protocol-version", "2030-01-01"), ("mcp-method", "tools/list")],
    );
    assert_eq!((status, old["error"]["code"].clone()), (400, json!(-32022)));
    assert_eq!(old["error"]["data"]["supported"][0], "2026-07-28");
    let (status, unknown) = door.stateless("initialize", json!({}), &[]);
    assert_eq!((status, unknown["error"]["code"].clone()), (404, json!(-32601)));
}

#[test]
fn a_2026_request_without_the_required_meta_is_invalid_params_and_400_while_the_older_era_works() {
    let env = workspace();
    let token = create(&env, "claude");
    let daemon = env.daemon(&[]);
    let door = Door::new(&daemon, &env, &token);
    let headers = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/list")];
    let version = "io.modelcontextprotocol/protocolVersion";
    let capabilities = "io.modelcontextprotocol/clientCapabilities";
    for (params, missing) in [
        (json!({}), "the request has no params._meta"),
        (
            json!({ "_meta": { capabilities: {} } }),
            "params._meta has no io.modelcontextprotocol/protocolVersion",
        ),
        (
            json!({ "_meta": { version: "2026-07-28" } }),
            "params._meta has no io.modelcontextprotocol/clientCapabilities",
        ),
        (
            json!({ "_meta": { version: "2026-07-28", capabilities: null } }),
            "params._meta has no io.modelcontextprotocol/clientCapabilities",
        ),
    ] {
        let body = json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": params });
        let (status, _, answer) = door.post(body, &headers);
        assert_eq!((status, answer["error"]["code"].clone()), (400, json!(-32602)), "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(&format!("Invalid params: {missing};")), "{message}");
    }
    let (status, whole) = door.stateless("tools/list", json!({}), &[]);
    assert_eq!(status, 200, "with both, an empty capabilities object is enough: {whole}");

    // The initialize era: no _meta needed, as before.
    let (session, _) = door.initialize("2025-11-25");
    let (status, _, body) = door.post(
        json!({ "jsonrpc": "2.0", "id": 6, "method": "tools/list" }),
        &[("mcp-session-id", &session), ("mcp-protocol-version", "2025-11-25")],
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["tools"].as_array().unwrap().len(), 4);
}

#[test]
fn the_door_on_its_own_listener_serves_the_mcp_route_alone() {
    let env = workspace();
    let token = create(&env, "claude");
    assert_eq!(env.run(&["agent", "door"]).status.code(), Some(4), "the door is the daemon's");
    let daemon = env.daemon(&[]);
    assert!(stdout(&env.run(&["agent", "door"])).starts_with("No door of its own is open"));
    let everywhere = env.run(&["agent", "door", "--listen", "0.0.0.0:0"]);
    assert_eq!(everywhere.status.code(), Some(1));
    assert!(
        stderr(&everywhere)
            .contains("listens on every interface: say the address agents use with --url"),
        "{}",
        stderr(&everywhere)
    );

    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let opened = env.run(&["agent", "door", "--listen", &listen]);
    assert_eq!(
        stdout(&opened).lines().next().unwrap(),
        format!("The door listens on {listen}; agents connect to http://{listen}/api/mcp?ws=<the workspace folder, percent-encoded>.")
    );
    let mut door = Door::new(&daemon, &env, &token);
    door.url = door.url.replace(&format!(":{}/", daemon.port), &format!(":{port}/"));
    let (session, _) = door.initialize("2025-06-18");
    let (status, tools) = door.call(&session, "tools/list", json!({}));
    assert_eq!((status, tools["result"]["tools"][2]["name"].clone()), (200, json!("read")));
    let http = reqwest::blocking::Client::new();
    let health = http.get(format!("http://{listen}/api/health")).send().unwrap().status().as_u16();
    assert_eq!(health, 404, "the owner's API is not behind the door");
    let (status, _, _) = door.post(
        json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }),
        &[("host", "elsewhere.example"), ("mcp-session-id", &session)],
    );
    assert_eq!(status, 403, "a Host other than the door's address");

    let closed = env.run(&["agent", "door", "off"]);
    assert!(stdout(&closed).starts_with("Closed the door's own listener"), "{}", stdout(&closed));
    assert!(
        eventually(std::time::Duration::from_secs(5), || std::net::TcpStream::connect((
            "127.0.0.1",
            port
        ))
        .is_err()),
        "the listener is gone"
    );
}

#[test]
fn the_door_on_its_own_listener_opens_again_at_the_next_start_until_turned_off() {
    let env = workspace();
    let token = create(&env, "claude");
    let listen = format!("127.0.0.1:{}", free_port());
    let daemon = env.daemon(&[]);
    let opened = env.run(&["agent", "door", "--listen", &listen]);
    assert!(opened.status.success(), "{}", stderr(&opened));
    // Killed, as a crash or a reboot ends it: the next start opens the door where it was.
    drop(daemon);
    let daemon = env.daemon(&[]);
    let listening = || std::net::TcpStream::connect(listen.as_str()).is_ok();
    assert!(eventually(std::time::Duration::from_secs(10), listening), "the door listens again");
    let mut door = Door::new(&daemon, &env, &token);
    door.url = door.url.replace(&format!("127.0.0.1:{}", daemon.port), &listen);
    let (session, _) = door.initialize("2025-06-18");
    let (status, tools) = door.call(&session, "tools/list", json!({}));
    assert_eq!((status, tools["result"]["tools"][2]["name"].clone()), (200, json!("read")));
    assert!(
        stdout(&env.run(&["agent", "door"])).starts_with(&format!("The door listens on {listen};"))
    );

    // A start that cannot listen there any more leaves it closed, and says so.
    drop(daemon);
    let taken = std::net::TcpListener::bind(listen.as_str()).unwrap();
    let daemon = env.daemon(&[]);
    let shown = stdout(&env.run(&["agent", "door"]));
    assert!(
        shown.starts_with(&format!(
            "The door on {listen} is not open: the daemon could not listen there at its start"
        )),
        "{shown}"
    );
    drop(taken);

    // Turned off, it is forgotten: the next start leaves it closed.
    assert!(env.run(&["agent", "door", "off"]).status.success());
    drop(daemon);
    let _daemon = env.daemon(&[]);
    assert!(!env.home.path().join("door.json").exists(), "door.json is gone");
    let shown = env.run(&["agent", "door"]);
    assert!(stdout(&shown).starts_with("No door of its own is open"), "{shown:?}");
    assert!(!listening(), "nothing listens where the door was");
}

#[test]
fn switching_an_app_on_or_off_links_or_unlinks_its_skill_with_or_without_a_daemon() {
    let env = workspace();
    let link = env.ws_path().join(".claude/skills/tasks");
    let linked = || std::fs::symlink_metadata(&link).is_ok();
    let switch = |verb: &str| {
        let out = env.run(&["app", verb, "tasks"]);
        assert!(out.status.success(), "{}", stderr(&out));
    };
    // No daemon: the CLI writes workspace.json and updates the links itself.
    switch("disable");
    assert!(!linked(), "a switched-off app has no skill link");
    switch("enable");
    assert!(linked(), "switched on again, its SKILL.md is a project skill");
    // A person's own skill under another name is never touched.
    std::fs::create_dir_all(env.ws_path().join(".claude/skills/mine")).unwrap();

    // Through a daemon: its reload of the registry updates them.
    let _daemon = env.daemon(&[]);
    switch("disable");
    assert!(!linked(), "the daemon unlinked the switched-off app's skill");
    switch("enable");
    assert!(linked(), "the daemon linked it again");
    let skill = std::fs::read_to_string(link.join("SKILL.md")).unwrap();
    assert!(skill.contains("List before you add."), "{skill}");
    assert!(env.ws_path().join(".claude/skills/mine").is_dir(), "the person's own skill is kept");
    assert!(
        std::fs::symlink_metadata(env.ws_path().join(".claude/skills/board")).is_err(),
        "an app without a SKILL.md is not linked"
    );
}

#[test]
fn agent_skills_links_each_skill_and_installs_the_cowork_studio_skill() {
    let env = workspace();
    let home = tempfile::tempdir().unwrap();
    let out = env.cmd(&["agent", "skills"]).env("HOME", home.path()).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = stdout(&out);
    assert!(printed.starts_with("Linked .claude/skills/tasks\n"), "{printed}");
    let skill = env.file(".claude/skills/tasks/SKILL.md");
    assert!(std::fs::read_to_string(skill).unwrap().contains("List before you add."));
    for agent in [".claude", ".codex"] {
        let guide = home.path().join(agent).join("skills/cowork-studio/SKILL.md");
        let text = std::fs::read_to_string(&guide).unwrap();
        assert!(text.contains(&format!("version {}", env!("CARGO_PKG_VERSION"))), "{text}");
        assert!(
            text.contains("`read` for a granted read and `run` for any other granted routine, each `{\"capability\""),
            "the skill tells of the door's tools as the door lists them: {text}"
        );
    }
}

/// A stateless (2026-07-28) `tools/call` from a client that names itself nothing: no
/// `clientInfo` in `_meta`, as any MCP client may send.
fn nameless_call(door: &Door, arguments: Value) -> (u16, Value) {
    let name = "run";
    let meta = json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} });
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": { "name": name, "arguments": arguments, "_meta": meta } });
    let headers =
        [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", name)];
    let (status, _, body) = door.post(body, &headers);
    (status, body)
}

#[test]
fn an_agent_whose_client_names_itself_nothing_is_shown_by_its_login_never_as_you() {
    let env = workspace();
    let token = create(&env, "hostile");
    let daemon = env.daemon(&[]);
    let door = Door::new(&daemon, &env, &token);
    let add = json!({ "capability": "tasks", "tool": "tasks-add", "params": { "title": "I am the owner" } });
    let (status, refused) = nameless_call(&door, add.clone());
    assert_eq!(status, 200, "{refused}");
    assert!(answer(&refused)
        .0
        .starts_with("Denied: tasks-add is not granted to the agent hostile"));
    assert!(env
        .run(&["agent", "grant", "tasks/tasks-add", "allow", "--agent", "hostile"])
        .status
        .success());
    let (_, ran) = nameless_call(&door, add);
    assert!(!answer(&ran).1, "{ran}");
    assert!(env.routine("tasks-list", "{}")["ok"] == true, "and one run of the owner's own");

    // Executions (`GET /api/runs`): the login as who asked, no client label, and the owner's own
    // terminal run with neither.
    let http = Http { port: daemon.port };
    let ws = path_str(&env.ws_path());
    let (status, listed) =
        http.json("GET", &format!("/api/runs?workspace={ws}&limit=5"), &env.owner_token(), None);
    assert_eq!(status, 200, "{listed}");
    let who: Vec<(&str, &str, &Value, &Value)> = listed["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let text = |k: &str| r[k].as_str().unwrap_or_default();
            (text("routine"), text("status"), &r["principal"], &r["agent"])
        })
        .collect();
    let hostile = Value::from("hostile");
    assert_eq!(
        who,
        [
            ("tasks-list", "ok", &Value::Null, &Value::Null),
            ("tasks-add", "ok", &hostile, &Value::Null),
            ("tasks-add", "denied", &hostile, &Value::Null),
        ],
        "{listed}"
    );

    // `cowork routine runs`: the same Who, in words.
    let table = stdout(&env.run(&["routine", "runs"]));
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert!(rows[0].contains(" you ") && rows[0].contains("tasks-list"), "{table}");
    assert!(rows[1].contains(" hostile ") && !rows[1].contains(" you "), "{table}");
    assert!(rows[2].contains(" hostile ") && rows[2].contains("denied"), "{table}");
}

#[test]
fn a_task_id_too_long_or_with_control_characters_is_refused_by_name_and_never_recorded() {
    let env = workspace();
    let token = create(&env, "claude");
    let daemon = env.daemon(&[]);
    let door = Door::new(&daemon, &env, &token);
    let (session, _) = door.initialize_as("2025-11-25", "claude-code");
    let denied = |task: &str| json!({ "name": "run", "arguments": { "capability": "tasks", "tool": "tasks-add", "taskId": task } });
    let long = "T".repeat(201);
    for (task, problem) in [
        (
            long.as_str(),
            "BadRequest: a task id is a short id of at most 200 characters; this one has 201.",
        ),
        (
            "\u{1b}[2J\u{1b}[31mFAKE-TASK\u{1b}[0m\nRUN 2026 tasks-delete ok",
            "BadRequest: a task id has no control characters",
        ),
    ] {
        let (_, refused) = door.call(&session, "tools/call", denied(task));
        let (text, error) = answer(&refused);
        assert!(error && text.starts_with(problem) && text.ends_with("(taskId)"), "{text}");
        assert!(text.len() < 300, "the id is not quoted back: {text}");
    }
    // The same id in `_meta`: the JSON-RPC request's params are invalid (400 in 2026-07-28).
    let mut call = denied("t-1");
    call["_meta"] = json!({ "studio.cowork/task": "line\nbreak" });
    let (status, refused) = door.call(&session, "tools/call", call.clone());
    assert_eq!((status, refused["error"]["code"].clone()), (200, json!(-32602)), "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("BadRequest: a task id has no control characters"), "{message}");
    let meta = json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "studio.cowork/task": long });
    let (status, _, refused) = door.post(
        json!({ "jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": { "name": "start_task", "_meta": meta } }),
        &[("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "start_task")],
    );
    assert_eq!((status, refused["error"]["code"].clone()), (400, json!(-32602)), "{refused}");

    // And as the address's task (how the Chat gives its conversation).
    let bad = Door {
        http: reqwest::blocking::Client::new(),
        url: format!("{}&task=a%0Ab", door.url),
        token: token.clone(),
    };
    let (status, _, refused) = bad.post(
        json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": denied("t-1") }),
        &[("mcp-session-id", &session)],
    );
    assert_eq!((status, refused["error"]["code"].clone()), (400, json!(-32602)), "{refused}");

    // Nothing of them reached the audit log — not even as a denied call.
    let runs = env.json(&["routine", "runs", "--status", "denied"]);
    assert_eq!(runs["runs"], json!([]), "{runs}");
    let (_, ok) = door.call(&session, "tools/call", denied(&"T".repeat(200)));
    assert!(answer(&ok).0.starts_with("Denied:"), "200 characters is an id: {ok}");
    let runs = env.json(&["routine", "runs", "--status", "denied"]);
    assert_eq!(runs["runs"][0]["context"]["taskId"], "T".repeat(200));
}

#[test]
fn a_routine_whose_connection_is_not_connected_is_refused_not_connected_and_shown_unavailable() {
    let env = workspace();
    env.app(
        "acme",
        r#"{ "name": "acme", "version": "1.0.0", "kind": "capability", "credential": { "key": { "fields": ["token"] } }, "routines": {
            "acme-me": { "file": "me.ts", "readOnly": true, "description": "Who the key is" } } }"#,
        &[("me.ts", "export default (_a: any, ctx: any) => ({ token: ctx.credential.fields().token.length });\n")],
    );
    // A store that opens (no OS keychain here), so "not connected" is the connection's own state.
    assert!(env.run(&["secrets", "init", "--key-file"]).status.success());
    let token = create(&env, "claude");
    let daemon = env.daemon(&[]);
    let door = Door::new(&daemon, &env, &token);
    let (session, _) = door.initialize_as("2025-11-25", "claude-code");
    let read = json!({ "name": "read", "arguments": { "capability": "acme", "tool": "acme-me", "taskId": "t-acme" } });
    let (_, refused) = door.call(&session, "tools/call", read.clone());
    let (text, error) = answer(&refused);
    assert!(error, "{refused}");
    assert!(
        text.starts_with(
            "NotConnected: acme-me cannot run: the acme capability's connection is not connected;"
        ),
        "by its name, not Denied: {text}"
    );
    let runs = env.json(&["routine", "runs", "--task", "t-acme"]);
    let line = &runs["runs"][0];
    assert_eq!(
        (&line["status"], &line["error"]["name"]),
        (&json!("error"), &json!("NotConnected")),
        "a grant said nothing against it, so not `denied`: {runs}"
    );

    // What the owner reads: unavailable (not connected), the grant beside it.
    let grants = stdout(&env.run(&["agent", "grants"]));
    let row = grants.lines().find(|l| l.starts_with("acme/acme-me")).unwrap();
    assert!(row.contains("unavailable: not connected (on)"), "{grants}");
    assert!(
        grants.contains("unavailable: the acme capability's connection is not connected"),
        "{grants}"
    );
    let listed = env.json(&["agent", "grants"]);
    let acme = listed.as_array().unwrap().iter().find(|r| r["capability"] == "acme").unwrap();
    assert_eq!(acme["unavailable"], "not connected");
    let tasks = listed.as_array().unwrap().iter().find(|r| r["capability"] == "tasks").unwrap();
    assert_eq!(tasks["unavailable"], Value::Null, "a capability with no credential is available");
    let http = Http { port: daemon.port };
    let ws = path_str(&env.ws_path());
    let (_, info) =
        http.json("GET", &format!("/api/agents?workspace={ws}"), &env.owner_token(), None);
    let acme = info["routines"].as_array().unwrap().iter().find(|r| r["capability"] == "acme");
    assert_eq!(
        acme.unwrap()["unavailable"],
        "not connected",
        "Manage Workspace › Permissions: {info}"
    );

    // Connected, it runs (and is no longer unavailable).
    let mut connect = env
        .cmd(&["credential", "connect", "acme", "--field", "token"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    connect.stdin.take().unwrap().write_all(b"k-123\n").unwrap();
    assert!(connect.wait().unwrap().success());
    let (_, ran) = door.call(&session, "tools/call", read);
    assert_eq!(answer(&ran), (r#"{"token":5}"#.to_string(), false));
    let listed = env.json(&["agent", "grants"]);
    let acme = listed.as_array().unwrap().iter().find(|r| r["capability"] == "acme").unwrap();
    assert_eq!(acme["unavailable"], Value::Null);
}

#[test]
fn the_chats_own_login_cannot_be_made_re_tokened_or_revoked_by_hand() {
    let env = workspace();
    let made = env.run(&["agent", "create", "chat"]);
    assert_eq!(made.status.code(), Some(1), "{}", stderr(&made));
    assert!(
        stderr(&made).contains("\"chat\" is the workbench Chat's own login: Cowork makes it when the Chat first runs — pick another name"),
        "{}",
        stderr(&made)
    );
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let ws = path_str(&env.ws_path());
    let body = json!({ "workspace": ws, "name": "chat" });
    let (status, refused) = http.json("POST", "/api/agents", &env.owner_token(), Some(&body));
    assert_eq!(status, 400, "Manage Workspace › Add agent too: {refused}");

    // The Chat's login, as the Chat makes it (its first conversation), then the person's verbs.
    let logins = env.home.path().join("agents.json");
    let chat = json!({ "id": "0123456789abcdef", "name": "chat", "tokenHash": "x", "created": "2026-12-07T00:00:00.000Z", "lastSeen": null, "revoked": false, "workspaces": [ws] });
    let mut file: Value = serde_json::from_str(
        &std::fs::read_to_string(&logins).unwrap_or_else(|_| r#"{"agents":[]}"#.into()),
    )
    .unwrap();
    file["agents"].as_array_mut().unwrap().push(chat);
    std::fs::write(&logins, file.to_string()).unwrap();
    let revoked = env.run(&["agent", "revoke", "chat", "--yes"]);
    assert_eq!(revoked.status.code(), Some(1));
    assert!(
        stderr(&revoked).contains("revoked, the Chat could never run a routine again"),
        "{}",
        stderr(&revoked)
    );
    assert!(
        stderr(&revoked).contains("cowork agent grant <capability>/* deny --agent chat"),
        "what to do instead: {}",
        stderr(&revoked)
    );
    let token = env.run(&["agent", "token", "chat"]);
    assert_eq!(token.status.code(), Some(1));
    assert!(stderr(&token).contains("the Chat keeps its token and renews it itself"));
    assert_eq!(
        env.json(&["agent", "list"])[0]["revoked"],
        false,
        "{}",
        stdout(&env.run(&["agent", "list"]))
    );
    assert!(
        env.run(&["agent", "grant", "tasks/*", "deny", "--agent", "chat"]).status.success(),
        "grants apply to it"
    );
}

#[test]
fn the_doors_refusals_off_the_json_rpc_path_are_named_and_shaped_as_the_protocols_say() {
    let env = workspace();
    let token = create(&env, "claude");
    let daemon = env.daemon(&[]);
    let door = Door::new(&daemon, &env, &token);
    let http = reqwest::blocking::Client::new();

    // Over 2 MB: JSON-RPC, by the reference's name.
    let big = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping", "params": { "pad": "x".repeat(2 * 1024 * 1024 + 1) } });
    let (status, _, body) = door.post(big, &[]);
    assert_eq!((status, body["error"]["code"].clone()), (413, json!(-32600)), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().starts_with("TooLarge:"), "{body}");

    // No token: 401, `Forbidden` as errors.md names a missing token, and the scheme to use.
    let answer = http.post(&door.url).json(&json!({})).send().unwrap();
    assert_eq!(answer.status().as_u16(), 401);
    assert_eq!(answer.headers()["www-authenticate"], "Bearer");
    assert_eq!(answer.json::<Value>().unwrap()["error"]["name"], "Forbidden");

    // GET: 405 saying what is allowed.
    let answer = http.get(&door.url).bearer_auth(&token).send().unwrap();
    assert_eq!(answer.status().as_u16(), 405);
    assert_eq!(answer.headers()["allow"], "POST, DELETE");

    // A null id is an invalid request, not a notification (which would get 202 and nothing).
    let (session, _) = door.initialize("2025-11-25");
    let (status, _, body) = door.post(
        json!({ "jsonrpc": "2.0", "id": null, "method": "ping" }),
        &[("mcp-session-id", &session)],
    );
    assert_eq!((status, body["error"]["code"].clone()), (400, json!(-32600)), "{body}");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("a request's id must not be null"));
    let (status, _, body) = door.post(
        json!([{ "jsonrpc": "2.0", "id": 2, "method": "ping" }]),
        &[("mcp-session-id", &session)],
    );
    assert_eq!(status, 400);
    assert!(body["error"]["message"].as_str().unwrap().starts_with("batches are not supported"));
}

#[test]
fn an_agent_holds_at_most_half_the_slots_so_the_owners_own_run_still_starts() {
    let env = workspace();
    env.app(
        "slow",
        r#"{ "name": "slow", "version": "1.0.0", "kind": "capability", "routines": {
            "slow-read": { "file": "wait.ts", "readOnly": true, "description": "Waits", "input": { "type": "object", "properties": { "ms": { "type": "number" } } } } } }"#,
        &[("wait.ts", "export default async (args: any) => { await new Promise((r) => setTimeout(r, args.ms)); return { waited: args.ms }; };\n")],
    );
    let token = create(&env, "reader");
    let daemon = env.daemon(&["--slots", "2"]);
    let door = Door::new(&daemon, &env, &token);
    let http = Http { port: daemon.port };
    let ws = path_str(&env.ws_path());
    let slow = |ms: u64| json!({ "name": "read", "arguments": { "capability": "slow", "tool": "slow-read", "params": { "ms": ms } } });
    std::thread::scope(|scope| {
        // A read that takes its time (any read waiting on a slow API does the same).
        let first = scope.spawn(|| door.stateless("tools/call", slow(4000), &[]));
        let running = || {
            let (_, runs) =
                http.json("GET", &format!("/api/runs?workspace={ws}"), &env.owner_token(), None);
            runs["running"].as_array().is_some_and(|r| !r.is_empty())
        };
        assert!(eventually(std::time::Duration::from_secs(20), running), "the first read runs");

        // One of the two slots is free, but it is not the agent's to take…
        let (_, refused) = door.stateless("tools/call", slow(10), &[]);
        let (text, error) = answer(&refused);
        assert!(error, "{refused}");
        assert_eq!(
            text,
            "TooManyRoutines: agents' runs hold 1 of the 2 routine slots, their share (the rest is kept for the workspace owner's own runs); try again when one finishes"
        );
        // …it is the owner's: their terminal run starts.
        let mine = env.routine("tasks-list", "{}");
        assert_eq!(mine["ok"], true, "{mine}");
        let (_, done) = first.join().unwrap();
        assert!(!answer(&done).1, "{done}");
    });
    let (_, again) = door.stateless("tools/call", slow(10), &[]);
    assert!(!answer(&again).1, "its share is free again: {again}");
}
