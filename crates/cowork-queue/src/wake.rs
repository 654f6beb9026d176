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

use crate::error::{QueueError, Result};
use notify::{RecursiveMode, Watcher};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The bell beside a store.
pub(crate) fn bell_path(store: &Path) -> PathBuf {
    let mut name = store.file_name().unwrap_or_default().to_os_string();
    name.push(".bell");
    store.with_file_name(name)
}

/// A store's bell, opened at its first ring and kept open: a ring is then one positioned write,
/// one system call (opening the file each time was a tenth of a send; a seek and a write, two).
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
                cowork_core::fs_atomic::no_follow(
                    std::fs::OpenOptions::new().create(true).write(true).truncate(false),
                )
                .open(&self.path)?,
            ),
        };
        // Always the first byte: the bell is one byte however often it rings.
        #[cfg(unix)]
        {
            std::os::unix::fs::FileExt::write_all_at(file, b"!", 0)
        }
        #[cfg(not(unix))]
        {
            file.seek(SeekFrom::Start(0))?;
            file.write_all(b"!")
        }
    }
}

/// A waiter's hold on its store's bell. Made BEFORE the waiter checks the store, so an arrival
/// between the check and the wait is not missed: it counts from the rings it has seen.
pub(crate) struct Bell {
    path: PathBuf,
    signal: Arc<Signal>,
    seen: u64,
}

/// The one watch on a bell in this process, shared by every waiter on it and kept while the
/// process lives. A watch is an inotify instance, and the OS allows a user 128 of them in all
/// (`fs.inotify.max_user_instances`, shared with every desktop program): one per wait ran out under
/// many waiting threads, and a receiver that waits in a loop made and dropped one per task, each
/// closed only when notify's thread got round to it.
struct Watch {
    signal: Arc<Signal>,
    _watcher: notify::RecommendedWatcher,
}

/// What the watch tells its waiters.
#[derive(Default)]
struct Signal {
    rings: Mutex<Rings>,
    rang: Condvar,
}

#[derive(Default)]
struct Rings {
    count: u64,
    /// The bell file went away (its folder was removed), and its watch with it: waiters watch
    /// anew.
    gone: bool,
}

/// Every bell this process watches, by path.
static WATCHES: Mutex<BTreeMap<PathBuf, Watch>> = Mutex::new(BTreeMap::new());

/// Waiters re-check this often even with no ring, in case a notification was lost (a network
/// file system, an overflowed inotify queue). Not the hot path: a ring wakes them at once.
const SAFETY_RECHECK: Duration = Duration::from_secs(30);

impl Bell {
    pub(crate) fn watch(store: &Path) -> Result<Bell> {
        Bell::on(bell_path(store))
    }

    fn on(path: PathBuf) -> Result<Bell> {
        let mut watches = WATCHES.lock().unwrap_or_else(PoisonError::into_inner);
        let live = watches.get(&path).filter(|watch| !watch.signal.rings().gone);
        let signal = match live {
            Some(watch) => watch.signal.clone(),
            None => {
                let watch = Watch::start(&path)?;
                let signal = watch.signal.clone();
                watches.insert(path.clone(), watch);
                signal
            }
        };
        let seen = signal.rings().count;
        Ok(Bell { path, signal, seen })
    }

    /// Blocks until the bell rings (or has rung since this waiter last looked) or `until` (capped
    /// at the safety re-check) passes.
    pub(crate) fn wait(&mut self, until: Instant) {
        let timeout = until.saturating_duration_since(Instant::now()).min(SAFETY_RECHECK);
        if self.signal.rings().gone {
            match Bell::on(self.path.clone()) {
                Ok(fresh) => *self = fresh,
                Err(_) => return std::thread::sleep(timeout),
            }
        }
        let rings = self.signal.rings();
        let (rings, _) = self
            .signal
            .rang
            .wait_timeout_while(rings, timeout, |rings| rings.count == self.seen && !rings.gone)
            .unwrap_or_else(PoisonError::into_inner);
        // One check answers every ring that came meanwhile.
        self.seen = rings.count;
    }
}

impl Watch {
    fn start(bell: &Path) -> Result<Watch> {
        if !bell.exists() {
            cowork_core::fs_atomic::no_follow(
                std::fs::OpenOptions::new().create(true).append(true),
            )
            .open(bell)?;
        }
        let signal = Arc::new(Signal::default());
        let rung = signal.clone();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let Ok(event) = event else { return };
                if !event.kind.is_access() {
                    let mut rings = rung.rings();
                    rings.count += 1;
                    rings.gone |= event.kind.is_remove();
                    rung.rang.notify_all();
                }
            })
            .map_err(refused)?;
        watcher.watch(bell, RecursiveMode::NonRecursive).map_err(refused)?;
        Ok(Watch { signal, _watcher: watcher })
    }
}

impl Signal {
    fn rings(&self) -> MutexGuard<'_, Rings> {
        self.rings.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The OS's refusal of a watch (on Linux, mostly the per-user limit on inotify instances).
fn refused(error: notify::Error) -> QueueError {
    QueueError::NoWatch(error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_watch_says_which_limit_to_raise() {
        let emfile = std::io::Error::from_raw_os_error(24);
        let error = refused(notify::Error::io(emfile));
        assert_eq!(error.name(), cowork_core::error_name::ErrorName::Unavailable);
        assert!(error
            .to_string()
            .starts_with("cannot wait for tasks: the OS refused a file watch"));
        assert!(error.hint().unwrap().contains("fs.inotify.max_user_instances"), "{error:?}");
    }

    #[test]
    fn a_bell_removed_and_made_again_still_wakes_its_waiters() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("queues.db");
        let mut bell = Bell::watch(&store).unwrap();
        let first = bell.signal.clone();
        std::fs::remove_file(bell_path(&store)).unwrap();
        // A sender made afterwards (a new store in its place) rings until the waiter is woken.
        let woken = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let ringing = {
            let (woken, store) = (woken.clone(), store.clone());
            std::thread::spawn(move || {
                while !woken.load(std::sync::atomic::Ordering::SeqCst) {
                    Ringer::new(&store).ring();
                    std::thread::sleep(Duration::from_millis(50));
                }
            })
        };
        let start = Instant::now();
        // Woken by the removal first, then by a ring on the bell made again, not by the deadline.
        while Arc::ptr_eq(&bell.signal, &first) || bell.seen == 0 {
            bell.wait(start + Duration::from_secs(60));
            assert!(start.elapsed() < Duration::from_secs(30), "no ring reached the waiter");
        }
        woken.store(true, std::sync::atomic::Ordering::SeqCst);
        ringing.join().unwrap();
    }
}
