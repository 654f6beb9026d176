//! The guard on every SQLite connection that runs SQL Cowork did not write — a pane's
//! `cowork.tables` and a routine's `ctx.db`: a statement reads or writes the one file its
//! connection was opened on, and nothing else.
//!
//! Both are answered by the daemon, which is not confined: a pane has no file system, and a
//! routine's Landlock domain does not follow its SQL into the daemon. Left alone, SQLite would
//! `ATTACH` any file, `VACUUM INTO` a path anywhere on disk (a planted `~/.ssh/authorized_keys`),
//! load an extension, point its temporary files at another folder, or weaken the file with a
//! PRAGMA. Every such connection is therefore guarded ([`Guard::install`]):
//!
//! - SQLite's authorizer answers for each action a statement would take, as it is prepared (and
//!   as a table-valued `pragma_*` function prepares its own PRAGMA): never `ATTACH`/`DETACH`
//!   (`VACUUM` attaches its copy, so it is refused too), never `load_extension`, never an action
//!   this module does not know; reads, writes and PRAGMAs as the [`Policy`] says;
//! - `SQLITE_LIMIT_ATTACHED` at 0, so an `ATTACH` that got past the authorizer still fails;
//! - `SQLITE_DBCONFIG_DEFENSIVE` (no `writable_schema`, no `schema_version` writes, no writes to
//!   shadow tables) and no trusted schema (a view or trigger in a planted file cannot call
//!   functions with side effects).
//!
//! The two policies differ only in what the file's owner may do with the file itself: a pane
//! reads (`query`) or writes rows (`exec`) and reads a few PRAGMAs; a routine keeps its own
//! file, so it also sets the file's own settings (`user_version` for migrations, `journal_mode`,
//! `foreign_keys` …). Neither reaches past the file.

use rusqlite::config::DbConfig;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::Connection;
use std::sync::{Arc, Mutex};

/// What a pane's connection is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// `schema`, `query`, `list`: reads only.
    Read,
    /// `exec`: reads and writes of the file's own tables.
    Write,
}

/// Whose SQL a connection runs, which decides what it may do with its own file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// A pane's `cowork.tables`: rows only, and the PRAGMAs that read ([`READ_PRAGMAS`]).
    Pane(Access),
    /// A routine's `ctx.db(path)`: its own file, rows, schema and the file's own settings
    /// ([`FILE_SETTINGS`]).
    Routine,
}

impl Policy {
    /// The file a statement is kept to, as its writer named it.
    fn file(self) -> &'static str {
        match self {
            Policy::Pane(_) => "the file named in db",
            Policy::Routine => "the file ctx.db opened",
        }
    }
}

/// PRAGMAs that only read (with or without an argument naming a table, an index or a count).
/// A pane may read these and nothing else.
pub const READ_PRAGMAS: &[&str] = &[
    "application_id",
    "collation_list",
    "data_version",
    "database_list",
    "encoding",
    "foreign_key_check",
    "foreign_key_list",
    "foreign_keys",
    "freelist_count",
    "function_list",
    "index_info",
    "index_list",
    "index_xinfo",
    "integrity_check",
    "module_list",
    "page_count",
    "page_size",
    "pragma_list",
    "quick_check",
    "schema_version",
    "table_info",
    "table_list",
    "table_xinfo",
    "user_version",
];

/// PRAGMAs whose argument names what to read (a table, an index, a row limit), not a new value.
const PRAGMAS_WITH_ARGUMENT: &[&str] = &[
    "foreign_key_check",
    "foreign_key_list",
    "index_info",
    "index_list",
    "index_xinfo",
    "integrity_check",
    "quick_check",
    "table_info",
    "table_list",
    "table_xinfo",
];

