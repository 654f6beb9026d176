//! A sign-in end to end through the CLI and a routine, against a real OpenID provider
//! (oidc-provider on Node, the same harness cowork-oauth's own tests use).

use crate::oauth_support::{provider, Browser, Consent};
use crate::support::*;
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::process::Stdio;

#[tokio::test(flavor = "multi_thread")]
async fn connect_google_then_a_capability_uses_the_token() {
    let Some(provider) = provider() else { return };
    let env = Env::new(runtimes()[0]);
    // The provider's oauth.json, plus a loopback API host for the 401 test below.
    let mut config: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&provider.config_file).unwrap()).unwrap();
    config["providers"]["google"]["apiHosts"] = json!(["googleapis.com", "127.0.0.1"]);
    std::fs::write(env.home.path().join("oauth.json"), config.to_string()).unwrap();
    assert!(env.run(&["secrets", "init", "--key-file"]).status.success());
    env.app(
        "gcal",
        r#"{"name": "gcal", "version": "0.1.0", "kind": "capability", "credential": {"oauth": {"provider": "google", "scopes": ["calendar.read"]}},
            "routines": {"gcal-token": "token.ts"}}"#,
        &[("token.ts", r#"export default async (args: any, ctx: any) => {
  if (args.fetch) {
    try { const res = await ctx.credential.fetch(args.fetch); return { status: res.status, body: await res.text() }; } catch (e: any) { return e.name; }
  }
  const token = await ctx.credential.token();
  ctx.log("token", token);
  return { length: token.length, status: ctx.credential.status() };
};
"#)],
    );
    assert_eq!(env.json(&["credential", "list"])[0]["state"], "not-connected");
    let before = env.routine("gcal-token", "{}");
    assert_eq!(before["error"]["name"], "NotConnected", "{before}");

    let mut connect = env.cmd(&["credential", "connect", "google"]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut auth_url = String::new();
    BufReader::new(connect.stdout.as_mut().unwrap()).read_line(&mut auth_url).unwrap();
    let auth_url = auth_url.trim().to_string();
    let redirect_uri = url_param(&auth_url, "redirect_uri");
    assert!(redirect_uri.starts_with("http://127.0.0.1:") && redirect_uri.ends_with("/oauth/callback"), "{redirect_uri}");
    assert!(url_param(&auth_url, "scope").split(' ').any(|s| s == "calendar.read"));
    let page = Browser::new().sign_in(&auth_url, &redirect_uri, "ana@example.com", Consent::Allow).await;
    assert_eq!(page.status(), 200);
    let out = connect.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(stdout(&out), "Connected google as ana@example.com (used by gcal).\n");

    let listed = env.json(&["credential", "list"]);
    assert_eq!((&listed[0]["kind"], &listed[0]["state"], &listed[0]["account"]), (&json!("oauth"), &json!("connected"), &json!({"email": "ana@example.com"})));
    let used = env.ok("gcal-token", json!({}));
    assert!(used["length"].as_u64().unwrap() > 10, "{used}");
    assert_eq!(used["status"], json!({"connected": true, "account": {"email": "ana@example.com"}}));
    let record: serde_json::Value = serde_json::from_str(&env.audit_lines().pop().unwrap()).unwrap();
    assert_eq!(record["log"], "token [redacted]", "the token is masked");
    assert_eq!(env.ok("gcal-token", json!({"fetch": "https://example.com/"})), "Forbidden", "fetch reaches only the provider's API hosts");

    // A 401 refreshes the token once and retries with the new one.
    let (port, server) = rejects_the_first_token();
    let fetched = env.ok("gcal-token", json!({"fetch": format!("http://127.0.0.1:{port}/calendar")}));
    let (first, second) = server.join().unwrap();
    assert_eq!(fetched["status"], 200, "{fetched}");
    assert!(first.starts_with("Bearer ") && second.starts_with("Bearer ") && first != second, "{first} / {second}");

    assert_eq!(stdout(&env.run(&["credential", "disconnect", "google"])), "Disconnected google (for gcal).\n");
    assert_eq!(env.routine("gcal-token", "{}")["error"]["name"], "NotConnected");
}

/// An API that answers 401 to the first bearer it sees and 200 to the next one: the two it got.
fn rejects_the_first_token() -> (u16, std::thread::JoinHandle<(String, String)>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for stream in listener.incoming().take(2) {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            let mut auth = String::new();
            while reader.read_line(&mut line).unwrap() > 2 {
                if line.to_ascii_lowercase().starts_with("authorization:") {
                    auth = line[14..].trim().to_string();
                }
                line.clear();
            }
            let status = if seen.is_empty() { "401 Unauthorized" } else { "200 OK" };
            std::io::Write::write_all(&mut stream, format!("HTTP/1.1 {status}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok").as_bytes()).unwrap();
            seen.push(auth);
        }
        (seen[0].clone(), seen[1].clone())
    });
    (port, handle)
}

fn url_param(url: &str, name: &str) -> String {
    let query = url.split_once('?').map(|(_, q)| q).unwrap_or_default();
    let raw = query.split('&').find_map(|pair| pair.strip_prefix(&format!("{name}="))).unwrap_or_default();
    let mut out = Vec::new();
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                out.push(u8::from_str_radix(&raw[i + 1..i + 3], 16).unwrap());
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap()
}
