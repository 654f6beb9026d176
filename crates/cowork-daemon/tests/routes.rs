//! The daemon's routes and gates, asked through the router itself (no port, no HTTP parsing):
//! what a caller sees when it is refused, and that every refusal is the daemon's JSON error.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use cowork_daemon::{app, AppState};
use serde_json::{json, Value};
use tower::ServiceExt;

const PORT: u16 = 47913;
const TOKEN: &str = "owner-token";
const HOST: &str = "127.0.0.1:47913";

struct Daemon {
    state: AppState,
    _home: tempfile::TempDir,
    /// Event streams end when the daemon stops (this sender says so, or goes): held while it runs.
    _running: tokio::sync::watch::Sender<bool>,
}

fn daemon() -> Daemon {
    daemon_on(PORT)
}

/// A daemon whose Host checks name `port` (a test that listens for real binds it first).
fn daemon_on(port: u16) -> Daemon {
    let home = tempfile::tempdir().unwrap();
    let (running, stopping) = tokio::sync::watch::channel(false);
    let engine = cowork_engine::Engine::new(
        cowork_core::paths::Root::new(home.path()),
        cowork_engine::EngineConfig { watch: false, ..Default::default() },
    );
    let state = AppState {
        engine,
        token: TOKEN.into(),
        port,
        started: std::time::Instant::now(),
        shutdown: Default::default(),
        panes: Default::default(),
        default_workspace: None,
        stopping,
        desktop: Default::default(),
        codes: Default::default(),
        mcp: Default::default(),
        door: Default::default(),
        account: cowork_daemon::account::AccountHost::new(&cowork_core::paths::Root::new(
            home.path(),
        )),
        chat: Default::default(),
    };
    state.engine.set_account(state.account.clone());
    Daemon { state, _home: home, _running: running }
}

impl Daemon {
    /// `request` with these headers (a `Host` of this daemon and the owner token unless given),
    /// answered: the status and the JSON body.
    async fn ask(&self, request: Request<Body>) -> (StatusCode, Value) {
        let response = app(self.state.clone()).oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
        let body = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| panic!("{status}: not JSON: {}", String::from_utf8_lossy(&bytes)));
        (status, body)
    }
}

fn get(path: &str, headers: &[(&str, &str)]) -> Request<Body> {
    let mut request = Request::get(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Body::empty()).unwrap()
}

