//! Keeping a workspace's registry fresh: a watcher reloads it shortly after a change to
//! `.cowork/workspace.json` or anything under `.cowork/apps/`, so the rail, `cowork routine list`
//! and the next run see an edit within 250 ms.
//!
//! Only what can hold such a change is watched: `.cowork/` itself, `.cowork/apps/` with all below
//! it, and `.cowork/local/` itself (the task store). Not `.cowork/data/` nor the routines' mirror
//! in `.cowork/local/routines/`: a watch on every folder a routine writes into cost inotify
//! watches without end, and a wake-up of this thread for each file a run opened there.
//!
//! Edits come in bursts (an editor writes a temp file, renames it, touches metadata), so events are
//! gathered for a short quiet period before one reload. Routine source edits need no reload: each
//! run transpiles the file as it is on disk. Writes under `.cowork/data` and `.cowork/local`
//! (routines' own output) are not edits and are ignored — except the task store's: a commit to
//! `queues.db` by any process (an agent's `cowork queue ack`, a routine, a widget) is a `queues`
//! event, so the Tasks view follows the work as it happens. Reading the store writes nothing
//! there, so the view's own reads do not feed back.
//!
//! On Linux the watch asks inotify for writes only (`linux` below): notify 8 (its latest release;
//! the event mask of 9.0 is a release candidate) registers every watch with `IN_OPEN` and
//! close-without-write, so each file a run, the staging or the daemon merely opened under a watched
//! folder woke its thread — on every run. And the store's write-ahead log is watched for one
//! write at a time (`IN_ONESHOT`), armed again after each quiet period: a burst of commits (a
//! routine sending tasks in a loop) wakes this thread once per period, not once per write, and
//! no commit goes unheard — one after the re-arm fires again, one before it is covered by the
//! event sent after it. Other systems keep notify, which has no such mask.

use crate::event::Event;
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Weak};
use std::time::Duration;

/// How long after the last event the registry reloads.
const QUIET: Duration = Duration::from_millis(60);

/// Whether a change at `path` can change the registry.
fn matters(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else { return false };
    let rel = rel.to_string_lossy();
    rel == ".cowork"
        || rel == ".cowork/workspace.json"
        || rel == ".cowork/apps"
        || rel.starts_with(".cowork/apps/")
}

/// The task store's write-ahead log, where commits land.
fn store_log(root: &Path) -> PathBuf {
    let store = root.join(cowork_queue::STORE);
    let mut name = store.file_name().unwrap_or_default().to_os_string();
    name.push("-wal");
    store.with_file_name(name)
}

/// Whether `path` is the task store (`queues.db`, or its write-ahead log where commits land).
fn queue_store(root: &Path, path: &Path) -> bool {
    path == root.join(cowork_queue::STORE) || path == store_log(root)
}

/// What the reloading thread asks of the system's notifications.
trait Backend {
    /// Watches `dir` (and every folder below it when `recursive`).
    fn watch(&mut self, dir: &Path, recursive: bool) -> std::io::Result<()>;
    /// Stops watching `dir` and what was watched below it.
    fn unwatch(&mut self, dir: &Path);
    /// Asks to hear of the next write to the task store's log, where it exists.
    fn arm_store(&mut self, _log: &Path) {}
    /// Lets go of every watch: the workspace is gone.
    fn close(&mut self) {}
}

/// Starts watching `ws` on a thread of its own, which ends when the workspace is gone.
pub(crate) fn watch(ws: &Arc<Workspace>) -> std::io::Result<()> {
    let (tx, rx) = mpsc::channel::<Vec<PathBuf>>();
    let root: PathBuf = ws.root().to_path_buf();
    #[cfg(target_os = "linux")]
    let backend = linux::Inotify::start(root.clone(), tx)?;
    #[cfg(not(target_os = "linux"))]
    let backend = portable::start(root.clone(), tx)?;
    start(backend, root, rx, Arc::downgrade(ws))
}

/// Watches what exists now, before the workspace is handed out (an edit made right after must be
/// seen), then follows it on a thread of its own.
fn start(
    mut backend: impl Backend + Send + 'static,
    root: PathBuf,
    rx: mpsc::Receiver<Vec<PathBuf>>,
    weak: Weak<Workspace>,
) -> std::io::Result<()> {
    // The folder itself, so that a `.cowork/` created later is noticed; the parts of it that
    // matter once they exist.
    if let Err(error) = backend.watch(&root, false) {
        let hint = "edits apply on the next start";
        let message = format!("failed to watch {}: {error} ({hint})", root.display());
        return Err(std::io::Error::new(error.kind(), message));
    }
    let mut watched = Watched::default();
    watched.extend(&mut backend, &root);
    if watched.local {
        backend.arm_store(&store_log(&root));
    }
    std::thread::Builder::new()
        .name("cowork-watch".into())
        .spawn(move || follow(backend, watched, &root, &rx, &weak))?;
    Ok(())
}

/// The reloading thread: gathers a burst of changes, reloads once, says what changed.
fn follow(
    mut backend: impl Backend,
    mut watched: Watched,
    root: &Path,
    rx: &mpsc::Receiver<Vec<PathBuf>>,
    weak: &Weak<Workspace>,
) {
    while let Ok(mut changed) = rx.recv() {
        while let Ok(more) = rx.recv_timeout(QUIET) {
            changed.extend(more);
        }
        watched.forget(&mut backend, root, &changed);
        // `.cowork/local/` and the task store in it may have come in one go (an agent's
        // first `cowork queue send`), before this watch reached inside.
        let store_unseen =
            watched.extend(&mut backend, root) && root.join(cowork_queue::STORE).exists();
        let Some(ws) = weak.upgrade() else { break };
        let (queues, changed): (Vec<PathBuf>, Vec<PathBuf>) = changed
            .into_iter()
            .filter(|p| matters(root, p) || queue_store(root, p))
            .partition(|p| queue_store(root, p));
        if store_unseen || !queues.is_empty() {
            // Armed before the event goes out: a commit from here on fires again, one before
            // it is in what the event's listeners read.
            backend.arm_store(&store_log(root));
            ws.emit(Event::Queues { workspace: ws.display() });
        }
        if changed.is_empty() {
            continue;
        }
        ws.reload();
        let mut changed = changed;
        changed.sort();
        changed.dedup();
        for (app, file) in changed.iter().filter_map(|p| widget_of(&ws, p)) {
            ws.emit(Event::Widget { workspace: ws.display(), app, file });
        }
    }
    backend.close();
}

