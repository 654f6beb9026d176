//! What the Tasks view and `cowork queue` read and tidy: queues with their settings and counts,
//! one task, lists of tasks, receivers, and removal.

use super::checks::check_lease;
use super::lifecycle::ensure_queue;
use super::rows::{columns, counts, load, read_task, settings, task_row};
use super::sql::{run, Write};
use super::{now_ms, Store};
use crate::error::{QueueError, Result};
use crate::model::*;
use rusqlite::{params, OptionalExtension};

impl Store {
    /// Creates a queue, or changes the settings given of an existing one.
    pub fn create(&mut self, name: &str, change: &SettingsChange) -> Result<QueueInfo> {
        check_name("name", name)?;
        if change.max_attempts == Some(0) {
            return Err(QueueError::bad("maxAttempts", "a task needs at least 1 attempt"));
        }
        if let Some(lease) = change.lease_s {
            check_lease(lease)?;
        }
        let tx = Write::begin(&self.conn)?;
        ensure_queue(&tx, name)?;
        run(
            &tx,
            "UPDATE queues SET max_attempts = coalesce(?2, max_attempts),
                lease_s = coalesce(?3, lease_s), review = coalesce(?4, review) WHERE name = ?1",
            params![name, change.max_attempts, change.lease_s, change.review],
        )?;
        tx.commit()?;
        self.info(name)
    }

    /// Every queue with its settings and counts.
    pub fn list(&mut self) -> Result<Vec<QueueInfo>> {
        let names: Vec<String> = self
            .conn
            .prepare_cached("SELECT name FROM queues ORDER BY name")?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        names.iter().map(|name| self.info(name)).collect()
    }

    /// One queue's settings and counts.
    pub fn info(&mut self, name: &str) -> Result<QueueInfo> {
        self.expire(name)?;
        let settings = settings(&self.conn, name)?;
        Ok(QueueInfo { name: name.to_string(), settings, counts: counts(&self.conn, name)? })
    }

    /// Tasks per view.
    pub fn counts(&mut self, queue: &str) -> Result<Counts> {
        Ok(self.info(queue)?.counts)
    }

    /// One task with its body, files and thread.
    pub fn peek(&mut self, queue: &str, id: i64) -> Result<Task> {
        self.expire(queue)?;
        self.read(queue, id)
    }

    /// [`Store::peek`] without giving back expired leases first.
    fn read(&self, queue: &str, id: i64) -> Result<Task> {
        read_task(&self.conn, queue, id)
    }

    /// An attached file's name and bytes.
    pub fn file(&mut self, queue: &str, id: i64, file: i64) -> Result<(String, Vec<u8>)> {
        load(&self.conn, queue, id)?;
        self.conn
            .query_row(
                "SELECT name, content FROM files WHERE id = ?1 AND task = ?2",
                params![file, id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?
            .ok_or_else(|| QueueError::bad("file", format!("task {id} has no file {file}")))
    }

    /// A queue's tasks, newest first, without bodies.
    pub fn items(&mut self, queue: &str, query: &ItemsQuery) -> Result<Vec<Task>> {
        self.expire(queue)?;
        settings(&self.conn, queue)?;
        let limit = query.limit.unwrap_or(50);
        if limit == 0 || limit > 200 {
            return Err(QueueError::bad("limit", format!("{limit} is not within 1..=200")));
        }
        if let Some(agent) = &query.agent {
            check_name("agent", agent)?;
        }
        let words: Vec<String> = query
            .q
            .as_deref()
            .unwrap_or_default()
            .split_whitespace()
            .map(|w| {
                format!("%{}%", w.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"))
            })
            .collect();
        let mut sql = format!(
            concat!(
                "SELECT ",
                columns!(),
                " FROM tasks WHERE queue = ?1 AND {} AND id < ?2
               AND (?3 IS NULL OR ?3 IN (to_name, from_name, holder))"
            ),
            query.view.condition()
        );
        for i in 0..words.len() {
            let n = i + 5;
            sql.push_str(&format!(
                " AND (subject LIKE ?{n} ESCAPE '\\' OR body LIKE ?{n} ESCAPE '\\')"
            ));
        }
        sql.push_str(" ORDER BY id DESC LIMIT ?4");
        let mut values: Vec<rusqlite::types::Value> = vec![
            queue.to_string().into(),
            query.before.unwrap_or(i64::MAX).into(),
            query.agent.clone().map_or(rusqlite::types::Value::Null, Into::into),
            i64::from(limit).into(),
        ];
        values.extend(words.into_iter().map(Into::into));
        let mut statement = self.conn.prepare_cached(&sql)?;
        let tasks = statement
            .query_map(rusqlite::params_from_iter(values), task_row)?
            .collect::<rusqlite::Result<_>>()?;
        Ok(tasks)
    }

    /// The agents seen receiving from a queue (or every queue), and whether each waits now.
    pub fn receivers(&mut self, queue: Option<&str>) -> Result<Vec<Receiver>> {
        if let Some(queue) = queue {
            settings(&self.conn, queue)?;
        }
        let now = now_ms();
        let mut statement = self.conn.prepare_cached(
            "SELECT queue, name, last_seen, coalesce(listening_until, 0) > ?2 FROM receivers
             WHERE ?1 IS NULL OR queue = ?1 ORDER BY last_seen DESC",
        )?;
        let rows = statement
            .query_map(params![queue, now], |r| {
                Ok(Receiver {
                    queue: r.get(0)?,
                    name: r.get(1)?,
                    last_seen: r.get(2)?,
                    listening: r.get(3)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Deletes one task and its files and thread.
    pub fn delete_task(&mut self, queue: &str, id: i64) -> Result<()> {
        load(&self.conn, queue, id)?;
        run(&self.conn, "DELETE FROM tasks WHERE id = ?1", [id])?;
        Ok(())
    }

    /// Deletes a queue with all its tasks.
    pub fn delete_queue(&mut self, queue: &str) -> Result<()> {
        settings(&self.conn, queue)?;
        run(&self.conn, "DELETE FROM queues WHERE name = ?1", [queue])?;
        Ok(())
    }

    /// Deletes a queue's done tasks, failed ones, or both; answers how many.
    pub fn purge(&mut self, queue: &str, done: bool, failed: bool) -> Result<u64> {
        settings(&self.conn, queue)?;
        let removed = run(
            &self.conn,
            "DELETE FROM tasks WHERE queue = ?1
               AND ((?2 AND status = 'done') OR (?3 AND status = 'failed'))",
            params![queue, done, failed],
        )?;
        Ok(removed as u64)
    }

    /// Every task that needs the owner, across every queue (oldest first, at most 200).
    pub fn needs_you(&mut self) -> Result<Vec<Task>> {
        let names: Vec<String> = self.list()?.into_iter().map(|q| q.name).collect();
        let mut tasks = Vec::new();
        for name in names {
            let query = ItemsQuery { view: View::NeedsYou, limit: Some(200), ..Default::default() };
            tasks.extend(self.items(&name, &query)?);
        }
        tasks.sort_by_key(|t| t.id);
        Ok(tasks)
    }
}
