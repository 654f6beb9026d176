//! The task queues: every status transition of a task, each in one SQLite transaction.
//!
//! | from | operation | to |
//! | --- | --- | --- |
//! | — | `send` | todo (receivable once its delay has passed) |
//! | todo | `receive` | in_progress (attempts + 1, a new receipt, a lease) |
//! | in_progress | `ack` | done; needs_review (`review`, or the task asks for it); todo (`to`: handed on) |
//! | in_progress | `nack` | todo after the delay; failed once attempts reach the queue's maximum |
//! | in_progress | the lease runs out | as `nack` |
//! | needs_review | `approve` | done |
//! | needs_review | `reject` | todo, to the agent who finished it |
//! | any but in_progress | `reply` to an agent or anyone | todo, to that name |
//! | failed | `retry` | todo (attempts from 0) |
//!
//! A receipt fences its holder: `ack` and `nack` need the task's current receipt, which a lease
//! running out clears, so a holder that stalled past its lease cannot finish a task another
//! receiver now holds.

use crate::error::{QueueError, Result};
use crate::files::{self, Attachment};
use crate::model::*;
use crate::schema;
use crate::wake::{self, Bell};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The store's file, relative to a workspace.
pub const STORE: &str = ".cowork/local/queues.db";

/// Names `to` may take besides an agent's.
pub const OWNER: &str = "owner";
pub const ANYONE: &str = "anyone";

/// An open task store: one connection, for one thread at a time.
pub struct Store {
    pub(crate) conn: Connection,
    path: PathBuf,
    workspace: PathBuf,
    bell: wake::Ringer,
}

