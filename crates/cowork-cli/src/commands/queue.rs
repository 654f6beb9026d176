//! `cowork queue …`: the workspace's task queues, read and written straight in
//! `.cowork/local/queues.db` — no daemon needed (a headless box, an agent's shell). Other
//! processes see each change at once, and a `receive --wait` in another process wakes on it.

use crate::cli::{PurgeStatus, QueueCommand, TextInput};
use crate::exit::{print_json_failure, CommandResult, Exit, Failure};
use crate::{table, workspace};
use cowork_core::error_name::ErrorName;
use cowork_queue::{
    journal, AckOptions, FileInput, ItemsQuery, NackOptions, QueueError, ReceiveOptions,
    ReplyOptions, SendOptions, SettingsChange, Status, Store, Task, View,
};
use serde::Serialize;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

pub async fn run(command: QueueCommand) -> CommandResult {
    // Every verb is a blocking SQLite call, and `receive --wait` may block for minutes.
    tokio::task::spawn_blocking(move || run_blocking(command))
        .await
        .map_err(|e| Failure::new(Exit::Failed, format!("the queue command stopped: {e}")))?
}

fn run_blocking(command: QueueCommand) -> CommandResult {
    match command {
        QueueCommand::Create { name, max_attempts, lease, review, no_review, json, workspace } => {
            let mut store = open(workspace.workspace.as_deref())?;
            let change = SettingsChange {
                max_attempts,
                lease_s: lease,
                review: review_flag(review, no_review),
            };
            let info = store.create(&name, &change).map_err(failure)?;
            print(json, &info, || {
                let review = if info.settings.review { "on" } else { "off" };
                outln!(
                    "Queue {}: {} attempts, lease {} s, review {review}.",
                    info.name,
                    info.settings.max_attempts,
                    info.settings.lease_s
                );
            });
        }
        QueueCommand::List { json, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            let mut store = open(Some(&ws))?;
            let queues = store.list().map_err(failure)?;
            print(json, &queues, || {
                if queues.is_empty() {
                    outln!(
                        "No task queues in {} (the first `cowork queue send` creates one).",
                        ws.display()
                    );
                    return;
                }
                let rows: Vec<Vec<String>> = queues
                    .iter()
                    .map(|q| {
                        let c = &q.counts;
                        [
                            &q.name as &dyn ToString,
                            &c.needs_you,
                            &c.todo,
                            &c.in_progress,
                            &c.needs_review,
                            &c.done,
                            &c.failed,
                        ]
                        .iter()
                        .map(|v| v.to_string())
                        .collect()
                    })
                    .collect();
                table::print(
                    &[
                        "QUEUE",
                        "NEEDS YOU",
                        "TO DO",
                        "IN PROGRESS",
                        "NEEDS REVIEW",
                        "DONE",
                        "FAILED",
                    ],
                    &rows,
                );
            });
        }
        QueueCommand::Send {
            name,
            body,
            subject,
            to,
            sender,
            review,
            no_review,
            reference,
            meta,
            files,
            delay,
            json,
            workspace,
        } => {
            let mut store = open(workspace.workspace.as_deref())?;
            let meta = meta
                .map(|text| {
                    serde_json::from_str(&text).map_err(|e| {
                        Failure::new(Exit::Usage, format!("--meta: not JSON: {e}"))
                            .named(ErrorName::BadRequest)
                    })
                })
                .transpose()?;
            let options = SendOptions {
                subject,
                to,
                sender,
                review: review_flag(review, no_review),
                reference,
                meta,
                delay_s: delay,
                files: paths(files),
            };
            let text = read_text(&body, "body", subject_only(&options))?;
            let sent = store.send(&name, &text, &options).map_err(failure)?;
            print(json, &sent, || {
                let task = &sent.task;
                if sent.deduplicated {
                    outln!(
                        "Task {} already has ref {}: {}",
                        task.id,
                        task.reference.as_deref().unwrap_or_default(),
                        task.subject
                    );
                } else {
                    outln!(
                        "Sent task {} to {} in {}: {}",
                        task.id,
                        task.to,
                        task.queue,
                        task.subject
                    );
                }
            });
        }
        QueueCommand::Receive { name, receiver, mine, lease, wait, json, workspace } => {
            let mut store = open(workspace.workspace.as_deref())?;
            let options = ReceiveOptions { receiver, mine, lease_s: lease };
            let wait = Duration::from_secs(wait.unwrap_or(0));
            let Some(received) = store.receive_wait(&name, &options, wait).map_err(failure)? else {
                let who = options
                    .receiver
                    .as_deref()
                    .map_or("unaddressed".to_string(), |n| format!("for {n}"));
                let message = format!("no task {who} in {name}");
                if json {
                    print_json_failure("Empty", &message, None);
                }
                eprintln!("{message}");
                return Ok(Exit::NotFound);
            };
            print(json, &received, || {
                show_task(&received.task);
                outln!("receipt: {}", received.receipt);
            });
        }
        QueueCommand::Ack {
            name,
            id,
            receipt,
            result,
            result_file,
            files,
            review,
            to,
            json,
            workspace,
        } => {
            let mut store = open(workspace.workspace.as_deref())?;
            let result = match result_file {
                Some(file) => Some(read_file(&file, "--result-file")?),
                None => result,
            };
            let options = AckOptions { result, files: paths(files), review, to };
            let task = store.ack(&name, id, &receipt, &options).map_err(failure)?;
            print(json, &task, || outln!("{}", status_line(&task)));
        }
        QueueCommand::Nack { name, id, receipt, delay, error, json, workspace } => {
            let mut store = open(workspace.workspace.as_deref())?;
            let task = store
                .nack(&name, id, &receipt, &NackOptions { delay_s: delay, error })
                .map_err(failure)?;
            print(json, &task, || outln!("{}", status_line(&task)));
        }
        QueueCommand::Approve { name, id, json, workspace } => {
            let task = open(workspace.workspace.as_deref())?.approve(&name, id).map_err(failure)?;
            print(json, &task, || outln!("{}", status_line(&task)));
        }
        QueueCommand::Reject { name, id, comment, files, json, workspace } => {
            let mut store = open(workspace.workspace.as_deref())?;
            let task = store.reject(&name, id, &comment, &paths(files)).map_err(failure)?;
            print(json, &task, || outln!("{}", status_line(&task)));
        }
        QueueCommand::Reply { name, id, body, to, sender, files, json, workspace } => {
            let mut store = open(workspace.workspace.as_deref())?;
            let text = read_text(&body, "body", false)?;
            let options = ReplyOptions { to, sender, files: paths(files) };
            let task = store.reply(&name, id, &text, &options).map_err(failure)?;
            print(json, &task, || outln!("{}", status_line(&task)));
        }
        QueueCommand::Retry { name, id, json, workspace } => {
            let task = open(workspace.workspace.as_deref())?.retry(&name, id).map_err(failure)?;
            print(json, &task, || outln!("{}", status_line(&task)));
        }
        QueueCommand::Peek { name, id, json, workspace } => {
            let task = open(workspace.workspace.as_deref())?.peek(&name, id).map_err(failure)?;
            print(json, &task, || show_task(&task));
        }
        QueueCommand::Items { name, agent, q, limit, view, json, workspace } => {
            let view = match view {
                Some(text) => View::parse("--view", &text).map_err(failure)?,
                None => View::All,
            };
            let query = ItemsQuery { view, agent, q, limit, before: None };
            let tasks =
                open(workspace.workspace.as_deref())?.items(&name, &query).map_err(failure)?;
            print(json, &tasks, || {
                if tasks.is_empty() {
                    outln!("No tasks.");
                    return;
                }
                let rows: Vec<Vec<String>> = tasks
                    .iter()
                    .map(|t| {
                        vec![
                            t.id.to_string(),
                            t.status.as_str().into(),
                            t.from.clone(),
                            t.to.clone(),
                            t.subject.clone(),
                        ]
                    })
                    .collect();
                table::print(&["ID", "STATUS", "FROM", "TO", "SUBJECT"], &rows);
            });
        }
        QueueCommand::Receivers { name, json, workspace } => {
            let mut store = open(workspace.workspace.as_deref())?;
            let receivers = store.receivers(name.as_deref()).map_err(failure)?;
            print(json, &receivers, || {
                if receivers.is_empty() {
                    outln!("No agent has taken a task yet.");
                    return;
                }
                let rows: Vec<Vec<String>> = receivers
                    .iter()
                    .map(|r| {
                        let listening = if r.listening { "listening" } else { "not listening" };
                        vec![r.queue.clone(), r.name.clone(), time(r.last_seen), listening.into()]
                    })
                    .collect();
                table::print(&["QUEUE", "AGENT", "LAST SEEN", "NOW"], &rows);
            });
        }
        QueueCommand::Summary { json, workspace } => {
            let mut store = open(workspace.workspace.as_deref())?;
            let needs_you = store.needs_you().map_err(failure)?;
            let journal = store.journal_open().map_err(failure)?;
            #[derive(Serialize)]
            #[serde(rename_all = "camelCase")]
            struct Summary<'a> {
                needs_you: &'a [Task],
                journal: &'a [journal::JournalEntry],
            }
            print(json, &Summary { needs_you: &needs_you, journal: &journal }, || {
                if needs_you.is_empty() {
                    outln!("Nothing needs you.");
                } else {
                    outln!("Needs you:");
                    for task in &needs_you {
                        outln!(
                            "  {} #{} {} · {}",
                            task.queue,
                            task.id,
                            task.status.as_str(),
                            task.subject
                        );
                    }
                }
                if journal.is_empty() {
                    outln!("No open journal entries.");
                } else {
                    outln!("Open journal entries:");
                    for entry in &journal {
                        outln!(
                            "  {} #{} {} · {}",
                            entry.skill,
                            entry.id,
                            entry.kind,
                            first_line(&entry.text)
                        );
                    }
                }
            });
        }
        QueueCommand::Delete { name, id, yes, workspace } => {
            let mut store = open(workspace.workspace.as_deref())?;
            match id {
                Some(id) => {
                    store.delete_task(&name, id).map_err(failure)?;
                    outln!("Deleted task {id} of {name}.");
                }
                None if !yes => {
                    return Err(Failure::new(
                        Exit::Usage,
                        format!("deleting the whole queue {name} and every task in it needs --yes"),
                    )
                    .hint(format!("`cowork queue delete {name} --yes`, or give a task id")));
                }
                None => {
                    store.delete_queue(&name).map_err(failure)?;
                    outln!("Deleted the queue {name}.");
                }
            }
        }
        QueueCommand::Purge { name, status, workspace } => {
            let (done, failed) = match status {
                PurgeStatus::Done => (true, false),
                PurgeStatus::Failed => (false, true),
                PurgeStatus::All => (true, true),
            };
            let removed = open(workspace.workspace.as_deref())?
                .purge(&name, done, failed)
                .map_err(failure)?;
            outln!("Deleted {removed} task(s) of {name}.");
        }
    }
    Ok(Exit::Ok)
}

