//! Browser automation's surface (issue 43): `ctx.browser` in a routine and `cowork mcp-browser`,
//! through a real daemon to a stand-in desktop shell that holds the desktop channel and answers
//! as the shell's engine does (the real engine's own tests drive WebKitGTK pages). What is pinned
//! here is the daemon's half: who may drive (the app's `requires`, consent once per driver and
//! site), where errors come from by name, and the audit line that never holds typed text.

use crate::support::*;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::{Arc, Mutex};

const DRIVER: &str = r#"{ "name": "driver", "version": "1.0.0", "requires": ["desktop"], "routines": { "driver-go": "go.ts" } }"#;
const PLAIN: &str =
    r#"{ "name": "plain", "version": "1.0.0", "routines": { "plain-go": "go.ts" } }"#;

/// A routine that runs `args.steps` (`[method, ...arguments]`) on `ctx.browser` in order and
/// answers every result, or the first error's name and message.
const STEPS: &str = r#"export default async (args: any, ctx: any) => {
  const results: any[] = [];
  for (const [method, ...rest] of args.steps) {
    try {
      results.push(await ctx.browser[method](...rest));
    } catch (e: any) {
      return { results, error: { name: e.name, message: e.message } };
    }
  }
  return { results };
};
"#;

fn apps(env: &Env) {
    env.app("driver", DRIVER, &[("go.ts", STEPS)]);
    env.app("plain", PLAIN, &[("go.ts", STEPS)]);
}

/// A stand-in for the desktop shell: it holds `/api/desktop/requests`, records each request,
/// and answers browser actions with `act` and consent questions with `allow`.
struct Shell {
    seen: Arc<Mutex<Vec<Value>>>,
}

impl Shell {
    fn attach(
        port: u16,
        token: &str,
        allow: bool,
        act: impl Fn(&Value) -> Value + Send + 'static,
    ) -> Shell {
        let http = Http { port };
        let mut stream = http.events("/api/desktop/requests", token);
        assert_eq!(stream.status, 200, "the stand-in shell attaches");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (record, token) = (seen.clone(), token.to_string());
        std::thread::spawn(move || {
            while let Some((request, _)) = stream.next() {
                record.lock().unwrap().push(request.clone());
                let id = request["id"].clone();
                let answer = match request["type"].as_str() {
                    Some("browserConsent") => {
                        json!({"id": id, "outcome": "consent", "allowed": allow})
                    }
                    Some("browser") => {
                        let mut answer = act(&request);
                        // A shell that never answers (a hung page).
                        if answer.is_null() {
                            continue;
                        }
                        answer["id"] = id;
                        answer
                    }
                    _ => continue,
                };
                let (status, body) = Http { port }.json(
                    "POST",
                    "/api/desktop/browser/answer",
                    &token,
                    Some(&answer),
                );
                assert_eq!(status, 200, "{body}");
            }
        });
        Shell { seen }
    }

    fn of_type(&self, kind: &str) -> Vec<Value> {
        self.seen.lock().unwrap().iter().filter(|r| r["type"] == kind).cloned().collect()
    }
}

fn tab(url: &str) -> Value {
    json!({"index": 0, "url": url, "title": "Test site", "active": true})
}

