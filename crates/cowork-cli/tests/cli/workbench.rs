//! The daemon's side of the workbench: pages on the right origins, widgets prepared after the
//! allowlist check, and panes that can only ever act as their own app.

use crate::support::*;
use serde_json::{json, Value};

fn apps(env: &Env) {
    env.app("notes", r#"{"name": "notes", "version": "1.0.0", "entry": "notes.jsx", "routines": {"notes-who": "who.ts"}}"#, &[
        ("notes.jsx", "import { Button } from '@/components/ui/button'\nexport default function Notes() { return <Button>Notes</Button> }\n"),
        ("padded.jsx", "import React from 'react'\nimport pad from 'left-pad'\nexport default () => null\n"),
        ("who.ts", "export default (_a: any, ctx: any) => ({ app: 'notes', secret: (() => { try { return ctx.secrets.get('mail.token') } catch (e: any) { return e.name } })() });\n"),
    ]);
    env.app("mail", r#"{"name": "mail", "version": "1.0.0", "entry": "mail.jsx", "routines": {"mail-send": "send.ts"}}"#, &[
        ("mail.jsx", "export default () => null\n"),
        ("send.ts", "export default () => 'sent as mail';\n"),
    ]);
    env.workspace_json(r#"{"name": "Team"}"#);
}

#[test]
fn panes_act_only_as_their_own_app() {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let host = format!("127.0.0.1:{}", daemon.port);
    let owner = env.owner_token();
    let ws = path_str(&env.ws_path());

    let (status, _, body) =
        http.call("GET", &host, &format!("/api/workbench?workspace={ws}"), Some(&owner), None);
    assert_eq!(status, 200, "{body}");
    let summary: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(summary["workspace"]["name"], "Team");
    assert_eq!(
        summary["apps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["name"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["mail", "notes"]
    );

    let (status, _, body) = http.call(
        "POST",
        &host,
        "/api/panes",
        Some(&owner),
        Some(&json!({"workspace": ws, "app": "notes", "file": "notes.jsx"})),
    );
    assert_eq!(status, 200, "{body}");
    let pane: Value = serde_json::from_str(&body).unwrap();
    let src = pane["src"].as_str().unwrap();
    assert!(
        src.starts_with("http://notes-")
            && src.ends_with(&format!(".app.localhost:{}/frame.html", daemon.port)),
        "{src}"
    );
    assert!(pane["widget"]["code"]
        .as_str()
        .unwrap()
        .contains("require(\"@/components/ui/button\")"));
    let token = pane["paneToken"].as_str().unwrap();

    // The pane runs its own app's routines, as that app (audited with source app).
    let (_, _, body) = http.call(
        "POST",
        &host,
        "/api/sdk/routines.run",
        Some(token),
        Some(&json!({"id": "notes-who", "args": {}})),
    );
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["result"]["app"], "notes", "{body}");
    let record: Value = serde_json::from_str(&env.audit_lines().pop().unwrap()).unwrap();
    assert_eq!(
        (record["context"]["source"].as_str(), record["context"]["caller"]["app"].as_str()),
        (Some("app"), Some("notes"))
    );

    // Claiming another app in the request changes nothing: the token decides.
    let (_, _, body) = http.call(
        "POST",
        &host,
        "/api/sdk/notify",
        Some(token),
        Some(&json!({"title": "Hi", "app": "mail"})),
    );
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["ok"], true, "{body}");
    let (_, _, body) =
        http.call("GET", &host, &format!("/api/workbench?workspace={ws}"), Some(&owner), None);
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["notifications"][0]["app"], "notes");

    // The owner token names no app: it is refused on the panes' route, and a pane token on the owner's.
    assert_eq!(
        http.call(
            "POST",
            &host,
            "/api/sdk/routines.run",
            Some(&owner),
            Some(&json!({"id": "mail-send"}))
        )
        .0,
        401
    );
    assert_eq!(http.call("GET", &host, "/api/status", Some(token), None).0, 401);
    assert_eq!(
        http.call(
            "POST",
            &host,
            "/api/panes",
            Some(token),
            Some(&json!({"workspace": ws, "app": "mail", "file": "mail.jsx"}))
        )
        .0,
        401
    );
    // A widget frame reaching for the API from its own origin is refused.
    let frame_host = src.trim_start_matches("http://").split('/').next().unwrap().to_string();
    assert_eq!(
        http.call(
            "POST",
            &frame_host,
            "/api/sdk/routines.run",
            Some(token),
            Some(&json!({"id": "notes-who"}))
        )
        .0,
        403
    );
    assert_eq!(http.call("GET", &frame_host, "/api/status", Some(&owner), None).0, 403);
}

