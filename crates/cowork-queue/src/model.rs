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
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Waiting to be received (`todo`).
    Todo,
    /// Held by a receiver until it acks, nacks or its lease runs out (`in_progress`).
    InProgress,
    /// Finished, waiting for the owner to approve or reject it (`needs_review`).
    NeedsReview,
    /// Finished (`done`).
    Done,
    /// Out of attempts (`failed`); `retry` makes it To do again.
    Failed,
}

impl Status {
    /// Every status, in the order the Tasks view shows them.
    pub const ALL: [Status; 5] =
        [Status::Todo, Status::InProgress, Status::NeedsReview, Status::Done, Status::Failed];

    /// The name in JSON, in the database and on the command line.
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
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum View {
    /// Waiting on the owner: to do and addressed to `owner`, or needs review.
    NeedsYou,
    /// To do, for anyone.
    Todo,
    /// Held by a receiver.
    InProgress,
    /// Waiting for the owner's review.
    NeedsReview,
    /// Finished.
    Done,
    /// Out of attempts.
    Failed,
    /// Every task (the default).
    All,
}

impl View {
    /// The views' names, as a refusal lists them.
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
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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
    /// A new number of attempts; `None` keeps the current one.
    pub max_attempts: Option<u32>,
    /// A new lease in seconds; `None` keeps the current one.
    pub lease_s: Option<u64>,
    /// Review on or off; `None` keeps the current setting.
    pub review: Option<bool>,
}

/// A queue and how many of its tasks are in each view.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct QueueInfo {
    /// The queue's name.
    pub name: String,
    /// Its settings, flattened into the same object.
    #[serde(flatten)]
    pub settings: Settings,
    /// How many of its tasks are in each view.
    pub counts: Counts,
}

/// Tasks per view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Counts {
    /// To do and addressed to `owner`, or waiting for review.
    pub needs_you: u64,
    /// To do.
    pub todo: u64,
    /// Held by a receiver.
    pub in_progress: u64,
    /// Waiting for the owner's review.
    pub needs_review: u64,
    /// Finished.
    pub done: u64,
    /// Out of attempts.
    pub failed: u64,
}

/// A file given to attach by a routine or the CLI, which own the file system already: its
/// content by name, or a workspace file by path. A widget sends [`FileContent`] only.
#[derive(Debug, Clone, PartialEq)]
pub enum FileInput {
    /// Content given by name.
    Content(FileContent),
    /// A workspace-relative (or absolute, inside the workspace) path, copied into the store.
    Path {
        /// The path as given.
        path: String,
    },
}

/// A file's content, given by name: all a widget may attach (`{ name, text | base64 }`). A pane
/// has no file system, so the type it sends has no path: a widget's `files` cannot name a
/// workspace file (`.env`) for the store to read on its behalf.
#[derive(Debug, Clone, PartialEq)]
pub enum FileContent {
    /// Text content.
    Text {
        /// The file's name as the task shows it.
        name: String,
        /// Its text.
        text: String,
    },
    /// Binary content, base64.
    Base64 {
        /// The file's name as the task shows it.
        name: String,
        /// Its bytes, base64-encoded.
        base64: String,
    },
}

impl From<FileContent> for FileInput {
    fn from(content: FileContent) -> Self {
        FileInput::Content(content)
    }
}

/// One attachment as it comes in, every key optional, so a refusal can say what was wrong.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GivenFile {
    name: Option<String>,
    text: Option<String>,
    base64: Option<String>,
    path: Option<String>,
}

impl GivenFile {
    fn read(self) -> std::result::Result<FileInput, String> {
        match self {
            GivenFile { path: Some(path), name: None, text: None, base64: None } => {
                Ok(FileInput::Path { path })
            }
            GivenFile { name: Some(name), text: Some(text), base64: None, path: None } => {
                Ok(FileContent::Text { name, text }.into())
            }
            GivenFile { name: Some(name), text: None, base64: Some(base64), path: None } => {
                Ok(FileContent::Base64 { name, base64 }.into())
            }
            _ => Err("a file is { name, text }, { name, base64 } or { path }".into()),
        }
    }
}

