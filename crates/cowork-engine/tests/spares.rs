//! Warm spares keep "a fresh process per run": a spare serves one run and exits, an edited routine
//! applies on the next run, nothing of one run (its environment, its token, its globals) reaches
//! another, a spare is confined as a cold start is, and with spares off every run starts cold.

mod runtime;

use cowork_core::paths::Root;
use cowork_engine::confine::Confinement;
use cowork_engine::{Engine, EngineConfig, RunRequest, Source, Workspace};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What each run reports about its process: its pid, the COWORK_ variables it sees, a variable
/// and a global the previous run may have left, and whether it could read the Cowork root.
const PROBE: &str = r#"import fs from "node:fs";
export default (args: any) => {
  const seen = { pid: process.pid, leftEnv: process.env.LEFT_BY_A ?? null, leftGlobal: (globalThis as any).leftByA ?? null,
    cowork: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("COWORK"))),
    version: "v1", rootReadable: null as null | boolean, uptime: process.uptime() };
  if (args.root) { try { fs.readdirSync(args.root); seen.rootReadable = true; } catch { seen.rootReadable = false; } }
  process.env.LEFT_BY_A = "a"; (globalThis as any).leftByA = "a";
  return seen;
};
"#;

struct Setup {
    engine: Arc<Engine>,
    ws: Arc<Workspace>,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

fn setup(spares: bool) -> Setup {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let app = dir.path().join(".cowork/apps/probe");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("cowork.json"),
        r#"{"name": "probe", "version": "1.0.0", "routines": {"probe-run": "run.ts"}}"#,
    )
    .unwrap();
    std::fs::write(app.join("run.ts"), PROBE).unwrap();
    let config = EngineConfig { watch: false, spares, ..EngineConfig::default() };
    let engine = Engine::new(Root::new(home.path()), config);
    let ws = engine.workspace(dir.path()).unwrap();
    Setup { engine, ws, _dirs: (dir, home) }
}

impl Setup {
    async fn run(&self, args: Value) -> (Value, String) {
        let ok = self
            .ws
            .run(RunRequest::new("probe-run", args, Source::Cli))
            .await
            .unwrap_or_else(|failure| panic!("the probe fails: {failure:?}"));
        (ok.result, ok.run_id)
    }

    /// The pid of the spare the next run will claim, once one is waiting (None after 10 s).
    async fn next_spare(&self) -> Option<u32> {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            let view = self.engine.spares();
            if let Some(pid) = view.groups.iter().find_map(|g| g.pids.last().copied()) {
                return Some(pid);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        None
    }
}

/// Whether `pid` is gone (reaped) within a second: a run answers once its process tree is killed,
/// and the kernel's teardown and the reap follow.
async fn gone(pid: u64) -> bool {
    for _ in 0..100 {
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread")]
async fn a_spare_serves_one_run_and_carries_nothing_of_the_run_before() {
    let s = setup(true);
    if !runtime::available(&s.engine) {
        return;
    }
    let (a, run_a) = s.run(json!({})).await;
    let spare = s.next_spare().await.expect("a spare is started after a run");
    let (b, run_b) = s.run(json!({})).await;
    // The waiting process served run B: it was started before B was asked for, by nobody's run.
    assert_eq!(b["pid"], json!(spare), "run B ran in the spare");
    assert_ne!(a["pid"], b["pid"], "two runs never share a process");
    assert!(gone(a["pid"].as_u64().unwrap()).await, "run A's process is gone");
    // Nothing of run A: not its environment, not its globals, not its run id; no token at all.
    assert_eq!(b["leftEnv"], Value::Null);
    assert_eq!(b["leftGlobal"], Value::Null);
    let workspace = s.ws.root().display().to_string();
    assert_eq!(b["cowork"], json!({ "COWORK_RUN_ID": run_b, "COWORK_WORKSPACE": workspace }));
    assert_eq!(a["cowork"], json!({ "COWORK_RUN_ID": run_a, "COWORK_WORKSPACE": workspace }));
    // And it served only that run: its process is gone too.
    assert!(gone(spare.into()).await, "the spare exited after its one run");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edited_routine_applies_on_the_next_run_with_spares_on() {
    let s = setup(true);
    if !runtime::available(&s.engine) {
        return;
    }
    assert_eq!(s.run(json!({})).await.0["version"], "v1");
    let spare = s.next_spare().await.expect("a spare is waiting");
    let file = s.ws.root().join(".cowork/apps/probe/run.ts");
    std::fs::write(&file, PROBE.replace("\"v1\"", "\"v2\"")).unwrap();
    let (after, _) = s.run(json!({})).await;
    assert_eq!(
        after["pid"],
        json!(spare),
        "the run was served by the spare started before the edit"
    );
    assert_eq!(after["version"], "v2");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_spare_is_confined_as_a_cold_start_is() {
    let s = setup(true);
    if !runtime::available(&s.engine) {
        return;
    }
    let root = s.engine.root().dir().display().to_string();
    let (cold, _) = s.run(json!({ "root": root })).await;
    let spare = s.next_spare().await.expect("a spare is waiting");
    let (warm, _) = s.run(json!({ "root": root })).await;
    assert_eq!(warm["pid"], json!(spare));
    assert_eq!(warm["rootReadable"], cold["rootReadable"]);
    if matches!(Confinement::detect(), Confinement::Landlock { .. }) {
        assert_eq!(warm["rootReadable"], json!(false), "the Cowork root is out of a spare's reach");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn with_spares_off_every_run_starts_cold() {
    let s = setup(false);
    if !runtime::available(&s.engine) {
        return;
    }
    for _ in 0..3 {
        // Started for this run: the process is younger than the request.
        let asked = Instant::now();
        let (seen, _) = s.run(json!({ "uptime": true })).await;
        let uptime = Duration::from_secs_f64(seen["uptime"].as_f64().unwrap());
        assert!(uptime <= asked.elapsed(), "{uptime:?} > {:?}", asked.elapsed());
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let view = s.engine.spares();
    assert!(!view.enabled);
    assert!(view.groups.is_empty(), "no process is kept waiting: {view:?}");
}