#[test]
fn pages_and_frames_are_served_on_their_own_origins() {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    // A stand-in build of ui/, so that this test of the daemon's serving needs no npm build.
    let ui = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ui.path().join("assets")).unwrap();
    std::fs::create_dir_all(ui.path().join("assets/lucide-9.9.9")).unwrap();
    for (file, text) in [
        ("index.html", "<!doctype html>workbench"),
        ("frame.html", "<!doctype html>frame"),
        ("assets/frame-1.js", "export {}"),
        ("assets/lucide-9.9.9/plus.json", r#"{"name":"plus","node":[]}"#),
        ("assets/lucide-9.9.9/x.json", r#"{"name":"x","node":[]}"#),
    ] {
        std::fs::write(ui.path().join(file), text).unwrap();
    }
    let daemon = env.daemon_with(&[], &[("COWORK_UI_DIR", ui.path())]);
    let http = Http { port: daemon.port };
    let host = format!("127.0.0.1:{}", daemon.port);
    let frame_host = format!("notes-0123abcd.app.localhost:{}", daemon.port);
    let (status, head, body) = http.call("GET", &host, "/", None, None);
    assert_eq!((status, body.as_str()), (200, "<!doctype html>workbench"));
    assert!(head.to_ascii_lowercase().contains("x-frame-options: deny"), "{head}");
    let (status, head, body) = http.call("GET", &frame_host, "/frame.html", None, None);
    assert_eq!((status, body.as_str()), (200, "<!doctype html>frame"));
    let (status, asset_head, _) = http.call("GET", &frame_host, "/assets/frame-1.js", None, None);
    assert_eq!(status, 200);
    assert!(
        asset_head.to_ascii_lowercase().contains("content-type: text/javascript")
            && asset_head.contains("immutable"),
        "{asset_head}"
    );
    assert!(head.to_ascii_lowercase().contains("access-control-allow-origin: *"), "{head}");
    assert_eq!(
        http.call("GET", &frame_host, "/", None, None).0,
        404,
        "the workbench is never served on an app's origin"
    );
    assert_eq!(
        http.call("GET", &host, "/frame.html", None, None).0,
        404,
        "a frame is never served on the workbench's origin"
    );
    assert_eq!(http.call("GET", "evil.example:80", "/", None, None).0, 403);
    assert_eq!(http.call("GET", &host, "/assets/../../Cargo.toml", None, None).0, 404);

    // A pane's icons come in one module, made of the build's one file per icon.
    let icons = |query: &str| {
        http.call("GET", &frame_host, &format!("/assets/lucide-9.9.9/icons.js?{query}"), None, None)
    };
    let (status, head, body) = icons("plus,x");
    assert_eq!(
        (status, body.as_str()),
        (200, r#"export default {"plus":{"name":"plus","node":[]},"x":{"name":"x","node":[]},}"#)
    );
    let head = head.to_ascii_lowercase();
    assert!(
        head.contains("content-type: text/javascript")
            && head.contains("immutable")
            && head.contains("access-control-allow-origin: *"),
        "{head}"
    );
    let (status, _, body) = icons("plus,nope");
    assert_eq!((status, body.as_str()), (404, r#"lucide-9.9.9 has no icon "nope""#));
    for refused in ["", "plus,,x", "../../index", "PLUS", &vec!["plus"; 201].join(",")] {
        assert_eq!(icons(refused).0, 400, "{refused}");
    }
}

#[test]
fn a_widget_outside_the_allowlist_is_refused_with_its_line() {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let owner = env.owner_token();
    let (_, _, body) = http.call(
        "POST",
        &format!("127.0.0.1:{}", daemon.port),
        "/api/panes",
        Some(&owner),
        Some(&json!({"workspace": path_str(&env.ws_path()), "app": "notes", "file": "padded.jsx"})),
    );
    let pane: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        pane["widget"]["error"],
        json!({"name": "ImportNotAllowed", "file": "padded.jsx", "line": 2, "column": 17, "message": "\"left-pad\" is not in the cowork webapp allowlist"})
    );
}

/// A pane's token, from `POST /api/panes` as the workbench asks for it.
fn open_pane(http: &Http, host: &str, owner: &str, ws: &str, app: &str, file: &str) -> String {
    let (status, _, body) = http.call(
        "POST",
        host,
        "/api/panes",
        Some(owner),
        Some(&json!({"workspace": ws, "app": app, "file": file})),
    );
    assert_eq!(status, 200, "{body}");
    serde_json::from_str::<Value>(&body).unwrap()["paneToken"].as_str().unwrap().to_string()
}

#[test]
fn the_panes_sdk_answers_only_the_workbench_origin_and_open_panes() {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let host = format!("127.0.0.1:{}", daemon.port);
    let owner = env.owner_token();
    let token = open_pane(&http, &host, &owner, &path_str(&env.ws_path()), "notes", "notes.jsx");
    let notify = json!({"title": "Hi"});

    // The real workbench: its own origin, same-origin fetch.
    let workbench = format!("http://{host}");
    let (status, _, body) = http.call_with(
        "POST",
        &host,
        "/api/sdk/notify",
        Some(&token),
        Some(&notify),
        &[("Origin", &workbench), ("Sec-Fetch-Site", "same-origin")],
    );
    assert_eq!(status, 200, "{body}");
    // A sandboxed frame (origin null) or another site holding a pane token is refused.
    let (status, _, body) = http.call_with(
        "POST",
        &host,
        "/api/sdk/notify",
        Some(&token),
        Some(&notify),
        &[("Origin", "null"), ("Sec-Fetch-Site", "cross-site")],
    );
    assert_eq!((status, body.contains("cross-site requests are refused")), (403, true), "{body}");
    let (status, _, body) = http.call_with(
        "POST",
        &host,
        "/api/sdk/notify",
        Some(&token),
        Some(&notify),
        &[("Origin", "null")],
    );
    assert_eq!((status, body.contains("another origin")), (403, true), "{body}");
    let (status, _, _) = http.call_with(
        "POST",
        &host,
        "/api/sdk/notify",
        Some(&token),
        Some(&notify),
        &[("Origin", "http://evil.example")],
    );
    assert_eq!(status, 403);

    // Detaching the pane closes its token for good.
    let (status, _, body) = http.call_with(
        "POST",
        &host,
        "/api/sdk/pane.close",
        Some(&token),
        Some(&json!({})),
        &[("Origin", &workbench)],
    );
    assert_eq!(
        (status, serde_json::from_str::<Value>(&body).unwrap()["ok"].clone()),
        (200, json!(true)),
        "{body}"
    );
    let (status, _, body) = http.call_with(
        "POST",
        &host,
        "/api/sdk/notify",
        Some(&token),
        Some(&notify),
        &[("Origin", &workbench)],
    );
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("closed"), "{body}");
}

#[test]
fn icons_are_served_only_for_open_workspaces_and_only_to_this_machine() {
    let env = Env::new(runtimes()[0]);
    env.app(
        "notes",
        r#"{"name": "notes", "version": "1.0.0", "icon": "icon.svg", "entry": "notes.jsx"}"#,
        &[
            ("icon.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>"),
            ("notes.jsx", "export default () => null\n"),
        ],
    );
    // A folder the daemon must never open on the say-so of an icon request.
    let victim = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(victim.path().join(".cowork/apps/x")).unwrap();
    std::fs::write(
        victim.path().join(".cowork/apps/x/cowork.json"),
        r#"{"name": "x", "version": "1.0.0", "icon": "i.svg"}"#,
    )
    .unwrap();
    std::fs::write(victim.path().join(".cowork/apps/x/i.svg"), "<svg/>").unwrap();
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let host = format!("127.0.0.1:{}", daemon.port);
    let victim_icon = format!("/api/icon?workspace={}&app=x", path_str(victim.path()));

    let (status, _, body) =
        http.call("GET", &format!("attacker.example:{}", daemon.port), &victim_icon, None, None);
    assert_eq!(status, 403, "a rebound host name is refused: {body}");
    let (status, _, body) =
        http.call_with("GET", &host, &victim_icon, None, None, &[("Sec-Fetch-Site", "cross-site")]);
    assert_eq!(status, 403, "another site's <img> is refused: {body}");
    let (status, _, body) = http.call("GET", &host, &victim_icon, None, None);
    assert_eq!(status, 401, "an icon address not handed out by /api/workbench: {body}");
    assert!(!body.contains("open workspace"), "the answer tells which workspaces are open: {body}");
    assert!(!victim.path().join(".cowork/local").exists(), "the folder was opened as a workspace");

    // The workbench's own icons, once it opened the workspace.
    let ws = path_str(&env.ws_path());
    let owner = env.owner_token();
    let (_, _, body) =
        http.call("GET", &host, &format!("/api/workbench?workspace={ws}"), Some(&owner), None);
    let icon_url = serde_json::from_str::<Value>(&body).unwrap()["apps"][0]["iconUrl"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, head, body) =
        http.call_with("GET", &host, &icon_url, None, None, &[("Sec-Fetch-Site", "same-origin")]);
    assert_eq!(
        (status, body.as_str()),
        (200, "<svg xmlns='http://www.w3.org/2000/svg'/>"),
        "{head}"
    );
    assert!(head.to_ascii_lowercase().contains("content-type: image/svg+xml"), "{head}");
}

/// The owner's workbench routes against a running daemon: the answers, and what they write.
struct Owner {
    http: Http,
    host: String,
    token: String,
    ws: String,
}

impl Owner {
    fn new(env: &Env, daemon: &Daemon) -> Owner {
        Owner {
            http: Http { port: daemon.port },
            host: format!("127.0.0.1:{}", daemon.port),
            token: env.owner_token(),
            ws: path_str(&env.ws_path()),
        }
    }

    fn get(&self, path: &str, query: &str) -> (u16, Value) {
        let (status, _, body) = self.http.call(
            "GET",
            &self.host,
            &format!("{path}?workspace={}&{query}", self.ws),
            Some(&self.token),
            None,
        );
        (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}")))
    }

    fn post(&self, path: &str, mut body: Value) -> (u16, Value) {
        body["workspace"] = json!(self.ws);
        let (status, _, text) =
            self.http.call("POST", &self.host, path, Some(&self.token), Some(&body));
        (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}")))
    }
}

fn footer_apps(env: &Env) {
    env.app("standup", r#"{"name": "standup", "version": "1.0.0", "entry": "standup.jsx", "statusBar": {"routine": "standup-status", "args": {"from": "manifest"}},
        "fileRouting": {"**/*.standup": "standup.jsx", "Meetings/": "standup.jsx"}, "routines": {"standup-status": "status.ts"}}"#, &[
        ("standup.jsx", "export default () => null\n"),
        ("status.ts", "export default (args: any) => { if (args.fail) throw new Error('the VM is down'); if (args.shape === 'none') return null; if (args.shape === 'untitled') return { icon: 'plug' }; if (args.shape === 'big') return { text: 'big', data: 'x'.repeat(17000) }; return { text: `from ${args.from}` }; };\n"),
    ]);
    env.app("notes", r#"{"name": "notes", "version": "1.0.0", "entry": "notes.jsx", "fileRouting": {"**/*.md": "notes.jsx"}}"#, &[("notes.jsx", "export default () => null\n")]);
    env.app("scratch", r#"{"name": "scratch", "version": "1.0.0", "entry": "scratch.jsx", "fileRouting": {"**/*.md": "scratch.jsx"}}"#, &[("scratch.jsx", "export default () => null\n")]);
}

fn workspace_json(env: &Env) -> Value {
    serde_json::from_str(&std::fs::read_to_string(env.file(".cowork/workspace.json")).unwrap())
        .unwrap()
}

#[test]
fn footer_refreshes_are_runs_tagged_status_bar_and_a_failed_one_is_an_answer() {
    let env = Env::new(runtimes()[0]);
    footer_apps(&env);
    let daemon = env.daemon(&[]);
    let owner = Owner::new(&env, &daemon);

    assert_eq!(
        owner.get("/api/statusbar", "app=standup"),
        (200, json!({"ok": true, "item": {"text": "from manifest"}}))
    );
    let refresh: Value = serde_json::from_str(&env.audit_lines().pop().unwrap()).unwrap();
    assert_eq!(
        (refresh["capability"].as_str(), refresh["context"]["source"].as_str()),
        (Some("standup-status"), Some("app"))
    );
    assert_eq!(
        refresh["context"]["caller"],
        json!({"app": "standup", "source": "status-bar"}),
        "{refresh}"
    );

    assert_eq!(
        owner.post("/api/statusbar/click", json!({"app": "standup", "args": {"from": "click"}})),
        (200, json!({"ok": true, "item": {"text": "from click"}}))
    );
    let click: Value = serde_json::from_str(&env.audit_lines().pop().unwrap()).unwrap();
    assert_eq!(
        click["context"]["caller"],
        json!({"app": "standup"}),
        "a click is the item's work, not a refresh"
    );

    // A failed footer routine is an answer (HTTP 200) the footer shows as a warning.
    let (status, failed) =
        owner.post("/api/statusbar/click", json!({"app": "standup", "args": {"fail": true}}));
    assert_eq!(
        (status, &failed["ok"], &failed["error"]["name"], &failed["error"]["message"]),
        (200, &json!(false), &json!("Error"), &json!("the VM is down")),
        "{failed}"
    );
    assert!(failed["error"]["runId"].is_string(), "{failed}");

    // null hides the item; a shape the footer cannot draw, or data over 16 KB, fails by name.
    assert_eq!(
        owner.post("/api/statusbar/click", json!({"app": "standup", "args": {"shape": "none"}})),
        (200, json!({"ok": true, "item": null}))
    );
    for (shape, name, words) in
        [("untitled", "BadRoutine", "missing field `text`"), ("big", "TooLarge", "at most 16384")]
    {
        let (status, failed) =
            owner.post("/api/statusbar/click", json!({"app": "standup", "args": {"shape": shape}}));
        let message = failed["error"]["message"].as_str().unwrap_or_default();
        assert_eq!((status, &failed["error"]["name"]), (200, &json!(name)), "{failed}");
        assert!(message.contains(words) && failed["error"]["runId"].is_string(), "{failed}");
    }
    assert_eq!(owner.get("/api/statusbar", "app=notes").0, 404, "notes has no statusBar");
    assert_eq!(owner.get("/api/statusbar", "app=nope").0, 404);
}

#[test]
fn explorer_routes_and_switches_answer_and_write_workspace_json() {
    let env = Env::new(runtimes()[0]);
    footer_apps(&env);
    std::fs::create_dir_all(env.file("Meetings")).unwrap();
    std::fs::write(env.file("todo.md"), "- a").unwrap();
    std::fs::write(env.file("monday.standup"), "- b").unwrap();
    std::fs::write(env.file(".gitignore"), "").unwrap();
    std::fs::create_dir_all(env.file(".git")).unwrap();
    std::fs::create_dir_all(env.file(".cowork/local")).unwrap();
    let daemon = env.daemon(&[]);
    let owner = Owner::new(&env, &daemon);

    // The explorer: folders first; dotfiles shown but what VS Code's files.exclude hides (.git),
    // and not Cowork's machine-local state; nothing outside the workspace.
    let (status, listed) = owner.get("/api/files", "path=");
    assert_eq!(status, 200);
    let names: Vec<&str> =
        listed.as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, [".cowork", "Meetings", ".gitignore", "monday.standup", "todo.md"]);
    assert_eq!(listed[1], json!({"name": "Meetings", "path": "Meetings", "dir": true}));
    let (_, cowork) = owner.get("/api/files", "path=.cowork");
    assert!(cowork.as_array().unwrap().iter().all(|e| e["name"] != "local"), "{cowork}");
    assert_eq!(owner.get("/api/files", "path=../").0, 400);
    assert_eq!(owner.get("/api/files", "path=nope").0, 404);

    // File routing: a file route, a folder route, and two apps claiming one glob (folder order).
    assert_eq!(owner.get("/api/route", "path=monday.standup").1["app"], "standup");
    assert_eq!(
        owner.get("/api/route", "path=Meetings").1,
        json!({"app": "standup", "file": "standup.jsx", "glob": "Meetings/", "folder": true})
    );
    assert_eq!(owner.get("/api/route", "path=todo.md").1["app"], "notes");
    assert_eq!(owner.get("/api/route", "path=todo.txt").1, Value::Null);
    // The person's choice between the two is remembered and wins.
    assert_eq!(
        owner.post("/api/open-with", json!({"glob": "**/*.md", "app": "scratch"})),
        (200, json!({"changed": true}))
    );
    assert_eq!(workspace_json(&env)["openWith"], json!({"**/*.md": "scratch"}));
    assert_eq!(owner.get("/api/route", "path=todo.md").1["app"], "scratch");

    // Switches: off and on, muted; an unknown app or an ambiguous body is refused.
    assert_eq!(
        owner.post("/api/apps/enable", json!({"app": "notes", "enabled": false})),
        (200, json!({"changed": true}))
    );
    assert_eq!(workspace_json(&env)["disabled"]["apps"], json!([".cowork/apps/notes"]));
    let (_, summary) = owner.get("/api/workbench", "");
    assert_eq!(
        summary["apps"].as_array().unwrap().iter().find(|a| a["name"] == "notes").unwrap()
            ["enabled"],
        false
    );
    assert_eq!(
        owner.post("/api/apps/enable", json!({"app": "notes", "enabled": true})),
        (200, json!({"changed": true}))
    );
    assert_eq!(
        owner.post("/api/apps/enable", json!({"app": "notes", "enabled": true})),
        (200, json!({"changed": false}))
    );
    assert_eq!(
        owner.post("/api/apps/mute", json!({"app": "standup", "muted": true})),
        (200, json!({"changed": true}))
    );
    assert_eq!(workspace_json(&env)["notifications"]["muted"], json!([".cowork/apps/standup"]));
    assert_eq!(owner.get("/api/workbench", "").1["muted"], json!([".cowork/apps/standup"]));
    assert_eq!(owner.post("/api/apps/mute", json!({"app": "nope", "muted": true})).0, 404);
    assert_eq!(
        owner.post("/api/apps/mute", json!({"app": "notes", "muted": true, "enabled": true})).0,
        400
    );
}

#[test]
fn rail_folders_that_the_reader_would_drop_are_refused_unwritten() {
    let env = Env::new(runtimes()[0]);
    footer_apps(&env);
    env.workspace_json(r#"{"name": "Team"}"#);
    let daemon = env.daemon(&[]);
    let owner = Owner::new(&env, &daemon);
    let folder = |title: &str, members: usize| json!({"id": "work", "title": title, "members": (0..members).map(|i| format!("workbench.view.cowork.app.a{i}")).collect::<Vec<_>>()});

    let (status, refused) =
        owner.post("/api/rail", json!({"folders": [folder(&"t".repeat(41), 2)]}));
    assert_eq!(
        (status, &refused["error"]["name"]),
        (400, &json!("InvalidWorkspaceJson")),
        "{refused}"
    );
    assert!(
        refused["error"]["message"].as_str().unwrap().contains("\"rail.folders[0].title\""),
        "{refused}"
    );
    assert_eq!(owner.post("/api/rail", json!({"folders": [folder("Work", 25)]})).0, 400);
    assert_eq!(
        owner
            .post(
                "/api/rail",
                json!({"folders": (0..13).map(|_| folder("Work", 1)).collect::<Vec<_>>()})
            )
            .0,
        400
    );
    assert_eq!(workspace_json(&env), json!({"name": "Team"}), "nothing was written");

    assert_eq!(
        owner.post("/api/rail", json!({"folders": [folder("Work", 2)]})),
        (200, json!({"changed": true}))
    );
    assert_eq!(owner.get("/api/workbench", "").1["rail"]["folders"][0]["title"], "Work");
}

#[test]
fn a_widget_asking_consent_headless_gets_the_line_that_allows_it() {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    let daemon = env.daemon(&[]);
    let owner = Owner::new(&env, &daemon);
    let pane = open_pane(&owner.http, &owner.host, &owner.token, &owner.ws, "notes", "notes.jsx");
    let ask = json!({"value": "deploy 'prod'", "title": "Deploy", "body": "To production"});
    let (status, _, body) =
        owner.http.call("POST", &owner.host, "/api/sdk/consent.request", Some(&pane), Some(&ask));
    assert_eq!(status, 200, "{body}");
    let line =
        format!(r"cowork consent allow 'deploy '\''prod'\''' --app notes --workspace {}", owner.ws);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"ok": true, "result": {"granted": false, "message": format!("no window can ask for consent here; approve it ahead of time with: {line}")}})
    );

    assert!(env.run(&["consent", "allow", "deploy 'prod'", "--app", "notes"]).status.success());
    let (_, _, body) =
        owner.http.call("POST", &owner.host, "/api/sdk/consent.request", Some(&pane), Some(&ask));
    let granted: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (&granted["result"]["granted"], granted["result"]["ticket"].as_str().map(str::len)),
        (&json!(true), Some(32)),
        "{body}"
    );
}

