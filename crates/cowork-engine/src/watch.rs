//! Keeping a workspace's registry fresh: a `notify` watcher on `.cowork/` reloads it shortly after
//! any change, so the rail, `cowork routine list` and the next run see an edit within 250 ms.
//!
//! Edits come in bursts (an editor writes a temp file, renames it, touches metadata), so events are
//! gathered for a short quiet period before one reload. Routine source edits need no reload: each
//! run transpiles the file as it is on disk.

use crate::engine::Workspace;
use notify::{RecursiveMode, Watcher};
use std::sync::{mpsc, Arc, Weak};
use std::time::Duration;

/// How long after the last event the registry reloads.
const QUIET: Duration = Duration::from_millis(60);

/// Starts watching `ws`; the watcher stops when dropped or when the workspace is gone.
pub(crate) fn watch(ws: &Arc<Workspace>) -> notify::Result<notify::RecommendedWatcher> {
    let (tx, rx) = mpsc::channel::<()>();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event {
            // Our own mirror of transpiled routines changes on every run: not an edit.
            if event.paths.iter().all(|p| p.components().any(|c| c.as_os_str() == "local")) {
                return;
            }
            let _ = tx.send(());
        }
    })?;
    // Watch the workspace folder itself (not recursively) so that a `.cowork/` created later is
    // noticed, and `.cowork/` recursively when it exists.
    watcher.watch(ws.root(), RecursiveMode::NonRecursive)?;
    let cowork = ws.root().join(".cowork");
    if cowork.is_dir() {
        watcher.watch(&cowork, RecursiveMode::Recursive)?;
    }
    let weak: Weak<Workspace> = Arc::downgrade(ws);
    std::thread::Builder::new().name("cowork-watch".into()).spawn(move || {
        while rx.recv().is_ok() {
            while rx.recv_timeout(QUIET).is_ok() {}
            let Some(ws) = weak.upgrade() else { break };
            ws.reload();
        }
    })?;
    Ok(watcher)
}
