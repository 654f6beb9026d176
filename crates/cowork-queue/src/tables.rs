//! Workspace tables: SQLite files an app or the person keeps in the workspace (`cowork table
//! create <name>` makes `.cowork/data/<name>.db`), read and written by widgets through
//! `cowork.tables`.
//!
//! A pane reaches only the workspace's own `.db` files, never those Cowork keeps ([`reach`]), and
//! every statement runs under the pane's policy of SQLite's authorizer
//! ([`crate::authorizer`]): it reads (`query`, on a read-only connection) or writes (`exec`) the
//! one file named, and cannot attach another, vacuum into a path, load an extension or change a
//! setting. `query` answers at most [`PAGE`] rows, with a cursor for the next page.

mod reach;

use crate::authorizer::{Access, Guard, Policy};
use crate::error::{QueueError, Result};
use crate::model::check_name;
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, OpenFlags};
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where `cowork table create` puts tables, relative to the workspace.
pub const DATA_DIR: &str = ".cowork/data";
/// How long one statement of a pane may run: past it SQLite stops it (`Timeout`), so a pane's
/// endless query (a recursive CTE) does not hold one of the daemon's threads for ever.
pub const STATEMENT_LIMIT: Duration = Duration::from_secs(30);
/// The most rows one `query` answers.
pub const PAGE: usize = 500;

/// A `.db` file under `.cowork/data`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TableFile {
    /// The file's name without `.db`.
    pub name: String,
    /// Workspace-relative.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its tables (not its views), by name.
    pub tables: Vec<String>,
}

/// One table or view of a database.
#[derive(Debug, Clone, Serialize)]
pub struct TableSchema {
    /// The table's or view's name.
    pub name: String,
    /// `table` or `view`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The statement that created it, as SQLite keeps it.
    pub sql: Option<String>,
    /// Its columns, in order.
    pub columns: Vec<Column>,
}

/// One column of a table or view.
#[derive(Debug, Clone, Serialize)]
pub struct Column {
    /// The column's name.
    pub name: String,
    /// Its declared type (empty when none was declared).
    #[serde(rename = "type")]
    pub kind: String,
}

/// A page of rows.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    /// The result's column names, in order.
    pub columns: Vec<String>,
    /// The rows, each by column name.
    pub rows: Vec<Map<String, Value>>,
    /// Pass back as `cursor` for the next page; absent on the last one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// What a write changed.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Changes {
    /// How many rows the statement changed.
    pub changes: u64,
    /// The rowid of the last row inserted on this connection.
    pub last_insert_rowid: i64,
}

/// Creates `.cowork/data/<name>.db` (WAL); `false` when it was already there.
pub fn create(workspace: &Path, name: &str) -> Result<(PathBuf, bool)> {
    check_name("name", name)?;
    let path = workspace.join(DATA_DIR).join(format!("{name}.db"));
    let existed = path.exists();
    std::fs::create_dir_all(path.parent().expect("a file under .cowork/data"))?;
    let conn = Connection::open(&path)?;
    conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))?;
    Ok((path, !existed))
}

/// Every `.db` directly under `.cowork/data`, by name.
pub fn list(workspace: &Path) -> Result<Vec<TableFile>> {
    let dir = workspace.join(DATA_DIR);
    let Ok(read) = std::fs::read_dir(&dir) else { return Ok(Vec::new()) };
    let mut files = Vec::new();
    for entry in read.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "db") || !path.is_file() {
            continue;
        }
        let name = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        let tables = Guarded::open(&path, Access::Read)
            .and_then(|guarded| {
                let mut statement = guarded.conn.prepare(
                    "SELECT name FROM sqlite_schema WHERE type = 'table'
                     AND name NOT LIKE 'sqlite_%' ORDER BY name",
                )?;
                let names =
                    statement.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
                Ok(names)
            })
            .unwrap_or_default();
        files.push(TableFile {
            path: format!("{DATA_DIR}/{name}.db"),
            name,
            size: entry.metadata().map(|m| m.len()).unwrap_or(0),
            tables,
        });
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// The tables and views of a workspace database a pane of `app` may open, with their columns.
pub fn schema(workspace: &Path, app: &str, db: &str) -> Result<Vec<TableSchema>> {
    let guarded = Guarded::open(&reach::resolve(workspace, app, db)?, Access::Read)?;
    let conn = &guarded.conn;
    let read = || -> rusqlite::Result<Vec<TableSchema>> {
        let mut statement = conn.prepare(
            "SELECT name, type, sql FROM sqlite_schema WHERE type IN ('table', 'view')
             AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )?;
        let objects: Vec<(String, String, Option<String>)> = statement
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<_>>()?;
        objects
            .into_iter()
            .map(|(name, kind, sql)| {
                let mut columns = conn.prepare("SELECT name, type FROM pragma_table_info(?1)")?;
                let columns = columns
                    .query_map([&name], |r| Ok(Column { name: r.get(0)?, kind: r.get(1)? }))?
                    .collect::<rusqlite::Result<_>>()?;
                Ok(TableSchema { name, kind, sql, columns })
            })
            .collect()
    };
    read().map_err(|e| guarded.error(e))
}

