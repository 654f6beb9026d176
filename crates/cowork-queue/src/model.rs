//! The store's types as callers see them (the CLI's `--json`, `ctx.queue`, `cowork.queue`), and
//! the checks on the names and values that come in.

use crate::error::{QueueError, Result};
use serde::{Deserialize, Serialize};

/// The largest task body, reply or result: 1 MiB.
pub const MAX_BODY: usize = 1 << 20;
/// The largest attached file: 10 MiB (files live inside the store).
pub const MAX_FILE: usize = 10 << 20;
/// The most tasks one batch (`send_many`, `receive_many`, `ack_many`) takes.
pub const MAX_BATCH: usize = 1000;
/// The longest `--wait`, in seconds.
pub const MAX_WAIT_S: u64 = 600;
/// The longest lease or delay, in seconds (a week).
pub const MAX_SECONDS: u64 = 7 * 24 * 3600;

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Todo,
    InProgress,
    NeedsReview,
    Done,
    Failed,
}

impl Status {
    pub const ALL: [Status; 5] =
        [Status::Todo, Status::InProgress, Status::NeedsReview, Status::Done, Status::Failed];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Todo => "todo",
            Status::InProgress => "in_progress",
            Status::NeedsReview => "needs_review",
            Status::Done => "done",
            Status::Failed => "failed",
        }
    }

    pub(crate) fn parse(text: &str) -> Status {
        Status::ALL
            .into_iter()
            .find(|s| s.as_str() == text)
            .expect("the schema's CHECK admits only the five statuses")
    }
}

/// A slice of a queue's tasks, as the Tasks view groups them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum View {
    /// Waiting on the owner: to do and addressed to `owner`, or needs review.
    NeedsYou,
    Todo,
    InProgress,
    NeedsReview,
    Done,
    Failed,
    All,
}

impl View {
    pub const NAMES: &'static str = "needs_you, todo, in_progress, needs_review, done, failed, all";

    /// Reads a view's name, naming the field when it is none of them.
    pub fn parse(field: &str, text: &str) -> Result<View> {
        serde_json::from_value(serde_json::Value::String(text.into())).map_err(|_| {
            QueueError::bad(field, format!("\"{text}\" is not a view (one of {})", View::NAMES))
        })
    }

    /// The SQL condition on `tasks` this view selects.
    pub(crate) fn condition(self) -> &'static str {
        match self {
            View::NeedsYou => {
                "(status = 'needs_review' OR (status = 'todo' AND to_name = 'owner'))"
            }
            View::Todo => "status = 'todo'",
            View::InProgress => "status = 'in_progress'",
            View::NeedsReview => "status = 'needs_review'",
            View::Done => "status = 'done'",
            View::Failed => "status = 'failed'",
            View::All => "1",
        }
    }
}

/// A queue's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// How many times a task is received before a nack or an expired lease fails it.
    pub max_attempts: u32,
    /// How long a receiver holds a task, in seconds.
    pub lease_s: u64,
    /// Whether finishing a task needs the owner's review.
    pub review: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { max_attempts: 3, lease_s: 300, review: false }
    }
}

/// A change to a queue's settings (`cowork queue create` on an existing queue).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsChange {
    pub max_attempts: Option<u32>,
    pub lease_s: Option<u64>,
    pub review: Option<bool>,
}

/// A queue and how many of its tasks are in each view.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueInfo {
    pub name: String,
    #[serde(flatten)]
    pub settings: Settings,
    pub counts: Counts,
}

/// Tasks per view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub needs_you: u64,
    pub todo: u64,
    pub in_progress: u64,
    pub needs_review: u64,
    pub done: u64,
    pub failed: u64,
}

/// A file given to attach: a workspace file by path, or content by name.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum FileInput {
    /// A workspace-relative (or absolute, inside the workspace) path, copied into the store.
    Path { path: String },
    /// Text content.
    Text { name: String, text: String },
    /// Binary content, base64.
    Base64 { name: String, base64: String },
}

/// A file attached to a task or an entry (its content stays in the store: `file` reads it).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileInfo {
    pub id: i64,
    pub name: String,
    pub size: u64,
    /// The entry it belongs to; none for the request's own files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<i64>,
}

/// One entry of a task's thread.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub id: i64,
    /// `result`, `error`, `comment`, `reply`, `note`, `approved`, `retried`, `expired`.
    pub kind: String,
    pub author: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    pub text: String,
    /// Milliseconds since the Unix epoch.
    pub at: i64,
    pub files: Vec<FileInfo>,
}

