//! What every handler shares: the engine, the tokens, and the daemon's own lifecycle.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::Notify;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The engine: the workspaces opened, their runs and events.
    pub engine: Arc<cowork_engine::Engine>,
    /// The owner token every request must carry.
    pub token: Arc<str>,
    /// The port we listen on (the Host header must name it).
    pub port: u16,
    /// When the daemon started (`uptime_s` in `/api/status`).
    pub started: Instant,
    /// Notified by `POST /api/stop`.
    pub shutdown: Arc<Notify>,
    /// The open widget panes and their tokens.
    pub panes: Arc<crate::pane_tokens::Panes>,
    /// The workspace the workbench shows when the page names none (`cowork app serve <folder>`).
    pub default_workspace: Option<PathBuf>,
    /// Turns true when the daemon begins to stop: event streams end then (see [`until_stopped`]).
    pub stopping: tokio::sync::watch::Receiver<bool>,
    /// The desktop shell attached to this daemon, if any.
    pub desktop: Arc<crate::desktop_channel::DesktopChannel>,
    /// The one-time codes workbench pages trade for the owner token.
    pub codes: Arc<crate::session_codes::Codes>,
    /// The MCP door's sessions (initialize era).
    pub mcp: Arc<crate::mcp_sessions::Sessions>,
    /// The door on a listener of its own (`cowork agent door`), when open.
    pub door: Arc<crate::door_listener::Doors>,
    /// The signed-in Cowork account (the engine holds it too).
    pub account: Arc<crate::account::AccountHost>,
    /// The workbench Chat's conversations and their agent CLIs.
    pub chat: Arc<crate::chat::Chats>,
}

/// `stream`, ending when the daemon begins to stop: a graceful stop waits for running routines,
/// never for a window that follows events (it would wait forever).
pub fn until_stopped<S: tokio_stream::Stream>(
    state: &AppState,
    stream: S,
) -> impl tokio_stream::Stream<Item = S::Item> {
    let mut stopping = state.stopping.clone();
    futures_util::StreamExt::take_until(stream, async move {
        let _ = stopping.wait_for(|stopping| *stopping).await;
    })
}