/// Runs a read in a file a pane of `app` may open: at most `limit` (≤ [`PAGE`]) rows from
/// `cursor` on. The connection is read-only and guarded: anything but a read is refused.
pub fn query(
    workspace: &Path,
    app: &str,
    db: &str,
    sql: &str,
    params: &[Value],
    limit: Option<usize>,
    cursor: Option<&str>,
) -> Result<Page> {
    let limit = limit.unwrap_or(PAGE);
    if limit == 0 || limit > PAGE {
        return Err(QueueError::bad("limit", format!("{limit} is not within 1..={PAGE}")));
    }
    let offset: usize = match cursor {
        None => 0,
        Some(text) => text.parse().map_err(|_| {
            QueueError::bad("cursor", format!("\"{text}\" is not a cursor this query gave"))
        })?,
    };
    let values = bind(params)?;
    let guarded = Guarded::open(&reach::resolve(workspace, app, db)?, Access::Read)?;
    let read = || -> rusqlite::Result<Page> {
        let mut statement = guarded.conn.prepare(sql)?;
        let columns: Vec<String> = statement.column_names().into_iter().map(String::from).collect();
        let mut rows = statement.query(rusqlite::params_from_iter(values))?;
        let mut page = Vec::new();
        let mut index = 0;
        let mut more = false;
        while let Some(row) = rows.next()? {
            if index >= offset + limit {
                more = true;
                break;
            }
            if index >= offset {
                let mut object = Map::new();
                for (i, column) in columns.iter().enumerate() {
                    object.insert(column.clone(), json_of(row.get_ref(i)?));
                }
                page.push(object);
            }
            index += 1;
        }
        Ok(Page { columns, rows: page, next_cursor: more.then(|| (offset + limit).to_string()) })
    };
    read().map_err(|e| guarded.error(e))
}

/// Runs one write in a file a pane of `app` may open, under the guard: its own tables only.
pub fn exec(workspace: &Path, app: &str, db: &str, sql: &str, params: &[Value]) -> Result<Changes> {
    let values = bind(params)?;
    let guarded = Guarded::open(&reach::resolve(workspace, app, db)?, Access::Write)?;
    let changes = guarded
        .conn
        .execute(sql, rusqlite::params_from_iter(values))
        .map_err(|e| guarded.error(e))?;
    Ok(Changes { changes: changes as u64, last_insert_rowid: guarded.conn.last_insert_rowid() })
}

/// A pane's connection under the guard.
struct Guarded {
    conn: Connection,
    guard: Guard,
    /// How long each statement may run.
    limit: Duration,
}

impl Guarded {
    /// Opens `path` (an existing file, never created) for `access`, guarded: a `query`
    /// connection is also read-only in SQLite itself, whatever the SQL says.
    fn open(path: &Path, access: Access) -> Result<Guarded> {
        Guarded::open_within(path, access, STATEMENT_LIMIT)
    }

