//! Stores kept open for a long-lived process: the daemon answering widgets and the Tasks view,
//! and the engine answering a routine's `ctx.queue` when the routine's process has not loaded
//! the store itself (cowork-queue-napi).
//!
//! Opening `queues.db` is not free: six PRAGMAs and the store's identity checks, an empty
//! statement cache (every statement compiled again), and — what costs most — closing the last
//! connection to a WAL database checkpoints it and deletes its WAL, two fsyncs each time. A store
//! opened per call made a routine's one-at-a-time send, receive and ack 20× slower than the store
//! itself. A [`Pool`] keeps a few stores of one workspace open and hands each to one user at a
//! time; a run holds the one it took until it ends, as `ctx.db` holds its connections.
//!
//! Holding a connection changes nothing another process sees: each operation is still one
//! `BEGIN IMMEDIATE` transaction on the shared file, reading what every process committed before
//! it. What a held store could miss is the file being replaced under it (the folder deleted, a
//! backup restored, `.cowork/local` turned into a link): so a store is checked again each time
//! it is handed out, as [`Store::open`] checks it, and one whose file is no longer the one at
//! `.cowork/local/queues.db` is closed and a fresh one opened in its place (with the refusals a
//! fresh open gives).

use crate::error::Result;
use crate::store::Store;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// Idle stores a pool keeps by default: enough for the few panes and runs that call at once;
/// more callers each open their own, closed when returned to a full pool.
const KEEP: usize = 4;

/// A workspace's open stores, shared by whoever calls into its queues (cheap to clone).
#[derive(Clone)]
pub struct Pool {
    shared: Arc<Shared>,
}

struct Shared {
    workspace: PathBuf,
    keep: usize,
    idle: Mutex<Vec<Store>>,
}

impl Pool {
    /// A pool for the workspace at `workspace`, keeping up to four idle stores. Opens nothing
    /// yet: the first [`Pool::get`] does.
    pub fn new(workspace: &Path) -> Pool {
        Pool::keeping(workspace, KEEP)
    }

    /// A pool keeping up to `keep` idle stores (0: every store is closed when returned).
    pub fn keeping(workspace: &Path, keep: usize) -> Pool {
        let shared =
            Shared { workspace: workspace.to_path_buf(), keep, idle: Mutex::new(Vec::new()) };
        Pool { shared: Arc::new(shared) }
    }

    /// A store for one user at a time: an idle one still current, else one opened now (which
    /// refuses what [`Store::open`] refuses). It goes back to the pool when dropped.
    pub fn get(&self) -> Result<Pooled> {
        loop {
            let idle = self.shared.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
            let Some(mut store) = idle else { break };
            if store.current() {
                store.handed_out();
                return Ok(self.pooled(store));
            }
            // Its file was replaced under it: it closes here, and the next idle one is checked.
        }
        Ok(self.pooled(Store::open(&self.shared.workspace)?))
    }

    /// Idle stores right now (for tests).
    pub fn idle(&self) -> usize {
        self.shared.idle.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    fn pooled(&self, store: Store) -> Pooled {
        Pooled { store: Some(store), pool: self.shared.clone() }
    }
}

/// A store taken from a [`Pool`]; it derefs to the [`Store`], and goes back when dropped.
pub struct Pooled {
    store: Option<Store>,
    pool: Arc<Shared>,
}

impl std::ops::Deref for Pooled {
    type Target = Store;

    fn deref(&self) -> &Store {
        self.store.as_ref().expect("a pooled store is there until it is dropped")
    }
}

impl std::ops::DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut Store {
        self.store.as_mut().expect("a pooled store is there until it is dropped")
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let Some(store) = self.store.take() else { return };
        // Every operation commits or rolls back before it returns; a connection still inside a
        // transaction (a panic mid-operation) is closed rather than handed to the next caller.
        if !store.conn.is_autocommit() {
            return;
        }
        let mut idle = self.pool.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < self.pool.keep {
            idle.push(store);
        }
    }
}
