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
//!
//! The operations are split by concern: `lifecycle` (send, receive, ack, nack, leases), `review`
//! (the owner's approve, reject, reply, retry), `listing` (queues, lists, counts, removal), with
//! `checks` for the input they take, `rows` for reading tasks out of rows and writing their
//! threads, and `sql` for the connection with the statements it holds and the write transaction.

mod checks;
mod lifecycle;
mod listing;
mod review;
mod rows;
mod sql;

use crate::error::Result;
use crate::schema;
use crate::wake;

use std::path::{Path, PathBuf};

/// The store's file, relative to a workspace.
pub const STORE: &str = ".cowork/local/queues.db";

/// Names `to` may take besides an agent's.
pub const OWNER: &str = "owner";
/// Addresses a task to whoever receives first.
pub const ANYONE: &str = "anyone";

/// An open task store: one connection, for one thread at a time.
pub struct Store {
    pub(crate) conn: sql::Conn,
    path: PathBuf,
    workspace: PathBuf,
    bell: wake::Ringer,
    /// The file opened, as the file system knows it: a held store checks it is still the one at
    /// `path` before it is handed out again ([`crate::Pool`]).
    file: FileId,
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
        let file = FileId::of(&path)?;
        Ok(Store {
            conn: sql::Conn::new(conn),
            bell: wake::Ringer::new(&path),
            path,
            workspace: workspace.to_path_buf(),
            file,
        })
    }

    /// Whether this store may be used again as [`Store::open`] would open it now: no folder of
    /// the way is a symlink, and `.cowork/local/queues.db` is still the file it opened (not
    /// deleted, moved or replaced since).
    pub(crate) fn current(&self) -> bool {
        cowork_core::own_folders::check(&self.workspace).is_ok()
            && FileId::of(&self.path).is_ok_and(|file| file == self.file)
    }

    /// Taken out of a pool for another user: the bell is opened again at its next ring, as a
    /// fresh store would (the bell file may have been removed and made again meanwhile).
    pub(crate) fn handed_out(&mut self) {
        self.bell = wake::Ringer::new(&self.path);
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn workspace(&self) -> &Path {
        &self.workspace
    }
}

/// Which file a path names: its device and inode (on Windows, its creation time, which a file
/// put in its place does not share).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    #[cfg(unix)]
    inode: (u64, u64),
    #[cfg(not(unix))]
    created: Option<std::time::SystemTime>,
}

impl FileId {
    fn of(path: &Path) -> std::io::Result<FileId> {
        let metadata = std::fs::metadata(path)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Ok(FileId { inode: (metadata.dev(), metadata.ino()) })
        }
        #[cfg(not(unix))]
        {
            Ok(FileId { created: metadata.created().ok() })
        }
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
