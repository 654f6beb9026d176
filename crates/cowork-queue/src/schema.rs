//! Opening `queues.db`: WAL, a busy timeout, the store's identity, and the migrations.
//!
//! The file carries `PRAGMA application_id` = [`APPLICATION_ID`] and `user_version` = the number of
//! migrations applied. A file that is not SQLite, fails its integrity check, or is another
//! program's database is refused with what to do, never recreated: the tasks in it may be the only
//! copy.

use crate::error::{QueueError, Result};
use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::time::Duration;

/// "CWKQ": marks a SQLite file as Cowork's task store.
pub const APPLICATION_ID: i32 = 0x4357_4b51;

/// The page size of a store made now (see [`open`]); one made before keeps its own.
pub const PAGE_SIZE: u32 = 1024;

/// Every migration, in order; `user_version` counts those applied. Append, never edit.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE queues (
    name TEXT PRIMARY KEY,
    max_attempts INTEGER NOT NULL DEFAULT 3,
    lease_s INTEGER NOT NULL DEFAULT 300,
    review INTEGER NOT NULL DEFAULT 0,
    created INTEGER NOT NULL
);
CREATE TABLE tasks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    queue TEXT NOT NULL REFERENCES queues(name) ON DELETE CASCADE,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL
        CHECK (status IN ('todo', 'in_progress', 'needs_review', 'done', 'failed')),
    from_name TEXT NOT NULL,
    to_name TEXT NOT NULL,
    review INTEGER NOT NULL,
    ref TEXT,
    meta TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    holder TEXT,
    receipt TEXT,
    lease_until INTEGER,
    available_at INTEGER NOT NULL,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    UNIQUE (queue, ref)
);
-- Receivers take the oldest (lowest id) receivable task: walked in id order within a status.
CREATE INDEX tasks_ready ON tasks (queue, status, id);
CREATE INDEX tasks_leased ON tasks (queue, status, lease_until) WHERE status = 'in_progress';
CREATE TABLE entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    task INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    author TEXT NOT NULL,
    to_name TEXT,
    text TEXT NOT NULL,
    at INTEGER NOT NULL
);
CREATE INDEX entries_task ON entries (task, id);
CREATE TABLE files (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    task INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    entry INTEGER REFERENCES entries(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    content BLOB NOT NULL
);
CREATE INDEX files_task ON files (task, entry);
CREATE TABLE receivers (
    queue TEXT NOT NULL REFERENCES queues(name) ON DELETE CASCADE,
    name TEXT NOT NULL,
    last_seen INTEGER NOT NULL,
    listening_until INTEGER,
    PRIMARY KEY (queue, name)
);
CREATE TABLE journal (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    skill TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('learning', 'error', 'note')),
    text TEXT NOT NULL,
    source TEXT NOT NULL,
    applied INTEGER NOT NULL DEFAULT 0,
    created INTEGER NOT NULL,
    resolved INTEGER
);
CREATE INDEX journal_skill ON journal (skill, applied, id);
"#,
    // Fewer pages written per task (each is a frame in the WAL at every commit): the `(queue, ref)`
    // uniqueness only where a task has a ref (the table constraint indexed every task), and no index of
    // leases (a receive added to it and an ack removed from it; `expire` finds the few in-progress
    // tasks through `tasks_ready`). SQLite cannot drop a table constraint: the table is rebuilt, its
    // AUTOINCREMENT counter kept so an id is never given twice.
    r#"
CREATE TABLE tasks_v2 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    queue TEXT NOT NULL REFERENCES queues(name) ON DELETE CASCADE,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL
        CHECK (status IN ('todo', 'in_progress', 'needs_review', 'done', 'failed')),
    from_name TEXT NOT NULL,
    to_name TEXT NOT NULL,
    review INTEGER NOT NULL,
    ref TEXT,
    meta TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    holder TEXT,
    receipt TEXT,
    lease_until INTEGER,
    available_at INTEGER NOT NULL,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL
);
INSERT INTO tasks_v2 SELECT * FROM tasks;
DELETE FROM sqlite_sequence WHERE name = 'tasks_v2';
UPDATE sqlite_sequence SET name = 'tasks_v2' WHERE name = 'tasks';
DROP TABLE tasks;
ALTER TABLE tasks_v2 RENAME TO tasks;
CREATE INDEX tasks_ready ON tasks (queue, status, id);
CREATE UNIQUE INDEX tasks_ref ON tasks (queue, ref) WHERE ref IS NOT NULL;
"#,
    // The status CHECK as comparisons: SQLite evaluates `status IN (five strings)` by building a
    // temporary b-tree of the five, on every insert and every status change (a third of the
    // instructions of a send, receive or ack). Rebuilt as the second migration did.
    r#"
