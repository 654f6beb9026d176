//! Workspace tables: SQLite files an app or the person keeps in the workspace (`cowork table
//! create <name>` makes `.cowork/data/<name>.db`), read and written by widgets through
//! `cowork.tables`.
//!
//! `query` opens the file read-only and sets `PRAGMA query_only`, so SQLite itself refuses any
//! write, whatever the SQL says; it answers at most [`PAGE`] rows, with a cursor for the next page.

use crate::error::{QueueError, Result};
use crate::model::check_name;
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, OpenFlags};
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

/// Where `cowork table create` puts tables, relative to the workspace.
pub const DATA_DIR: &str = ".cowork/data";
/// The most rows one `query` answers.
pub const PAGE: usize = 500;

/// A `.db` file under `.cowork/data`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TableFile {
    pub name: String,
    /// Workspace-relative.
    pub path: String,
    pub size: u64,
    pub tables: Vec<String>,
}

/// One table or view of a database.
#[derive(Debug, Clone, Serialize)]
pub struct TableSchema {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub sql: Option<String>,
    pub columns: Vec<Column>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Column {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
}

/// A page of rows.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    pub columns: Vec<String>,
    pub rows: Vec<Map<String, Value>>,
    /// Pass back as `cursor` for the next page; absent on the last one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// What a write changed.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Changes {
    pub changes: u64,
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
        let tables = read_only(&path)
            .and_then(|conn| {
                let mut statement = conn.prepare(
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

/// The tables and views of a workspace database, with their columns.
pub fn schema(workspace: &Path, db: &str) -> Result<Vec<TableSchema>> {
    let conn = read_only(&resolve(workspace, db)?)?;
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
}

/// Runs a read: at most `limit` (≤ [`PAGE`]) rows from `cursor` on. SQLite refuses writes.
pub fn query(
    workspace: &Path,
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
    let conn = read_only(&resolve(workspace, db)?)?;
    let mut statement = conn.prepare(sql)?;
    let columns: Vec<String> = statement.column_names().into_iter().map(String::from).collect();
    let mut rows = statement.query(rusqlite::params_from_iter(bind(params)?))?;
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
}

/// Runs a write.
pub fn exec(workspace: &Path, db: &str, sql: &str, params: &[Value]) -> Result<Changes> {
    let path = resolve(workspace, db)?;
    let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
    conn.busy_timeout(Duration::from_secs(5))?;
    let changes = conn.execute(sql, rusqlite::params_from_iter(bind(params)?))?;
    Ok(Changes { changes: changes as u64, last_insert_rowid: conn.last_insert_rowid() })
}

fn read_only(path: &Path) -> Result<Connection> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.execute_batch("PRAGMA query_only = ON")?;
    Ok(conn)
}

/// A workspace-relative `.db` path that exists inside the workspace (symlinks followed).
fn resolve(workspace: &Path, db: &str) -> Result<PathBuf> {
    let relative = Path::new(db);
    let plain = relative.components().all(|c| matches!(c, Component::Normal(_)));
    if db.is_empty() || !plain || relative.extension().is_none_or(|e| e != "db") {
        return Err(QueueError::bad(
            "db",
            format!("\"{db}\" is not a workspace-relative .db path (no \"..\", not absolute)"),
        ));
    }
    let root = workspace.canonicalize()?;
    let real = root
        .join(relative)
        .canonicalize()
        .map_err(|_| QueueError::bad("db", format!("{db} does not exist in the workspace")))?;
    if !real.starts_with(&root) {
        return Err(QueueError::bad("db", format!("{db} leads outside the workspace")));
    }
    Ok(real)
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

    #[test]
    fn query_is_read_only_by_sqlite_and_pages_by_500() {
        let dir = tempfile::tempdir().unwrap();
        let (path, created) = create(dir.path(), "notes").unwrap();
        assert!(created && path.ends_with(".cowork/data/notes.db"));
        let db = ".cowork/data/notes.db";
        exec(dir.path(), db, "CREATE TABLE n (id INTEGER PRIMARY KEY, t TEXT)", &[]).unwrap();
        exec(dir.path(), db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1201) INSERT INTO n (t) SELECT 'row ' || x FROM c", &[]).unwrap();
        let first = query(dir.path(), db, "SELECT * FROM n ORDER BY id", &[], None, None).unwrap();
        assert_eq!((first.rows.len(), first.next_cursor.as_deref()), (500, Some("500")));
        let last =
            query(dir.path(), db, "SELECT * FROM n ORDER BY id", &[], None, Some("1000")).unwrap();
        assert_eq!((last.rows.len(), last.next_cursor), (201, None));
        assert_eq!(last.rows[0]["t"], "row 1001");
        // A write smuggled into `query`, however it is spelled, is refused by SQLite.
        for sql in [
            "DELETE FROM n",
            "/* read */ UPDATE n SET t = 'x'",
            "WITH x AS (SELECT 1) DELETE FROM n",
        ] {
            let error = query(dir.path(), db, sql, &[], None, None).unwrap_err();
            assert!(error.to_string().contains("readonly"), "{sql}: {error}");
        }
        assert_eq!(list(dir.path()).unwrap()[0].tables, ["n"]);
        assert_eq!(schema(dir.path(), db).unwrap()[0].columns.len(), 2);
        for bad in ["../x.db", "/etc/x.db", "notes.txt", ""] {
            assert!(
                query(dir.path(), bad, "SELECT 1", &[], None, None)
                    .unwrap_err()
                    .to_string()
                    .starts_with("db: "),
                "{bad}"
            );
        }
    }
}
