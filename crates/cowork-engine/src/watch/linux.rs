//! The watch on Linux: inotify asked for writes only (why: the module's comment in `watch.rs`).
//!
//! One thread reads the events and resolves them to paths; it adds the watches of folders made
//! under a recursively watched one as it meets them (what was written there before the watch took
//! is in the reload that follows, which runs after it). The reloading thread adds and drops the
//! other watches through the same table.

use super::{matters, queue_store, Backend};
use inotify::{EventMask, Inotify as Instance, WatchDescriptor, WatchMask, Watches};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};

/// What a folder's watch asks for: entries made, removed, renamed, written and closed, their
/// metadata changed — never an open, a read or a close after reading, which every run makes.
fn folder_mask() -> WatchMask {
    WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::CLOSE_WRITE
        | WatchMask::ATTRIB
        | WatchMask::EXCL_UNLINK
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW
}

/// `.cowork/local/` holds the routines' mirror and the task store: only the store (or its log)
/// coming or going matters there, not each file a run writes beside it.
fn local_mask() -> WatchMask {
    WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::EXCL_UNLINK
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW
}

/// The store's log: its next write, once (the watch is gone with it, armed again by the
/// reloading thread after its quiet period).
fn log_mask() -> WatchMask {
    WatchMask::MODIFY | WatchMask::ONESHOT | WatchMask::DONT_FOLLOW
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Folder,
    /// A folder of a recursively watched tree: folders made in it are watched too.
    Tree,
    Log,
}

#[derive(Default)]
struct Table {
    by_wd: HashMap<WatchDescriptor, (PathBuf, Kind)>,
    /// The workspace is gone: the reading thread ends at its next wake-up.
    closed: bool,
}

pub(super) struct Inotify {
    watches: Watches,
    table: Arc<Mutex<Table>>,
    local: PathBuf,
}

impl Inotify {
    pub(super) fn start(root: PathBuf, tx: mpsc::Sender<Vec<PathBuf>>) -> io::Result<Inotify> {
        let instance = Instance::init()?;
        let watches = instance.watches();
        let table = Arc::new(Mutex::new(Table::default()));
        let local = root.join(".cowork/local");
        let (reader_watches, reader_table) = (watches.clone(), table.clone());
        std::thread::Builder::new()
            .name("cowork-watch-os".into())
            .spawn(move || read(instance, reader_watches, &root, &reader_table, &tx))?;
        Ok(Inotify { watches, table, local })
    }
}

impl Backend for Inotify {
    fn watch(&mut self, dir: &Path, recursive: bool) -> io::Result<()> {
        let table = &mut self.table.lock();
        if recursive {
            add_tree(&mut self.watches, table, dir)
        } else {
            let mask = if dir == self.local { local_mask() } else { folder_mask() };
            let wd = self.watches.add(dir, mask)?;
            table.by_wd.insert(wd, (dir.to_path_buf(), Kind::Folder));
            Ok(())
        }
    }

    fn unwatch(&mut self, dir: &Path) {
        forget(&mut self.watches, &mut self.table.lock(), dir);
    }

    fn arm_store(&mut self, log: &Path) {
        let mut table = self.table.lock();
        // Not there (no process has the store open): its creation in `.cowork/local/` is heard.
        if let Ok(wd) = self.watches.add(log, log_mask()) {
            table.by_wd.insert(wd, (log.to_path_buf(), Kind::Log));
        }
    }

    fn close(&mut self) {
        let mut table = self.table.lock();
        table.closed = true;
        // Each removal queues an event, which wakes the reading thread to see `closed`.
        for (wd, _) in table.by_wd.drain() {
            let _ = self.watches.remove(wd);
        }
    }
}

/// Watches `dir` and every folder below it (not through links).
fn add_tree(watches: &mut Watches, table: &mut Table, dir: &Path) -> io::Result<()> {
    let wd = watches.add(dir, folder_mask())?;
    table.by_wd.insert(wd, (dir.to_path_buf(), Kind::Tree));
    for entry in std::fs::read_dir(dir)?.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            // A folder removed meanwhile is no error: its removal is an event of its own.
            let _ = add_tree(watches, table, &entry.path());
        }
    }
    Ok(())
}

/// Drops the watches on `dir` and below it.
fn forget(watches: &mut Watches, table: &mut Table, dir: &Path) {
    let gone: Vec<WatchDescriptor> = table
        .by_wd
        .iter()
        .filter(|(_, (path, _))| path.starts_with(dir))
        .map(|(wd, _)| wd.clone())
        .collect();
    for wd in gone {
        table.by_wd.remove(&wd);
        // Already gone with its folder: nothing to drop.
        let _ = watches.remove(wd);
    }
}

/// The reading thread: each event as the path it concerns, what matters sent on.
fn read(
    mut instance: Instance,
    mut watches: Watches,
    root: &Path,
    table: &Mutex<Table>,
    tx: &mpsc::Sender<Vec<PathBuf>>,
) {
    let mut buffer = vec![0u8; 16 * 1024];
    let local = root.join(".cowork/local");
    loop {
        let events = match instance.read_events_blocking(&mut buffer) {
            Ok(events) => events,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => {
                tracing::warn!(%error, workspace = %root.display(), "failed to read the workspace's file events; edits apply on restart");
                return;
            }
        };
        let mut paths = Vec::new();
        let mut table = table.lock();
        if table.closed {
            return;
        }
        for event in events {
            if event.mask.contains(EventMask::Q_OVERFLOW) {
                // Events were lost: reload, and have the Tasks view read again.
                paths.push(root.join(".cowork"));
                paths.push(root.join(cowork_queue::STORE));
                continue;
            }
            if event.mask.contains(EventMask::IGNORED) {
                table.by_wd.remove(&event.wd);
                continue;
            }
            let Some((dir, kind)) = table.by_wd.get(&event.wd).cloned() else { continue };
            let path = match event.name {
                Some(name) => dir.join(name),
                None => dir,
            };
            if kind == Kind::Tree && event.mask.contains(EventMask::ISDIR) {
                if event.mask.contains(EventMask::MOVED_FROM) {
                    forget(&mut watches, &mut table, &path);
                }
                if event.mask.intersects(EventMask::CREATE | EventMask::MOVED_TO) {
                    let _ = add_tree(&mut watches, &mut table, &path);
                }
            }
            paths.push(path);
        }
        drop(table);
        paths.retain(|p| matters(root, p) || queue_store(root, p) || *p == local);
        if !paths.is_empty() && tx.send(paths).is_err() {
            return;
        }
    }
}
