//! The workbench's Chat: what the daemon says about a conversation with an agent CLI (Claude Code,
//! or Codex) running in the workspace folder — the events it streams (`GET /api/chat/events`), the
//! conversations it lists (`GET /api/chat`), and the bodies the workbench sends to talk, answer a
//! prompt or a question, and interrupt.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One thing that happened in a conversation, in order (`seq` counts from 1 per conversation).
/// The transcript on disk is these lines, with streamed text joined into one `text` event.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ChatEvent {
    /// The conversation's id.
    pub conversation: String,
    /// Its place in the conversation (from 1).
    pub seq: u64,
    /// What happened.
    #[serde(flatten)]
    pub kind: ChatEventKind,
}

/// What happened in a conversation.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum ChatEventKind {
    /// The person said this, with the context the apps fed (`agent.setContext`, `agent.select`).
    User {
        /// What the person said.
        text: String,
        /// What the apps fed the Chat for this message.
        context: Vec<ContextItem>,
    },
    /// The CLI started (or resumed) its session: the id `--resume` takes.
    Session {
        /// The CLI's session id.
        session: String,
        /// The model the CLI runs, when it said.
        model: Option<String>,
    },
    /// Text the agent wrote: a streamed piece live, the whole turn's text in the transcript.
    Text {
        /// The text.
        text: String,
    },
    /// The agent calls a tool.
    ToolCall {
        /// The call's id, which its `toolResult` (and a `permission`) names.
        id: String,
        /// The tool's name.
        name: String,
        /// The tool's input, as the agent gave it.
        #[cfg_attr(feature = "typescript", ts(type = "unknown"))]
        input: serde_json::Value,
    },
    /// A tool's result, as the agent got it.
    #[serde(rename_all = "camelCase")]
    ToolResult {
        /// The `toolCall`'s id.
        id: String,
        /// What the tool answered, as text.
        output: String,
        /// The tool failed.
        is_error: bool,
    },
    /// The agent asks to use a tool: the person answers allow once, always (this session), deny.
    Permission {
        /// The prompt's id, which the answer names.
        id: String,
        /// The tool the agent asks to use.
        tool: String,
        /// The tool's input, as the agent gave it.
        #[cfg_attr(feature = "typescript", ts(type = "unknown"))]
        input: serde_json::Value,
    },
    /// The agent asks the person (`AskUserQuestion`): each question's text, its options.
    Question {
        /// The question's id, which the answer names.
        id: String,
        /// The questions, in order.
        questions: Vec<Question>,
    },
    /// A prompt or question was answered (by the person, or by an "always" rule).
    Answered {
        /// The prompt's or question's id.
        id: String,
        /// What was answered, in words.
        answer: String,
    },
    /// The turn ended: the agent's final text, or how it stopped.
    #[serde(rename_all = "camelCase")]
    TurnEnd {
        /// The agent's final text, when it finished.
        result: Option<String>,
        /// The turn ended in an error.
        is_error: bool,
        /// The person interrupted it.
        interrupted: bool,
    },
    /// An agent CLI is being installed (`POST /api/chat/install`): npm's output as it comes, then
    /// the end. Sent to every conversation of the workspace (`conversation` is empty); not kept.
    #[serde(rename_all = "camelCase")]
    Install {
        /// The CLI (`claude-code`, `codex`).
        cli: String,
        /// A line npm printed, when this event carries one.
        line: Option<String>,
        /// How many lines npm printed so far (a progress bar's pulse: npm gives no percent).
        lines: u64,
        /// The install ended: `ok` or `failed` (none while it runs).
        outcome: Option<String>,
    },
    /// Something failed: a named error (`AgentCliMissing`, `AgentCrashed`, `AgentFailed`,
    /// `AgentOffline`).
    Error {
        /// The error's name.
        name: String,
        /// What failed.
        message: String,
        /// How to fix it, when known.
        hint: Option<String>,
    },
}

/// One question the agent asks.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Question {
    /// The question's text.
    pub question: String,
    /// A short label above it.
    #[serde(default)]
    pub header: Option<String>,
    /// The choices; none = free text only.
    #[serde(default)]
    pub options: Vec<QuestionOption>,
    /// More than one choice may be picked.
    #[serde(default)]
    pub multi_select: bool,
}

/// A choice of a question.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct QuestionOption {
    /// The choice's text (what the answer carries).
    pub label: String,
    /// What the choice means, in a line.
    #[serde(default)]
    pub description: Option<String>,
}

/// Context an app fed the Chat: a value (`agent.setContext`) or selected text (`agent.select`,
/// or what the person selected with auto-selection on).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ContextItem {
    /// `context` or `selection`.
    pub kind: String,
    /// The app that fed it.
    #[serde(default)]
    pub app: Option<String>,
    /// The value or the selected text.
    pub text: String,
}

/// A conversation as the Chat lists it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ConversationSummary {
    /// The conversation's id.
    pub id: String,
    /// The first thing the person said (shortened).
    pub title: String,
    /// RFC 3339.
    pub created: String,
    /// The model it runs (`--model`); none = the CLI's default.
    pub model: Option<String>,
    /// The effort it runs at (`--effort`); none = the CLI's default.
    pub effort: Option<String>,
    /// The CLI session to resume, once it started.
    pub session: Option<String>,
    /// The agent CLI it runs: `claude-code` or `codex` (a conversation keeps the one it began with).
    #[serde(default = "claude_code")]
    pub cli: String,
    /// A turn is running now.
    pub running: bool,
}

