//! `ctx.db(path)`: a workspace SQLite file, opened by the daemon with rusqlite for one run.
//!
//! The routine's calls are synchronous by contract (`query`, `exec`, `transaction(fn)`), so they
//! arrive on the run's synchronous channel and are answered here in order. Files open in WAL mode
//! with a busy timeout, so two runs writing one file wait for each other instead of failing.

use crate::protocol::{AnswerError, CtxError, DbChanges, DbStatement, ErrorName};
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, OpenFlags};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

/// A `ctx.db` call that failed; its name is what the routine's `e.name` says.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The path is not a file inside the workspace.
    #[error(
        "ctx.db(\"{0}\"): the path must be a .db file inside the workspace (relative, no \"..\")"
    )]
    BadPath(String),
    /// SQLite refused the statement or the file.
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A parameter is not a string, number, boolean or null.
    #[error("ctx.db: parameter {0} is not a string, number, boolean or null")]
    BadParam(String),
}

impl DbError {
    /// The error name the routine sees.
    pub fn name(&self) -> ErrorName {
        match self {
            DbError::BadPath(_) | DbError::BadParam(_) => ErrorName::BadRequest,
            DbError::Sqlite(_) => ErrorName::SqliteError,
        }
    }
}

impl From<DbError> for AnswerError {
    fn from(error: DbError) -> Self {
        CtxError::new(error.name(), error.to_string()).into()
    }
}

/// The connections one run has opened, closed (rolling back an open transaction) when dropped.
pub struct Databases {
    workspace: PathBuf,
    open: HashMap<PathBuf, Connection>,
}

impl Databases {
    pub fn new(workspace: &Path) -> Self {
        Databases { workspace: workspace.to_path_buf(), open: HashMap::new() }
    }

    /// `query(sql, params)`: the rows, each an object by column name.
    pub fn query(&mut self, statement: &DbStatement) -> Result<Value, DbError> {
        query(self.connection(&statement.path)?, &statement.sql, &statement.params)
    }

    /// `exec(sql, params)`: how many rows changed, and the last inserted row id.
    pub fn exec(&mut self, statement: &DbStatement) -> Result<DbChanges, DbError> {
        exec(self.connection(&statement.path)?, &statement.sql, &statement.params)
    }

    /// `transaction(fn)` starts: later writes wait for it, not the other way round.
    pub fn begin(&mut self, path: &str) -> Result<(), DbError> {
        Ok(self.connection(path)?.execute_batch("BEGIN IMMEDIATE")?)
    }

    pub fn commit(&mut self, path: &str) -> Result<(), DbError> {
        Ok(self.connection(path)?.execute_batch("COMMIT")?)
    }

    pub fn rollback(&mut self, path: &str) -> Result<(), DbError> {
        let conn = self.connection(path)?;
        // A failed statement may already have ended the transaction; that is fine.
        if !conn.is_autocommit() {
            conn.execute_batch("ROLLBACK")?;
        }
        Ok(())
    }

    fn connection(&mut self, rel: &str) -> Result<&mut Connection, DbError> {
        let path = inside(&self.workspace, rel).ok_or_else(|| DbError::BadPath(rel.to_string()))?;
        if !self.open.contains_key(&path) {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|_| DbError::BadPath(rel.to_string()))?;
            }
            if path.starts_with(self.workspace.join(crate::data_folder::DATA_DIR)) {
                crate::data_folder::ignore_data_folder(&self.workspace);
            }
            let conn = Connection::open_with_flags(
                &path,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
            )?;
            conn.busy_timeout(Duration::from_secs(10))?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            self.open.insert(path.clone(), conn);
        }
        Ok(self.open.get_mut(&path).expect("inserted just above"))
    }
}

fn inside(workspace: &Path, rel: &str) -> Option<PathBuf> {
    let rel_path = Path::new(rel);
    if rel.is_empty()
        || rel.contains('\\')
        || !rel_path.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return None;
    }
    Some(workspace.join(rel_path))
}

