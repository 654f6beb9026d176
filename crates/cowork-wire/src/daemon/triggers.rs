//! Manage Workspace › Workflows and the Monitor: each routine with a trigger — its state, next
//! fire, last run, what changed since it was armed — (`GET /api/deploy/workflows`) and the Active
//! switch (`POST /api/deploy/active`, which `cowork routine active --json` answers too).

use super::runs::RunningRun;
use cowork_core::audit::{Source, Status};
use cowork_core::triggers::arming::Digest;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// `GET /api/deploy/workflows`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Workflows {
    /// This workspace's triggers are armed (fire on their own).
    pub armed: bool,
    /// Each routine with a trigger.
    pub workflows: Vec<TriggeredRoutine>,
    /// How many routines run now, in every workspace (the daemon's slots in use).
    pub running: usize,
    /// How many triggered runs wait for a slot now, in every workspace.
    pub queued: usize,
    /// This workspace's runs started and not finished, oldest first: the Monitor's running runs
    /// (a triggered run waiting for a slot is listed `queued`, since when it was queued).
    pub running_now: Vec<RunningRun>,
    /// The last runs triggers started here, newest first.
    pub recent: Vec<TriggeredRun>,
}

/// One routine with a trigger, as the Workflows list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TriggeredRoutine {
    /// The routine's id (`<app>/<routine>`).
    pub id: String,
    /// The app the routine belongs to.
    pub app: String,
    /// `schedule`, `webhook`, `notifications` — the triggers this machine answers.
    pub triggers: Vec<String>,
    /// Its cron schedule, when it has one (`0 8 * * *`: at 08:00 every day).
    pub schedule: Option<String>,
    /// `routine list`'s state column.
    pub state: String,
    /// The Active switch's position.
    pub active: bool,
    /// The triggers `workspace.json` declares now: what switching it on (or confirming) arms.
    #[cfg_attr(feature = "typescript", ts(type = "Digest"))]
    pub declared: Digest,
    /// How the triggers changed since the owner armed them (`armed: …; now: …`), when they did:
    /// nothing fires until the owner confirms.
    pub changed: Option<String>,
    /// The next scheduled fire (RFC 3339, local offset), when a schedule is active.
    pub next: Option<String>,
    /// Its last run, when it ran.
    pub last_run: Option<LastRun>,
}

/// A routine's last run, as the Workflows list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LastRun {
    /// The run's id.
    pub run_id: String,
    /// When it started, RFC 3339 UTC.
    pub ts: String,
    /// `ok`, `error` or `denied`.
    #[cfg_attr(feature = "typescript", ts(type = "\"ok\" | \"error\" | \"denied\""))]
    pub status: Status,
    /// What started it (the audit `source`).
    #[cfg_attr(feature = "typescript", ts(type = "Source"))]
    pub source: Source,
}

/// What started a triggered run, as the Monitor names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum FiredBy {
    /// Its schedule came due.
    Schedule,
    /// A schedule's one run for the minutes it missed.
    CatchUp,
    /// A call to its webhook.
    Webhook,
    /// A notification of an app it listens to.
    Notification,
}

/// A run a trigger started, for the Monitor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TriggeredRun {
    /// The run's id.
    pub run_id: String,
    /// The routine that ran.
    pub routine: String,
    /// When it started, RFC 3339 UTC.
    pub ts: String,
    /// `ok`, `error` or `denied`.
    #[cfg_attr(feature = "typescript", ts(type = "\"ok\" | \"error\" | \"denied\""))]
    pub status: Status,
    /// What started it.
    pub trigger: FiredBy,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// How long it waited for a concurrency slot before it started, when it did.
    pub queued_ms: Option<u64>,
}

/// `POST /api/deploy/active`: the Active switch of routine `id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwitchActive {
    /// The workspace; none = the daemon's default workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<PathBuf>,
    /// The routine's id (`<app>/<routine>`).
    pub id: String,
    /// On or off.
    pub active: bool,
    /// The triggers the owner was shown when they confirmed: nothing is armed when the file says
    /// something else by now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Digest>,
}

/// What the Active switch answers (`cowork routine active --json` prints the same).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Switched {
    /// Always `true`: a switch that fails is an error answer.
    pub ok: bool,
    /// The routine's id.
    pub id: String,
    /// The switch's position now.
    pub active: bool,
    /// `routine list`'s state column (`active · <cron>`, `on demand`, `off`…).
    pub state: String,
}
