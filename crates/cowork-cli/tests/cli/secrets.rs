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
    assert_eq!(std::fs::metadata(env.home.path().join("secrets.key")).unwrap().permissions().mode() & 0o777, 0o600);
}

pub(crate) fn set(env: &Env, name: &str, value: &str) {
    let mut child = env.cmd(&["secrets", "set", name, "--stdin"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(format!("{value}\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// Every file under `dir` (the Cowork root), searched for `needle`.
fn grep(dir: &std::path::Path, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            hits.extend(grep(&path, needle));
        } else if std::fs::read(&path).unwrap_or_default().windows(needle.len()).any(|w| w == needle.as_bytes()) {
            hits.push(path.display().to_string());
        }
    }
    hits
}

#[test]
fn the_cli_keeps_values_off_argv_and_off_disk() {
    let env = Env::new(runtimes()[0]);
    with_key_file(&env);
    set(&env, "openai.key", SECRET);
    assert_eq!(stdout(&env.run(&["secrets", "list"])), "openai.key\n");
    assert_eq!(stdout(&env.run(&["secrets", "get", "openai.key"])), format!("{SECRET}\n"));
    assert!(grep(env.home.path(), SECRET).is_empty(), "plaintext on disk: {:?}", grep(env.home.path(), SECRET));

    let no_stdin = env.run(&["secrets", "set", "openai.other"]);
    assert_eq!(no_stdin.status.code(), Some(2));
    assert!(stderr(&no_stdin).contains("hint: pass the value on stdin with --stdin"), "{}", stderr(&no_stdin));
    let reserved = env.cmd(&["secrets", "set", "cowork.openrouter", "--stdin"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(reserved.status.code(), Some(2), "{}", stderr(&reserved));
    let bad = env.run(&["secrets", "get", "9lives"]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert_eq!(env.run(&["secrets", "get", "missing.name"]).status.code(), Some(3));
    assert!(env.run(&["secrets", "delete", "openai.key"]).status.success());
    assert_eq!(stdout(&env.run(&["secrets", "list"])), "");
    let again = env.run(&["secrets", "init", "--key-file"]);
    assert_eq!(again.status.code(), Some(1), "the key file is never overwritten: {}", stderr(&again));
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
    env.app("legacy", r#"{"name": "legacy", "version": "1.0.0", "routines": {"legacy-probe": "probe.ts"}}"#, &[("probe.ts", probe)]);
    env.app("acme", r#"{"name": "acme", "version": "1.0.0", "kind": "capability", "credential": {"key": {"fields": ["token"], "url": "https://acme.example/keys", "hint": "Settings › API"}},
        "routines": {"acme-probe": "probe.ts", "acme-call": "call.ts"}}"#, &[("probe.ts", probe), ("call.ts", r#"export default async (args: any, ctx: any) => {
  if (args.status) return ctx.credential.status();
  const { token } = ctx.credential.fields();
  const res = await ctx.credential.fetch(args.url, { headers: { authorization: `Bearer ${token}` }, retries: args.retries });
  return { status: res.status, body: await res.text() };
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
    assert_eq!((&legacy["openai.key"], &legacy["acme.user_id"], &legacy["cowork.openrouter"], &legacy["wrote"]), (&json!(SECRET), &json!("u-12345"), &json!("unset"), &json!(true)));

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
}

#[test]
fn secret_values_are_masked_in_logs_errors_and_the_audit_log() {
    let env = Env::new(runtimes()[0]);
    with_key_file(&env);
    packages(&env);
    set(&env, "openai.key", SECRET);
    let failed = env.routine("legacy-probe", &json!({"names": [], "leak": "openai.key"}).to_string());
    assert_eq!(failed["error"]["message"], "failed with [redacted]");
    let line = env.audit_lines().pop().unwrap();
    assert!(!line.contains(SECRET), "{line}");
    let record: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(record["log"], "stdout has [redacted]\nctx.log has [redacted]");
    assert!(grep(env.home.path(), SECRET).is_empty());
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
            let (status, body) = if served <= fail { ("503 Service Unavailable", String::from("busy")) } else { ("200 OK", auth) };
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
    assert_eq!(listed, json!([{"name": "acme", "kind": "key", "state": "not-connected", "missingScopes": [], "usedBy": ["acme"], "fields": ["token"], "url": "https://acme.example/keys", "hint": "Settings › API"}]));

    let not_connected = env.routine("acme-call", r#"{"url": "http://127.0.0.1:9/"}"#);
    assert_eq!(not_connected["error"]["name"], "NotConnected");
    assert_eq!(not_connected["error"]["message"], "acme is not connected: connect it in Manage Workspace › Components › Credentials, from the app's pane, or with `cowork credential connect acme --field token=…`");
    assert_eq!(env.routine("board-call", "{}")["error"]["name"], "NotGranted", "an app's routine reaches no credential");
    let plain = env.routine("plain-call", "{}");
    assert_eq!((plain["error"]["name"].as_str(), plain["error"]["message"].as_str()), (Some("NotConnected"), Some("plain declares no \"credential\" in its cowork.json, so it has no connection to use")));

    let wrong = env.run(&["credential", "connect", "acme", "--field", "secret=x"]);
    assert_eq!(wrong.status.code(), Some(2));
    assert!(stderr(&wrong).contains("\"acme\" takes the fields token; \"secret\" is not one of them"), "{}", stderr(&wrong));
    let connected = env.run(&["credential", "connect", "acme", "--field", &format!("token={SECRET}")]);
    assert_eq!(stdout(&connected), "Connected acme (used by acme).\n", "{}", stderr(&connected));
    assert_eq!(env.json(&["credential", "list"])[0]["state"], "connected");
    assert_eq!(env.ok("acme-call", json!({"status": true})), json!({"connected": true}));

    let (port, server) = flaky_server(2);
    let fetched = env.ok("acme-call", json!({"url": format!("http://127.0.0.1:{port}/v1/me")}));
    assert_eq!(fetched, json!({"status": 200, "body": format!("Bearer {SECRET}")}), "two 503s retried (default retries: 2)");
    assert_eq!(server.join().unwrap(), 3);
    let (port, server) = flaky_server(1);
    let no_retry = env.ok("acme-call", json!({"url": format!("http://127.0.0.1:{port}/"), "retries": 0}));
    assert_eq!(no_retry["status"], 503, "retries: 0 never repeats");
    drop(server);

    assert_eq!(stdout(&env.run(&["credential", "disconnect", "acme"])), "Disconnected acme (for acme).\n");
    // `--field token` alone reads the value from stdin, out of shell history.
    let mut piped = env.cmd(&["credential", "connect", "acme", "--field", "token"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    piped.stdin.take().unwrap().write_all(b"from-stdin-9876\n").unwrap();
    assert!(piped.wait_with_output().unwrap().status.success());
    assert_eq!(env.ok("acme-call", json!({"status": true})), json!({"connected": true}));
    env.run(&["credential", "disconnect", "acme"]);
    assert_eq!(env.routine("acme-call", r#"{"url": "http://127.0.0.1:9/"}"#)["error"]["name"], "NotConnected");
    assert_eq!(env.run(&["credential", "connect", "nope", "--field", "token=x"]).status.code(), Some(3));
}
