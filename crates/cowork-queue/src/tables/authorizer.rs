//! The guard on every connection `cowork.tables` opens: a statement reads or writes the one file
//! it was opened on, and nothing else.
//!
//! SQL comes from a pane, so it is untrusted, and the daemon that runs it is not confined. Left
//! alone, SQLite would `ATTACH` any file, `VACUUM INTO` a path anywhere on disk (a planted
//! `~/.ssh/authorized_keys`), load an extension, or change the file's settings with a PRAGMA.
//! Every connection is therefore opened with:
//!
//! - SQLite's authorizer, which answers for each action a statement would take, as it is
//!   prepared (and as a table-valued `pragma_*` function prepares its own PRAGMA): reads always,
//!   writes only on an `exec` connection, a PRAGMA only when it reads ([`READ_PRAGMAS`]), never
//!   `ATTACH`/`DETACH` (`VACUUM` attaches its copy, so it is refused too), never
//!   `load_extension`, never an action this list does not know;
//! - `SQLITE_LIMIT_ATTACHED` at 0, so an `ATTACH` that got past the authorizer still fails;
//! - `SQLITE_DBCONFIG_DEFENSIVE` (no `writable_schema`, no writes to shadow tables) and no trusted
//!   schema (a view or trigger in a planted file cannot call functions with side effects).
//!
//! A `query` connection is also opened read-only with `PRAGMA query_only`: read-only in fact,
//! whatever the SQL says.

use crate::error::{QueueError, Result};
use rusqlite::config::DbConfig;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What a connection is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// `schema`, `query`, `list`: reads only.
    Read,
    /// `exec`: reads and writes of the file's own tables.
    Write,
}

/// PRAGMAs that only read (with or without an argument naming a table, an index or a count).
/// Any other PRAGMA, and any of these given a value to set, is refused.
const READ_PRAGMAS: &[&str] = &[
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

/// Functions a statement may not call: they reach past the file (an extension is native code).
const REFUSED_FUNCTIONS: &[&str] = &["load_extension", "fts3_tokenizer"];

/// A connection under the guard, and what the guard last refused.
pub(crate) struct Guarded {
    pub conn: Connection,
    refused: Arc<Mutex<Option<String>>>,
}

impl Guarded {
    /// Opens `path` (an existing file, never created) for `access`, guarded.
    pub fn open(path: &Path, access: Access) -> Result<Guarded> {
        let flags = match access {
            Access::Read => OpenFlags::SQLITE_OPEN_READ_ONLY,
            Access::Write => OpenFlags::SQLITE_OPEN_READ_WRITE,
        };
        let failed = |source| QueueError::TableFile { path: path.to_path_buf(), source };
        let conn = Connection::open_with_flags(path, flags).map_err(failed)?;
        let harden = || -> rusqlite::Result<()> {
            conn.busy_timeout(Duration::from_secs(5))?;
            conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
            if access == Access::Read {
                conn.execute_batch("PRAGMA query_only = ON")?;
            }
            Ok(())
        };
        harden().map_err(failed)?;
        let refused = Arc::new(Mutex::new(None));
        let record = refused.clone();
        conn.authorizer(Some(move |context: AuthContext<'_>| {
            match decide(access, context.action) {
                Ok(()) => Authorization::Allow,
                Err(why) => {
                    *record.lock().expect("the guard's record is never poisoned") = Some(why);
                    Authorization::Deny
                }
            }
        }));
        Ok(Guarded { conn, refused })
    }

    /// The error for a failed statement: the guard's refusal when it refused, SQLite's otherwise.
    pub fn error(&self, error: rusqlite::Error) -> QueueError {
        match self.refused.lock().expect("the guard's record is never poisoned").take() {
            Some(why) => QueueError::Refused(why),
            None => QueueError::Statement(error),
        }
    }
}

/// Whether a statement on an `access` connection may take `action`; if not, why (a sentence for
/// the person who wrote the SQL).
fn decide(access: Access, action: AuthAction<'_>) -> std::result::Result<(), String> {
    use AuthAction::*;
    match action {
        Select | Read { .. } | Recursive => Ok(()),
        Function { function_name } => {
            let name = function_name.to_ascii_lowercase();
            if REFUSED_FUNCTIONS.contains(&name.as_str()) {
                Err(format!("{name}() is refused: a statement reaches only the file named in db"))
            } else {
                Ok(())
            }
        }
        Pragma { pragma_name, pragma_value } => pragma(pragma_name, pragma_value),
        Attach { .. } | Detach { .. } => {
            Err("ATTACH is refused, and so is VACUUM, which attaches \
             its copy: a statement reaches only the file named in db"
                .into())
        }
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
        | Savepoint { .. } => match access {
            Access::Write => Ok(()),
            Access::Read => {
                Err(format!("tables.query only reads; {} is for tables.exec", describe(action)))
            }
        },
        // VACUUM INTO a computed path attaches with no file name the authorizer can show; any
        // action not listed above is refused the same way, until someone decides it is safe.
        _ => Err(format!(
            "{} is refused: a statement reaches only the file named in db",
            describe(action)
        )),
    }
}

fn pragma(name: &str, value: Option<&str>) -> std::result::Result<(), String> {
    let name = name.to_ascii_lowercase();
    let reads = READ_PRAGMAS.contains(&name.as_str())
        && (value.is_none() || PRAGMAS_WITH_ARGUMENT.contains(&name.as_str()));
    if reads {
        return Ok(());
    }
    let given = value.map(|v| format!(" = {v}")).unwrap_or_default();
    Err(format!(
        "PRAGMA {name}{given} is refused: a statement may read these PRAGMAs only: {}",
        READ_PRAGMAS.join(", ")
    ))
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