/// The workspace's store, opened (and created) for one command.
pub fn open(flag: Option<&Path>) -> Result<Store, Failure> {
    let ws = workspace::resolve(flag)?;
    Store::open(&ws).map_err(failure)
}

/// A store error as the person sees it: bad input is a usage error naming the field, a missing
/// queue or task exit 3, the rest a failure; `--json` carries the store's own error name.
pub fn failure(error: QueueError) -> Failure {
    let code = match error.name() {
        ErrorName::BadRequest => Exit::Usage,
        ErrorName::NotFound => Exit::NotFound,
        _ => Exit::Failed,
    };
    let name = error.name();
    let mut failure = Failure::new(code, &error).named(name).caused_by(&error);
    if let Some(hint) = error.hint() {
        failure = failure.hint(hint);
    }
    failure
}

/// Prints `value` as one JSON line, or runs `text`.
pub fn print<T: Serialize>(json: bool, value: &T, text: impl FnOnce()) {
    if json {
        outln!("{}", serde_json::to_string(value).expect("store types serialize"));
    } else {
        text();
    }
}

fn review_flag(review: bool, no_review: bool) -> Option<bool> {
    match (review, no_review) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

fn paths(files: Vec<String>) -> Vec<FileInput> {
    files.into_iter().map(|path| FileInput::Path { path }).collect()
}

/// A send with only a --subject may leave the body empty.
fn subject_only(options: &SendOptions) -> bool {
    options.subject.is_some()
}

/// The text from the argument, `--body-file` or `--stdin`.
fn read_text(input: &TextInput, field: &str, may_be_empty: bool) -> Result<String, Failure> {
    let text = if let Some(file) = &input.body_file {
        read_file(file, "--body-file")?
    } else if input.stdin {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| {
            Failure::new(Exit::Usage, format!("failed to read the {field} from stdin: {e}"))
        })?;
        text
    } else {
        input.text.clone().unwrap_or_default()
    };
    if text.trim().is_empty() && !may_be_empty {
        return Err(Failure::new(Exit::Usage, format!("{field}: the text is empty"))
            .named(ErrorName::BadRequest)
            .hint("give it as an argument, --body-file <f> or --stdin"));
    }
    Ok(text)
}