CREATE TABLE tasks_v3 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    queue TEXT NOT NULL REFERENCES queues(name) ON DELETE CASCADE,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL
        CHECK (status = 'todo' OR status = 'in_progress' OR status = 'needs_review'
            OR status = 'done' OR status = 'failed'),
    from_name TEXT NOT NULL,
    to_name TEXT NOT NULL,
    review INTEGER NOT NULL,
    ref TEXT,
    meta TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    holder TEXT,
    receipt TEXT,
    lease_until INTEGER,
    available_at INTEGER NOT NULL,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL
);
INSERT INTO tasks_v3 SELECT * FROM tasks;
DELETE FROM sqlite_sequence WHERE name = 'tasks_v3';
UPDATE sqlite_sequence SET name = 'tasks_v3' WHERE name = 'tasks';
DROP TABLE tasks;
ALTER TABLE tasks_v3 RENAME TO tasks;
CREATE INDEX tasks_ready ON tasks (queue, status, id);
CREATE UNIQUE INDEX tasks_ref ON tasks (queue, ref) WHERE ref IS NOT NULL;
"#,
    // No AUTOINCREMENT on tasks: it rewrote `sqlite_sequence`'s page at every send, one frame in
    // the WAL of the seven a task's send, receive and ack write. An id is still never given twice
    // (an owner's `approve 42` must not reach a newer task that took a deleted one's id): a send
    // takes one past the greater of the highest id there and `task_ids.floor`, the highest id
    // ever deleted, which a trigger keeps — written on a delete, never on a send. Seeded from
    // `sqlite_sequence`, the highest id AUTOINCREMENT ever gave. Rebuilt as the second migration.
    r#"
CREATE TABLE tasks_v4 (
    id INTEGER PRIMARY KEY,
    queue TEXT NOT NULL REFERENCES queues(name) ON DELETE CASCADE,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL
        CHECK (status = 'todo' OR status = 'in_progress' OR status = 'needs_review'
            OR status = 'done' OR status = 'failed'),
    from_name TEXT NOT NULL,
    to_name TEXT NOT NULL,
    review INTEGER NOT NULL,
    ref TEXT,
    meta TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    holder TEXT,
    receipt TEXT,
    lease_until INTEGER,
    available_at INTEGER NOT NULL,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL
);
INSERT INTO tasks_v4 SELECT * FROM tasks;
CREATE TABLE task_ids (floor INTEGER NOT NULL);
INSERT INTO task_ids
    SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'tasks'), 0),
               coalesce((SELECT max(id) FROM tasks), 0));
DELETE FROM sqlite_sequence WHERE name = 'tasks';
DROP TABLE tasks;
ALTER TABLE tasks_v4 RENAME TO tasks;
CREATE INDEX tasks_ready ON tasks (queue, status, id);
CREATE UNIQUE INDEX tasks_ref ON tasks (queue, ref) WHERE ref IS NOT NULL;
CREATE TRIGGER task_ids_kept AFTER DELETE ON tasks WHEN OLD.id > (SELECT floor FROM task_ids)
BEGIN
    UPDATE task_ids SET floor = OLD.id;
END;
"#,
];

/// A new task's id, as an `INSERT INTO tasks (id, …)` gives it: one past the highest there and
/// the highest ever deleted, so never one given before (the fourth migration). A macro, for
/// `concat!` into the store's cached statement.
macro_rules! next_task_id {
    () => {
        "max(coalesce((SELECT max(id) FROM tasks), 0), (SELECT floor FROM task_ids)) + 1"
    };
}
pub(crate) use next_task_id;

