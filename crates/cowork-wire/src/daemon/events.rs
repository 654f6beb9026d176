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
    Notification { workspace: String, notification: Notification, replaced: bool },
    /// An app's badge count changed.
    #[serde(rename_all = "camelCase")]
    Badge { workspace: String, app: String, count: u64, total: u64 },
    /// A workspace's apps changed on disk.
    #[serde(rename_all = "camelCase")]
    Registry { workspace: String },
    /// A line a routine logged (`ctx.log`, stdout, stderr), a widget's `cowork.log`, or a
    /// recording's start and end: the Output panel.
    #[serde(rename_all = "camelCase")]
    Log {
        workspace: String,
        run_id: String,
        routine: String,
        /// `log`, `stdout`, `stderr`, `error`, `warn`…, `widget` or `capture`.
        #[cfg_attr(feature = "typescript", ts(type = "string"))]
        stream: Cow<'static, str>,
        line: String,
    },
    /// A widget file changed on disk: its open panes reload.
    #[serde(rename_all = "camelCase")]
    Widget { workspace: String, app: String, file: String },
    /// A pane's `cowork.app.post`: every other open pane of the same app receives it.
    #[serde(rename_all = "camelCase")]
    AppMessage {
        workspace: String,
        app: String,
        from_pane: String,
        #[cfg_attr(feature = "typescript", ts(type = "unknown"))]
        message: serde_json::Value,
    },
    /// A recording's live audio (`frames`: base64 20 ms of 16 kHz mono S16LE each, in order) or its
    /// end (`stopped`: the workspace-relative file; `reason`: why, in words; `error`: the error
    /// name when something stopped it — `DiskFull`, or `Unavailable` when it broke), for the one
    /// pane that holds the session.
    #[serde(rename_all = "camelCase")]
    Capture {
        workspace: String,
        pane: String,
        id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "typescript", ts(optional))]
        frames: Option<Vec<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "typescript", ts(optional))]
        stopped: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "typescript", ts(optional))]
        reason: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "typescript", ts(optional, type = "\"DiskFull\" | \"Unavailable\""))]
        error: Option<ErrorName>,
    },
    /// What a pane said to the workbench's agent (`chat.ask`, `agent.*`): recorded for the chat pane.
    #[serde(rename_all = "camelCase")]
    Agent {
        workspace: String,
        app: String,
        method: String,
        #[cfg_attr(feature = "typescript", ts(type = "unknown"))]
        params: serde_json::Value,
    },
    /// `cowork app open`: the workbench opens an app, or one of its widget files `as` a tab,
    /// dialog or side-bar pane.
    #[serde(rename_all = "camelCase")]
    Open {
        workspace: String,
        app: String,
        file: Option<String>,
        #[cfg_attr(
            feature = "typescript",
            ts(type = "\"tab\" | \"dialog\" | \"sidemenu\" | null")
        )]
        r#as: Option<String>,
    },
    /// The workspace's task store changed (a task sent, taken, finished… by any process).
    #[serde(rename_all = "camelCase")]
    Queues { workspace: String },
    /// A run a trigger started waits for a concurrency slot (listed as queued among the running
    /// runs until its `runStarted` event, or its `run` event when it is refused).
    #[serde(rename_all = "camelCase")]
    RunQueued { workspace: String, run_id: String, routine: String },
    /// A run started (listed among the running runs until its `run` event).
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
        #[cfg_attr(feature = "typescript", ts(type = "\"ok\" | \"error\" | \"denied\""))]
        status: Status,
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
