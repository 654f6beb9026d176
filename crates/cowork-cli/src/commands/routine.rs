//! `cowork routine run|list|runs|active`.
//!
//! `run` goes through the running daemon when there is one (its slots, its in-flight sharing, its
//! notification hub); without one it runs the same engine in this process, so a server needs no
//! daemon just to run a routine once. `list` and `runs` read the workspace and the audit log
//! directly: they work whether or not anything is running.

use crate::cli::{OnOff, RoutineCommand, RunsArgs, RunsCommand, StatusFilter, WorkspaceArg};
use crate::exit::{CommandResult, Exit, Failure};
use crate::{table, workspace};
use cowork_core::audit::{self, AuditLog, Query, Record, Status};
use cowork_core::error_name::ErrorName;
use cowork_core::paths::Root;
use cowork_core::registry::{self, Kind, Risk, RoutineEntry, SwitchedOff};
use cowork_core::shell;
use cowork_core::triggers::arming::{self, Armed, Arming, SwitchError};
use cowork_core::triggers::deployments::{self, Deployment};
use cowork_engine::{run_answer, Engine, EngineConfig, RunFailure, RunRequest, Source, Stop};
use cowork_wire::daemon::runs::{RunAnswer, RunBody};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

pub async fn run(command: RoutineCommand) -> CommandResult {
    match command {
        RoutineCommand::Run { id, args, timeout_ms, json, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            run_one(&ws, &id, args.as_deref(), timeout_ms, json).await
        }
        RoutineCommand::List { json, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            list(&ws, json)
        }
        RoutineCommand::Runs(mut args) => match args.team_server.take() {
            Some(team_server) => super::team_server::runs(team_server, args).await,
            None => runs(args),
        },
        RoutineCommand::Active { id, switch, json, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            active(&ws, &id, switch == OnOff::On, json)
        }
    }
}

/// `cowork routine active <id> on|off`: the Active switch, as Manage › Workflows draws it. `on`
/// arms the routine's triggers as `workspace.json` declares them now, which is also how the owner
/// confirms a routine changed since armed.
fn active(ws: &Path, id: &str, on: bool, as_json: bool) -> CommandResult {
    let quoted = shell::quote(&ws.display().to_string());
    let switched =
        arming::switch_routine(&Root::from_env(), ws, id, on, None).map_err(|e| match e {
            SwitchError::NotFound(_) => {
                Failure::new(Exit::NotFound, &e).hint(not_found_hint(ws, id))
            }
            SwitchError::NoTrigger(_) => Failure::new(Exit::Usage, &e).hint(format!(
                "give it one first: cowork deploy add {id} --schedule \"0 6 * * *\" (or --webhook, or --notifications <app>) --workspace {quoted}"
            )),
            SwitchError::ChangedAgain { .. } | SwitchError::Arming(_) => {
                Failure::new(Exit::Failed, &e)
            }
        })?;
    let state = switched.state.to_string();
    if as_json {
        outln!("{}", json!({ "ok": true, "id": id, "active": switched.active, "state": state }));
        return Ok(Exit::Ok);
    }
    outln!("{id}: {state}");
    if let Some(change) = &switched.confirmed {
        outln!("Confirmed what changed since it was armed ({change}).");
    }
    if let Some(digest) = &switched.digest {
        outln!("Armed as: {digest}. Any later change to it in .cowork/workspace.json stops it until you confirm it again (this command).");
    }
    if !switched.also_firing.is_empty() {
        let verb = if switched.also_firing.len() == 1 { "fires" } else { "fire" };
        outln!(
            "This workspace's triggers were off: {} {verb} again too, as armed before (`cowork deploy triggers off` stops them all).",
            switched.also_firing.join(", ")
        );
    }
    if on && !switched.state.is_active() {
        outln!("hint: it is switched off; `cowork app list` shows what switched it off");
    }
    Ok(Exit::Ok)
}

