//! The daemon's side of the desktop shell, through a real daemon: the one desktop channel, "show"
//! requests from a second launch or `cowork open`, the active workspace (only its notifications
//! are delivered, until the shell goes away), and `cowork open` starting the desktop app.

use crate::support::*;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

const PING: &str = r#"{ "name": "ping", "version": "1.0.0", "title": "Ping", "routines": { "ping-send": "send.ts" } }"#;
const SEND: &str = "export default async (args: any, ctx: any) => { await ctx.notify({ title: args.title }); return 'sent'; };\n";

/// A request on its own connection; the raw response (head and body).
fn call(port: u16, token: &str, method: &str, path: &str, body: Option<Value>) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(stream, "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

/// Holds `GET /api/desktop/requests` open, as a shell does.
struct Channel {
    reader: BufReader<TcpStream>,
    status: u16,
}

impl Channel {
    fn open(port: u16, token: &str) -> Channel {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(stream, "GET /api/desktop/requests HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\r\n").unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut reader = BufReader::new(stream);
        let mut status_line = String::new();
        reader.read_line(&mut status_line).unwrap();
        Channel { status: status_line[9..12].parse().unwrap(), reader }
    }

    /// The next request the daemon forwarded.
    fn next(&mut self) -> Value {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.reader.read_line(&mut line).unwrap() > 0, "the channel closed");
            if let Some(data) = line.strip_prefix("data: ") {
                return serde_json::from_str(data.trim()).unwrap();
            }
        }
    }
}

fn health(port: u16, token: &str) -> Value {
    let response = call(port, token, "GET", "/api/health", None);
    serde_json::from_str(response.split_once("\r\n\r\n").unwrap().1).unwrap()
}

fn bell(env: &Env, ws: &std::path::Path) -> Vec<String> {
    let status: Value = serde_json::from_str(&stdout(&env.run(&["status", "--json"]))).unwrap();
    let workspaces = status["daemon"]["workspaces"].as_array().cloned().unwrap_or_default();
    let this = workspaces.iter().find(|w| w["path"].as_str() == Some(&path_str(ws)));
    this.map(|w| {
        w["notifications"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["title"].as_str().unwrap().to_string())
            .collect()
    })
    .unwrap_or_default()
}

