//! What a queue or journal operation can refuse, each message naming the field and the fix.

use cowork_core::error_name::ErrorName;
use std::path::PathBuf;

/// A refused or failed store operation. [`QueueError::name`] is what a routine's `e.name`, a
/// widget's rejection and a `--json` line carry.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    /// An argument is malformed; `field` names it (`body`, `to`, `receipt`, `files[0].path` …).
    #[error("{field}: {message}")]
    BadInput { field: String, message: String },
    /// A `cowork.tables` file a pane may not reach: one Cowork keeps (`.cowork/local/`, an app's
    /// code, another app's data folder) rather than a table of the workspace.
    #[error("db: \"{db}\" is {why}, not a table of the workspace")]
    OutOfReach { db: String, why: String },
    /// A `cowork.tables` statement that reaches past the one file it names (`ATTACH`, `VACUUM`,
    /// `load_extension`, a PRAGMA that writes), or a write in `query`; SQLite's authorizer
    /// refused it before it ran.
    #[error("sql: {0}")]
    Refused(String),
    /// A `cowork.tables` statement still ran after [`crate::tables::STATEMENT_LIMIT`]: SQLite
    /// stopped it, so a pane cannot hold one of the daemon's threads for ever.
    #[error("sql: the statement still ran after {} s and was stopped", .0.as_secs())]
    TimedOut(std::time::Duration),
    /// SQLite failed to run a `cowork.tables` statement (a syntax error, no such table, a
    /// constraint, a file that is not a database).
    #[error("sql: SQLite failed to run the statement: {0}")]
    Statement(#[source] rusqlite::Error),
    /// SQLite failed to open a `cowork.tables` file.
    #[error("db: SQLite failed to open {}: {source}", path.display())]
    TableFile {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    /// `.cowork` or `.cowork/local`, where the store lives, is a symlink.
    #[error(transparent)]
    Symlinked(#[from] cowork_core::own_folders::SymlinkedFolder),
    /// No queue by that name.
    #[error("no task queue named \"{0}\"")]
    NoQueue(String),
    /// No task with that id in the queue.
    #[error("no task {id} in the queue \"{queue}\"")]
    NoTask { queue: String, id: i64 },
    /// No journal entry with that id.
    #[error("no journal entry {0}")]
    NoEntry(i64),
    /// The receipt is not the task's current one: the lease ran out and the task went back (and
    /// perhaps to another receiver), or it was already finished.
    #[error("receipt: the task {id} is no longer held with this receipt ({why})")]
    StaleReceipt { id: i64, why: String },
    /// The task is not in a status this operation starts from.
    #[error("the task {id} is {status}; {op} takes a task that is {needs}")]
    WrongStatus { id: i64, status: String, op: &'static str, needs: &'static str },
    /// `queues.db` is not a Cowork queue store (another program's SQLite file, or not SQLite).
    #[error("{} is not a Cowork task store ({detail})", path.display())]
    Foreign { path: PathBuf, detail: String },
    /// `queues.db` is damaged.
    #[error("{} is damaged: {detail}", path.display())]
    Corrupt { path: PathBuf, detail: String },
    /// `queues.db` was written by a newer Cowork.
    #[error("{} has schema version {found}; this Cowork knows up to {known}", path.display())]
    TooNew { path: PathBuf, found: i64, known: i64 },
    /// A file to attach could not be read.
    #[error("{field}: failed to read {}: {source}", path.display())]
    ReadFile {
        field: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// SQLite failed (disk full, a lock held too long …).
    #[error("the task store failed: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Creating the store's folder or its wake-up file failed.
    #[error("the task store failed: {0}")]
    Io(#[from] std::io::Error),
    /// A wait needs a watch on the store's wake-up file, and the OS refused one.
    #[error("cannot wait for tasks: the OS refused a file watch ({0})")]
    NoWatch(String),
}

impl QueueError {
    pub(crate) fn bad(field: impl Into<String>, message: impl Into<String>) -> Self {
        QueueError::BadInput { field: field.into(), message: message.into() }
    }

    /// The error of one item of a batch: its fields named `<item>.<field>` (`tasks[3].body`).
    pub(crate) fn within(self, item: &str) -> Self {
        match self {
            QueueError::BadInput { field, message } => {
                QueueError::BadInput { field: format!("{item}.{field}"), message }
            }
            QueueError::ReadFile { field, path, source } => {
                QueueError::ReadFile { field: format!("{item}.{field}"), path, source }
            }
            other => other,
        }
    }

    /// The error's name, the one callers branch on.
    pub fn name(&self) -> ErrorName {
        match self {
            QueueError::BadInput { .. } | QueueError::ReadFile { .. } => ErrorName::BadRequest,
            QueueError::NoQueue(_) | QueueError::NoTask { .. } | QueueError::NoEntry(_) => {
                ErrorName::NotFound
            }
            QueueError::OutOfReach { .. } | QueueError::Refused(_) => ErrorName::Forbidden,
            QueueError::StaleReceipt { .. } => ErrorName::StaleReceipt,
            QueueError::TimedOut(_) => ErrorName::Timeout,
            QueueError::Symlinked(_) => ErrorName::SymlinkedFolder,
            QueueError::WrongStatus { .. } => ErrorName::WrongStatus,
            QueueError::Foreign { .. } | QueueError::Corrupt { .. } | QueueError::TooNew { .. } => {
                ErrorName::StoreDamaged
            }
            QueueError::Sqlite(_) | QueueError::Statement(_) | QueueError::TableFile { .. } => {
                ErrorName::SqliteError
            }
            QueueError::Io(_) | QueueError::NoWatch(_) => ErrorName::Unavailable,
        }
    }

    /// What the person can do about it, when there is something.
    pub fn hint(&self) -> Option<String> {
        match self {
            QueueError::Foreign { path, .. } | QueueError::Corrupt { path, .. } => Some(format!(
                "Cowork never overwrites it: move {} aside (its -wal and -shm too) and the next \
                 command creates an empty store; `cowork doctor` in the workspace checks it",
                path.display()
            )),
            QueueError::TooNew { .. } => Some("update Cowork to open this store".into()),
            QueueError::Symlinked(error) => Some(error.hint()),
            QueueError::OutOfReach { .. } => Some(
                "a pane's tables are the workspace's own .db files: outside .cowork/, the tables \
                 `cowork table create` makes (.cowork/data/<name>.db), and its own app's data \
                 folder (.cowork/data/<app>/); the task queues are cowork.queue's"
                    .into(),
            ),
            QueueError::Refused(_) => Some(
                "a statement reads (`query`) or writes (`exec`) the one file named in `db`; \
                 ATTACH, VACUUM, load_extension and PRAGMAs that write are refused"
                    .into(),
            ),
            QueueError::TimedOut(_) => Some(
                "narrow the query (a WHERE, a LIMIT, an index), or do the long work in a routine"
                    .into(),
            ),
            QueueError::StaleReceipt { .. } => {
                Some("receive the task again: only the latest receipt finishes it".into())
            }
            QueueError::NoWatch(_) => Some(
                "the OS limits file watches per user (on Linux: fs.inotify.max_user_instances and \
                 max_user_watches), and other programs hold them: close some, raise the limits, or \
                 receive without waiting"
                    .into(),
            ),
            QueueError::NoQueue(_) => {
                Some("`cowork queue list` shows the queues; the first send creates one".into())
            }
            _ => None,
        }
    }
}

pub type Result<T> = std::result::Result<T, QueueError>;
