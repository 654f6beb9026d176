//! The daemon's side of the desktop shell, through a real daemon: the one desktop channel, "show"
//! requests from a second launch or `cowork open`, the active workspace (only its notifications
//! are delivered, until the shell goes away), and `cowork open` starting the desktop app.

use crate::support::*;
use serde_json::{json, Value};
use std::time::Duration;

const PING: &str = r#"{ "name": "ping", "version": "1.0.0", "title": "Ping", "routines": { "ping-send": "send.ts" } }"#;
const SEND: &str = "export default async (args: any, ctx: any) => { await ctx.notify({ title: args.title }); return 'sent'; };\n";

fn health(http: &Http, token: &str) -> Value {
    http.json("GET", "/api/health", token, None).1
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
    let http = Http { port: daemon.port };
    let token = env.owner_token();
    assert_eq!(health(&http, &token)["desktop"], false);

    // No shell: `cowork open` cannot show one (and with no display and no desktop app installed it
    // falls back to the workbench address through the running daemon).
    let (status, refused) = http.json("POST", "/api/desktop/show", &token, Some(&json!({})));
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refused["error"]["name"], "Unavailable", "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("desktop app is not running"));

    let mut shell = http.events("/api/desktop/requests", &token);
    assert_eq!(shell.status, 200);
    assert_eq!(health(&http, &token)["desktop"], true);
    let doctor = stdout(&env.run(&["doctor"]));
    assert!(
        doctor.contains("ok   desktop  Cowork Studio is running (attached to the daemon)"),
        "{doctor}"
    );
    let second = http.events("/api/desktop/requests", &token);
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
    assert_eq!(
        shell.next().unwrap().0,
        json!({ "type": "show", "workspace": path_str(&other_ws) })
    );

    // The active workspace: only its notifications are delivered; the other's calls still resolve.
    let (status, active) =
        http.json("POST", "/api/desktop/active", &token, Some(&json!({ "workspace": ws })));
    assert_eq!((status, &active["badges"]["total"]), (200, &json!(0)), "{active}");
    send(&env, &ws, "to the active one");
    send(&env, &other_ws, "to the other one");
    assert_eq!(bell(&env, &ws), ["to the active one"]);
    assert!(bell(&env, &other_ws).is_empty(), "another workspace's notification is dropped");

    // The shell goes away: the choice ends with it, so nothing stays silenced.
    drop(shell);
    assert!(
        eventually(Duration::from_secs(15), || health(&http, &token)["desktop"] == false),
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
    let http = Http { port: daemon.port };
    let token = env.owner_token();

    let notification = json!({ "title": "Ana", "body": "Lunch?" });
    let notified = json!({ "workspace": ws, "app": "inbox", "notification": notification });
    let (_, notified) = http.json("POST", "/api/desktop/notify", &token, Some(&notified));
    assert_eq!(notified, json!({"delivery": "delivered"}));
    let mut events = http.events(&format!("/api/events?workspace={}", path_str(&ws)), &token);
    let badge = json!({ "workspace": ws, "app": "inbox", "count": 3, "unreadSource": "title" });
    let (_, counted) = http.json("POST", "/api/desktop/badge", &token, Some(&badge));
    assert_eq!(counted, json!({"count": 3}));
    // The open workbenches hear where the count comes from with the count: Manage Workspace
    // shows a new source at once, not at the next reload of the apps.
    let (heard, _) =
        std::iter::from_fn(|| events.next()).find(|(event, _)| event["type"] == "badge").unwrap();
    assert_eq!((heard["count"].clone(), heard["unreadSource"].clone()), (json!(3), json!("title")));
    let odd = json!({ "workspace": ws, "app": "inbox", "count": 3, "unreadSource": "guess" });
    let (status, odd) = http.json("POST", "/api/desktop/badge", &token, Some(&odd));
    assert_eq!(status, 400, "{odd}");
    assert!(
        odd["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unreadSource is one of badge, title, notifications"),
        "{odd}"
    );
    // Manage Workspace says where the count comes from.
    let summary = format!("/api/workbench?workspace={}", path_str(&ws));
    let (_, summary) = http.json("GET", &summary, &token, None);
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
    let ping = json!({ "workspace": ws, "app": "ping", "notification": { "title": "x" } });
    let (status, not_a_site) = http.json("POST", "/api/desktop/notify", &token, Some(&ping));
    assert_eq!(
        (status, not_a_site["error"]["message"].as_str()),
        (400, Some("\"ping\" is not a site app")),
        "{not_a_site}"
    );
    let nope = json!({ "workspace": ws, "app": "nope", "count": 1 });
    let (status, unknown) = http.json("POST", "/api/desktop/badge", &token, Some(&nope));
    assert_eq!((status, &unknown["error"]["name"]), (404, &json!("NotFound")), "{unknown}");
}

#[test]
fn a_stop_ends_the_event_streams_instead_of_waiting_for_them() {
    let env = Env::new(runtimes()[0]);
    let mut daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let token = env.owner_token();
    let mut shell = http.events("/api/desktop/requests", &token);
    let _events = http.events("/api/events", &token);

    let stopped = env.run(&["stop"]);
    assert!(
        stdout(&stopped).starts_with("Stopped Cowork"),
        "{} {}",
        stdout(&stopped),
        stderr(&stopped)
    );
    assert!(daemon.child.wait().unwrap().success());
    // The shell sees its channel end (and can quit or reconnect), rather than holding the stop up.
    assert_eq!(shell.next(), None, "no request after the stop");
}
