//! One store operation as data: what `ctx.queue` / `ctx.journal` in a routine and
//! `cowork.queue` / `cowork.journal` in a widget send, decoded once here and run by
//! [`Store::call`], so the routine's engine and the daemon's route share one implementation.

use crate::error::{QueueError, Result};
use crate::journal::{Filter, JournalEntry, NewEntry, Skill};
use crate::model::*;
use crate::store::Store;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An operation, as `{"method": "send", "queue": …, …}`. `F` is what its `files` may hold: a
/// routine's and the CLI's [`FileInput`] (content, or a workspace file by path), a widget's
/// [`FileContent`] ([`WidgetCall`]).
///
/// A routine reaches these through `ctx.queue(q)` (runner.mjs), a widget through `cowork.queue`
/// (the workbench's sdk.ts), both typed in cowork.d.ts: the engine's `tests/queue_sdk.rs` holds
/// the one list of which method each side offers under which name, and fails until a method added
/// here is placed in it and the three files agree.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "method", rename_all = "camelCase", deny_unknown_fields)]
pub enum Call<F = FileInput> {
    Send {
        queue: String,
        body: String,
        // Paths, not `default`: serde's `default` would ask `F: Default` of the file type.
        #[serde(default = "Default::default")]
        options: SendOptions<F>,
    },
    /// Many sends in one transaction (our extension).
    SendMany {
        queue: String,
        tasks: Vec<NewTask<F>>,
    },
    Receive {
        queue: String,
        #[serde(default)]
        options: ReceiveOptions,
    },
    /// Up to `max` receives in one transaction (our extension).
    ReceiveMany {
        queue: String,
        max: usize,
        #[serde(default)]
        options: ReceiveOptions,
    },
    Ack {
        queue: String,
        id: i64,
        receipt: String,
        #[serde(default = "Default::default")]
        options: AckOptions<F>,
    },
    /// Many acks in one transaction (our extension).
    AckMany {
        queue: String,
        acks: Vec<TaskAck<F>>,
    },
    Nack {
        queue: String,
        id: i64,
        receipt: String,
        #[serde(default)]
        options: NackOptions,
    },
    Approve {
        queue: String,
        id: i64,
    },
    Reject {
        queue: String,
        id: i64,
        comment: String,
        #[serde(default = "Vec::new")]
        files: Vec<F>,
    },
    Reply {
        queue: String,
        id: i64,
        body: String,
        #[serde(default = "Default::default")]
        options: ReplyOptions<F>,
    },
    Retry {
        queue: String,
        id: i64,
    },
    Peek {
        queue: String,
        id: i64,
    },
    /// One queue's tasks (`ctx.queue(q).list`, `cowork.queue.items`).
    Items {
        queue: String,
        #[serde(default)]
        query: ItemsQuery,
    },
    /// Tasks of one queue or of every queue (`cowork.queue.tasks`), newest first.
    Tasks {
        queue: Option<String>,
        #[serde(default)]
        query: ItemsQuery,
    },
    Counts {
        queue: String,
    },
    /// Every queue with its counts.
    Queues {},
    Summary {},
    Receivers {
        queue: Option<String>,
    },
    /// Deletes a task, or the whole queue without an id.
    Remove {
        queue: String,
        id: Option<i64>,
    },
    /// Deletes finished tasks: `done` (default), `failed` or `all`.
    Purge {
        queue: String,
        status: Option<String>,
    },
    JournalAdd {
        entry: NewEntry,
    },
    JournalSkills {},
    JournalEntries {
        skill: String,
        status: Option<Filter>,
        limit: Option<u32>,
    },
    /// Marks the given entries (or every open one of the skill) applied.
    JournalResolve {
        skill: String,
        ids: Option<Vec<i64>>,
    },
}

/// What a widget's `cowork.queue` / `cowork.journal` send: files only as content, so a pane
/// cannot have the store read a workspace file (`{"path": ".env"}`) and hand it back in a task.
pub type WidgetCall = Call<FileContent>;