fn post(path: &str, body: &str) -> Request<Body> {
    Request::post(path)
        .header("host", HOST)
        .header("authorization", format!("Bearer {TOKEN}"))
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

const OWNER: (&str, &str) = ("authorization", "Bearer owner-token");

#[tokio::test]
async fn health_answers_the_owner_on_loopback_names() {
    let daemon = daemon();
    for host in ["127.0.0.1:47913", "localhost:47913", "[::1]:47913"] {
        let (status, body) = daemon.ask(get("/api/health", &[("host", host), OWNER])).await;
        assert_eq!(status, StatusCode::OK, "{host}: {body}");
        assert_eq!(body["service"], "cowork-studio");
        assert_eq!(body["port"], PORT);
        assert_eq!(body["pid"], std::process::id());
        assert_eq!(body["desktop"], false);
    }
}

#[tokio::test]
async fn another_host_or_origin_is_refused_even_with_the_token() {
    let daemon = daemon();
    let refusals = [
        (vec![("host", "attacker.example:47913"), OWNER], "Host header names another host"),
        (vec![("host", HOST), ("origin", "https://attacker.example"), OWNER], "another origin"),
        (vec![("host", HOST), ("origin", "null"), OWNER], "another origin"),
        (vec![("host", HOST), ("sec-fetch-site", "cross-site"), OWNER], "cross-site"),
    ];
    for (headers, says) in refusals {
        let (status, body) = daemon.ask(get("/api/health", &headers)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{headers:?}");
        assert_eq!(body["error"]["name"], "Forbidden", "{body}");
        assert!(body["error"]["message"].as_str().unwrap().contains(says), "{body}");
    }
    let (status, _) = daemon
        .ask(get("/api/health", &[("host", HOST), ("origin", "http://127.0.0.1:47913"), OWNER]))
        .await;
    assert_eq!(status, StatusCode::OK, "the workbench's own origin");
}

#[tokio::test]
async fn the_owner_api_needs_the_owner_token() {
    let daemon = daemon();
    for path in ["/api/status", "/api/health"] {
        for token in [None, Some("Bearer wrong"), Some("Bearer owner-toke"), Some("owner-token")] {
            let mut headers = vec![("host", HOST)];
            headers.extend(token.map(|t| ("authorization", t)));
            let (status, body) = daemon.ask(get(path, &headers)).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{path} {token:?}");
            assert!(body["error"]["message"].as_str().unwrap().contains("owner token"), "{body}");
        }
    }
}

#[tokio::test]
async fn the_sdk_needs_an_open_panes_token_and_never_the_owners() {
    let daemon = daemon();
    for token in ["Bearer owner-token", "Bearer cwp_not-a-pane"] {
        let request = Request::post("/api/sdk/notify")
            .header("host", HOST)
            .header("authorization", token)
            .header("content-type", "application/json")
            .body(Body::from("{}"))
            .unwrap();
        let (status, body) = daemon.ask(request).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{token}");
        assert!(body["error"]["message"].as_str().unwrap().contains("pane token"), "{body}");
    }
}

#[tokio::test]
async fn a_body_that_does_not_parse_is_a_json_error_naming_the_field() {
    let daemon = daemon();
    let (status, body) = daemon.ask(post("/api/routines/run", r#"{"workspace": "/tmp"}"#)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["error"]["name"], "BadRequest", "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("missing field `id`"), "{body}");

    let (status, body) =
        daemon.ask(post("/api/consent/answer", r#"{"id": "q1", "granted": "yes"}"#)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("granted"), "{body}");

    let (status, body) = daemon.ask(post("/api/consent/answer", "{not json")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["name"], "BadRequest", "{body}");
}

#[tokio::test]
async fn what_is_not_there_is_a_404_naming_it() {
    let daemon = daemon();
    let (status, body) =
        daemon.ask(post("/api/consent/answer", r#"{"id": "q-gone", "granted": true}"#)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        body,
        json!({ "error": { "name": "NotFound", "message": "no consent question q-gone is waiting (answered already, or its run ended)" } })
    );

    let workspace = tempfile::tempdir().unwrap();
    let query = format!("/api/credentials?workspace={}&name=github", workspace.path().display());
    let (status, body) = daemon.ask(get(&query, &[("host", HOST), OWNER])).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert!(
        body["error"]["message"].as_str().unwrap().contains("no connection \"github\""),
        "{body}"
    );
    assert_eq!(body["error"]["name"], "NotFound", "{body}");
}

#[tokio::test]
async fn a_routine_that_is_not_there_is_an_answer_not_an_http_error() {
    let daemon = daemon();
    let workspace = tempfile::tempdir().unwrap();
    let body = json!({ "workspace": workspace.path(), "id": "nope" }).to_string();
    let (status, body) = daemon.ask(post("/api/routines/run", &body)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["ok"], false, "{body}");
    assert_eq!(body["error"]["name"], "NotFound", "{body}");
    let answer: cowork_wire::daemon::runs::RunAnswer = serde_json::from_value(body).unwrap();
    assert!(matches!(answer, cowork_wire::daemon::runs::RunAnswer::Failed { .. }));
}

/// A workspace with one app, `notes`, whose widget `notes.jsx` draws nothing.
fn notes_workspace() -> tempfile::TempDir {
    let workspace = tempfile::tempdir().unwrap();
    let app = workspace.path().join(".cowork/apps/notes");
    std::fs::create_dir_all(&app).unwrap();
    let manifest = r#"{"name": "notes", "version": "1.0.0", "entry": "notes.jsx"}"#;
    std::fs::write(app.join("cowork.json"), manifest).unwrap();
    std::fs::write(app.join("notes.jsx"), "export default () => null\n").unwrap();
    workspace
}

/// A pane's SDK call with `params`, as the pane of app `notes` in `workspace`: the answer.
async fn sdk(daemon: &Daemon, workspace: &std::path::Path, method: &str, params: Value) -> Value {
    let open = json!({ "workspace": workspace, "app": "notes", "file": "notes.jsx" }).to_string();
    let (status, pane) = daemon.ask(post("/api/panes", &open)).await;
    assert_eq!(status, StatusCode::OK, "{pane}");
    let request = Request::post(format!("/api/sdk/{method}"))
        .header("host", HOST)
        .header("authorization", format!("Bearer {}", pane["paneToken"].as_str().unwrap()))
        .header("content-type", "application/json")
        .body(Body::from(params.to_string()))
        .unwrap();
    let (status, answer) = daemon.ask(request).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer
}

#[tokio::test]
async fn sdk_params_that_do_not_fit_are_a_bad_request_naming_the_field() {
    let daemon = daemon();
    let workspace = notes_workspace();

    for (method, params, field) in [
        ("routines.run", json!({ "args": {} }), "missing field `id`"),
        ("routines.run", json!({ "id": "x", "timeoutMs": "soon" }), "`timeoutMs`"),
        ("routines.runs", json!({ "app": 7 }), "`app`"),
        ("credentials.get", json!({}), "missing field `name`"),
        ("state.get", json!({ "view": ["main"] }), "`view`"),
        ("consent.request", json!({ "value": "send", "title": 3 }), "`title`"),
        ("log", json!({ "parts": "one" }), "`parts`"),
    ] {
        let answer = sdk(&daemon, workspace.path(), method, params).await;
        assert_eq!(answer["ok"], false, "{method}: {answer}");
        assert_eq!(answer["error"]["name"], "BadRequest", "{method}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(method) && message.contains(field), "{method}: {message}");
    }

    // The typed answers keep their wire shapes.
    let set = json!({ "view": "main", "value": { "n": 1 } });
    assert_eq!(
        sdk(&daemon, workspace.path(), "state.set", set).await,
        json!({ "ok": true, "result": null })
    );
    let got = sdk(&daemon, workspace.path(), "state.get", json!({})).await;
    assert_eq!(got, json!({ "ok": true, "result": { "n": 1 } }));
    let runs = sdk(&daemon, workspace.path(), "routines.runs", json!({})).await;
    assert_eq!(runs, json!({ "ok": true, "result": [] }));
}

/// Sets of several views at once all stay: each set rewrites the one `state.json` every view
/// shares, so two that read it at the same time used to lose one of them (a pane reloaded to an
/// older count).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn views_set_at_the_same_time_each_keep_their_state() {
    let daemon = std::sync::Arc::new(daemon());
    let workspace = notes_workspace();
    let open = json!({ "workspace": workspace.path(), "app": "notes", "file": "notes.jsx" });
    let (status, pane) = daemon.ask(post("/api/panes", &open.to_string())).await;
    assert_eq!(status, StatusCode::OK, "{pane}");
    let token = pane["paneToken"].as_str().unwrap().to_string();
    let call = |method: &str, params: Value| {
        Request::post(format!("/api/sdk/{method}"))
            .header("host", HOST)
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/json")
            .body(Body::from(params.to_string()))
            .unwrap()
    };
    let sets = (0..24).map(|n| {
        let (daemon, request) =
            (daemon.clone(), call("state.set", json!({ "view": format!("v{n}"), "value": n })));
        tokio::spawn(async move { daemon.ask(request).await })
    });
    for set in futures_util::future::join_all(sets).await {
        assert_eq!(set.unwrap(), (StatusCode::OK, json!({ "ok": true, "result": null })));
    }
    for n in 0..24 {
        let got = daemon.ask(call("state.get", json!({ "view": format!("v{n}") }))).await;
        assert_eq!(got.1, json!({ "ok": true, "result": n }), "view v{n}");
    }
}

/// Manage Workspace › Permissions: a login made there opens this workspace; one made elsewhere
/// is shown as not let in until the owner lets it in (and out again), as `cowork agent workspaces`.
#[tokio::test]
async fn the_permissions_page_makes_logins_here_and_lets_others_in_or_out() {
    let daemon = daemon();
    let (ws, other, plain) =
        (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for dir in [&ws, &other] {
        std::fs::create_dir_all(dir.path().join(".cowork")).unwrap();
    }
    let here = ws.path().canonicalize().unwrap();
    let body = |name: &str, action: &str| {
        json!({ "workspace": ws.path(), "name": name, "action": action }).to_string()
    };
    let agents = || async {
        let list = format!("/api/agents?workspace={}", ws.path().display());
        let (status, info) = daemon.ask(get(&list, &[("host", HOST), OWNER])).await;
        assert_eq!(status, StatusCode::OK, "{info}");
        info["agents"].clone()
    };

    let created = json!({ "workspace": ws.path(), "name": "claude" }).to_string();
    assert_eq!(daemon.ask(post("/api/agents", &created)).await.0, StatusCode::OK);
    let root = daemon.state.engine.root();
    cowork_core::agents::Logins::new(root).create("codex", other.path()).unwrap();
    let listed = agents().await;
    assert_eq!(
        (listed[0]["name"].clone(), listed[0]["here"].clone()),
        (json!("claude"), json!(true))
    );
    assert_eq!(listed[0]["workspaces"], json!([here]));
    assert_eq!(listed[1]["here"], false, "made in another workspace: {listed}");

    let (status, changed) = daemon.ask(post("/api/agents/workspaces", &body("codex", "add"))).await;
    assert_eq!((status, changed), (StatusCode::OK, json!({ "changed": true })));
    assert_eq!(agents().await[1]["here"], true);
    let (_, again) = daemon.ask(post("/api/agents/workspaces", &body("codex", "add"))).await;
    assert_eq!(again, json!({ "changed": false }));
    let (_, removed) = daemon.ask(post("/api/agents/workspaces", &body("codex", "remove"))).await;
    assert_eq!(removed, json!({ "changed": true }));
    assert_eq!(agents().await[1]["here"], false);

    let (status, unknown) =
        daemon.ask(post("/api/agents/workspaces", &body("nobody", "add"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{unknown}");
    let outside = json!({ "workspace": plain.path(), "name": "gemini" }).to_string();
    let (status, refused) = daemon.ask(post("/api/agents", &outside)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("is not a Cowork workspace"));
}

#[tokio::test]
async fn a_code_exchange_from_elsewhere_is_refused_before_its_body_is_read() {
    let daemon = daemon();
    // A body that never arrives: a handler that read it first would wait for ever. The router is
    // asked without a peer address, which is never a window on this computer (fail closed).
    let never =
        Body::from_stream(futures_util::stream::pending::<Result<Vec<u8>, std::io::Error>>());
    let request = Request::post("/api/session")
        .header("host", HOST)
        .header("content-type", "application/json")
        .body(never)
        .unwrap();
    let answer = tokio::time::timeout(std::time::Duration::from_secs(10), daemon.ask(request))
        .await
        .expect("the refusal waited for the body");
    assert_eq!(answer.0, StatusCode::FORBIDDEN, "{}", answer.1);
    assert_eq!(answer.1["error"]["name"], "NotHere", "{}", answer.1);
}

/// Fuzzing the owner's request bodies: any bytes, and any JSON under each route's own field names,
/// posted to the routes that take a body — never a panic or a 5xx, and every refusal the daemon's
/// named JSON error. Workspaces are pinned to a temporary one (a fuzzed path must not make the
/// daemon write into a real folder); routes that open windows or programs, or stop the daemon, are
/// left out. `PROPTEST_CASES=20000 cargo test -p cowork-daemon --test routes fuzz_` for a long run.
mod fuzz {
    use super::*;
    use proptest::prelude::*;

    /// Each route and the fields its body may have.
    const ROUTES: &[(&str, &[&str])] = &[
        ("/api/routines/run", &["id", "args", "timeoutMs", "agent"]),
        ("/api/apps/enable", &["app", "enabled", "muted"]),
        ("/api/apps/mute", &["app", "enabled", "muted"]),
        ("/api/rail", &["folders"]),
        ("/api/panes", &["app", "widget", "view", "props"]),
        ("/api/queues", &["method", "queue", "id", "body", "options", "query", "receipt"]),
        ("/api/deploy/active", &["id", "active", "routine", "expected"]),
        ("/api/agents/grant", &["agent", "app", "routines", "grant"]),
        ("/api/agents/workspaces", &["name", "action"]),
        ("/api/consent/answer", &["id", "granted", "remember"]),
        ("/api/statusbar/click", &["app", "item", "id"]),
        ("/api/session/code", &["workspace"]),
    ];

    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            ".{0,12}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
                prop::collection::btree_map("[a-zA-Z]{0,8}", inner, 0..5)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    fn check(daemon: &Daemon, route: &str, body: Vec<u8>) {
        let request = Request::post(route)
            .header("host", HOST)
            .header("authorization", format!("Bearer {TOKEN}"))
            .header("content-type", "application/json")
            .body(Body::from(body.clone()))
            .unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        let response = runtime.block_on(app(daemon.state.clone()).oneshot(request)).unwrap();
        let status = response.status();
        let bytes = runtime.block_on(axum::body::to_bytes(response.into_body(), 1 << 20)).unwrap();
        let sent = String::from_utf8_lossy(&body);
        assert!(
            !status.is_server_error(),
            "{route} {sent}: {status} {}",
            String::from_utf8_lossy(&bytes)
        );
        if !status.is_success() {
            let answer: Value = serde_json::from_slice(&bytes).unwrap_or_else(|_| {
                panic!("{route} {sent}: {status} not JSON: {}", String::from_utf8_lossy(&bytes))
            });
            let name = answer["error"]["name"].as_str().unwrap_or_default();
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert!(!name.is_empty() && !message.is_empty(), "{route} {sent}: {answer}");
        }
    }

    proptest! {
        // Each case builds a daemon: 64 by default, PROPTEST_CASES for a long run.
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(64)
        ))]

        #[test]
        fn fuzz_any_body_on_any_route_is_answered_or_named(
            route in prop::sample::select(ROUTES),
            fields in prop::collection::vec((any::<prop::sample::Index>(), json()), 0..5),
            raw in prop::option::of(prop::collection::vec(any::<u8>(), 0..64)),
        ) {
            let daemon = daemon();
            let workspace = tempfile::tempdir().unwrap();
            let (path, names) = route;
            let body = match raw {
                Some(bytes) => bytes,
                None => {
                    let mut object: serde_json::Map<String, Value> = fields
                        .into_iter()
                        .map(|(index, value)| (names[index.index(names.len())].to_string(), value))
                        .collect();
                    object.insert("workspace".into(), json!(workspace.path()));
                    Value::Object(object).to_string().into_bytes()
                }
            };
            check(&daemon, path, body);
        }
    }
}

#[tokio::test]
async fn the_account_is_the_owners_and_a_widget_sees_the_signed_in_user() {
    let daemon = daemon();
    let (status, _) = daemon.ask(get("/api/account", &[("host", HOST)])).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "the owner's only");
    let (status, body) = daemon.ask(get("/api/account", &[("host", HOST), OWNER])).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body,
        json!({ "hub": null, "user": null, "teamServers": [], "polledAt": null, "signingIn": false })
    );

    // A router served without the peer's address cannot tell a window is local: a sign-in fails
    // closed, by name.
    let (status, body) = daemon.ask(post("/api/account/sign-in", "{}")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["error"]["name"], "NotHere", "{body}");

    let workspace = notes_workspace();
    let nobody = sdk(&daemon, workspace.path(), "identity.currentUser", json!({})).await;
    assert_eq!(nobody, json!({ "ok": true, "result": null }));

    // Signed in (as `cowork login` leaves account.json): the widget sees uid and email, no more.
    let signed_in = json!({ "hub": "http://127.0.0.1:1", "signedIn": {
        "hub": "http://127.0.0.1:1",
        "user": { "uid": "u1", "email": "ana@example.com", "displayName": "Ana" },
        "organization": { "id": "o1", "slug": "acme", "name": "Acme" },
        "manages": [], "hubAdmin": false, "sessionId": "s1", "method": "password", "signedInAt": 0 } });
    std::fs::write(daemon._home.path().join("account.json"), signed_in.to_string()).unwrap();
    let ana = sdk(&daemon, workspace.path(), "identity.currentUser", json!({})).await;
    assert_eq!(ana, json!({ "ok": true, "result": { "uid": "u1", "email": "ana@example.com" } }));
    let (_, body) = daemon.ask(get("/api/account", &[("host", HOST), OWNER])).await;
    assert_eq!(body["user"]["organization"]["slug"], "acme", "{body}");
}

#[path = "routes/consent.rs"]
mod consent;
#[path = "support/sse.rs"]
mod sse;
#[path = "routes/store.rs"]
mod store;
#[path = "routes/streams.rs"]
mod streams;
#[path = "routes/web_apps.rs"]
mod web_apps;
