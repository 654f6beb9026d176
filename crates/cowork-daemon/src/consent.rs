//! The questions routines ask (`ctx.command.run`, `ctx.consent.request`): `GET
//! /api/consent/requests` streams them to every window that shows the consent modal, and each
//! one's close (answered in some window, or withdrawn by its asker) so the other windows close
//! theirs; `POST /api/consent/answer` carries the person's answer back. While a window is
//! connected, routines wait for its answer instead of being refused.

use crate::error::{ApiError, Body};
use crate::state::{until_stopped, AppState};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::Json;
use cowork_engine::Engine;
use cowork_wire::daemon::consent::{Answered, ConsentAnswer};
use std::sync::Arc;

pub async fn requests(State(state): State<AppState>) -> impl IntoResponse {
    let stream = stream_of_requests(state.engine.clone());
    Sse::new(until_stopped(&state, stream)).keep_alive(KeepAlive::default())
}

fn stream_of_requests(
    engine: Arc<Engine>,
) -> impl tokio_stream::Stream<Item = Result<SseEvent, std::convert::Infallible>> {
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tokio::spawn(async move {
        let broker = engine.consent().clone();
        let mut listener = broker.listen();
        loop {
            tokio::select! {
                event = listener.events.recv() => match event {
                    Ok(event) => {
                        let data = serde_json::to_string(&event).expect("an event serializes");
                        if tx.send(Ok(SseEvent::default().data(data))).await.is_err() {
                            break;
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(_) => break,
                },
                () = tx.closed() => break,
            }
        }
    });
    tokio_stream::wrappers::ReceiverStream::new(rx)
}

/// `POST /api/consent/answer`: the person's answer, to the routine or widget waiting for it.
pub async fn answer(
    State(state): State<AppState>,
    Body(body): Body<ConsentAnswer>,
) -> Result<Json<Answered>, ApiError> {
    let answered = state.engine.consent().answer(
        &body.id,
        cowork_engine::consent::Answer { granted: body.granted, remember: body.remember },
    );
    if !answered {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!(
                "no consent question {} is waiting (answered already, or its run ended)",
                body.id
            ),
        ));
    }
    Ok(Json(Answered { answered: true }))
}