impl From<WidgetCall> for Call {
    fn from(call: WidgetCall) -> Self {
        match call {
            Call::Send { queue, body, options } => {
                Call::Send { queue, body, options: options.into() }
            }
            Call::SendMany { queue, tasks } => {
                Call::SendMany { queue, tasks: tasks.into_iter().map(NewTask::from).collect() }
            }
            Call::Receive { queue, options } => Call::Receive { queue, options },
            Call::ReceiveMany { queue, max, options } => Call::ReceiveMany { queue, max, options },
            Call::Ack { queue, id, receipt, options } => {
                Call::Ack { queue, id, receipt, options: options.into() }
            }
            Call::AckMany { queue, acks } => {
                Call::AckMany { queue, acks: acks.into_iter().map(TaskAck::from).collect() }
            }
            Call::Nack { queue, id, receipt, options } => {
                Call::Nack { queue, id, receipt, options }
            }
            Call::Approve { queue, id } => Call::Approve { queue, id },
            Call::Reject { queue, id, comment, files } => {
                Call::Reject { queue, id, comment, files: widen(files) }
            }
            Call::Reply { queue, id, body, options } => {
                Call::Reply { queue, id, body, options: options.into() }
            }
            Call::Retry { queue, id } => Call::Retry { queue, id },
            Call::Peek { queue, id } => Call::Peek { queue, id },
            Call::Items { queue, query } => Call::Items { queue, query },
            Call::Tasks { queue, query } => Call::Tasks { queue, query },
            Call::Counts { queue } => Call::Counts { queue },
            Call::Queues {} => Call::Queues {},
            Call::Summary {} => Call::Summary {},
            Call::Receivers { queue } => Call::Receivers { queue },
            Call::Remove { queue, id } => Call::Remove { queue, id },
            Call::Purge { queue, status } => Call::Purge { queue, status },
            Call::JournalAdd { entry } => Call::JournalAdd { entry },
            Call::JournalSkills {} => Call::JournalSkills {},
            Call::JournalEntries { skill, status, limit } => {
                Call::JournalEntries { skill, status, limit }
            }
            Call::JournalResolve { skill, ids } => Call::JournalResolve { skill, ids },
        }
    }
}

impl<F> Call<F> {
    /// Whether the call only reads (a widget's read needs no more than its pane).
    pub fn reads_only(&self) -> bool {
        matches!(
            self,
            Call::Peek { .. }
                | Call::Items { .. }
                | Call::Tasks { .. }
                | Call::Counts { .. }
                | Call::Queues {}
                | Call::Summary {}
                | Call::Receivers { .. }
                | Call::JournalSkills {}
                | Call::JournalEntries { .. }
        )
    }
}

/// What an operation answers, typed: serialized, it is what the caller's promise resolves with
/// ([`Store::call`] gives it as JSON). Serializing it straight to text, as the engine does for a
/// routine, costs a seventh of going through a `serde_json::Value` first (BENCHMARKS.md, "Task
/// queue").
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Answer {
    /// `send`.
    Sent(Sent),
    /// `sendMany`.
    SentMany(Vec<Sent>),
    /// `receive`: `null` when there is nothing to take.
    Received(Option<Received>),
    /// `receiveMany`.
    ReceivedMany(Vec<Received>),
    /// `ack`, `nack`, `approve`, `reject`, `reply`, `retry`, `peek`.
    Task(Task),
    /// `ackMany`, `items`, `tasks`.
    Tasks(Vec<Task>),
    /// `counts`.
    Counts(Counts),
    /// `queues`.
    Queues(Vec<QueueInfo>),
    /// `summary`: what needs the owner, and the journal's open entries.
    #[serde(rename_all = "camelCase")]
    Summary { needs_you: Vec<Task>, journal: Vec<JournalEntry> },
    /// `receivers`.
    Receivers(Vec<Receiver>),
    /// `remove`: `true`.
    Removed(bool),
    /// `purge`, `journalResolve`: how many.
    Count(u64),
    /// `journalAdd`.
    JournalEntry(JournalEntry),
    /// `journalEntries`.
    JournalEntries(Vec<JournalEntry>),
    /// `journalSkills`.
    Skills(Vec<Skill>),
}

impl Store {
    /// Runs one operation; the answer is what the caller's promise resolves with, as JSON.
    pub fn call(&mut self, call: Call) -> Result<Value> {
        Ok(serde_json::to_value(self.answer(call)?).expect("store answers serialize"))
    }

