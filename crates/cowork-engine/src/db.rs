//! `ctx.db(path)`: a workspace SQLite file, opened by the daemon with rusqlite for one run.
//!
//! The routine's calls are synchronous by contract (`query`, `exec`, `transaction(fn)`), so they
//! arrive on the run's synchronous channel and are answered here in order. Files open in WAL mode
//! with a busy timeout, so two runs writing one file wait for each other instead of failing.
//!
//! The daemon answering here is not confined; the routine is. So a `ctx.db` call reaches no
//! further than the routine could itself: the path is resolved, links followed, and must stay in
//! the workspace ([`DbError::OutsideWorkspace`]); SQLite then opens the resolved path without
//! following a link (one swapped in meanwhile fails to open), and every connection runs under
//! the routine's policy of the SQL guard ([`cowork_queue::authorizer`]): no `ATTACH`/`DETACH`,
//! hence no `VACUUM`, no `load_extension`, no PRAGMA that reaches past the file or weakens it
//! ([`DbError::Refused`]), while the file's own settings (`user_version`, `journal_mode`,
//! `foreign_keys` …) stay the routine's. A statement also ends at the run's deadline
//! ([`DbError::PastDeadline`]): the routine waits for its answer, so the run's own timer cannot
//! fire while SQLite runs, and an endless statement would hold a daemon thread for good.

use crate::protocol::{AnswerError, CtxError, DbChanges, DbStatement, ErrorName};
use cowork_queue::authorizer::{Guard, Policy};
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, OpenFlags};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

/// A `ctx.db` call that failed; its name is what the routine's `e.name` says.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The path is not a workspace-relative path (absolute, `..`, empty, a backslash), or not a
    /// database file's name (`.db`, `.sqlite`, `.sqlite3`): SQLite would make any other file a
    /// database (a `README.md`, a missing `.cowork/workspace.json`).
    #[error(
        "ctx.db(\"{0}\"): the path must be a .db file inside the workspace (relative, no \"..\"; .sqlite and .sqlite3 too)"
    )]
    BadPath(String),
    /// The path leads out of the workspace through a symlink (the file, or a folder on the way).
    #[error("ctx.db(\"{path}\"): the path leads outside the workspace, to {target}")]
    OutsideWorkspace { path: String, target: String },
    /// A link on the path leads to nothing: SQLite would create the file wherever it points.
    #[error("ctx.db(\"{path}\"): {link} is a link to a file or folder that does not exist")]
    LinkToNothing { path: String, link: String },
    /// The folders on the way to the file could not be made or read.
    #[error("ctx.db(\"{path}\"): failed to prepare the folder of the file: {source}")]
    Folder {
        path: String,
        #[source]
        source: io::Error,
    },
    /// The guard refused the statement before it ran: it would reach past the file (`ATTACH`,
    /// `VACUUM`, `load_extension`, a PRAGMA naming another path) or weaken it.
    #[error("ctx.db(\"{path}\"): {why}")]
    Refused { path: String, why: String },
    /// The statement still ran at the run's deadline, and was stopped there.
    #[error("ctx.db(\"{0}\"): the statement was stopped at the run's time limit")]
    PastDeadline(String),
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
            DbError::OutsideWorkspace { .. }
            | DbError::LinkToNothing { .. }
            | DbError::Refused { .. } => ErrorName::Forbidden,
            DbError::PastDeadline(_) => ErrorName::Timeout,
            DbError::Folder { .. } | DbError::Sqlite(_) => ErrorName::SqliteError,
        }
    }

    /// What the routine's author can do about it, when there is something.
    pub fn hint(&self) -> Option<String> {
        match self {
            DbError::OutsideWorkspace { .. } | DbError::LinkToNothing { .. } => Some(
                "ctx.db opens files of the workspace only, links resolved: keep the file itself \
                 in the workspace (the routine's data folder is .cowork/data/<app>/)"
                    .into(),
            ),
            DbError::Refused { .. } => Some(
                "a statement reaches only its own file: ATTACH, DETACH, VACUUM, load_extension \
                 and the PRAGMAs that reach past the file or weaken it are refused; the file's \
                 own settings (user_version, journal_mode, foreign_keys …) are not"
                    .into(),
            ),
            _ => None,
        }
    }
}

impl From<DbError> for AnswerError {
    fn from(error: DbError) -> Self {
        let mut ctx = CtxError::new(error.name(), error.to_string());
        ctx.hint = error.hint();
        ctx.into()
    }
}

