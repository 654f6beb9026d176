//! What the daemon's event stream carries (the workbench, the desktop shell and `cowork` listen).

use crate::hub::Notification;
use cowork_core::audit::{self, Status};
use serde::Serialize;

/// Something the daemon's event stream carries.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Event {
    /// A notification was delivered (the bell, `cowork.onNotification`, triggers). `replaced`: it
    /// took the place of this app's not-yet-shown one with the same tag, so a shell replaces that
    /// banner instead of adding one.
    #[serde(rename_all = "camelCase")]
    Notification { workspace: String, notification: Notification, replaced: bool },
    /// An app's badge count changed.
    #[serde(rename_all = "camelCase")]
    Badge { workspace: String, app: String, count: u64, total: u64 },
    /// A workspace's apps changed on disk.
    #[serde(rename_all = "camelCase")]
    Registry { workspace: String },
    /// A line a routine logged (`ctx.log`, stdout, stderr): the Output panel.
    #[serde(rename_all = "camelCase")]
    Log { workspace: String, run_id: String, routine: String, stream: &'static str, line: String },
    /// A widget file changed on disk: its open panes reload.
    #[serde(rename_all = "camelCase")]
    Widget { workspace: String, app: String, file: String },
    /// A pane's `cowork.app.post`: every other open pane of the same app receives it.
    #[serde(rename_all = "camelCase")]
    AppMessage { workspace: String, app: String, from_pane: String, message: serde_json::Value },
    /// A recording's live audio (`frames`: base64 20 ms of 16 kHz mono S16LE each, in order) or its
    /// end (`stopped`: the workspace-relative file; `reason`: why, in words; `error`: the error
    /// name when something stopped it — `DiskFull`, or `Unavailable` when it broke), for the one
    /// pane that holds the session.
    #[serde(rename_all = "camelCase")]
    Capture {
        workspace: String,
        pane: String,
        id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        frames: Option<Vec<String>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        stopped: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// What a pane said to the workbench's agent (`chat.ask`, `agent.*`): recorded for the chat pane.
    #[serde(rename_all = "camelCase")]
    Agent { workspace: String, app: String, method: String, params: serde_json::Value },
    /// `cowork app open`: the workbench opens an app, or one of its widget files `as` a tab,
    /// dialog or side-bar pane.
    #[serde(rename_all = "camelCase")]
    Open { workspace: String, app: String, file: Option<String>, r#as: Option<String> },
    /// The workspace's task store changed (a task sent, taken, finished… by any process).
    #[serde(rename_all = "camelCase")]
    Queues { workspace: String },
    /// A run a trigger started waits for a concurrency slot (listed by
    /// [`crate::Workspace::running`] as queued until its `runStarted` event, or its `run` event when
    /// it is refused).
    #[serde(rename_all = "camelCase")]
    RunQueued { workspace: String, run_id: String, routine: String },
    /// A run started (it is listed by [`crate::Workspace::running`] until its `run` event).
    #[serde(rename_all = "camelCase")]
    RunStarted { workspace: String, run_id: String, routine: String },
    /// The signed-in Cowork account changed (a sign-in, a sign-out, its team servers): not of
    /// one workspace, so every stream carries it; a window reads `/api/account` again.
    #[serde(rename_all = "camelCase")]
    Account { signed_in: bool },
    /// A run finished.
    #[serde(rename_all = "camelCase")]
    Run {
        workspace: String,
        run_id: String,
        routine: String,
        status: Status,
        duration_ms: u64,
        /// Why it failed, masked as its audit line is.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<audit::RecordedError>,
    },
}
