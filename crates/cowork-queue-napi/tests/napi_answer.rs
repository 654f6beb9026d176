//! The module's one call as Rust calls it: the answers the runner receives, in the daemon's shape.

use cowork_queue_napi::answer;
use serde_json::Value;

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn answers_as_the_daemon_does_and_keeps_to_one_workspace() {
    let (dir, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path().to_str().unwrap();
    let sent = parsed(&answer(root, r#"{"method":"send","queue":"inbox","body":"hi"}"#));
    assert!(sent["ok"]["id"].is_i64(), "{sent}");
    let bad = parsed(&answer(root, r#"{"method":"send","queue":"inbox"}"#));
    assert_eq!(bad["error"]["name"], "BadRequest", "{bad}");
    assert!(bad["error"]["message"].as_str().unwrap().starts_with("ctx request \"queue\": "));
    let gone = parsed(&answer(root, r#"{"method":"peek","queue":"inbox","id":999}"#));
    assert_eq!(gone["error"]["name"], "NotFound", "{gone}");
    let elsewhere =
        parsed(&answer(other.path().to_str().unwrap(), r#"{"method":"counts","queue":"inbox"}"#));
    assert_eq!(elsewhere["error"]["name"], "BadRequest", "{elsewhere}");
    assert!(!other.path().join(".cowork/local/queues.db").exists(), "nothing opened elsewhere");
}
