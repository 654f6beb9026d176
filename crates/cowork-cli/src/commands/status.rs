//! `cowork status` and `cowork stop`.

use crate::exit::{CommandResult, Exit, Failure};
use cowork_core::paths::Root;
use cowork_daemon::discovery::Found;
use cowork_wire::daemon::status::{KeyModeView, SparesView, Status};
use serde_json::{json, Value};
use std::time::Duration;

/// What to do about a daemon that is alive but does not answer.
fn not_answering_hint(pid: u32) -> String {
    format!("`cowork start --headless --force` ends it and starts a new one, or end it yourself: kill -9 {pid}")
}

pub async fn status(as_json: bool) -> CommandResult {
    let root = Root::from_env();
    let (running, not_answering) = match cowork_daemon::discovery::find(&root).await {
        Found::Running(running) => (Some(running), None),
        Found::NotAnswering { pid, port } => (None, Some((pid, port))),
        Found::Nothing => (None, None),
    };
    let key = cowork_secrets::probe(&root);
    let account = Account::read(&root);
    let confinement = cowork_engine::confine::Confinement::detect();
    let status = match &running {
        Some(running) => {
            Some(running.daemon.status().await.map_err(|e| Failure::new(Exit::NoDaemon, &e))?)
        }
        None => None,
    };
    let theirs = status.as_ref().and_then(|status| status.secrets.as_ref());
    if as_json {
        let out = json!({
            "version": env!("CARGO_PKG_VERSION"),
            "root": root.dir(),
            "running": running.is_some(),
            "notAnswering": not_answering.map(|(pid, port)| json!({ "pid": pid, "port": port })),
            "account": account.json(),
            "hub": account.hub,
            "secrets": cowork_daemon::key_mode(&key),
            "confinement": confinement,
            "secretsDiffer": running.as_ref().map(|_| secrets_differ(&key, theirs).is_some()),
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
    let Some(status) = &status else {
        outln!("daemon:  not running (start it with `cowork start --headless`)");
        return Ok(Exit::Ok);
    };
    print_daemon(status);
    if let Some(theirs) = theirs {
        let text = theirs.problem.as_deref().unwrap_or(&theirs.detail);
        outln!("daemon secrets: {} ({text})", theirs.mode);
        if let Some(difference) = secrets_differ(&key, Some(theirs)) {
            outln!("  {difference}");
        }
    }
    Ok(Exit::Ok)
}

/// What the running daemon reads the secret store's key from (`theirs`), when that is not what
/// this shell would (a `COWORK_SECRETS_KEY_FILE` set for one and not the other): the daemon's
/// routines and this shell's `cowork secrets` would then disagree about the store.
pub(super) fn secrets_differ(
    key: &cowork_secrets::KeyMode,
    theirs: Option<&KeyModeView>,
) -> Option<String> {
    let theirs = theirs?;
    (!theirs.same_source(&cowork_daemon::key_mode(key))).then(|| {
        format!(
            "the running daemon reads the key from {}, and this shell from {}: start both with the same COWORK_SECRETS_KEY_FILE (or neither)",
            theirs.detail, key.detail
        )
    })
}

fn print_daemon(status: &Status) {
    outln!(
        "daemon:  running (pid {}, http://127.0.0.1:{}, up {} s)",
        status.pid,
        status.port,
        status.uptime_s
    );
    match &status.runtime {
        Some(runtime) => {
            outln!("runtime: {} {} ({})", runtime.kind, runtime.version, runtime.path.display())
        }
        None => {
            outln!("runtime: none — {}", status.runtime_error.as_deref().unwrap_or("not found"))
        }
    }
    let queued = match status.slots.queued {
        0 => String::new(),
        n => format!(", {n} triggered run{} waiting for one", if n == 1 { "" } else { "s" }),
    };
    outln!("slots:   {} of {} in use{queued}", status.slots.used, status.slots.max);
    print_spares(&status.spares);
    for ws in &status.workspaces {
        outln!(
            "workspace {}: {} apps, {} routines, badge {}",
            ws.path.display(),
            ws.apps,
            ws.routines,
            ws.badges.total
        );
        for n in ws.notifications.iter().rev().take(5) {
            let body = n.body.as_deref().map(|b| format!(" — {b}")).unwrap_or_default();
            outln!("  {}: {}{body}", n.app_title, n.title);
        }
    }
}

/// The warm spares line, and one line per workspace that keeps some.
fn print_spares(spares: &SparesView) {
    if !spares.enabled {
        outln!(
            "spares:  off (\"spares\": false in config.json): every run starts its runtime cold"
        );
        return;
    }
    let waiting: usize = spares.groups.iter().map(|g| g.waiting).sum();
    outln!("spares:  {waiting} waiting (at most {})", spares.max);
    for group in &spares.groups {
        outln!(
            "  {}: {} waiting, {} starting, {} MB, {}",
            group.workspace.display(),
            group.waiting,
            group.starting,
            group.resident_bytes >> 20,
            group.runtime.display()
        );
    }
}

pub async fn stop() -> CommandResult {
    let root = Root::from_env();
    let running = match cowork_daemon::discovery::find(&root).await {
        Found::Running(running) => running,
        Found::NotAnswering { pid, .. } => {
            return Err(Failure::new(Exit::NoDaemon, format!("Cowork's daemon (pid {pid}) is running but does not answer, so it cannot be asked to stop")).hint(not_answering_hint(pid)));
        }
        Found::Nothing => {
            outln!("Cowork is not running.");
            return Ok(Exit::Ok);
        }
    };
    // A stop lets running routines finish: say so, or the command looks hung for up to a timeout.
    if let Ok(status) = running.daemon.status().await {
        // Queued runs are handed the slots the running ones free: they run before the stop.
        match status.slots.queued {
            0 => {}
            1 => eprintln!("1 triggered run waits for a slot: it runs before Cowork stops."),
            n => eprintln!("{n} triggered runs wait for a slot: they run before Cowork stops."),
        }
        match status.slots.used {
            0 => {}
            1 => eprintln!("Waiting for 1 running routine to finish (at the latest, its timeout ends it)…"),
            n => eprintln!("Waiting for {n} running routines to finish (at the latest, their timeouts end them)…"),
        }
    }
    match running.stop(Duration::from_secs(330)).await {
        Ok(true) => {
            outln!("Stopped Cowork (pid {}).", running.pid);
            Ok(Exit::Ok)
        }
        Ok(false) => Err(Failure::new(
            Exit::Failed,
            format!("Cowork (pid {}) is still running", running.pid),
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