/// Opens (creating when absent) the store at `path`, migrated to this version.
pub fn open(path: &Path) -> Result<Connection> {
    let fresh = !path.exists();
    // NOFOLLOW: no symlink anywhere in the (canonical) path, `queues.db` itself included, so
    // the store never writes a file outside the workspace.
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    // Through the VFS that writes a WAL frame in one system call (wal_frames.rs).
    let conn = match crate::wal_frames::vfs() {
        Some(vfs) => Connection::open_with_flags_and_vfs(path, flags, vfs)?,
        None => Connection::open_with_flags(path, flags)?,
    };
    // Many receivers share the file: a writer waits for the lock rather than failing.
    conn.busy_timeout(Duration::from_secs(30))?;
    let damaged = |e: rusqlite::Error| classify(path, e);
    // 1 KiB pages for a new store (SQLite's 4 KiB otherwise): every commit writes each page it
    // changed to the WAL whole, and a send, receive or ack changes a few bytes of two or three
    // pages (the task's row, `tasks_ready`). A quarter of the bytes written, checksummed and
    // copied by the kernel: ~+20% tasks per CPU-second one at a time (BENCHMARKS.md, "Task
    // queue"). Only a new file takes it: an existing store keeps the size it was made with.
    conn.execute_batch(&format!("PRAGMA page_size = {PAGE_SIZE}"))?;
    let mode: String =
        conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(damaged)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(QueueError::Foreign {
            path: path.into(),
            detail: format!("journal mode {mode}"),
        });
    }
    // NORMAL in WAL mode: every commit is in the WAL file before the call returns, so it survives
    // the process being killed (-9) at any point; only a power cut may roll back the last few
    // commits (never corrupt the file). FULL would fsync each commit: ~2 ms here, 100× slower.
    conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")?;
    // A checkpoint (copying the WAL into the file, two fsyncs of ~1.5 ms each here) every 8192
    // pages (8 MiB of 1 KiB pages) rather than SQLite's 1000: a task's send, receive and ack add
    // about 7 pages, so 1 checkpoint in ~1100 tasks instead of ~140, and the hot pages copied
    // once each time. Durability is unchanged (a commit is in the WAL before it returns); the WAL
    // is cut back to 32 MiB after a checkpoint when it grew past that (a store of 4 KiB pages).
    conn.execute_batch("PRAGMA wal_autocheckpoint = 8192; PRAGMA journal_size_limit = 33554432;")?;
    let id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(damaged)?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if id != APPLICATION_ID {
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
            .map_err(damaged)?;
        if !(fresh || tables == 0) || id != 0 {
            return Err(QueueError::Foreign {
                path: path.into(),
                detail: format!("application_id {id:#x}, {tables} schema objects"),
            });
        }
    }
    let known = MIGRATIONS.len() as i64;
    if version > known {
        return Err(QueueError::TooNew { path: path.into(), found: version, known });
    }
    if version < known {
        migrate(&conn, version)?;
    }
    Ok(conn)
}

/// Applies the migrations after `from`, each with its version bump in one transaction.
///
/// Foreign keys are off meanwhile, as SQLite's procedure for rebuilding a table asks (dropping the
/// old table would otherwise delete every task's thread and files with it); the transaction checks
/// them before it commits.
fn migrate(conn: &Connection, from: i64) -> Result<()> {
    conn.execute_batch("PRAGMA foreign_keys = OFF")?;
    let applied = migrate_unchecked(conn, from);
    conn.execute_batch("PRAGMA foreign_keys = ON")?;
    applied
}

fn migrate_unchecked(conn: &Connection, from: i64) -> Result<()> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let outcome = (|| -> Result<()> {
        // Another process may have migrated while this one waited for the lock.
        let now: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        for (index, sql) in MIGRATIONS.iter().enumerate().skip(now.max(from) as usize) {
            conn.execute_batch(sql)?;
            conn.execute_batch(&format!("PRAGMA user_version = {}", index + 1))?;
        }
        conn.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}"))?;
        let broken: i64 =
            conn.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| r.get(0))?;
        if broken > 0 {
            return Err(QueueError::Corrupt {
                path: conn.path().unwrap_or_default().into(),
                detail: format!("{broken} rows point at nothing after the migration"),
            });
        }
        Ok(())
    })();
    match outcome {
        Ok(()) => Ok(conn.execute_batch("COMMIT")?),
        Err(error) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(error)
        }
    }
}

/// A first read that failed: not a database, damaged, or an ordinary failure.
fn classify(path: &Path, error: rusqlite::Error) -> QueueError {
    use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
    match error.sqlite_error_code() {
        Some(NotADatabase) => {
            QueueError::Foreign { path: path.into(), detail: "not a SQLite database".into() }
        }
        Some(DatabaseCorrupt) => {
            QueueError::Corrupt { path: path.into(), detail: error.to_string() }
        }
        _ => QueueError::Sqlite(error),
    }
}

