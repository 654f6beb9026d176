//! The Chat's routes on the owner's API (behind the owner gate, as every owner route):
//! `GET /api/chat` (the conversations), `GET /api/chat/transcript`, `POST /api/chat/send`,
//! `POST /api/chat/answer`, `POST /api/chat/interrupt`, `POST /api/chat/install`, and `GET /api/chat/events`, the
//! conversations' events as server-sent events.

use crate::error::{ApiError, Body};
use crate::state::{until_stopped, AppState};
use axum::extract::{Query, State};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::Json;
use cowork_wire::chat::{
    AnswerBody, ConversationBody, Conversations, InstallBody, Installed, SendBody, Sent, Transcript,
};
use cowork_wire::daemon::Changed;
use serde::Deserialize;
use std::path::PathBuf;
use std::sync::Arc;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::StreamExt;

#[derive(Deserialize)]
pub struct WorkspaceQuery {
    workspace: PathBuf,
    conversation: Option<String>,
}

pub async fn list(
    State(state): State<AppState>,
    Query(query): Query<WorkspaceQuery>,
) -> Result<Json<Conversations>, ApiError> {
    let ws = state.engine.workspace(&query.workspace)?;
    let cli = crate::chat::choice(&state, ws.root()).id().to_string();
    Ok(Json(Conversations { conversations: crate::chat::list(&state, ws.root()), cli }))
}

pub async fn transcript(
    State(state): State<AppState>,
    Query(query): Query<WorkspaceQuery>,
) -> Result<Json<Transcript>, ApiError> {
    let ws = state.engine.workspace(&query.workspace)?;
    let id = query.conversation.unwrap_or_default();
    Ok(Json(Transcript { events: crate::chat::transcript(&state, ws.root(), &id)? }))
}

pub async fn send(
    State(state): State<AppState>,
    Body(body): Body<SendBody>,
) -> Result<Json<Sent>, ApiError> {
    Ok(Json(crate::chat::send(&state, body).await?))
}

pub async fn answer(
    State(state): State<AppState>,
    Body(body): Body<AnswerBody>,
) -> Result<Json<Changed>, ApiError> {
    crate::chat::answer(&state, body).await?;
    Ok(Json(Changed { changed: true }))
}

pub async fn interrupt(
    State(state): State<AppState>,
    Body(body): Body<ConversationBody>,
) -> Result<Json<Changed>, ApiError> {
    Ok(Json(Changed { changed: crate::chat::interrupt(&state, body).await? }))
}

/// Installs an agent CLI from npm; answers when npm is done (its output streams as events).
pub async fn install(
    State(state): State<AppState>,
    Body(body): Body<InstallBody>,
) -> Result<Json<Installed>, ApiError> {
    Ok(Json(crate::chat::install(&state, body).await?))
}

/// The workspace's chat events (of one conversation with `?conversation=`), from now on.
pub async fn events(
    State(state): State<AppState>,
    Query(query): Query<WorkspaceQuery>,
) -> Result<impl IntoResponse, ApiError> {
    let workspace = state.engine.workspace(&query.workspace)?.root().to_path_buf();
    let only = query.conversation;
    let stream = BroadcastStream::new(state.chat.subscribe()).filter_map(move |emitted| {
        let emitted = emitted.ok()?;
        let wanted = emitted.workspace == workspace
            && only.as_ref().is_none_or(|c| *c == emitted.event.conversation);
        let data = serde_json::to_string(&emitted.event).ok().filter(|_| wanted)?;
        Some(Ok::<_, std::convert::Infallible>(SseEvent::default().data(data)))
    });
    Ok(Sse::new(until_stopped(&state, stream)).keep_alive(KeepAlive::default()))
}

/// The Chat's routes (the caller puts them behind the owner gate).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/api/chat", get(list))
        .route("/api/chat/transcript", get(transcript))
        .route("/api/chat/send", post(send))
        .route("/api/chat/answer", post(answer))
        .route("/api/chat/interrupt", post(interrupt))
        .route("/api/chat/install", post(install))
        .route("/api/chat/events", get(events))
}

impl crate::chat::Host for AppState {
    fn chats(&self) -> &Arc<crate::chat::Chats> {
        &self.chat
    }

    fn engine(&self) -> &Arc<cowork_engine::Engine> {
        &self.engine
    }

    fn port(&self) -> u16 {
        self.port
    }
}
