//! The daemon's own state: `GET /api/health` (who answers here), `GET /api/status` (what it runs,
//! `cowork status`) and `POST /api/stop`; with the runtime and the warm spares the status shows,
//! which the engine keeps in these shapes.

use super::notifications::{Badges, Notification};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What every daemon's health says as its `service`.
pub const SERVICE: &str = "cowork-studio";

/// `GET /api/health`: what the CLI checks before it trusts a daemon as its root's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    /// Always [`SERVICE`].
    pub service: String,
    /// The daemon's Cowork version.
    pub version: String,
    /// The daemon's process id.
    pub pid: u32,
    /// The port it listens on.
    pub port: u16,
    /// The Cowork root it serves.
    pub root: PathBuf,
    /// Whether a desktop shell is attached.
    pub desktop: bool,
}

/// `GET /api/status` (`cowork status`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// The daemon's Cowork version.
    pub version: String,
    /// The daemon's process id.
    pub pid: u32,
    /// The port it listens on.
    pub port: u16,
    /// The Cowork root it serves.
    pub root: PathBuf,
    /// How long it has run, in seconds.
    pub uptime_s: u64,
    /// The runtime routines run on; none when none was found.
    pub runtime: Option<Runtime>,
    /// Why no runtime was found, with the fix.
    pub runtime_error: Option<String>,
    /// Concurrency slots in use.
    pub slots: Slots,
    /// Runtime processes started ahead of demand, each waiting for one run.
    pub spares: SparesView,
    /// The daemon's own view of the secret store's key (null when asking failed).
    pub secrets: Option<KeyModeView>,
    /// The workspaces it has open.
    pub workspaces: Vec<OpenWorkspace>,
}

/// Concurrency slots in use, of how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slots {
    /// Slots running a routine now.
    pub used: usize,
    /// How many routines may run at once.
    pub max: usize,
    /// Runs a trigger started that wait for a slot.
    pub queued: usize,
}

/// An open workspace, as `cowork status` lists it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpenWorkspace {
    /// The workspace folder.
    pub path: PathBuf,
    /// How many apps it has.
    pub apps: usize,
    /// How many routines its apps declare.
    pub routines: usize,
    /// Its notifications not yet seen.
    pub notifications: Vec<Notification>,
    /// Its badge counts.
    pub badges: Badges,
}

/// Where the secret store's key is read from, as `/api/status` (the daemon's) and
/// `cowork status --json` (the CLI's) write it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyModeView {
    /// `keychain` or `key-file`.
    pub mode: String,
    /// Which keychain entry or which file, and why that one.
    pub detail: String,
    /// The key could be read.
    pub ok: bool,
    /// What is wrong, with what to do, when `ok` is false.
    pub problem: Option<String>,
}

impl KeyModeView {
    /// Whether `other` reads the key from the same place (its mode and detail).
    pub fn same_source(&self, other: &KeyModeView) -> bool {
        self.mode == other.mode && self.detail == other.detail
    }
}

/// `POST /api/stop`'s answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stopping {
    /// Always `true`: the daemon stops once it has answered.
    pub stopping: bool,
}

/// Bun or Node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuntimeKind {
    /// Bun.
    Bun,
    /// Node.js.
    Node,
}

impl std::fmt::Display for RuntimeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RuntimeKind::Bun => "bun",
            RuntimeKind::Node => "node",
        })
    }
}

/// A JavaScript runtime found on this machine, which routines run on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Runtime {
    /// Bun or Node.
    pub kind: RuntimeKind,
    /// The runtime's executable.
    pub path: PathBuf,
    /// Its version, as it reports it.
    pub version: String,
    /// Where it was found: `COWORK_BUN`, `PATH` or `installed`.
    pub found_in: String,
}

/// Whether warm spares are kept, and what is kept now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SparesView {
    /// Spares are kept (unless `<root>/config.json` says `"spares": false`).
    pub enabled: bool,
    /// At most this many spares in all.
    pub max: usize,
    /// The memory the spares may take together, in bytes.
    pub memory_budget_bytes: u64,
    /// The spares kept now, by runtime, workspace and environment.
    pub groups: Vec<SpareGroup>,
}

/// One runtime + workspace + environment's spares, as `cowork status` shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpareGroup {
    /// The runtime's executable.
    pub runtime: PathBuf,
    /// The workspace the spares run routines of.
    pub workspace: PathBuf,
    /// Started and waiting for a run.
    pub waiting: usize,
    /// Being started.
    pub starting: usize,
    /// Resident memory of the waiting ones, in bytes.
    pub resident_bytes: u64,
    /// The waiting ones' process ids, the next to be claimed last.
    pub pids: Vec<u32>,
}
