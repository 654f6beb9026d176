//! `cowork status` and `cowork stop`.

use crate::exit::{CommandResult, Exit, Failure};
use cowork_core::paths::Root;
use cowork_daemon::client::{key_mode_json, Daemon, Found};
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
    let account = Account::read(&root);
    let confinement = cowork_engine::confine::Confinement::detect();
    let status = match &daemon {
        Some(daemon) => {
            daemon.get("/api/status").await.map_err(|e| Failure::new(Exit::NoDaemon, &e))?
        }
        None => json!(null),
    };
    if as_json {
        let out = json!({
            "version": env!("CARGO_PKG_VERSION"),
            "root": root.dir(),
            "running": daemon.is_some(),
            "notAnswering": not_answering.map(|(pid, port)| json!({ "pid": pid, "port": port })),
            "account": account.json(),
            "hub": account.hub,
            "secrets": key_mode_json(&key),
            "confinement": confinement,
            "secretsDiffer": daemon.as_ref().map(|_| secrets_differ(&key, &status).is_some()),
            "daemon": status,
        });
        outln!("{out}");
        return Ok(Exit::Ok);
    }
    outln!("cowork {}", env!("CARGO_PKG_VERSION"));
    outln!("root:    {}", root.dir().display());
    account.print();
    outln!("confine: {}", confinement.describe());
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
    let theirs = &status["secrets"];
    if theirs.is_object() {
        let text = theirs["problem"].as_str().or(theirs["detail"].as_str()).unwrap_or("?");
        outln!("daemon secrets: {} ({text})", theirs["mode"].as_str().unwrap_or("?"));
        if let Some(difference) = secrets_differ(&key, &status) {
            outln!("  {difference}");
        }
    }
    Ok(Exit::Ok)
}

/// What the running daemon reads the secret store's key from, when that is not what this shell
/// would (a `COWORK_SECRETS_KEY_FILE` set for one and not the other): the daemon's routines and
/// this shell's `cowork secrets` would then disagree about the store.
pub(super) fn secrets_differ(
    key: &cowork_secrets::KeyMode,
    daemon_status: &Value,
) -> Option<String> {
    let theirs = &daemon_status["secrets"];
    let same = theirs["mode"] == key.kind.as_str() && theirs["detail"] == key.detail.as_str();
    (theirs.is_object() && !same).then(|| {
        format!(
            "the running daemon reads the key from {}, and this shell from {}: start both with the same COWORK_SECRETS_KEY_FILE (or neither)",
            theirs["detail"].as_str().unwrap_or("?"),
            key.detail
        )
    })
}

fn print_daemon(status: &Value) {
    outln!(
        "daemon:  running (pid {}, http://127.0.0.1:{}, up {} s)",
        status["pid"],
        status["port"],
        status["uptimeS"]
    );
    let runtime = &status["runtime"];
    if runtime.is_object() {
        outln!(
            "runtime: {} {} ({})",
            runtime["kind"].as_str().unwrap_or("?"),
            runtime["version"].as_str().unwrap_or("?"),
            runtime["path"].as_str().unwrap_or("?")
        );
    } else {
        outln!("runtime: none — {}", status["runtimeError"].as_str().unwrap_or("not found"));
    }
    let queued = match status["slots"]["queued"].as_u64().unwrap_or(0) {
        0 => String::new(),
        n => format!(", {n} triggered run{} waiting for one", if n == 1 { "" } else { "s" }),
    };
    outln!("slots:   {} of {} in use{queued}", status["slots"]["used"], status["slots"]["max"]);
    print_spares(&status["spares"]);
    for ws in status["workspaces"].as_array().into_iter().flatten() {
        outln!(
            "workspace {}: {} apps, {} routines, badge {}",
            ws["path"].as_str().unwrap_or("?"),
            ws["apps"],
            ws["routines"],
            ws["badges"]["total"]
        );
        for n in ws["notifications"].as_array().into_iter().flatten().rev().take(5) {
            let body = n["body"].as_str().map(|b| format!(" — {b}")).unwrap_or_default();
            outln!(
                "  {}: {}{body}",
                n["appTitle"].as_str().unwrap_or("?"),
                n["title"].as_str().unwrap_or("?")
            );
        }
    }
}