impl Store {
    /// Opens the workspace's store, creating `.cowork/local/queues.db` when absent; never through
    /// a symlink (a `.cowork/local` leading out of the workspace is refused, `SymlinkedFolder`).
    pub fn open(workspace: &Path) -> Result<Store> {
        cowork_core::own_folders::check(workspace)?;
        let workspace = &workspace.canonicalize()?;
        let path = workspace.join(STORE);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let conn = schema::open(&path)?;
        Ok(Store { conn, bell: wake::Ringer::new(&path), path, workspace: workspace.to_path_buf() })
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn workspace(&self) -> &Path {
        &self.workspace
    }

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

    /// Adds a task (creating the queue). A `ref` already used in the queue answers its task.
    pub fn send(&mut self, queue: &str, body: &str, options: &SendOptions) -> Result<Sent> {
        check_name("queue", queue)?;
        let task = checked_task(&self.workspace, body, options)?;
        Ok(self.send_checked(queue, vec![task])?.remove(0))
    }

    /// Adds many tasks in one transaction, all or none (our extension: the reference sends one
    /// at a time). Each is checked as `send` checks it, a refusal naming `tasks[i].<field>`;
    /// each answer is the one `send` would give, in order.
    pub fn send_many(&mut self, queue: &str, tasks: &[NewTask]) -> Result<Vec<Sent>> {
        check_name("queue", queue)?;
        check_batch("tasks", tasks.len())?;
        let checked = tasks
            .iter()
            .enumerate()
            .map(|(i, task)| {
                checked_task(&self.workspace, &task.body, &task.options)
                    .map_err(|e| e.within(&format!("tasks[{i}]")))
            })
            .collect::<Result<Vec<_>>>()?;
        self.send_checked(queue, checked)
    }

    fn send_checked(&mut self, queue: &str, tasks: Vec<Checked<'_>>) -> Result<Vec<Sent>> {
        let now = now_ms();
        let tx = Write::begin(&self.conn)?;
        ensure_queue(&tx, queue)?;
        let default_review = settings(&tx, queue)?.review;
        let (mut sent, mut gave_back) = (Vec::with_capacity(tasks.len()), false);
        for task in tasks {
            if let Some(id) = earlier(&tx, queue, task.options.reference.as_deref())? {
                // What `peek` answers: expired leases given back first.
                gave_back |= expire(&tx, queue, now)?;
                sent.push(Sent { task: read_task(&tx, queue, id)?, deduplicated: true });
                continue;
            }
            sent.push(Sent {
                task: insert(&tx, queue, task, default_review, now)?,
                deduplicated: false,
            });
        }
        tx.commit()?;
        if gave_back || sent.iter().any(|s| !s.deduplicated) {
            self.bell.ring();
        }
        Ok(sent)
    }

    /// Takes the oldest receivable task for `as` (or for anyone), with a fresh receipt; `None`
    /// when there is none. Two receivers never get the same task: the choice and the take are
    /// one write transaction.
    pub fn receive(&mut self, queue: &str, options: &ReceiveOptions) -> Result<Option<Received>> {
        Ok(self.take(queue, options, 1, false)?.pop())
    }

    /// Takes up to `max` of the oldest receivable tasks in one transaction (our extension: the
    /// reference receives one at a time), oldest first, each as `receive` takes it: its own
    /// receipt and lease, fenced alone. Empty when there is none.
    pub fn receive_many(
        &mut self,
        queue: &str,
        options: &ReceiveOptions,
        max: usize,
    ) -> Result<Vec<Received>> {
        check_batch("max", max)?;
        self.take(queue, options, max, false)
    }

    /// Up to `max` tasks as `receive` takes one; with `look_first`, a read without the write
    /// lock first, so that waiters woken together by one arrival do not all queue on the lock
    /// for it.
    fn take(
        &mut self,
        queue: &str,
        options: &ReceiveOptions,
        max: usize,
        look_first: bool,
    ) -> Result<Vec<Received>> {
        let receiver = check_receiver(options)?;
        if let Some(lease) = options.lease_s {
            check_lease(lease)?;
        }
        let now = now_ms();
        if look_first && !self.maybe_receivable(queue, receiver, options.mine, now)? {
            return Ok(Vec::new());
        }
        let tx = Write::begin(&self.conn)?;
        expire(&tx, queue, now)?;
        let (filter, to) = addressed(receiver, options.mine);
        let ids: Vec<i64> = tx
            .prepare_cached(&format!(
                "SELECT id FROM tasks WHERE queue = ?1 AND status = 'todo'
                 AND available_at <= ?2 AND {filter} ORDER BY id LIMIT ?4"
            ))?
            .query_map(params![queue, now, to, max as i64], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if ids.is_empty() {
            tx.commit()?; // keeps what `expire` gave back
            return Ok(Vec::new());
        }
        let lease = match options.lease_s {
            Some(lease) => lease,
            None => settings(&tx, queue)?.lease_s,
        };
        let mut received = Vec::with_capacity(ids.len());
        let mut update = tx.prepare_cached(
            "UPDATE tasks SET status = 'in_progress', attempts = attempts + 1, holder = ?2,
                receipt = ?3, lease_until = ?4, updated = ?5 WHERE id = ?1",
        )?;
        for id in ids {
            let receipt = new_receipt();
            let until = now + (lease as i64) * 1000;
            update.execute(params![id, receiver, receipt, until, now])?;
            received.push(Received { task: read_task(&tx, queue, id)?, receipt });
        }
        drop(update);
        if let Some(name) = receiver {
            seen(&tx, queue, name, now, None)?;
        }
        tx.commit()?;
        Ok(received)
    }

    /// `receive`, waiting up to `wait` for a task to arrive; the wait ends as soon as one does
    /// (see [`crate::wake`]). While it waits, the receiver is listed as listening.
    pub fn receive_wait(
        &mut self,
        queue: &str,
        options: &ReceiveOptions,
        wait: Duration,
    ) -> Result<Option<Received>> {
        check_seconds("wait", wait.as_secs(), MAX_WAIT_S)?;
        let deadline = Instant::now() + wait;
        let mut bell = if wait.is_zero() { None } else { Some(Bell::watch(&self.path)?) };
        let listening = options.receiver.as_deref().filter(|_| bell.is_some());
        if let Some(name) = listening {
            check_name("as", name)?;
            self.listening(queue, name, Some(now_ms() + wait.as_millis() as i64))?;
        }
        let mut woken = false;
        let outcome = loop {
            let received = self.take(queue, options, 1, woken).map(|mut taken| taken.pop());
            woken = true;
            let Some(bell) = &mut bell else { break received };
            if !matches!(received, Ok(None)) || Instant::now() >= deadline {
                break received;
            }
            let due = self.next_due(queue, options)?.map(|ms| {
                Instant::now() + Duration::from_millis(ms.saturating_sub(now_ms()).max(0) as u64)
            });
            bell.wait(due.map_or(deadline, |due| due.min(deadline)));
        };
        if let Some(name) = listening {
            self.listening(queue, name, None)?;
        }
        outcome
    }

    /// Finishes a received task: done, needs review, or handed on to `to`.
    pub fn ack(
        &mut self,
        queue: &str,
        id: i64,
        receipt: &str,
        options: &AckOptions,
    ) -> Result<Task> {
        let files = checked_ack(&self.workspace, options)?;
        Ok(self.finish(queue, vec![(id, receipt, options, files)])?.remove(0))
    }

    /// Finishes many received tasks in one transaction, all or none (our extension: the
    /// reference acks one at a time): each as `ack` finishes it, so one stale receipt refuses the
    /// batch naming its task. Answers the tasks in order.
    pub fn ack_many(&mut self, queue: &str, acks: &[TaskAck]) -> Result<Vec<Task>> {
        check_batch("acks", acks.len())?;
        let mut checked = Vec::with_capacity(acks.len());
        for (i, ack) in acks.iter().enumerate() {
            let files = checked_ack(&self.workspace, &ack.options)
                .map_err(|e| e.within(&format!("acks[{i}]")))?;
            checked.push((ack.id, ack.receipt.as_str(), &ack.options, files));
        }
        self.finish(queue, checked)
    }

    fn finish(
        &mut self,
        queue: &str,
        acks: Vec<(i64, &str, &AckOptions, Vec<Attachment>)>,
    ) -> Result<Vec<Task>> {
        let now = now_ms();
        let tx = Write::begin(&self.conn)?;
        expire(&tx, queue, now)?;
        let (mut tasks, mut handed_on) = (Vec::with_capacity(acks.len()), false);
        for (id, receipt, options, files) in acks {
            tasks.push(finish_one(&tx, queue, id, receipt, options, &files, now)?);
            handed_on |= options.to.is_some();
        }
        tx.commit()?;
        if handed_on {
            self.bell.ring();
        }
        Ok(tasks)
    }

    /// Gives a received task back: to do after `delay`, or failed once its attempts are used up.
    pub fn nack(
        &mut self,
        queue: &str,
        id: i64,
        receipt: &str,
        options: &NackOptions,
    ) -> Result<Task> {
        if let Some(error) = &options.error {
            check_body("error", error)?;
        }
        let delay = options.delay_s.unwrap_or(0);
        check_seconds("delay", delay, MAX_SECONDS)?;
        let now = now_ms();
        let tx = Write::begin(&self.conn)?;
        expire(&tx, queue, now)?;
        let task = held(&tx, queue, id, receipt)?;
        if let Some(error) = &options.error {
            let author = task.holder.as_deref().unwrap_or(ANYONE);
            add_entry(&tx, id, "error", author, None, error, now)?;
        }
        let max = settings(&tx, queue)?.max_attempts;
        give_back(&tx, id, task.attempts >= max, now + (delay as i64) * 1000, now)?;
        let task = read_task(&tx, queue, id)?;
        tx.commit()?;
        self.bell.ring();
        Ok(task)
    }

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
        change: impl FnOnce(&Connection, &Task, i64) -> Result<()>,
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

    /// Gives back every task of the queue whose lease ran out.
    fn expire(&mut self, queue: &str) -> Result<()> {
        let now = now_ms();
        let due: bool = row(
            &self.conn,
            "SELECT EXISTS (SELECT 1 FROM tasks WHERE queue = ?1 AND status = 'in_progress'
                AND lease_until <= ?2)",
            params![queue, now],
            |r| r.get(0),
        )?;
        if due {
            let tx = Write::begin(&self.conn)?;
            expire(&tx, queue, now)?;
            tx.commit()?;
            self.bell.ring();
        }
        Ok(())
    }

    /// Whether a receive might find a task, read without taking the write lock.
    fn maybe_receivable(
        &self,
        queue: &str,
        receiver: Option<&str>,
        mine: bool,
        now: i64,
    ) -> Result<bool> {
        let (filter, to) = addressed(receiver, mine);
        Ok(row(
            &self.conn,
            &format!(
                "SELECT EXISTS (SELECT 1 FROM tasks WHERE queue = ?1 AND status = 'todo'
                    AND available_at <= ?2 AND {filter})
                 OR EXISTS (SELECT 1 FROM tasks WHERE queue = ?1 AND status = 'in_progress'
                    AND lease_until <= ?2)"
            ),
            params![queue, now, to],
            |r| r.get(0),
        )?)
    }

