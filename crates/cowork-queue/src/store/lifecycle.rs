//! A task's life with its receivers: sent, received with a receipt and a lease, finished with
//! `ack` or given back with `nack` (or by its lease running out), each in one transaction.

use super::checks::{check_batch, check_lease, check_receiver, checked_ack, checked_task, Checked};
use super::rows::{
    add_entry, columns, full_row, missing, read_task, settings, store_files, with_thread,
};
use super::sql::{row, run, Conn, Write};
use super::{now_ms, Store, ANYONE};
use crate::error::{QueueError, Result};
use crate::files::Attachment;
use crate::model::*;
use crate::wake::Bell;
use rusqlite::{params, OptionalExtension};
use std::time::{Duration, Instant};

impl Store {
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
        // The settings first: a send to a queue that exists (nearly every send) then runs no
        // insert of it.
        let default_review = match settings(&tx, queue) {
            Err(QueueError::NoQueue(_)) => {
                ensure_queue(&tx, queue)?;
                settings(&tx, queue)?.review
            }
            found => found?.review,
        };
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
        // No `LIMIT ?`: SQLite plans with a bound LIMIT's value, so binding one expires the
        // statement and every receive compiled it again (a tenth of a routine's one-at-a-time
        // loop). The rows come in `tasks_ready`'s order, already by id: the first `max` are
        // read and the scan stops there. Whole rows, not ids: the scan reads each row anyway
        // (for `to_name`, `available_at`), and the answer is then the row as the update below
        // leaves it, without reading it again (a statement fewer of the nine a receive ran).
        let (ready, to) = addressed!(
            receiver,
            options.mine,
            concat!(
                "SELECT ",
                columns!(),
                ", body FROM tasks WHERE queue = ?1 AND status = 'todo' AND available_at <= ?2 AND "
            ),
            " ORDER BY id"
        );
        let tasks: Vec<Task> = tx.held(ready, |statement| {
            statement.query_map(params![queue, now, to], full_row)?.take(max).collect()
        })?;
        if tasks.is_empty() {
            tx.commit()?; // keeps what `expire` gave back
            return Ok(Vec::new());
        }
        let lease = match options.lease_s {
            Some(lease) => lease,
            None => settings(&tx, queue)?.lease_s,
        };
        let mut received = Vec::with_capacity(tasks.len());
        for mut task in tasks {
            let receipt = new_receipt();
            let until = now + (lease as i64) * 1000;
            run(
                &tx,
                "UPDATE tasks SET status = 'in_progress', attempts = attempts + 1, holder = ?2,
                    receipt = ?3, lease_until = ?4, updated = ?5 WHERE id = ?1",
                params![task.id, receiver, receipt, until, now],
            )?;
            // What the update wrote, as a read after it would answer.
            task.status = Status::InProgress;
            task.attempts += 1;
            task.holder = receiver.map(str::to_string);
            task.lease_until = Some(until);
            task.updated = now;
            received.push(Received { task: with_thread(&tx, task)?, receipt });
        }
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

    /// Gives back every task of the queue whose lease ran out.
    pub(super) fn expire(&mut self, queue: &str) -> Result<()> {
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
        let (sql, to) = addressed!(
            receiver,
            mine,
            "SELECT EXISTS (SELECT 1 FROM tasks WHERE queue = ?1 AND status = 'todo'
                AND available_at <= ?2 AND ",
            ") OR EXISTS (SELECT 1 FROM tasks WHERE queue = ?1 AND status = 'in_progress'
                AND lease_until <= ?2)"
        );
        Ok(row(&self.conn, sql, params![queue, now, to], |r| r.get(0))?)
    }

    /// When, with no one ringing, a receive could next find something: the earliest delayed
    /// task for this receiver, or the earliest lease to run out.
    fn next_due(&self, queue: &str, options: &ReceiveOptions) -> Result<Option<i64>> {
        let (sql, to) = addressed!(
            options.receiver.as_deref(),
            options.mine,
            "SELECT min(t) FROM (
                SELECT min(available_at) AS t FROM tasks WHERE queue = ?1 AND status = 'todo'
                    AND ",
            " UNION ALL
                SELECT min(lease_until) FROM tasks WHERE queue = ?1 AND status = 'in_progress')"
        );
        Ok(row(&self.conn, sql, params![queue, rusqlite::types::Null, to], |r| r.get(0))?)
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

/// The task (its row, without its thread), if `receipt` is its current one.
fn held(conn: &Conn, queue: &str, id: i64, receipt: &str) -> Result<Task> {
    if receipt.is_empty() {
        return Err(QueueError::bad("receipt", "the receipt `receive` gave is required"));
    }
    let found = row(
        conn,
        concat!("SELECT ", columns!(), ", body, receipt FROM tasks WHERE id = ?1 AND queue = ?2"),
        params![id, queue],
        |r| Ok((full_row(r)?, r.get::<_, Option<String>>(16)?)),
    )
    .optional()?;
    let (task, current) = found.ok_or_else(|| missing(conn, queue, id))?;
    if task.status != Status::InProgress {
        let why = format!("it is {} now", task.status.as_str());
        return Err(QueueError::StaleReceipt { id, why });
    }
    if current.as_deref() != Some(receipt) {
        let why = "its current receipt is another: it was received again after this one's lease ran out, or this is not a receipt `receive` gave"
            .to_string();
        return Err(QueueError::StaleReceipt { id, why });
    }
    Ok(task)
}

