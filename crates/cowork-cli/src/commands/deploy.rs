//! `cowork deploy add|remove|list|status|hooks|triggers`: a routine's triggers in
//! `.cowork/workspace.json#deployments` (names only, written atomically under the file's lock) and
//! the owner's switch that arms them on this machine (`cowork_core::triggers::arming`).
//!
//! Building and deploying to a target (`build`, `dev`, `run`, `doctor`) is not in this version:
//! those verbs say so and exit 5.

use crate::cli::{DeployAddArgs, DeployCommand, DeployMode, OnOff, Target};
use crate::exit::{CommandResult, Exit, Failure};
use crate::{table, workspace};
use cowork_core::paths::Root;
use cowork_core::registry::{self, Registry, RoutineEntry};
use cowork_core::shell;
use cowork_core::triggers::arming::{Armed, Arming};
use cowork_core::triggers::deployments::{self, Deployment, Mode};
use cowork_core::triggers::hook_path;
use cowork_core::triggers::schedule::Schedule;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

pub async fn run(command: DeployCommand) -> CommandResult {
    match command {
        DeployCommand::Add(args) => add(*args),
        DeployCommand::Remove { id, json, workspace } => {
            remove(&workspace::resolve(workspace.workspace.as_deref())?, &id, json)
        }
        DeployCommand::List { json, workspace } => {
            list(&workspace::resolve(workspace.workspace.as_deref())?, json, false).await
        }
        DeployCommand::Status { json, workspace } => {
            list(&workspace::resolve(workspace.workspace.as_deref())?, json, true).await
        }
        DeployCommand::Hooks { json, workspace } => {
            hooks(&workspace::resolve(workspace.workspace.as_deref())?, json).await
        }
        DeployCommand::Triggers { switch, json, workspace } => triggers(
            &workspace::resolve(workspace.workspace.as_deref())?,
            switch == OnOff::On,
            json,
        ),
        DeployCommand::Build { .. } => Err(unsupported("build")),
        DeployCommand::Dev { .. } => Err(unsupported("dev")),
        DeployCommand::Run { .. } => Err(unsupported("run")),
        DeployCommand::Doctor => Err(unsupported("doctor")),
    }
}

fn unsupported(verb: &str) -> Failure {
    Failure::new(
        Exit::Unsupported,
        format!("`cowork deploy {verb}` is not available in this version: building and deploying to a target is not implemented yet"),
    )
    .hint("schedules, webhooks and notification triggers run on this machine once armed: `cowork routine active <id> on`")
}

fn quoted(ws: &Path) -> String {
    shell::quote(&ws.display().to_string())
}

fn target_name(target: Target) -> &'static str {
    match target {
        Target::CloudflareWorker => "cloudflare-worker",
        Target::AwsLambda => "aws-lambda",
        Target::GcloudFunction => "gcloud-function",
        Target::Container => "container",
    }
}

/// No `--target`: a container when the routine imports Node's own modules (a Worker has none of
/// them), else a Worker.
fn auto_target(entry: &RoutineEntry) -> &'static str {
    let source = std::fs::read_to_string(&entry.file).unwrap_or_default();
    if source.contains("\"node:") || source.contains("'node:") {
        "container"
    } else {
        "cloudflare-worker"
    }
}

fn usage(message: impl std::fmt::Display) -> Failure {
    Failure::new(Exit::Usage, message)
}

/// `"*"` or `scheme://host[:port]`, nothing after.
fn check_origin(origin: &str) -> Result<(), Failure> {
    let ok = origin == "*"
        || origin.split_once("://").is_some_and(|(scheme, rest)| {
            matches!(scheme, "http" | "https")
                && !rest.is_empty()
                && !rest.contains(['/', '?', '#', ' ', '@'])
        });
    if ok {
        Ok(())
    } else {
        Err(usage(format!("--cors-origin \"{origin}\" is not an origin"))
            .hint("pass \"*\" or scheme://host[:port], e.g. https://example.com"))
    }
}

