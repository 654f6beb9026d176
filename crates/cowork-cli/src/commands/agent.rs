//! `cowork agent list|create|token|workspaces|revoke|grants|grant`: agent logins, the workspaces
//! each opens, and what each may run there through the MCP door (the store and the rule are
//! `cowork_core::agents`).

use super::daemon_failure;
use super::routine::risk_name;
use crate::cli::{AgentCommand, AgentWorkspacesCommand, DoorArgs, DoorCommand, GrantAnswer};
use crate::exit::{CommandResult, Exit, Failure};
use crate::{table, workspace};
use cowork_core::agents::{
    self, AgentError, Answer, GrantFile, Grants, Login, Logins, Setting, Target,
};
use cowork_core::paths::Root;
use cowork_core::registry::{self, Registry};
use cowork_engine::credentials;
use cowork_wire::daemon::agents::{DoorInfo, OpenDoor};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;

pub async fn run(command: AgentCommand) -> CommandResult {
    let root = Root::from_env();
    let logins = Logins::new(&root);
    match command {
        AgentCommand::List { json } => {
            let list = logins.list().map_err(failure)?;
            if json {
                let rows: Vec<_> = list.iter().map(login_json).collect();
                outln!("{}", json!(rows));
            } else if list.is_empty() {
                outln!("No agent logins yet: `cowork agent create <name>` makes one.");
            } else {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|l| {
                        vec![
                            l.name.clone(),
                            l.id.clone(),
                            l.last_seen.clone().unwrap_or_else(|| "never".into()),
                            if l.revoked { "revoked" } else { "" }.into(),
                            workspaces_cell(l),
                        ]
                    })
                    .collect();
                table::print(&["NAME", "ID", "LAST SEEN", "STATE", "WORKSPACES"], &rows);
                if list.iter().any(|l| !l.revoked && l.workspaces.is_empty()) {
                    outln!("A login with no workspace opens none: `cowork agent workspaces add <name> [--workspace <dir>]` lets it into one.");
                }
            }
        }
        AgentCommand::Create { name, json, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            agents::check_workspace(&ws).map_err(failure)?;
            let (login, token) = logins.create(&name, &ws).map_err(failure)?;
            print_token(&root, &ws, &login, &token, json, "Created").await;
        }
        AgentCommand::Token { name, json, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            let (login, token) = logins.new_token(&name).map_err(failure)?;
            print_token(&root, &ws, &login, &token, json, "New token for").await;
        }
        AgentCommand::Workspaces(AgentWorkspacesCommand::Add { name, workspace }) => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            agents::check_workspace(&ws).map_err(failure)?;
            let (login, added) = logins.add_workspace(&name, &ws).map_err(failure)?;
            if added {
                outln!("{} may now work in {}: reads are on for it, grant anything else with `cowork agent grant <cap>/<routine> allow --agent {}`.", login.name, ws.display(), login.name);
            } else {
                outln!("{} already works in {}.", login.name, ws.display());
            }
        }
        AgentCommand::Workspaces(AgentWorkspacesCommand::Remove { name, workspace }) => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            let (login, removed) = logins.remove_workspace(&name, &ws).map_err(failure)?;
            if removed {
                outln!(
                    "{} no longer opens {} (its sessions there end with its next request).",
                    login.name,
                    ws.display()
                );
            } else {
                outln!("{} did not open {}.", login.name, ws.display());
            }
        }
        AgentCommand::Revoke { name, yes } => {
            if !yes {
                return Err(Failure::new(
                    Exit::Usage,
                    format!("revoking {name} signs it out for good"),
                )
                .hint(format!("confirm with `cowork agent revoke {name} --yes`")));
            }
            let login = logins.revoke(&name).map_err(failure)?;
            outln!("Revoked {} ({}): its token no longer opens the door.", login.name, login.id);
        }
        AgentCommand::Grants { agent, json, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            let agents: Vec<Login> = match &agent {
                Some(name) => vec![live(&logins, name)?],
                None => {
                    logins.list().map_err(failure)?.into_iter().filter(|l| !l.revoked).collect()
                }
            };
            let grants = Grants::new(&root, &ws).read().map_err(failure)?;
            let registry = registry::load(&ws);
            // A store that cannot be opened connects nothing, as the door sees it (fail closed).
            let store = super::secrets::open().ok();
            let connected = credentials::connected(store.as_ref(), &registry);
            print_grants(&registry, &grants, &agents, &connected, json);
            let outside: Vec<&str> =
                agents.iter().filter(|a| !a.serves(&ws)).map(|a| a.name.as_str()).collect();
            if !json && !outside.is_empty() {
                outln!("Not let into this workspace, so nothing of it runs here for them: {} (`cowork agent workspaces add <name>`).", outside.join(", "));
            }
        }
        AgentCommand::Door(args) => return door(&root, args).await,
        AgentCommand::Skills { workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            skills(&ws)?;
        }
        AgentCommand::Grant { target, answer, agent, workspace } => {
            let ws = workspace::resolve(workspace.workspace.as_deref())?;
            let target = Target::parse(&target).map_err(|e| Failure::new(Exit::Usage, e))?;
            agents::check_target(&registry::load(&ws), &target).map_err(|e| {
                Failure::new(Exit::NotFound, e)
                    .hint("`cowork agent grants` lists every routine agents can be granted")
            })?;
            let login = agent.as_deref().map(|name| live(&logins, name)).transpose()?;
            let setting = match answer {
                GrantAnswer::Allow => Some(Setting::Allow),
                GrantAnswer::Deny => Some(Setting::Deny),
                GrantAnswer::Default => None,
            };
            Grants::new(&root, &ws)
                .set(&target, setting, login.as_ref().map(|l| l.id.as_str()))
                .map_err(failure)?;
            let whom = match &login {
                Some(login) => login.name.clone(),
                None => "every agent without its own setting".into(),
            };
            let what = match setting {
                Some(Setting::Allow) => "Allowed",
                Some(Setting::Deny) => "Denied",
                None => "Back to the rule:",
            };
            outln!("{what} {} for {whom} in {}.", target.key(), ws.display());
            if let Some(login) = login.filter(|l| !l.serves(&ws)) {
                outln!(
                    "{} is not let into this workspace yet: {}",
                    login.name,
                    agents::add_command(&login.name, &ws)
                );
            }
        }
    }
    Ok(Exit::Ok)
}

