//! Woken when a page finished loading (WebKit's load-finished) in a browser tab or a site app
//! window: the browser engine's waits for a load look again then rather than at their next poll.
//! A leaf of its own, so the windows that load pages and the engine that waits on them need not
//! import each other.

/// The shell's one notifier of finished loads (Tauri state).
#[derive(Default)]
pub struct PageLoads(tokio::sync::Notify);

impl PageLoads {
    /// A page finished loading: every wait in flight looks again.
    pub fn finished(&self) {
        self.0.notify_waiters();
    }

    /// Resolves at the next finished load after it is created.
    pub fn next(&self) -> tokio::sync::futures::Notified<'_> {
        self.0.notified()
    }
}