/// What the stand-in's engine answers, on a page at `url`: `consentNeeded` when the page's site
/// is not among the request's `sites` (as the shell checks before acting; `open(url)` and
/// `navigate` the daemon checked), `StaleRef` for `e99`, else a page (a snapshot, a read, a
/// value).
fn on_page(url: &'static str) -> impl Fn(&Value) -> Value + Send + 'static {
    move |request| {
        let site = url.trim_start_matches("http://").split('/').next().unwrap();
        let moves = matches!(request["action"].as_str(), Some("open" | "navigate"));
        if !moves && !request["sites"].as_array().unwrap().contains(&json!(site)) {
            return json!({"outcome": "consentNeeded", "site": site, "url": url});
        }
        let failed = |name: &str| json!({"outcome": "failed", "error": {"name": name, "message": format!("failed: {name}")}});
        match request["ref"].as_str() {
            Some("closed") => return failed("TabClosed"),
            Some("leaves") => return failed("NavigatedAway"),
            Some("hangs") => return Value::Null,
            _ => {}
        }
        if request["ref"] == "e99" {
            return json!({"outcome": "failed", "error": {"name": "StaleRef", "message": "failed to click e99: the node is gone", "hint": "take a new snapshot", "url": url}});
        }
        let result = match request["action"].as_str().unwrap() {
            "snapshot" => {
                json!({"kind": "snapshot", "tab": tab(url), "text": "- textbox \"Password\" [ref=e3]"})
            }
            "evaluate" => json!({"kind": "evaluated", "tab": tab(url), "value": {"answer": 42}}),
            "read" => json!({"kind": "read", "tab": tab(url), "markdown": "# Article"}),
            _ => json!({"kind": "page", "tab": tab(url), "navigated": false}),
        };
        json!({"outcome": "done", "result": result})
    }
}

/// The workspace's audit lines of browser actions, oldest first.
fn browser_lines(env: &Env) -> Vec<Value> {
    env.audit_lines()
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["capability"].as_str().unwrap().starts_with("cowork.browser."))
        .collect()
}

fn steps(env: &Env, routine: &str, steps: Value) -> Value {
    env.ok(routine, json!({ "steps": steps }))
}

#[test]
fn ctx_browser_is_refused_for_an_app_without_requires_desktop_and_unsupported_without_the_desktop_app(
) {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    // No daemon: the CLI's own engine has no browser.
    let plain = steps(&env, "plain-go", json!([["open", "http://127.0.0.1:9/"]]));
    assert_eq!(plain["error"]["name"], "NotDeclared", "{plain}");
    assert!(plain["error"]["message"].as_str().unwrap().contains("\"requires\": [\"desktop\"]"));
    let headless = steps(&env, "driver-go", json!([["tabs"]]));
    assert_eq!(headless["error"]["name"], "Unsupported", "{headless}");

    // A daemon with no desktop app attached: Unsupported, saying how to start it.
    let _daemon = env.daemon(&[]);
    let served = steps(&env, "driver-go", json!([["snapshot"]]));
    assert_eq!(served["error"]["name"], "Unsupported", "{served}");
    let message = served["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("desktop app is not running") && message.contains("cowork open"),
        "{message}"
    );
    let both = steps(&env, "driver-go", json!([["click", "e1", {"tabIndex": 0, "app": "mail"}]]));
    assert_eq!(both["error"]["name"], "BadRequest", "one page at a time: {both}");
    let plain = steps(&env, "plain-go", json!([["toggle"]]));
    assert_eq!(plain["error"]["name"], "NotDeclared", "{plain}");
}