#[test]
fn the_text_viewer_reads_workspace_text_files_and_nothing_else() {
    let env = Env::new(runtimes()[0]);
    footer_apps(&env);
    std::fs::write(env.file("README.md"), "# Team\n").unwrap();
    std::fs::write(env.file("logo.png"), b"\x89PNG\r\n\x1a\n\0\0").unwrap();
    std::fs::write(env.file("dump.log"), "x".repeat(1024 * 1024 + 1)).unwrap();
    std::fs::create_dir_all(env.file(".cowork/local")).unwrap();
    std::fs::write(env.file(".cowork/local/state.json"), "{}").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "not yours").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), env.file("link.txt")).unwrap();
    let daemon = env.daemon(&[]);
    let owner = Owner::new(&env, &daemon);

    assert_eq!(
        owner.get("/api/file", "path=README.md"),
        (200, json!({"path": "README.md", "text": "# Team\n", "size": 7}))
    );
    assert_eq!(
        owner.get("/api/file", "path=.cowork/apps/notes/notes.jsx").1["text"],
        "export default () => null\n"
    );
    let refused = |query: &str| {
        let (status, body) = owner.get("/api/file", query);
        (status, body["error"]["name"].as_str().unwrap_or_default().to_string())
    };
    // A binary or big file is an answer saying why there is no text, not a failed request.
    let not_text = |query: &str| {
        let (status, body) = owner.get("/api/file", query);
        (status, body["text"].clone(), body["notText"].clone())
    };
    assert_eq!(
        not_text("path=logo.png"),
        (200, Value::Null, json!({"name": "Binary", "message": "logo.png is not a text file"}))
    );
    assert_eq!(
        not_text("path=dump.log"),
        (
            200,
            Value::Null,
            json!({"name": "TooLarge", "message": "dump.log is 1024 KiB; the viewer shows files up to 1024 KiB"})
        )
    );
    assert_eq!(refused("path=.cowork/local/state.json"), (403, "Forbidden".into()));
    assert_eq!(refused("path=../secret.txt").0, 400);
    assert_eq!(refused("path=nope.md").0, 404);
    #[cfg(unix)]
    assert_eq!(refused("path=link.txt"), (403, "Forbidden".into()));
    let (status, _, _) = owner.http.call(
        "GET",
        &owner.host,
        &format!("/api/file?workspace={}&path=README.md", owner.ws),
        None,
        None,
    );
    assert_eq!(status, 401, "the owner gate");
}

