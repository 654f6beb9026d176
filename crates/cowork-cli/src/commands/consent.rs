//! `cowork consent allow|revoke <value> | list`: the approvals a headless workspace runs with.

use crate::cli::ConsentCommand;
use crate::exit::{CommandResult, Exit, Failure};
use crate::workspace;
use cowork_core::consent::Approvals;
use cowork_core::paths::Root;
use std::path::Path;

pub fn run(command: ConsentCommand) -> CommandResult {
    let approvals = |flag: Option<&Path>| -> Result<(Approvals, std::path::PathBuf), Failure> {
        let ws = workspace::resolve(flag)?;
        Ok((Approvals::new(&Root::from_env(), &ws), ws))
    };
    let failed = |e: cowork_core::consent::ConsentError| Failure::new(Exit::Failed, e);
    match command {
        ConsentCommand::Allow { value, workspace } => {
            let (approvals, ws) = approvals(workspace.workspace.as_deref())?;
            let added = approvals.allow(&value).map_err(failed)?;
            outln!(
                "{} \"{value}\" in {}.",
                if added { "Allowed" } else { "Already allowed:" },
                ws.display()
            );
        }
        ConsentCommand::Revoke { value, workspace } => {
            let (approvals, ws) = approvals(workspace.workspace.as_deref())?;
            if !approvals.revoke(&value).map_err(failed)? {
                return Err(Failure::new(
                    Exit::NotFound,
                    format!("\"{value}\" is not allowed in {}", ws.display()),
                )
                .hint("`cowork consent list` shows what is"));
            }
            outln!("Revoked \"{value}\" in {}.", ws.display());
        }
        ConsentCommand::List { json, workspace } => {
            let (approvals, ws) = approvals(workspace.workspace.as_deref())?;
            let values = approvals.list().map_err(failed)?;
            if json {
                outln!("{}", serde_json::json!(values));
            } else if values.is_empty() {
                outln!("Nothing is allowed ahead of time in {}.", ws.display());
            } else {
                for value in values {
                    outln!("{value}");
                }
            }
        }
    }
    Ok(Exit::Ok)
}
