//! The typed verbs (`send`, `receive`, `ack` without options) against the JSON `call`: the same
//! answers and the same refusals. A test binary of its own: the module holds one store per
//! process, as a routine's process does.

use cowork_queue_napi::{ack, answer, receive, send};
use serde_json::{json, Value};

/// An answer with what two equal calls made one after the other do not share (the task's id,
/// times, receipt) blanked.
fn settled(text: &str) -> Value {
    fn blank(value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (key, field) in map.iter_mut() {
                    let volatile =
                        ["id", "created", "updated", "availableAt", "leaseUntil", "receipt"];
                    if volatile.contains(&key.as_str()) && !field.is_null() {
                        *field = Value::from("…");
                    } else {
                        blank(field);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(blank),
            _ => {}
        }
    }
    let mut value: Value = serde_json::from_str(text).unwrap();
    blank(&mut value);
    value
}

fn same(by_json: String, by_typed: String) -> (Value, Value) {
    assert_eq!(settled(&by_json), settled(&by_typed), "JSON: {by_json}\ntyped: {by_typed}");
    (serde_json::from_str(&by_json).unwrap(), serde_json::from_str(&by_typed).unwrap())
}

#[test]
fn the_typed_verbs_answer_what_the_json_call_answers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let call = |request: Value| answer(root, &request.to_string());

    let (sent, _) = same(
        call(json!({"method": "send", "queue": "inbox", "body": "hi"})),
        send(root, "inbox", "hi"),
    );
    assert_eq!(sent["ok"]["status"], "todo", "{sent}");
    // Received with `as` and without (then nothing is left).
    let (one, two) = same(
        call(json!({"method": "receive", "queue": "inbox", "options": {"as": "worker"}})),
        receive(root, "inbox", Some("worker")),
    );
    assert_eq!(one["ok"]["holder"], "worker", "{one}");
    same(
        call(json!({"method": "receive", "queue": "inbox", "options": {}})),
        receive(root, "inbox", None),
    );
    // Acked, each with its own receipt: done.
    let task = |v: &Value| {
        (v["ok"]["id"].as_i64().unwrap(), v["ok"]["receipt"].as_str().unwrap().to_string())
    };
    let ((a, a_receipt), (b, b_receipt)) = (task(&one), task(&two));
    let (done, _) = same(
        call(json!({"method": "ack", "queue": "inbox", "id": a, "receipt": a_receipt})),
        ack(root, "inbox", b, &b_receipt),
    );
    assert_eq!(done["ok"]["status"], "done", "{done}");
    // The refusals, named and worded alike: a stale receipt, no receipt, no such task, a bad
    // queue name, no such queue.
    for (id, receipt) in [(a, a_receipt.as_str()), (a, ""), (999, "x")] {
        let (refused, _) = same(
            call(json!({"method": "ack", "queue": "inbox", "id": id, "receipt": receipt})),
            ack(root, "inbox", id, receipt),
        );
        assert!(refused["error"]["name"].is_string(), "{refused}");
    }
    let (bad, _) =
        same(call(json!({"method": "send", "queue": "", "body": "x"})), send(root, "", "x"));
    assert_eq!(bad["error"]["name"], "BadRequest", "{bad}");
    let (none, _) = same(
        call(json!({"method": "receive", "queue": "nowhere", "options": {}})),
        receive(root, "nowhere", None),
    );
    assert!(none["error"]["name"].is_string() || none["ok"].is_null(), "{none}");
    // Another workspace is refused on the typed path too.
    let other = tempfile::tempdir().unwrap();
    let elsewhere: Value =
        serde_json::from_str(&send(other.path().to_str().unwrap(), "inbox", "x")).unwrap();
    assert_eq!(elsewhere["error"]["name"], "BadRequest", "{elsewhere}");
}