#[test]
fn manage_workspace_gets_problems_as_data_with_widget_imports_outside_the_allowlist() {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    env.app(
        "bad",
        r#"{"name": "bad", "version": "1.0.0", "entry": "bad.jsx"}"#,
        &[(
            "bad.jsx",
            "import React from 'react'\nimport helper from './helper'\nexport default () => null\n",
        )],
    );
    std::fs::create_dir_all(env.file(".cowork/apps/old-stuff")).unwrap();
    std::fs::write(env.file(".cowork/apps/old-stuff/cowork.json"), "{\"title\": \"Old\"}").unwrap();
    let daemon = env.daemon(&[]);
    let owner = Owner::new(&env, &daemon);

    let (_, summary) = owner.get("/api/workbench", "");
    let bad = summary["apps"].as_array().unwrap().iter().find(|a| a["name"] == "bad").unwrap();
    let problem = &bad["problems"][0];
    assert_eq!(problem["file"], ".cowork/apps/bad/bad.jsx:2", "{bad}");
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .starts_with("\"./helper\" is not in the cowork webapp allowlist"),
        "{problem}"
    );
    let broken = &summary["broken"][0];
    assert_eq!(broken["dir"], ".cowork/apps/old-stuff", "{summary}");
    assert!(
        broken["problems"][0]["message"].is_string() && broken["problems"][0]["file"].is_string(),
        "{broken}"
    );
}

