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
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&provider.config_file).unwrap()).unwrap();
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

    let mut connect = env
        .cmd(&["credential", "connect", "google"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut auth_url = String::new();
    BufReader::new(connect.stdout.as_mut().unwrap()).read_line(&mut auth_url).unwrap();
    let auth_url = auth_url.trim().to_string();
    let redirect_uri = url_param(&auth_url, "redirect_uri");
    assert!(
        redirect_uri.starts_with("http://127.0.0.1:") && redirect_uri.ends_with("/oauth/callback"),
        "{redirect_uri}"
    );
    assert!(url_param(&auth_url, "scope").split(' ').any(|s| s == "calendar.read"));
    let page =
        Browser::new().sign_in(&auth_url, &redirect_uri, "ana@example.com", Consent::Allow).await;
    assert_eq!(page.status(), 200);
    let out = connect.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(stdout(&out), "Connected google as ana@example.com (used by gcal).\n");

    let listed = env.json(&["credential", "list"]);
    assert_eq!(
        (&listed[0]["kind"], &listed[0]["state"], &listed[0]["account"]),
        (&json!("oauth"), &json!("connected"), &json!({"email": "ana@example.com"}))
    );
    let used = env.ok("gcal-token", json!({}));
    assert!(used["length"].as_u64().unwrap() > 10, "{used}");
    assert_eq!(used["status"], json!({"connected": true, "account": {"email": "ana@example.com"}}));
    let record: serde_json::Value =
        serde_json::from_str(&env.audit_lines().pop().unwrap()).unwrap();
    assert_eq!(record["log"], "token [redacted]", "the token is masked");
    assert_eq!(
        env.ok("gcal-token", json!({"fetch": "https://example.com/"})),
        "Forbidden",
        "fetch reaches only the provider's API hosts"
    );

    // A 401 refreshes the token once and retries with the new one.
    let (port, server) = rejects_the_first_token();
    let fetched =
        env.ok("gcal-token", json!({"fetch": format!("http://127.0.0.1:{port}/calendar")}));
    let (first, second) = server.join().unwrap();
    assert_eq!(fetched["status"], 200, "{fetched}");
    assert!(
        first.starts_with("Bearer ") && second.starts_with("Bearer ") && first != second,
        "{first} / {second}"
    );

    assert_eq!(
        stdout(&env.run(&["credential", "disconnect", "google"])),
        "Disconnected google (for gcal).\n"
    );
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
            std::io::Write::write_all(
                &mut stream,
                format!("HTTP/1.1 {status}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
                    .as_bytes(),
            )
            .unwrap();
            seen.push(auth);
        }
        (seen[0].clone(), seen[1].clone())
    });
    (port, handle)
}

