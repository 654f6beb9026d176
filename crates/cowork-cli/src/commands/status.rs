//! `cowork status` and `cowork stop`.

use crate::exit::{CommandResult, Exit, Failure};
use cowork_core::paths::Root;
use cowork_daemon::client::{Daemon, Found};
use serde_json::{json, Value};
use std::time::Duration;

/// What to do about a daemon that is alive but does not answer.
fn not_answering_hint(pid: u32) -> String {
    format!("`cowork start --headless --force` ends it and starts a new one, or end it yourself: kill -9 {pid}")
}

pub async fn status(as_json: bool) -> CommandResult {
    let root = Root::from_env();
    let (daemon, not_answering) = match Daemon::find(&root).await {
        Found::Running(daemon) => (Some(daemon), None),
        Found::NotAnswering { pid, port } => (None, Some((pid, port))),
        Found::Nothing => (None, None),
    };
    let key = cowork_secrets::probe(&root);
    let status = match &daemon {
        Some(daemon) => daemon.get("/api/status").await.map_err(|e| Failure::new(Exit::NoDaemon, &e))?,
        None => json!(null),
    };
    if as_json {
        let out = json!({
            "version": env!("CARGO_PKG_VERSION"),
            "root": root.dir(),
            "running": daemon.is_some(),
            "notAnswering": not_answering.map(|(pid, port)| json!({ "pid": pid, "port": port })),
            "account": null,
            "secrets": { "mode": key.kind.as_str(), "detail": key.detail, "ok": key.ok, "problem": key.problem },
            "daemon": status,
        });
        outln!("{out}");
        return Ok(Exit::Ok);
    }
    outln!("cowork {}", env!("CARGO_PKG_VERSION"));
    outln!("root:    {}", root.dir().display());
    outln!("account: signed out");
    match &key.problem {
        None => outln!("secrets: {} ({})", key.kind, key.detail),
        Some(problem) => outln!("secrets: {} — {problem}", key.kind),
    }
    if let Some((pid, port)) = not_answering {
        outln!("daemon:  not answering (pid {pid}, http://127.0.0.1:{port})");
        outln!("hint: {}", not_answering_hint(pid));
        return Ok(Exit::Ok);
    }
    let Some(_) = daemon else {
        outln!("daemon:  not running (start it with `cowork start --headless`)");
        return Ok(Exit::Ok);
    };
    print_daemon(&status);
    Ok(Exit::Ok)
}

fn print_daemon(status: &Value) {
    outln!("daemon:  running (pid {}, http://127.0.0.1:{}, up {} s)", status["pid"], status["port"], status["uptimeS"]);
    let runtime = &status["runtime"];
    if runtime.is_object() {
        outln!("runtime: {} {} ({})", runtime["kind"].as_str().unwrap_or("?"), runtime["version"].as_str().unwrap_or("?"), runtime["path"].as_str().unwrap_or("?"));
    } else {
        outln!("runtime: none — {}", status["runtimeError"].as_str().unwrap_or("not found"));
    }
    outln!("slots:   {} of {} in use", status["slots"]["used"], status["slots"]["max"]);
    for ws in status["workspaces"].as_array().into_iter().flatten() {
        outln!("workspace {}: {} apps, {} routines, badge {}", ws["path"].as_str().unwrap_or("?"), ws["apps"], ws["routines"], ws["badges"]["total"]);
        for n in ws["notifications"].as_array().into_iter().flatten().rev().take(5) {
            let body = n["body"].as_str().map(|b| format!(" — {b}")).unwrap_or_default();
            outln!("  {}: {}{body}", n["appTitle"].as_str().unwrap_or("?"), n["title"].as_str().unwrap_or("?"));
        }
    }
}

pub async fn stop() -> CommandResult {
    let root = Root::from_env();
    let daemon = match Daemon::find(&root).await {
        Found::Running(daemon) => daemon,
        Found::NotAnswering { pid, .. } => {
            return Err(Failure::new(Exit::NoDaemon, format!("Cowork's daemon (pid {pid}) is running but does not answer, so it cannot be asked to stop")).hint(not_answering_hint(pid)));
        }
        Found::Nothing => {
            outln!("Cowork is not running.");
            return Ok(Exit::Ok);
        }
    };
    match daemon.stop(Duration::from_secs(330)).await {
        Ok(true) => {
            outln!("Stopped Cowork (pid {}).", daemon.pid);
            Ok(Exit::Ok)
        }
        Ok(false) => Err(Failure::new(Exit::Failed, format!("Cowork (pid {}) is still running", daemon.pid)).hint("routines in flight finish before it stops; try again, or end the process yourself")),
        Err(error) => Err(Failure::new(Exit::NoDaemon, &error).caused_by(&error)),
    }
}
