//! Codex's `app-server` protocol, read and written: JSON-RPC, one object a line on stdio. The host
//! sends `initialize` (then `initialized`), `thread/start` or `thread/resume` (a thread is the
//! conversation's session, its id what the Chat keeps to resume), `turn/start` per message and
//! `turn/interrupt`; Codex streams notifications (`item/agentMessage/delta`, `item/started`,
//! `item/completed`, `turn/completed`, `error`) and asks the host with requests of its own
//! (approvals, `item/tool/requestUserInput`), which the Chat turns into its prompts and questions.
//! Each line becomes the same [`Output`] Claude Code's stream-json does.

use super::protocol::Output;
use cowork_wire::chat::{ChatEventKind, Question, QuestionOption};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The tool name a question request is shown under (as Claude Code's, so the Chat answers both
/// alike).
pub const QUESTION: &str = "AskUserQuestion";

/// The request ids of the server's requests, as text: its JSON (`3`, `"a"`), parsed back to reply.
fn id_text(id: &Value) -> String {
    id.to_string()
}

/// Reads one line Codex printed.
pub fn read(line: &str) -> Output {
    let Ok(message) = serde_json::from_str::<Value>(line) else { return Output::Nothing };
    let text = |v: &Value| v.as_str().map(str::to_string);
    let method = message["method"].as_str();
    let params = &message["params"];
    match (method, message.get("id")) {
        // An answer to a request of ours.
        (None, Some(id)) => {
            let request_id = text(id).unwrap_or_else(|| id_text(id));
            match message.get("error") {
                Some(error) => Output::Refused {
                    request_id,
                    message: text(&error["message"]).unwrap_or_else(|| error.to_string()),
                },
                None => Output::Answered { request_id, result: message["result"].clone() },
            }
        }
        // A request of Codex's: the person decides.
        (Some(method), Some(id)) => {
            let request_id = id_text(id);
            let (tool, input) = match method {
                "item/commandExecution/requestApproval" => (
                    "shell".to_string(),
                    json!({ "command": params["command"], "cwd": params["cwd"], "reason": params["reason"] }),
                ),
                "item/fileChange/requestApproval" => (
                    "apply_patch".to_string(),
                    json!({ "reason": params["reason"], "grantRoot": params["grantRoot"] }),
                ),
                "mcpServer/elicitation/request" => (
                    format!("mcp__{}", params["serverName"].as_str().unwrap_or("server")),
                    json!({ "message": params["message"] }),
                ),
                "item/tool/requestUserInput" => (QUESTION.to_string(), params.clone()),
                _ => return Output::Unsupported { request_id },
            };
            Output::CanUseTool { request_id, tool, input }
        }
        (Some(method), None) => notification(method, params),
        (None, None) => Output::Nothing,
    }
}

fn notification(method: &str, params: &Value) -> Output {
    let text = |v: &Value| v.as_str().map(str::to_string);
    match method {
        "item/agentMessage/delta" => match text(&params["delta"]) {
            Some(text) => Output::Show(vec![ChatEventKind::Text { text }]),
            None => Output::Nothing,
        },
        "item/started" => match tool_call(&params["item"]) {
            Some(call) => Output::Show(vec![call]),
            None => Output::Nothing,
        },
        "item/completed" => match tool_result(&params["item"]) {
            Some(result) => Output::Show(vec![result]),
            None => Output::Nothing,
        },
        "turn/started" => match text(&params["turn"]["id"]) {
            Some(turn) => Output::TurnStarted { turn },
            None => Output::Nothing,
        },
        "turn/completed" => {
            let turn = &params["turn"];
            let failed = turn["status"] == "failed";
            let said = turn["items"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|i| i["type"] == "agentMessage")
                .filter_map(|i| i["text"].as_str())
                .next_back()
                .map(str::to_string);
            let result = match failed {
                true => text(&turn["error"]["message"]).or(said),
                false => said,
            };
            Output::Result { result, is_error: failed }
        }
        // No connection to the model API (refused, no DNS): it waits for the network.
        "error" if offline(&params["error"]["codexErrorInfo"]) => {
            let error = &params["error"];
            let detail = text(&error["additionalDetails"]).or_else(|| text(&error["message"]));
            Output::Offline { detail: detail.unwrap_or_default() }
        }
        // An error it will not retry: the turn fails with it (`turn/completed` follows).
        "error" if params["willRetry"] != true => Output::Failed {
            message: text(&params["error"]["message"]).unwrap_or_default(),
            info: params["error"]["codexErrorInfo"].clone(),
        },
        _ => Output::Nothing,
    }
}

/// A connection failure without an HTTP status: the model API was never reached.
fn offline(info: &Value) -> bool {
    ["httpConnectionFailed", "responseStreamConnectionFailed", "responseStreamDisconnected"]
        .iter()
        .any(|kind| info.get(kind).is_some_and(|v| v["httpStatusCode"].is_null()))
}

/// An item that calls a tool, as the Chat shows it.
fn tool_call(item: &Value) -> Option<ChatEventKind> {
    let id = item["id"].as_str()?.to_string();
    let (name, input) = match item["type"].as_str()? {
        "mcpToolCall" => (
            format!(
                "mcp__{}__{}",
                item["server"].as_str().unwrap_or_default(),
                item["tool"].as_str().unwrap_or_default()
            ),
            item["arguments"].clone(),
        ),
        "commandExecution" => ("shell".into(), json!({ "command": item["command"] })),
        "fileChange" => ("apply_patch".into(), json!({ "changes": item["changes"] })),
        "dynamicToolCall" => {
            (item["tool"].as_str().unwrap_or_default().to_string(), item["arguments"].clone())
        }
        _ => return None,
    };
    Some(ChatEventKind::ToolCall { id, name, input })
}

/// A finished tool item's result.
fn tool_result(item: &Value) -> Option<ChatEventKind> {
    let id = item["id"].as_str()?.to_string();
    let failed = |status: &Value| status == "failed" || status == "declined";
    let (output, is_error) = match item["type"].as_str()? {
        "mcpToolCall" => match item["error"]["message"].as_str() {
            Some(message) => (message.to_string(), true),
            None => {
                let content = &item["result"]["content"];
                let text = content
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n");
                let is_error = item["result"]["isError"] == true || failed(&item["status"]);
                (text, is_error)
            }
        },
        "commandExecution" => (
            item["aggregatedOutput"].as_str().unwrap_or_default().to_string(),
            failed(&item["status"]) || item["exitCode"].as_i64().is_some_and(|c| c != 0),
        ),
        "fileChange" => {
            (item["status"].as_str().unwrap_or_default().to_string(), failed(&item["status"]))
        }
        "dynamicToolCall" => (String::new(), item["success"] == false),
        _ => return None,
    };
    Some(ChatEventKind::ToolResult { id, output, is_error })
}

/// A question request's questions, as the Chat shows them.
pub fn questions(input: &Value) -> Vec<Question> {
    input["questions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|q| Question {
            question: q["question"].as_str().unwrap_or_default().to_string(),
            header: q["header"].as_str().map(str::to_string),
            options: q["options"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|o| QuestionOption {
                    label: o["label"].as_str().unwrap_or_default().to_string(),
                    description: o["description"].as_str().map(str::to_string),
                })
                .collect(),
            multi_select: false,
        })
        .collect()
}