impl<'de> Deserialize<'de> for FileInput {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        GivenFile::deserialize(d)?.read().map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for FileContent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error;
        let given = GivenFile::deserialize(d)?;
        if let Some(path) = &given.path {
            return Err(D::Error::custom(format!(
                "a widget attaches a file as its content {{ name, text | base64 }}, never by path \
                 (\"{path}\"): a pane has no files; read the file in a routine and attach it there"
            )));
        }
        match given.read() {
            Ok(FileInput::Content(content)) => Ok(content),
            _ => Err(D::Error::custom("a file is { name, text } or { name, base64 }")),
        }
    }
}

/// `files` of content, where paths are allowed too.
pub(crate) fn widen(files: Vec<FileContent>) -> Vec<FileInput> {
    files.into_iter().map(FileInput::from).collect()
}

/// A file attached to a task or an entry (its content stays in the store: `file` reads it).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FileInfo {
    /// Its id in the store: what `file` takes to read it.
    pub id: i64,
    /// Its name as attached.
    pub name: String,
    /// Its size in bytes.
    pub size: u64,
    /// The entry it belongs to; none for the request's own files.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub entry: Option<i64>,
}

/// One entry of a task's thread.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// The entry's id.
    pub id: i64,
    /// `result`, `error`, `comment`, `reply`, `note`, `approved`, `retried`, `expired`.
    pub kind: String,
    /// Who wrote it: an agent's name or `owner`.
    pub author: String,
    /// Whom it handed the task to, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub to: Option<String>,
    /// Its text.
    pub text: String,
    /// Milliseconds since the Unix epoch.
    pub at: i64,
    /// The files attached to it.
    pub files: Vec<FileInfo>,
}

/// A task, as `peek` shows it (`items` leaves `body`, `entries` and `files` out).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task's id, unique in the store.
    pub id: i64,
    /// The queue it is in.
    pub queue: String,
    /// Its subject: given, or the body's first line.
    pub subject: String,
    /// Where it is.
    pub status: Status,
    /// Who sent it: an agent's name or `owner`.
    pub from: String,
    /// Whom it is for: an agent's name, `owner` or `anyone`.
    pub to: String,
    /// Whether finishing it needs the owner's review.
    pub review: bool,
    /// The sender's dedupe key (`ref`): a second send with it answers this task.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub reference: Option<String>,
    /// The JSON object the sender kept with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional, type = "unknown"))]
    pub meta: Option<serde_json::Value>,
    /// How many times it has been received.
    pub attempts: u32,
    /// Who holds it (in progress), or finished it last.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub holder: Option<String>,
    /// While in progress: when the lease runs out (ms since the epoch).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub lease_until: Option<i64>,
    /// When it may be received (ms since the epoch; later than `created` when delayed).
    pub available_at: i64,
    /// When it was sent (ms since the epoch).
    pub created: i64,
    /// When it last changed (ms since the epoch).
    pub updated: i64,
    /// Its text (not in lists).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub body: Option<String>,
    /// The files sent with it (not in lists).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub files: Option<Vec<FileInfo>>,
    /// Its thread: results, errors, replies, notes (not in lists).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub entries: Option<Vec<Entry>>,
}

/// A received task: the task with its body and the receipt that finishes it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Received {
    /// The task, flattened into the same object.
    #[serde(flatten)]
    pub task: Task,
    /// What `ack` and `nack` take to finish it; no longer valid once the lease runs out.
    pub receipt: String,
}

/// What `send` answers: the task, and whether a repeated `ref` answered an earlier one.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sent {
    /// The task, flattened into the same object.
    #[serde(flatten)]
    pub task: Task,
    /// The `ref` was seen before: this is the earlier task, and nothing was added.
    pub deduplicated: bool,
}

/// `send`'s options beyond the body; `F` is what `files` may hold ([`FileInput`], or a widget's
/// [`FileContent`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendOptions<F = FileInput> {
    /// The subject (default: the body's first line).
    pub subject: Option<String>,
    /// Whom it is for: an agent's name, `owner` or `anyone` (the default).
    pub to: Option<String>,
    /// The sender (`as`; default: `owner`).
    #[serde(rename = "as")]
    pub sender: Option<String>,
    /// Whether finishing it needs the owner's review (default: the queue's setting).
    pub review: Option<bool>,
    /// A dedupe key (`ref`): a second send with it answers the first task.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// A JSON object kept with the task.
    pub meta: Option<serde_json::Value>,
    /// Hold the task back this many seconds.
    pub delay_s: Option<u64>,
    /// Files to attach.
    #[serde(default = "Vec::new")]
    pub files: Vec<F>,
}