/// PRAGMAs a routine may also set: the file's own settings and its connection's, what migrations,
/// durability and tuning use. Left out of SQLite's list (3.50), so refused: those that name
/// another path (`temp_store_directory`, `data_store_directory`, `lock_proxy_file`), set a limit
/// for the whole daemon (`hard_heap_limit`, `soft_heap_limit`, `threads`, `busy_timeout`: the
/// daemon's thread waits), map the file into the daemon's memory, where a truncation by another
/// process would crash it (`mmap_size`), weaken the file's defences (`writable_schema`,
/// `trusted_schema`, setting `schema_version`, `ignore_check_constraints`), the deprecated ones
/// and the debugging ones.
pub const FILE_SETTINGS: &[&str] = &[
    "analysis_limit",
    "application_id",
    "auto_vacuum",
    "automatic_index",
    "cache_size",
    "cache_spill",
    "cell_size_check",
    "checkpoint_fullfsync",
    "defer_foreign_keys",
    "encoding",
    "foreign_keys",
    "fullfsync",
    "incremental_vacuum",
    "journal_mode",
    "journal_size_limit",
    "legacy_alter_table",
    "locking_mode",
    "max_page_count",
    "optimize",
    "page_size",
    "query_only",
    "read_uncommitted",
    "recursive_triggers",
    "reverse_unordered_selects",
    "secure_delete",
    "shrink_memory",
    "synchronous",
    "temp_store",
    "user_version",
    "wal_autocheckpoint",
    "wal_checkpoint",
];

/// Functions a statement may not call: they reach past the file (an extension is native code).
const REFUSED_FUNCTIONS: &[&str] = &["load_extension", "fts3_tokenizer"];

/// The guard installed on one connection, and what it last refused.
pub struct Guard {
    refused: Arc<Mutex<Option<String>>>,
}

impl Guard {
    /// Puts `conn` under the guard for `policy`: the limit, the configuration and the authorizer
    /// (and `query_only` for a pane's reads). Install it before the connection runs any SQL it
    /// was given; the SQL Cowork runs itself afterwards passes the same authorizer.
    pub fn install(conn: &Connection, policy: Policy) -> rusqlite::Result<Guard> {
        conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
        if policy == Policy::Pane(Access::Read) {
            conn.execute_batch("PRAGMA query_only = ON")?;
        }
        let refused = Arc::new(Mutex::new(None));
        let record = refused.clone();
        conn.authorizer(Some(move |context: AuthContext<'_>| {
            match decide(policy, context.action) {
                Ok(()) => Authorization::Allow,
                Err(why) => {
                    *record.lock().expect("the guard's record is never poisoned") = Some(why);
                    Authorization::Deny
                }
            }
        }));
        Ok(Guard { refused })
    }

    /// Why the guard refused the statement that just failed (a sentence for the person who
    /// wrote the SQL), or `None` when it refused nothing and SQLite's own error stands.
    pub fn refusal(&self) -> Option<String> {
        self.refused.lock().expect("the guard's record is never poisoned").take()
    }
}

/// Whether a statement under `policy` may take `action`; if not, why.
fn decide(policy: Policy, action: AuthAction<'_>) -> Result<(), String> {
    use AuthAction::*;
    let file = policy.file();
    match action {
        Select | Read { .. } | Recursive => Ok(()),
        Function { function_name } => {
            let name = function_name.to_ascii_lowercase();
            if REFUSED_FUNCTIONS.contains(&name.as_str()) {
                Err(format!("{name}() is refused: a statement reaches only {file}"))
            } else {
                Ok(())
            }
        }
        Pragma { pragma_name, pragma_value } => pragma(policy, pragma_name, pragma_value),
        Attach { .. } | Detach { .. } => Err(format!(
            "ATTACH is refused, and so is VACUUM, which attaches its copy: a statement reaches \
             only {file}"
        )),
        Insert { .. }
        | Update { .. }
        | Delete { .. }
        | CreateTable { .. }
        | CreateIndex { .. }
        | CreateTrigger { .. }
        | CreateView { .. }
        | CreateTempTable { .. }
        | CreateTempIndex { .. }
        | CreateTempTrigger { .. }
        | CreateTempView { .. }
        | DropTable { .. }
        | DropIndex { .. }
        | DropTrigger { .. }
        | DropView { .. }
        | DropTempTable { .. }
        | DropTempIndex { .. }
        | DropTempTrigger { .. }
        | DropTempView { .. }
        | AlterTable { .. }
        | Reindex { .. }
        | Analyze { .. }
        | CreateVtable { .. }
        | DropVtable { .. }
        | Transaction { .. }
        | Savepoint { .. } => match policy {
            Policy::Pane(Access::Read) => {
                Err(format!("tables.query only reads; {} is for tables.exec", describe(action)))
            }
            Policy::Pane(Access::Write) | Policy::Routine => Ok(()),
        },
        // VACUUM INTO a computed path attaches with no file name the authorizer can show; any
        // action not listed above is refused the same way, until someone decides it is safe.
        _ => Err(format!("{} is refused: a statement reaches only {file}", describe(action))),
    }
}

