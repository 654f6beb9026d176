//! Claude Code's stream-json, read and written: each line the CLI prints turned into what the Chat
//! shows ([`Output`], which Codex's lines become too: `codex.rs`), and the lines the host writes
//! (a user message, a control request or response).

use cowork_wire::chat::{ChatEventKind, Question};
use serde_json::{json, Value};

/// What one line of the CLI's output means for the Chat.
#[derive(Debug, PartialEq)]
pub enum Output {
    /// Events to show.
    Show(Vec<ChatEventKind>),
    /// The CLI asks the host before a tool runs (`can_use_tool`), or asks a question:
    /// `request_id` to answer.
    CanUseTool { request_id: String, tool: String, input: Value },
    /// The CLI answered a request of ours.
    Answered { request_id: String, result: Value },
    /// The CLI refused a request of ours (Codex).
    Refused { request_id: String, message: String },
    /// A request of the CLI's the Chat does not take: refused at once (Codex).
    Unsupported { request_id: String },
    /// A turn started: its id, which an interrupt names (Codex).
    TurnStarted { turn: String },
    /// The turn fails with this error (Codex's `error` notification; its end follows).
    Failed { message: String, info: Value },
    /// The CLI cannot reach its model API (no connection, no DNS): it retries on its own.
    Offline { detail: String },
    /// The turn is over.
    Result { result: Option<String>, is_error: bool },
    /// Nothing the Chat shows (an answer to our own control request, a status line…).
    Nothing,
}

/// Reads one line of stream-json output.
pub fn read(line: &str) -> Output {
    let Ok(message) = serde_json::from_str::<Value>(line) else { return Output::Nothing };
    let text = |v: &Value| v.as_str().map(str::to_string);
    match message["type"].as_str() {
        // A retry with no HTTP status: the request never got an answer (refused, no DNS…).
        Some("system")
            if message["subtype"] == "api_retry" && message["error_status"].is_null() =>
        {
            Output::Offline { detail: text(&message["error"]).unwrap_or_default() }
        }
        Some("system") if message["subtype"] == "init" => match text(&message["session_id"]) {
            Some(session) => Output::Show(vec![ChatEventKind::Session {
                session,
                model: text(&message["model"]),
            }]),
            None => Output::Nothing,
        },
        Some("stream_event") => {
            let event = &message["event"];
            match (event["type"].as_str(), event["delta"]["type"].as_str()) {
                (Some("content_block_delta"), Some("text_delta")) => {
                    match text(&event["delta"]["text"]) {
                        Some(text) => Output::Show(vec![ChatEventKind::Text { text }]),
                        None => Output::Nothing,
                    }
                }
                _ => Output::Nothing,
            }
        }
        // Text came as stream events already: only the tool calls are taken from here.
        Some("assistant") => Output::Show(
            blocks(&message)
                .filter(|b| b["type"] == "tool_use")
                .map(|b| ChatEventKind::ToolCall {
                    id: text(&b["id"]).unwrap_or_default(),
                    name: text(&b["name"]).unwrap_or_default(),
                    input: b["input"].clone(),
                })
                .collect(),
        ),
        Some("user") => Output::Show(
            blocks(&message)
                .filter(|b| b["type"] == "tool_result")
                .map(|b| ChatEventKind::ToolResult {
                    id: text(&b["tool_use_id"]).unwrap_or_default(),
                    output: result_text(&b["content"]),
                    is_error: b["is_error"].as_bool().unwrap_or(false),
                })
                .collect(),
        ),
        Some("result") => Output::Result {
            result: text(&message["result"]),
            is_error: message["is_error"].as_bool().unwrap_or(false),
        },
        Some("control_request") if message["request"]["subtype"] == "can_use_tool" => {
            let request = &message["request"];
            Output::CanUseTool {
                request_id: text(&message["request_id"]).unwrap_or_default(),
                tool: text(&request["tool_name"]).unwrap_or_default(),
                input: request["input"].clone(),
            }
        }
        Some("control_response") => match text(&message["response"]["request_id"]) {
            Some(request_id) => {
                Output::Answered { request_id, result: message["response"]["response"].clone() }
            }
            None => Output::Nothing,
        },
        _ => Output::Nothing,
    }
}

fn blocks(message: &Value) -> impl Iterator<Item = &Value> {
    message["message"]["content"].as_array().into_iter().flatten()
}

/// A tool result's content as text: a string, or its text blocks joined.
fn result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n")
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// AskUserQuestion's questions, as the Chat shows them.
pub fn questions(input: &Value) -> Vec<Question> {
    serde_json::from_value(input["questions"].clone()).unwrap_or_default()
}

/// A user message.
pub fn user_message(text: &str) -> Value {
    json!({
        "type": "user",
        "session_id": "",
        "parent_tool_use_id": null,
        "message": { "role": "user", "content": [{ "type": "text", "text": text }] }
    })
}

/// A control request of the host (`initialize`, `interrupt`).
pub fn control_request(id: &str, subtype: &str) -> Value {
    let mut request = json!({ "subtype": subtype });
    if subtype == "initialize" {
        request["hooks"] = Value::Null;
    }
    json!({ "type": "control_request", "request_id": id, "request": request })
}

/// The host's answer to a `can_use_tool` request.
pub fn control_response(request_id: &str, response: Value) -> Value {
    json!({
        "type": "control_response",
        "response": { "subtype": "success", "request_id": request_id, "response": response }
    })
}

/// Allow, with the tool's input (possibly with the person's answers added).
pub fn allow(input: Value) -> Value {
    json!({ "behavior": "allow", "updatedInput": input })
}

/// Deny, saying so to the agent.
pub fn deny() -> Value {
    json!({ "behavior": "deny", "message": "The person denied this in the Cowork Chat." })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_delta_is_shown_as_it_streams() {
        let line = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}}"#;
        assert_eq!(read(line), Output::Show(vec![ChatEventKind::Text { text: "Hel".into() }]));
    }

    #[test]
    fn a_tool_result_of_text_blocks_is_joined() {
        let line = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"is_error":true}]}}"#;
        assert_eq!(
            read(line),
            Output::Show(vec![ChatEventKind::ToolResult {
                id: "t1".into(),
                output: "a\nb".into(),
                is_error: true
            }])
        );
    }
}
