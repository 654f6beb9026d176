//! The desktop shell's channel: what the daemon asks the one attached shell
//! (`GET /api/desktop/requests`, one [`ShellRequest`] per server-sent event), a second launch's
//! or `cowork open`'s "show this workspace" (`POST /api/desktop/show`), and the workspace the
//! shell shows (`POST /api/desktop/active`).

use super::capture::CaptureRequest;
use super::notifications::Badges;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What the daemon asks the shell, one server-sent event each.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ShellRequest {
    /// Bring the window up, on this workspace if one is named.
    Show {
        /// The workspace to show (its canonical path); none = the one shown already.
        workspace: Option<String>,
    },
    /// Ask the person for a capture (`cowork.capture.record` / `shot`), then do it.
    Capture(CaptureRequest),
    /// Stop the recording `session` (`stop()` from its pane).
    CaptureStop {
        /// The recording's session id.
        session: String,
    },
    /// Drive the browser (`ctx.browser`, `cowork mcp-browser`); answer on
    /// `POST /api/desktop/browser/answer`.
    Browser(crate::browser::ShellBrowserRequest),
    /// Ask the person whether a routine or an agent may drive the browser (on a site); answer on
    /// `POST /api/desktop/browser/answer`.
    BrowserConsent(crate::browser::ConsentQuestion),
}

/// `POST /api/desktop/show`: bring the shell's window up, on `workspace` if given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShowWorkspace {
    /// The workspace folder to show; none = the one the shell shows already.
    #[serde(default)]
    pub workspace: Option<PathBuf>,
}

/// `POST /api/desktop/show`'s answer: the shell got the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shown {
    /// Always `true`: with no shell attached the call fails (`Unavailable`).
    pub desktop: bool,
}

/// `POST /api/desktop/active`: the workspace the shell shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveWorkspace {
    /// The workspace folder the shell shows now.
    pub workspace: PathBuf,
}

/// `POST /api/desktop/active`'s answer: the workspace as the daemon opened it (its canonical
/// path), and its badge counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Active {
    /// The workspace's canonical path.
    pub workspace: String,
    /// Its unread counts, as the shell shows them on its icon.
    pub badges: Badges,
}