/// The warm spares line, and one line per workspace that keeps some.
fn print_spares(spares: &Value) {
    if spares["enabled"] != Value::Bool(true) {
        outln!(
            "spares:  off (\"spares\": false in config.json): every run starts its runtime cold"
        );
        return;
    }
    let groups = spares["groups"].as_array().map(Vec::as_slice).unwrap_or_default();
    let waiting: u64 = groups.iter().filter_map(|g| g["waiting"].as_u64()).sum();
    outln!("spares:  {waiting} waiting (at most {})", spares["max"]);
    for group in groups {
        outln!(
            "  {}: {} waiting, {} starting, {} MB, {}",
            group["workspace"].as_str().unwrap_or("?"),
            group["waiting"],
            group["starting"],
            group["residentBytes"].as_u64().unwrap_or(0) >> 20,
            group["runtime"].as_str().unwrap_or("?")
        );
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
    // A stop lets running routines finish: say so, or the command looks hung for up to a timeout.
    if let Ok(status) = daemon.get("/api/status").await {
        // Queued runs are handed the slots the running ones free: they run before the stop.
        match status["slots"]["queued"].as_u64().unwrap_or(0) {
            0 => {}
            1 => eprintln!("1 triggered run waits for a slot: it runs before Cowork stops."),
            n => eprintln!("{n} triggered runs wait for a slot: they run before Cowork stops."),
        }
        match status["slots"]["used"].as_u64().unwrap_or(0) {
            0 => {}
            1 => eprintln!("Waiting for 1 running routine to finish (at the latest, its timeout ends it)…"),
            n => eprintln!("Waiting for {n} running routines to finish (at the latest, their timeouts end them)…"),
        }
    }
    match daemon.stop(Duration::from_secs(330)).await {
        Ok(true) => {
            outln!("Stopped Cowork (pid {}).", daemon.pid);
            Ok(Exit::Ok)
        }
        Ok(false) => Err(Failure::new(
            Exit::Failed,
            format!("Cowork (pid {}) is still running", daemon.pid),
        )
        .hint("routines in flight finish before it stops; try again, or end the process yourself")),
        Err(error) => Err(Failure::new(Exit::NoDaemon, &error).caused_by(&error)),
    }
}

/// The signed-in Cowork account as `status` shows it, read from this machine's files (no hub call).
struct Account {
    hub: Option<String>,
    signed_in: Option<cowork_account::SignedIn>,
    team_servers: Vec<cowork_wire::hub::TeamServerState>,
}

impl Account {
    fn read(root: &Root) -> Account {
        let session = cowork_account::Session::new(root);
        Account {
            hub: session.files().account().ok().and_then(|f| f.hub),
            signed_in: session.signed_in().ok().flatten(),
            team_servers: cowork_account::updates::known(&session).unwrap_or_default(),
        }
    }

    /// `null` when signed out.
    fn json(&self) -> Value {
        let Some(s) = &self.signed_in else { return Value::Null };
        let team_servers: Vec<Value> = self
            .team_servers
            .iter()
            .map(|t| json!({ "slug": t.slug, "name": t.name, "role": t.role }))
            .collect();
        json!({ "hub": s.hub, "user": s.user, "organization": s.organization, "method": s.method, "teamServers": team_servers })
    }

    fn print(&self) {
        match (&self.signed_in, &self.hub) {
            (Some(s), _) => {
                outln!("account: {} on {}", super::account::describe(s), s.hub);
                if !self.team_servers.is_empty() {
                    let list: Vec<String> = self
                        .team_servers
                        .iter()
                        .map(|t| format!("{} ({})", t.slug, t.role.as_str()))
                        .collect();
                    outln!("team servers: {}", list.join(", "));
                }
            }
            (None, Some(hub)) => outln!("account: signed out (hub {hub}: `cowork login`)"),
            (None, None) => outln!("account: signed out"),
        }
    }
}