pub fn read_file(path: &Path, flag: &str) -> Result<String, Failure> {
    std::fs::read_to_string(path).map_err(|e| {
        Failure::new(Exit::Usage, format!("{flag}: failed to read {}: {e}", path.display()))
            .named(ErrorName::BadRequest)
    })
}

fn status_line(task: &Task) -> String {
    let to = match task.status {
        Status::Todo => format!(" · to {}", task.to),
        _ => String::new(),
    };
    format!("Task {} of {}: {}{to} · {}", task.id, task.queue, task.status.as_str(), task.subject)
}

fn show_task(task: &Task) {
    outln!("Task {} of {}: {}", task.id, task.queue, task.subject);
    outln!(
        "{} · from {} · to {} · attempt {}{}",
        task.status.as_str(),
        task.from,
        task.to,
        task.attempts,
        task.lease_until.map(|t| format!(" · held until {}", time(t))).unwrap_or_default()
    );
    for file in task.files.iter().flatten() {
        outln!("file: {} ({} bytes)", file.name, file.size);
    }
    if let Some(body) = &task.body {
        outln!("\n{}", body.trim_end());
    }
    for entry in task.entries.iter().flatten() {
        let to = entry.to.as_deref().map(|t| format!(" → {t}")).unwrap_or_default();
        outln!("\n— {} by {}{to}, {}", entry.kind, entry.author, time(entry.at));
        if !entry.text.is_empty() {
            outln!("{}", entry.text.trim_end());
        }
        for file in &entry.files {
            outln!("file: {} ({} bytes)", file.name, file.size);
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// Milliseconds since the epoch as `2026-01-02T03:04:05.678Z`.
pub fn time(ms: i64) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(format).ok())
        .unwrap_or_else(|| ms.to_string())
}
