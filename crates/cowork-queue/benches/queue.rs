//! Task-queue throughput: send + receive + ack per second, one task at a time, each operation its
//! own transaction — our store against npm `plainjob` (bench/queue-plainjob.mjs) run on the same
//! machine in the same run, both on WAL with `synchronous = NORMAL` (a commit survives the process
//! being killed; plainjob's own setting and ours). Prints the two side by side.
//!
//! `cargo bench -p cowork-queue --bench queue` (`JOBS=n` to change the 5000 tasks). The peer needs
//! `npm ci --prefix bench` (bench/run does it); without it, it is skipped with a note.

use cowork_queue::{AckOptions, ReceiveOptions, SendOptions, SettingsChange, Store};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn main() {
    // `cargo test` runs bench targets too, without `--bench`: nothing to measure then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let jobs: usize = std::env::var("JOBS").ok().and_then(|n| n.parse().ok()).unwrap_or(5000);
    // Warm-up rounds, then the measured ones interleaved so machine noise hits both alike.
    ours(500);
    peer(500);
    let (mut us, mut them) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        us.push(ours(jobs));
        if let Some(rate) = peer(jobs) {
            them.push(rate);
        }
    }
    let us = median(us);
    println!("task queue, {jobs} tasks: send + receive + ack, one at a time (median of 3)");
    println!("  cowork-queue   {us:>9.0} tasks/s");
    match them.is_empty() {
        true => println!("  plainjob       skipped: run `npm ci --prefix bench` first"),
        false => {
            let them = median(them);
            println!("  plainjob       {them:>9.0} tasks/s   (ours ÷ theirs: {:.2}×)", us / them);
        }
    }
}

/// Tasks per second through our store, in a fresh workspace.
fn ours(jobs: usize) -> f64 {
    let dir = tempfile::tempdir().expect("a temp folder");
    let mut store = Store::open(dir.path()).expect("a fresh store opens");
    store.create("bench", &SettingsChange::default()).expect("the queue");
    let receiver = ReceiveOptions { receiver: Some("worker".into()), ..Default::default() };
    let start = Instant::now();
    for i in 0..jobs {
        store.send("bench", &format!("task {i}"), &SendOptions::default()).expect("send");
    }
    let mut done = 0;
    while let Some(task) = store.receive("bench", &receiver).expect("receive") {
        store.ack("bench", task.task.id, &task.receipt, &AckOptions::default()).expect("ack");
        done += 1;
    }
    assert_eq!(done, jobs, "every task came back once");
    jobs as f64 / start.elapsed().as_secs_f64()
}

/// Tasks per second through plainjob, or `None` when it is not installed.
fn peer(jobs: usize) -> Option<f64> {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench");
    let installed = ["plainjob", "better-sqlite3/build/Release/better_sqlite3.node"];
    if !installed.iter().all(|path| bench.join("node_modules").join(path).exists()) {
        return None;
    }
    let out = Command::new("node")
        .arg(bench.join("queue-plainjob.mjs"))
        .arg(jobs.to_string())
        .output()
        .expect("node runs");
    assert!(out.status.success(), "plainjob: {}", String::from_utf8_lossy(&out.stderr));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    Some(answer["jobs"].as_f64()? / (answer["ms"].as_f64()? / 1000.0))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}