#[test]
fn a_pages_pane_tokens_end_with_its_session() {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let host = format!("127.0.0.1:{}", daemon.port);
    let owner = env.owner_token();
    let ws = path_str(&env.ws_path());
    let open = |session: &str| {
        let (status, _, body) = http.call_with(
            "POST",
            &host,
            "/api/panes",
            Some(&owner),
            Some(&json!({"workspace": ws, "app": "notes", "file": "notes.jsx"})),
            &[("x-cowork-session", session)],
        );
        assert_eq!(status, 200, "{body}");
        serde_json::from_str::<Value>(&body).unwrap()["paneToken"].as_str().unwrap().to_string()
    };
    let (mine, other) = (open("page-a"), open("page-b"));
    let log = |token: &str| {
        http.call("POST", &host, "/api/sdk/log", Some(token), Some(&json!({"parts": ["hi"]}))).0
    };
    assert_eq!((log(&mine), log(&other)), (200, 200));

    // The page goes away (its `pagehide`): its panes' tokens end, another page's live on.
    let (status, _, body) = http.call_with(
        "POST",
        &host,
        "/api/session/end",
        Some(&owner),
        None,
        &[("x-cowork-session", "page-a")],
    );
    assert_eq!(status, 204, "{body}");
    assert_eq!((log(&mine), log(&other)), (401, 200));
}

