//! The agents' door on a listener of its own as shared state: where it listens, the address agents
//! use, and how to stop it. The routes that open and close it are in `door`; this table imports
//! neither `state` nor the router, so `AppState` can hold it without an import circle.

use cowork_wire::daemon::agents::DoorInfo;
use parking_lot::Mutex;

/// The open door, if any.
#[derive(Default)]
pub struct Doors {
    open: Mutex<Option<Open>>,
}

struct Open {
    info: DoorInfo,
    stop: tokio::sync::oneshot::Sender<()>,
}

impl Doors {
    /// Where the open door listens, if one is open.
    pub fn info(&self) -> Option<DoorInfo> {
        self.open.lock().as_ref().map(|open| open.info.clone())
    }

    /// Records the door just opened; `stop` ends its server.
    pub fn opened(&self, info: DoorInfo, stop: tokio::sync::oneshot::Sender<()>) {
        *self.open.lock() = Some(Open { info, stop });
    }

    /// Closes the open door; false when none was.
    pub fn close(&self) -> bool {
        match self.open.lock().take() {
            Some(open) => {
                // A server that already stopped (the daemon is stopping) has dropped the receiver.
                let _ = open.stop.send(());
                true
            }
            None => false,
        }
    }
}