#[test]
fn ctx_browser_asks_consent_once_per_app_and_site_and_audits_every_action_without_typed_text() {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    let daemon = env.daemon(&[]);
    let token = env.owner_token();
    let shell = Shell::attach(daemon.port, &token, true, on_page("http://127.0.0.1:9/login"));

    let first = steps(
        &env,
        "driver-go",
        json!([
            ["open", "http://127.0.0.1:9/login"],
            ["fill", "e3", "s3cret-typed-value"],
            ["type", "more-typed-text", {"ref": "e3", "submit": true}],
            ["snapshot"],
            ["evaluate", "document.title", {"tabIndex": 0}],
            ["click", "e99"]
        ]),
    );
    assert_eq!(first["results"][3]["text"], "- textbox \"Password\" [ref=e3]", "{first}");
    assert_eq!(first["results"][4], json!({"answer": 42}), "evaluate answers the value");
    assert_eq!(first["error"]["name"], "StaleRef", "the shell's error by name: {first}");

    // The request as the shell gets it: who, the sites allowed, the action flat and tagged.
    let actions = shell.of_type("browser");
    assert_eq!(actions.len(), 6, "{actions:?}");
    assert_eq!(
        actions[1]["driver"],
        json!({"kind": "app", "workspace": path_str(&env.ws_path()), "app": "driver", "title": "driver"})
    );
    assert_eq!(actions[1]["sites"], json!(["127.0.0.1:9"]));
    // The run is the driver's session (the banner's Stop holds until its next run).
    let session = actions[0]["session"].as_str().unwrap_or_default();
    assert!(!session.is_empty() && actions.iter().all(|a| a["session"] == session), "{actions:?}");
    assert_eq!((&actions[1]["action"], &actions[1]["ref"]), (&json!("fill"), &json!("e3")));
    assert_eq!(actions[4]["target"], json!({"tabIndex": 0}));

    // One question: the first time this app drives, on this site. The second run asks nothing.
    let questions = shell.of_type("browserConsent");
    assert_eq!(questions.len(), 1, "{questions:?}");
    assert_eq!(
        (&questions[0]["site"], &questions[0]["first"]),
        (&json!("127.0.0.1:9"), &json!(true))
    );
    let again = steps(&env, "driver-go", json!([["navigate", "http://127.0.0.1:9/form"]]));
    assert!(again.get("error").is_none(), "{again}");
    assert_eq!(shell.of_type("browserConsent").len(), 1, "asked once per app and site");
    // A new site: asked again, not as the first time.
    steps(&env, "driver-go", json!([["navigate", "http://localhost:9/other"]]));
    let questions = shell.of_type("browserConsent");
    assert_eq!(questions.len(), 2, "{questions:?}");
    assert_eq!(
        (&questions[1]["site"], &questions[1]["first"]),
        (&json!("localhost:9"), &json!(false))
    );
    let consent = std::fs::read_to_string(env.home.path().join("browser-consent.json")).unwrap();
    assert!(consent.contains("127.0.0.1:9") && consent.contains("localhost:9"), "{consent}");

    // Every action is one audit line: source, app, site, action — never what was typed.
    let browser = browser_lines(&env);
    let names: Vec<&str> = browser.iter().map(|l| l["capability"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "cowork.browser.open",
            "cowork.browser.fill",
            "cowork.browser.type",
            "cowork.browser.snapshot",
            "cowork.browser.evaluate",
            "cowork.browser.click",
            "cowork.browser.navigate",
            "cowork.browser.navigate"
        ]
    );
    let fill = &browser[1];
    assert_eq!(fill["input"], json!({"site": "127.0.0.1:9", "ref": "e3"}), "{fill}");
    assert_eq!(
        (&fill["context"]["source"], &fill["context"]["appId"]),
        (&json!("app"), &json!("driver"))
    );
    assert_eq!(browser[5]["status"], "error");
    assert_eq!(browser[5]["error"]["name"], "StaleRef");
    // (The routine's own run line records its arguments, as every run's does: page 02.)
    let all = serde_json::to_string(&browser).unwrap();
    for secret in ["s3cret-typed-value", "more-typed-text", "document.title"] {
        assert!(!all.contains(secret), "the audit log holds {secret}: {all}");
    }
}

#[test]
fn a_no_to_the_consent_question_is_denied_and_nothing_reaches_the_page() {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    let daemon = env.daemon(&[]);
    let shell =
        Shell::attach(daemon.port, &env.owner_token(), false, on_page("http://127.0.0.1:9/"));
    let denied = steps(&env, "driver-go", json!([["open", "http://127.0.0.1:9/"]]));
    assert_eq!(denied["error"]["name"], "Denied", "{denied}");
    assert!(shell.of_type("browser").is_empty(), "no action was sent");
    let lines = browser_lines(&env);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = &lines[0];
    assert_eq!(
        (&line["capability"], &line["status"]),
        (&json!("cowork.browser.open"), &json!("denied"))
    );
}

