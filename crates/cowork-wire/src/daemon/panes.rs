//! Widget panes: `POST /api/panes` (a pane of an app's widget file: its frame page, its token and
//! the widget prepared to run) and `POST /api/sdk/<method>`, one `window.cowork` call of a pane
//! as its app, with the params of each method the daemon answers.

use super::runs::RunFailure;
use super::{Answer, CtxError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// `POST /api/panes`: a pane of `app` showing `file`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenPane {
    /// The workspace the app is in.
    pub workspace: PathBuf,
    /// The app's manifest name.
    pub app: String,
    /// The widget file, relative to the app folder.
    pub file: String,
}

/// A pane, opened: the frame page on the app's own origin, its token, and its widget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OpenedPane {
    /// The pane's id: the session its SDK calls and events name.
    pub pane_id: String,
    /// The token the pane's SDK calls carry (`Authorization: Bearer`); it ends with the page's session.
    pub pane_token: String,
    /// The frame page on the app's own origin.
    pub src: String,
    /// The widget, prepared to run, or why it cannot.
    pub widget: Widget,
    /// The workspace folder, as the pane shows paths relative to it.
    pub workspace_root: PathBuf,
}

/// A pane's widget: prepared to run, or why it cannot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum Widget {
    /// The widget compiled, with the modules it loads.
    Ready(PreparedWidget),
    /// The widget cannot run: its pane shows the error.
    Broken {
        /// The widget file, relative to the app folder.
        file: String,
        /// Why it cannot run, with where.
        error: WidgetError,
    },
}

/// A widget ready to run: its CommonJS body and the modules it loads (the frame preloads them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PreparedWidget {
    /// The widget file, relative to the app folder.
    pub file: String,
    /// The widget's body, transpiled to CommonJS.
    pub code: String,
    /// The modules it loads, for the frame to preload.
    pub imports: Vec<WidgetImport>,
}

/// One module a widget loads, where its source says so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct WidgetImport {
    /// The module's name as the source imports it (`react`, `lucide-react`…).
    pub specifier: String,
    /// The import's line in the source (1-based).
    pub line: u32,
    /// The import's column in the source (1-based).
    pub column: u32,
    /// The exports the widget takes by name, when it takes nothing else from the module: the
    /// frame then loads only those of an icon set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub names: Option<Vec<String>>,
}

/// Why a widget cannot run, with where — shown in its pane, headed by its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[error("{file}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct WidgetError {
    /// The kind of fault, which heads the message.
    pub name: WidgetErrorName,
    /// The widget file, relative to the app folder.
    pub file: String,
    /// The line of the fault (1-based), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub line: Option<u32>,
    /// The column of the fault (1-based), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub column: Option<u32>,
    /// What is wrong, in words.
    pub message: String,
}

/// What kind of fault keeps a widget from running: the name its pane shows the message under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum WidgetErrorName {
    /// The file could not be read.
    Unreadable,
    /// The source does not parse, or declares a name twice.
    SyntaxError,
    /// An import outside the allowlist (a relative one included).
    ImportNotAllowed,
    /// No `export default` component.
    NoDefaultExport,
    /// Not a file type a widget can be (`.jsx`, `.tsx`, …).
    UnsupportedFile,
    /// Cowork could not write its transpile cache.
    Internal,
}

/// One SDK call's answer: `{ok: true, result}`, or `{ok: false, error}` — a call that failed is
/// an answer the widget's promise rejects with, not an HTTP error.
pub type SdkAnswer = Answer<Value, SdkError>;

/// Why an SDK call failed: a routine's run failure (with its run id), or the call's own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SdkError {
    /// The routine ran and failed (`routines.run`): its run failure, with its run id.
    Run(RunFailure),
    /// The call itself failed (bad params, denied, not found…).
    Call(CtxError),
}

/// `routines.run({id, args, timeoutMs})`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunParams {
    /// The routine's id in the workspace (`<app>/<routine>`, or its name within the pane's own app).
    pub id: String,
    /// The routine's input; none = `{}`.
    #[serde(default)]
    pub args: Option<Value>,
    /// How long the run may take, in milliseconds; none = the routine's own timeout.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// `routines.runs({id, app})`: both narrow the list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunsParams {
    /// Only the runs of this routine.
    #[serde(default)]
    pub id: Option<String>,
    /// Only the runs of this app's routines.
    #[serde(default)]
    pub app: Option<String>,
}

/// `credentials.get/connect({name, fields})`: no `fields` is a sign-in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CredentialParams {
    /// The credential's name, as the app's manifest declares it.
    pub name: String,
    /// The fields to store (a form's answer); none = sign in with the service.
    #[serde(default)]
    pub fields: Option<Value>,
}

/// `consent.request({value, title, body, detail})`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentParams {
    /// The stable label the approval is remembered under.
    #[serde(default)]
    pub value: Option<String>,
    /// The dialog's title.
    #[serde(default)]
    pub title: Option<String>,
    /// The dialog's text.
    #[serde(default)]
    pub body: Option<String>,
    /// More detail, shown folded.
    #[serde(default)]
    pub detail: Option<String>,
}

/// `state.get({view})` / `state.set({view, value})`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StateParams {
    /// The view whose state it is; none = the pane's own.
    #[serde(default)]
    pub view: Option<String>,
    /// The state to keep (`state.set`); ignored by `state.get`.
    #[serde(default)]
    pub value: Value,
}

/// `log({parts})`: strings are logged as they are, anything else as its JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogParams {
    /// What to log, in order.
    #[serde(default)]
    pub parts: Vec<Value>,
}

/// `app.post({message})`: the message goes to every other pane of the app.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PostParams {
    /// The message, any JSON.
    #[serde(default)]
    pub message: Value,
}
