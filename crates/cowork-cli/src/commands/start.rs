//! `cowork start --headless`: the daemon in the foreground.

use crate::cli::StartArgs;
use crate::exit::{CommandResult, Exit, Failure};
use cowork_core::paths::Root;
use cowork_daemon::{StartError, StartOptions};
use std::io::Write;

pub async fn run(args: StartArgs) -> CommandResult {
    let workspace = crate::workspace::resolve(args.folder.as_deref())?;
    let options = StartOptions {
        port: args.port,
        force: args.force,
        slots: args.slots.map(usize::from),
        queue: args.queue.map(usize::from),
        workspace: Some(workspace.clone()),
    };
    serve(options, (!args.headless).then_some(workspace), false).await
}

/// Opens `url` in the default browser — the program `$BROWSER` names (its first entry), else the
/// system's opener; false when there is none to open.
pub fn open_browser(url: &str) -> bool {
    let chosen = std::env::var("BROWSER").ok();
    let chosen =
        chosen.as_deref().and_then(|list| list.split(':').next()).filter(|b| !b.trim().is_empty());
    let opener = chosen.unwrap_or(if cfg!(target_os = "macos") { "open" } else { "xdg-open" });
    std::process::Command::new(opener.trim())
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs the daemon in the foreground; with `workbench`, says where the workbench is (and opens it
/// unless `no_open`).
pub async fn serve(
    options: StartOptions,
    workbench: Option<std::path::PathBuf>,
    no_open: bool,
) -> CommandResult {
    let root = Root::from_env();
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
        Ok(runtime) => format!("{} {} ({})", runtime.kind, runtime.version, runtime.path.display()),
        Err(error) => format!("none — {error}"),
    };
    // A daemon outlives whoever started it: a closed stdout (a launcher that went away) must not
    // bring it down, so these lines ignore write errors instead of panicking as println! would.
    let mut out = std::io::stdout();
    let _ = writeln!(
        out,
        "Cowork daemon listening on http://127.0.0.1:{} (root {}, runtime {runtime})",
        started.port,
        root.dir().display()
    );
    let _ = writeln!(out, "Stop it with Ctrl-C or `cowork stop`.");
    if let Some(workspace) = workbench {
        let url = started.workbench_link(&workspace);
        let _ = writeln!(out, "Workbench: {url}");
        if !no_open && !open_browser(&url) {
            let _ = writeln!(out, "(no browser to open here: open the address above)");
        }
    }
    tokio::spawn(print_routine_logs(started.engine.subscribe()));
    started.serve().await.map_err(|e| Failure::new(Exit::Failed, e))?;
    Ok(Exit::Ok)
}

/// Prints every line a routine logs (`ctx.log`, stdout, stderr) as `[<run> <routine>] <line>`:
/// the daemon's output is where a headless run's log is followed live. The lines come masked, as
/// the audit keeps them.
async fn print_routine_logs(mut events: tokio::sync::broadcast::Receiver<cowork_engine::Event>) {
    use tokio::io::AsyncWriteExt;
    use tokio::sync::broadcast::error::RecvError;
    // Asynchronous, so a reader that stops reading stalls only this task (which then skips lines),
    // never a thread the routines need.
    let mut out = tokio::io::stdout();
    loop {
        let text = match events.recv().await {
            Ok(cowork_engine::Event::Log { run_id, routine, line, .. }) => {
                let run: String = run_id.chars().take(8).collect();
                format!("[{run} {routine}] {line}\n")
            }
            Ok(_) => continue,
            Err(RecvError::Lagged(missed)) => format!("({missed} routine log lines came too fast to print; the audit log keeps each run's tail)\n"),
            Err(RecvError::Closed) => return,
        };
        // Ignored like the start-up lines: a closed stdout must not stop the daemon.
        let _ = out.write_all(text.as_bytes()).await;
        let _ = out.flush().await;
    }
}
