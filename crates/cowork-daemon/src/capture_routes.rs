//! The routes of `cowork.capture`: a pane's `capture.record` / `shot` / `current` / `stop` (through
//! `POST /api/sdk/<method>`), and the desktop shell's answers and session events. The rules and the
//! sessions are in `capture`; the recording itself is the shell's.

use crate::capture::{self, RuleError};
use crate::error::{ApiError, Body};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use cowork_engine::{CtxError, ErrorName, Event, Workspace};
use cowork_wire::daemon::capture::{
    CaptureAnswer, CaptureRequest, Order, Outcome, RecordParams, Recording, SessionEvent,
    ShotParams, Still, StopParams, Video,
};
use cowork_wire::daemon::desktop::ShellRequest;
use cowork_wire::daemon::{Flag, Taken};
use serde_json::json;
use std::path::Path;
use std::time::Duration;

/// How long a capture request waits for the person to answer the dialog.
const DIALOG_WAIT: Duration = Duration::from_secs(300);
/// How long `stop()` waits for the file to be finalised.
const STOP_WAIT: Duration = Duration::from_secs(30);

/// What a capture call answers the pane: its result, or why not (by name).
pub type Called<T> = Result<T, CtxError>;

fn refuse(error: RuleError) -> CtxError {
    CtxError::new(error.name(), error.to_string())
}

/// Refuses unless a desktop shell is attached: only it can ask the person and record.
fn desktop(state: &AppState) -> Result<(), CtxError> {
    if state.desktop.attached() {
        return Ok(());
    }
    Err(CtxError::new(
        ErrorName::Unsupported,
        "capture needs the Cowork Studio desktop app: a browser on `cowork app serve` cannot capture",
    ))
}

/// The app's declared `capture` and its title.
fn declared(
    ws: &Workspace,
    app: &str,
) -> Result<(Vec<cowork_core::manifest::Capture>, String), CtxError> {
    let registry = ws.registry();
    let found = registry.app_by_name(app).ok_or_else(|| {
        CtxError::new(ErrorName::NotFound, format!("no app \"{app}\" in {}", ws.display()))
    })?;
    Ok((found.manifest.capture.clone(), found.manifest.title.clone()))
}

/// `file` as the pane sees it: relative to the workspace.
fn shown(ws: &Workspace, file: &Path) -> String {
    file.strip_prefix(ws.root()).unwrap_or(file).display().to_string()
}

/// Sends `order` to the shell and waits for the person's answer and the shell's outcome.
async fn ask(
    state: &AppState,
    ws: &Workspace,
    app: &str,
    title: String,
    order: Order,
) -> Result<Outcome, CtxError> {
    let id = format!("c{}", hex::encode(rand::random::<[u8; 8]>()));
    let captures = &state.desktop.captures;
    let answer = captures.expect(&id);
    let request = CaptureRequest {
        id: id.clone(),
        workspace: ws.display(),
        app: app.to_string(),
        app_title: title,
        order,
    };
    if !state.desktop.send(ShellRequest::Capture(request)) {
        captures.forget(&id);
        desktop(state)?;
        return Err(CtxError::new(ErrorName::Unavailable, "the desktop app is closing"));
    }
    let outcome = tokio::time::timeout(DIALOG_WAIT, answer).await;
    captures.forget(&id);
    match outcome {
        Ok(Ok(Outcome::Failed { name, message })) => Err(CtxError::new(name, message)),
        Ok(Ok(outcome)) => Ok(outcome),
        Ok(Err(_)) => Err(CtxError::new(
            ErrorName::Unavailable,
            "the desktop app went away before it answered",
        )),
        Err(_) => {
            Err(CtxError::new(ErrorName::Denied, "nobody answered the capture dialog in 5 minutes"))
        }
    }
}

/// `capture.record(params)` from `pane` of `app`.
pub async fn record(
    state: &AppState,
    ws: &Workspace,
    app: &str,
    pane: &str,
    params: RecordParams,
) -> Called<Recording> {
    desktop(state)?;
    let (declared, title) = declared(ws, app)?;
    capture::check_record(&declared, &params).map_err(refuse)?;
    let now = jiff::Zoned::now().datetime();
    let file =
        capture::target(ws.root(), app, params.file.as_deref(), "webm", now).map_err(refuse)?;
    let relative = shown(ws, &file);
    capture::check_room(&file, &relative).map_err(refuse)?;
    let reservation = state.desktop.captures.reserve(&ws.display(), app).map_err(refuse)?;
    let order = Order::Record {
        video: params.video,
        system_audio: params.audio.system,
        mic: params.audio.mic,
        live: params.live,
        file,
    };
    match ask(state, ws, app, title, order).await? {
        Outcome::Started { session } => {
            state.desktop.captures.started(reservation, &session, app, pane, &relative);
            say(ws, app, &format!("Recording to {relative}"));
            Ok(Recording { id: session, file: relative })
        }
        other => Err(unexpected(&other)),
    }
}

