//! `cowork.capture` through the daemon's routes, with this test playing the desktop shell over its
//! real channel (`GET /api/desktop/requests`, `POST /api/desktop/capture/answer` and `/event`):
//! what a pane is refused before anyone is asked, what the shell is asked, and what the pane gets.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use cowork_daemon::{app, AppState};
use serde_json::{json, Value};
use std::path::Path;
use tower::ServiceExt;

#[path = "support/sse.rs"]
mod sse;

const TOKEN: &str = "owner-token";
const HOST: &str = "127.0.0.1:47913";

fn state(home: &Path) -> AppState {
    let engine = cowork_engine::Engine::new(
        cowork_core::paths::Root::new(home),
        cowork_engine::EngineConfig { watch: false, ..Default::default() },
    );
    // Streams end when the daemon stops (its sender says so, or goes): this one never stops.
    let (running, stopping) = tokio::sync::watch::channel(false);
    std::mem::forget(running);
    AppState {
        engine,
        token: TOKEN.into(),
        port: 47913,
        started: std::time::Instant::now(),
        shutdown: Default::default(),
        panes: Default::default(),
        default_workspace: None,
        stopping,
        desktop: Default::default(),
        codes: Default::default(),
        mcp: Default::default(),
        door: Default::default(),
        account: cowork_daemon::account::AccountHost::new(&cowork_core::paths::Root::new(home)),
        chat: Default::default(),
    }
}

fn request(method: &str, path: &str, bearer: &str, body: Value) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(path)
        .header("host", HOST)
        .header("authorization", format!("Bearer {bearer}"))
        .header("content-type", "application/json")
        .body(if method == "GET" { Body::empty() } else { Body::from(body.to_string()) })
        .unwrap()
}

