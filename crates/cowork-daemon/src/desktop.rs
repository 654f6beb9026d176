//! The desktop channel: how the one desktop shell of a Cowork root attaches to the daemon.
//!
//! A shell holds `GET /api/desktop/requests` open for its whole life; while it does, the daemon
//! knows a desktop app is running (`/api/health` says `desktop: true`) and forwards "show this
//! workspace" requests to it — a second launch of the shell and `cowork open` use that, which makes
//! the shell single-instance without a lock of its own. The shell names the active workspace
//! (`POST /api/desktop/active`); only its notifications are delivered, and the choice ends with the
//! channel, so a crashed shell never leaves the other workspaces silenced.

use crate::error::{ApiError, Body};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::Json;
use cowork_engine::ErrorName;
use cowork_wire::daemon::desktop::{Active, ActiveWorkspace, ShellRequest, ShowWorkspace, Shown};
use cowork_wire::daemon::notifications::{
    Counted, Delivered, NotificationsShown, SiteReport, UnreadSource,
};
use cowork_wire::daemon::Empty;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tokio_stream::StreamExt;

/// Clears the channel (and the active workspace) when the shell's stream is dropped.
struct Detach {
    state: AppState,
    tx: mpsc::UnboundedSender<ShellRequest>,
}

impl Drop for Detach {
    fn drop(&mut self) {
        if self.state.desktop.detach(&self.tx) {
            let _ = self.state.engine.set_active(None);
        }
    }
}

/// `GET /api/desktop/requests`: the shell's channel (server-sent events); 409 while another
/// shell holds it.
pub async fn requests(State(state): State<AppState>) -> Result<impl IntoResponse, ApiError> {
    let (tx, rx) = mpsc::unbounded_channel();
    if !state.desktop.attach(tx.clone()) {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "another Cowork Studio window already holds the desktop channel",
        ));
    }
    let stream = crate::state::until_stopped(&state, UnboundedReceiverStream::new(rx));
    let detach = Detach { state, tx };
    let stream = stream.map(move |request| {
        let _held = &detach;
        Ok::<_, std::convert::Infallible>(
            SseEvent::default()
                .data(serde_json::to_string(&request).expect("a shell request serializes")),
        )
    });
    // Frequent keep-alives: a write to a closed connection is how a vanished shell is noticed.
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(5))))
}

/// `POST /api/desktop/show`: brings the shell's window up, on `workspace` if given.
pub async fn show(
    State(state): State<AppState>,
    Body(body): Body<ShowWorkspace>,
) -> Result<Json<Shown>, ApiError> {
    let workspace = body.workspace.map(|path| state.engine.workspace(&path)).transpose()?;
    let request = ShellRequest::Show { workspace: workspace.map(|ws| ws.display()) };
    if !state.desktop.send(request) {
        return Err(ApiError::named(
            StatusCode::CONFLICT,
            ErrorName::Unavailable,
            "Cowork Studio's desktop app is not running",
        ));
    }
    Ok(Json(Shown { desktop: true }))
}

/// `POST /api/desktop/active`: the workspace the shell shows; answers its badge counts.
pub async fn active(
    State(state): State<AppState>,
    Body(body): Body<ActiveWorkspace>,
) -> Result<Json<Active>, ApiError> {
    let ws = state.engine.set_active(Some(&body.workspace))?.expect("a path was given");
    Ok(Json(Active {
        workspace: ws.display(),
        badges: ws.notifications().badges(|app| ws.is_muted(app)),
    }))
}

/// `POST /api/notifications/shown`: the person saw this app's notifications (clicked a banner,
/// opened the app), so a later one with the same tag no longer replaces them.
pub async fn shown(
    State(state): State<AppState>,
    Body(body): Body<NotificationsShown>,
) -> Result<Json<Empty>, ApiError> {
    state.engine.workspace(&body.workspace)?.notifications().shown(&body.app);
    Ok(Json(Empty {}))
}

/// The site app `body.app` names, in its workspace: only a site app's page reports through the
/// shell (a widget or routine has its own, app-bound way).
fn site_app(
    state: &AppState,
    body: &SiteReport,
) -> Result<std::sync::Arc<cowork_engine::Workspace>, ApiError> {
    let ws = state.engine.workspace(&body.workspace)?;
    let registry = ws.registry();
    match registry.app_by_name(&body.app) {
        Some(app) if app.manifest.is_site_app() => Ok(ws.clone()),
        Some(_) => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("\"{}\" is not a site app", body.app),
        )),
        None => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no app \"{}\" in {}", body.app, ws.display()),
        )),
    }
}

/// `POST /api/desktop/notify`: a site app's page raised a notification (its `Notification`, its
/// service worker's `showNotification`); it goes through the same hub as `cowork.notify`.
pub async fn site_notify(
    State(state): State<AppState>,
    Body(body): Body<SiteReport>,
) -> Result<Json<Delivered>, ApiError> {
    let ws = site_app(&state, &body)?;
    let delivery = ws
        .notify(&body.app, None, &body.notification)
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e.to_string()))?;
    Ok(Json(Delivered { delivery }))
}

/// `POST /api/desktop/badge`: a site app's unread count (`setAppBadge`, its title's `(N)`, or the
/// shell's count of notifications since the window was last focused).
pub async fn site_badge(
    State(state): State<AppState>,
    Body(body): Body<SiteReport>,
) -> Result<Json<Counted>, ApiError> {
    let ws = site_app(&state, &body)?;
    if let Some(source) = body.unread_source.as_deref() {
        if UnreadSource::parse(source).is_none() {
            let sources: Vec<&str> = UnreadSource::ALL.iter().map(|s| s.as_str()).collect();
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                format!("unreadSource is one of {}, not \"{source}\"", sources.join(", ")),
            ));
        }
        ws.notifications().set_unread_source(&body.app, source);
    }
    let count = ws
        .badge(&body.app, None, &body.count)
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e.to_string()))?;
    Ok(Json(Counted { count }))
}
