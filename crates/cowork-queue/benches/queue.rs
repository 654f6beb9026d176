//! Task-queue throughput: send + receive + ack per second — our store against npm `plainjob`
//! (bench/queue-plainjob.mjs) run on the same machine in the same run, both on WAL with
//! `synchronous = NORMAL` (a commit survives the process being killed; plainjob's own setting and
//! ours). Three rows, each side doing the same work as the other:
//!
//! - one at a time: every send, receive and ack its own transaction (`add`,
//!   `getAndMarkJobAsProcessing`, `markJobAsDone`);
//! - sent in batches: sends [`BATCH`] to a transaction (`send_many`; plainjob's `addMany`),
//!   received and acked one at a time;
//! - batched: sends, receives and acks [`BATCH`] to a transaction (`send_many`, `receive_many`,
//!   `ack_many`; plainjob has no batch take or finish, so its calls run inside one better-sqlite3
//!   transaction per batch, the way a plainjob user would batch them).
//!
//! `cargo bench -p cowork-queue --bench queue` (`JOBS=n` to change the 5000 tasks). The peer needs
//! `npm ci --prefix bench` (bench/run does it); without it, it is skipped with a note.

use cowork_queue::{NewTask, ReceiveOptions, SendOptions, SettingsChange, Store, TaskAck};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Tasks per transaction in the batched rows.
const BATCH: usize = 100;

#[derive(Clone, Copy)]
enum Mode {
    OneAtATime,
    SentInBatches,
    Batched,
}

impl Mode {
    const ALL: [Mode; 3] = [Mode::OneAtATime, Mode::SentInBatches, Mode::Batched];

    /// The name the peer's script takes.
    fn name(self) -> &'static str {
        match self {
            Mode::OneAtATime => "one",
            Mode::SentInBatches => "send-batched",
            Mode::Batched => "batched",
        }
    }

    fn title(self) -> String {
        match self {
            Mode::OneAtATime => "one at a time".into(),
            Mode::SentInBatches => {
                format!("sent {BATCH} to a transaction, received and acked one at a time")
            }
            Mode::Batched => format!("sent, received and acked {BATCH} to a transaction"),
        }
    }
}

fn main() {
    // `cargo test` runs bench targets too, without `--bench`: nothing to measure then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let jobs: usize = std::env::var("JOBS").ok().and_then(|n| n.parse().ok()).unwrap_or(5000);
    println!("task queue, {jobs} tasks: send + receive + ack (median of 3)");
    for mode in Mode::ALL {
        // A warm-up round, then the measured ones interleaved so machine noise hits both alike.
        ours(mode, 500);
        peer(mode, 500);
        let (mut us, mut them) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            us.push(ours(mode, jobs));
            if let Some(rate) = peer(mode, jobs) {
                them.push(rate);
            }
        }
        let us = median(us);
        println!("{}", mode.title());
        println!("  cowork-queue   {us:>9.0} tasks/s");
        match them.is_empty() {
            true => println!("  plainjob       skipped: run `npm ci --prefix bench` first"),
            false => {
                let them = median(them);
                println!(
                    "  plainjob       {them:>9.0} tasks/s   (ours ÷ theirs: {:.2}×)",
                    us / them
                );
            }
        }
    }
}

/// Tasks per second through our store, in a fresh workspace.
fn ours(mode: Mode, jobs: usize) -> f64 {
    let dir = tempfile::tempdir().expect("a temp folder");
    let mut store = Store::open(dir.path()).expect("a fresh store opens");
    store.create("bench", &SettingsChange::default()).expect("the queue");
    let receiver = ReceiveOptions { receiver: Some("worker".into()), ..Default::default() };
    let start = Instant::now();
    match mode {
        Mode::OneAtATime => {
            for i in 0..jobs {
                store.send("bench", &format!("task {i}"), &SendOptions::default()).expect("send");
            }
        }
        Mode::SentInBatches | Mode::Batched => {
            let tasks: Vec<NewTask> = (0..jobs)
                .map(|i| NewTask { body: format!("task {i}"), options: SendOptions::default() })
                .collect();
            for batch in tasks.chunks(BATCH) {
                store.send_many("bench", batch).expect("send_many");
            }
        }
    }
    let mut done = 0;
    match mode {
        Mode::OneAtATime | Mode::SentInBatches => {
            while let Some(task) = store.receive("bench", &receiver).expect("receive") {
                store.ack("bench", task.task.id, &task.receipt, &Default::default()).expect("ack");
                done += 1;
            }
        }
        Mode::Batched => loop {
            let taken = store.receive_many("bench", &receiver, BATCH).expect("receive_many");
            if taken.is_empty() {
                break;
            }
            let acks: Vec<TaskAck> = taken
                .into_iter()
                .map(|t| TaskAck { id: t.task.id, receipt: t.receipt, options: Default::default() })
                .collect();
            done += store.ack_many("bench", &acks).expect("ack_many").len();
        },
    }
    assert_eq!(done, jobs, "every task came back once");
    jobs as f64 / start.elapsed().as_secs_f64()
}

/// Tasks per second through plainjob, or `None` when it is not installed.
fn peer(mode: Mode, jobs: usize) -> Option<f64> {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench");
    let installed = ["plainjob", "better-sqlite3/build/Release/better_sqlite3.node"];
    if !installed.iter().all(|path| bench.join("node_modules").join(path).exists()) {
        return None;
    }
    let out = Command::new("node")
        .arg(bench.join("queue-plainjob.mjs"))
        .args([jobs.to_string(), mode.name().into(), BATCH.to_string()])
        .output()
        .expect("node runs");
    assert!(out.status.success(), "plainjob: {}", String::from_utf8_lossy(&out.stderr));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(answer["jobs"].as_u64(), Some(jobs as u64), "plainjob did every job once");
    Some(answer["jobs"].as_f64()? / (answer["ms"].as_f64()? / 1000.0))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}