/// `cowork doctor`'s check: opens the store without creating or migrating it, and runs SQLite's
/// integrity check. `Ok(None)` when there is no store yet.
pub fn check(path: &Path) -> Result<Option<String>> {
    if !path.exists() {
        return Ok(None);
    }
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let damaged = |e: rusqlite::Error| classify(path, e);
    let id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(damaged)?;
    if id != APPLICATION_ID {
        return Err(QueueError::Foreign {
            path: path.into(),
            detail: format!("application_id {id:#x}"),
        });
    }
    let verdict: String =
        conn.query_row("PRAGMA quick_check", [], |r| r.get(0)).map_err(damaged)?;
    if verdict != "ok" {
        return Err(QueueError::Corrupt { path: path.into(), detail: verdict });
    }
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    Ok(Some(format!("schema version {version}, integrity ok")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store made by the first version and one made by the third (the last with AUTOINCREMENT),
    /// each with a task whose thread and file must survive the rebuilds, and a deleted last task
    /// whose id must not be given again.
    #[test]
    fn an_older_store_migrates_keeping_every_task_thread_and_id() {
        migrates_keeping_every_task_thread_and_id(1);
        migrates_keeping_every_task_thread_and_id(3);
    }

    /// A new store is made with 1 KiB pages, in WAL mode, and keeps them when opened again.
    #[test]
    fn a_new_store_is_made_with_small_pages() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("queues.db");
        drop(open(&path).unwrap());
        let conn = open(&path).unwrap();
        let page: u32 = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
        assert_eq!(page, PAGE_SIZE);
        let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
        assert_eq!(mode, "wal");
    }

    fn migrates_keeping_every_task_thread_and_id(from: usize) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("queues.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = OFF;").unwrap();
            for sql in &MIGRATIONS[..from] {
                conn.execute_batch(sql).unwrap();
            }
            conn.execute_batch(&format!(
                "PRAGMA foreign_keys = ON;
                 PRAGMA user_version = {from}; PRAGMA application_id = {APPLICATION_ID};
                 INSERT INTO queues (name, created) VALUES ('inbox', 0);
                 INSERT INTO tasks (queue, subject, body, status, from_name, to_name, review, ref,
                    available_at, created, updated)
                 VALUES ('inbox', 'Plan', 'Plan it', 'todo', 'owner', 'anyone', 0, 'r-1', 0, 0, 0),
                        ('inbox', 'Gone', 'x', 'todo', 'owner', 'anyone', 0, NULL, 0, 0, 0);
                 INSERT INTO entries (task, kind, author, text, at) VALUES (1, 'comment', 'owner', 'hi', 0);
                 INSERT INTO files (task, name, content) VALUES (1, 'a.txt', x'41');
                 DELETE FROM tasks WHERE id = 2;"
            ))
            .unwrap();
        }
        let conn = open(&path).unwrap();
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64, "from version {from}");
        // A store made with SQLite's 4 KiB pages keeps them (only a new file takes PAGE_SIZE).
        let page: u32 = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
        assert_eq!(page, 4096, "from version {from}");
        let kept: (String, i64, i64) = conn
            .query_row(
                "SELECT subject, (SELECT count(*) FROM entries WHERE task = 1),
                    (SELECT count(*) FROM files WHERE task = 1) FROM tasks WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(kept, ("Plan".into(), 1, 1));
        // As the store inserts (lifecycle.rs).
        let insert = concat!(
            "INSERT INTO tasks (id, queue, subject, body, status, from_name, to_name, review,
                available_at, created, updated) VALUES (",
            next_task_id!(),
            ", 'inbox', 'New', 'n', 'todo', 'owner', 'anyone', 0, 0, 0, 0)"
        );
        conn.execute(insert, []).unwrap();
        assert_eq!(conn.last_insert_rowid(), 3, "id 2 was given once already (from {from})");
        // Nor is the id of a newest task deleted after the migration.
        conn.execute("DELETE FROM tasks WHERE id = 3", []).unwrap();
        conn.execute(insert, []).unwrap();
        assert_eq!(conn.last_insert_rowid(), 4, "id 3 was given once already (from {from})");
        // A ref is still one task per queue; tasks without one are not indexed by it.
        let again = conn.execute(
            "INSERT INTO tasks (queue, subject, body, status, from_name, to_name, review, ref,
                available_at, created, updated)
             VALUES ('inbox', 'Dup', 'd', 'todo', 'owner', 'anyone', 0, 'r-1', 0, 0, 0)",
            [],
        );
        assert!(again.is_err());
        // A status outside the five is still refused.
        let odd = conn.execute("UPDATE tasks SET status = 'lost' WHERE id = 1", []);
        assert!(odd.unwrap_err().to_string().contains("CHECK constraint failed"));
        // Deleting a task still takes its thread and files with it.
        conn.execute("DELETE FROM tasks WHERE id = 1", []).unwrap();
        let left: i64 = conn
            .query_row(
                "SELECT (SELECT count(*) FROM entries) + (SELECT count(*) FROM files)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(left, 0);
    }
}