/// The workspace's armed state, for listing; a damaged file arms nothing (said once on stderr).
pub fn armed_state(ws: &Path) -> Armed {
    Arming::new(&Root::from_env(), ws).read().unwrap_or_else(|error| {
        eprintln!("warning: {error}");
        Armed::default()
    })
}

/// Which agent, if any, is running this CLI — recorded as the audit line's `agent`.
fn agent() -> Option<String> {
    if let Ok(agent) = std::env::var("COWORK_AGENT") {
        return Some(agent).filter(|a| !a.is_empty());
    }
    if std::env::var_os("CLAUDECODE").is_some() {
        return Some("claude-code".into());
    }
    std::env::var_os("CODEX_SANDBOX").map(|_| "codex".into())
}

fn parse_args(raw: Option<&str>) -> Result<Value, Failure> {
    let text = match raw {
        None => return Ok(json!({})),
        Some("-") => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map_err(|e| {
                Failure::new(Exit::Usage, format!("failed to read --args from stdin: {e}"))
            })?;
            if text.trim().is_empty() {
                return Err(Failure::new(Exit::Usage, "--args - read nothing from stdin").hint(
                    r#"pipe the JSON in: echo '{"title":"Hi"}' | cowork routine run <id> --args -"#,
                ));
            }
            return serde_json::from_str(&text).map_err(|e| {
                Failure::new(
                    Exit::Usage,
                    format!("the --args read from stdin are not valid JSON: {e}"),
                )
            });
        }
        Some(text) => text,
    };
    serde_json::from_str(text).map_err(|e| {
        Failure::new(Exit::Usage, format!("--args is not valid JSON: {e}"))
            .hint(r#"quote it for the shell: --args '{"title":"Hi"}', or pipe it in with --args -"#)
    })
}

async fn run_one(
    ws: &Path,
    id: &str,
    raw_args: Option<&str>,
    timeout_ms: Option<u64>,
    as_json: bool,
) -> CommandResult {
    let args = parse_args(raw_args)?;
    if timeout_ms.is_some_and(|ms| ms == 0 || ms > 300_000) {
        return Err(Failure::new(Exit::Usage, "--timeout-ms is from 1 to 300000 (300 s)"));
    }
    let root = Root::from_env();
    let answer: RunAnswer = match cowork_daemon::discovery::discover(&root).await {
        Some(running) => {
            let body = RunBody {
                workspace: ws.to_path_buf(),
                id: id.to_string(),
                args,
                timeout_ms,
                agent: agent(),
            };
            // The run belongs to the daemon: leaving it (Ctrl-C) stops waiting, not the routine.
            tokio::select! {
                answer = running.daemon.run(&body) => answer.map_err(super::daemon_failure)?,
                signal = stop_signal() => {
                    return Err(Failure::new(Exit::Interrupted, format!("stopped waiting for {id} ({signal}); it goes on running in the daemon"))
                        .hint(format!("its result, once it ends: cowork routine runs --workspace {}", shell::quote(&ws.display().to_string()))));
                }
            }
        }
        None => {
            let account = cowork_daemon::account::AccountHost::new(&root);
            let engine = Engine::new(
                root,
                EngineConfig { watch: false, long_lived: false, ..EngineConfig::default() },
            );
            engine.set_account(account.clone());
            let workspace = engine.workspace(ws).map_err(|e| match &e {
                cowork_engine::EngineError::Symlinked(link) => Failure::new(Exit::Failed, &e)
                    .named(ErrorName::SymlinkedFolder)
                    .hint(link.hint()),
                _ => Failure::new(Exit::NotFound, &e),
            })?;
            let mut request = RunRequest::new(id, args, Source::Cli);
            request.timeout_ms = timeout_ms;
            request.agent = agent();
            let stop = Stop::new();
            request.stop = Some(stop.clone());
            // The routine runs in a process group of its own, so the terminal's Ctrl-C reaches only
            // this process: it stops the run, which ends the routine's whole process tree and
            // writes its record (`Stopped`). A second signal leaves without waiting for that.
            let run = workspace.run(request);
            tokio::pin!(run);
            let outcome = tokio::select! {
                outcome = &mut run => outcome,
                signal = stop_signal() => {
                    stop.stop(signal);
                    tokio::select! {
                        outcome = &mut run => outcome,
                        signal = stop_signal() => {
                            return Err(Failure::new(Exit::Interrupted, format!("{id} was stopped ({signal} twice): its processes were ended before its record was written")));
                        }
                    }
                }
            };
            // A run of an app installed from a team server is reported there; what the hub does
            // not take in a few seconds waits for the daemon or the next run.
            account.flush(std::time::Duration::from_secs(5)).await;
            run_answer(outcome)
        }
    };
    match answer {
        RunAnswer::Ran { .. } if as_json => {
            outln!("{}", serde_json::to_string(&answer).expect("a run's answer serializes"));
            Ok(Exit::Ok)
        }
        RunAnswer::Ran { result, warnings, .. } => {
            for warning in warnings {
                eprintln!("warning: {warning}");
            }
            outln!("{}", serde_json::to_string_pretty(&result).expect("JSON values serialize"));
            Ok(Exit::Ok)
        }
        RunAnswer::Failed { ok, mut error } => {
            let failure = describe_failure(ws, id, &error.failure);
            if !as_json {
                return Err(failure);
            }
            // The same `hint:` the text mode prints, so a program can show it too.
            let exit = exit_for(&error.failure);
            error.hint = failure.hint;
            let answer = RunAnswer::Failed { ok, error };
            outln!("{}", serde_json::to_string(&answer).expect("a run's answer serializes"));
            Ok(exit)
        }
    }
}

