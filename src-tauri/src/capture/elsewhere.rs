//! `cowork.capture` on a system this build cannot record on (only X11 with PulseAudio or PipeWire is
//! recorded): every capture request is answered `Unsupported`, by name, at once.

use crate::shell::Shell;
use cowork_daemon::capture::{Answer, CaptureRequest, Outcome};
use std::path::Path;
use tauri::{AppHandle, Manager};

/// Nothing records here.
#[derive(Default)]
pub struct Capturing;

pub fn init(_app: &AppHandle) {}

/// Answers the request `Unsupported`.
pub fn on_request(app: &AppHandle, request: serde_json::Value) {
    let Ok(request) = serde_json::from_value::<CaptureRequest>(request) else { return };
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let outcome = Outcome::Failed {
            name: cowork_core::error_name::ErrorName::Unsupported,
            message: format!(
                "Cowork Studio records the screen and sound on Linux (X11) only, not on {}",
                std::env::consts::OS
            ),
        };
        let answer = serde_json::to_value(Answer { id: request.id, outcome })
            .expect("a capture answer serializes");
        if let Err(error) =
            app.state::<Shell>().link.daemon.post("/api/desktop/capture/answer", &answer).await
        {
            tracing::warn!("failed to answer a capture request: {error}");
        }
    });
}

pub fn on_stop_request(_app: &AppHandle, _request: &serde_json::Value) {}

pub fn on_switch(_app: &AppHandle, _workspace: &Path) {}

pub async fn stop_for_quit(_app: &AppHandle) {}
