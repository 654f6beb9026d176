//! Nothing a routine starts outlives its run — not even a grandchild that detached itself
//! (setsid) after its parent quit, which the tree kill once missed: it was reparented to init
//! before the tree was collected. The runtime is now its tree's subreaper and stays alive until
//! the tree is killed — even when the routine calls `process.exit` before returning.

mod runtime;

use cowork_core::paths::Root;
use cowork_engine::{Engine, EngineConfig, ErrorName, RunRequest, Source};
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

/// The same orphan, its pid written to `orphan.pid` in the workspace, then `process.exit(3)`
/// before the routine returns anything.
const ORPHAN_THEN_EXIT: &str = r#"import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
export default () => {
  const out = spawnSync("/bin/sh", ["-c", "setsid sleep 60 >/dev/null 2>&1 & echo $!"], { encoding: "utf8" });
  writeFileSync("orphan.pid", out.stdout.trim());
  process.exit(3);
  return "never";
};
"#;

/// Runs `source` as routine `orphans-make` of a fresh workspace; `None` when there is no runtime.
async fn run(source: &str) -> Option<(tempfile::TempDir, cowork_engine::RunResult)> {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let app = dir.path().join(".cowork/apps/orphans");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("cowork.json"),
        r#"{"name": "orphans", "version": "1.0.0", "routines": {"orphans-make": "make.ts"}}"#,
    )
    .unwrap();
    std::fs::write(app.join("make.ts"), source).unwrap();
    let config = EngineConfig { watch: false, ..EngineConfig::default() };
    let engine = Engine::new(Root::new(home.path()), config);
    if !runtime::available(&engine) {
        return None;
    }
    let ws = engine.workspace(dir.path()).unwrap();
    let outcome = ws.run(RunRequest::new("orphans-make", json!({}), Source::Cli)).await;
    Some((dir, outcome))
}

/// Fails unless `pid` is gone within two seconds.
fn assert_gone(pid: u64) {
    let deadline = Instant::now() + Duration::from_secs(2);
    while running(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!running(pid), "the detached grandchild {pid} outlived its run");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_grandchild_that_detached_after_its_parent_quit_dies_with_the_run() {
    let Some((_dir, outcome)) = run(ORPHAN_MAKER).await else { return };
    let ok = outcome.unwrap_or_else(|failure| panic!("the routine fails: {failure:?}"));
    assert_gone(ok.result.as_u64().expect("the orphan's pid"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_routine_that_calls_process_exit_leaves_no_orphan_and_fails_with_its_code() {
    let Some((dir, outcome)) = run(ORPHAN_THEN_EXIT).await else { return };
    let failure = outcome.expect_err("a routine that exits returns nothing");
    assert_eq!(failure.name, ErrorName::RoutineCrashed, "{failure:?}");
    assert!(
        failure.message.contains("exited (3) before returning a result"),
        "the message names the code the routine exited with: {}",
        failure.message
    );
    let pid = std::fs::read_to_string(dir.path().join("orphan.pid")).expect("the routine ran");
    assert_gone(pid.trim().parse().expect("a pid"));
}
