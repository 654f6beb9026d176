//! What the workspace watch costs the rest of the machine: on Linux it wakes for writes only, so
//! opening and reading files under `.cowork/` (every run, every load does) wakes none of its
//! threads, and a burst of commits to the task store wakes it about once per quiet period, not
//! once per write — while each change is still heard. A binary of its own: it counts this
//! process's watch threads' wake-ups, which another test's workspaces would add to.
#![cfg(target_os = "linux")]

use cowork_core::paths::Root;
use cowork_engine::{Engine, EngineConfig, Event};
use serde_json::json;
use std::time::{Duration, Instant};

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// How often this process's file-watch threads (ours, or notify's) have gone to sleep and been
/// woken: the sum of their voluntary context switches.
fn watch_wakeups() -> u64 {
    let tasks = std::fs::read_dir("/proc/self/task").expect("this process's threads");
    tasks
        .flatten()
        .filter(|task| {
            std::fs::read_to_string(task.path().join("comm"))
                .is_ok_and(|name| name.starts_with("cowork-watch") || name.starts_with("notify-rs"))
        })
        .map(|task| {
            let status = std::fs::read_to_string(task.path().join("status")).unwrap_or_default();
            status
                .lines()
                .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
                .and_then(|n| n.trim().parse::<u64>().ok())
                .unwrap_or(0)
        })
        .sum()
}

/// Drains `events`, counting the `queues` ones.
fn queue_events(events: &mut tokio::sync::broadcast::Receiver<Event>) -> usize {
    std::iter::from_fn(|| events.try_recv().ok())
        .filter(|e| matches!(e, Event::Queues { .. }))
        .count()
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_wake_no_watch_and_a_burst_of_commits_wakes_it_a_few_times() {
    let ws = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let app = ws.path().join(".cowork/apps/clock");
    write(
        &app.join("cowork.json"),
        r#"{"name": "clock", "version": "1.0.0", "routines": {"clock-now": "now.ts"}}"#,
    );
    write(&app.join("now.ts"), "export default () => 1;\n");
    write(&ws.path().join(".cowork/workspace.json"), "{}");
    let mut store = cowork_queue::Store::open(ws.path()).unwrap();
    let send = |store: &mut cowork_queue::Store, i: usize| {
        let call = json!({"method": "send", "queue": "inbox", "body": format!("task {i}")});
        store.call(serde_json::from_value(call).unwrap()).unwrap();
    };
    send(&mut store, 0);
    let engine = Engine::new(Root::new(home.path()), EngineConfig::default());
    let workspace = engine.workspace(ws.path()).unwrap();
    let mut events = engine.subscribe();
    // Past the events of the setup.
    tokio::time::sleep(Duration::from_millis(300)).await;
    queue_events(&mut events);

    // What a run and a load do under `.cowork/`: open, read, list, close.
    let before = watch_wakeups();
    for _ in 0..50 {
        for file in ["cowork.json", "now.ts"] {
            std::fs::read(app.join(file)).unwrap();
        }
        std::fs::read(ws.path().join(".cowork/workspace.json")).unwrap();
        std::fs::read_dir(ws.path().join(".cowork/local")).unwrap().for_each(drop);
        std::fs::read_dir(&app).unwrap().for_each(drop);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(watch_wakeups() - before, 0, "reads woke the watch");
    assert_eq!(workspace.registry().apps.len(), 1);

    // 200 commits as fast as they go: each one a write (or several) to the store's log.
    let before = watch_wakeups();
    let started = Instant::now();
    for i in 1..=200 {
        send(&mut store, i);
    }
    let took = started.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let woke = watch_wakeups() - before;
    eprintln!("{woke} wake-ups for 200 commits in {took:?}");
    assert!(queue_events(&mut events) > 0, "the burst was not heard");
    // About five wake-ups per commit is what notify's watch cost (992 for these 200); a few per
    // quiet period (60 ms) of the burst is what is left (3 when the burst takes 40 ms), however
    // long a loaded machine makes the burst.
    let periods = took.as_millis() as u64 / 60 + 3;
    assert!(woke <= 4 * periods && woke < 200, "{woke} wake-ups for 200 commits in {took:?}");

    // The watch of the log is armed again after a burst: a lone commit is heard.
    send(&mut store, 201);
    let heard = Instant::now();
    let mut queues = 0;
    while queues == 0 && heard.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(20)).await;
        queues += queue_events(&mut events);
    }
    assert!(queues > 0, "a commit after the burst was not heard");
}
