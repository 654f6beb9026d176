//! The connections being served, and which one gives way at the cap. A connection that waits —
//! for a request's head (new, or idle between requests) or for the rest of a body — costs the
//! daemon a descriptor and does nothing for anybody, so when the cap is reached the peer holding
//! the most connections gives up its oldest waiting one: a local program that opens hundreds of
//! sockets and stalls them loses its own, and the owner's next call gets in at once. A connection
//! whose request is being served (a routine running, an event stream) never gives way.

use super::peer::Peer;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use tokio::sync::Notify;

/// Waiting for a request's head: just accepted, or idle between requests.
const WAITING: u8 = 0;
/// A request's head is in, its body is still arriving.
const BODY: u8 = 1;
/// A handler has the whole request, or its answer is being sent.
const SERVING: u8 = 2;

/// One connection being served.
pub(crate) struct Connection {
    peer: Peer,
    phase: AtomicU8,
    closing: Notify,
}

impl Connection {
    fn new(peer: Peer) -> Connection {
        Connection { peer, phase: AtomicU8::new(WAITING), closing: Notify::new() }
    }

    /// A request's head arrived; `body` when a body is to follow.
    pub(crate) fn request_started(&self, body: bool) {
        self.phase.store(if body { BODY } else { SERVING }, Ordering::Release);
    }

    /// The request's body has all arrived.
    pub(crate) fn body_complete(&self) {
        let _ = self.phase.compare_exchange(BODY, SERVING, Ordering::AcqRel, Ordering::Acquire);
    }

    /// The answer has been sent (or given up): the connection waits for its next request.
    pub(crate) fn answered(&self) {
        self.phase.store(WAITING, Ordering::Release);
    }

    fn waiting(&self) -> bool {
        self.phase.load(Ordering::Acquire) != SERVING
    }

    /// Resolves when this connection gave way to another and must close.
    pub(crate) async fn closing(&self) {
        self.closing.notified().await;
    }
}

/// Every connection being served by this process, on any of its listeners: descriptors are the
/// process's, so the cap is too.
pub(crate) struct Connections {
    cap: usize,
    /// In the order they were accepted: the first waiting one of a peer is its oldest.
    live: Mutex<Vec<Arc<Connection>>>,
    /// Notified when a connection ends.
    room: Notify,
}

impl Connections {
    pub(crate) fn new(cap: usize) -> Connections {
        Connections { cap, live: Mutex::new(Vec::new()), room: Notify::new() }
    }

    /// Takes in a connection from `peer`: under the cap at once, at the cap in place of a waiting
    /// one (which is told to close). `None` when every connection is being served: wait for
    /// [`Connections::room`] and ask again.
    pub(crate) fn admit(&self, peer: Peer) -> Option<Arc<Connection>> {
        let mut live = self.live.lock();
        if live.len() >= self.cap {
            let victim = give_way(&live)?;
            let victim = live.remove(victim);
            victim.closing.notify_one();
            tracing::debug!(peer = ?victim.peer, "closed a waiting connection to make room for another");
        }
        let connection = Arc::new(Connection::new(peer));
        live.push(connection.clone());
        Some(connection)
    }

    /// The connection ended (or gave way).
    pub(crate) fn leave(&self, connection: &Arc<Connection>) {
        self.live.lock().retain(|c| !Arc::ptr_eq(c, connection));
        self.room.notify_one();
    }

    /// Resolves after a connection ended.
    pub(crate) async fn room(&self) {
        self.room.notified().await;
    }
}

/// Which connection gives way: the oldest waiting one of the peer that holds the most
/// connections; `None` when all are being served.
fn give_way(live: &[Arc<Connection>]) -> Option<usize> {
    let mut held: HashMap<Peer, usize> = HashMap::new();
    for connection in live {
        *held.entry(connection.peer).or_default() += 1;
    }
    // max_by_key keeps the last of equal keys: the index, negated, makes it the oldest.
    live.iter()
        .enumerate()
        .filter(|(_, connection)| connection.waiting())
        .max_by_key(|(index, connection)| (held[&connection.peer], std::cmp::Reverse(*index)))
        .map(|(index, _)| index)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWNER: Peer = Peer::User(1000);
    const OTHER: Peer = Peer::User(1001);

    #[test]
    fn at_the_cap_the_biggest_holders_oldest_waiting_connection_gives_way() {
        let connections = Connections::new(4);
        let owners = connections.admit(OWNER).unwrap();
        let flood: Vec<_> = (0..3).map(|_| connections.admit(OTHER).unwrap()).collect();
        // The owner's connection is the oldest of all, but the other peer holds more.
        let next = connections.admit(OWNER).unwrap();
        let live = connections.live.lock().clone();
        assert!(live.iter().any(|c| Arc::ptr_eq(c, &owners)), "the owner's connection stayed");
        assert!(!live.iter().any(|c| Arc::ptr_eq(c, &flood[0])), "the flood's oldest gave way");
        assert!(live.iter().any(|c| Arc::ptr_eq(c, &next)));
        assert_eq!(live.len(), 4);
    }

    #[test]
    fn a_connection_being_served_never_gives_way() {
        let connections = Connections::new(2);
        let running = connections.admit(OTHER).unwrap();
        running.request_started(false);
        let stalled_body = connections.admit(OTHER).unwrap();
        stalled_body.request_started(true);
        // The stalled body waits, so it goes; the running request stays.
        let mine = connections.admit(OWNER).unwrap();
        mine.request_started(false);
        let live = connections.live.lock().clone();
        assert!(live.iter().any(|c| Arc::ptr_eq(c, &running)));
        assert!(!live.iter().any(|c| Arc::ptr_eq(c, &stalled_body)));
        // Every connection is being served: a new one waits for room.
        assert!(connections.admit(OTHER).is_none());
        running.answered();
        assert!(connections.admit(OTHER).is_some(), "an answered connection waits again");
    }

    #[tokio::test]
    async fn the_connection_that_gave_way_is_told_to_close() {
        let connections = Connections::new(1);
        let first = connections.admit(OTHER).unwrap();
        let _second = connections.admit(OTHER).unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(5), first.closing())
            .await
            .expect("told to close");
        connections.leave(&first);
        assert_eq!(connections.live.lock().len(), 1, "leaving twice removes nothing else");
    }
}
