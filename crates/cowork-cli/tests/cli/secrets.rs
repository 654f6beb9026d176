//! The secret store from the CLI and from routines: key-file mode, grants case by case, masking,
//! and key credentials end to end (connect, fields, fetch with retries, disconnect).

use crate::support::*;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

const SECRET: &str = "sk-live-4242-abcdef";

pub(crate) fn with_key_file(env: &Env) {
    let out = env.run(&["secrets", "init", "--key-file"]);
    assert!(out.status.success(), "{}", stderr(&out));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(env.home.path().join("secrets.key")).unwrap().permissions().mode()
            & 0o777,
        0o600
    );
}

pub(crate) fn set(env: &Env, name: &str, value: &str) {
    let mut child = env
        .cmd(&["secrets", "set", name, "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(format!("{value}\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn the_cli_keeps_values_off_argv_and_off_disk() {
    let env = Env::new(runtimes()[0]);
    with_key_file(&env);
    set(&env, "openai.key", SECRET);
    assert_eq!(stdout(&env.run(&["secrets", "list"])), "openai.key\n");
    assert_eq!(stdout(&env.run(&["secrets", "get", "openai.key"])), format!("{SECRET}\n"));
    assert!(
        grep(env.home.path(), SECRET).is_empty(),
        "plaintext on disk: {:?}",
        grep(env.home.path(), SECRET)
    );

    // A value on the command line is refused by name, and never repeated.
    for given in [&["sk-typed-1234"][..], &["--sk-typed-1234"], &["sk-typed-1234", "more"]] {
        let typed = env.run(&[&["secrets", "set", "openai.other"][..], given].concat());
        assert_eq!(typed.status.code(), Some(2), "{given:?}");
        assert!(
            stderr(&typed).starts_with(
                "error: refused to take the value of openai.other from the command line"
            ),
            "{}",
            stderr(&typed)
        );
        assert!(stderr(&typed).contains("--stdin"), "{}", stderr(&typed));
        assert!(
            !stderr(&typed).contains("sk-typed") && stdout(&typed).is_empty(),
            "{}",
            stderr(&typed)
        );
    }
    let no_stdin = env.run(&["secrets", "set", "openai.other"]);
    assert_eq!(no_stdin.status.code(), Some(2));
    assert!(
        stderr(&no_stdin).contains("hint: pass the value on stdin with --stdin"),
        "{}",
        stderr(&no_stdin)
    );
    // With a value, so it is refused for its name and not for an empty stdin.
    let mut reserved = env
        .cmd(&["secrets", "set", "cowork.openrouter", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    reserved.stdin.take().unwrap().write_all(b"sk-or-1234\n").unwrap();
    let reserved = reserved.wait_with_output().unwrap();
    assert_eq!(reserved.status.code(), Some(2), "{}", stderr(&reserved));
    assert!(stderr(&reserved).contains("the secret name \"cowork.openrouter\" is reserved: names starting with `cowork.` belong to Cowork itself"), "{}", stderr(&reserved));
    assert_eq!(stdout(&env.run(&["secrets", "list"])), "openai.key\n", "nothing was written");
    let doctor = stdout(&env.run(&["doctor"]));
    let line = doctor
        .lines()
        .find(|l| l.contains(" secrets "))
        .unwrap_or_else(|| panic!("no secrets line: {doctor}"));
    assert!(
        line.starts_with("ok") && line.contains(&path_str(&env.home.path().join("secrets.key"))),
        "{line}"
    );
    let bad = env.run(&["secrets", "get", "9lives"]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert_eq!(env.run(&["secrets", "get", "missing.name"]).status.code(), Some(3));
    assert!(env.run(&["secrets", "delete", "openai.key"]).status.success());
    assert_eq!(stdout(&env.run(&["secrets", "list"])), "");
    let gone = env.run(&["secrets", "delete", "openai.key"]);
    assert_eq!(
        (gone.status.code(), stderr(&gone).as_str()),
        (Some(3), "error: no secret \"openai.key\"\nhint: `cowork secrets list` shows the names\n")
    );
    let again = env.run(&["secrets", "init", "--key-file"]);
    assert_eq!(
        again.status.code(),
        Some(1),
        "the key file is never overwritten: {}",
        stderr(&again)
    );
}

fn packages(env: &Env) {
    let probe = r#"export default async (args: any, ctx: any) => {
  const out: any = { list: ctx.secrets.list() };
  for (const name of args.names) {
    try { out[name] = ctx.secrets.get(name) ?? "unset"; } catch (e: any) { out[name] = `${e.name}: ${e.message}`; }
  }
  if (args.write) { try { ctx.secrets.set(args.write, "written"); out.wrote = true; } catch (e: any) { out.wrote = e.name; } }
  if (args.leak) { console.log("stdout has", ctx.secrets.get(args.leak)); ctx.log("ctx.log has", ctx.secrets.get(args.leak)); throw new Error(`failed with ${ctx.secrets.get(args.leak)}`); }
  return out;
};
"#;
    env.app(
        "legacy",
        r#"{"name": "legacy", "version": "1.0.0", "routines": {"legacy-probe": "probe.ts"}}"#,
        &[("probe.ts", probe)],
    );
    env.app("acme", r#"{"name": "acme", "version": "1.0.0", "kind": "capability", "credential": {"key": {"fields": ["token"], "url": "https://acme.example/keys", "hint": "Settings › API"}},
        "routines": {"acme-probe": "probe.ts", "acme-call": "call.ts", "acme-post": "post.ts"}}"#, &[("probe.ts", probe), ("call.ts", r#"export default async (args: any, ctx: any) => {
  if (args.status) return ctx.credential.status();
  const { token } = ctx.credential.fields();
  const res = await ctx.credential.fetch(args.url, { headers: { authorization: `Bearer ${token}` }, retries: args.retries });
  return { status: res.status, body: await res.text() };
};
"#), ("post.ts", r#"export default async (args: any, ctx: any) => {
  try {
    const res = await ctx.credential.fetch(args.url, { method: "POST", json: { hello: "world" }, retries: args.retries });
    return { status: res.status };
  } catch (e: any) { return `${e.name}: ${e.message}`; }
};
"#)]);
    env.app("plain", r#"{"name": "plain", "version": "1.0.0", "kind": "capability", "routines": {"plain-call": "call.ts"}}"#, &[("call.ts", "export default (_a: any, ctx: any) => ctx.credential.fields();\n")]);
    env.app("board", r#"{"name": "board", "version": "1.0.0", "uses": {"acme": "1.0.0"}, "routines": {"board-probe": "probe.ts", "board-call": "call.ts"}}"#, &[("probe.ts", probe), ("call.ts", "export default (_a: any, ctx: any) => ctx.credential.fields();\n")]);
}

#[test]
fn routines_reach_secrets_within_their_grants() {
    let env = Env::new(runtimes()[0]);
    with_key_file(&env);
    packages(&env);
    set(&env, "openai.key", SECRET);
    set(&env, "acme.user_id", "u-12345");
    let names = json!(["openai.key", "acme.user_id", "cowork.openrouter"]);

    let legacy = env.ok("legacy-probe", json!({"names": names, "write": "legacy.cache"}));
    assert_eq!(
        (
            &legacy["openai.key"],
            &legacy["acme.user_id"],
            &legacy["cowork.openrouter"],
            &legacy["wrote"]
        ),
        (&json!(SECRET), &json!("u-12345"), &json!("unset"), &json!(true))
    );

    let cap = env.ok("acme-probe", json!({"names": names, "write": "openai.key"}));
    assert_eq!(cap["acme.user_id"], "u-12345");
    assert_eq!(cap["openai.key"], "NotGranted: acme may not reach the secret \"openai.key\": a capability reaches only its own \"acme.*\" secrets");
    assert_eq!(cap["cowork.openrouter"], "unset", "a capability reads cowork.openrouter");
    assert_eq!(cap["wrote"], "NotGranted");
    assert_eq!(cap["list"], json!(["acme.user_id"]));

    let app = env.ok("board-probe", json!({"names": names}));
    assert!(app["acme.user_id"].as_str().unwrap().starts_with("NotGranted: board may not reach the secret \"acme.user_id\": an app's routines reach no secrets"), "{app}");
    assert!(app["cowork.openrouter"].as_str().unwrap().starts_with("NotGranted"));
    assert_eq!(app["list"], json!([]));

    // A `kind` or `uses` whose value is invalid is reported and dropped, but it was declared:
    // the package is under the capability model at its safe default, never unrestricted.
    let probe = std::fs::read_to_string(env.file(".cowork/apps/legacy/probe.ts")).unwrap();
    let nine: serde_json::Map<String, Value> =
        (1..=9).map(|n| (format!("cap{n}"), json!("1.0.0"))).collect();
    for (name, declared) in [("typo", json!({"kind": "App"})), ("many", json!({"uses": nine}))] {
        let mut manifest = json!({"name": name, "version": "1.0.0", "routines": {format!("{name}-probe"): "probe.ts"}});
        manifest.as_object_mut().unwrap().extend(declared.as_object().unwrap().clone());
        env.app(name, &manifest.to_string(), &[("probe.ts", &probe)]);
        let read = env.ok(&format!("{name}-probe"), json!({"names": ["openai.key"]}));
        assert!(read["openai.key"].as_str().unwrap().starts_with("NotGranted"), "{name}: {read}");
        assert_eq!(read["list"], json!([]), "{name}");
    }
    let list = env.json(&["app", "list"]);
    assert_eq!(list["unrestricted"], json!(["legacy"]), "{list}");
}

#[test]
fn secret_values_are_masked_in_logs_errors_and_the_audit_log() {
    let env = Env::new(runtimes()[0]);
    with_key_file(&env);
    packages(&env);
    set(&env, "openai.key", SECRET);
    let failed =
        env.routine("legacy-probe", &json!({"names": [], "leak": "openai.key"}).to_string());
    assert_eq!(failed["error"]["message"], "failed with [redacted]");
    let line = env.audit_lines().pop().unwrap();
    assert!(!line.contains(SECRET), "{line}");
    let record: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(record["log"], "stdout has [redacted]\nctx.log has [redacted]");
    assert!(grep(env.home.path(), SECRET).is_empty());
}

/// `GET /api/events` of a daemon, read on a thread until a run finishes: every event's JSON.
fn events_until_a_run(port: u16, owner: &str, ws: &str) -> std::thread::JoinHandle<Vec<Value>> {
    let mut stream = Http { port }.events(&format!("/api/events?workspace={ws}"), owner);
    std::thread::spawn(move || {
        let mut events = Vec::new();
        while let Some((event, _)) = stream.next() {
            let done = event["type"] == "run";
            events.push(event);
            if done {
                break;
            }
        }
        events
    })
}

#[test]
fn multi_line_and_quoted_secrets_are_masked_in_the_output_stream_and_the_audit_log() {
    let env = Env::new(runtimes()[0]);
    with_key_file(&env);
    let pem = "-----BEGIN TEST KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n-----END TEST KEY-----";
    let quoted = r#"pa"ss\word-4242"#;
    set(&env, "vault.pem", pem);
    set(&env, "vault.quoted", quoted);
    set(&env, "vault.short", "abc");
    env.app("vault", r#"{"name": "vault", "version": "1.0.0", "routines": {"vault-leak": "leak.ts"}}"#, &[("leak.ts", r#"export default (_a: any, ctx: any) => {
  const pem = ctx.secrets.get("vault.pem"), quoted = ctx.secrets.get("vault.quoted"), short = ctx.secrets.get("vault.short");
  console.log(pem);
  console.error("quoted:", quoted);
  ctx.log("pem:", pem, "short:", short);
  return { pem, quoted };
};
"#)]);
    let daemon = env.daemon(&[]);
    let owner = env.owner_token();
    let events = events_until_a_run(daemon.port, &owner, &path_str(&env.ws_path()));
    let result = env.ok("vault-leak", json!({}));
    assert_eq!(
        result,
        json!({"pem": pem, "quoted": quoted}),
        "the caller gets what the routine returned"
    );

    let lines: Vec<(String, String)> = events
        .join()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "log")
        .map(|e| {
            (e["stream"].as_str().unwrap().to_string(), e["line"].as_str().unwrap().to_string())
        })
        .collect();
    let expected = [
        ("stdout", "[redacted]"),
        ("stdout", "[redacted]"),
        ("stdout", "[redacted]"),
        ("stderr", "quoted: [redacted]"),
        ("log", "pem: [redacted] short: abc"),
    ];
    assert_eq!(
        lines,
        expected.map(|(s, l)| (s.to_string(), l.to_string())),
        "the Output stream, line by line, labelled, in the routine's order"
    );
    let line = env.audit_lines().pop().unwrap();
    for leak in ["MIIEvQIBADANBgkqhkiG9w0B", "pa\\\"ss\\\\word-4242", "TEST KEY"] {
        assert!(!line.contains(leak), "{leak} in {line}");
    }
    let record: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(record["result"], r#"{"pem":"[redacted]","quoted":"[redacted]"}"#);
}

#[test]
fn a_failed_runs_event_says_why_masked() {
    let env = Env::new(runtimes()[0]);
    with_key_file(&env);
    set(&env, "vault.key", SECRET);
    env.app("vault", r#"{"name": "vault", "version": "1.0.0", "routines": {"vault-fail": "fail.ts"}}"#, &[("fail.ts", "export default (_a: any, ctx: any) => { throw ctx.error('Refused', `the key ${ctx.secrets.get('vault.key')} was refused`); };\n")]);
    let daemon = env.daemon(&[]);
    let owner = env.owner_token();
    let events = events_until_a_run(daemon.port, &owner, &path_str(&env.ws_path()));
    let failed = env.routine("vault-fail", "{}");
    assert_eq!(failed["error"]["name"], "Refused", "{failed}");
    let run = events.join().unwrap().into_iter().find(|e| e["type"] == "run").unwrap();
    assert_eq!(
        (&run["status"], &run["error"]),
        (&json!("error"), &json!({"name": "Refused", "message": "the key [redacted] was refused"})),
        "{run}"
    );
}

/// A one-request-at-a-time HTTP server answering `statuses` in turn (a 429 with `Retry-After: 0`):
/// every request it got, head and body, as text.
fn recording_server(
    statuses: &'static [u16],
) -> (std::net::TcpListener, u16, std::thread::JoinHandle<Vec<String>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let serving = listener.try_clone().unwrap();
    let handle = std::thread::spawn(move || {
        let mut requests = Vec::new();
        for status in statuses {
            let (mut stream, _) = serving.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut request, mut line, mut length) = (String::new(), String::new(), 0);
            while reader.read_line(&mut line).unwrap() > 2 {
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap();
                }
                request.push_str(&line);
                line.clear();
            }
            let mut body = vec![0; length];
            std::io::Read::read_exact(&mut reader, &mut body).unwrap();
            requests.push(format!("{request}\n{}", String::from_utf8(body).unwrap()));
            let retry = if *status == 429 { "Retry-After: 0\r\n" } else { "" };
            write!(
                stream,
                "HTTP/1.1 {status} X\r\n{retry}Content-Length: 0\r\nConnection: close\r\n\r\n"
            )
            .unwrap();
        }
        requests
    });
    (listener, port, handle)
}

#[test]
fn credential_fetch_needs_the_key_sends_json_and_retries_429() {
    let env = Env::new(runtimes()[0]);
    with_key_file(&env);
    packages(&env);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://127.0.0.1:{}/v1/items", listener.local_addr().unwrap().port());
    let not_connected = env.ok("acme-post", json!({"url": url}));
    assert_eq!(not_connected, "NotConnected: acme is not connected: connect it in Manage Workspace › Components › Credentials, from the app's pane, or with `cowork credential connect acme --field token`");
    assert_eq!(
        listener.accept().unwrap_err().kind(),
        std::io::ErrorKind::WouldBlock,
        "nothing was sent"
    );

    assert!(env.connect_key("acme", "token", SECRET).status.success());
    for retries in [json!(5), json!(-1), json!(1.5)] {
        assert_eq!(
            env.ok("acme-post", json!({"url": url, "retries": retries})),
            "BadRequest: credential.fetch: retries is a whole number from 0 to 4"
        );
    }
    let (_listener, port, server) = recording_server(&[429, 200]);
    assert_eq!(
        env.ok("acme-post", json!({"url": format!("http://127.0.0.1:{port}/v1/items")})),
        json!({"status": 200}),
        "a 429 is waited out and retried"
    );
    let requests = server.join().unwrap();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert!(request.starts_with("POST /v1/items "), "{request}");
        assert!(
            request.to_ascii_lowercase().contains("content-type: application/json"),
            "{request}"
        );
        assert!(request.ends_with("\n{\"hello\":\"world\"}"), "{request}");
        assert!(!request.contains(SECRET), "a key sends nothing by itself: {request}");
    }
}

/// The key-credential API of the daemon: the owner's routes and a pane's, never the key.
#[test]
fn the_daemon_credential_api_never_returns_a_key() {
    let env = Env::new(runtimes()[0]);
    with_key_file(&env);
    packages(&env);
    env.app("other", r#"{"name": "other", "version": "1.0.0", "kind": "capability", "credential": {"key": {"fields": ["pin"]}}}"#, &[]);
    env.app(
        "desk",
        r#"{"name": "desk", "version": "1.0.0", "uses": {"acme": "1.0.0"}, "entry": "desk.jsx"}"#,
        &[("desk.jsx", "export default () => null\n")],
    );
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let host = format!("127.0.0.1:{}", daemon.port);
    let owner = env.owner_token();
    let ws = path_str(&env.ws_path());

    let (status, _, body) = http.call(
        "GET",
        &host,
        &format!("/api/credentials?workspace={ws}&name=acme"),
        Some(&owner),
        None,
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"name": "acme", "kind": "key", "state": "not-connected", "missingScopes": [], "usedBy": ["acme"], "fields": ["token"], "url": "https://acme.example/keys", "hint": "Settings › API"})
    );
    assert_eq!(
        http.call(
            "GET",
            &host,
            &format!("/api/credentials?workspace={ws}&name=nope"),
            Some(&owner),
            None
        )
        .0,
        404
    );
    let (status, _, body) = http.call(
        "POST",
        &host,
        "/api/credentials/connect",
        Some(&owner),
        Some(&json!({"workspace": ws, "name": "acme", "fields": {"token": SECRET}})),
    );
    assert_eq!(
        (status, serde_json::from_str::<Value>(&body).unwrap()["state"].clone()),
        (200, json!("connected")),
        "{body}"
    );
    assert!(!body.contains(SECRET), "{body}");
    let (status, _, body) = http.call(
        "POST",
        &host,
        "/api/credentials/connect",
        Some(&owner),
        Some(&json!({"workspace": ws, "name": "acme", "fields": {"secret": "x"}})),
    );
    assert_eq!(
        (status, serde_json::from_str::<Value>(&body).unwrap()["error"]["message"].clone()),
        (400, json!("\"acme\" takes the fields token; \"secret\" is not one of them"))
    );

    // A pane shows a widget file of its own app, never a file outside its folder.
    std::fs::write(env.file(".cowork/outside.jsx"), "export default () => null;\n").unwrap();
    for file in ["../../outside.jsx".to_string(), path_str(&env.file(".cowork/outside.jsx"))] {
        let (status, _, body) = http.call(
            "POST",
            &host,
            "/api/panes",
            Some(&owner),
            Some(&json!({"workspace": ws, "app": "desk", "file": file})),
        );
        assert_eq!(status, 400, "{file}: {body}");
        assert!(body.contains("is outside the folder of desk"), "{body}");
    }

    // A pane reaches the connections of the capabilities its app uses, and only those.
    let (_, _, body) = http.call(
        "POST",
        &host,
        "/api/panes",
        Some(&owner),
        Some(&json!({"workspace": ws, "app": "desk", "file": "desk.jsx"})),
    );
    let pane =
        serde_json::from_str::<Value>(&body).unwrap()["paneToken"].as_str().unwrap().to_string();
    let (_, _, body) = http.call(
        "POST",
        &host,
        "/api/sdk/credentials.get",
        Some(&pane),
        Some(&json!({"name": "acme"})),
    );
    let got: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (&got["ok"], &got["result"]["state"], &got["result"]["fields"]),
        (&json!(true), &json!("connected"), &json!(["token"])),
        "{body}"
    );
    assert!(!body.contains(SECRET), "{body}");
    let (_, _, body) = http.call(
        "POST",
        &host,
        "/api/sdk/credentials.connect",
        Some(&pane),
        Some(&json!({"name": "acme", "fields": {"token": "sk-new-9999"}})),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["result"]["state"],
        "connected",
        "{body}"
    );
    assert!(!body.contains("sk-new-9999"), "{body}");
    for fields in [json!({"token": 123}), json!("x"), json!(["token"])] {
        let (_, _, body) = http.call(
            "POST",
            &host,
            "/api/sdk/credentials.connect",
            Some(&pane),
            Some(&json!({"name": "acme", "fields": fields})),
        );
        let error = serde_json::from_str::<Value>(&body).unwrap()["error"].clone();
        assert_eq!(
            error["name"], "BadRequest",
            "malformed fields {fields} are not a sign-in: {body}"
        );
        assert!(error["message"].as_str().unwrap().contains("leave them out to sign in"), "{body}");
    }
    let (_, _, body) = http.call(
        "POST",
        &host,
        "/api/sdk/credentials.get",
        Some(&pane),
        Some(&json!({"name": "other"})),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["error"],
        json!({"name": "NotFound", "message": "desk uses no capability with a connection named \"other\" (add the capability to \"uses\" in its cowork.json)"})
    );
    assert_eq!(env.ok("acme-call", json!({"status": true})), json!({"connected": true}));
}

/// A one-request-at-a-time HTTP server: answers 503 to the first `fail` requests, then 200 with the
/// Authorization header it got.
fn flaky_server(fail: usize) -> (u16, std::thread::JoinHandle<usize>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = std::thread::spawn(move || {
        let mut served = 0;
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut auth = String::new();
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap() > 2 {
                if line.to_ascii_lowercase().starts_with("authorization:") {
                    auth = line[14..].trim().to_string();
                }
                line.clear();
            }
            served += 1;
            let (status, body) = if served <= fail {
                ("503 Service Unavailable", String::from("busy"))
            } else {
                ("200 OK", auth)
            };
            write!(stream, "HTTP/1.1 {status}\r\nContent-Length: {}\r\nRetry-After: 0\r\nConnection: close\r\n\r\n{body}", body.len()).unwrap();
            if served > fail {
                return served;
            }
        }
        served
    });
    (port, handle)
}

#[test]
fn a_key_credential_end_to_end() {
    let env = Env::new(runtimes()[0]);
    with_key_file(&env);
    packages(&env);
    let listed: Value = env.json(&["credential", "list"]);
    assert_eq!(
        listed,
        json!([{"name": "acme", "kind": "key", "state": "not-connected", "missingScopes": [], "usedBy": ["acme"], "fields": ["token"], "url": "https://acme.example/keys", "hint": "Settings › API"}])
    );

    let not_connected = env.routine("acme-call", r#"{"url": "http://127.0.0.1:9/"}"#);
    assert_eq!(not_connected["error"]["name"], "NotConnected");
    assert_eq!(not_connected["error"]["message"], "acme is not connected: connect it in Manage Workspace › Components › Credentials, from the app's pane, or with `cowork credential connect acme --field token`");
    assert_eq!(
        env.routine("board-call", "{}")["error"]["name"],
        "NotGranted",
        "an app's routine reaches no credential"
    );
    let plain = env.routine("plain-call", "{}");
    assert_eq!((plain["error"]["name"].as_str(), plain["error"]["message"].as_str()), (Some("NotConnected"), Some("plain declares no \"credential\" in its cowork.json, so it has no connection to use")));

    let wrong = env.connect_key("acme", "secret", "x");
    assert_eq!(wrong.status.code(), Some(2));
    assert!(
        stderr(&wrong).contains("\"acme\" takes the fields token; \"secret\" is not one of them"),
        "{}",
        stderr(&wrong)
    );
    let connected = env.connect_key("acme", "token", SECRET);
    assert_eq!(stdout(&connected), "Connected acme (used by acme).\n", "{}", stderr(&connected));
    assert_eq!(env.json(&["credential", "list"])[0]["state"], "connected");
    assert_eq!(env.ok("acme-call", json!({"status": true})), json!({"connected": true}));

    let (port, server) = flaky_server(2);
    let fetched = env.ok("acme-call", json!({"url": format!("http://127.0.0.1:{port}/v1/me")}));
    assert_eq!(
        fetched,
        json!({"status": 200, "body": format!("Bearer {SECRET}")}),
        "two 503s retried (default retries: 2)"
    );
    assert_eq!(server.join().unwrap(), 3);
    let (port, server) = flaky_server(1);
    let no_retry =
        env.ok("acme-call", json!({"url": format!("http://127.0.0.1:{port}/"), "retries": 0}));
    assert_eq!(no_retry["status"], 503, "retries: 0 never repeats");
    drop(server);

    assert_eq!(
        stdout(&env.run(&["credential", "disconnect", "acme"])),
        "Disconnected acme (for acme).\n"
    );
    // `--field token` alone reads the value from stdin, out of shell history.
    let mut piped = env
        .cmd(&["credential", "connect", "acme", "--field", "token"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    piped.stdin.take().unwrap().write_all(b"from-stdin-9876\n").unwrap();
    assert!(piped.wait_with_output().unwrap().status.success());
    assert_eq!(env.ok("acme-call", json!({"status": true})), json!({"connected": true}));
    env.run(&["credential", "disconnect", "acme"]);
    assert_eq!(
        env.routine("acme-call", r#"{"url": "http://127.0.0.1:9/"}"#)["error"]["name"],
        "NotConnected"
    );
    assert_eq!(
        env.run(&["credential", "connect", "nope", "--field", "token=x"]).status.code(),
        Some(3)
    );
}

#[test]
fn credential_connect_on_a_terminal_prompts_without_echoing_the_key() {
    let env = Env::new(runtimes()[0]);
    with_key_file(&env);
    packages(&env);
    // A pseudo-terminal as stdin, stdout and stderr: what the person sees is everything it printed.
    let script = r#"
import os, pty, sys, termios, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "credential", "connect", "acme", "--field", "token"])
seen = b""
def read_until(needle, limit=20):
    global seen
    end = time.time() + limit
    while needle not in seen and time.time() < end:
        try:
            seen += os.read(fd, 1024)
        except OSError:
            break
read_until(b"token: ")
# The prompt is printed just before echo goes off: type only once it is off, as a person would.
end = time.time() + 10
while termios.tcgetattr(fd)[3] & termios.ECHO and time.time() < end:
    time.sleep(0.01)
os.write(fd, sys.argv[2].encode() + b"\n")
read_until(b"Connected")
read_until(b"\n", 2) if not seen.endswith(b"\n") else None
os.waitpid(pid, 0)
sys.stdout.write(seen.decode(errors="replace"))
"#;
    let out = env.cmd(&[]).get_program().to_owned();
    let ran = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&out)
        .arg(SECRET)
        .current_dir(env.ws.path())
        .env("COWORK_HOME", env.home.path())
        .output()
        .unwrap();
    let seen = String::from_utf8_lossy(&ran.stdout);
    assert!(seen.contains("acme's token: "), "a prompt: {seen:?} {}", stderr(&ran));
    assert!(!seen.contains(SECRET), "the key is not echoed: {seen:?}");
    assert!(seen.contains("Connected acme"), "{seen:?}");
    assert_eq!(env.ok("acme-call", json!({"status": true}))["connected"], true);
}

#[test]
fn a_nested_runs_secrets_are_masked_in_its_callers_record() {
    let env = Env::new(runtimes()[0]);
    with_key_file(&env);
    packages(&env);
    env.app("relay", r#"{"name": "relay", "version": "1.0.0", "uses": {"acme": "1.0.0"}, "routines": {"relay-probe": "relay.ts"}}"#, &[("relay.ts", r#"export default async (_a: any, ctx: any) => {
  const got = await ctx.routines.run("acme-probe", { names: ["acme.user_id"] });
  ctx.log("got", got["acme.user_id"]);
  return got;
};
"#)]);
    set(&env, "acme.user_id", SECRET);
    let result = env.ok("relay-probe", json!({}));
    assert_eq!(result["acme.user_id"], SECRET, "the caller gets the value itself");
    let lines = env.audit_lines();
    assert_eq!(lines.len(), 2, "{lines:?}");
    for line in &lines {
        assert!(!line.contains(SECRET), "{line}");
    }
    let caller: Value = serde_json::from_str(&lines[1]).unwrap();
    assert_eq!(
        (caller["capability"].as_str(), caller["log"].as_str()),
        (Some("relay-probe"), Some("got [redacted]"))
    );
    assert!(
        caller["result"].as_str().unwrap().contains(r#""acme.user_id":"[redacted]""#),
        "{caller}"
    );
}

#[test]
fn status_and_doctor_show_the_daemons_key_mode_and_flag_a_different_one() {
    let env = Env::new(runtimes()[0]);
    let key_file = env.home.path().join("elsewhere.key");
    let init = env
        .cmd(&["secrets", "init", "--key-file"])
        .env("COWORK_SECRETS_KEY_FILE", &key_file)
        .output()
        .unwrap();
    assert!(init.status.success(), "{}", stderr(&init));
    let _daemon = env.daemon_with(&[], &[("COWORK_SECRETS_KEY_FILE", &key_file)]);

    let status = env.json(&["status"]);
    assert_eq!(status["daemon"]["secrets"]["mode"], "key-file", "{status}");
    assert_eq!(
        status["daemon"]["secrets"]["detail"],
        format!("the key file {} (from COWORK_SECRETS_KEY_FILE)", key_file.display())
    );
    assert_eq!(status["daemon"]["secrets"]["ok"], true);
    assert_eq!(status["secretsDiffer"], true, "{status}");
    let text = stdout(&env.run(&["status"]));
    assert!(
        text.contains(&format!(
            "daemon secrets: key-file (the key file {} (from COWORK_SECRETS_KEY_FILE))",
            key_file.display()
        )),
        "{text}"
    );
    assert!(
        text.contains("start both with the same COWORK_SECRETS_KEY_FILE (or neither)"),
        "{text}"
    );
    let doctor = stdout(&env.run(&["doctor"]));
    assert!(
        doctor.lines().any(|l| l.starts_with("warn secrets")
            && l.contains("the running daemon reads the key from the key file")),
        "{doctor}"
    );

    // The same variable for the CLI: nothing to flag.
    let same =
        env.cmd(&["status", "--json"]).env("COWORK_SECRETS_KEY_FILE", &key_file).output().unwrap();
    let same: Value = serde_json::from_slice(&same.stdout).unwrap();
    assert_eq!(same["secretsDiffer"], false, "{same}");
}

#[test]
fn the_daemon_follows_a_key_file_made_while_it_runs() {
    if std::env::var_os("COWORK_TEST_KEYRING").is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs the CLI tests under scripts/with-keyring"
        );
        eprintln!("skipped the_daemon_follows_a_key_file_made_while_it_runs: run it under scripts/with-keyring");
        return;
    }
    let env = Env::new(runtimes()[0]);
    packages(&env);
    let _daemon = env.daemon(&[]);
    // The daemon opens the store in keychain mode (no key yet) and keeps it.
    assert_eq!(env.ok("legacy-probe", json!({"names": ["openai.key"]}))["openai.key"], "unset");
    with_key_file(&env);
    set(&env, "openai.key", SECRET);
    assert_eq!(
        env.ok("legacy-probe", json!({"names": ["openai.key"]}))["openai.key"],
        SECRET,
        "the daemon reads the key file made since"
    );
}