impl<F> Default for SendOptions<F> {
    fn default() -> Self {
        SendOptions {
            subject: None,
            to: None,
            sender: None,
            review: None,
            reference: None,
            meta: None,
            delay_s: None,
            files: Vec::new(),
        }
    }
}

impl From<SendOptions<FileContent>> for SendOptions {
    fn from(o: SendOptions<FileContent>) -> Self {
        let SendOptions { subject, to, sender, review, reference, meta, delay_s, files } = o;
        SendOptions { subject, to, sender, review, reference, meta, delay_s, files: widen(files) }
    }
}

/// One task of `send_many`: what `send` takes.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewTask<F = FileInput> {
    /// The task's text (at most 1 MiB).
    pub body: String,
    // A path, not `default`: serde's `default` would ask `F: Default` of the file type.
    /// The rest of what `send` takes.
    #[serde(default = "Default::default")]
    pub options: SendOptions<F>,
}

impl From<NewTask<FileContent>> for NewTask {
    fn from(task: NewTask<FileContent>) -> Self {
        NewTask { body: task.body, options: task.options.into() }
    }
}

/// `receive`'s options.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReceiveOptions {
    /// The receiver's name (`as`): it takes tasks addressed to it or to anyone; without one, unaddressed tasks only.
    #[serde(rename = "as")]
    pub receiver: Option<String>,
    /// Only tasks addressed to the receiver, not to anyone.
    #[serde(default)]
    pub mine: bool,
    /// How long to hold the task, in seconds (default: the queue's lease).
    pub lease_s: Option<u64>,
}

/// `ack`'s options.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AckOptions<F = FileInput> {
    /// What the receiver did: its entry on the thread.
    pub result: Option<String>,
    /// Files to attach to that entry.
    #[serde(default = "Vec::new")]
    pub files: Vec<F>,
    /// Ask the owner to review it: Needs review rather than Done.
    #[serde(default)]
    pub review: bool,
    /// Hand it on, as To do, to this name.
    pub to: Option<String>,
}

impl<F> Default for AckOptions<F> {
    fn default() -> Self {
        AckOptions { result: None, files: Vec::new(), review: false, to: None }
    }
}

impl From<AckOptions<FileContent>> for AckOptions {
    fn from(o: AckOptions<FileContent>) -> Self {
        AckOptions { result: o.result, files: widen(o.files), review: o.review, to: o.to }
    }
}

/// One task of `ack_many`: what `ack` takes.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskAck<F = FileInput> {
    /// The task's id.
    pub id: i64,
    /// The receipt `receive` gave.
    pub receipt: String,
    /// The rest of what `ack` takes.
    #[serde(default = "Default::default")]
    pub options: AckOptions<F>,
}

impl From<TaskAck<FileContent>> for TaskAck {
    fn from(ack: TaskAck<FileContent>) -> Self {
        TaskAck { id: ack.id, receipt: ack.receipt, options: ack.options.into() }
    }
}

/// `nack`'s options.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NackOptions {
    /// Receivable again after this many seconds.
    pub delay_s: Option<u64>,
    /// What went wrong: its entry on the thread.
    pub error: Option<String>,
}

/// `reply`'s options beyond the body.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReplyOptions<F = FileInput> {
    /// Whom the reply is for: to an agent or anyone it sends the task to it; to `owner` or nobody it is a note.
    pub to: Option<String>,
    /// The author (`as`; default: `owner`).
    #[serde(rename = "as")]
    pub sender: Option<String>,
    /// Files to attach to the reply.
    #[serde(default = "Vec::new")]
    pub files: Vec<F>,
}

impl<F> Default for ReplyOptions<F> {
    fn default() -> Self {
        ReplyOptions { to: None, sender: None, files: Vec::new() }
    }
}

impl From<ReplyOptions<FileContent>> for ReplyOptions {
    fn from(o: ReplyOptions<FileContent>) -> Self {
        ReplyOptions { to: o.to, sender: o.sender, files: widen(o.files) }
    }
}

/// `items`' filters.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ItemsQuery {
    /// Which tasks (default: all).
    #[serde(default = "all_view")]
    pub view: View,
    /// Only tasks to, from or held by this name.
    pub agent: Option<String>,
    /// Every word must appear in the subject or the body.
    pub q: Option<String>,
    /// How many (default 50, at most 200).
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
    /// The queue it takes from.
    pub queue: String,
    /// Its name (`as`).
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
