//! Tasks out of rows (the columns every read selects, a task with its thread), the reads every
//! operation shares, and the writes of a thread: its entries and files.

use super::sql::{row, row_made, run, Conn};
use crate::error::{QueueError, Result};
use crate::files::Attachment;
use crate::model::*;
use rusqlite::{params, OptionalExtension};

/// One task with its body, files and thread, as it is in `conn` (inside a change's transaction:
/// its answer, read before the commit with no second read transaction).
pub(super) fn read_task(conn: &Conn, queue: &str, id: i64) -> Result<Task> {
    let task = row(
        conn,
        concat!("SELECT ", columns!(), ", body FROM tasks WHERE id = ?1 AND queue = ?2"),
        params![id, queue],
        full_row,
    )
    .optional()?;
    with_thread(conn, task.ok_or_else(|| missing(conn, queue, id))?)
}

/// A task with its files and the entries of its thread, read in one statement (two would cost
/// a tenth more per task taken or finished). Sorted here: an ORDER BY would build a temporary
/// b-tree on every read.
pub(super) fn with_thread(conn: &Conn, mut task: Task) -> Result<Task> {
    let (mut entries, mut files) = (Vec::new(), Vec::new());
    let thread =
        "SELECT 'entry' AS of, id, kind, author, to_name, text, at FROM entries WHERE task = ?1
         UNION ALL
         SELECT 'file', id, name, entry, NULL, NULL, length(content) FROM files WHERE task = ?1";
    conn.held(thread, |statement| {
        let mut rows = statement.query([task.id])?;
        while let Some(r) = rows.next()? {
            if r.get::<_, String>(0)? == "entry" {
                entries.push(Entry {
                    id: r.get(1)?,
                    kind: r.get(2)?,
                    author: r.get(3)?,
                    to: r.get(4)?,
                    text: r.get(5)?,
                    at: r.get(6)?,
                    files: Vec::new(),
                });
            } else {
                files.push(FileInfo {
                    id: r.get(1)?,
                    name: r.get(2)?,
                    entry: r.get(3)?,
                    size: r.get(6)?,
                });
            }
        }
        Ok(())
    })?;
    entries.sort_by_key(|e: &Entry| e.id);
    files.sort_by_key(|f: &FileInfo| f.id);
    for entry in &mut entries {
        entry.files = files.iter().filter(|f| f.entry == Some(entry.id)).cloned().collect();
    }
    task.files = Some(files.into_iter().filter(|f| f.entry.is_none()).collect());
    task.entries = Some(entries);
    Ok(task)
}

/// The columns [`task_row`] reads, in its order (a macro, so that statements are literals).
macro_rules! columns {
    () => {
        "id, queue, subject, status, from_name, to_name, review, ref, meta, attempts, holder,
        lease_until, available_at, created, updated"
    };
}
pub(super) use columns;

/// [`columns!`] then `body`.
pub(super) fn full_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Task> {
    Ok(Task { body: Some(r.get(15)?), ..task_row(r)? })
}

pub(super) fn task_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Task> {
    let status: String = r.get(3)?;
    let meta: Option<String> = r.get(8)?;
    Ok(Task {
        id: r.get(0)?,
        queue: r.get(1)?,
        subject: r.get(2)?,
        status: Status::parse(&status),
        from: r.get(4)?,
        to: r.get(5)?,
        review: r.get(6)?,
        reference: r.get(7)?,
        meta: meta.and_then(|m| serde_json::from_str(&m).ok()),
        attempts: r.get(9)?,
        holder: r.get(10)?,
        lease_until: r.get(11)?,
        available_at: r.get(12)?,
        created: r.get(13)?,
        updated: r.get(14)?,
        body: None,
        files: None,
        entries: None,
    })
}

pub(super) fn load(conn: &Conn, queue: &str, id: i64) -> Result<Task> {
    row(
        conn,
        concat!("SELECT ", columns!(), " FROM tasks WHERE id = ?1 AND queue = ?2"),
        params![id, queue],
        task_row,
    )
    .optional()?
    .ok_or_else(|| missing(conn, queue, id))
}

/// Why no task `id` is in `queue`: there is no such queue, or no such task in it.
pub(super) fn missing(conn: &Conn, queue: &str, id: i64) -> QueueError {
    match settings(conn, queue) {
        Ok(_) => QueueError::NoTask { queue: queue.to_string(), id },
        Err(error) => error,
    }
}

pub(super) fn settings(conn: &Conn, queue: &str) -> Result<Settings> {
    row(conn, "SELECT max_attempts, lease_s, review FROM queues WHERE name = ?1", [queue], |r| {
        Ok(Settings { max_attempts: r.get(0)?, lease_s: r.get(1)?, review: r.get(2)? })
    })
    .optional()?
    .ok_or_else(|| QueueError::NoQueue(queue.to_string()))
}

pub(super) fn counts(conn: &Conn, queue: &str) -> Result<Counts> {
    Ok(row_made(
        conn,
        &format!(
            "SELECT
                count(*) FILTER (WHERE {}),
                count(*) FILTER (WHERE status = 'todo'),
                count(*) FILTER (WHERE status = 'in_progress'),
                count(*) FILTER (WHERE status = 'needs_review'),
                count(*) FILTER (WHERE status = 'done'),
                count(*) FILTER (WHERE status = 'failed')
             FROM tasks WHERE queue = ?1",
            View::NeedsYou.condition()
        ),
        [queue],
        |r| {
            Ok(Counts {
                needs_you: r.get(0)?,
                todo: r.get(1)?,
                in_progress: r.get(2)?,
                needs_review: r.get(3)?,
                done: r.get(4)?,
                failed: r.get(5)?,
            })
        },
    )?)
}

pub(super) fn add_entry(
    tx: &Conn,
    task: i64,
    kind: &str,
    author: &str,
    to: Option<&str>,
    text: &str,
    now: i64,
) -> Result<i64> {
    run(tx,
        "INSERT INTO entries (task, kind, author, to_name, text, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![task, kind, author, to, text, now],
    )?;
    Ok(tx.last_insert_rowid())
}

pub(super) fn store_files(
    tx: &Conn,
    task: i64,
    entry: Option<i64>,
    files: &[Attachment],
) -> Result<Vec<FileInfo>> {
    let mut stored = Vec::with_capacity(files.len());
    for file in files {
        run(
            tx,
            "INSERT INTO files (task, entry, name, content) VALUES (?1, ?2, ?3, ?4)",
            params![task, entry, file.name, file.content],
        )?;
        stored.push(FileInfo {
            id: tx.last_insert_rowid(),
            name: file.name.clone(),
            size: file.content.len() as u64,
            entry,
        });
    }
    Ok(stored)
}