/// Waits for Ctrl-C (SIGINT) or SIGTERM; names which came.
#[cfg(unix)]
async fn stop_signal() -> &'static str {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut interrupt), Ok(mut terminate)) =
        (signal(SignalKind::interrupt()), signal(SignalKind::terminate()))
    else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = interrupt.recv() => "Ctrl-C",
        _ = terminate.recv() => "SIGTERM",
    }
}

#[cfg(not(unix))]
async fn stop_signal() -> &'static str {
    match tokio::signal::ctrl_c().await {
        Ok(()) => "Ctrl-C",
        Err(_) => std::future::pending().await,
    }
}

fn exit_for(failure: &RunFailure) -> Exit {
    if failure.name == ErrorName::NotFound && failure.run_id.is_none() {
        Exit::NotFound
    } else if failure.name == ErrorName::Stopped {
        Exit::Interrupted
    } else {
        Exit::Failed
    }
}

fn describe_failure(ws: &Path, id: &str, failure: &RunFailure) -> Failure {
    match &failure.run_id {
        Some(run_id) => Failure::new(
            exit_for(failure),
            format!("{id} failed: {}: {}", failure.name, failure.message),
        )
        .hint(format!(
            "its log and input: cowork routine runs show {} --workspace {}",
            &run_id[..8.min(run_id.len())],
            shell::quote(&ws.display().to_string())
        )),
        None => {
            let code =
                if failure.name == ErrorName::NotFound { Exit::NotFound } else { Exit::Failed };
            let hint = match failure.name {
                ErrorName::NotFound => not_found_hint(ws, id),
                ErrorName::RoutineDisabled => switched_off_hint(ws, id),
                ErrorName::TooManyRoutines => {
                    "wait for a routine to finish, or start the daemon with more --slots".into()
                }
                _ => String::new(),
            };
            let failure_line = Failure::new(code, format!("{}: {}", failure.name, failure.message));
            if hint.is_empty() {
                failure_line
            } else {
                failure_line.hint(hint)
            }
        }
    }
}

