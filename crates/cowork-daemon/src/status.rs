//! The daemon's own state: `GET /api/health` (who answers here), `GET /api/status` (what it
//! runs) and `POST /api/stop`.

use crate::state::AppState;
use axum::extract::State;
use axum::Json;
use cowork_wire::daemon::status::{
    Health, KeyModeView, OpenWorkspace, Slots, Status, Stopping, SERVICE,
};

pub async fn health(State(state): State<AppState>) -> Json<Health> {
    Json(Health {
        service: SERVICE.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        pid: std::process::id(),
        port: state.port,
        root: state.engine.root().dir().to_path_buf(),
        desktop: state.desktop.attached(),
    })
}

/// A key mode as `/api/status` (the daemon's) and `cowork status --json` (the CLI's) write it.
pub fn key_mode(mode: &cowork_secrets::KeyMode) -> KeyModeView {
    KeyModeView {
        mode: mode.kind.as_str().into(),
        detail: mode.detail.clone(),
        ok: mode.ok,
        problem: mode.problem.clone(),
    }
}

pub async fn status(State(state): State<AppState>) -> Json<Status> {
    let engine = &state.engine;
    // The daemon's own view (its environment chooses the key source, not the CLI's); the
    // keychain is asked over D-Bus, so off the async threads.
    let root = engine.root().clone();
    let secrets =
        tokio::task::spawn_blocking(move || key_mode(&cowork_secrets::probe(&root))).await.ok();
    let (used, max) = engine.slots();
    let workspaces = engine
        .open_workspaces()
        .iter()
        .map(|ws| {
            let registry = ws.registry();
            OpenWorkspace {
                path: ws.root().to_path_buf(),
                apps: registry.apps.len(),
                routines: registry.routines.len(),
                notifications: ws.notifications().bell(),
                badges: ws.notifications().badges(|app| ws.is_muted(app)),
            }
        })
        .collect();
    Json(Status {
        version: env!("CARGO_PKG_VERSION").into(),
        pid: std::process::id(),
        port: state.port,
        root: engine.root().dir().to_path_buf(),
        uptime_s: state.started.elapsed().as_secs(),
        runtime: engine.runtime().ok().cloned(),
        runtime_error: engine.runtime().err().map(|e| e.to_string()),
        slots: Slots { used, max, queued: engine.queued() },
        spares: engine.spares(),
        secrets,
        workspaces,
    })
}

pub async fn stop(State(state): State<AppState>) -> Json<Stopping> {
    state.shutdown.notify_one();
    Json(Stopping { stopping: true })
}
