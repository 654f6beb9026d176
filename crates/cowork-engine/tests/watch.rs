//! The registry follows the workspace on disk: an edit shows within 250 ms, and a routine file
//! edited between two runs runs as edited.

use cowork_core::paths::Root;
use cowork_engine::{Engine, EngineConfig, RunRequest, Source};
use serde_json::json;
use std::time::{Duration, Instant};

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// How long until `check` holds, or None after 2 s.
fn time_until(mut check: impl FnMut() -> bool) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(2) {
        if check() {
            return Some(started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    None
}

#[tokio::test(flavor = "multi_thread")]
async fn the_registry_reflects_an_edit_within_250_ms() {
    let ws = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let engine = Engine::new(Root::new(home.path()), EngineConfig::default());
    let workspace = engine.workspace(ws.path()).unwrap();
    assert!(workspace.registry().apps.is_empty());

    // A new app (its .cowork folder did not even exist when watching began).
    let manifest = ws.path().join(".cowork/apps/clock/cowork.json");
    write(&ws.path().join(".cowork/apps/clock/now.ts"), "export default () => 'v1';\n");
    write(
        &manifest,
        r#"{"name": "clock", "version": "1.0.0", "routines": {"clock-now": "now.ts"}}"#,
    );
    let took = time_until(|| workspace.registry().routine("clock-now").is_some())
        .expect("the new app is registered");
    assert!(took < Duration::from_millis(250), "took {took:?}");

    // A changed manifest.
    write(
        &manifest,
        r#"{"name": "clock", "version": "1.1.0", "routines": {"clock-now": "now.ts", "clock-later": "now.ts"}}"#,
    );
    let took = time_until(|| workspace.registry().routine("clock-later").is_some())
        .expect("the change is seen");
    assert!(took < Duration::from_millis(250), "took {took:?}");

    // workspace.json switches an app off.
    write(
        &ws.path().join(".cowork/workspace.json"),
        r#"{"disabled": {"apps": [".cowork/apps/clock"]}}"#,
    );
    let took = time_until(|| workspace.registry().routine("clock-now").is_some_and(|r| r.disabled))
        .expect("switched off");
    assert!(took < Duration::from_millis(250), "took {took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_routine_edit_applies_on_the_next_run() {
    let ws = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let file = ws.path().join(".cowork/apps/clock/now.ts");
    write(&file, "export default () => 'v1';\n");
    write(
        &ws.path().join(".cowork/apps/clock/cowork.json"),
        r#"{"name": "clock", "version": "1.0.0", "routines": {"clock-now": "now.ts"}}"#,
    );
    std::env::set_var("COWORK_RUNTIME", "node");
    let engine = Engine::new(
        Root::new(home.path()),
        EngineConfig { watch: false, ..EngineConfig::default() },
    );
    let workspace = engine.workspace(ws.path()).unwrap();
    let run = || workspace.run(RunRequest::new("clock-now", json!({}), Source::Cli));
    assert_eq!(run().await.unwrap().result, json!("v1"));
    write(&file, "export default () => 'v2';\n");
    assert_eq!(run().await.unwrap().result, json!("v2"));
}

#[tokio::test(flavor = "multi_thread")]
async fn reading_the_apps_is_not_an_edit() {
    let ws = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let widget = ws.path().join(".cowork/apps/clock/clock.jsx");
    write(
        &ws.path().join(".cowork/apps/clock/cowork.json"),
        r#"{"name": "clock", "version": "1.0.0", "entry": "clock.jsx"}"#,
    );
    write(&widget, "export default () => null\n");
    let engine = Engine::new(Root::new(home.path()), EngineConfig::default());
    let workspace = engine.workspace(ws.path()).unwrap();
    let mut events = engine.subscribe();
    // The daemon reads manifests and widgets on every load: that must not look like an edit, or
    // each reload would cause the next.
    tokio::time::sleep(Duration::from_millis(200)).await;
    while events.try_recv().is_ok() {}
    for _ in 0..5 {
        std::fs::read(&widget).unwrap();
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut from_the_watcher = 0;
    while let Ok(event) = events.try_recv() {
        if matches!(
            event,
            cowork_engine::Event::Widget { .. } | cowork_engine::Event::Registry { .. }
        ) {
            from_the_watcher += 1;
        }
    }
    assert_eq!(from_the_watcher, 0, "no reloads without an edit");
    assert_eq!(workspace.registry().apps.len(), 1);
}
