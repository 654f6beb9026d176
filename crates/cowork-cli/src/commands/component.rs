//! `cowork component install <git url>[#ref] [--path sub] [--commit sha] [--allow-unverified]`
//! (page 05): done by `cowork_store::component`; this module reads the command line and prints.

use super::store::{failure, place};
use crate::cli::ComponentCommand;
use crate::exit::{CommandResult, Exit};
use cowork_store::component::{self, GitComponent};
use serde_json::json;

pub fn run(command: ComponentCommand) -> CommandResult {
    let ComponentCommand::Install { source, path, commit, allow_unverified, dir, json } = command;
    let ws = crate::workspace::resolve(dir.as_deref())?;
    let options = GitComponent { source: source.clone(), path, commit, allow_unverified };
    let done = component::install(&place(&ws), &options).map_err(failure)?;
    if json {
        outln!(
            "{}",
            json!({
                "ok": true,
                "dir": done.dir,
                "name": done.name,
                "version": done.version,
                "commit": done.commit,
                "files": done.files,
                "verified": false,
            })
        );
        return Ok(Exit::Ok);
    }
    eprintln!("warning: {source} is not attested by any team server: installed as --allow-unverified asks");
    outln!(
        "Installed {}@{} from {source} at {} in {}/ (pinned: it never auto-updates).",
        done.name,
        done.version,
        &done.commit[..done.commit.len().min(12)],
        done.dir
    );
    Ok(Exit::Ok)
}
