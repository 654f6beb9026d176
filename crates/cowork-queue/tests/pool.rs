//! Stores kept open in a pool stay as correct as a store opened per call: they see what other
//! connections commit, receipts still fence, and a store whose file was replaced, linked away or
//! whose bell was made again is never used as if nothing happened.

use cowork_queue::*;
use std::path::Path;
use std::time::{Duration, Instant};

fn send(store: &mut Store, body: &str) -> i64 {
    store.send("q", body, &SendOptions::default()).unwrap().task.id
}

fn bodies(store: &mut Store) -> Vec<String> {
    let mut tasks = store.items("q", &ItemsQuery::default()).unwrap();
    tasks.reverse();
    tasks.into_iter().map(|t| t.subject).collect()
}

#[test]
fn a_store_goes_back_to_the_pool_and_out_again_up_to_what_it_keeps() {
    let ws = tempfile::tempdir().unwrap();
    let pool = Pool::keeping(ws.path(), 1);
    assert_eq!(pool.idle(), 0, "nothing is opened before the first call");
    send(&mut pool.get().unwrap(), "one");
    assert_eq!(pool.idle(), 1);
    {
        // Two users at once: the kept store and one opened for the second; one is kept after.
        let (mut a, mut b) = (pool.get().unwrap(), pool.get().unwrap());
        assert_eq!(pool.idle(), 0);
        send(&mut a, "two");
        assert_eq!(bodies(&mut b), ["one", "two"]);
    }
    assert_eq!(pool.idle(), 1);
}

#[test]
fn a_held_store_sees_what_other_connections_commit_and_its_receipts_still_fence() {
    let ws = tempfile::tempdir().unwrap();
    let pool = Pool::new(ws.path());
    let mut held = pool.get().unwrap();
    let mut other = Store::open(ws.path()).unwrap();
    let id = send(&mut other, "from another process");
    let taken = held.receive("q", &ReceiveOptions::default()).unwrap().expect("the task");
    assert_eq!(taken.task.id, id);
    assert_eq!(other.peek("q", id).unwrap().status, Status::InProgress);
    let stale = other.ack("q", id, "not-the-receipt", &AckOptions::default()).unwrap_err();
    assert!(matches!(stale, QueueError::StaleReceipt { .. }), "{stale:?}");
    other.nack("q", id, &taken.receipt, &NackOptions::default()).unwrap();
    let again = held.ack("q", id, &taken.receipt, &AckOptions::default()).unwrap_err();
    assert!(matches!(again, QueueError::StaleReceipt { .. }), "{again:?}");
    assert_eq!(held.peek("q", id).unwrap().status, Status::Todo);
}

/// Before a store was checked when handed out, a pooled connection went on writing into the
/// deleted file: the task was acknowledged and gone.
#[test]
fn a_store_whose_file_was_replaced_is_opened_again_and_nothing_written_is_lost() {
    let ws = tempfile::tempdir().unwrap();
    let pool = Pool::new(ws.path());
    send(&mut pool.get().unwrap(), "before");
    std::fs::remove_dir_all(ws.path().join(".cowork/local")).unwrap();
    send(&mut pool.get().unwrap(), "after");
    assert_eq!(bodies(&mut Store::open(ws.path()).unwrap()), ["after"]);
}

#[cfg(unix)]
#[test]
fn a_store_folder_made_a_symlink_is_refused_as_a_fresh_open_refuses_it() {
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let pool = Pool::new(ws.path());
    send(&mut pool.get().unwrap(), "inside");
    let local = ws.path().join(".cowork/local");
    let moved = outside.path().join("local");
    std::fs::rename(&local, &moved).unwrap();
    std::os::unix::fs::symlink(&moved, &local).unwrap();
    let refused = pool.get().err().expect("a linked .cowork/local is refused");
    assert!(matches!(refused, QueueError::Symlinked(_)), "{refused:?}");
    assert_eq!(refused.name(), Store::open(ws.path()).err().unwrap().name());
}

/// A pooled store rang the bell file it opened first; once that file was removed and made
/// again, its rings reached no one and a waiting receiver slept until its safety re-check (30 s).
#[test]
fn a_bell_made_again_still_wakes_waiters_when_a_pooled_store_sends() {
    let ws = tempfile::tempdir().unwrap();
    let pool = Pool::new(ws.path());
    {
        let mut store = pool.get().unwrap();
        store.create("q", &SettingsChange::default()).unwrap();
        store.send("other", "opens the bell", &SendOptions::default()).unwrap();
    }
    let store_file = ws.path().canonicalize().unwrap().join(STORE);
    std::fs::remove_file(bell(&store_file)).unwrap();
    let waiter = {
        let ws = ws.path().to_path_buf();
        std::thread::spawn(move || {
            let options = ReceiveOptions { receiver: Some("w".into()), ..Default::default() };
            let mut store = Store::open(&ws).unwrap();
            store.receive_wait("q", &options, Duration::from_secs(60)).unwrap()
        })
    };
    // Listening once it watches the bell (made again by the watch).
    let start = Instant::now();
    while !pool.get().unwrap().receivers(Some("q")).unwrap().iter().any(|r| r.listening) {
        assert!(start.elapsed() < Duration::from_secs(20), "the waiter never listened");
        std::thread::sleep(Duration::from_millis(10));
    }
    let sent = Instant::now();
    let id = send(&mut pool.get().unwrap(), "wake up");
    let received = waiter.join().unwrap().expect("the waiter receives the task");
    assert_eq!(received.task.id, id);
    assert!(sent.elapsed() < Duration::from_secs(15), "woken by the ring, not the re-check");
}

fn bell(store: &Path) -> std::path::PathBuf {
    let mut name = store.file_name().unwrap().to_os_string();
    name.push(".bell");
    store.with_file_name(name)
}

/// A store holds its hot statements compiled for its whole life (store/sql.rs); they are
/// finalized before its connection closes, so the close still checkpoints the log into
/// `queues.db` and removes it, as closing a connection with no statement left open does. (A
/// statement outliving the connection would make SQLite refuse the close: the log stays.)
#[test]
fn a_store_closed_after_its_work_checkpoints_and_removes_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let receiver = ReceiveOptions { receiver: Some("worker".into()), ..Default::default() };
    for body in ["one", "two"] {
        send(&mut store, body);
        let task = store.receive("q", &receiver).unwrap().unwrap();
        store.ack("q", task.task.id, &task.receipt, &Default::default()).unwrap();
    }
    let log = dir.path().join(".cowork/local/queues.db-wal");
    assert!(log.exists(), "the commits went to the log");
    drop(store);
    assert!(!log.exists(), "closing the store checkpointed and removed its log");
    let mut again = Store::open(dir.path()).unwrap();
    assert_eq!(again.counts("q").unwrap().done, 2, "every task is in queues.db");
}
