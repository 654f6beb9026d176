//! One consent question in two windows (a browser tab beside the desktop app, or two tabs): both
//! are asked, the first answer counts, and both hear the question close — answered, or withdrawn
//! when the view that asked closed — so the other window closes its dialog instead of leaving it
//! up for an answer nobody reads.

use super::streams::{as_pane, call, pane};
use super::*;
use crate::sse::Events;

/// A window following `GET /api/consent/requests`: its events, one per server-sent event.
async fn follow(daemon: &Daemon) -> Events {
    let request = get("/api/consent/requests", &[("host", HOST), OWNER]);
    let response = app(daemon.state.clone()).oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    Events::new(response)
}

/// The pane `token` asks `cowork.consent.request`; its answer, once the person (or nobody) gave it.
fn ask(daemon: &Daemon, token: &str, value: &str) -> tokio::task::JoinHandle<Value> {
    let params = json!({ "value": value, "title": "Open a terminal?" });
    let request = as_pane("/api/sdk/consent.request", token, params);
    let router = app(daemon.state.clone());
    tokio::spawn(async move {
        let response = router.oneshot(request).await.unwrap();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
        serde_json::from_slice(&bytes).unwrap()
    })
}

#[tokio::test]
async fn every_window_hears_a_question_close_when_another_answers_or_its_view_closes() {
    let daemon = daemon();
    let workspace = notes_workspace();
    let token = pane(&daemon, workspace.path()).await;
    let (mut first, mut second) = (follow(&daemon).await, follow(&daemon).await);

    let asking = ask(&daemon, &token, "bash");
    let question = first.next().await;
    assert_eq!(question["title"], "Open a terminal?", "{question}");
    assert_eq!(second.next().await, question, "both windows are asked");
    let id = question["id"].as_str().unwrap();
    let answer = json!({ "id": id, "granted": true }).to_string();
    let (status, body) = daemon.ask(post("/api/consent/answer", &answer)).await;
    assert_eq!((status, body), (StatusCode::OK, json!({ "answered": true })));
    let closed = json!({ "id": id, "closed": "answered" });
    assert_eq!(first.next().await, closed);
    assert_eq!(second.next().await, closed, "the other window closes its dialog");
    assert_eq!(asking.await.unwrap()["result"]["granted"], true);

    // The view that asks closes while its question is open: withdrawn, in every window.
    let asking = ask(&daemon, &token, "bash");
    let id = first.next().await["id"].as_str().unwrap().to_string();
    assert_eq!(second.next().await["id"], id);
    call(&daemon, &token, "pane.close", json!({})).await;
    let withdrawn = json!({ "id": id, "closed": "withdrawn" });
    assert_eq!(first.next().await, withdrawn);
    assert_eq!(second.next().await, withdrawn);
    let answer = asking.await.unwrap();
    assert_eq!(answer["result"]["granted"], false, "{answer}");
    assert_eq!(answer["result"]["message"], "the view that asked was closed");
}
