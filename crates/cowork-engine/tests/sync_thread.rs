//! A run answers its routine's synchronous requests (`ctx.db`, `ctx.queue`, `ctx.secrets`…) on a
//! thread of its own, started at the routine's first such request: a run that makes none (most of
//! them) starts no thread, and its outcome reaches the run without a hop through one. A run that
//! makes one gets the thread from then on, with every line it wrote before and after, in order.

mod runtime;

use cowork_core::paths::Root;
use cowork_engine::{Engine, EngineConfig, RunRequest, Source, Workspace};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// Waits `args.ms` (while the test looks at this process's threads), with a synchronous
/// `ctx.db` call before the wait when `args.db`; answers what it read back.
const ROUTINE: &str = r#"export default async (args: any, ctx: any) => {
  ctx.log("one");
  let rows = null;
  if (args.db) {
    const db = ctx.db("t.db");
    db.exec("CREATE TABLE IF NOT EXISTS t (v TEXT)");
    db.exec("INSERT INTO t (v) VALUES (?)", [args.db]);
    rows = db.query("SELECT v FROM t ORDER BY rowid").map((r: any) => r.v);
  }
  ctx.log("two");
  await new Promise((done) => setTimeout(done, args.ms));
  ctx.log("three");
  return rows;
};
"#;

/// The threads of this process that answer a run's synchronous requests.
fn sync_threads() -> usize {
    let tasks = std::fs::read_dir("/proc/self/task").expect("this process's threads");
    tasks
        .flatten()
        .filter(|task| {
            std::fs::read_to_string(task.path().join("comm"))
                .is_ok_and(|name| name.trim() == "cowork-run-sync")
        })
        .count()
}

/// Runs the routine with `args` while it counts [`sync_threads`] until the run is past its
/// synchronous calls and waiting; answers the run's result and the most threads seen.
async fn run_counting(ws: &Arc<Workspace>, args: Value) -> (Value, usize) {
    let run = tokio::spawn({
        let ws = ws.clone();
        async move { ws.run(RunRequest::new("wait", args, Source::Cli)).await }
    });
    let mut most = 0;
    while !run.is_finished() {
        most = most.max(sync_threads());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let result = run.await.unwrap().unwrap_or_else(|f| panic!("the run fails: {f:?}"));
    (result.result, most)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_starts_its_request_thread_only_at_its_first_synchronous_request() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let app = dir.path().join(".cowork/apps/wait");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("cowork.json"),
        r#"{"name": "wait", "version": "1.0.0", "routines": {"wait": "wait.ts"}}"#,
    )
    .unwrap();
    std::fs::write(app.join("wait.ts"), ROUTINE).unwrap();
    let config = EngineConfig { watch: false, spares: false, ..EngineConfig::default() };
    let engine = Engine::new(Root::new(home.path()), config);
    let ws = engine.workspace(dir.path()).unwrap();
    if !runtime::available(&engine) {
        return;
    }

    let (result, threads) = run_counting(&ws, json!({ "ms": 400 })).await;
    assert_eq!(result, Value::Null);
    assert_eq!(threads, 0, "a run with no synchronous request started a thread for them");

    let (result, threads) = run_counting(&ws, json!({ "ms": 400, "db": "a" })).await;
    assert_eq!(result, json!(["a"]), "the first synchronous request and the next are answered");
    assert_eq!(threads, 1, "its first synchronous request started the run's thread");
    let (result, _) = run_counting(&ws, json!({ "ms": 0, "db": "b" })).await;
    assert_eq!(result, json!(["a", "b"]));

    // The lines before the first synchronous request (read by the run) and after it (passed on
    // by the thread) are all in the run's log, in the order the routine wrote them.
    let audit = home.path().join("workspaces");
    let lines = walk(&audit).into_iter().filter(|p| p.extension().is_some_and(|e| e == "jsonl"));
    let records: Vec<Value> = lines
        .flat_map(|p| {
            std::fs::read_to_string(p).unwrap().lines().map(String::from).collect::<Vec<_>>()
        })
        .map(|line| serde_json::from_str(&line).unwrap())
        .collect();
    assert_eq!(records.len(), 3, "{records:?}");
    for record in &records {
        let text = record["log"].as_str().unwrap_or_default();
        let at = |word: &str| text.find(word).unwrap_or_else(|| panic!("no {word:?} in {record}"));
        assert!(at("one") < at("two") && at("two") < at("three"), "{record}");
    }
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .flatten()
        .flat_map(|e| if e.path().is_dir() { walk(&e.path()) } else { vec![e.path()] })
        .collect()
}