    /// When, with no one ringing, a receive could next find something: the earliest delayed
    /// task for this receiver, or the earliest lease to run out.
    fn next_due(&self, queue: &str, options: &ReceiveOptions) -> Result<Option<i64>> {
        let (filter, to) = addressed(options.receiver.as_deref(), options.mine);
        Ok(row(
            &self.conn,
            &format!(
                "SELECT min(t) FROM (
                    SELECT min(available_at) AS t FROM tasks WHERE queue = ?1 AND status = 'todo'
                        AND {filter}
                    UNION ALL
                    SELECT min(lease_until) FROM tasks WHERE queue = ?1 AND status = 'in_progress')"
            ),
            params![queue, rusqlite::types::Null, to],
            |r| r.get(0),
        )?)
    }

    /// Marks a receiver as waiting until `until` (or no longer waiting).
    fn listening(&mut self, queue: &str, name: &str, until: Option<i64>) -> Result<()> {
        let exists: bool = row(
            &self.conn,
            "SELECT EXISTS (SELECT 1 FROM queues WHERE name = ?1)",
            [queue],
            |r| r.get(0),
        )?;
        if exists {
            let tx = Write::begin(&self.conn)?;
            seen(&tx, queue, name, now_ms(), until)?;
            tx.commit()?;
        }
        Ok(())
    }
}

