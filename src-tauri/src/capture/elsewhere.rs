//! `cowork.capture` on a system this build cannot record on (only X11 with PulseAudio or PipeWire is
//! recorded): every capture request is answered `Unsupported`, by name, at once.

use crate::hooks::Hooks;
use crate::session::Session;
use cowork_wire::daemon::capture::{CaptureAnswer, CaptureRequest, Outcome};
use cowork_wire::daemon::desktop::ShellRequest;
use tauri::{AppHandle, Manager};

/// Nothing records here: the desktop channel's capture requests are answered at once.
pub fn init(app: &tauri::App) {
    app.state::<Hooks>().on_request(|app, request| {
        if let ShellRequest::Capture(request) = request {
            on_request(app, request.clone());
        }
    });
}

/// Answers the request `Unsupported`.
fn on_request(app: &AppHandle, request: CaptureRequest) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let outcome = Outcome::Failed {
            name: cowork_core::error_name::ErrorName::Unsupported,
            message: format!(
                "Cowork Studio records the screen and sound on Linux (X11) only, not on {}",
                std::env::consts::OS
            ),
        };
        let answer = CaptureAnswer { id: request.id, outcome };
        if let Err(error) = app.state::<Session>().link.daemon.capture_answer(&answer).await {
            tracing::warn!("failed to answer a capture request: {error}");
        }
    });
}