/// `agent skills`: the workspace's app skills linked, the cowork-studio skill installed.
fn skills(ws: &Path) -> Result<(), Failure> {
    use cowork_core::skills;
    let linked = skills::link(&registry::load(ws)).map_err(|e| {
        Failure::new(
            Exit::Failed,
            format!("failed to link skills in {}/.claude/skills: {e}", ws.display()),
        )
    })?;
    for name in &linked.linked {
        outln!("Linked .claude/skills/{name}");
    }
    for name in &linked.removed {
        outln!("Removed .claude/skills/{name} (no app with a SKILL.md of that name now)");
    }
    for name in &linked.skipped {
        outln!("Left .claude/skills/{name} alone: it is not a link Cowork made");
    }
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from).ok_or_else(|| {
        Failure::new(Exit::Failed, "HOME is not set: nowhere to install the cowork-studio skill")
    })?;
    let written = skills::install_guide(&home, env!("CARGO_PKG_VERSION")).map_err(|e| {
        Failure::new(Exit::Failed, format!("failed to install the cowork-studio skill: {e}"))
    })?;
    for path in written {
        outln!(
            "Installed the cowork-studio skill ({}) at {}",
            env!("CARGO_PKG_VERSION"),
            path.display()
        );
    }
    Ok(())
}

/// Where the door the daemon opens at each start listens (`door.json`), if one is remembered.
fn remembered(root: &Root) -> Option<String> {
    let text = std::fs::read_to_string(root.door_file()).ok()?;
    let saved: DoorInfo = serde_json::from_str(&text).ok()?;
    Some(saved.listen.to_string())
}

/// `agent door`: shows, opens or closes the door's own listener on the running daemon.
async fn door(root: &Root, args: DoorArgs) -> CommandResult {
    let Some(running) = cowork_daemon::discovery::discover(root).await else {
        return Err(Failure::new(
            Exit::NoDaemon,
            "no Cowork daemon is running: the door is the daemon's",
        )
        .hint("start it with `cowork start --headless`"));
    };
    let answer = match (args.off, args.listen) {
        (Some(DoorCommand::Off), _) => {
            let closed = running.daemon.close_door().await.map_err(daemon_failure)?;
            if closed.changed {
                outln!("Closed the door's own listener (agents on this machine still use the daemon's /api/mcp).");
            } else {
                outln!("No door of its own was open.");
            }
            return Ok(Exit::Ok);
        }
        (None, Some(listen)) => Some(
            running
                .daemon
                .open_door(&OpenDoor { listen, url: args.url })
                .await
                .map_err(daemon_failure)?,
        ),
        (None, None) => running.daemon.door().await.map_err(daemon_failure)?,
    };
    match answer {
        Some(DoorInfo { listen, url }) => {
            outln!("The door listens on {listen}; agents connect to {url}?ws=<the workspace folder, percent-encoded>.");
            outln!("It serves /api/mcp alone and speaks plain HTTP: put HTTPS in front of it for another machine.");
        }
        None => match remembered(root) {
            // The daemon could not open it again at its start (its port taken, its address gone).
            Some(listen) => outln!("The door on {listen} is not open: the daemon could not listen there at its start (its log says why). `cowork agent door --listen {listen}` tries again; `cowork agent door off` forgets it."),
            None => outln!("No door of its own is open (`cowork agent door --listen <host:port> [--url <url>]` opens one); agents on this machine use the daemon's /api/mcp."),
        },
    }
    Ok(Exit::Ok)
}