/// Runs a statement from the connection's cache: compiling the SQL would cost more than running it.
fn run(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}

/// One row of a cached statement.
fn row<T>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    read: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.prepare_cached(sql)?.query_row(params, read)
}

/// A write transaction (`BEGIN IMMEDIATE`: the write lock from the start, so two writers never
/// deadlock upgrading a read), rolled back when dropped uncommitted. rusqlite's `Transaction`
/// parses `BEGIN` and `COMMIT` afresh every time; from the statement cache they are free, and
/// every send, receive and ack is one transaction.
struct Write<'c> {
    conn: &'c Connection,
}

impl<'c> Write<'c> {
    fn begin(conn: &'c Connection) -> rusqlite::Result<Write<'c>> {
        run(conn, "BEGIN IMMEDIATE", [])?;
        Ok(Write { conn })
    }

    fn commit(self) -> rusqlite::Result<()> {
        run(self.conn, "COMMIT", []).map(drop)
    }
}

impl Drop for Write<'_> {
    fn drop(&mut self) {
        // After a COMMIT that failed too: SQLite may have left the transaction open.
        if !self.conn.is_autocommit() {
            let _ = run(self.conn, "ROLLBACK", []);
        }
    }
}

impl std::ops::Deref for Write<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.conn
    }
}