fn pragma(policy: Policy, name: &str, value: Option<&str>) -> Result<(), String> {
    let name = name.to_ascii_lowercase();
    let reads = READ_PRAGMAS.contains(&name.as_str())
        && (value.is_none() || PRAGMAS_WITH_ARGUMENT.contains(&name.as_str()));
    let given = value.map(|v| format!(" = {v}")).unwrap_or_default();
    match policy {
        _ if reads => Ok(()),
        Policy::Routine if FILE_SETTINGS.contains(&name.as_str()) => Ok(()),
        Policy::Routine => Err(format!(
            "PRAGMA {name}{given} is refused: ctx.db runs the PRAGMAs of its own file, never one \
             that reaches past it or weakens it; a routine may set these: {}, and read them and \
             those that describe the file (table_info, integrity_check …)",
            FILE_SETTINGS.join(", ")
        )),
        Policy::Pane(_) => Err(format!(
            "PRAGMA {name}{given} is refused: a statement may read these PRAGMAs only: {}",
            READ_PRAGMAS.join(", ")
        )),
    }
}

/// An action as the SQL that asked for it.
fn describe(action: AuthAction<'_>) -> String {
    use AuthAction::*;
    match action {
        Insert { table_name } => format!("INSERT INTO {table_name}"),
        Update { table_name, .. } => format!("UPDATE {table_name}"),
        Delete { table_name } => format!("DELETE FROM {table_name}"),
        CreateTable { table_name } | CreateTempTable { table_name } => {
            format!("CREATE TABLE {table_name}")
        }
        DropTable { table_name } | DropTempTable { table_name } => {
            format!("DROP TABLE {table_name}")
        }
        AlterTable { table_name, .. } => format!("ALTER TABLE {table_name}"),
        Transaction { .. } | Savepoint { .. } => "a transaction".into(),
        Unknown { code, .. } => format!(
            "an action SQLite numbers {code} (ATTACH or VACUUM INTO a computed path, or newer SQL)"
        ),
        other => format!("{other:?}"),
    }
}