/// `cowork mcp-browser` on pipes: JSON-RPC lines in, answers out.
struct McpBrowser {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl McpBrowser {
    fn start(env: &Env, extra: &[&str]) -> McpBrowser {
        let mut child = env
            .cmd(&[&["mcp-browser"], extra].concat())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let (stdin, stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
        McpBrowser { child, stdin, stdout: BufReader::new(stdout), next: 0 }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let message =
            json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        writeln!(self.stdin, "{message}").unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(answer["id"], self.next, "{answer}");
        answer
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))["result"].clone()
    }
}

#[test]
fn mcp_browser_negotiates_lists_one_tool_per_action_and_names_the_missing_desktop_app() {
    let env = Env::new(runtimes()[0]);
    let mut mcp = McpBrowser::start(&env, &[]);
    let init = mcp.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "claude-code", "version": "2"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    let newest = mcp.request("initialize", json!({"protocolVersion": "1999-01-01"}));
    assert_eq!(newest["result"]["protocolVersion"], "2025-11-25", "an unknown version: the newest");
    writeln!(mcp.stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
    // A batch and a null id are named as the HTTP door names them (QA16 #8), not a parse error.
    for (line, said) in [
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, "batches are not supported"),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, "a request's id must not be null"),
    ] {
        writeln!(mcp.stdin, "{line}").unwrap();
        let mut answer = String::new();
        mcp.stdout.read_line(&mut answer).unwrap();
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
        assert!(answer["error"]["message"].as_str().unwrap().starts_with(said), "{answer}");
    }

    let tools = mcp.request("tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "open",
            "navigate",
            "snapshot",
            "find",
            "click",
            "fill",
            "type",
            "press",
            "select",
            "check",
            "wait_for",
            "read",
            "screenshot",
            "tabs",
            "close",
            "evaluate"
        ]
    );

    // No daemon, so no desktop app: a tool error naming it and how to start it; the server stays.
    let result = mcp.call("snapshot", json!({}));
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Unsupported: ") && text.contains("cowork open"), "{text}");
    let bad = mcp.call("click", json!({}));
    assert!(bad["content"][0]["text"].as_str().unwrap().starts_with("BadRequest: "), "{bad}");
    assert_eq!(mcp.request("ping", json!({}))["result"], json!({}));

    // The client owns the lifetime: closing stdin ends it, successfully.
    drop(mcp.stdin);
    assert!(mcp.child.wait().unwrap().success());
}