/// One open file: its connection and the guard it runs under.
struct Database {
    conn: Connection,
    guard: Guard,
    deadline: Instant,
}

impl Database {
    /// The error of a failed call on `path`: the guard's refusal when it refused, the deadline
    /// when it interrupted the statement.
    fn fail(&self, path: &str, error: impl Into<DbError>) -> DbError {
        let error = error.into();
        if let Some(why) = self.guard.refusal() {
            return DbError::Refused { path: path.to_string(), why };
        }
        let interrupted = matches!(&error, DbError::Sqlite(rusqlite::Error::SqliteFailure(e, _))
            if e.code == rusqlite::ErrorCode::OperationInterrupted);
        if interrupted && Instant::now() >= self.deadline {
            return DbError::PastDeadline(path.to_string());
        }
        error
    }
}

/// The connections one run has opened, closed (rolling back an open transaction) when dropped.
pub struct Databases {
    /// Canonical: resolved paths are compared with it.
    workspace: PathBuf,
    /// What each path the routine named resolved to, once its file opened.
    resolved: HashMap<String, PathBuf>,
    /// By resolved path, so two names of one file share its connection (and its transaction).
    open: HashMap<PathBuf, Database>,
    /// The run's: a statement still running then is interrupted.
    deadline: Instant,
}

impl Databases {
    pub fn new(workspace: &Path, deadline: Instant) -> Self {
        let workspace = workspace.canonicalize().unwrap_or_else(|_| workspace.to_path_buf());
        Databases { workspace, resolved: HashMap::new(), open: HashMap::new(), deadline }
    }

    /// `query(sql, params)`: the rows, each an object by column name.
    pub fn query(&mut self, statement: &DbStatement) -> Result<Value, DbError> {
        let db = self.database(&statement.path)?;
        query(&db.conn, &statement.sql, &statement.params).map_err(|e| db.fail(&statement.path, e))
    }

    /// `exec(sql, params)`: how many rows changed, and the last inserted row id.
    pub fn exec(&mut self, statement: &DbStatement) -> Result<DbChanges, DbError> {
        let db = self.database(&statement.path)?;
        exec(&db.conn, &statement.sql, &statement.params).map_err(|e| db.fail(&statement.path, e))
    }

    /// `transaction(fn)` starts: later writes wait for it, not the other way round.
    pub fn begin(&mut self, path: &str) -> Result<(), DbError> {
        let db = self.database(path)?;
        db.conn.execute_batch("BEGIN IMMEDIATE").map_err(|e| db.fail(path, e))
    }

    pub fn commit(&mut self, path: &str) -> Result<(), DbError> {
        let db = self.database(path)?;
        db.conn.execute_batch("COMMIT").map_err(|e| db.fail(path, e))
    }

    pub fn rollback(&mut self, path: &str) -> Result<(), DbError> {
        let db = self.database(path)?;
        // A failed statement may already have ended the transaction; that is fine.
        if !db.conn.is_autocommit() {
            db.conn.execute_batch("ROLLBACK").map_err(|e| db.fail(path, e))?;
        }
        Ok(())
    }

    fn database(&mut self, rel: &str) -> Result<&Database, DbError> {
        let path = match self.resolved.get(rel) {
            Some(path) => path.clone(),
            None => resolve(&self.workspace, rel)?,
        };
        if !self.open.contains_key(&path) {
            let database = self.open_file(rel, &path)?;
            self.open.insert(path.clone(), database);
        }
        // Kept once its file is open (the connection holds it): a name that failed is
        // resolved afresh next time.
        self.resolved.entry(rel.to_string()).or_insert_with(|| path.clone());
        Ok(self.open.get(&path).expect("inserted just above"))
    }

    /// Opens the resolved `path`, creating it and its folders, under the guard.
    fn open_file(&self, rel: &str, path: &Path) -> Result<Database, DbError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|source| DbError::Folder { path: rel.to_string(), source })?;
        }
        if path.starts_with(self.workspace.join(crate::data_folder::DATA_DIR)) {
            crate::data_folder::ignore_data_folder(&self.workspace);
        }
        // No link anywhere on the resolved path: one swapped in since `resolve` fails to open
        // (SQLite opens its -wal, -shm and journal files without following a link too).
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NOFOLLOW,
        )?;
        let guard = Guard::install(&conn, Policy::Routine)?;
        conn.busy_timeout(Duration::from_secs(10))?;
        // Asked every 10,000 virtual machine steps (well under a millisecond): past the deadline,
        // SQLite stops the statement.
        let deadline = self.deadline;
        conn.progress_handler(10_000, Some(move || Instant::now() >= deadline));
        conn.pragma_update(None, "journal_mode", "WAL")?;
        Ok(Database { conn, guard, deadline })
    }
}

