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
    pub version: String,
    pub pid: u32,
    pub port: u16,
    pub root: PathBuf,
    /// Whether a desktop shell is attached.
    pub desktop: bool,
}

/// `GET /api/status` (`cowork status`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub version: String,
    pub pid: u32,
    pub port: u16,
    pub root: PathBuf,
    pub uptime_s: u64,
    pub runtime: Option<Runtime>,
    pub runtime_error: Option<String>,
    pub slots: Slots,
    /// Runtime processes started ahead of demand, each waiting for one run.
    pub spares: SparesView,
    /// The daemon's own view of the secret store's key (null when asking failed).
    pub secrets: Option<KeyModeView>,
    pub workspaces: Vec<OpenWorkspace>,
}

/// Concurrency slots in use, of how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slots {
    pub used: usize,
    pub max: usize,
    /// Runs a trigger started that wait for a slot.
    pub queued: usize,
}

/// An open workspace, as `cowork status` lists it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpenWorkspace {
    pub path: PathBuf,
    pub apps: usize,
    pub routines: usize,
    pub notifications: Vec<Notification>,
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
    pub stopping: bool,
}

/// Bun or Node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuntimeKind {
    Bun,
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
    pub kind: RuntimeKind,
    pub path: PathBuf,
    pub version: String,
    /// Where it was found: `COWORK_BUN`, `PATH` or `installed`.
    pub found_in: String,
}

/// Whether warm spares are kept, and what is kept now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SparesView {
    pub enabled: bool,
    pub max: usize,
    pub memory_budget_bytes: u64,
    pub groups: Vec<SpareGroup>,
}

/// One runtime + workspace + environment's spares, as `cowork status` shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpareGroup {
    pub runtime: PathBuf,
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