#[test]
fn mcp_browser_drives_through_the_daemon_as_its_agent_with_consent_and_audit() {
    let env = Env::new(runtimes()[0]);
    std::fs::create_dir_all(env.file(".cowork")).unwrap();
    let daemon = env.daemon(&[]);
    let shell =
        Shell::attach(daemon.port, &env.owner_token(), true, on_page("http://127.0.0.1:9/list"));
    let mut mcp = McpBrowser::start(&env, &[]);
    mcp.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "clientInfo": {"name": "Claude Code"}}),
    );

    let snapshot = mcp.call("snapshot", json!({"tabIndex": 0}));
    assert_eq!(snapshot["isError"], false, "{snapshot}");
    let text = snapshot["content"][0]["text"].as_str().unwrap();
    assert_eq!(text, "tab 0: http://127.0.0.1:9/list — Test site\n- textbox \"Password\" [ref=e3]");
    let filled = mcp.call("fill", json!({"ref": "e3", "value": "hunter2-secret"}));
    assert_eq!(
        filled["content"][0]["text"],
        "fill: done. tab 0: http://127.0.0.1:9/list — Test site"
    );
    let stale = mcp.call("click", json!({"ref": "e99"}));
    assert_eq!(stale["isError"], true);
    assert_eq!(
        stale["content"][0]["text"],
        "StaleRef: failed to click e99: the node is gone\nHint: take a new snapshot"
    );
    let waited = mcp.call("wait_for", json!({"text": "Saved", "timeoutMs": 2000}));
    assert_eq!(waited["isError"], false, "{waited}");
    let sent = shell.of_type("browser");
    let wait = sent.iter().find(|r| r["action"] == "waitFor").unwrap();
    assert_eq!(wait["condition"], json!({"for": "text", "text": "Saved"}));
    assert_eq!(wait["timeoutMs"], 2000);
    assert_eq!(sent[0]["driver"], json!({"kind": "agent", "name": "claude-code"}));
    // One session for the server's life: the banner's Stop holds until another server starts.
    let session = sent[0]["session"].as_str().unwrap_or_default();
    assert!(session.starts_with("mcp-"), "{session}");
    assert!(sent.iter().all(|r| r["session"] == session), "{sent:?}");
    assert_eq!(sent.len(), 5, "the first snapshot was sent again once its site was allowed");

    // Asked twice, both for the first action: may this agent drive the browser at all, then (the
    // shell said the page's site was not allowed yet) on 127.0.0.1:9. Then never again.
    let questions = shell.of_type("browserConsent");
    assert_eq!(questions.len(), 2, "{questions:?}");
    assert_eq!(questions[0]["driver"], json!({"kind": "agent", "name": "claude-code"}));
    assert_eq!((questions[0].get("site"), &questions[0]["first"]), (None, &json!(true)));
    assert_eq!(
        (&questions[1]["site"], &questions[1]["first"]),
        (&json!("127.0.0.1:9"), &json!(false))
    );

    let lines = browser_lines(&env);
    assert_eq!(lines.len(), 4);
    assert_eq!(
        (&lines[1]["context"]["source"], &lines[1]["context"]["agent"]),
        (&json!("cli"), &json!("claude-code"))
    );
    assert_eq!(lines[1]["input"]["site"], "127.0.0.1:9");
    assert!(!env.audit_lines().join("\n").contains("hunter2-secret"));
    drop(mcp.stdin);
    assert!(mcp.child.wait().unwrap().success());
}

#[test]
fn a_closed_tab_a_page_that_navigates_away_and_a_shell_that_never_answers_are_named_errors() {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    let daemon = env.daemon(&[]);
    let _shell =
        Shell::attach(daemon.port, &env.owner_token(), true, on_page("http://127.0.0.1:9/"));
    steps(&env, "driver-go", json!([["open", "http://127.0.0.1:9/"]]));
    let closed = steps(&env, "driver-go", json!([["click", "closed"]]));
    assert_eq!(closed["error"]["name"], "TabClosed", "{closed}");
    let left = steps(&env, "driver-go", json!([["click", "leaves"]]));
    assert_eq!(left["error"]["name"], "NavigatedAway", "{left}");
    // The daemon gives up on the shell after the action's budget and a short grace.
    let hung = steps(&env, "driver-go", json!([["click", "hangs", {"timeoutMs": 200}]]));
    assert_eq!(hung["error"]["name"], "Timeout", "{hung}");
    assert!(
        hung["error"]["message"].as_str().unwrap().contains("no answer within 200 ms"),
        "{hung}"
    );
}