/// A request of the host.
pub fn request(id: &str, method: &str, params: Value) -> Value {
    json!({ "id": id, "method": method, "params": params })
}

/// `initialize`, as a host introduces itself.
pub fn initialize(id: &str) -> Value {
    request(
        id,
        "initialize",
        json!({
            "clientInfo": { "name": "cowork", "title": "Cowork Studio", "version": env!("CARGO_PKG_VERSION") },
            "capabilities": null
        }),
    )
}

/// The notification that follows `initialize`'s answer.
pub fn initialized() -> Value {
    json!({ "method": "initialized" })
}

/// A new thread in `cwd`, or the thread `resume` went on with.
pub fn thread(id: &str, cwd: &std::path::Path, resume: Option<&str>) -> Value {
    match resume {
        Some(thread) => request(id, "thread/resume", json!({ "threadId": thread, "cwd": cwd })),
        None => request(id, "thread/start", json!({ "cwd": cwd })),
    }
}

/// A message of the person: a turn of `thread`.
pub fn turn(id: &str, thread: &str, text: &str) -> Value {
    request(
        id,
        "turn/start",
        json!({ "threadId": thread, "input": [{ "type": "text", "text": text, "text_elements": [] }] }),
    )
}

/// Stops the running turn.
pub fn interrupt(id: &str, thread: &str, turn: &str) -> Value {
    request(id, "turn/interrupt", json!({ "threadId": thread, "turnId": turn }))
}