/// What to do about a routine id that is not registered: the manifest problem that dropped it,
/// else the workspace that has no apps, else where its routines are listed.
pub fn not_found_hint(ws: &Path, id: &str) -> String {
    let registry = registry::load(ws);
    if registry.why_not_registered(id).is_some() {
        return "fix the manifest entry; `cowork app list` shows every manifest's problems".into();
    }
    // A manifest that did not load (not JSON, say) registers none of its routines and cannot say
    // which it has: the likeliest is the app the id is named after (`notes-list`, `notes`).
    let named_after = |dir: &str| {
        let folder = dir.rsplit('/').next().unwrap_or(dir);
        id.strip_prefix(folder).is_some_and(|rest| rest.starts_with('-'))
    };
    if let Some(broken) = registry.broken.iter().find(|b| named_after(&b.dir)) {
        let why = broken.problems.first().map(|p| format!(" ({p})")).unwrap_or_default();
        return format!("its app may be {}, whose manifest did not load{why}: fix it; `cowork app list` shows every manifest's problems", broken.dir);
    }
    if !registry.broken.is_empty() {
        let dirs: Vec<&str> = registry.broken.iter().map(|b| b.dir.as_str()).collect();
        return format!("these app folders did not load, so none of their routines is registered: {}; `cowork app list` shows why", dirs.join(", "));
    }
    workspace::no_apps_hint(ws).unwrap_or_else(|| {
        format!(
            "`cowork routine list --workspace {}` shows its routines",
            shell::quote(&ws.display().to_string())
        )
    })
}

/// How to switch a refused routine back on: by its app, its id or its file — whichever is off.
fn switched_off_hint(ws: &Path, id: &str) -> String {
    let registry = registry::load(ws);
    if registry.config.switches_unreadable.is_some() {
        return "fix .cowork/workspace.json (git diff shows what changed in it); until then no routine here runs".into();
    }
    match registry.switched_off(id) {
        Some(SwitchedOff::App(app)) => format!(
            "switch its app back on: `cowork app enable {} --workspace {}`",
            app.folder,
            shell::quote(&ws.display().to_string())
        ),
        Some(SwitchedOff::Routine) => format!(
            "switch it back on: remove \"{id}\" from disabled.routines in .cowork/workspace.json"
        ),
        Some(SwitchedOff::File(file)) => format!(
            "switch it back on: remove \"{file}\" from disabled.apps in .cowork/workspace.json"
        ),
        // Switched on again since the refusal.
        None => "it is switched on now: run it again".into(),
    }
}

pub(super) fn risk_name(risk: Risk) -> &'static str {
    match risk {
        Risk::Low => "low",
        Risk::Medium => "medium",
        Risk::High => "high",
    }
}

/// The state column of `cowork routine list` (docs/reference/cli.md): `active · <cron>`,
/// `active · webhook`, `on demand`, `… · not armed` or `off`.
fn state_of(
    armed: &Armed,
    deployments: &BTreeMap<String, Deployment>,
    entry: &RoutineEntry,
) -> String {
    armed.state(&entry.id, deployments.get(&entry.id), entry.disabled).to_string()
}

fn list(ws: &Path, as_json: bool) -> CommandResult {
    let registry = registry::load(ws);
    let deployments = deployments::of(&registry.config);
    let armed = armed_state(ws);
    if as_json {
        let routines: Vec<Value> = registry
            .routines
            .values()
            .map(|r| {
                let mut value = serde_json::to_value(r).expect("a routine entry serializes");
                value["state"] = json!(state_of(&armed, &deployments, r));
                value
            })
            .collect();
        outln!("{}", json!(routines));
        return Ok(Exit::Ok);
    }
    if registry.routines.is_empty() {
        outln!("No routines in {}.", ws.display());
        if let Some(hint) = workspace::no_apps_hint(ws) {
            outln!("hint: {hint}");
        }
        return Ok(Exit::Ok);
    }
    let rows: Vec<Vec<String>> = registry
        .routines
        .values()
        .map(|r| {
            vec![
                r.id.clone(),
                r.app_name.clone(),
                risk_name(r.risk).into(),
                r.description.clone().unwrap_or_default(),
                state_of(&armed, &deployments, r),
            ]
        })
        .collect();
    // docs/reference/cli.md (`routine list`): each row ends with its state.
    table::print_fitted(&["ROUTINE", "APP", "RISK", "DESCRIPTION", "STATE"], rows, 3);
    Ok(Exit::Ok)
}