#[test]
fn consent_allow_browser_approves_an_app_and_an_agent_ahead_so_no_dialog_asks() {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    let daemon = env.daemon(&[]);
    // A shell that says no to every question: an action that got through was approved ahead.
    let shell =
        Shell::attach(daemon.port, &env.owner_token(), false, on_page("http://127.0.0.1:9/login"));

    let allowed = env.run(&["consent", "allow", "127.0.0.1:9", "--browser", "--app", "driver"]);
    assert_eq!(
        stdout(&allowed),
        "Allowed driver (app) to drive the browser on 127.0.0.1:9: no dialog asks.\n"
    );
    let again = env.run(&["consent", "allow", "127.0.0.1:9", "--browser", "--app", "driver"]);
    assert_eq!(stdout(&again), "Already allowed: driver (app) on 127.0.0.1:9.\n");
    let ran = steps(&env, "driver-go", json!([["open", "http://127.0.0.1:9/login"], ["snapshot"]]));
    assert!(ran.get("error").is_none(), "{ran}");
    // An address on the site names the site; the agent is named as mcp-browser names it.
    let agent = ["consent", "allow", "HTTP://127.0.0.1:9/list?q=1", "--browser", "--agent"];
    assert!(env.run(&[&agent[..], &["claude-code"]].concat()).status.success());
    let mut mcp = McpBrowser::start(&env, &[]);
    mcp.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "clientInfo": {"name": "Claude Code"}}),
    );
    let snapshot = mcp.call("snapshot", json!({}));
    assert_eq!(snapshot["isError"], false, "{snapshot}");
    assert_eq!(shell.of_type("browserConsent"), Vec::<Value>::new(), "nobody was asked");

    let listed: Value =
        serde_json::from_str(&stdout(&env.run(&["consent", "list", "--browser", "--json"])))
            .unwrap();
    let ws = path_str(&env.ws_path());
    assert_eq!(
        listed,
        json!([
            {"agent": "claude-code", "sites": ["127.0.0.1:9"]},
            {"app": "driver", "workspace": ws, "sites": ["127.0.0.1:9"]}
        ])
    );
    // One audit line per change (the repeated allow changed nothing), `source` `cli`.
    let changes: Vec<Value> = browser_lines(&env)
        .into_iter()
        .filter(|l| l["capability"] == "cowork.browser.allow")
        .collect();
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert_eq!(
        (&changes[0]["input"], &changes[0]["context"]["source"], &changes[0]["context"]["appId"]),
        (&json!({"site": "127.0.0.1:9"}), &json!("cli"), &json!("driver"))
    );
    assert_eq!(changes[1]["input"], json!({"site": "127.0.0.1:9", "agent": "claude-code"}));

    // Revoked: the app's next action asks again (and this shell says no).
    let revoked = env.run(&["consent", "revoke", "127.0.0.1:9", "--browser", "--app", "driver"]);
    assert_eq!(stdout(&revoked), "Revoked: driver (app) is asked again on 127.0.0.1:9.\n");
    let denied = steps(&env, "driver-go", json!([["snapshot"]]));
    assert_eq!(denied["error"]["name"], "Denied", "{denied}");
    assert_eq!(shell.of_type("browserConsent").len(), 1);
    let revoked = env.run(&["consent", "revoke", "127.0.0.1:9", "--browser", "--app", "driver"]);
    assert_eq!(revoked.status.code(), Some(3), "{}", stderr(&revoked));
}

#[test]
fn consent_allow_browser_names_a_bad_site_an_unknown_app_and_an_app_that_may_not_drive() {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&path_str(&env.ws_path())), "[WS]");
    settings.add_filter(r"cowork(\.exe)?\b", "cowork");
    let cases: [&[&str]; 7] = [
        &["consent", "allow", "ftp://files.example", "--browser", "--app", "driver"],
        &["consent", "allow", "not a site", "--browser", "--app", "driver"],
        &["consent", "allow", "example.com/path", "--browser", "--app", "driver"],
        &["consent", "allow", "github.com", "--browser", "--app", "nosuch"],
        &["consent", "allow", "github.com", "--browser", "--app", "plain"],
        &["consent", "allow", "github.com", "--agent", "claude-code"],
        &["consent", "list", "--browser"],
    ];
    let transcripts: Vec<String> = cases
        .iter()
        .map(|args| format!("$ cowork {}\n{}", args.join(" "), transcript(&env.run(args))))
        .collect();
    settings.bind(|| insta::assert_snapshot!("consent_browser_errors", transcripts.join("\n")));
    assert!(!env.home.path().join("browser-consent.json").exists(), "nothing was written");
}
