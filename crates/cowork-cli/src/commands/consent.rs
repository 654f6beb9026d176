//! `cowork consent allow|revoke <value> --app <app> | list`: the approvals a headless workspace runs
//! with, each for one app. With `--browser` the value is a site of the desktop app's browser, and
//! the approval is browser automation's consent (`<root>/browser-consent.json`), given ahead of
//! the dialog: see [`browser`].

mod browser;

use crate::cli::{ConsentCommand, ConsentWho};
use crate::exit::{CommandResult, Exit, Failure};
use crate::workspace;
use cowork_core::consent::Approvals;
use cowork_core::paths::Root;
use std::path::Path;

pub fn run(command: ConsentCommand) -> CommandResult {
    match command {
        ConsentCommand::Allow { value, who, workspace } if who.browser => {
            browser::allow(&value, &who, workspace.workspace.as_deref())
        }
        ConsentCommand::Revoke { value, who, workspace } if who.browser => {
            browser::revoke(&value, &who, workspace.workspace.as_deref())
        }
        ConsentCommand::List { json, browser: true, .. } => browser::list(json),
        command => commands(command),
    }
}

/// The app a command approval is for (`--agent` is for the browser alone: clap requires it).
fn app_of(who: ConsentWho) -> String {
    who.app.expect("clap requires --app without --agent, and --agent with --browser")
}

fn commands(command: ConsentCommand) -> CommandResult {
    let approvals = |flag: Option<&Path>| -> Result<(Approvals, std::path::PathBuf), Failure> {
        let ws = workspace::resolve(flag)?;
        Ok((Approvals::new(&Root::from_env(), &ws), ws))
    };
    let failed = |e: cowork_core::consent::ConsentError| Failure::new(Exit::Failed, e);
    match command {
        ConsentCommand::Allow { value, who, workspace } => {
            let app = app_of(who);
            let (approvals, ws) = approvals(workspace.workspace.as_deref())?;
            let added = approvals.allow(&app, &value).map_err(failed)?;
            outln!(
                "{} \"{value}\" for {app} in {}.",
                if added { "Allowed" } else { "Already allowed:" },
                ws.display()
            );
            // Kept all the same: it may be approved ahead of the app's install. But a typo would
            // leave the real app unapproved, with nothing said.
            let registry = cowork_core::registry::load(&ws);
            if !registry.apps.iter().any(|a| a.manifest.name == app) {
                eprintln!("warning: no app is named \"{app}\" in this workspace now: the approval waits for one of that name (`cowork app list` shows the names)");
            }
        }
        ConsentCommand::Revoke { value, who, workspace } => {
            let app = app_of(who);
            let (approvals, ws) = approvals(workspace.workspace.as_deref())?;
            if !approvals.revoke(&app, &value).map_err(failed)? {
                return Err(Failure::new(
                    Exit::NotFound,
                    format!("\"{value}\" is not allowed for {app} in {}", ws.display()),
                )
                .hint("`cowork consent list` shows what is"));
            }
            outln!("Revoked \"{value}\" for {app} in {}.", ws.display());
        }
        ConsentCommand::List { json, workspace, .. } => {
            let (approvals, ws) = approvals(workspace.workspace.as_deref())?;
            let list = approvals.list().map_err(failed)?;
            let outdated = approvals.outdated().map_err(failed)?;
            if json {
                outln!("{}", serde_json::json!(list));
                return Ok(Exit::Ok);
            }
            if list.is_empty() {
                outln!("Nothing is allowed ahead of time in {}.", ws.display());
            }
            let width = list.iter().map(|a| a.app.chars().count()).max().unwrap_or(0);
            for approval in list {
                outln!("{:<width$}  {}", approval.app, approval.value);
            }
            if outdated > 0 {
                outln!("{outdated} older approval(s) name no app and allow nothing now: each is asked again (or `cowork consent allow <value> --app <app>`).");
            }
        }
    }
    Ok(Exit::Ok)
}
