//! A run's `ctx.queue` runs in the routine's own process on the task store's Node-API module
//! (cowork-queue-napi), which cargo builds beside this test; without it (`queue_in_process`
//! off) each call is a request to the engine, which holds one store from the run's first call to
//! its end (taken from the workspace's pool and given back), as `ctx.db` holds its connections.
//! Either way what it writes is on disk for every other process as each call returns.

mod runtime;

use cowork_core::paths::Root;
use cowork_engine::{Engine, EngineConfig, RunRequest, Source, Workspace};
use serde_json::{json, Value};
use std::sync::Arc;

/// Sends `n` tasks, then receives and acks them one call at a time; answers the ids it acked.
const WORKER: &str = r#"export default (args: any, ctx: any) => {
  const q = ctx.queue("inbox");
  for (let i = 0; i < args.n; i++) q.send(`task ${i}`);
  const acked = [];
  for (let t = q.receive({ as: "worker" }); t; t = q.receive({ as: "worker" })) {
    q.ack(t.id, t.receipt, { result: "done" });
    acked.push(t.id);
  }
  return acked;
};
"#;

struct Setup {
    engine: Arc<Engine>,
    ws: Arc<Workspace>,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

fn setup(queue_in_process: bool) -> Setup {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let app = dir.path().join(".cowork/apps/work");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("cowork.json"),
        r#"{"name": "work", "version": "1.0.0", "routines": {"work-queue": "work.ts"}}"#,
    )
    .unwrap();
    std::fs::write(app.join("work.ts"), WORKER).unwrap();
    let config =
        EngineConfig { watch: false, spares: false, queue_in_process, ..EngineConfig::default() };
    let engine = Engine::new(Root::new(home.path()), config);
    let ws = engine.workspace(dir.path()).unwrap();
    Setup { engine, ws, _dirs: (dir, home) }
}

impl Setup {
    async fn run(&self, n: u32) -> Value {
        let request = RunRequest::new("work-queue", json!({ "n": n }), Source::Cli);
        let ok = self.ws.run(request).await.unwrap_or_else(|f| panic!("the worker fails: {f:?}"));
        ok.result
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_runs_ctx_queue_runs_in_its_own_process_and_takes_no_engine_store() {
    let s = setup(true);
    if !runtime::available(&s.engine) {
        return;
    }
    let first = s.run(20).await;
    assert_eq!(first.as_array().map(Vec::len), Some(20), "{first}");
    let (a, b) = tokio::join!(s.run(5), s.run(6));
    let both = a.as_array().unwrap().len() + b.as_array().unwrap().len();
    assert_eq!(both, 11, "two processes at once on one file, each task acked once");
    // No call reached the engine: its pool never opened a store for a run.
    assert_eq!(s.ws.queues().idle(), 0, "a ctx.queue call went through the engine");
    let mut store = cowork_queue::Store::open(s.ws.root()).unwrap();
    let counts = store.counts("inbox").unwrap();
    assert_eq!((counts.done, counts.todo, counts.in_progress), (31, 0, 0));
    // The module was copied beside the runner, where a confined routine may read it.
    let runner = s.engine.root().cache_dir().join("runner");
    let copies = std::fs::read_dir(&runner).unwrap().flatten();
    let copies: Vec<_> = copies
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("queue-") && name.ends_with(".node"))
        .collect();
    assert_eq!(copies.len(), 1, "{copies:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_the_module_a_run_holds_one_engine_store_and_gives_it_back_to_the_pool() {
    let s = setup(false);
    if !runtime::available(&s.engine) {
        return;
    }
    assert_eq!(s.ws.queues().idle(), 0);
    let first = s.run(20).await;
    assert_eq!(first.as_array().map(Vec::len), Some(20), "{first}");
    // Given back when the run ended, and taken again by the next run.
    assert_eq!(s.ws.queues().idle(), 1);
    // Two runs at once (different arguments: identical requests in flight share one run).
    let (a, b) = tokio::join!(s.run(5), s.run(6));
    let both = a.as_array().unwrap().len() + b.as_array().unwrap().len();
    assert_eq!(both, 11, "two runs at once, each with its own store, acked every task once");
    assert!((1..=2).contains(&s.ws.queues().idle()));
    // Every ack is in the file for a process that opens it now.
    let mut store = cowork_queue::Store::open(s.ws.root()).unwrap();
    let counts = store.counts("inbox").unwrap();
    assert_eq!((counts.done, counts.todo, counts.in_progress), (31, 0, 0));
}