fn send(env: &Env, ws: &std::path::Path, title: &str) {
    let out = env.run(&[
        "routine",
        "run",
        "ping-send",
        "--args",
        &json!({ "title": title }).to_string(),
        "--workspace",
        &path_str(ws),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn one_desktop_shell_takes_show_requests_and_names_the_active_workspace() {
    let env = Env::new(runtimes()[0]);
    env.app("ping", PING, &[("send.ts", SEND)]);
    let other = Env::new(env.runtime);
    other.app("ping", PING, &[("send.ts", SEND)]);
    let (ws, other_ws) = (env.ws_path(), other.ws_path());
    let daemon = env.daemon(&[]);
    let token = env.owner_token();
    assert_eq!(health(daemon.port, &token)["desktop"], false);

    // No shell: `cowork open` cannot show one (and with no display and no desktop app installed it
    // falls back to the workbench address through the running daemon).
    let refused = call(daemon.port, &token, "POST", "/api/desktop/show", Some(json!({})));
    assert!(
        refused.starts_with("HTTP/1.1 409") && refused.contains("desktop app is not running"),
        "{refused}"
    );

    let mut shell = Channel::open(daemon.port, &token);
    assert_eq!(shell.status, 200);
    assert_eq!(health(daemon.port, &token)["desktop"], true);
    let doctor = stdout(&env.run(&["doctor"]));
    assert!(
        doctor.contains("ok   desktop  Cowork Studio is running (attached to the daemon)"),
        "{doctor}"
    );
    let second = Channel::open(daemon.port, &token);
    assert_eq!(second.status, 409, "one desktop shell per daemon");

    // `cowork open` (what a second launch does too) reaches the shell, with the canonical folder.
    let opened = env
        .cmd(&["open", "--workspace", &path_str(&other_ws)])
        .env("COWORK_DESKTOP_BIN", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(
        stdout(&opened).trim(),
        format!("Cowork Studio: showing {}", other_ws.display()),
        "{}",
        stderr(&opened)
    );
    assert_eq!(shell.next(), json!({ "type": "show", "workspace": path_str(&other_ws) }));

    // The active workspace: only its notifications are delivered; the other's calls still resolve.
    let active =
        call(daemon.port, &token, "POST", "/api/desktop/active", Some(json!({ "workspace": ws })));
    assert!(active.starts_with("HTTP/1.1 200") && active.contains(r#""total":0"#), "{active}");
    send(&env, &ws, "to the active one");
    send(&env, &other_ws, "to the other one");
    assert_eq!(bell(&env, &ws), ["to the active one"]);
    assert!(bell(&env, &other_ws).is_empty(), "another workspace's notification is dropped");

    // The shell goes away: the choice ends with it, so nothing stays silenced.
    drop(shell);
    assert!(
        eventually(Duration::from_secs(15), || health(daemon.port, &token)["desktop"] == false),
        "a closed channel detaches the shell"
    );
    send(&env, &other_ws, "after the shell left");
    assert_eq!(bell(&env, &other_ws), ["after the shell left"]);
    let _ = second;
}

#[test]
fn cowork_open_starts_the_desktop_app_where_a_display_exists() {
    let env = Env::new(runtimes()[0]);
    // A stand-in desktop app that records how it was started.
    let started = env.home.path().join("started.txt");
    let fake = env.home.path().join("cowork-desktop");
    std::fs::write(&fake, format!("#!/bin/sh\necho \"$@\" > {}\n", started.display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();

    let doctor = stdout(
        &env.cmd(&["doctor"])
            .env("COWORK_DESKTOP_BIN", &fake)
            .env("DISPLAY", ":99")
            .output()
            .unwrap(),
    );
    assert!(
        doctor.contains(&format!("ok   desktop  {} (`cowork open` starts it)", fake.display())),
        "{doctor}"
    );
    let out =
        env.cmd(&["open"]).env("COWORK_DESKTOP_BIN", &fake).env("DISPLAY", ":99").output().unwrap();
    assert_eq!(
        stdout(&out).trim(),
        format!("Starting Cowork Studio on {}", env.ws_path().display()),
        "{}",
        stderr(&out)
    );
    assert!(eventually(Duration::from_secs(10), || std::fs::read_to_string(&started)
        .is_ok_and(|s| s.trim() == path_str(&env.ws_path()))));

    let broken = env
        .cmd(&["open"])
        .env("COWORK_DESKTOP_BIN", env.home.path().join("missing"))
        .env("DISPLAY", ":99")
        .output()
        .unwrap();
    assert_eq!(broken.status.code(), Some(1));
    assert!(
        stderr(&broken)
            .contains("`cowork open --browser` opens the workbench in a browser tab instead"),
        "{}",
        stderr(&broken)
    );
}

#[test]
fn a_site_apps_notifications_and_count_go_through_the_hub() {
    let env = Env::new(runtimes()[0]);
    env.app("inbox", r#"{ "name": "inbox", "version": "1.0.0", "title": "Inbox", "web": { "url": "https://mail.example.com/" } }"#, &[]);
    env.app("ping", PING, &[("send.ts", SEND)]);
    env.workspace_json(r#"{"notifications": {"muted": []}}"#);
    let ws = env.ws_path();
    let daemon = env.daemon(&[]);
    let token = env.owner_token();

    let notified = call(
        daemon.port,
        &token,
        "POST",
        "/api/desktop/notify",
        Some(
            json!({ "workspace": ws, "app": "inbox", "notification": { "title": "Ana", "body": "Lunch?" } }),
        ),
    );
    assert!(notified.contains(r#"{"delivery":"delivered"}"#), "{notified}");
    let counted = call(
        daemon.port,
        &token,
        "POST",
        "/api/desktop/badge",
        Some(json!({ "workspace": ws, "app": "inbox", "count": 3, "unreadSource": "title" })),
    );
    assert!(counted.contains(r#"{"count":3}"#), "{counted}");
    let odd = call(
        daemon.port,
        &token,
        "POST",
        "/api/desktop/badge",
        Some(json!({ "workspace": ws, "app": "inbox", "count": 3, "unreadSource": "guess" })),
    );
    assert!(
        odd.starts_with("HTTP/1.1 400")
            && odd.contains("unreadSource is one of badge, title, notifications"),
        "{odd}"
    );
    // Manage Workspace says where the count comes from.
    let summary = call(
        daemon.port,
        &token,
        "GET",
        &format!("/api/workbench?workspace={}", path_str(&ws)),
        None,
    );
    let summary: Value = serde_json::from_str(summary.split_once("\r\n\r\n").unwrap().1).unwrap();
    let inbox =
        summary["apps"].as_array().unwrap().iter().find(|a| a["name"] == "inbox").unwrap().clone();
    assert_eq!(inbox["unreadSource"], "title");
    let status: Value = serde_json::from_str(&stdout(&env.run(&["status", "--json"]))).unwrap();
    assert_eq!(
        status["daemon"]["workspaces"][0]["badges"],
        json!({ "apps": { "inbox": 3 }, "total": 3 })
    );
    assert!(stdout(&env.run(&["status"])).contains("Inbox: Ana — Lunch?"));

    // Only a site app's page reports through the shell; an app's notifications are its own.
    let not_a_site = call(
        daemon.port,
        &token,
        "POST",
        "/api/desktop/notify",
        Some(json!({ "workspace": ws, "app": "ping", "notification": { "title": "x" } })),
    );
    assert!(
        not_a_site.starts_with("HTTP/1.1 400")
            && not_a_site.contains(r#"\"ping\" is not a site app"#),
        "{not_a_site}"
    );
    let unknown = call(
        daemon.port,
        &token,
        "POST",
        "/api/desktop/badge",
        Some(json!({ "workspace": ws, "app": "nope", "count": 1 })),
    );
    assert!(unknown.starts_with("HTTP/1.1 404"), "{unknown}");
}

#[test]
fn a_stop_ends_the_event_streams_instead_of_waiting_for_them() {
    let env = Env::new(runtimes()[0]);
    let mut daemon = env.daemon(&[]);
    let token = env.owner_token();
    let mut shell = Channel::open(daemon.port, &token);
    let mut events = TcpStream::connect(("127.0.0.1", daemon.port)).unwrap();
    write!(
        events,
        "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {token}\r\n\r\n",
        daemon.port
    )
    .unwrap();

    let stopped = env.run(&["stop"]);
    assert!(
        stdout(&stopped).starts_with("Stopped Cowork"),
        "{} {}",
        stdout(&stopped),
        stderr(&stopped)
    );
    assert!(daemon.child.wait().unwrap().success());
    // The shell sees its channel end (and can quit or reconnect), rather than holding the stop up.
    let mut rest = String::new();
    let _ = shell.reader.read_to_string(&mut rest);
    assert!(!rest.contains("data:"), "{rest}");
}