/// Applies the flags to `deployment` (flags left out keep what is there), checking each value.
fn apply(
    args: &DeployAddArgs,
    registry: &Registry,
    entry: &RoutineEntry,
    deployment: &mut Deployment,
) -> Result<(), Failure> {
    if let Some(target) = args.target {
        deployment.target = target_name(target).into();
    } else if deployment.target.is_empty() {
        deployment.target = auto_target(entry).into();
    }
    if let Some(mode) = args.mode {
        deployment.mode = Some(match mode {
            DeployMode::Local => Mode::Local,
            DeployMode::Deployed => Mode::Deployed,
        });
    }
    if let Some(cron) = &args.schedule {
        Schedule::parse(cron).map_err(|e| {
            usage(e).hint("e.g. --schedule \"*/15 * * * *\" (every 15 minutes) or \"0 6 * * 1-5\" (06:00 on weekdays)")
        })?;
        deployment.schedule = Some(cron.clone());
    }
    deployment.webhook |= args.webhook;
    if let Some(apps) = &args.notifications {
        let mut listed = Vec::new();
        for app in apps.iter().map(|a| a.trim()).filter(|a| !a.is_empty()) {
            if app != "*" && registry.app_by_name(app).is_none() {
                return Err(usage(format!(
                    "--notifications: no app named \"{app}\" in this workspace"
                ))
                .hint("app names as `cowork app list` prints them, or * for every app's"));
            }
            if !listed.iter().any(|a| a == app) {
                listed.push(app.to_owned());
            }
        }
        deployment.notifications = listed;
    }
    for name in &args.secrets {
        cowork_secrets::validate_name(name).map_err(|e| usage(format!("--secret: {e}")))?;
        if !deployment.secrets.contains(name) {
            deployment.secrets.push(name.clone());
        }
    }
    for pair in &args.vars {
        let (key, value) =
            pair.split_once('=').filter(|(k, _)| !k.is_empty()).ok_or_else(|| {
                usage(format!("--var \"{pair}\" is not K=V")).hint("e.g. --var REGION=eu")
            })?;
        deployment.vars.insert(key.to_owned(), value.to_owned());
    }
    if let Some(origin) = &args.cors_origin {
        check_origin(origin)?;
        deployment.cors_origin = Some(origin.clone());
    }
    for (value, field) in [
        (&args.name, &mut deployment.name),
        (&args.region, &mut deployment.region),
        (&args.role_arn, &mut deployment.role_arn),
        (&args.db, &mut deployment.db),
    ] {
        if let Some(value) = value {
            *field = Some(value.clone());
        }
    }
    if args.hook_token {
        if !deployment.webhook {
            return Err(usage("--hook-token protects a webhook, and this routine has none")
                .hint("add --webhook"));
        }
        deployment.hook_token = true;
    }
    Ok(())
}

/// Mints the webhook token of `id` when the store has none; returns the new one (shown once).
fn mint_token(ws: &Path, id: &str) -> Result<Option<String>, Failure> {
    let store = super::secrets::open()?;
    let name = deployments::hook_token_secret(ws, id);
    if store.get(&name).map_err(super::secrets::store_failure)?.is_some() {
        return Ok(None);
    }
    let token = deployments::mint_hook_token();
    store.set_reserved(&name, &token).map_err(super::secrets::store_failure)?;
    Ok(Some(token))
}

