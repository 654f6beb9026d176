//! Finding the daemon of a Cowork root, and trusting it.
//!
//! A daemon is "ours" only when its pidfile names a live process AND it answers `/api/health` with
//! our owner token and our root: a stale pidfile, or another program that took the port, never
//! passes for Cowork (single instance, identity-verified). What is found is talked to through
//! cowork-wire's typed client, [`Daemon`].

use cowork_core::paths::Root;
use cowork_wire::daemon::client::{ClientError, Daemon};
use cowork_wire::daemon::DEFAULT_PORT;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

/// How long a daemon has to answer `/api/health` before it counts as not answering.
const HEALTH_WITHIN: Duration = Duration::from_secs(3);

/// What a running daemon writes to `<root>/daemon.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PidFile {
    /// The daemon's process id.
    pub pid: u32,
    /// The port it listens on.
    pub port: u16,
    /// The Cowork root it serves.
    pub root: PathBuf,
    /// Its Cowork version.
    pub version: String,
    /// When it started (RFC 3339).
    pub started_at: String,
}

impl PidFile {
    /// The pidfile of `root`, when there is one that parses (a crashed daemon's is left behind).
    pub fn read(root: &Root) -> Option<PidFile> {
        let text = std::fs::read_to_string(root.pid_file()).ok()?;
        serde_json::from_str(&text).ok()
    }
}

/// Whether process `pid` exists and has not exited (a zombie waiting for its parent has).
pub fn is_alive(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state letter follows the command name, which is in parentheses and may hold spaces.
        return stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X");
    }
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    // SAFETY: signal 0 only checks that the process exists and we may signal it.
    #[allow(unsafe_code)]
    let result = unsafe { libc::kill(pid, 0) };
    result == 0
}

/// Whether process `pid` is a Cowork daemon: the `cowork` binary serving (`start`, `app serve`) or
/// the desktop app, which hosts one. Read from `/proc/<pid>/cmdline`; elsewhere it cannot be
/// verified, and an unverified process is never treated as ours (nor killed).
pub fn is_cowork_daemon(pid: u32) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { return false };
    let args: Vec<String> =
        cmdline.split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
    let Some(program) = args
        .first()
        .and_then(|a| std::path::Path::new(a).file_name())
        .map(|n| n.to_string_lossy().into_owned())
    else {
        return false;
    };
    match program.as_str() {
        "cowork-desktop" => true,
        "cowork" => args.iter().skip(1).any(|a| a == "start" || a == "serve"),
        _ => false,
    }
}

/// A daemon that answers as its root's: its process, and the typed client that talks to it.
#[derive(Debug, Clone)]
pub struct Running {
    /// The daemon's process id.
    pub pid: u32,
    /// The typed client that talks to it.
    pub daemon: Daemon,
}

impl Running {
    /// Asks the daemon to stop and waits (up to `wait`) for its process to end; false when it
    /// still runs then (routines in flight finish first).
    pub async fn stop(&self, wait: Duration) -> Result<bool, ClientError> {
        self.daemon.stop().await?;
        let deadline = std::time::Instant::now() + wait;
        while std::time::Instant::now() < deadline {
            if !is_alive(self.pid) {
                return Ok(true);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(!is_alive(self.pid))
    }
}

/// What the pidfile of a root leads to.
#[derive(Debug)]
pub enum Found {
    /// A daemon that answers as this root's.
    Running(Running),
    /// The pidfile's process is alive and is a Cowork daemon, but it does not answer as this
    /// root's (stopped, hung, or its token replaced): nothing may take the root over while it
    /// lives, since it still holds the port and would serve again.
    NotAnswering {
        /// The process that holds the root.
        pid: u32,
        /// The port it listens on.
        port: u16,
    },
    /// Nothing runs: no pidfile, or its process is gone or is another program.
    Nothing,
}

/// The daemon of `root`, if one is running and proves it is ours.
pub async fn discover(root: &Root) -> Option<Running> {
    match find(root).await {
        Found::Running(running) => Some(running),
        Found::NotAnswering { .. } | Found::Nothing => None,
    }
}

/// The port the daemon of `root` listens on: the running one's, else the one a daemon started now
/// would take (remembered in `config.json`, else the default).
pub async fn port(root: &Root) -> u16 {
    match discover(root).await {
        Some(running) => running.daemon.port(),
        None => configured_port(root),
    }
}

/// What runs for `root`: a daemon that answers, one that is alive but does not, or nothing.
pub async fn find(root: &Root) -> Found {
    let Some(pidfile) = PidFile::read(root) else {
        return Found::Nothing;
    };
    if !is_alive(pidfile.pid) {
        return Found::Nothing;
    }
    if let Some(daemon) = answering(root, &pidfile).await {
        return Found::Running(Running { pid: pidfile.pid, daemon });
    }
    if is_cowork_daemon(pidfile.pid) {
        Found::NotAnswering { pid: pidfile.pid, port: pidfile.port }
    } else {
        Found::Nothing
    }
}

/// A client of the pidfile's daemon, when it answers with this root and this pid.
async fn answering(root: &Root, pidfile: &PidFile) -> Option<Daemon> {
    let token = std::fs::read_to_string(root.token_file()).ok()?.trim().to_string();
    let daemon = Daemon::new(pidfile.port, token).ok()?;
    let health = daemon.health_within(HEALTH_WITHIN).await.ok()?;
    (health.root == root.dir() && health.pid == pidfile.pid).then_some(daemon)
}

/// The port a daemon started now would take: the one Cowork remembered, else the default (what
/// the agents' connect lines name when no daemon runs yet).
pub fn configured_port(root: &Root) -> u16 {
    read_config(root)["port"].as_u64().and_then(|p| u16::try_from(p).ok()).unwrap_or(DEFAULT_PORT)
}

/// `<root>/config.json`, or `{}` when there is none or it is not an object.
pub(crate) fn read_config(root: &Root) -> Value {
    std::fs::read_to_string(root.config_file())
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}))
}