/// Whose runs a `runs` command reads: one workspace's, or (`--all`) every workspace's.
enum Scope {
    One(PathBuf),
    All,
}

impl Scope {
    fn of(workspace: &WorkspaceArg, all: bool) -> Result<Scope, Failure> {
        Ok(if all {
            Scope::All
        } else {
            Scope::One(workspace::resolve(workspace.workspace.as_deref())?)
        })
    }

    /// Every run in scope, newest first by start.
    fn records(&self) -> Result<Vec<Record>, Failure> {
        let root = Root::from_env();
        let read = match self {
            Scope::One(ws) => AuditLog::new(root.audit_dir(ws)).records(),
            Scope::All => AuditLog::every(&root).and_then(|logs| audit::records_of(&logs)),
        };
        read.map_err(|e| Failure::new(Exit::Failed, &e))
    }

    /// The flag that names this scope again, quoted for the shell.
    fn flag(&self) -> String {
        match self {
            Scope::One(ws) => format!("--workspace {}", shell::quote(&ws.display().to_string())),
            Scope::All => "--all".into(),
        }
    }

    /// How an error message names the scope.
    fn describe(&self) -> String {
        match self {
            Scope::One(ws) => format!("the audit log of {}", ws.display()),
            Scope::All => "any workspace's audit log".into(),
        }
    }
}

fn runs(args: RunsArgs) -> CommandResult {
    if let Some(RunsCommand::Show { run_id, json, workspace, all }) = args.show {
        return show(&Scope::of(&workspace, all)?, &run_id, json);
    }
    let scope = Scope::of(&args.workspace, args.all)?;
    let query = Query {
        routine: args.routine.clone(),
        app: args.app.clone(),
        agent: args.agent.clone(),
        task: args.task.clone(),
        status: args.status.map(|s| match s {
            StatusFilter::Ok => Status::Ok,
            StatusFilter::Error => Status::Error,
            StatusFilter::Denied => Status::Denied,
        }),
        unchanged: args.unchanged,
        limit: args.limit as usize,
        before: args.before.clone(),
    };
    let page = audit::page(scope.records()?, &query).map_err(|e| {
        let code = if matches!(e, cowork_core::audit::AuditError::UnknownCursor(_)) {
            Exit::NotFound
        } else {
            Exit::Failed
        };
        Failure::new(code, &e)
    })?;
    if args.json {
        outln!("{}", json!({ "runs": page.runs, "next": page.next }));
        return Ok(Exit::Ok);
    }
    if page.runs.is_empty() {
        outln!(
            "No runs in the last 7 days{}.",
            if args.unchanged {
                ""
            } else {
                " (runs that changed nothing are hidden: add --unchanged)"
            }
        );
        return Ok(Exit::Ok);
    }
    let mut header =
        vec!["RUN", "STARTED (UTC)", "ROUTINE", "STATUS", "TOOK", "WHO", "SOURCE", "ERROR"];
    if matches!(scope, Scope::All) {
        header.insert(1, "WORKSPACE");
    }
    let rows: Vec<Vec<String>> = page
        .runs
        .iter()
        .map(|r| {
            let error =
                r.error.as_ref().map(|e| format!("{}: {}", e.name, e.message)).unwrap_or_default();
            let mut row = vec![
                short(&r.context.run_id),
                r.ts.clone(),
                r.capability.clone(),
                r.status.to_string(),
                took(r),
                r.context.who(),
                r.context.source.to_string(),
                error,
            ];
            if matches!(scope, Scope::All) {
                row.insert(1, r.context.workspace.clone());
            }
            row
        })
        .collect();
    table::print(&header, &rows);
    if let Some(next) = page.next {
        outln!("next page: {}", next_page_command(&scope, &query, &next));
    }
    Ok(Exit::Ok)
}