fn add(args: DeployAddArgs) -> CommandResult {
    let ws = workspace::resolve(args.workspace.workspace.as_deref())?;
    let registry = registry::load(&ws);
    let entry = registry.routine(&args.id).ok_or_else(|| {
        Failure::new(Exit::NotFound, format!("no routine \"{}\" in {}", args.id, ws.display()))
            .hint(super::routine::not_found_hint(&ws, &args.id))
    })?;
    let mut deployment = deployments::of(&registry.config).remove(&args.id).unwrap_or_default();
    let before = deployment.clone();
    apply(&args, &registry, entry, &mut deployment)?;
    let token = if deployment.hook_token { mint_token(&ws, &args.id)? } else { None };
    deployments::put(&ws, &args.id, &deployment).map_err(|e| Failure::new(Exit::Failed, &e))?;
    if deployment.webhook {
        Arming::new(&Root::from_env(), &ws)
            .register()
            .map_err(|e| Failure::new(Exit::Failed, &e))?;
    }

    let armed = super::routine::armed_state(&ws);
    let state = armed.state(&args.id, Some(&deployment), entry.disabled);
    if args.json {
        let mut answer = json!({
            "ok": true,
            "id": args.id,
            "deployment": deployment,
            "state": state.to_string(),
        });
        if let Some(token) = &token {
            answer["hookToken"] = json!(token);
        }
        outln!("{answer}");
        return Ok(Exit::Ok);
    }
    outln!(
        "{} {}'s trigger in .cowork/workspace.json#deployments: {}.",
        if before.target.is_empty() { "Added" } else { "Updated" },
        args.id,
        describe(&deployment)
    );
    if let Some(token) = token {
        outln!("Hook token (shown once, kept in the secret store): {token}");
        outln!("Callers send it as the x-cowork-hook-token header.");
    }
    outln!("State: {state}");
    if deployment.webhook && !deployment.hook_token {
        outln!("note: without a token, anything that reaches the daemon's port can call the webhook — a web page open in a browser on this machine included; --hook-token makes it ask for one");
    }
    if let Some(change) = armed.change(&args.id, &deployment) {
        outln!("Changed since you armed it ({change}): it fires nothing until you confirm it: cowork routine active {} on --workspace {}", args.id, quoted(&ws));
    } else if !state.is_active() && !deployment.local_triggers().is_empty() {
        outln!(
            "hint: it fires once armed: cowork routine active {} on --workspace {}",
            args.id,
            quoted(&ws)
        );
    }
    Ok(Exit::Ok)
}

/// One line naming a deployment's triggers, mode and target.
fn describe(d: &Deployment) -> String {
    let mut parts = Vec::new();
    if let Some(cron) = &d.schedule {
        parts.push(match d.mode() {
            Mode::Local => format!("schedule \"{cron}\" (local time)"),
            Mode::Deployed => format!("schedule \"{cron}\" (UTC, fired by the deployed copy only)"),
        });
    }
    if d.webhook {
        parts.push(if d.hook_token { "webhook (token)".into() } else { "webhook".into() });
    }
    if !d.notifications.is_empty() {
        parts.push(format!("notifications of {}", d.notifications.join(", ")));
    }
    if parts.is_empty() {
        parts.push("no trigger (on demand)".into());
    }
    let mode = match d.mode() {
        Mode::Local => "local",
        Mode::Deployed => "deployed",
    };
    format!("{}; mode {mode}, target {}", parts.join(", "), d.target)
}

fn remove(ws: &Path, id: &str, as_json: bool) -> CommandResult {
    let removed = deployments::remove(ws, id).map_err(|e| Failure::new(Exit::Failed, &e))?;
    let Some(removed) = removed else {
        return Err(Failure::new(
            Exit::NotFound,
            format!("{id} has no deployment in {}", ws.display()),
        )
        .hint(format!("`cowork deploy list --workspace {}` shows them", quoted(ws))));
    };
    let root = Root::from_env();
    Arming::new(&root, ws).forget(id).map_err(|e| Failure::new(Exit::Failed, &e))?;
    if removed["hookToken"] == json!(true) {
        let store = super::secrets::open()?;
        store
            .delete_reserved(&deployments::hook_token_secret(ws, id))
            .map_err(super::secrets::store_failure)?;
    }
    if as_json {
        outln!("{}", json!({ "ok": true, "id": id }));
    } else {
        outln!("Removed {id}'s deployment: its triggers no longer fire here and its webhook answers 404.");
    }
    Ok(Exit::Ok)
}