fn params(value: &Value) -> Result<Vec<(Option<String>, SqlValue)>, DbError> {
    let one = |key: &str, v: &Value| -> Result<SqlValue, DbError> {
        Ok(match v {
            Value::Null => SqlValue::Null,
            Value::Bool(b) => SqlValue::Integer(i64::from(*b)),
            Value::Number(n) => n
                .as_i64()
                .map(SqlValue::Integer)
                .or_else(|| n.as_f64().map(SqlValue::Real))
                .unwrap_or(SqlValue::Null),
            Value::String(s) => SqlValue::Text(s.clone()),
            _ => return Err(DbError::BadParam(key.to_string())),
        })
    };
    match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| Ok((None, one(&(i + 1).to_string(), v)?)))
            .collect(),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                // `{id: 1}` binds `:id`, `$id` or `@id`, whichever the statement uses.
                let name = if k.starts_with([':', '$', '@']) { k.clone() } else { format!(":{k}") };
                Ok((Some(name), one(k, v)?))
            })
            .collect(),
        Value::Null => Ok(Vec::new()),
        other => Ok(vec![(None, one("1", other)?)]),
    }
}

fn bind(
    stmt: &mut rusqlite::Statement<'_>,
    values: &[(Option<String>, SqlValue)],
) -> Result<(), DbError> {
    for (i, (name, value)) in values.iter().enumerate() {
        let index = match name {
            Some(name) => {
                let found = [name.clone(), name.replacen(':', "$", 1), name.replacen(':', "@", 1)]
                    .into_iter()
                    .find_map(|n| stmt.parameter_index(&n).ok().flatten());
                match found {
                    Some(index) => index,
                    None => continue,
                }
            }
            None => i + 1,
        };
        stmt.raw_bind_parameter(index, value)?;
    }
    Ok(())
}

fn query(conn: &Connection, sql: &str, raw: &Value) -> Result<Value, DbError> {
    let values = params(raw)?;
    let mut stmt = conn.prepare(sql)?;
    bind(&mut stmt, &values)?;
    let names: Vec<String> = stmt.column_names().into_iter().map(String::from).collect();
    let mut rows = stmt.raw_query();
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let mut obj = Map::new();
        for (i, name) in names.iter().enumerate() {
            obj.insert(name.clone(), to_json(row.get_ref(i)?));
        }
        out.push(Value::Object(obj));
    }
    Ok(Value::Array(out))
}

fn exec(conn: &Connection, sql: &str, raw: &Value) -> Result<DbChanges, DbError> {
    let values = params(raw)?;
    let changes = if values.is_empty() {
        // Without parameters a call may hold several statements (a schema, a migration).
        let before = conn.total_changes();
        conn.execute_batch(sql)?;
        conn.total_changes() - before
    } else {
        let mut stmt = conn.prepare(sql)?;
        bind(&mut stmt, &values)?;
        stmt.raw_execute()? as u64
    };
    Ok(DbChanges { changes, last_insert_rowid: conn.last_insert_rowid() })
}

fn to_json(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => Value::from(f),
        ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::Array(b.iter().map(|x| Value::from(*x)).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn statement(sql: &str, params: Value) -> DbStatement {
        DbStatement { path: "data/t.db".into(), sql: sql.into(), params }
    }

    #[test]
    fn query_exec_and_transactions() {
        let dir = tempfile::tempdir().unwrap();
        let mut dbs = Databases::new(dir.path());
        let schema =
            "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX i ON t(name);";
        dbs.exec(&statement(schema, json!([]))).unwrap();
        let r = dbs.exec(&statement("INSERT INTO t(name) VALUES (?)", json!(["a"]))).unwrap();
        assert_eq!(r, DbChanges { changes: 1, last_insert_rowid: 1 });
        dbs.begin("data/t.db").unwrap();
        dbs.exec(&statement("INSERT INTO t(name) VALUES (:name)", json!({"name": "b"}))).unwrap();
        dbs.rollback("data/t.db").unwrap();
        let rows = dbs
            .query(&statement("SELECT id, name FROM t WHERE name = $name", json!({"name": "a"})))
            .unwrap();
        assert_eq!(rows, json!([{"id": 1, "name": "a"}]));
        let all = dbs.query(&statement("SELECT count(*) AS n FROM t", json!([]))).unwrap();
        assert_eq!(all, json!([{"n": 1}]), "the rolled back insert is gone");
        let mode = dbs.query(&statement("PRAGMA journal_mode", json!([]))).unwrap();
        assert_eq!(mode, json!([{"journal_mode": "wal"}]));
    }

    #[test]
    fn paths_stay_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let mut dbs = Databases::new(dir.path());
        for bad in ["../x.db", "/tmp/x.db", "", "a\\b.db"] {
            let select =
                DbStatement { path: bad.into(), sql: "SELECT 1".into(), params: json!([]) };
            let err = dbs.query(&select).unwrap_err();
            assert_eq!(err.name(), ErrorName::BadRequest, "{bad}");
        }
    }
}