async fn ask(state: &AppState, request: Request<Body>) -> (StatusCode, Value) {
    let response = app(state.clone()).oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// A workspace with the app `rec` declaring `capture`, and a pane of it: (workspace, pane token).
async fn pane(state: &AppState, capture: Value) -> (tempfile::TempDir, String) {
    let workspace = tempfile::tempdir().unwrap();
    let dir = workspace.path().join(".cowork/apps/rec");
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = json!({ "name": "rec", "version": "1.0.0", "title": "Recorder", "entry": "rec.jsx", "capture": capture });
    std::fs::write(dir.join("cowork.json"), manifest.to_string()).unwrap();
    std::fs::write(dir.join("rec.jsx"), "export default () => null\n").unwrap();
    let open = json!({ "workspace": workspace.path(), "app": "rec", "file": "rec.jsx" });
    let (status, pane) = ask(state, request("POST", "/api/panes", TOKEN, open)).await;
    assert_eq!(status, StatusCode::OK, "{pane}");
    (workspace, pane["paneToken"].as_str().unwrap().to_string())
}

async fn sdk(state: &AppState, token: &str, method: &str, params: Value) -> Value {
    let (status, answer) =
        ask(state, request("POST", &format!("/api/sdk/{method}"), token, params)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer
}

/// The shell's side of the desktop channel: the requests it receives, one per server-sent event.
struct Shell {
    events: sse::Events,
}

impl Shell {
    async fn attach(state: &AppState) -> Shell {
        let response = app(state.clone())
            .oneshot(request("GET", "/api/desktop/requests", TOKEN, Value::Null))
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        Shell { events: sse::Events::new(response) }
    }

    async fn next(&mut self) -> Value {
        self.events.next().await
    }
}

#[tokio::test]
async fn without_the_desktop_app_capture_is_unsupported() {
    let home = tempfile::tempdir().unwrap();
    let state = state(home.path());
    let (_workspace, token) = pane(&state, json!(["screen", "screenshot"])).await;
    for method in ["capture.record", "capture.shot"] {
        let answer = sdk(&state, &token, method, json!({})).await;
        assert_eq!(answer["error"]["name"], "Unsupported", "{method}: {answer}");
        assert!(
            answer["error"]["message"].as_str().unwrap().contains("cowork app serve"),
            "{answer}"
        );
    }
    assert_eq!(sdk(&state, &token, "capture.current", json!({})).await["result"], Value::Null);
}

#[tokio::test]
async fn what_the_manifest_does_not_declare_or_a_file_outside_is_refused_before_anyone_is_asked() {
    let home = tempfile::tempdir().unwrap();
    let state = state(home.path());
    let _shell = Shell::attach(&state).await;
    let (_workspace, token) = pane(&state, json!(["screen"])).await;
    let shot = sdk(&state, &token, "capture.shot", json!({})).await;
    assert_eq!(shot["error"]["name"], "NotDeclared", "{shot}");
    let mic = sdk(&state, &token, "capture.record", json!({ "audio": { "mic": true } })).await;
    assert_eq!(mic["error"]["name"], "NotDeclared", "{mic}");
    assert!(mic["error"]["message"].as_str().unwrap().contains("\"mic\""), "{mic}");
    let outside = sdk(&state, &token, "capture.record", json!({ "file": "../out.webm" })).await;
    assert_eq!(outside["error"]["name"], "Forbidden", "{outside}");
    let bad = sdk(&state, &token, "capture.record", json!({ "video": "tab" })).await;
    assert_eq!(bad["error"]["name"], "BadRequest", "{bad}");
}

#[tokio::test]
async fn the_shell_is_asked_and_the_pane_gets_its_session_then_its_end() {
    let home = tempfile::tempdir().unwrap();
    let state = state(home.path());
    let mut shell = Shell::attach(&state).await;
    let (workspace, token) = pane(&state, json!(["screen", "system-audio"])).await;
    let params = json!({ "audio": { "system": true }, "live": true, "file": "talks/one.webm" });
    let recording = {
        let (state, token) = (state.clone(), token.clone());
        tokio::spawn(async move { sdk(&state, &token, "capture.record", params).await })
    };
    let asked = shell.next().await;
    assert_eq!(asked["type"], "capture");
    assert_eq!(asked["appTitle"], "Recorder");
    let order = &asked["order"];
    assert_eq!(order["kind"], "record");
    assert_eq!(
        (order["video"].as_str(), order["systemAudio"].as_bool()),
        (Some("screen"), Some(true))
    );
    assert_eq!(order["live"], true);
    assert_eq!(Path::new(order["file"].as_str().unwrap()), workspace.path().join("talks/one.webm"));

    // While the person is asked, the workspace's one capture is taken.
    let busy = sdk(&state, &token, "capture.shot", json!({})).await;
    assert_eq!(busy["error"]["name"], "NotDeclared", "the manifest is checked first: {busy}");
    let busy = sdk(&state, &token, "capture.record", json!({})).await;
    assert_eq!(busy["error"]["name"], "Busy", "{busy}");

    let answer = json!({ "id": asked["id"], "outcome": "started", "session": "r1" });
    let (status, _) =
        ask(&state, request("POST", "/api/desktop/capture/answer", TOKEN, answer)).await;
    assert_eq!(status, StatusCode::OK);
    let started = recording.await.unwrap();
    assert_eq!(started["result"], json!({ "id": "r1", "file": "talks/one.webm" }), "{started}");
    let current = sdk(&state, &token, "capture.current", json!({})).await;
    assert_eq!(current["result"], json!({ "id": "r1", "file": "talks/one.webm" }));

    // stop() asks the shell and waits for the end it reports.
    let stopping = {
        let (state, token) = (state.clone(), token.clone());
        tokio::spawn(
            async move { sdk(&state, &token, "capture.stop", json!({ "id": "r1" })).await },
        )
    };
    assert_eq!(shell.next().await, json!({ "type": "captureStop", "session": "r1" }));
    let end = json!({ "type": "stopped", "session": "r1", "reason": "stop() from its app" });
    let (status, _) = ask(&state, request("POST", "/api/desktop/capture/event", TOKEN, end)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(stopping.await.unwrap(), json!({ "ok": true, "result": null }));
    assert_eq!(sdk(&state, &token, "capture.current", json!({})).await["result"], Value::Null);
    // The slot is free again: the next ask reaches the shell.
    let again = {
        let (state, token) = (state.clone(), token.clone());
        tokio::spawn(async move { sdk(&state, &token, "capture.record", json!({})).await })
    };
    assert_eq!(shell.next().await["type"], "capture");
    again.abort();
}

#[tokio::test]
async fn a_no_in_the_dialog_is_denied_and_frees_the_workspace() {
    let home = tempfile::tempdir().unwrap();
    let state = state(home.path());
    let mut shell = Shell::attach(&state).await;
    let (_workspace, token) = pane(&state, json!(["screenshot"])).await;
    let shot = {
        let (state, token) = (state.clone(), token.clone());
        tokio::spawn(
            async move { sdk(&state, &token, "capture.shot", json!({ "image": true })).await },
        )
    };
    let asked = shell.next().await;
    assert_eq!(
        asked["order"],
        json!({ "kind": "shot", "source": "screen", "file": null, "image": true })
    );
    let no = json!({ "id": asked["id"], "outcome": "failed", "name": "Denied", "message": "the person said no to the capture" });
    ask(&state, request("POST", "/api/desktop/capture/answer", TOKEN, no)).await;
    let answer = shot.await.unwrap();
    assert_eq!(answer["error"]["name"], "Denied", "{answer}");
    // The slot was let go: the next ask reaches the shell.
    let again = {
        let (state, token) = (state.clone(), token.clone());
        tokio::spawn(
            async move { sdk(&state, &token, "capture.shot", json!({ "image": true })).await },
        )
    };
    let asked = shell.next().await;
    let png = json!({ "id": asked["id"], "outcome": "shot", "imageBase64": "iVBORw0KGgo=" });
    ask(&state, request("POST", "/api/desktop/capture/answer", TOKEN, png)).await;
    assert_eq!(again.await.unwrap()["result"], json!({ "imageBase64": "iVBORw0KGgo=" }));
}

#[tokio::test]
async fn a_recording_stopped_by_a_full_disk_tells_its_pane_disk_full_and_says_so() {
    let home = tempfile::tempdir().unwrap();
    let state = state(home.path());
    let mut shell = Shell::attach(&state).await;
    let (_workspace, token) = pane(&state, json!(["screen"])).await;
    let mut events = state.engine.subscribe();
    let recording = {
        let (state, token) = (state.clone(), token.clone());
        tokio::spawn(async move { sdk(&state, &token, "capture.record", json!({})).await })
    };
    let asked = shell.next().await;
    let answer = json!({ "id": asked["id"], "outcome": "started", "session": "r2" });
    ask(&state, request("POST", "/api/desktop/capture/answer", TOKEN, answer)).await;
    let file = recording.await.unwrap()["result"]["file"].as_str().unwrap().to_string();

    // The shell stopped it: free space fell under 2 GB.
    let end = json!({ "type": "stopped", "session": "r2", "reason": "under 2 GB of free disk space", "error": "DiskFull" });
    let (status, _) = ask(&state, request("POST", "/api/desktop/capture/event", TOKEN, end)).await;
    assert_eq!(status, StatusCode::OK);
    let mut said = Vec::new();
    let stopped = loop {
        let event = tokio::time::timeout(std::time::Duration::from_secs(5), events.recv())
            .await
            .expect("an event within 5 s")
            .unwrap();
        let event = serde_json::to_value(&event).unwrap();
        match event["type"].as_str() {
            Some("capture") => break event,
            Some("log") => said.push(event["line"].as_str().unwrap().to_string()),
            Some("notification") => {
                said.push(event["notification"]["title"].as_str().unwrap().to_string())
            }
            _ => {}
        }
    };
    assert_eq!(
        (&stopped["stopped"], &stopped["reason"], &stopped["error"]),
        (&json!(file), &json!("under 2 GB of free disk space"), &json!("DiskFull")),
        "{stopped}"
    );
    // The Output panel and the bell say why.
    let line = format!("Recording saved to {file} (under 2 GB of free disk space)");
    assert_eq!(said.iter().filter(|s| **s == line).count(), 2, "{said:?}");
}
