//! Waking waiting receivers when a task may have become available — across processes.
//!
//! Receivers are often other processes (`cowork queue receive --wait` in an agent's loop), and the
//! sender may be a third one with no daemon running, so an in-process condvar cannot reach them.
//! Every change that makes a task receivable writes one byte to a "bell" file beside the store
//! (`queues.db.bell`); a waiter watches that file with the OS's file notifications (inotify,
//! FSEvents, ReadDirectoryChangesW through `notify`) and tries again when it rings. The bell is
//! rung only for arrivals, not for every commit, so waiters do not wake each other up with their
//! own receives.
//!
//! What no one rings for — a delayed task coming due, a lease running out — the waiter computes
//! from the store and sleeps exactly until then.

use crate::error::Result;
use notify::{RecursiveMode, Watcher};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The bell beside a store.
pub(crate) fn bell_path(store: &Path) -> PathBuf {
    let mut name = store.file_name().unwrap_or_default().to_os_string();
    name.push(".bell");
    store.with_file_name(name)
}

/// A store's bell, opened at its first ring and kept open: a ring is then one seek and one write
/// (sending a task is a few hundred microseconds; opening a file each time was a tenth of it).
pub(crate) struct Ringer {
    path: PathBuf,
    file: Option<std::fs::File>,
}

impl Ringer {
    pub(crate) fn new(store: &Path) -> Ringer {
        Ringer { path: bell_path(store), file: None }
    }

    /// Rings the bell: every waiter on this store re-checks. Failing to ring is not worth failing
    /// the send for (the task is committed; a waiter still finds it at its next wake-up or
    /// deadline).
    pub(crate) fn ring(&mut self) {
        if let Err(error) = self.write() {
            self.file = None; // opened again at the next ring
                              // No logger in a library: the caller's next deadline is the fallback, said here.
            eprintln!(
                "warning: failed to wake the queue's waiters ({}): {error}",
                self.path.display()
            );
        }
    }

    fn write(&mut self) -> std::io::Result<()> {
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(
                std::fs::OpenOptions::new()
                    .create(true)
                    .write(true)
                    .truncate(false)
                    .open(&self.path)?,
            ),
        };
        // Always the first byte: the bell is one byte however often it rings.
        file.seek(SeekFrom::Start(0))?;
        file.write_all(b"!")
    }
}

/// A watch on a store's bell. Create it BEFORE checking the store, so an arrival between the
/// check and the wait is not missed.
pub(crate) struct Bell {
    _watcher: notify::RecommendedWatcher,
    rang: mpsc::Receiver<()>,
}

/// Waiters re-check this often even with no ring, in case a notification was lost (a network
/// file system, an overflowed inotify queue). Not the hot path: a ring wakes them at once.
const SAFETY_RECHECK: Duration = Duration::from_secs(30);

impl Bell {
    pub(crate) fn watch(store: &Path) -> Result<Bell> {
        let bell = bell_path(store);
        if !bell.exists() {
            std::fs::OpenOptions::new().create(true).append(true).open(&bell)?;
        }
        let (tx, rang) = mpsc::channel();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                if event.is_ok_and(|e| !e.kind.is_access()) {
                    let _ = tx.send(());
                }
            })
            .map_err(io_error)?;
        watcher.watch(&bell, RecursiveMode::NonRecursive).map_err(io_error)?;
        Ok(Bell { _watcher: watcher, rang })
    }

    /// Blocks until the bell rings or `until` (capped at the safety re-check) passes.
    pub(crate) fn wait(&self, until: Instant) {
        let now = Instant::now();
        let timeout = until.saturating_duration_since(now).min(SAFETY_RECHECK);
        if self.rang.recv_timeout(timeout).is_ok() {
            // One check answers every ring that queued up meanwhile.
            while self.rang.try_recv().is_ok() {}
        }
    }
}

fn io_error(error: notify::Error) -> std::io::Error {
    std::io::Error::other(error.to_string())
}