    /// [`Guarded::open`], its statements stopped after `limit` (tests give a short one).
    fn open_within(path: &Path, access: Access, limit: Duration) -> Result<Guarded> {
        let flags = match access {
            Access::Read => OpenFlags::SQLITE_OPEN_READ_ONLY,
            Access::Write => OpenFlags::SQLITE_OPEN_READ_WRITE,
        };
        let failed = |source| QueueError::TableFile { path: path.to_path_buf(), source };
        let conn = Connection::open_with_flags(path, flags).map_err(failed)?;
        conn.busy_timeout(Duration::from_secs(5)).map_err(failed)?;
        let guard = Guard::install(&conn, Policy::Pane(access)).map_err(failed)?;
        // Asked every 10,000 virtual machine steps (well under a millisecond).
        let deadline = Instant::now() + limit;
        conn.progress_handler(10_000, Some(move || Instant::now() >= deadline));
        Ok(Guarded { conn, guard, limit })
    }

    /// The error for a failed statement: the guard's refusal when it refused, SQLite's otherwise.
    fn error(&self, error: rusqlite::Error) -> QueueError {
        let interrupted =
            error.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted);
        match self.guard.refusal() {
            Some(why) => QueueError::Refused(why),
            None if interrupted => QueueError::TimedOut(self.limit),
            None => QueueError::Statement(error),
        }
    }
}

fn bind(params: &[Value]) -> Result<Vec<SqlValue>> {
    params
        .iter()
        .enumerate()
        .map(|(i, value)| match value {
            Value::Null => Ok(SqlValue::Null),
            Value::Bool(b) => Ok(SqlValue::Integer(i64::from(*b))),
            Value::Number(n) => Ok(n
                .as_i64()
                .map_or_else(|| SqlValue::Real(n.as_f64().unwrap_or(0.0)), SqlValue::Integer)),
            Value::String(s) => Ok(SqlValue::Text(s.clone())),
            _ => Err(QueueError::bad(
                format!("params[{i}]"),
                "not a string, number, boolean or null",
            )),
        })
        .collect()
}