/// The command that prints the page after `cursor` with the same scope and filters, every value
/// quoted so that it pastes into a shell as it is.
fn next_page_command(scope: &Scope, query: &Query, cursor: &str) -> String {
    let mut command = format!("cowork routine runs {} --before {cursor}", scope.flag());
    let q = query;
    let filters = [
        ("--routine", q.routine.as_deref()),
        ("--app", q.app.as_deref()),
        ("--agent", q.agent.as_deref()),
        ("--task", q.task.as_deref()),
        ("--status", q.status.map(Status::as_str)),
    ];
    for (flag, value) in filters {
        if let Some(value) = value {
            command.push_str(&format!(" {flag} {}", shell::quote(value)));
        }
    }
    if q.unchanged {
        command.push_str(" --unchanged");
    }
    if q.limit != 50 {
        command.push_str(&format!(" --limit {}", q.limit));
    }
    command
}

/// `812 ms`, and how long a triggered run waited for a slot first: `812 ms, queued 3.2 s`.
fn took(r: &Record) -> String {
    match r.queued_ms {
        Some(queued) => format!("{} ms, queued {}", r.duration_ms, millis(queued)),
        None => format!("{} ms", r.duration_ms),
    }
}

/// `640 ms`, `3.2 s`.
fn millis(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

fn short(id: &str) -> String {
    id.chars().take(8).collect()
}

fn show(scope: &Scope, run_id: &str, as_json: bool) -> CommandResult {
    let record = audit::find(scope.records()?, run_id).ok_or_else(|| {
        let hint = match scope {
            Scope::One(_) => "runs are kept 7 days; `cowork routine runs --unchanged` lists them all (add --all for every workspace's)",
            Scope::All => "runs are kept 7 days; `cowork routine runs --all --unchanged` lists them all",
        };
        Failure::new(Exit::NotFound, format!("no run {run_id} in {}", scope.describe())).hint(hint)
    })?;
    if as_json {
        outln!("{}", serde_json::to_string(&record).expect("a record serializes"));
        return Ok(Exit::Ok);
    }
    print_record(&record);
    Ok(Exit::Ok)
}

fn print_record(r: &Record) {
    let c = &r.context;
    outln!("run {} · {}", c.run_id, r.capability);
    outln!(
        "status:  {}{}",
        r.status,
        r.error.as_ref().map(|e| format!(" — {}: {}", e.name, e.message)).unwrap_or_default()
    );
    outln!("started: {} · took {} · source {}", r.ts, took(r), c.source);
    outln!(
        "who:     {}{}",
        c.who(),
        c.task_id.as_ref().map(|t| format!(" · task {t}")).unwrap_or_default()
    );
    if let (Some(app), Some(version)) = (&c.app_id, &c.app_version) {
        let kind = match c.kind.unwrap_or_default() {
            Kind::App => "app",
            Kind::Capability => "capability",
        };
        outln!("app:     {app} {version} ({kind})");
    }
    if let Some(caller) = c.caller.as_ref().filter(|c| !c.chain.is_empty()) {
        outln!("via {} → {}", caller.chain.join(" → "), r.capability);
    }
    outln!("input:   {}", r.input);
    if r.unchanged {
        outln!("changed nothing (ctx.unchanged()): no result or log kept");
    }
    if let Some(result) = &r.result {
        outln!("result:  {result}");
    }
    if let Some(log) = &r.log {
        outln!("log:");
        for line in log.lines() {
            outln!("  {line}");
        }
    }
}