/// Statements every policy refuses, each aiming at `outside`: what the tests of both try.
#[cfg(test)]
pub(crate) fn escapes(outside: &std::path::Path) -> Vec<String> {
    let to = outside.join("authorized_keys");
    let to = to.display();
    vec![
        format!("VACUUM INTO '{to}'"),
        format!("VACUUM INTO '{}' || 'keys'", outside.join("authorized_").display()),
        "VACUUM".to_string(),
        format!("ATTACH '{to}' AS planted"),
        "DETACH main".to_string(),
        "SELECT load_extension('/tmp/evil.so')".to_string(),
        "SELECT fts3_tokenizer('simple')".to_string(),
        format!("PRAGMA temp_store_directory = '{}'", outside.display()),
        format!("PRAGMA data_store_directory = '{}'", outside.display()),
        format!("PRAGMA lock_proxy_file = '{to}'"),
        "PRAGMA writable_schema = ON".to_string(),
        "PRAGMA trusted_schema = ON".to_string(),
        "PRAGMA schema_version = 99".to_string(),
        "PRAGMA mmap_size = 268435456".to_string(),
        "PRAGMA hard_heap_limit = 1".to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A routine's file, guarded, in a fresh folder; and a folder outside it nothing may reach.
    fn routine_file() -> (tempfile::TempDir, Connection, Guard, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let conn = Connection::open(dir.path().join("own.db")).unwrap();
        let guard = Guard::install(&conn, Policy::Routine).unwrap();
        (dir, conn, guard, tempfile::tempdir().unwrap())
    }

    #[test]
    fn a_routine_s_statement_reaches_only_its_own_file() {
        let (_dir, conn, guard, outside) = routine_file();
        conn.execute_batch("CREATE TABLE t (x)").unwrap();
        let settings_refused = [
            "PRAGMA soft_heap_limit = 1",
            "PRAGMA busy_timeout = 2147483647",
            "PRAGMA ignore_check_constraints = ON",
        ];
        for sql in escapes(outside.path()).into_iter().chain(settings_refused.map(String::from)) {
            let error = conn.execute_batch(&sql).unwrap_err();
            let why = guard.refusal().unwrap_or_else(|| panic!("{sql}: not the guard: {error}"));
            assert!(
                why.contains("the file ctx.db opened") || why.starts_with("PRAGMA "),
                "{sql}: {why}"
            );
        }
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "a file was written");
        // The guard's refusal is taken once: a later SQLite error is SQLite's own.
        conn.execute_batch("SELECT * FROM missing").unwrap_err();
        assert_eq!(guard.refusal(), None);
    }

    #[test]
    fn a_routine_keeps_its_own_file_s_settings_migrations_and_transactions() {
        let (_dir, conn, guard, _outside) = routine_file();
        let ran = conn.execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA foreign_keys = ON;
             PRAGMA synchronous = NORMAL;
             BEGIN IMMEDIATE;
             CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
             CREATE TABLE notes (person INTEGER REFERENCES people (id), text TEXT);
             CREATE INDEX notes_by_person ON notes (person);
             PRAGMA user_version = 2;
             COMMIT;
             SAVEPOINT s; INSERT INTO people (name) VALUES ('Ada'); RELEASE s;
             CREATE VIRTUAL TABLE search USING fts5(text);
             CREATE TRIGGER index_note AFTER INSERT ON notes BEGIN
               INSERT INTO search (text) VALUES (new.text); END;
             INSERT INTO notes VALUES (1, 'engine');
             PRAGMA wal_checkpoint(TRUNCATE);
             PRAGMA optimize;
             PRAGMA incremental_vacuum;",
        );
        ran.unwrap_or_else(|e| panic!("{e}: {:?}", guard.refusal()));
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
        let found: i64 = conn
            .query_row("SELECT count(*) FROM search WHERE search MATCH 'engine'", [], |r| r.get(0))
            .unwrap();
        assert_eq!((version, mode.as_str(), found), (2, "wal", 1));
        let refused = conn.execute("INSERT INTO notes VALUES (7, 'nobody')", []).unwrap_err();
        assert!(refused.to_string().contains("FOREIGN KEY"), "{refused}");
    }

    #[test]
    fn a_pane_reads_pragmas_and_sets_none() {
        let dir = tempfile::tempdir().unwrap();
        let conn = Connection::open(dir.path().join("t.db")).unwrap();
        let guard = Guard::install(&conn, Policy::Pane(Access::Write)).unwrap();
        conn.query_row("PRAGMA user_version", [], |_| Ok(())).unwrap();
        conn.execute_batch("PRAGMA user_version = 3").unwrap_err();
        assert!(guard.refusal().unwrap().starts_with("PRAGMA user_version = 3 is refused"));
    }
}
