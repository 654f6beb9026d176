//! `GET /api/events`: what the daemon's event stream carries, one server-sent event each (`data:`
//! the JSON of an [`Event`]). The workbench, the desktop shell and `cowork start` listen; the
//! engine emits them.

use super::notifications::Notification;
use super::ErrorName;
use cowork_core::audit::{RecordedError, Status};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Something the daemon's event stream carries. Every event but `account` names its workspace
/// (its canonical path, as text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(rename = "DaemonEvent"))]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Event {
    /// A notification was delivered (the bell, `cowork.onNotification`, triggers). `replaced`: it
    /// took the place of this app's not-yet-shown one with the same tag, so a shell replaces that
    /// banner instead of adding one.
    #[serde(rename_all = "camelCase")]
    Notification {
        /// The workspace it was posted in.
        workspace: String,
        /// The notification as delivered.
        notification: Notification,
        /// It took the place of a not-yet-shown one with the same tag.
        replaced: bool,
    },
    /// An app's badge count changed.
    #[serde(rename_all = "camelCase")]
    Badge {
        /// The app's workspace.
        workspace: String,
        /// The app whose count changed.
        app: String,
        /// The app's new count.
        count: u64,
        /// The workspace's sum over the apps that are not muted.
        total: u64,
        /// Where a site app's count comes from, once its shell said (the app summary's
        /// `unreadSource`, which Manage Workspace shows): a site can switch it at any report.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(
            feature = "typescript",
            ts(optional, type = "\"badge\" | \"title\" | \"notifications\"")
        )]
        unread_source: Option<String>,
    },
    /// A workspace's apps changed on disk.
    #[serde(rename_all = "camelCase")]
    Registry {
        /// The workspace whose apps changed.
        workspace: String,
    },
    /// A line a routine logged (`ctx.log`, stdout, stderr), a widget's `cowork.log`, or a
    /// recording's start and end: the Output panel.
    #[serde(rename_all = "camelCase")]
    Log {
        /// The run's workspace.
        workspace: String,
        /// The run the line belongs to (a widget's or a recording's own id for theirs).
        run_id: String,
        /// The routine that logged it (the app, for a widget's line or a recording's).
        routine: String,
        /// `log`, `stdout`, `stderr`, `error`, `warn`…, `widget` or `capture`.
        #[cfg_attr(feature = "typescript", ts(type = "string"))]
        stream: Cow<'static, str>,
        /// The line, as logged.
        line: String,
    },
    /// A widget file changed on disk: its open panes reload.
    #[serde(rename_all = "camelCase")]
    Widget {
        /// The app's workspace.
        workspace: String,
        /// The app the widget belongs to.
        app: String,
        /// The widget file, relative to the app folder.
        file: String,
    },
    /// A pane's `cowork.app.post`: every other open pane of the same app receives it.
    #[serde(rename_all = "camelCase")]
    AppMessage {
        /// The app's workspace.
        workspace: String,
        /// The app whose panes receive it.
        app: String,
        /// The pane that posted it: it does not receive its own message.
        from_pane: String,
        /// The message, as posted.
        #[cfg_attr(feature = "typescript", ts(type = "unknown"))]
        message: serde_json::Value,
    },
    /// A recording's live audio (`frames`: base64 20 ms of 16 kHz mono S16LE each, in order) or its
    /// end (`stopped`: the workspace-relative file; `reason`: why, in words; `error`: the error
    /// name when something stopped it — `DiskFull`, or `Unavailable` when it broke), for the one
    /// pane that holds the session.
    #[serde(rename_all = "camelCase")]
    Capture {
        /// The recording's workspace.
        workspace: String,
        /// The pane that holds the session: the only one the event is for.
        pane: String,
        /// The recording's session id.
        id: String,
        /// Live audio frames, base64, in order.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "typescript", ts(optional))]
        frames: Option<Vec<String>>,
        /// The workspace-relative file, once the recording ended.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "typescript", ts(optional))]
        stopped: Option<String>,
        /// Why it stopped, in words.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "typescript", ts(optional))]
        reason: Option<String>,
        /// What stopped it when it was not asked to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "typescript", ts(optional, type = "\"DiskFull\" | \"Unavailable\""))]
        error: Option<ErrorName>,
    },
    /// What a pane said to the workbench's agent (`chat.ask`, `agent.*`): recorded for the chat pane.
    #[serde(rename_all = "camelCase")]
    Agent {
        /// The pane's workspace.
        workspace: String,
        /// The app whose pane said it.
        app: String,
        /// The SDK method (`chat.ask`, `agent.…`).
        method: String,
        /// The method's params, as the pane gave them.
        #[cfg_attr(feature = "typescript", ts(type = "unknown"))]
        params: serde_json::Value,
    },
    /// `cowork app open`: the workbench opens an app, or one of its widget files `as` a tab,
    /// dialog or side-bar pane.
    #[serde(rename_all = "camelCase")]
    Open {
        /// The app's workspace.
        workspace: String,
        /// The app to open.
        app: String,
        /// A widget file of the app to open as a pane; none = the app itself.
        file: Option<String>,
        #[cfg_attr(
            feature = "typescript",
            ts(type = "\"tab\" | \"dialog\" | \"sidemenu\" | null")
        )]
        /// Where the widget file opens: `tab`, `dialog` or `sidemenu`.
        r#as: Option<String>,
    },
    /// The workspace's task store changed (a task sent, taken, finished… by any process).
    #[serde(rename_all = "camelCase")]
    Queues {
        /// The workspace whose task store changed.
        workspace: String,
    },
    /// A run a trigger started waits for a concurrency slot (listed as queued among the running
    /// runs until its `runStarted` event, or its `run` event when it is refused).
    #[serde(rename_all = "camelCase")]
    RunQueued {
        /// The run's workspace.
        workspace: String,
        /// The run, as its `run` event will name it.
        run_id: String,
        /// The routine that will run.
        routine: String,
    },
    /// A run started (listed among the running runs until its `run` event).
    #[serde(rename_all = "camelCase")]
    RunStarted {
        /// The run's workspace.
        workspace: String,
        /// The run, as its `run` event will name it.
        run_id: String,
        /// The routine that runs.
        routine: String,
    },
    /// The signed-in Cowork account changed (a sign-in, a sign-out, its team servers): not of
    /// one workspace, so every stream carries it; a window reads `/api/account` again.
    #[serde(rename_all = "camelCase")]
    Account {
        /// Someone is signed in now.
        signed_in: bool,
    },
    /// A run finished.
    #[serde(rename_all = "camelCase")]
    Run {
        /// The run's workspace.
        workspace: String,
        /// The run that finished.
        run_id: String,
        /// The routine that ran.
        routine: String,
        /// `ok`, `error` or `denied`.
        #[cfg_attr(feature = "typescript", ts(type = "\"ok\" | \"error\" | \"denied\""))]
        status: Status,
        /// How long it ran, in milliseconds.
        duration_ms: u64,
        /// Why it failed, masked as its audit line is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(
            feature = "typescript",
            ts(optional, type = "{ name: string; message: string }")
        )]
        error: Option<RecordedError>,
    },
}