#[test]
fn app_open_with_no_workbench_window_open_says_so() {
    let env = Env::new(runtimes()[0]);
    apps(&env);
    // A daemon has subscribers of its own (triggers, the door): none of them is a window.
    let _daemon = env.daemon(&[]);
    let out = env.run(&["app", "open", ".cowork/apps/notes/cowork.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("no workbench is open: `cowork app serve` opens one"),
        "{}",
        stderr(&out)
    );
    assert!(!stdout(&out).contains("Opened"), "{}", stdout(&out));
}

/// `cowork.routines.run` (page 04): a widget's identical calls in flight share one run (its
/// sidebar and its tab asking together run the routine once), with one audit line.
#[test]
fn a_widgets_identical_calls_in_flight_share_one_run() {
    let env = Env::new(runtimes()[0]);
    env.app("slow", r#"{"name": "slow", "version": "1.0.0", "entry": "slow.jsx", "routines": {"slow-wait": "wait.ts"}}"#, &[
        ("slow.jsx", "export default () => null\n"),
        ("wait.ts", "export default async (args: any) => { await new Promise((r) => setTimeout(r, args.ms)); return process.pid; };\n"),
    ]);
    let daemon = env.daemon(&[]);
    let host = format!("127.0.0.1:{}", daemon.port);
    let ws = path_str(&env.ws_path());
    let pane = |file: &str| {
        let (status, _, body) = Http { port: daemon.port }.call(
            "POST",
            &host,
            "/api/panes",
            Some(&env.owner_token()),
            Some(&json!({"workspace": ws, "app": "slow", "file": file})),
        );
        assert_eq!(status, 200, "{body}");
        serde_json::from_str::<Value>(&body).unwrap()["paneToken"].as_str().unwrap().to_string()
    };
    let (sidebar, tab) = (pane("slow.jsx"), pane("slow.jsx"));
    let calls: Vec<_> = [sidebar, tab]
        .into_iter()
        .map(|token| {
            let host = host.clone();
            let port = daemon.port;
            std::thread::spawn(move || {
                let (_, _, body) = Http { port }.call(
                    "POST",
                    &host,
                    "/api/sdk/routines.run",
                    Some(&token),
                    Some(&json!({"id": "slow-wait", "args": {"ms": 1500}})),
                );
                serde_json::from_str::<Value>(&body).unwrap()
            })
        })
        .collect();
    let answers: Vec<Value> = calls.into_iter().map(|c| c.join().unwrap()).collect();
    assert_eq!(answers[0]["runId"], answers[1]["runId"], "one run: {answers:?}");
    assert_eq!(answers[0]["result"], answers[1]["result"], "one process");
    assert_eq!(env.audit_lines().len(), 1, "one run, one audit line");
}
