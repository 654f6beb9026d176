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
    Show { workspace: Option<String> },
    /// Ask the person for a capture (`cowork.capture.record` / `shot`), then do it.
    Capture(CaptureRequest),
    /// Stop the recording `session` (`stop()` from its pane).
    CaptureStop { session: String },
}

/// `POST /api/desktop/show`: bring the shell's window up, on `workspace` if given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShowWorkspace {
    #[serde(default)]
    pub workspace: Option<PathBuf>,
}

/// `POST /api/desktop/show`'s answer: the shell got the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shown {
    pub desktop: bool,
}

/// `POST /api/desktop/active`: the workspace the shell shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveWorkspace {
    pub workspace: PathBuf,
}

/// `POST /api/desktop/active`'s answer: the workspace as the daemon opened it (its canonical
/// path), and its badge counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Active {
    pub workspace: String,
    pub badges: Badges,
}
