//! What the daemon's event stream carries (the workbench, the desktop shell and `cowork` listen).

use crate::notifications::Notification;
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
    Notification {
        /// The workspace's folder.
        workspace: String,
        /// The notification.
        notification: Notification,
        /// It replaced a not-yet-shown one with the same tag.
        replaced: bool,
    },
    /// An app's badge count changed.
    #[serde(rename_all = "camelCase")]
    Badge {
        /// The workspace's folder.
        workspace: String,
        /// The app whose count changed.
        app: String,
        /// Its count now.
        count: u64,
        /// The sum over the apps that are not muted.
        total: u64,
    },
    /// A workspace's apps changed on disk.
    #[serde(rename_all = "camelCase")]
    Registry {
        /// The workspace's folder.
        workspace: String,
    },
    /// A line a routine logged (`ctx.log`, stdout, stderr): the Output panel.
    #[serde(rename_all = "camelCase")]
    Log {
        /// The workspace's folder.
        workspace: String,
        /// The run that logged it.
        run_id: String,
        /// Its routine.
        routine: String,
        /// `log` (`ctx.log`, `console.*`), `stdout` or `stderr`.
        stream: &'static str,
        /// The line, secrets masked.
        line: String,
    },
    /// A widget file changed on disk: its open panes reload.
    #[serde(rename_all = "camelCase")]
    Widget {
        /// The workspace's folder.
        workspace: String,
        /// The app.
        app: String,
        /// The widget file, relative to the app's folder.
        file: String,
    },
    /// A pane's `cowork.app.post`: every other open pane of the same app receives it.
    #[serde(rename_all = "camelCase")]
    AppMessage {
        /// The workspace's folder.
        workspace: String,
        /// The app whose panes receive it.
        app: String,
        /// The pane that posted it, which does not receive it back.
        from_pane: String,
        /// What the pane posted.
        message: serde_json::Value,
    },
    /// A recording's live audio (`frames`: base64 20 ms of 16 kHz mono S16LE each, in order) or its
    /// end (`stopped`: the workspace-relative file; `reason`: why, in words; `error`: the error
    /// name when something stopped it — `DiskFull`, or `Unavailable` when it broke), for the one
    /// pane that holds the session.
    #[serde(rename_all = "camelCase")]
    Capture {
        /// The workspace's folder.
        workspace: String,
        /// The pane that holds the session.
        pane: String,
        /// The capture session's id.
        id: String,
        /// Live audio: base64 frames, in order.
        #[serde(skip_serializing_if = "Option::is_none")]
        frames: Option<Vec<String>>,
        /// At the end: the workspace-relative file.
        #[serde(skip_serializing_if = "Option::is_none")]
        stopped: Option<String>,
        /// At the end: why it stopped, in words.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// At the end, when something stopped it: `DiskFull` or `Unavailable`.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<cowork_core::error_name::ErrorName>,
    },
    /// What a pane said to the workbench's agent (`chat.ask`, `agent.*`): recorded for the chat pane.
    #[serde(rename_all = "camelCase")]
    Agent {
        /// The workspace's folder.
        workspace: String,
        /// The app whose pane said it.
        app: String,
        /// `chat.ask` or an `agent.*` method.
        method: String,
        /// What the pane passed.
        params: serde_json::Value,
    },
    /// `cowork app open`: the workbench opens an app, or one of its widget files `as` a tab,
    /// dialog or side-bar pane.
    #[serde(rename_all = "camelCase")]
    Open {
        /// The workspace's folder.
        workspace: String,
        /// The app to open.
        app: String,
        /// One of its widget files, when one was named.
        file: Option<String>,
        /// How to open it: a tab, a dialog or a side-bar pane.
        r#as: Option<String>,
    },
    /// The workspace's task store changed (a task sent, taken, finished… by any process).
    #[serde(rename_all = "camelCase")]
    Queues {
        /// The workspace's folder.
        workspace: String,
    },
    /// A run a trigger started waits for a concurrency slot (listed by
    /// [`crate::Workspace::running`] as queued until its `runStarted` event, or its `run` event when
    /// it is refused).
    #[serde(rename_all = "camelCase")]
    RunQueued {
        /// The workspace's folder.
        workspace: String,
        /// The run's id.
        run_id: String,
        /// Its routine.
        routine: String,
    },
    /// A run started (it is listed by [`crate::Workspace::running`] until its `run` event).
    #[serde(rename_all = "camelCase")]
    RunStarted {
        /// The workspace's folder.
        workspace: String,
        /// The run's id.
        run_id: String,
        /// Its routine.
        routine: String,
    },
    /// The signed-in Cowork account changed (a sign-in, a sign-out, its team servers): not of
    /// one workspace, so every stream carries it; a window reads `/api/account` again.
    #[serde(rename_all = "camelCase")]
    Account {
        /// Whether this machine is signed in now.
        signed_in: bool,
    },
    /// A run finished.
    #[serde(rename_all = "camelCase")]
    Run {
        /// The workspace's folder.
        workspace: String,
        /// The run's id.
        run_id: String,
        /// Its routine.
        routine: String,
        /// `ok`, `error` or `denied`.
        status: Status,
        /// How long it took, in milliseconds.
        duration_ms: u64,
        /// Why it failed, masked as its audit line is.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<audit::RecordedError>,
    },
}
