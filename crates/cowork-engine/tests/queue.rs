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

    /// Runs `source` as the app's only routine, `name`, without arguments; its result.
    async fn run_source(&self, name: &str, source: &str) -> Value {
        let app = self.ws.root().join(".cowork/apps/work");
        let manifest = json!({ "name": "work", "version": "1.0.0", "routines": { name: "r.ts" } });
        std::fs::write(app.join("cowork.json"), manifest.to_string()).unwrap();
        std::fs::write(app.join("r.ts"), source).unwrap();
        let request = RunRequest::new(name, json!({}), Source::Cli);
        let ok = self.ws.run(request).await.unwrap_or_else(|f| panic!("{name} fails: {f:?}"));
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

/// The same steps twice in one routine: the plain calls (`send(body)`, `receive({ as })`,
/// `ack(id, receipt)`, which take the module's typed verbs) and the same calls with an option
/// left undefined (which takes its JSON call, the request being the same once encoded). Answers
/// with what two runs of a step cannot share (ids, times, receipts) blanked, and each refusal as
/// its name and message.
const BOTH_DOORS: &str = r#"export default (args: any, ctx: any) => {
  const q = ctx.queue("inbox");
  const blank = (v: any): any => {
    if (Array.isArray(v)) return v.map(blank);
    if (v === null || typeof v !== "object") return v;
    const out: any = {};
    for (const [k, f] of Object.entries(v)) {
      out[k] = ["id", "created", "updated", "availableAt", "leaseUntil", "receipt"].includes(k) && f !== null ? "…" : blank(f);
    }
    return out;
  };
  const outcome = (f: () => any) => {
    try {
      return { ok: blank(f()) };
    } catch (e: any) {
      return { error: [e.name, e.message.replace(/task \d+/, "task …")] };
    }
  };
  const steps = (json: boolean) => {
    const none = json ? { subject: undefined } : undefined;
    const out: any[] = [];
    out.push(outcome(() => q.send("hi", none)));
    const as = json ? { as: "worker", mine: undefined } : { as: "worker" };
    const task = q.receive(as);
    out.push(blank(task));
    out.push(outcome(() => q.receive(json ? { mine: undefined } : {})));
    const finish = json ? { result: undefined } : undefined;
    out.push(outcome(() => q.ack(task.id, task.receipt, finish)));
    out.push(outcome(() => q.ack(task.id, task.receipt, finish)));
    out.push(outcome(() => q.ack(task.id, "", finish)));
    out.push(outcome(() => q.ack(999, "x", finish)));
    out.push(outcome(() => ctx.queue("no such").send("x", none)));
    out.push(outcome(() => ctx.queue("nowhere").receive(json ? { mine: undefined } : {})));
    return out;
  };
  return { typed: steps(false), json: steps(true) };
};
"#;

#[tokio::test(flavor = "multi_thread")]
async fn the_typed_verbs_answer_and_refuse_as_the_json_call_does_in_a_routine() {
    let s = setup(true);
    if !runtime::available(&s.engine) {
        return;
    }
    let result = s.run_source("both-doors", BOTH_DOORS).await;
    let (typed, by_json) = (&result["typed"], &result["json"]);
    assert_eq!(typed, by_json, "typed against JSON");
    let steps = typed.as_array().unwrap();
    assert_eq!(steps[0]["ok"]["status"], "todo", "{typed}");
    assert_eq!(steps[1]["holder"], "worker", "{typed}");
    assert_eq!(steps[2]["ok"], Value::Null, "nothing left: {typed}");
    assert_eq!(steps[3]["ok"]["status"], "done", "{typed}");
    let names: Vec<&Value> = steps[4..8].iter().map(|s| &s["error"][0]).collect();
    assert_eq!(
        names,
        ["StaleReceipt", "BadRequest", "NotFound", "BadRequest"]
            .map(Value::from)
            .iter()
            .collect::<Vec<_>>(),
        "{typed}"
    );
    assert_eq!(steps[8]["ok"], Value::Null, "no such queue: nothing to receive: {typed}");
    // No call reached the engine.
    assert_eq!(s.ws.queues().idle(), 0, "a ctx.queue call went through the engine");
}

/// Counts the JSON encodings a plain `send(body)`, `receive({ as })` and `ack(id, receipt)` make:
/// none on the module's typed verbs (a request's JSON is what they save). The module's `bind`
/// once answered the string "true", which the runner took for "no typed verbs", and every call
/// silently went through the JSON `call`.
const NO_JSON: &str = r#"export default (args: any, ctx: any) => {
  const q = ctx.queue("inbox");
  // The module is loaded and bound here, on the JSON call (an option named, though undefined).
  q.send("warm-up", { subject: undefined });
  const encode = JSON.stringify;
  let encoded = 0;
  JSON.stringify = (...a: any[]) => (encoded++, (encode as any)(...a));
  try {
    q.send("hi");
    const task = q.receive({ as: "worker" });
    q.ack(task.id, task.receipt);
  } finally {
    JSON.stringify = encode;
  }
  return { encoded, counts: q.counts() };
};
"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_runs_plain_send_receive_and_ack_take_the_typed_verbs() {
    let s = setup(true);
    if !runtime::available(&s.engine) {
        return;
    }
    let result = s.run_source("no-json", NO_JSON).await;
    let counts = &result["counts"];
    assert_eq!((&counts["done"], &counts["todo"]), (&json!(1), &json!(1)), "{result}");
    assert_eq!(result["encoded"], 0, "a plain verb went through the JSON call");
    assert_eq!(s.ws.queues().idle(), 0, "a ctx.queue call went through the engine");
}

/// A routine that works two queues through both of the module's paths (the typed verbs and the
/// JSON `call`), then counts the connections its own process holds to `queues.db`.
const CONNECTIONS: &str = r#"import { readdirSync, readlinkSync } from "node:fs";
export default (args: any, ctx: any) => {
  const a = ctx.queue("a"), b = ctx.queue("b");
  a.send("typed");
  a.sendMany([{ body: "through call" }]);
  b.send("another queue");
  const t = a.receive({ as: "w" });
  a.ack(t.id, t.receipt);
  const held = readdirSync("/proc/self/fd").filter((fd) => {
    try { return readlinkSync(`/proc/self/fd/${fd}`).endsWith("/.cowork/local/queues.db"); }
    catch { return false; }
  });
  return { held: held.length, counts: a.counts() };
};
"#;

/// One run, one connection: every `ctx.queue(name)` and both of the module's paths share the one
/// store the process opened, so no other connection commits between its transactions (each
/// such commit would make SQLite drop this connection's page cache).
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread")]
async fn a_run_holds_one_connection_to_the_store_whatever_path_its_calls_take() {
    let s = setup(true);
    if !runtime::available(&s.engine) {
        return;
    }
    let result = s.run_source("connections", CONNECTIONS).await;
    assert_eq!(result["held"], 1, "{result}");
    assert_eq!((&result["counts"]["done"], &result["counts"]["todo"]), (&json!(1), &json!(1)));
    assert_eq!(s.ws.queues().idle(), 0, "a ctx.queue call went through the engine");
}