/// A task, as `peek` shows it (`items` leaves `body`, `entries` and `files` out).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub id: i64,
    pub queue: String,
    pub subject: String,
    pub status: Status,
    pub from: String,
    pub to: String,
    pub review: bool,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<serde_json::Value>,
    pub attempts: u32,
    /// Who holds it (in progress), or finished it last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    /// While in progress: when the lease runs out (ms since the epoch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease_until: Option<i64>,
    /// When it may be received (ms since the epoch; later than `created` when delayed).
    pub available_at: i64,
    pub created: i64,
    pub updated: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileInfo>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<Vec<Entry>>,
}

/// A received task: the task with its body and the receipt that finishes it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Received {
    #[serde(flatten)]
    pub task: Task,
    pub receipt: String,
}

/// What `send` answers: the task, and whether a repeated `ref` answered an earlier one.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sent {
    #[serde(flatten)]
    pub task: Task,
    pub deduplicated: bool,
}

/// `send`'s options beyond the body.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendOptions {
    pub subject: Option<String>,
    pub to: Option<String>,
    #[serde(rename = "as")]
    pub sender: Option<String>,
    pub review: Option<bool>,
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub meta: Option<serde_json::Value>,
    pub delay_s: Option<u64>,
    #[serde(default)]
    pub files: Vec<FileInput>,
}

/// One task of `send_many`: what `send` takes.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewTask {
    pub body: String,
    #[serde(default)]
    pub options: SendOptions,
}

/// `receive`'s options.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReceiveOptions {
    #[serde(rename = "as")]
    pub receiver: Option<String>,
    #[serde(default)]
    pub mine: bool,
    pub lease_s: Option<u64>,
}

/// `ack`'s options.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AckOptions {
    pub result: Option<String>,
    #[serde(default)]
    pub files: Vec<FileInput>,
    #[serde(default)]
    pub review: bool,
    pub to: Option<String>,
}

/// One task of `ack_many`: what `ack` takes.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskAck {
    pub id: i64,
    pub receipt: String,
    #[serde(default)]
    pub options: AckOptions,
}

/// `nack`'s options.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NackOptions {
    pub delay_s: Option<u64>,
    pub error: Option<String>,
}

/// `reply`'s options beyond the body.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReplyOptions {
    pub to: Option<String>,
    #[serde(rename = "as")]
    pub sender: Option<String>,
    #[serde(default)]
    pub files: Vec<FileInput>,
}

/// `items`' filters.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ItemsQuery {
    #[serde(default = "all_view")]
    pub view: View,
    pub agent: Option<String>,
    /// Every word must appear in the subject or the body.
    pub q: Option<String>,
    pub limit: Option<u32>,
    /// The page after this task id (items are newest first).
    pub before: Option<i64>,
}

fn all_view() -> View {
    View::All
}

impl Default for ItemsQuery {
    fn default() -> Self {
        ItemsQuery { view: View::All, agent: None, q: None, limit: None, before: None }
    }
}

/// An agent seen taking tasks from a queue.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Receiver {
    pub queue: String,
    pub name: String,
    /// When it last received or waited (ms since the epoch).
    pub last_seen: i64,
    /// Whether it is waiting for a task right now.
    pub listening: bool,
}

/// An agent name, a queue name, a skill name: a letter or digit, then letters, digits, `_`, `-`,
/// `.`, at most 64.
pub fn check_name(field: &str, name: &str) -> Result<()> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if first_ok && rest_ok && name.len() <= 64 {
        return Ok(());
    }
    Err(QueueError::bad(
        field,
        format!(
            "\"{name}\" is not a name (a letter or digit, then letters, digits, _ - or ., at most 64)"
        ),
    ))
}

/// A text that must fit in [`MAX_BODY`].
pub(crate) fn check_body(field: &str, text: &str) -> Result<()> {
    if text.len() > MAX_BODY {
        return Err(QueueError::bad(
            field,
            format!("{} bytes is over the 1 MiB limit ({MAX_BODY} bytes)", text.len()),
        ));
    }
    Ok(())
}

/// Seconds within `0..=max`.
pub(crate) fn check_seconds(field: &str, seconds: u64, max: u64) -> Result<()> {
    if seconds > max {
        return Err(QueueError::bad(field, format!("{seconds} s is over the limit of {max} s")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_and_the_error_names_the_field() {
        assert!(check_name("to", "claude-1").is_ok());
        assert!(check_name("to", "a.b_c").is_ok());
        for bad in ["", "-x", "a b", "a/b", &"x".repeat(65)] {
            let error = check_name("to", bad).unwrap_err();
            assert!(error.to_string().starts_with("to: "), "{error}");
        }
    }

    #[test]
    fn an_unknown_view_names_the_field_and_the_views() {
        let error = View::parse("view", "soon").unwrap_err().to_string();
        assert_eq!(
            error,
            "view: \"soon\" is not a view (one of needs_you, todo, in_progress, needs_review, done, failed, all)"
        );
        assert_eq!(View::parse("view", "needs_you").unwrap(), View::NeedsYou);
    }
}