/// The next fire of an active local schedule, in local time.
fn next_fire(d: &Deployment, armed: &Armed, id: &str) -> Option<String> {
    let cron = d.local_schedule()?;
    if !armed.fires(id, d) {
        return None;
    }
    let tz = jiff::tz::TimeZone::system();
    let next = Schedule::parse(cron).ok()?.next_after(jiff::Timestamp::now(), &tz)?;
    Some(next.to_zoned(tz).strftime("%Y-%m-%d %H:%M %Z").to_string())
}

async fn list(ws: &Path, as_json: bool, status: bool) -> CommandResult {
    let port = cowork_daemon::discovery::port(&Root::from_env()).await;
    let hook_url = |id: &str| hook_url(port, ws, id);
    let registry = registry::load(ws);
    let all = deployments::of(&registry.config);
    let armed = super::routine::armed_state(ws);
    let state = |id: &str, d: &Deployment| {
        let disabled = registry.routine(id).is_none_or(|r| r.disabled);
        armed.state(id, Some(d), disabled).to_string()
    };
    if as_json {
        let rows: Vec<Value> = all
            .iter()
            .map(|(id, d)| {
                let mut row = serde_json::to_value(d).expect("a deployment serializes");
                row["id"] = json!(id);
                row["state"] = json!(state(id, d));
                if d.webhook {
                    row["hookUrl"] = json!(hook_url(id));
                }
                if status {
                    row["next"] = json!(next_fire(d, &armed, id));
                }
                if let Some(change) = armed.change(id, d) {
                    row["changed"] = json!(change.to_string());
                }
                row
            })
            .collect();
        outln!("{}", json!({ "armed": armed.armed, "deployments": rows }));
        return Ok(Exit::Ok);
    }
    if armed.armed {
        outln!("Triggers in this workspace: on (each fires once its routine is switched on)");
    } else {
        outln!(
            "Triggers in this workspace: off (`cowork routine active <id> on` arms a routine's)"
        );
    }
    if all.is_empty() {
        outln!("No deployments: `cowork deploy add <id> --schedule \"<cron>\"` (or --webhook, --notifications <app>) gives a routine a trigger.");
        return Ok(Exit::Ok);
    }
    let mut header = vec!["ROUTINE", "TRIGGERS", "STATE"];
    if status {
        header.push("NEXT FIRE");
    }
    let rows: Vec<Vec<String>> = all
        .iter()
        .map(|(id, d)| {
            let mut row = vec![id.clone(), describe(d), state(id, d)];
            if status {
                row.push(next_fire(d, &armed, id).unwrap_or_else(|| "-".into()));
            }
            row
        })
        .collect();
    table::print(&header, &rows);
    for id in all.iter().filter(|(_, d)| d.webhook).map(|(id, _)| id) {
        outln!("{id}: POST {}", hook_url(id));
    }
    say_changed(ws, &armed, &all);
    if status && all.values().any(|d| d.mode() == Mode::Deployed) {
        outln!("Deployed copies: none is built or deployed from this version (`cowork deploy run` exits 5); their webhooks and notifications answer here.");
    }
    Ok(Exit::Ok)
}

/// The URL `cowork deploy hooks` prints for routine `id`'s webhook.
fn hook_url(port: u16, ws: &Path, id: &str) -> String {
    format!("http://127.0.0.1:{port}{}", hook_path(ws, id))
}