/// One task with its body, files and thread, as it is in `conn` (inside a change's transaction:
/// its answer, read before the commit with no second read transaction).
fn read_task(conn: &Connection, queue: &str, id: i64) -> Result<Task> {
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
fn with_thread(conn: &Connection, mut task: Task) -> Result<Task> {
    let (mut entries, mut files) = (Vec::new(), Vec::new());
    let mut statement = conn.prepare_cached(
        "SELECT 'entry' AS of, id, kind, author, to_name, text, at FROM entries WHERE task = ?1
         UNION ALL
         SELECT 'file', id, name, entry, NULL, NULL, length(content) FROM files WHERE task = ?1",
    )?;
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
use columns;

/// [`columns!`] then `body`.
fn full_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Task> {
    Ok(Task { body: Some(r.get(15)?), ..task_row(r)? })
}

fn task_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Task> {
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

fn load(conn: &Connection, queue: &str, id: i64) -> Result<Task> {
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
fn missing(conn: &Connection, queue: &str, id: i64) -> QueueError {
    match settings(conn, queue) {
        Ok(_) => QueueError::NoTask { queue: queue.to_string(), id },
        Err(error) => error,
    }
}

/// What `ack` and `nack` need of a task they finish.
struct Held {
    holder: Option<String>,
    review: bool,
    attempts: u32,
}

/// The task, if `receipt` is its current one.
fn held(conn: &Connection, queue: &str, id: i64, receipt: &str) -> Result<Held> {
    if receipt.is_empty() {
        return Err(QueueError::bad("receipt", "the receipt `receive` gave is required"));
    }
    let found = row(
        conn,
        "SELECT status, receipt, holder, review, attempts FROM tasks WHERE id = ?1 AND queue = ?2",
        params![id, queue],
        |r| {
            let status: String = r.get(0)?;
            let current: Option<String> = r.get(1)?;
            let task = Held { holder: r.get(2)?, review: r.get(3)?, attempts: r.get(4)? };
            Ok((Status::parse(&status), current, task))
        },
    )
    .optional()?;
    let (status, current, task) = found.ok_or_else(|| missing(conn, queue, id))?;
    if status != Status::InProgress {
        let why = format!("it is {} now", status.as_str());
        return Err(QueueError::StaleReceipt { id, why });
    }
    if current.as_deref() != Some(receipt) {
        let why = "its current receipt is another: it was received again after this one's lease ran out, or this is not a receipt `receive` gave"
            .to_string();
        return Err(QueueError::StaleReceipt { id, why });
    }
    Ok(task)
}

fn settings(conn: &Connection, queue: &str) -> Result<Settings> {
    row(conn, "SELECT max_attempts, lease_s, review FROM queues WHERE name = ?1", [queue], |r| {
        Ok(Settings { max_attempts: r.get(0)?, lease_s: r.get(1)?, review: r.get(2)? })
    })
    .optional()?
    .ok_or_else(|| QueueError::NoQueue(queue.to_string()))
}

fn counts(conn: &Connection, queue: &str) -> Result<Counts> {
    Ok(row(
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

fn check_batch(field: &str, len: usize) -> Result<()> {
    if len == 0 || len > MAX_BATCH {
        return Err(QueueError::bad(field, format!("{len} is not within 1..={MAX_BATCH}")));
    }
    Ok(())
}

/// A task to send, checked, its files read.
struct Checked<'a> {
    options: &'a SendOptions,
    body: &'a str,
    subject: String,
    from: &'a str,
    to: &'a str,
    delay_ms: i64,
    meta: Option<String>,
    attachments: Vec<Attachment>,
}

fn checked_task<'a>(
    workspace: &Path,
    body: &'a str,
    options: &'a SendOptions,
) -> Result<Checked<'a>> {
    check_body("body", body)?;
    let to = options.to.as_deref().unwrap_or(ANYONE);
    check_name("to", to)?;
    let from = options.sender.as_deref().unwrap_or(OWNER);
    check_name("as", from)?;
    let subject = subject_of(options.subject.as_deref(), body)?;
    if let Some(reference) = &options.reference {
        if reference.is_empty() || reference.len() > 200 {
            return Err(QueueError::bad("ref", "a ref is 1 to 200 characters"));
        }
    }
    let delay = options.delay_s.unwrap_or(0);
    check_seconds("delay", delay, MAX_SECONDS)?;
    let meta = match &options.meta {
        None => None,
        Some(value) if value.is_object() => Some(value.to_string()),
        Some(_) => return Err(QueueError::bad("meta", "must be a JSON object")),
    };
    let attachments = files::load(workspace, "files", &options.files)?;
    Ok(Checked {
        options,
        body,
        subject,
        from,
        to,
        delay_ms: (delay as i64) * 1000,
        meta,
        attachments,
    })
}

/// The task a `ref` already names in the queue.
fn earlier(tx: &Connection, queue: &str, reference: Option<&str>) -> Result<Option<i64>> {
    let Some(reference) = reference else { return Ok(None) };
    Ok(row(
        tx,
        "SELECT id FROM tasks WHERE queue = ?1 AND ref = ?2",
        params![queue, reference],
        |r| r.get(0),
    )
    .optional()?)
}

/// Inserts a checked task; answers it as a read would, without reading it back.
fn insert(
    tx: &Connection,
    queue: &str,
    task: Checked<'_>,
    default_review: bool,
    now: i64,
) -> Result<Task> {
    let review = task.options.review.unwrap_or(default_review);
    let available_at = now + task.delay_ms;
    run(
        tx,
        "INSERT INTO tasks (queue, subject, body, status, from_name, to_name, review, ref, meta,
            available_at, created, updated)
         VALUES (?1, ?2, ?3, 'todo', ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
        params![
            queue,
            task.subject,
            task.body,
            task.from,
            task.to,
            review,
            task.options.reference,
            task.meta,
            available_at,
            now
        ],
    )?;
    let id = tx.last_insert_rowid();
    let files = store_files(tx, id, None, &task.attachments)?;
    Ok(Task {
        id,
        queue: queue.to_string(),
        subject: task.subject,
        status: Status::Todo,
        from: task.from.to_string(),
        to: task.to.to_string(),
        review,
        reference: task.options.reference.clone(),
        // As a read answers it: the object as stored.
        meta: task.meta.and_then(|m| serde_json::from_str(&m).ok()),
        attempts: 0,
        holder: None,
        lease_until: None,
        available_at,
        created: now,
        updated: now,
        body: Some(task.body.to_string()),
        files: Some(files),
        entries: Some(Vec::new()),
    })
}

/// `ack`'s options checked; the files to attach, read.
fn checked_ack(workspace: &Path, options: &AckOptions) -> Result<Vec<Attachment>> {
    if let Some(result) = &options.result {
        check_body("result", result)?;
    }
    if let Some(to) = &options.to {
        check_name("to", to)?;
    }
    files::load(workspace, "files", &options.files)
}

/// One `ack` inside its transaction.
fn finish_one(
    tx: &Connection,
    queue: &str,
    id: i64,
    receipt: &str,
    options: &AckOptions,
    attachments: &[Attachment],
    now: i64,
) -> Result<Task> {
    let task = held(tx, queue, id, receipt)?;
    let author = task.holder.as_deref().unwrap_or(ANYONE);
    if options.result.is_some() || !attachments.is_empty() {
        let text = options.result.as_deref().unwrap_or_default();
        let entry = add_entry(tx, id, "result", author, options.to.as_deref(), text, now)?;
        store_files(tx, id, Some(entry), attachments)?;
    }
    if let Some(to) = &options.to {
        run(
            tx,
            "UPDATE tasks SET status = 'todo', to_name = ?2, attempts = 0, receipt = NULL,
                lease_until = NULL, available_at = ?3, updated = ?3 WHERE id = ?1",
            params![id, to, now],
        )?;
    } else {
        let status = if options.review || task.review { "needs_review" } else { "done" };
        run(
            tx,
            "UPDATE tasks SET status = ?2, receipt = NULL, lease_until = NULL, updated = ?3
             WHERE id = ?1",
            params![id, status, now],
        )?;
    }
    read_task(tx, queue, id)
}

fn ensure_queue(tx: &Connection, name: &str) -> Result<()> {
    run(
        tx,
        "INSERT INTO queues (name, created) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING",
        params![name, now_ms()],
    )?;
    Ok(())
}

/// Gives back (or fails) every task of the queue whose lease ran out, with an entry saying so;
/// answers whether there was any.
fn expire(tx: &Connection, queue: &str, now: i64) -> Result<bool> {
    let expired: Vec<(i64, u32, Option<String>)> = tx
        .prepare_cached(
            "SELECT id, attempts, holder FROM tasks WHERE queue = ?1 AND status = 'in_progress'
             AND lease_until <= ?2",
        )?
        .query_map(params![queue, now], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    if expired.is_empty() {
        return Ok(false);
    }
    let max = settings(tx, queue)?.max_attempts;
    for (id, attempts, holder) in expired {
        let who = holder.as_deref().unwrap_or("its receiver");
        add_entry(tx, id, "expired", "cowork", None, &format!("the lease of {who} ran out"), now)?;
        give_back(tx, id, attempts >= max, now, now)?;
    }
    Ok(true)
}

/// In progress → failed, or to do from `available_at`.
fn give_back(tx: &Connection, id: i64, fail: bool, available_at: i64, now: i64) -> Result<()> {
    run(
        tx,
        "UPDATE tasks SET status = ?2, receipt = NULL, lease_until = NULL, available_at = ?3,
            updated = ?4 WHERE id = ?1",
        params![id, if fail { "failed" } else { "todo" }, available_at, now],
    )?;
    Ok(())
}

fn add_entry(
    tx: &Connection,
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

fn store_files(
    tx: &Connection,
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

/// Records that `name` was here at `now`. A receiver taking task after task is written once a
/// second, not once a task: an unchanged row costs no page in the WAL (`receivers` shows seconds).
fn seen(tx: &Connection, queue: &str, name: &str, now: i64, until: Option<i64>) -> Result<()> {
    run(
        tx,
        "INSERT INTO receivers (queue, name, last_seen, listening_until) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (queue, name) DO UPDATE SET last_seen = ?3, listening_until = ?4
         WHERE listening_until IS NOT ?4 OR last_seen <= ?3 - 1000",
        params![queue, name, now, until],
    )?;
    Ok(())
}

/// The tasks a receiver may take, as a condition on `to_name` with `?3` bound to the name.
fn addressed(receiver: Option<&str>, mine: bool) -> (&'static str, Option<&str>) {
    match (receiver, mine) {
        (None, _) => ("to_name = 'anyone' AND ?3 IS NULL", None),
        (Some(name), true) => ("to_name = ?3", Some(name)),
        (Some(name), false) => ("to_name IN (?3, 'anyone')", Some(name)),
    }
}

fn check_receiver(options: &ReceiveOptions) -> Result<Option<&str>> {
    match options.receiver.as_deref() {
        Some(name) => {
            check_name("as", name)?;
            Ok(Some(name))
        }
        None if options.mine => Err(QueueError::bad("mine", "--mine needs --as <name>")),
        None => Ok(None),
    }
}

fn check_lease(lease: u64) -> Result<()> {
    if lease == 0 {
        return Err(QueueError::bad("lease", "a lease is at least 1 s"));
    }
    check_seconds("lease", lease, MAX_SECONDS)
}

/// The subject given, else the body's first non-empty line, cut to 200 characters.
fn subject_of(given: Option<&str>, body: &str) -> Result<String> {
    let subject = match given {
        Some(subject) => {
            if subject.contains('\n') {
                return Err(QueueError::bad("subject", "a subject is one line"));
            }
            subject.trim().to_string()
        }
        None => body.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default().to_string(),
    };
    if subject.is_empty() {
        return Err(QueueError::bad("body", "a task needs a body or a --subject"));
    }
    Ok(subject.chars().take(200).collect())
}

fn new_receipt() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
