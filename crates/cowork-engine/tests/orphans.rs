//! Nothing a routine starts outlives its run — not even a grandchild that detached itself
//! (setsid) after its parent quit, which the tree kill once missed: it was reparented to init
//! before the tree was collected. The runtime is now its tree's subreaper and stays alive until
//! the tree is killed.

use cowork_core::paths::Root;
use cowork_engine::{Engine, EngineConfig, RunRequest, Source};
use serde_json::json;
use std::time::{Duration, Instant};

/// A shell that starts a detached `sleep` and quits at once: the sleep is orphaned while the
/// routine is still running, and the routine returns its pid.
const ORPHAN_MAKER: &str = r#"import { spawnSync } from "node:child_process";
export default () => {
  const out = spawnSync("/bin/sh", ["-c", "setsid sleep 60 >/dev/null 2>&1 & echo $!"], { encoding: "utf8" });
  return Number(out.stdout.trim());
};
"#;

/// Whether `pid` is running (a zombie waiting to be reaped is not).
fn running(pid: u64) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next());
    matches!(state, Some(s) if s != 'Z' && s != 'X')
}

#[tokio::test(flavor = "multi_thread")]
async fn a_grandchild_that_detached_after_its_parent_quit_dies_with_the_run() {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let app = dir.path().join(".cowork/apps/orphans");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("cowork.json"),
        r#"{"name": "orphans", "version": "1.0.0", "routines": {"orphans-make": "make.ts"}}"#,
    )
    .unwrap();
    std::fs::write(app.join("make.ts"), ORPHAN_MAKER).unwrap();
    let config = EngineConfig { watch: false, ..EngineConfig::default() };
    let engine = Engine::new(Root::new(home.path()), config);
    if engine.runtime().is_err() {
        eprintln!("skipped: no runtime");
        return;
    }
    let ws = engine.workspace(dir.path()).unwrap();
    let ok = ws
        .run(RunRequest::new("orphans-make", json!({}), Source::Cli))
        .await
        .unwrap_or_else(|failure| panic!("the routine fails: {failure:?}"));
    let orphan = ok.result.as_u64().expect("the orphan's pid");
    let deadline = Instant::now() + Duration::from_secs(2);
    while running(orphan) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!running(orphan), "the detached grandchild {orphan} outlived its run");
}