/// The app (manifest name) and app-relative file of a changed `.jsx`/`.tsx` widget.
fn widget_of(ws: &Workspace, path: &Path) -> Option<(String, String)> {
    let ext = path.extension()?.to_str()?;
    if ext != "jsx" && ext != "tsx" {
        return None;
    }
    let registry = ws.registry();
    let app = registry.apps.iter().find(|a| path.starts_with(&a.path))?;
    let file = path.strip_prefix(&app.path).ok()?.to_string_lossy().into_owned();
    Some((app.manifest.name.clone(), file))
}

/// Which parts of `.cowork/` are watched (each is watched once it exists).
#[derive(Default)]
struct Watched {
    cowork: bool,
    apps: bool,
    local: bool,
}

impl Watched {
    /// Drops the watch on a part that came or went (a folder removed and made again, by a
    /// checkout say, is a new folder the old watch does not see), so that `extend` watches it
    /// afresh where it now exists.
    fn forget(&mut self, backend: &mut impl Backend, root: &Path, changed: &[PathBuf]) {
        let cowork = changed.iter().any(|p| *p == root.join(".cowork"));
        for (done, rel) in [
            (&mut self.cowork, ".cowork"),
            (&mut self.apps, ".cowork/apps"),
            (&mut self.local, ".cowork/local"),
        ] {
            let dir = root.join(rel);
            if *done && (cowork || changed.contains(&dir)) {
                backend.unwatch(&dir);
                *done = false;
            }
        }
    }

    /// Watches what has come to exist since; whether `.cowork/local/` is among it.
    fn extend(&mut self, backend: &mut impl Backend, root: &Path) -> bool {
        let mut add = |done: &mut bool, rel: &str, recursive: bool| {
            let dir = root.join(rel);
            let added = !*done && dir.is_dir() && backend.watch(&dir, recursive).is_ok();
            *done |= added;
            added
        };
        add(&mut self.cowork, ".cowork", false);
        add(&mut self.apps, ".cowork/apps", true);
        add(&mut self.local, ".cowork/local", false)
    }
}

/// Elsewhere than Linux: notify (FSEvents, ReadDirectoryChangesW, kqueue), reads filtered out
/// after the fact.
#[cfg(not(target_os = "linux"))]
mod portable {
    use super::{matters, queue_store, Backend};
    use notify::{RecommendedWatcher, RecursiveMode, Watcher};
    use std::path::{Path, PathBuf};
    use std::sync::mpsc;

    pub(super) fn start(
        root: PathBuf,
        tx: mpsc::Sender<Vec<PathBuf>>,
    ) -> std::io::Result<RecommendedWatcher> {
        notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            if let Ok(event) = event {
                // Reading a file is not an edit: the daemon itself opens manifests and widgets
                // on every load, and reacting to that would reload forever.
                if matches!(event.kind, notify::EventKind::Access(_)) {
                    return;
                }
                let paths: Vec<PathBuf> = event
                    .paths
                    .into_iter()
                    .filter(|p| {
                        matters(&root, p)
                            || queue_store(&root, p)
                            || *p == root.join(".cowork/local")
                    })
                    .collect();
                if !paths.is_empty() {
                    let _ = tx.send(paths);
                }
            }
        })
        .map_err(std::io::Error::other)
    }

    impl Backend for RecommendedWatcher {
        fn watch(&mut self, dir: &Path, recursive: bool) -> std::io::Result<()> {
            let mode =
                if recursive { RecursiveMode::Recursive } else { RecursiveMode::NonRecursive };
            Watcher::watch(self, dir, mode).map_err(std::io::Error::other)
        }

        fn unwatch(&mut self, dir: &Path) {
            let _ = Watcher::unwatch(self, dir);
        }
    }
}

#[cfg(target_os = "linux")]
mod linux;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_manifests_and_workspace_json_matter() {
        let root = Path::new("/w");
        for yes in [
            "/w/.cowork",
            "/w/.cowork/workspace.json",
            "/w/.cowork/apps",
            "/w/.cowork/apps/a/cowork.json",
            "/w/.cowork/apps/a/x.ts",
        ] {
            assert!(matters(root, Path::new(yes)), "{yes}");
        }
        for no in [
            "/w/.cowork/data/a/x.json",
            "/w/.cowork/local/routines/a/x.mjs",
            "/w/notes.md",
            "/elsewhere/.cowork/apps",
        ] {
            assert!(!matters(root, Path::new(no)), "{no}");
        }
    }

    #[test]
    fn the_task_store_and_its_log_are_the_queues() {
        let root = Path::new("/w");
        for yes in ["/w/.cowork/local/queues.db", "/w/.cowork/local/queues.db-wal"] {
            assert!(queue_store(root, Path::new(yes)), "{yes}");
        }
        for no in
            ["/w/.cowork/local/queues.db-shm", "/w/.cowork/data/queues.db-wal", "/w/queues.db"]
        {
            assert!(!queue_store(root, Path::new(no)), "{no}");
        }
    }
}
