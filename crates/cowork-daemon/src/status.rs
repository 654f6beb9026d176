//! The daemon's own state: `GET /api/health` (who answers here), `GET /api/status` (what it
//! runs) and `POST /api/stop`.

use crate::client::KeyModeView;
use crate::state::AppState;
use axum::extract::State;
use axum::Json;
use cowork_engine::notifications::{Badges, Notification};
use cowork_engine::runtime::Runtime;
use serde::Serialize;
use std::path::PathBuf;

/// `GET /api/health`: what the CLI checks before it trusts a daemon as its root's.
#[derive(Serialize)]
pub struct Health {
    pub service: &'static str,
    pub version: &'static str,
    pub pid: u32,
    pub port: u16,
    pub root: PathBuf,
    /// Whether a desktop shell is attached.
    pub desktop: bool,
}

pub async fn health(State(state): State<AppState>) -> Json<Health> {
    Json(Health {
        service: "cowork-studio",
        version: env!("CARGO_PKG_VERSION"),
        pid: std::process::id(),
        port: state.port,
        root: state.engine.root().dir().to_path_buf(),
        desktop: state.desktop.attached(),
    })
}

/// `GET /api/status` (`cowork status`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub version: &'static str,
    pub pid: u32,
    pub port: u16,
    pub root: PathBuf,
    pub uptime_s: u64,
    pub runtime: Option<Runtime>,
    pub runtime_error: Option<String>,
    pub slots: Slots,
    /// Runtime processes started ahead of demand, each waiting for one run.
    pub spares: cowork_engine::SparesView,
    /// The daemon's own view of the secret store's key (null when asking failed).
    pub secrets: Option<KeyModeView>,
    pub workspaces: Vec<OpenWorkspace>,
}

/// Concurrency slots in use, of how many.
#[derive(Serialize)]
pub struct Slots {
    pub used: usize,
    pub max: usize,
    /// Runs a trigger started that wait for a slot.
    pub queued: usize,
}

/// An open workspace, as `cowork status` lists it.
#[derive(Serialize)]
pub struct OpenWorkspace {
    pub path: PathBuf,
    pub apps: usize,
    pub routines: usize,
    pub notifications: Vec<Notification>,
    pub badges: Badges,
}

pub async fn status(State(state): State<AppState>) -> Json<Status> {
    let engine = &state.engine;
    // The daemon's own view (its environment chooses the key source, not the CLI's); the
    // keychain is asked over D-Bus, so off the async threads.
    let root = engine.root().clone();
    let secrets =
        tokio::task::spawn_blocking(move || KeyModeView::from(&cowork_secrets::probe(&root)))
            .await
            .ok();
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
        version: env!("CARGO_PKG_VERSION"),
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

/// `POST /api/stop`'s answer.
#[derive(Serialize)]
pub struct Stopping {
    pub stopping: bool,
}

pub async fn stop(State(state): State<AppState>) -> Json<Stopping> {
    state.shutdown.notify_one();
    Json(Stopping { stopping: true })
}
