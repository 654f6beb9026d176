//! `cowork start --headless`: the daemon in the foreground.

use crate::cli::StartArgs;
use crate::exit::{CommandResult, Exit, Failure};
use cowork_core::paths::Root;
use cowork_daemon::{StartError, StartOptions};
use std::io::Write;

pub async fn run(args: StartArgs) -> CommandResult {
    if !args.headless {
        eprintln!("note: the workbench is not part of this build yet; starting the routine runner headless");
    }
    let root = Root::from_env();
    let options = StartOptions { port: args.port, force: args.force, slots: args.slots.map(usize::from) };
    let started = match cowork_daemon::start(root.clone(), options).await {
        Ok(started) => started,
        Err(error @ StartError::AlreadyRunning { .. }) => {
            // Not a failure: the one instance is there, which is what the person wanted.
            println!("{error}");
            return Ok(Exit::Ok);
        }
        Err(error) => {
            let hint = error.hint();
            let failure = Failure::new(Exit::Failed, &error).caused_by(&error);
            return Err(match hint {
                Some(hint) => failure.hint(hint),
                None => failure,
            });
        }
    };
    if let Some(wanted) = started.moved_from {
        let _ = writeln!(std::io::stderr(), "note: port {wanted} is taken by another program; listening on {} instead (remembered in {})", started.port, root.config_file().display());
    }
    let runtime = match started.engine.runtime() {
        Ok(runtime) => format!("{:?} {} ({})", runtime.kind, runtime.version, runtime.path.display()).to_lowercase(),
        Err(error) => format!("none — {error}"),
    };
    // A daemon outlives whoever started it: a closed stdout (a launcher that went away) must not
    // bring it down, so these lines ignore write errors instead of panicking as println! would.
    let mut out = std::io::stdout();
    let _ = writeln!(out, "Cowork daemon listening on http://127.0.0.1:{} (root {}, runtime {runtime})", started.port, root.dir().display());
    let _ = writeln!(out, "Stop it with Ctrl-C or `cowork stop`.");
    started.serve().await.map_err(|e| Failure::new(Exit::Failed, e))?;
    Ok(Exit::Ok)
}