fn claude_code() -> String {
    "claude-code".into()
}

/// `GET /api/chat`: the workspace's conversations, newest first, and its choice of agent CLI.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Conversations {
    /// The conversations, newest first.
    pub conversations: Vec<ConversationSummary>,
    /// The CLI a new conversation of this workspace runs: `claude-code` (the default) or `codex`,
    /// as last chosen in it.
    #[serde(default = "claude_code")]
    pub cli: String,
}

/// `GET /api/chat/transcript`: a conversation's events so far.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Transcript {
    /// The conversation's events, in order (`seq`).
    pub events: Vec<ChatEvent>,
}

/// `POST /api/chat/send`: say `text` in `conversation` (none: a new one).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SendBody {
    /// The workspace folder the agent runs in.
    #[cfg_attr(feature = "typescript", ts(type = "string"))]
    pub workspace: std::path::PathBuf,
    /// The conversation to talk in; none = a new one.
    #[serde(default)]
    pub conversation: Option<String>,
    /// What the person says.
    pub text: String,
    /// What the apps fed the Chat, sent with the text.
    #[serde(default)]
    pub context: Vec<ContextItem>,
    /// `--model` (e.g. `sonnet`, `opus`); none: the CLI's own default.
    #[serde(default)]
    pub model: Option<String>,
    /// `--effort`: `low`, `medium`, `high`; none: the CLI's own default.
    #[serde(default)]
    pub effort: Option<String>,
    /// The agent CLI of a new conversation: `claude-code` or `codex`, remembered as the
    /// workspace's choice; none: the workspace's choice (`Conversations::cli`).
    #[serde(default)]
    pub cli: Option<String>,
}

/// `POST /api/chat/send`'s answer.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Sent {
    /// The conversation the text went to (new or given).
    pub conversation: String,
}

/// The person's answer to a permission prompt.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Decision {
    /// This call only.
    Allow,
    /// This tool, for the rest of the session.
    Always,
    /// Refuse this call.
    Deny,
}

/// `POST /api/chat/answer`: a permission prompt's decision, or a question's answers (question
/// text → the chosen label, several joined with ", ", or free text).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AnswerBody {
    /// The workspace folder the agent runs in.
    #[cfg_attr(feature = "typescript", ts(type = "string"))]
    pub workspace: std::path::PathBuf,
    /// The conversation the prompt or question is in.
    pub conversation: String,
    /// The prompt's or question's `id`.
    pub id: String,
    /// A permission prompt's decision.
    #[serde(default)]
    pub decision: Option<Decision>,
    /// A question's answers: question text → the chosen label(s) or free text.
    #[serde(default)]
    pub answers: Option<BTreeMap<String, String>>,
}

/// `POST /api/chat/install`: install an agent CLI from npm (its pinned version) into Cowork's
/// root, `<root>/agents/<cli>/`, where the Chat finds it after the PATH.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct InstallBody {
    /// The workspace whose Chat shows the progress.
    #[cfg_attr(feature = "typescript", ts(type = "string"))]
    pub workspace: std::path::PathBuf,
    /// `claude-code` or `codex`.
    pub cli: String,
}

/// `POST /api/chat/install`'s answer, once npm is done.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Installed {
    /// The CLI's binary, as the Chat will run it.
    pub program: String,
    /// The version installed.
    pub version: String,
}

/// `POST /api/chat/interrupt`: stop the running turn.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ConversationBody {
    /// The workspace folder the agent runs in.
    #[cfg_attr(feature = "typescript", ts(type = "string"))]
    pub workspace: std::path::PathBuf,
    /// The conversation to interrupt.
    pub conversation: String,
}

/// `ui/src/workbench/wire/chat.ts`, the workbench's copy of these types: checked in, and this test
/// fails when it is stale, with the command that refreshes it.
#[cfg(all(test, feature = "typescript"))]
mod typescript {
    use super::*;
    use ts_rs::{Config, TS};

    const FILE: &str = "ui/src/workbench/wire/chat.ts";
    const REFRESH: &str =
        "COWORK_WRITE_TS=1 cargo test -p cowork-wire --features typescript --lib chat";

    fn render() -> String {
        let cfg = Config::new().with_large_int("number");
        let decls = [
            ChatEvent::decl(&cfg),
            ChatEventKind::decl(&cfg),
            Question::decl(&cfg),
            QuestionOption::decl(&cfg),
            ContextItem::decl(&cfg),
            ConversationSummary::decl(&cfg),
            Conversations::decl(&cfg),
            Transcript::decl(&cfg),
            SendBody::decl(&cfg),
            Sent::decl(&cfg),
            Decision::decl(&cfg),
            AnswerBody::decl(&cfg),
            ConversationBody::decl(&cfg),
            InstallBody::decl(&cfg),
            Installed::decl(&cfg),
        ];
        let header =
            format!("// Generated from crates/cowork-wire/src/chat.rs: do not edit. Refresh:\n// {REFRESH}\n");
        crate::typescript_file::join(&header, decls)
    }

    #[test]
    fn the_checked_in_chat_types_are_fresh() {
        crate::typescript_file::check(env!("CARGO_MANIFEST_DIR"), FILE, &render(), REFRESH);
    }
}