/// `capture.shot(params)` from a pane of `app`.
pub async fn shot(
    state: &AppState,
    ws: &Workspace,
    app: &str,
    params: ShotParams,
) -> Called<Still> {
    desktop(state)?;
    let (declared, title) = declared(ws, app)?;
    capture::check_shot(&declared).map_err(refuse)?;
    // `image: true` alone hands the picture back; a `file`, or no `image`, saves it too.
    let file = if params.image && params.file.is_none() {
        None
    } else {
        let now = jiff::Zoned::now().datetime();
        let file =
            capture::target(ws.root(), app, params.file.as_deref(), "png", now).map_err(refuse)?;
        Some(file)
    };
    let _slot = state.desktop.captures.reserve(&ws.display(), app).map_err(refuse)?;
    let order = Order::Shot {
        source: params.source.unwrap_or(Video::Screen),
        file: file.clone(),
        image: params.image,
    };
    match ask(state, ws, app, title, order).await? {
        Outcome::Shot { image_base64 } => {
            Ok(Still { path: file.as_ref().map(|file| shown(ws, file)), image_base64 })
        }
        other => Err(unexpected(&other)),
    }
}

/// `capture.current()`: `app`'s recording in this workspace, handed to `pane`.
pub fn current(
    state: &AppState,
    ws: &Workspace,
    app: &str,
    pane: &str,
) -> Called<Option<Recording>> {
    let session = state.desktop.captures.current(&ws.display(), app, pane);
    Ok(session.map(|session| Recording { id: session.id, file: session.file }))
}

/// `capture.stop({id})`: asks the shell to stop `app`'s recording and waits until the file is final.
pub async fn stop(state: &AppState, ws: &Workspace, app: &str, params: StopParams) -> Called<()> {
    let session = match state.desktop.captures.session(&params.id) {
        Some((workspace, session)) if workspace == ws.display() && session.app == app => session,
        // Already stopped (or never this app's): nothing to do, as with a second `stop()`.
        _ => return Ok(()),
    };
    state.desktop.send(ShellRequest::CaptureStop { session: session.id.clone() });
    let mut done = session.done;
    if tokio::time::timeout(STOP_WAIT, done.wait_for(|done| *done)).await.is_err() {
        return Err(CtxError::new(ErrorName::Timeout, "the recording did not finish within 30 s"));
    }
    Ok(())
}

fn unexpected(outcome: &Outcome) -> CtxError {
    CtxError::new(
        ErrorName::Error,
        format!("the desktop app answered {outcome:?} to another kind of capture"),
    )
}

/// A recording starting or stopping: a line in the Output panel and one in the bell.
fn say(ws: &Workspace, app: &str, line: &str) {
    ws.emit(Event::Log {
        workspace: ws.display(),
        run_id: String::new(),
        routine: app.to_string(),
        stream: "capture".into(),
        line: line.to_string(),
    });
    if let Err(error) = ws.notify(app, None, &json!({ "title": line, "tag": "capture" })) {
        tracing::warn!("failed to post the capture notice of {app}: {error}");
    }
}

/// `POST /api/desktop/capture/answer` (the shell): the outcome of a capture request.
pub async fn answer(
    State(state): State<AppState>,
    Body(body): Body<CaptureAnswer>,
) -> Result<Json<Taken>, ApiError> {
    if !state.desktop.captures.answer(&body.id, body.outcome) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no capture request {} is waiting (its pane gave up)", body.id),
        ));
    }
    Ok(Json(Taken { ok: Flag }))
}

/// `POST /api/desktop/capture/event` (the shell): live audio of a recording, or its end; each goes
/// to the one pane that holds the session.
pub async fn event(
    State(state): State<AppState>,
    Body(body): Body<SessionEvent>,
) -> Result<Json<Taken>, ApiError> {
    let captures = &state.desktop.captures;
    let (workspace, session, frames, stopped) = match body {
        SessionEvent::Audio { session, frames } => {
            let Some((workspace, session)) = captures.session(&session) else {
                return Err(gone(&session));
            };
            (workspace, session, Some(frames), None)
        }
        SessionEvent::Stopped { session, reason, error } => {
            let Some((workspace, session)) = captures.ended(&session) else {
                return Err(gone(&session));
            };
            if let Ok(ws) = state.engine.workspace(Path::new(&workspace)) {
                say(&ws, &session.app, &format!("Recording saved to {} ({reason})", session.file));
            }
            let file = session.file.clone();
            (workspace, session, None, Some((file, reason, error)))
        }
    };
    if let Ok(ws) = state.engine.workspace(Path::new(&workspace)) {
        let (stopped, reason, error) = match stopped {
            Some((file, reason, error)) => (Some(file), Some(reason), error),
            None => (None, None, None),
        };
        ws.emit(Event::Capture {
            workspace,
            pane: session.pane,
            id: session.id,
            frames,
            stopped,
            reason,
            error,
        });
    }
    Ok(Json(Taken { ok: Flag }))
}

fn gone(session: &str) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, format!("no recording {session} runs"))
}