impl Event {
    /// The workspace the event is about (its canonical path, as text); `None` for an event of
    /// no workspace (the account's), which reaches every stream.
    pub fn workspace(&self) -> Option<&str> {
        match self {
            Event::Notification { workspace, .. }
            | Event::Badge { workspace, .. }
            | Event::Registry { workspace }
            | Event::Log { workspace, .. }
            | Event::Widget { workspace, .. }
            | Event::AppMessage { workspace, .. }
            | Event::Capture { workspace, .. }
            | Event::Agent { workspace, .. }
            | Event::Open { workspace, .. }
            | Event::Queues { workspace }
            | Event::RunQueued { workspace, .. }
            | Event::RunStarted { workspace, .. }
            | Event::Run { workspace, .. } => Some(workspace),
            Event::Account { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_reads_back_as_it_was_sent() {
        let events = [
            Event::Log {
                workspace: "/w".into(),
                run_id: "r1".into(),
                routine: "notes-sync".into(),
                stream: "stdout".into(),
                line: "hello".into(),
            },
            Event::Open { workspace: "/w".into(), app: "notes".into(), file: None, r#as: None },
            Event::Capture {
                workspace: "/w".into(),
                pane: "p1".into(),
                id: "s1".into(),
                frames: None,
                stopped: Some("Recordings/a.webm".into()),
                reason: Some("asked to stop".into()),
                error: None,
            },
        ];
        for event in events {
            let text = serde_json::to_string(&event).unwrap();
            assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), event, "{text}");
        }
        let text = r#"{"type":"runStarted","workspace":"/w","runId":"r2","routine":"a"}"#;
        let event: Event = serde_json::from_str(text).unwrap();
        assert_eq!(event.workspace(), Some("/w"));
        assert_eq!(serde_json::to_string(&event).unwrap(), text);
    }
}