async fn hooks(ws: &Path, as_json: bool) -> CommandResult {
    let root = Root::from_env();
    let port = cowork_daemon::discovery::port(&root).await;
    let registry = registry::load(ws);
    let armed = super::routine::armed_state(ws);
    let hooks: BTreeMap<String, Deployment> =
        deployments::of(&registry.config).into_iter().filter(|(_, d)| d.webhook).collect();
    let url = |id: &str| hook_url(port, ws, id);
    if as_json {
        let rows: Vec<Value> = hooks
            .iter()
            .map(|(id, d)| {
                json!({
                    "id": id,
                    "url": url(id),
                    "token": d.hook_token,
                    "corsOrigin": d.cors_origin.as_deref().unwrap_or("*"),
                    "armed": armed.fires(id, d),
                    "changed": armed.change(id, d).is_some(),
                })
            })
            .collect();
        outln!("{}", json!({ "hooks": rows }));
        return Ok(Exit::Ok);
    }
    if hooks.is_empty() {
        outln!("No webhooks: `cowork deploy add <id> --webhook` gives a routine one.");
        return Ok(Exit::Ok);
    }
    let rows: Vec<Vec<String>> = hooks
        .iter()
        .map(|(id, d)| {
            let state = if armed.change(id, d).is_some() {
                "changed since armed"
            } else if armed.fires(id, d) {
                "armed"
            } else {
                "not armed"
            };
            vec![
                id.clone(),
                format!("POST {}", url(id)),
                if d.hook_token { "x-cowork-hook-token".into() } else { "-".into() },
                state.into(),
            ]
        })
        .collect();
    table::print(&["ROUTINE", "URL", "TOKEN", "STATE"], &rows);
    outln!("The body is the routine's args (JSON; empty = {{}}). The daemon listens on 127.0.0.1 only:");
    outln!("from another machine, forward its port (ssh -L {port}:127.0.0.1:{port} <this machine>) or put a tunnel in front of it (cloudflared, ngrok) — and give the hook a --hook-token.");
    // The URL's workspace key comes from the folder's path, so it is no secret: without a token
    // and with corsOrigin "*" (the default), a page open in the person's browser can call it too.
    if let Some((id, _)) = hooks.iter().find(|(_, d)| !d.hook_token) {
        outln!("Without a token a hook answers any program on this machine and, with corsOrigin \"*\" (the default), any web page open in your browser: cowork deploy add {id} --webhook --hook-token gives it one.");
    }
    Ok(Exit::Ok)
}

/// One line per routine changed since armed: what changed, and the command that confirms it.
fn say_changed(ws: &Path, armed: &Armed, all: &BTreeMap<String, Deployment>) {
    for (id, change) in all.iter().filter_map(|(id, d)| Some((id, armed.change(id, d)?))) {
        outln!("{id} changed since armed ({change}): it fires nothing until you confirm it: cowork routine active {id} on --workspace {}", quoted(ws));
    }
}

/// `cowork deploy triggers on|off`: the workspace's switch, a stop for all of its triggers. `on`
/// lets the routines switched on fire again as they were armed; it arms nothing new.
fn triggers(ws: &Path, on: bool, as_json: bool) -> CommandResult {
    let state = Arming::new(&Root::from_env(), ws)
        .set_armed(on)
        .map_err(|e| Failure::new(Exit::Failed, &e))?;
    if as_json {
        outln!("{}", json!({ "ok": true, "armed": state.armed }));
        return Ok(Exit::Ok);
    }
    if !on {
        outln!("This workspace's triggers are off: nothing fires on its own until `cowork deploy triggers on` or `cowork routine active <id> on`.");
        return Ok(Exit::Ok);
    }
    let all = deployments::read(ws);
    let firing: Vec<&str> =
        all.iter().filter(|(id, d)| state.fires(id, d)).map(|(id, _)| id.as_str()).collect();
    if firing.is_empty() {
        outln!("This workspace's triggers are on, and no routine is armed: `cowork routine active <id> on` arms one.");
    } else {
        outln!("This workspace's triggers are on: {} fire here, as armed. Every other routine needs its own switch: cowork routine active <id> on.", firing.join(", "));
    }
    say_changed(ws, &state, &all);
    Ok(Exit::Ok)
}