    /// Runs one operation; its answer, typed.
    pub fn answer(&mut self, call: Call) -> Result<Answer> {
        Ok(match call {
            Call::Send { queue, body, options } => {
                Answer::Sent(self.send(&queue, &body, &options)?)
            }
            Call::SendMany { queue, tasks } => Answer::SentMany(self.send_many(&queue, &tasks)?),
            Call::Receive { queue, options } => Answer::Received(self.receive(&queue, &options)?),
            Call::ReceiveMany { queue, max, options } => {
                Answer::ReceivedMany(self.receive_many(&queue, &options, max)?)
            }
            Call::Ack { queue, id, receipt, options } => {
                Answer::Task(self.ack(&queue, id, &receipt, &options)?)
            }
            Call::AckMany { queue, acks } => Answer::Tasks(self.ack_many(&queue, &acks)?),
            Call::Nack { queue, id, receipt, options } => {
                Answer::Task(self.nack(&queue, id, &receipt, &options)?)
            }
            Call::Approve { queue, id } => Answer::Task(self.approve(&queue, id)?),
            Call::Reject { queue, id, comment, files } => {
                Answer::Task(self.reject(&queue, id, &comment, &files)?)
            }
            Call::Reply { queue, id, body, options } => {
                Answer::Task(self.reply(&queue, id, &body, &options)?)
            }
            Call::Retry { queue, id } => Answer::Task(self.retry(&queue, id)?),
            Call::Peek { queue, id } => Answer::Task(self.peek(&queue, id)?),
            Call::Items { queue, query } => Answer::Tasks(self.items(&queue, &query)?),
            Call::Tasks { queue: Some(queue), query } => Answer::Tasks(self.items(&queue, &query)?),
            Call::Tasks { queue: None, query } => Answer::Tasks(self.tasks_everywhere(&query)?),
            Call::Counts { queue } => Answer::Counts(self.counts(&queue)?),
            Call::Queues {} => Answer::Queues(self.list()?),
            Call::Summary {} => {
                Answer::Summary { needs_you: self.needs_you()?, journal: self.journal_open()? }
            }
            Call::Receivers { queue } => Answer::Receivers(self.receivers(queue.as_deref())?),
            Call::Remove { queue, id: Some(id) } => {
                self.delete_task(&queue, id)?;
                Answer::Removed(true)
            }
            Call::Remove { queue, id: None } => {
                self.delete_queue(&queue)?;
                Answer::Removed(true)
            }
            Call::Purge { queue, status } => {
                let (done, failed) = match status.as_deref().unwrap_or("done") {
                    "done" => (true, false),
                    "failed" => (false, true),
                    "all" => (true, true),
                    other => {
                        let message = format!("\"{other}\" is not done, failed or all");
                        return Err(QueueError::bad("status", message));
                    }
                };
                Answer::Count(self.purge(&queue, done, failed)?)
            }
            Call::JournalAdd { entry } => Answer::JournalEntry(self.journal_add(&entry)?),
            Call::JournalSkills {} => Answer::Skills(self.journal_skills()?),
            Call::JournalEntries { skill, status, limit } => Answer::JournalEntries(
                self.journal_entries(&skill, status.unwrap_or_default(), limit.unwrap_or(200))?,
            ),
            Call::JournalResolve { skill, ids } => {
                Answer::Count(self.journal_resolve(&skill, &ids.unwrap_or_default())?)
            }
        })
    }

    /// Tasks of every queue, newest first, up to the query's limit.
    fn tasks_everywhere(&mut self, query: &ItemsQuery) -> Result<Vec<Task>> {
        let names: Vec<String> = self.list()?.into_iter().map(|q| q.name).collect();
        let mut tasks = Vec::new();
        for name in names {
            tasks.extend(self.items(&name, query)?);
        }
        tasks.sort_by_key(|t| std::cmp::Reverse(t.updated));
        tasks.truncate(query.limit.unwrap_or(50) as usize);
        Ok(tasks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A routine owns the file system and may attach a workspace file by path; a widget has none,
    /// and its call type cannot carry a path at all.
    #[test]
    fn a_widget_call_takes_files_as_content_never_a_path() {
        let send = |files: Value| json!({"method": "send", "queue": "q", "body": "b", "options": {"files": files}});
        let by_path = send(json!([{"path": ".env"}]));
        let routine: Call = serde_json::from_value(by_path.clone()).unwrap();
        let Call::Send { options, .. } = routine else { panic!("a send") };
        assert_eq!(options.files, [FileInput::Path { path: ".env".into() }]);
        let error = serde_json::from_value::<WidgetCall>(by_path).unwrap_err().to_string();
        assert!(error.contains("never by path (\".env\")"), "{error}");
        for (name, files) in [
            (
                "reject",
                json!({"method": "reject", "queue": "q", "id": 1, "comment": "c", "files": [{"path": "a"}]}),
            ),
            (
                "ack",
                json!({"method": "ack", "queue": "q", "id": 1, "receipt": "r", "options": {"files": [{"path": "a"}]}}),
            ),
            (
                "ackMany",
                json!({"method": "ackMany", "queue": "q", "acks": [{"id": 1, "receipt": "r", "options": {"files": [{"path": "a"}]}}]}),
            ),
            (
                "reply",
                json!({"method": "reply", "queue": "q", "id": 1, "body": "b", "options": {"files": [{"path": "a"}]}}),
            ),
            (
                "sendMany",
                json!({"method": "sendMany", "queue": "q", "tasks": [{"body": "b", "options": {"files": [{"name": "n", "path": "a"}]}}]}),
            ),
        ] {
            assert!(serde_json::from_value::<WidgetCall>(files).is_err(), "{name}");
        }
        let content: WidgetCall =
            serde_json::from_value(send(json!([{"name": "n.txt", "text": "hi"}]))).unwrap();
        let Call::Send { options, .. } = Call::<FileInput>::from(content) else { panic!("a send") };
        assert_eq!(
            options.files,
            [FileInput::Content(FileContent::Text { name: "n.txt".into(), text: "hi".into() })]
        );
    }
}