/// The file `rel` names, every link on the way followed, when it is inside `workspace`
/// (canonical). The part of the path that does not exist yet is kept as written: it holds no
/// link, and `open_file` makes it.
fn resolve(workspace: &Path, rel: &str) -> Result<PathBuf, DbError> {
    let relative = Path::new(rel);
    let bad = || DbError::BadPath(rel.to_string());
    if rel.is_empty()
        || rel.contains('\\')
        || !relative.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(bad());
    }
    let parts: Vec<_> =
        relative.components().map(|c| c.as_os_str()).filter(|p| *p != ".").collect();
    let is_database = relative.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["db", "sqlite", "sqlite3"].iter().any(|known| e.eq_ignore_ascii_case(known))
    });
    if parts.is_empty() || !is_database {
        return Err(bad());
    }
    let folder_error = |source| DbError::Folder { path: rel.to_string(), source };
    // The longest part of the path that exists (a link that leads nowhere exists as a link).
    let mut existing = parts.len();
    while existing > 0 {
        let prefix: PathBuf = parts[..existing].iter().collect();
        match workspace.join(prefix).symlink_metadata() {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::NotFound => existing -= 1,
            Err(e) => return Err(folder_error(e)),
        }
    }
    let prefix: PathBuf = parts[..existing].iter().collect();
    let real = match workspace.join(&prefix).canonicalize() {
        Ok(real) => real,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let link = prefix.display().to_string();
            return Err(DbError::LinkToNothing { path: rel.to_string(), link });
        }
        Err(e) => return Err(folder_error(e)),
    };
    let real = parts[existing..].iter().fold(real, |path, part| path.join(part));
    if !real.starts_with(workspace) {
        let target = real.display().to_string();
        return Err(DbError::OutsideWorkspace { path: rel.to_string(), target });
    }
    Ok(real)
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
        let mut dbs = Databases::new(dir.path(), later());
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

    /// A deadline no test reaches.
    fn later() -> Instant {
        Instant::now() + Duration::from_secs(3600)
    }

    fn on(path: &str, sql: &str) -> DbStatement {
        DbStatement { path: path.into(), sql: sql.into(), params: json!([]) }
    }

    /// Every file under `dir`, with its bytes.
    fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                found.extend(contents(&path));
            } else {
                found.push((path.clone(), std::fs::read(&path).unwrap()));
            }
        }
        found.sort();
        found
    }

    #[test]
    fn paths_stay_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let mut dbs = Databases::new(dir.path(), later());
        for bad in ["../x.db", "/tmp/x.db", "", "a\\b.db", ".", "a/../../x.db"] {
            let err = dbs.query(&on(bad, "SELECT 1")).unwrap_err();
            assert_eq!(err.name(), ErrorName::BadRequest, "{bad}");
        }
    }

    #[test]
    fn only_a_database_files_name_opens_and_no_other_file_is_made_a_database() {
        let dir = tempfile::tempdir().unwrap();
        let mut dbs = Databases::new(dir.path(), later());
        for bad in ["README.md", ".cowork/workspace.json", "notes", "data.db.txt"] {
            let err = dbs.exec(&on(bad, "CREATE TABLE z(a)")).unwrap_err();
            assert_eq!(err.name(), ErrorName::BadRequest, "{bad}");
            assert!(err.to_string().contains("must be a .db file"), "{err}");
            assert!(!dir.path().join(bad).exists(), "{bad} was not made");
        }
        for good in ["a.db", "b.sqlite", "c/d.SQLITE3"] {
            dbs.exec(&on(good, "CREATE TABLE z(a)")).unwrap();
            assert!(dir.path().join(good).is_file(), "{good}");
        }
    }

    #[test]
    fn a_link_leading_out_of_the_workspace_is_refused_and_nothing_is_written_there() {
        let (ws, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, ws.path().join(name)).unwrap()
        };
        let keys = outside.path().join("keys.db");
        std::fs::write(&keys, "").unwrap(); // SQLite takes an empty file for an empty database
        link(&keys, "keys.db");
        link(outside.path(), "out");
        link(&outside.path().join("new.db"), "new.db");
        link(&outside.path().join("gone"), "gone");
        let before = contents(outside.path());
        let mut dbs = Databases::new(ws.path(), later());
        for (path, message) in [
            ("keys.db", format!("the path leads outside the workspace, to {}", keys.display())),
            ("./keys.db", "the path leads outside the workspace, to ".into()),
            ("out/x.db", "the path leads outside the workspace, to ".into()),
            ("out/deeper/x.db", "the path leads outside the workspace, to ".into()),
            ("new.db", "new.db is a link to a file or folder that does not exist".into()),
            ("gone/x.db", "gone is a link to a file or folder that does not exist".into()),
        ] {
            let error = dbs.exec(&on(path, "CREATE TABLE planted (x)")).unwrap_err();
            assert_eq!(error.name(), ErrorName::Forbidden, "{path}: {error}");
            let expected = format!("ctx.db(\"{path}\"): {message}");
            assert!(error.to_string().starts_with(&expected), "{error}");
            assert!(error.hint().is_some(), "{path}");
        }
        assert_eq!(contents(outside.path()), before, "a file outside the workspace changed");
    }

    #[test]
    fn a_link_inside_the_workspace_is_the_file_it_leads_to() {
        let ws = tempfile::tempdir().unwrap();
        let mut dbs = Databases::new(ws.path(), later());
        dbs.exec(&on("data/t.db", "CREATE TABLE t (x)")).unwrap();
        std::os::unix::fs::symlink(ws.path().join("data/t.db"), ws.path().join("alias.db"))
            .unwrap();
        // One file, one connection: the transaction begun under one name holds for the other.
        dbs.begin("alias.db").unwrap();
        dbs.exec(&on("data/t.db", "INSERT INTO t VALUES (1)")).unwrap();
        dbs.rollback("alias.db").unwrap();
        let rows = dbs.query(&on("./data/t.db", "SELECT count(*) AS n FROM t")).unwrap();
        assert_eq!(rows, json!([{"n": 0}]));
    }

    #[test]
    fn a_planted_journal_link_carries_no_write_out() {
        let (ws, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for suffix in ["-wal", "-shm", "-journal"] {
            let target = outside.path().join(format!("authorized_keys{suffix}"));
            std::os::unix::fs::symlink(&target, ws.path().join(format!("t.db{suffix}"))).unwrap();
        }
        let mut dbs = Databases::new(ws.path(), later());
        let _ = dbs.exec(&on("t.db", "CREATE TABLE t (x); INSERT INTO t VALUES (1)"));
        assert_eq!(contents(outside.path()), vec![], "SQLite wrote through a planted link");
    }

    #[test]
    fn a_statement_reaches_only_its_own_file() {
        let (ws, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut dbs = Databases::new(ws.path(), later());
        dbs.exec(&on("t.db", "CREATE TABLE t (x)")).unwrap();
        let keys = outside.path().join("authorized_keys");
        for sql in [
            format!("VACUUM INTO '{}'", keys.display()),
            format!("ATTACH '{}' AS planted", keys.display()),
            "SELECT load_extension('/tmp/evil.so')".into(),
            format!("PRAGMA temp_store_directory = '{}'", outside.path().display()),
            "PRAGMA writable_schema = ON".into(),
        ] {
            for error in [
                dbs.exec(&on("t.db", &sql)).unwrap_err(),
                dbs.query(&on("t.db", &sql)).unwrap_err(),
            ] {
                assert_eq!(error.name(), ErrorName::Forbidden, "{sql}: {error}");
                assert!(error.to_string().starts_with("ctx.db(\"t.db\"): "), "{error}");
            }
        }
        assert_eq!(contents(outside.path()), vec![], "a file was written outside");
        // A failure of SQLite's own is still SQLite's, named so.
        let missing = dbs.query(&on("t.db", "SELECT * FROM missing")).unwrap_err();
        assert_eq!(missing.name(), ErrorName::SqliteError, "{missing}");
    }

    #[test]
    fn an_endless_statement_stops_at_the_run_s_deadline() {
        let ws = tempfile::tempdir().unwrap();
        let deadline = Instant::now() + Duration::from_millis(300);
        let mut dbs = Databases::new(ws.path(), deadline);
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) \
                       SELECT count(*) FROM c";
        let error = dbs.query(&on("t.db", endless)).unwrap_err();
        assert_eq!(error.name(), ErrorName::Timeout, "{error}");
        assert!(Instant::now() < deadline + Duration::from_secs(5), "stopped late");
    }
}