fn json_of(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => i.into(),
        ValueRef::Real(f) => f.into(),
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned().into(),
        ValueRef::Blob(b) => {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD.encode(b).into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const APP: &str = "board";

    #[test]
    fn query_only_reads_and_pages_by_500() {
        let dir = tempfile::tempdir().unwrap();
        let (path, created) = create(dir.path(), "notes").unwrap();
        assert!(created && path.ends_with(".cowork/data/notes.db"));
        let db = ".cowork/data/notes.db";
        let ws = dir.path();
        exec(ws, APP, db, "CREATE TABLE n (id INTEGER PRIMARY KEY, t TEXT)", &[]).unwrap();
        exec(ws, APP, db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1201) INSERT INTO n (t) SELECT 'row ' || x FROM c", &[]).unwrap();
        let first = query(ws, APP, db, "SELECT * FROM n ORDER BY id", &[], None, None).unwrap();
        assert_eq!((first.rows.len(), first.next_cursor.as_deref()), (500, Some("500")));
        let last =
            query(ws, APP, db, "SELECT * FROM n ORDER BY id", &[], None, Some("1000")).unwrap();
        assert_eq!((last.rows.len(), last.next_cursor), (201, None));
        assert_eq!(last.rows[0]["t"], "row 1001");
        // A write smuggled into `query`, however it is spelled, is refused before it runs.
        for sql in [
            "DELETE FROM n",
            "/* read */ UPDATE n SET t = 'x'",
            "WITH x AS (SELECT 1) DELETE FROM n",
            "CREATE TABLE m (x)",
        ] {
            let error = query(ws, APP, db, sql, &[], None, None).unwrap_err();
            assert_eq!(
                error.name(),
                cowork_core::error_name::ErrorName::Forbidden,
                "{sql}: {error}"
            );
            assert!(error.to_string().starts_with("sql: tables.query only reads; "), "{error}");
        }
        assert_eq!(list(ws).unwrap()[0].tables, ["n"]);
        assert_eq!(schema(ws, APP, db).unwrap()[0].columns.len(), 2);
        for bad in ["../x.db", "/etc/x.db", "notes.txt", ""] {
            let error = query(ws, APP, bad, "SELECT 1", &[], None, None).unwrap_err();
            assert!(error.to_string().starts_with("db: "), "{bad}: {error}");
        }
    }

    /// The guard is not the only wall: a `query` connection is read-only in SQLite itself, and
    /// an `ATTACH` the authorizer let through would still find no room for another database.
    #[test]
    fn without_the_authorizer_query_still_cannot_write_or_attach() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = create(dir.path(), "notes").unwrap();
        let guarded = Guarded::open(&path, Access::Read).unwrap();
        guarded.conn.authorizer(None::<fn(rusqlite::hooks::AuthContext<'_>) -> _>);
        let write = guarded.conn.execute_batch("CREATE TABLE m (x)").unwrap_err();
        assert!(write.to_string().contains("readonly"), "{write}");
        let other = dir.path().join("other.db");
        let attach =
            guarded.conn.execute_batch(&format!("ATTACH '{}' AS o", other.display())).unwrap_err();
        assert!(attach.to_string().contains("too many attached databases"), "{attach}");
        assert!(!other.exists());
    }

    /// Regression: a pane's endless query (a recursive CTE) held one of the daemon's threads for
    /// ever; now SQLite stops it at the limit, and the pane is told `Timeout`.
    #[test]
    fn an_endless_query_stops_at_the_statement_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        Connection::open(&path).unwrap().execute_batch("CREATE TABLE t (x)").unwrap();
        let guarded =
            Guarded::open_within(&path, Access::Read, Duration::from_millis(300)).unwrap();
        let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) \
                       SELECT count(*) FROM n";
        let started = Instant::now();
        let error = guarded.conn.query_row(endless, [], |_| Ok(())).unwrap_err();
        let error = guarded.error(error);
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
        assert_eq!(error.name(), cowork_core::error_name::ErrorName::Timeout, "{error}");
        assert!(error.to_string().contains("was stopped"), "{error}");
    }

    #[test]
    fn a_statement_reaches_only_its_own_file() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        create(ws, "crm").unwrap();
        let db = ".cowork/data/crm.db";
        exec(ws, APP, db, "CREATE TABLE people (name TEXT)", &[]).unwrap();
        let planted = tempfile::tempdir().unwrap();
        // Beside what every policy refuses, a pane sets no PRAGMA (a routine sets its file's).
        let settings = [
            "PRAGMA journal_mode = DELETE",
            "PRAGMA user_version = 7",
            "SELECT * FROM pragma_optimize(0x10002)",
        ];
        let escapes = crate::authorizer::escapes(planted.path());
        for sql in escapes.into_iter().chain(settings.map(String::from)) {
            for error in [
                exec(ws, APP, db, &sql, &[]).unwrap_err(),
                query(ws, APP, db, &sql, &[], None, None).unwrap_err(),
            ] {
                assert_eq!(
                    error.name(),
                    cowork_core::error_name::ErrorName::Forbidden,
                    "{sql}: {error}"
                );
                assert!(error.hint().is_some(), "{sql}");
            }
        }
        assert_eq!(std::fs::read_dir(planted.path()).unwrap().count(), 0, "a file was written");
        // What reads stays open: the PRAGMAs that read, their table-valued forms, the schema.
        for sql in [
            "PRAGMA user_version",
            "PRAGMA table_info(people)",
            "SELECT name FROM pragma_table_info('people')",
            "PRAGMA integrity_check",
            "SELECT count(*) FROM sqlite_schema",
        ] {
            query(ws, APP, db, sql, &[], None, None).unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        exec(ws, APP, db, "CREATE INDEX by_name ON people (name)", &[]).unwrap();
    }

    #[test]
    fn cowork_s_own_files_are_out_of_reach() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        for path in [".cowork/local/queues.db", ".cowork/data/mail/inbox.db"] {
            let file = ws.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            Connection::open(&file).unwrap().execute_batch("CREATE TABLE t (x)").unwrap();
            let error = exec(ws, APP, path, "DELETE FROM t", &[]).unwrap_err();
            assert_eq!(error.name(), cowork_core::error_name::ErrorName::Forbidden, "{error}");
            let error = query(ws, APP, path, "SELECT * FROM t", &[], None, None).unwrap_err();
            assert!(error.to_string().starts_with(&format!("db: \"{path}\" is ")), "{error}");
        }
        let own = ws.join(".cowork/data/board/cache.db");
        std::fs::create_dir_all(own.parent().unwrap()).unwrap();
        Connection::open(&own).unwrap().execute_batch("CREATE TABLE t (x)").unwrap();
        exec(ws, APP, ".cowork/data/board/cache.db", "INSERT INTO t VALUES (1)", &[]).unwrap();
    }
}