/// A request id of Codex's as JSON again (from [`id_text`]).
fn id_json(request_id: &str) -> Value {
    serde_json::from_str::<Value>(request_id).unwrap_or_else(|_| request_id.into())
}

/// The answer to a request of Codex's (its id as [`read`] gave it).
pub fn reply(request_id: &str, result: Value) -> Value {
    json!({ "id": id_json(request_id), "result": result })
}

/// A request the Chat does not take (account refreshes, dynamic tools…), refused.
pub fn refuse(request_id: &str) -> Value {
    let error =
        json!({ "code": -32601, "message": "the Cowork Chat does not answer this request" });
    json!({ "id": id_json(request_id), "error": error })
}

/// The result that answers a prompt for `tool` with `allow` (or deny).
pub fn decision(tool: &str, allow: bool, always: bool) -> Value {
    if tool.starts_with("mcp__") {
        return match allow {
            true => json!({ "action": "accept", "content": {}, "_meta": null }),
            false => json!({ "action": "decline", "content": null, "_meta": null }),
        };
    }
    let decision = match (allow, always) {
        (true, true) => "acceptForSession",
        (true, false) => "accept",
        (false, _) => "decline",
    };
    json!({ "decision": decision })
}

/// The result that answers a question request: question text → answer, sent by question id.
pub fn answers(input: &Value, answers: &BTreeMap<String, String>) -> Value {
    let mut by_id = serde_json::Map::new();
    for q in input["questions"].as_array().into_iter().flatten() {
        let (Some(id), Some(text)) = (q["id"].as_str(), q["question"].as_str()) else { continue };
        if let Some(answer) = answers.get(text) {
            by_id.insert(id.to_string(), json!({ "answers": [answer] }));
        }
    }
    json!({ "answers": by_id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delta_streams_and_a_door_call_shows_with_its_result() {
        let delta = r#"{"method":"item/agentMessage/delta","params":{"itemId":"m","delta":"Fin"}}"#;
        assert_eq!(read(delta), Output::Show(vec![ChatEventKind::Text { text: "Fin".into() }]));
        let started = r#"{"method":"item/started","params":{"item":{"type":"mcpToolCall","id":"c1","server":"cowork","tool":"read","arguments":{"capability":"notes"}}}}"#;
        assert_eq!(
            read(started),
            Output::Show(vec![ChatEventKind::ToolCall {
                id: "c1".into(),
                name: "mcp__cowork__read".into(),
                input: json!({ "capability": "notes" })
            }])
        );
        let done = r#"{"method":"item/completed","params":{"item":{"type":"mcpToolCall","id":"c1","status":"completed","result":{"content":[{"type":"text","text":"Groceries"}]},"error":null}}}"#;
        assert_eq!(
            read(done),
            Output::Show(vec![ChatEventKind::ToolResult {
                id: "c1".into(),
                output: "Groceries".into(),
                is_error: false
            }])
        );
    }

    #[test]
    fn a_servers_request_keeps_its_id_to_reply_with() {
        let line = r#"{"id":7,"method":"item/commandExecution/requestApproval","params":{"command":"rm x","cwd":"/w"}}"#;
        let Output::CanUseTool { request_id, tool, .. } = read(line) else { panic!() };
        assert_eq!((request_id.as_str(), tool.as_str()), ("7", "shell"));
        assert_eq!(
            reply(&request_id, decision(&tool, true, false)),
            json!({ "id": 7, "result": { "decision": "accept" } })
        );
    }
}
