//! The owner's moves: approve or reject a finished task, reply on a thread (which may hand the
//! task to someone), retry a failed one.

use super::lifecycle::expire;
use super::rows::{add_entry, load, read_task, store_files};
use super::sql::{run, Conn, Write};
use super::{now_ms, Store, OWNER};
use crate::error::{QueueError, Result};
use crate::files;
use crate::model::*;
use rusqlite::params;

impl Store {
    /// Needs review → done.
    pub fn approve(&mut self, queue: &str, id: i64) -> Result<Task> {
        self.transition(queue, id, "approve", Status::NeedsReview, |tx, _, now| {
            add_entry(tx, id, "approved", OWNER, None, "", now)?;
            run(
                tx,
                "UPDATE tasks SET status = 'done', updated = ?2 WHERE id = ?1",
                params![id, now],
            )?;
            Ok(())
        })
    }

    /// Needs review → to do again, for the agent who finished it, with the owner's comment.
    pub fn reject(
        &mut self,
        queue: &str,
        id: i64,
        comment: &str,
        files: &[FileInput],
    ) -> Result<Task> {
        if comment.trim().is_empty() {
            return Err(QueueError::bad("comment", "say what to change"));
        }
        check_body("comment", comment)?;
        let attachments = files::load(&self.workspace, "files", files)?;
        self.transition(queue, id, "reject", Status::NeedsReview, |tx, task, now| {
            let to = task.holder.as_deref().unwrap_or(&task.to);
            let entry = add_entry(tx, id, "comment", OWNER, Some(to), comment, now)?;
            store_files(tx, id, Some(entry), &attachments)?;
            run(
                tx,
                "UPDATE tasks SET status = 'todo', to_name = ?2, attempts = 0, available_at = ?3,
                    updated = ?3 WHERE id = ?1",
                params![id, to, now],
            )?;
            Ok(())
        })
    }

    /// An entry on the thread. To an agent or anyone (and the task not in progress) it sends the
    /// task to that name, reopening a done or failed one; otherwise it is a note.
    pub fn reply(
        &mut self,
        queue: &str,
        id: i64,
        body: &str,
        options: &ReplyOptions,
    ) -> Result<Task> {
        check_body("body", body)?;
        if let Some(to) = &options.to {
            check_name("to", to)?;
        }
        let author = options.sender.as_deref().unwrap_or(OWNER);
        check_name("as", author)?;
        let attachments = files::load(&self.workspace, "files", &options.files)?;
        let now = now_ms();
        let tx = Write::begin(&self.conn)?;
        expire(&tx, queue, now)?;
        let task = load(&tx, queue, id)?;
        let sends =
            options.to.as_deref().filter(|to| *to != OWNER && task.status != Status::InProgress);
        let kind = if sends.is_some() { "reply" } else { "note" };
        let entry = add_entry(&tx, id, kind, author, options.to.as_deref(), body, now)?;
        store_files(&tx, id, Some(entry), &attachments)?;
        if let Some(to) = sends {
            run(
                &tx,
                "UPDATE tasks SET status = 'todo', to_name = ?2, attempts = 0, receipt = NULL,
                    lease_until = NULL, available_at = ?3, updated = ?3 WHERE id = ?1",
                params![id, to, now],
            )?;
        } else {
            run(&tx, "UPDATE tasks SET updated = ?2 WHERE id = ?1", params![id, now])?;
        }
        let task = read_task(&tx, queue, id)?;
        tx.commit()?;
        if sends.is_some() {
            self.bell.ring();
        }
        Ok(task)
    }

    /// Failed → to do, with its attempts from 0.
    pub fn retry(&mut self, queue: &str, id: i64) -> Result<Task> {
        self.transition(queue, id, "retry", Status::Failed, |tx, _, now| {
            add_entry(tx, id, "retried", OWNER, None, "", now)?;
            run(
                tx,
                "UPDATE tasks SET status = 'todo', attempts = 0, available_at = ?2, updated = ?2
                 WHERE id = ?1",
                params![id, now],
            )?;
            Ok(())
        })
    }

    /// The owner's move of a task that must be `from` (`op` refused otherwise): `change` writes
    /// the entry and the new status in one transaction. A task back to do rings the bell.
    fn transition(
        &mut self,
        queue: &str,
        id: i64,
        op: &'static str,
        from: Status,
        change: impl FnOnce(&Conn, &Task, i64) -> Result<()>,
    ) -> Result<Task> {
        let now = now_ms();
        let tx = Write::begin(&self.conn)?;
        let task = load(&tx, queue, id)?;
        if task.status != from {
            let status = task.status.as_str().into();
            return Err(QueueError::WrongStatus { id, status, op, needs: from.as_str() });
        }
        change(&tx, &task, now)?;
        let task = read_task(&tx, queue, id)?;
        tx.commit()?;
        if task.status == Status::Todo {
            self.bell.ring();
        }
        Ok(task)
    }
}
