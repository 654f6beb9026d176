//! Task-queue throughput where people use it: send + receive + ack per second through a routine's
//! `ctx.queue`, beside the store's own figure and npm `plainjob` (bench/queue-plainjob.mjs), all in
//! one run on the same machine, each round interleaved so machine noise hits every side alike.
//!
//! - **the store**: `cowork_queue::Store` called directly, in this process;
//! - **ctx.queue**: a routine doing the same work through `ctx.queue(q)` — the runner calling the
//!   task store's Node-API module in the routine's own process (cowork-queue-napi), the path a
//!   routine takes in the daemon (the daemon runs this engine; HTTP only carries the run request);
//!   and, labelled "via engine", the fallback without the module: the run's synchronous channel
//!   (fd 3 → fd 5), the engine's answer and the store it holds for the run. Once on Bun and once
//!   on Node when both are found. Timed inside the routine, from its first call to its last
//!   answer (the process start is not the queue's cost);
//! - **plainjob**: on better-sqlite3, in one Node process.
//!
//! Each side opens its store before its clock starts (the routine with a first call, which loads
//! the module and opens `queues.db`). Every row is printed twice: tasks per second of wall time,
//! the figure the targets name, and tasks per CPU-second of the side's own process (the store:
//! its thread), which the other programs on shared cores stretch far less.
//!
//! All on WAL with `synchronous = NORMAL` (a commit survives the process being killed; plainjob's
//! own setting and ours). Three rows, each side doing the same work as the others:
//!
//! - one at a time: every send, receive and ack its own transaction (`add`,
//!   `getAndMarkJobAsProcessing`, `markJobAsDone`);
//! - sent in batches: sends [`BATCH`] to a transaction (`sendMany`; plainjob's `addMany`),
//!   received and acked one at a time;
//! - batched: sends, receives and acks [`BATCH`] to a transaction (`sendMany`, `receiveMany`,
//!   `ackMany`; plainjob has no batch take or finish, so its calls run inside one better-sqlite3
//!   transaction per batch, the way a plainjob user would batch them).
//!
//! `cargo bench -p cowork-engine --bench queue` (`JOBS=n` to change the 5000 tasks). The peer
//! needs `npm ci --prefix bench` (bench/run does it); without it, it is skipped with a note, as is
//! a runtime that is not installed.

use cowork_core::paths::Root;
use cowork_engine::runtime::RuntimeKind;
use cowork_engine::{Engine, EngineConfig, RunRequest, Source};
use cowork_queue::{NewTask, ReceiveOptions, SendOptions, SettingsChange, Store, TaskAck};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Tasks per transaction in the batched rows.
const BATCH: usize = 100;
/// Measured rounds per side and row (after one warm-up round).
const ROUNDS: usize = 3;
/// The quiet before each measurement: what the one before left behind (a runtime's teardown, a
/// checkpoint) is not billed to the next.
const PAUSE: Duration = Duration::from_millis(200);

const ROUTINE: &str = "bench-queue";
/// The store's work, in a routine: the same loops as [`store`], through `ctx.queue`.
const SOURCE: &str = r#"export default (args: any, ctx: any) => {
  const { jobs, mode, batch } = args;
  const q = ctx.queue("bench");
  // The first call loads the module and opens (here: creates) queues.db; the store's side opens
  // its store before its clock too. No queue yet: counts() refuses, having opened the store.
  try {
    q.counts();
  } catch {}
  const cpu = process.cpuUsage();
  const start = performance.now();
  if (mode === "one") {
    for (let i = 0; i < jobs; i++) q.send(`task ${i}`);
  } else {
    for (let i = 0; i < jobs; i += batch) {
      const tasks = [];
      for (let j = i; j < Math.min(i + batch, jobs); j++) tasks.push({ body: `task ${j}` });
      q.sendMany(tasks);
    }
  }
  let done = 0;
  if (mode === "batched") {
    for (;;) {
      const taken = q.receiveMany(batch, { as: "worker" });
      if (taken.length === 0) break;
      done += q.ackMany(taken.map((t: any) => ({ id: t.id, receipt: t.receipt }))).length;
    }
  } else {
    for (let t = q.receive({ as: "worker" }); t; t = q.receive({ as: "worker" })) {
      q.ack(t.id, t.receipt);
      done++;
    }
  }
  const used = process.cpuUsage(cpu);
  return { done, ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000 };
};
"#;