/// The task a `ref` already names in the queue.
fn earlier(tx: &Conn, queue: &str, reference: Option<&str>) -> Result<Option<i64>> {
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
    tx: &Conn,
    queue: &str,
    task: Checked<'_>,
    default_review: bool,
    now: i64,
) -> Result<Task> {
    let review = task.options.review.unwrap_or(default_review);
    let available_at = now + task.delay_ms;
    // The id: never one given before, deleted since (schema.rs, the fourth migration).
    run(
        tx,
        concat!(
            "INSERT INTO tasks (id, queue, subject, body, status, from_name, to_name, review, ref,
                meta, available_at, created, updated)
             VALUES (",
            crate::schema::next_task_id!(),
            ", ?1, ?2, ?3, 'todo', ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)"
        ),
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

/// One `ack` inside its transaction.
fn finish_one(
    tx: &Conn,
    queue: &str,
    id: i64,
    receipt: &str,
    options: &AckOptions,
    attachments: &[Attachment],
    now: i64,
) -> Result<Task> {
    // The row read here is the answer, as the update below leaves it: read again after the
    // update, it was a statement more of the seven an ack ran.
    let mut task = held(tx, queue, id, receipt)?;
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
        task.status = Status::Todo;
        task.to = to.clone();
        task.attempts = 0;
        task.available_at = now;
    } else {
        let status = if options.review || task.review { "needs_review" } else { "done" };
        run(
            tx,
            "UPDATE tasks SET status = ?2, receipt = NULL, lease_until = NULL, updated = ?3
             WHERE id = ?1",
            params![id, status, now],
        )?;
        task.status = Status::parse(status);
    }
    task.lease_until = None;
    task.updated = now;
    with_thread(tx, task)
}

pub(super) fn ensure_queue(tx: &Conn, name: &str) -> Result<()> {
    run(
        tx,
        "INSERT INTO queues (name, created) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING",
        params![name, now_ms()],
    )?;
    Ok(())
}

/// Gives back (or fails) every task of the queue whose lease ran out, with an entry saying so;
/// answers whether there was any.
pub(super) fn expire(tx: &Conn, queue: &str, now: i64) -> Result<bool> {
    let expired: Vec<(i64, u32, Option<String>)> = tx.held(
        "SELECT id, attempts, holder FROM tasks WHERE queue = ?1 AND status = 'in_progress'
         AND lease_until <= ?2",
        |statement| {
            statement
                .query_map(params![queue, now], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect()
        },
    )?;
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
fn give_back(tx: &Conn, id: i64, fail: bool, available_at: i64, now: i64) -> Result<()> {
    run(
        tx,
        "UPDATE tasks SET status = ?2, receipt = NULL, lease_until = NULL, available_at = ?3,
            updated = ?4 WHERE id = ?1",
        params![id, if fail { "failed" } else { "todo" }, available_at, now],
    )?;
    Ok(())
}

/// Records that `name` was here at `now`. A receiver taking task after task is written once a
/// second, not once a task: an unchanged row costs no page in the WAL (`receivers` shows seconds).
fn seen(tx: &Conn, queue: &str, name: &str, now: i64, until: Option<i64>) -> Result<()> {
    run(
        tx,
        "INSERT INTO receivers (queue, name, last_seen, listening_until) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (queue, name) DO UPDATE SET last_seen = ?3, listening_until = ?4
         WHERE listening_until IS NOT ?4 OR last_seen <= ?3 - 1000",
        params![queue, name, now, until],
    )?;
    Ok(())
}

/// The tasks a receiver (`Option<&str>`) may take, as a condition on `to_name` with `?3` bound
/// to the name, between `$before` (a literal, or a `concat!` of literals) and `$after`: one SQL
/// literal per kind of receiver, and the value for `?3`. Literals, not a string made per call, so
/// the store holds each statement (sql.rs) instead of formatting and looking it up on every
/// receive.
macro_rules! addressed {
    ($receiver:expr, $mine:expr, $before:expr, $after:literal) => {
        match ($receiver, $mine) {
            (None, _) => (concat!($before, "to_name = 'anyone' AND ?3 IS NULL", $after), None),
            (Some(name), true) => (concat!($before, "to_name = ?3", $after), Some(name)),
            (Some(name), false) => {
                (concat!($before, "to_name IN (?3, 'anyone')", $after), Some(name))
            }
        }
    };
}
use addressed;

fn new_receipt() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}
