//! `GET /api/events`: server-sent events of notifications, badges, registry changes, log lines and
//! finished runs.

use crate::error::ApiError;
use crate::state::{until_stopped, AppState};
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::IntoResponse;
use serde::Deserialize;
use std::path::PathBuf;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::StreamExt;

#[derive(Deserialize)]
pub struct EventsQuery {
    workspace: Option<PathBuf>,
}

/// Every workspace's events, or only those of `?workspace=`. A workbench page's stream (it names
/// its session) keeps that session's pane tokens alive while it is open.
pub async fn events(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(query): Query<EventsQuery>,
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
        let value = serde_json::to_value(&event).ok()?;
        if let Some(only) = &only {
            // An event of no workspace (the account's) reaches every stream.
            if value.get("workspace").is_some()
                && value["workspace"].as_str() != Some(only.as_str())
            {
                return None;
            }
        }
        Some(Ok::<_, std::convert::Infallible>(SseEvent::default().data(value.to_string())))
    });
    Ok(Sse::new(until_stopped(&state, stream)).keep_alive(KeepAlive::default()))
}
