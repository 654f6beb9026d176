//! `GET /api/events`: server-sent events of notifications, badges, registry changes, log lines and
//! finished runs.

use crate::error::ApiError;
use crate::state::{until_stopped, AppState};
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::IntoResponse;
use cowork_wire::daemon::WorkspaceQuery;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::StreamExt;

/// Every workspace's events, or only those of `?workspace=`. A workbench page's stream (it names
/// its session) keeps that session's pane tokens alive while it is open.
pub async fn events(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(query): Query<WorkspaceQuery>,
) -> Result<impl IntoResponse, ApiError> {
    let only = match query.workspace {
        Some(path) => Some(state.engine.workspace(&path)?.root().display().to_string()),
        None => None,
    };
    let following = crate::pane_tokens::session_of(&headers).map(|s| state.panes.follow(s));
    let stream = BroadcastStream::new(state.engine.subscribe()).filter_map(move |event| {
        // Held for as long as the stream is: dropping it starts the session's grace.
        let _following = &following;
        let event = event.ok()?;
        // An event of no workspace (the account's) reaches every stream.
        if let (Some(only), Some(of)) = (only.as_deref(), event.workspace()) {
            if of != only {
                return None;
            }
        }
        let data = serde_json::to_string(&event).expect("an event serializes");
        Some(Ok::<_, std::convert::Infallible>(SseEvent::default().data(data)))
    });
    Ok(Sse::new(until_stopped(&state, stream)).keep_alive(KeepAlive::default()))
}
