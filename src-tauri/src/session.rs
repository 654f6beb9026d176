//! The shell's state that every feature reads, one newtype per concern (managed state): the
//! daemon it is linked to and the Cowork root ([`Session`]), the workspace the window shows
//! ([`Active`]), `desktop.json` ([`Preferences`]), and whether Quit has started ([`Quitting`]).
//! A leaf: it imports no feature.

use crate::daemon_link::Link;
use crate::workspaces::DesktopState;
use cowork_core::paths::Root;
use parking_lot::Mutex;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use tauri::{AppHandle, Manager};

/// The Cowork root and the link to its daemon, for the shell's whole life.
pub struct Session {
    pub root: Root,
    pub link: Link,
}

/// The workspace the window shows (canonical, as the daemon named it).
pub struct Active {
    workspace: Mutex<PathBuf>,
    /// One switch at a time: a second waits for the first.
    switching: tokio::sync::Mutex<()>,
}

impl Active {
    pub fn new(workspace: PathBuf) -> Active {
        Active { workspace: Mutex::new(workspace), switching: tokio::sync::Mutex::new(()) }
    }

    /// The workspace the window shows.
    pub fn get(&self) -> PathBuf {
        self.workspace.lock().clone()
    }

    /// Makes `workspace` the active one; the one it replaces.
    pub fn replace(&self, workspace: PathBuf) -> PathBuf {
        std::mem::replace(&mut *self.workspace.lock(), workspace)
    }

    /// Waits for a switch under way to end; held for the length of a switch.
    pub async fn one_switch_at_a_time(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.switching.lock().await
    }
}

/// `desktop.json`: the recent workspaces and Do Not Disturb.
pub struct Preferences(Mutex<DesktopState>);

impl Preferences {
    pub fn new(prefs: DesktopState) -> Preferences {
        Preferences(Mutex::new(prefs))
    }

    /// A copy of `desktop.json`.
    pub fn get(&self) -> DesktopState {
        self.0.lock().clone()
    }

    pub fn do_not_disturb(&self) -> bool {
        self.0.lock().do_not_disturb
    }

    /// Changes `desktop.json` and writes it (a failure is logged).
    pub fn update(&self, root: &Root, change: impl FnOnce(&mut DesktopState)) {
        let mut prefs = self.0.lock();
        change(&mut prefs);
        if let Err(error) = prefs.save(root) {
            tracing::warn!("failed to write {}: {error}", DesktopState::file(root).display());
        }
    }
}

/// Whether Quit has started (the window's close then really closes).
#[derive(Default)]
pub struct Quitting(AtomicBool);

impl Quitting {
    pub fn get(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// Starts Quit; whether it had started already.
    pub fn start(&self) -> bool {
        self.0.swap(true, Ordering::SeqCst)
    }
}

/// The workspace the window shows.
pub fn active(app: &AppHandle) -> PathBuf {
    app.state::<Active>().get()
}

/// Whether Quit has started.
pub fn quitting(app: &AppHandle) -> bool {
    app.state::<Quitting>().get()
}