#[derive(Clone, Copy)]
enum Mode {
    OneAtATime,
    SentInBatches,
    Batched,
}

impl Mode {
    const ALL: [Mode; 3] = [Mode::OneAtATime, Mode::SentInBatches, Mode::Batched];

    /// The name the routine and the peer's script take.
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

/// One side's speed in one round: tasks per second of wall time, and per CPU-second of its own
/// process (the store: its thread), which other programs' load on the shared cores stretches far
/// less than the wall time.
#[derive(Clone, Copy)]
struct Rate {
    wall: f64,
    cpu: f64,
}

impl Rate {
    fn new(jobs: usize, wall: Duration, cpu: Duration) -> Rate {
        Rate { wall: jobs as f64 / wall.as_secs_f64(), cpu: jobs as f64 / cpu.as_secs_f64() }
    }

    fn wall(&self) -> f64 {
        self.wall
    }

    fn cpu(&self) -> f64 {
        self.cpu
    }
}

/// The CPU time this thread used so far.
#[allow(unsafe_code)] // one libc call: std has no thread CPU clock
fn thread_cpu() -> Duration {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// A routine runner on one runtime: an engine whose runtime was forced, and its label.
struct Routine {
    engine: Arc<Engine>,
    label: String,
    /// `ctx.queue` runs the store in the routine's process (else in the engine's: "via engine").
    in_process: bool,
    _root: tempfile::TempDir,
}

fn main() {
    // `cargo test` runs bench targets too, without `--bench`: nothing to measure then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let jobs: usize = std::env::var("JOBS").ok().and_then(|n| n.parse().ok()).unwrap_or(5000);
    let routines = routines();
    let tokio = tokio::runtime::Runtime::new().expect("a tokio runtime");
    println!(
        "task queue, {jobs} tasks: send + receive + ack per second (median of {ROUNDS}, sides interleaved after a warm-up)"
    );
    println!("load average at the start: {}", load());
    for mode in Mode::ALL {
        let mut store_rates = Vec::new();
        let mut routine_rates = vec![Vec::new(); routines.len()];
        let mut peer_rates = Vec::new();
        for round in 0..=ROUNDS {
            let jobs = if round == 0 { 500 } else { jobs };
            std::thread::sleep(PAUSE);
            let store_rate = store(mode, jobs);
            for (i, routine) in routines.iter().enumerate() {
                std::thread::sleep(PAUSE);
                let rate = tokio.block_on(in_routine(routine, mode, jobs));
                if round > 0 {
                    routine_rates[i].push(rate);
                }
            }
            std::thread::sleep(PAUSE);
            let peer_rate = peer(mode, jobs);
            if round > 0 {
                store_rates.push(store_rate);
                peer_rates.extend(peer_rate);
            }
        }
        println!("{}", mode.title());
        for (unit, pick) in [("tasks/s", Rate::wall as fn(&Rate) -> f64), ("/CPU-s", Rate::cpu)] {
            let ours = median(store_rates.iter().map(pick).collect());
            let theirs =
                (!peer_rates.is_empty()).then(|| median(peer_rates.iter().map(pick).collect()));
            let versus = |rate: f64| match theirs {
                Some(theirs) => format!("   {:.2}× plainjob", rate / theirs),
                None => String::new(),
            };
            if unit != "tasks/s" {
                println!("  per CPU-second of each side's own process (the store: its thread; \"via engine\" not shown: its store works in the engine's process):");
            }
            println!(
                "  the store (cowork-queue)                   {ours:>9.0} {unit:7}{}",
                versus(ours)
            );
            for (routine, rates) in routines.iter().zip(&routine_rates) {
                if unit != "tasks/s" && !routine.in_process {
                    continue;
                }
                let rate = median(rates.iter().map(pick).collect());
                println!(
                    "  ctx.queue in a routine, {:16}   {rate:>9.0} {unit:7}   {:.2}× the store{}",
                    routine.label,
                    rate / ours,
                    versus(rate)
                );
            }
            match theirs {
                Some(theirs) => {
                    println!("  plainjob (one Node process)                {theirs:>9.0} {unit}")
                }
                None => println!(
                    "  plainjob                                   skipped: run `npm ci --prefix bench` first"
                ),
            }
        }
    }
    println!("load average at the end: {}", load());
}

/// Two engines per runtime found (Bun, then Node), each forced to it as the tests force one: one
/// running `ctx.queue` in the routine's process, one through the engine (the fallback).
fn routines() -> Vec<Routine> {
    let mut found = Vec::new();
    for kind in [RuntimeKind::Bun, RuntimeKind::Node] {
        let name = format!("{kind:?}").to_lowercase();
        // The engine picks its runtime once, in Engine::new, from COWORK_RUNTIME; set here, before
        // any other thread exists.
        std::env::set_var("COWORK_RUNTIME", &name);
        for queue_in_process in [true, false] {
            let root = tempfile::tempdir().expect("a temp Cowork root");
            // No spares: a spare starting for the next run must not share the cores with this one.
            let config =
                EngineConfig { spares: false, queue_in_process, ..EngineConfig::default() };
            let engine = Engine::new(Root::new(root.path()), config);
            let label = if queue_in_process { name.clone() } else { format!("{name} via engine") };
            match engine.runtime() {
                Ok(runtime) => {
                    println!("{label}: {} {}", runtime.version, runtime.path.display());
                    found.push(Routine {
                        engine,
                        label,
                        in_process: queue_in_process,
                        _root: root,
                    });
                }
                Err(error) => println!("ctx.queue on {label} skipped: {error}"),
            }
        }
    }
    std::env::remove_var("COWORK_RUNTIME");
    found
}

/// Tasks per second through the store, in a fresh workspace.
fn store(mode: Mode, jobs: usize) -> Rate {
    let dir = tempfile::tempdir().expect("a temp folder");
    let mut store = Store::open(dir.path()).expect("a fresh store opens");
    store.create("bench", &SettingsChange::default()).expect("the queue");
    let receiver = ReceiveOptions { receiver: Some("worker".into()), ..Default::default() };
    let (start, cpu) = (Instant::now(), thread_cpu());
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
    Rate::new(jobs, start.elapsed(), thread_cpu() - cpu)
}

/// Tasks per second through `ctx.queue` in one run of the routine, in a fresh workspace.
async fn in_routine(routine: &Routine, mode: Mode, jobs: usize) -> Rate {
    let dir = tempfile::tempdir().expect("a temp workspace");
    let app = dir.path().join(".cowork/apps/bench");
    std::fs::create_dir_all(&app).expect("the app folder");
    let manifest =
        json!({ "name": "bench", "version": "1.0.0", "routines": { ROUTINE: "queue.ts" } });
    std::fs::write(app.join("cowork.json"), manifest.to_string()).expect("the manifest");
    std::fs::write(app.join("queue.ts"), SOURCE).expect("the routine");
    let ws = routine.engine.workspace(dir.path()).expect("the workspace opens");
    let args = json!({ "jobs": jobs, "mode": mode.name(), "batch": BATCH });
    let mut request = RunRequest::new(ROUTINE, args, Source::Cli);
    request.timeout_ms = Some(300_000);
    let result = match ws.run(request).await {
        Ok(ok) => ok.result,
        Err(failure) => panic!("the routine failed on {}: {failure:?}", routine.label),
    };
    assert_eq!(result["done"], json!(jobs), "every task came back once: {result}");
    Rate::new(jobs, millis(&result["ms"]), millis(&result["cpuMs"]))
}

/// A duration a script answered in (fractional) milliseconds.
fn millis(ms: &Value) -> Duration {
    Duration::from_secs_f64(ms.as_f64().expect("a time in milliseconds") / 1000.0)
}

/// Tasks per second through plainjob, or `None` when it is not installed.
fn peer(mode: Mode, jobs: usize) -> Option<Rate> {
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
    let answer: Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(answer["jobs"].as_u64(), Some(jobs as u64), "plainjob did every job once");
    Some(Rate::new(jobs, millis(&answer["ms"]), millis(&answer["cpuMs"])))
}

/// The 1, 5 and 15 minute load averages (the 2 cores are shared: the figures move with them).
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}