fn url_param(url: &str, name: &str) -> String {
    let query = url.split_once('?').map(|(_, q)| q).unwrap_or_default();
    let raw = query
        .split('&')
        .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
        .unwrap_or_default();
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

/// The provider's oauth.json for this env's root, and a secret store in key-file mode.
fn with_provider(env: &Env, provider: &crate::oauth_support::TestProvider) {
    std::fs::copy(&provider.config_file, env.home.path().join("oauth.json")).unwrap();
    assert!(env.run(&["secrets", "init", "--key-file"]).status.success());
}

/// A routine that drives its capability's connection: `start`, `token`, `status`, `disconnect`.
const CONNECT: &str = r#"export default async (args: any, ctx: any) => {
  try {
    if (args.op === "start") return await ctx.credential.start();
    if (args.op === "token") return await ctx.credential.token();
    if (args.op === "disconnect") return await ctx.credential.disconnect();
    return ctx.credential.status();
  } catch (e: any) { return `${e.name}: ${e.message}`; }
};
"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_routine_starts_the_shared_sign_in_for_every_scope_of_its_provider() {
    let Some(provider) = provider() else { return };
    let env = Env::new(runtimes()[0]);
    with_provider(&env, provider);
    // mail takes a sign-in or a key: alone it is one connection.
    env.app("mail", r#"{"name": "mail", "version": "1.0.0", "kind": "capability", "credential": {"oauth": {"provider": "google", "scopes": ["mail.read"]}, "key": {"fields": ["token"]}},
        "routines": {"mail-connect": "connect.ts"}}"#, &[("connect.ts", CONNECT)]);
    let names = |listed: &serde_json::Value| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&env.json(&["credential", "list"])), ["mail"]);
    env.app("gcal", r#"{"name": "gcal", "version": "0.1.0", "kind": "capability", "credential": {"oauth": {"provider": "google", "scopes": ["calendar.read"]}},
        "routines": {"gcal-connect": "connect.ts"}}"#, &[("connect.ts", CONNECT)]);
    assert_eq!(names(&env.json(&["credential", "list"])), ["google", "mail"]);

    // Without a daemon the sign-in's listener would end with this command: refused, saying why.
    assert_eq!(
        env.ok("mail-connect", json!({"op": "start"})),
        "NoDaemon: ctx.credential.start() needs the daemon, which keeps the sign-in's listener until the browser comes back: run `cowork start` and run the routine again, or connect from a terminal with `cowork credential connect mail`"
    );

    let _daemon = env.daemon(&[]);
    let started = env.ok("mail-connect", json!({"op": "start"}));
    let auth_url = started["authUrl"].as_str().unwrap_or_else(|| panic!("{started}")).to_string();
    let mut scopes: Vec<String> =
        url_param(&auth_url, "scope").split(' ').map(String::from).collect();
    scopes.sort();
    assert_eq!(
        scopes,
        ["calendar.read", "email", "mail.read", "offline_access", "openid"],
        "the union of gcal's and mail's scopes"
    );
    let redirect_uri = url_param(&auth_url, "redirect_uri");
    let browser = Browser::new();
    let callback =
        browser.sign_in(&auth_url, &redirect_uri, "ana@example.com", Consent::Allow).await;
    assert_eq!(callback.status(), 200);
    let signed_in = eventually(std::time::Duration::from_secs(10), || {
        env.ok("gcal-connect", json!({"op": "status"}))["connected"] == true
    });
    assert!(signed_in, "the sign-in finished in the daemon after the routine returned");

    let listed = env.json(&["credential", "list"]);
    assert_eq!(
        (&listed[0]["name"], &listed[0]["state"], &listed[0]["usedBy"]),
        (&json!("google"), &json!("connected"), &json!(["gcal", "mail"])),
        "{listed}"
    );
    assert_eq!(
        (&listed[1]["name"], &listed[1]["kind"], &listed[1]["state"]),
        (&json!("mail"), &json!("both"), &json!("connected")),
        "{listed}"
    );
    // The tokens are in the encrypted store only.
    let token = env.ok("gcal-connect", json!({"op": "token"}));
    let token = token.as_str().unwrap_or_else(|| panic!("{token}"));
    assert!(token.len() > 10);
    assert!(
        grep(env.home.path(), token).is_empty(),
        "the access token is on disk in plaintext: {:?}",
        grep(env.home.path(), token)
    );

    // Disconnecting from a routine forgets the shared sign-in for every capability that uses it.
    assert_eq!(env.ok("mail-connect", json!({"op": "disconnect"})), json!(null));
    assert_eq!(env.ok("gcal-connect", json!({"op": "status"})), json!({"connected": false}));
    assert!(env
        .ok("gcal-connect", json!({"op": "token"}))
        .as_str()
        .unwrap()
        .starts_with("NotConnected: google is not connected"));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_own_client_signs_in_through_a_routine_and_refreshes_when_its_token_expires() {
    let Some(provider) = provider() else { return };
    let env = Env::new(runtimes()[0]);
    with_provider(&env, provider);
    // `gcal-own` is the provider's client whose access tokens live 5 s (oauth.json's ownClients).
    env.app("gcal-own", r#"{"name": "gcal-own", "version": "0.1.0", "kind": "capability", "credential": {"oauth": {"provider": "google", "scopes": ["calendar.read"], "ownClient": true}},
        "routines": {"gcal-own-connect": "connect.ts"}}"#, &[("connect.ts", CONNECT)]);
    let _daemon = env.daemon(&[]);
    let started = env.ok("gcal-own-connect", json!({"op": "start"}));
    let auth_url = started["authUrl"].as_str().unwrap_or_else(|| panic!("{started}")).to_string();
    assert_eq!(
        url_param(&auth_url, "client_id"),
        "cowork-short",
        "its own client, not the shared one"
    );
    let page = Browser::new()
        .sign_in(
            &auth_url,
            &url_param(&auth_url, "redirect_uri"),
            "ana@example.com",
            Consent::Allow,
        )
        .await;
    assert_eq!(page.status(), 200);
    assert!(eventually(std::time::Duration::from_secs(10), || env
        .ok("gcal-own-connect", json!({"op": "status"}))["connected"]
        == true));
    let listed = env.json(&["credential", "list"]);
    assert_eq!(
        (&listed[0]["name"], &listed[0]["state"]),
        (&json!("gcal-own"), &json!("connected")),
        "{listed}"
    );

    let first = env.ok("gcal-own-connect", json!({"op": "token"}));
    std::thread::sleep(std::time::Duration::from_secs(6));
    let second = env.ok("gcal-own-connect", json!({"op": "token"}));
    assert!(
        first.as_str().is_some_and(|t| t.len() > 10)
            && second.as_str().is_some_and(|t| t.len() > 10),
        "{first} / {second}"
    );
    assert_ne!(first, second, "the expired access token was refreshed");
    assert_eq!(env.ok("gcal-own-connect", json!({"op": "status"}))["connected"], true);
}
