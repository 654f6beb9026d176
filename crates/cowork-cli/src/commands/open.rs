//! `cowork open [--browser]`: the workbench where the person works — the desktop app when it runs
//! (its window comes up on this workspace), or a new desktop app where one is installed and a
//! display exists, else a browser tab through the running daemon (or one started here).

use crate::exit::{CommandResult, Exit};
use crate::workspace;
use cowork_core::paths::Root;
use cowork_wire::daemon::desktop::ShowWorkspace;
use std::path::{Path, PathBuf};

/// The desktop app's binary name, installed beside `cowork`.
const DESKTOP_BIN: &str = "cowork-desktop";

pub async fn run(browser: bool, flag: Option<&Path>) -> CommandResult {
    let ws = workspace::resolve(flag)?;
    let running = cowork_daemon::discovery::discover(&Root::from_env()).await;
    if !browser {
        // A running desktop app takes the request (its window shows, switched to this workspace).
        if let Some(running) = &running {
            let show = ShowWorkspace { workspace: Some(ws.clone()) };
            if running.daemon.show(&show).await.is_ok() {
                outln!("Cowork Studio: showing {}", ws.display());
                return Ok(Exit::Ok);
            }
        }
        if let Some(desktop) = desktop_binary().filter(|_| has_display()) {
            spawn_detached(&desktop, &ws)?;
            outln!("Starting Cowork Studio on {}", ws.display());
            return Ok(Exit::Ok);
        }
    }
    super::app::serve(Some(ws), None, false).await
}

/// `$COWORK_DESKTOP_BIN`, else `cowork-desktop` beside this binary, else on the PATH.
pub(crate) fn desktop_binary() -> Option<PathBuf> {
    if let Some(bin) = std::env::var_os("COWORK_DESKTOP_BIN").filter(|b| !b.is_empty()) {
        return Some(PathBuf::from(bin));
    }
    let beside = std::env::current_exe().ok()?.parent()?.join(DESKTOP_BIN);
    if beside.is_file() {
        return Some(beside);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths).map(|dir| dir.join(DESKTOP_BIN)).find(|bin| bin.is_file())
    })
}

/// Whether a window can be drawn here (a server over SSH has no display: a browser tab it is).
pub(crate) fn has_display() -> bool {
    if cfg!(target_os = "linux") {
        ["DISPLAY", "WAYLAND_DISPLAY"]
            .iter()
            .any(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty()))
    } else {
        true
    }
}

/// Starts the desktop app in its own process group, not tied to this terminal.
fn spawn_detached(bin: &Path, ws: &Path) -> Result<(), crate::exit::Failure> {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    Command::new(bin)
        .arg(ws)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map(drop)
        .map_err(|e| {
            crate::exit::Failure::new(
                Exit::Failed,
                format!("failed to start {}: {e}", bin.display()),
            )
            .hint("`cowork open --browser` opens the workbench in a browser tab instead")
        })
}