fn failure(error: AgentError) -> Failure {
    let exit = match error {
        AgentError::Unknown(_) | AgentError::NotAWorkspace(_) => Exit::NotFound,
        AgentError::BadName(_) | AgentError::BadTarget(_) => Exit::Usage,
        _ => Exit::Failed,
    };
    let hint = match &error {
        AgentError::Unknown(_) => Some("`cowork agent list` shows the logins"),
        AgentError::Exists(_) => Some("`cowork agent token <name>` gives it a new token"),
        AgentError::ChatLogin(_) => Some("to keep the Chat from running a capability's routines, deny them: `cowork agent grant <capability>/* deny --agent chat`"),
        AgentError::NotAWorkspace(_) => Some(
            "run it in the workspace folder (the one holding .cowork/), or pass --workspace <dir>",
        ),
        _ => None,
    };
    let failure = Failure::new(exit, &error);
    match hint {
        Some(hint) => failure.hint(hint),
        None => failure,
    }
}

/// The login `name`, refusing a revoked one (it can be given nothing).
fn live(logins: &Logins, name: &str) -> Result<Login, Failure> {
    logins.live(name).map_err(failure)
}

fn login_json(login: &Login) -> serde_json::Value {
    json!({ "name": login.name, "id": login.id, "created": login.created, "lastSeen": login.last_seen, "revoked": login.revoked, "workspaces": login.workspaces })
}

/// The workspaces a login opens, for `agent list`'s table.
fn workspaces_cell(login: &Login) -> String {
    if login.workspaces.is_empty() {
        return "none".into();
    }
    login.workspaces.iter().map(|w| w.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// The token, once, and the lines that connect Claude Code and Codex to this workspace's door.
async fn print_token(root: &Root, ws: &Path, login: &Login, token: &str, json: bool, verb: &str) {
    let port = cowork_daemon::discovery::port(root).await;
    let connect = agents::connect(&format!("http://127.0.0.1:{port}"), ws, token);
    if json {
        outln!(
            "{}",
            json!({ "name": login.name, "id": login.id, "token": token, "url": connect.url, "claude": connect.claude, "codex": connect.codex, "codexEnv": connect.codex_env })
        );
        return;
    }
    outln!(
        "{verb} the agent {} ({}). Its token, shown this once (Cowork keeps only a hash):",
        login.name,
        login.id
    );
    outln!("");
    outln!("  {token}");
    outln!("");
    outln!(
        "Claude Code — run in {} (local scope: private to that folder, never in git):",
        ws.display()
    );
    outln!("  {}", connect.claude);
    outln!("");
    outln!("Codex — add to ~/.codex/config.toml, and set the token where Codex runs:");
    for line in connect.codex.lines() {
        outln!("  {line}");
    }
    outln!("  {}", connect.codex_env);
    outln!("");
    if login.serves(ws) {
        outln!("Reads are on for it; grant anything else with `cowork agent grant <cap>/<routine> allow --agent {}`.", login.name);
    } else {
        outln!(
            "It is not let into {} yet, so these lines open nothing until: {}",
            ws.display(),
            agents::add_command(&login.name, ws)
        );
    }
}

fn answer_text(answer: Answer) -> String {
    let text = match answer.answer {
        Setting::Allow => "on",
        Setting::Deny => "off",
    };
    format!("{text}{}", if answer.set { "*" } else { "" })
}

fn print_grants(
    registry: &Registry,
    grants: &GrantFile,
    logins: &[Login],
    connected: &BTreeMap<String, bool>,
    json: bool,
) {
    let rows = agents::table(registry, grants, logins, connected);
    if json {
        outln!("{}", json!(rows));
        return;
    }
    if rows.is_empty() {
        outln!("No capability in {} offers routines to agents (only \"kind\": \"capability\" packages do).", registry.root.display());
        return;
    }
    let mut headers = vec!["ROUTINE", "RISK", "DEFAULT"];
    headers.extend(logins.iter().map(|a| a.name.as_str()));
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            // Unavailable whatever is granted (page 01): the grant is kept, shown beside it.
            let cell = |answer| match &r.unavailable {
                Some(why) => format!("unavailable: {why} ({})", answer_text(answer)),
                None => answer_text(answer),
            };
            let mut row = vec![
                format!("{}/{}", r.capability, r.routine),
                risk_name(r.risk).into(),
                cell(r.default),
            ];
            row.extend(logins.iter().map(|a| cell(r.agents[&a.name])));
            row
        })
        .collect();
    table::print(&headers, &cells);
    outln!("* = set here; otherwise reads are on, the rest off.");
    let mut unconnected: Vec<&str> =
        rows.iter().filter(|r| r.unavailable.is_some()).map(|r| r.capability.as_str()).collect();
    unconnected.dedup();
    for capability in unconnected {
        outln!("unavailable: the {capability} capability's connection is not connected, so no agent can run its routines until it is (`cowork credential list`, then `cowork credential connect <name>`).");
    }
}
