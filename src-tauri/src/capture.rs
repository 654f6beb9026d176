//! `cowork.capture` in the desktop app: the daemon checks a pane's request (declared, file, free
//! space, one per workspace) and sends it down the desktop channel; here the person is asked in
//! Cowork's own dialog, and on Allow the still is taken or the recording starts, with the pill and
//! its Stop on screen. The outcome goes back to `POST /api/desktop/capture/answer`; a recording's
//! live audio and its end to `POST /api/desktop/capture/event`.
//!
//! A recording stops by Stop, its pane's `stop()`, the recorded window closing (the sound goes on),
//! the workspace switching, too little disk, or Quit/SIGTERM — which wait for the file to be final.
//! A crash leaves a `.part` that the next start repairs ([`repair`]).

mod dialog;
pub mod last;
mod own_window;
mod pill;
pub mod recorder;
pub mod repair;
mod still;
pub mod xerror;

use crate::hooks::Hooks;
use crate::main_window;
use crate::session::Session;
use base64::Engine as _;
use cowork_core::error_name::ErrorName;
use cowork_daemon::capture::check_room;
use cowork_wire::daemon::capture::{
    CaptureAnswer, CaptureRequest, Order, Outcome, SessionEvent, Video,
};
use cowork_wire::daemon::client::ClientError;
use cowork_wire::daemon::desktop::ShellRequest;
use cowork_wire::daemon::Taken;
use parking_lot::Mutex;
use recorder::{Recorder, Spec};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tauri::{AppHandle, Manager};
use tauri_plugin_dialog::MessageDialogButtons;

/// How long Quit waits for a recording's file to be final.
const QUIT_WAIT: Duration = Duration::from_secs(10);
/// How often free space, and the recorded window, are checked while recording.
const WATCH_EVERY: Duration = Duration::from_secs(1);
/// Live frames are sent to the daemon in batches this far apart.
const AUDIO_BATCH: Duration = Duration::from_millis(100);
/// The reason a recording stopped when free space fell under 2 GB (its pane hears `DiskFull`).
const DISK_FULL: &str = "under 2 GB of free disk space";

/// The recording in progress, if any (managed).
#[derive(Default)]
pub struct Capturing {
    running: Mutex<Option<Running>>,
}

struct Running {
    session: String,
    workspace: String,
    recorder: Arc<Recorder>,
}

/// Capture's part in the shell's life: its state; the desktop channel's capture requests; a
/// recording that stops when its workspace is left, and is made whole before Quit ends; at start,
/// the X error handler, and the recordings a crash left as `.part`, repaired; and the window kept
/// as the last capture of each workspace it leaves ([`last`]).
pub fn init(app: &tauri::App) {
    app.manage(Capturing::default());
    let hooks = app.state::<Hooks>();
    hooks.on_request(|app, request| match request {
        ShellRequest::Capture(request) => on_request(app, request.clone()),
        ShellRequest::CaptureStop { session } => on_stop_request(app, session),
        ShellRequest::Show { .. } | ShellRequest::Browser(_) | ShellRequest::BrowserConsent(_) => {}
    });
    hooks.on_leaving(on_switch);
    last::init(app);
    hooks.before_exit(|app| async move { stop_for_quit(&app).await });
    xerror::install();
    let root = app.state::<Session>().root.dir().to_path_buf();
    let app = app.handle().clone();
    std::thread::spawn(move || {
        let (repaired, failed) = repair::repair_left(&root);
        for file in &repaired {
            tracing::info!("repaired a recording cut short: {}", file.display());
        }
        for failure in &failed {
            tracing::warn!("failed to repair a recording cut short: {failure}");
        }
        if !repaired.is_empty() || !failed.is_empty() {
            let list = |files: &[String]| files.join("\n");
            let repaired: Vec<String> = repaired.iter().map(|f| f.display().to_string()).collect();
            let mut message = String::new();
            if !repaired.is_empty() {
                message += &format!("Recordings cut short were repaired:\n{}", list(&repaired));
            }
            if !failed.is_empty() {
                message += &format!("\n\nCould not be repaired:\n{}", list(&failed));
            }
            crate::dialogs::info(&app, "Cowork Studio repaired recordings", message.trim());
        }
    });
}

/// A capture request from the desktop channel (`type: "capture"`).
fn on_request(app: &AppHandle, request: CaptureRequest) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let outcome = ask_and_do(&app, &request).await;
        let answer = CaptureAnswer { id: request.id.clone(), outcome };
        let daemon = &app.state::<Session>().link.daemon;
        if let Err(error) = daemon.capture_answer(&answer).await {
            tracing::warn!("failed to answer the capture request {}: {error}", request.id);
            // Nobody waits for it any more: a recording that started must not run unseen.
            stop(&app, None, "its pane gave up waiting");
        }
    });
}

/// Tells the daemon of a session's live audio or end, for it to hand to the pane.
async fn report(app: &AppHandle, event: &SessionEvent) -> Result<Taken, ClientError> {
    app.state::<Session>().link.daemon.capture_event(event).await
}

fn failed(name: ErrorName, message: impl ToString) -> Outcome {
    Outcome::Failed { name, message: message.to_string() }
}

async fn ask_and_do(app: &AppHandle, request: &CaptureRequest) -> Outcome {
    if std::env::var_os("DISPLAY").is_none() {
        return failed(ErrorName::Unsupported, "Cowork Studio captures an X11 session, and DISPLAY is not set (a Wayland session without XWayland cannot be captured)");
    }
    main_window::show(app);
    let (title, message) = dialog::question(request);
    let buttons = MessageDialogButtons::OkCancelCustom(dialog::ALLOW.into(), dialog::DENY.into());
    let answer = crate::dialogs::ask(app, &title, &message, buttons).await;
    if !dialog::allowed(&answer) {
        return failed(ErrorName::Denied, "the person said no to the capture");
    }
    match &request.order {
        Order::Shot { source, file, image } => shot(*source, file.as_deref(), *image),
        Order::Record { video, system_audio, mic, live, file } => {
            let video = match video {
                None => None,
                Some(Video::Screen) => Some(recorder::Video::Screen),
                Some(Video::Window) => match still::front_window_id() {
                    Ok(xid) => Some(recorder::Video::Window(xid)),
                    Err(error) => return failed(error.name(), error),
                },
            };
            let spec = Spec {
                video,
                system_audio: *system_audio,
                mic: *mic,
                live: *live,
                file: file.clone(),
            };
            record(app, request, spec)
        }
    }
}

fn shot(source: Video, file: Option<&Path>, image: bool) -> Outcome {
    let png = match source {
        Video::Screen => still::screen(),
        Video::Window => still::window(),
    };
    let png = match png {
        Ok(png) => png,
        Err(error) => return failed(error.name(), error),
    };
    if let Some(file) = file {
        let written = file
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(file, &png));
        if let Err(error) = written {
            return failed(
                ErrorName::Unavailable,
                format!("failed to write {}: {error}", file.display()),
            );
        }
    }
    let image_base64 = image.then(|| base64::engine::general_purpose::STANDARD.encode(&png));
    Outcome::Shot { image_base64 }
}

fn record(app: &AppHandle, request: &CaptureRequest, spec: Spec) -> Outcome {
    let capturing = app.state::<Capturing>();
    let mut running = capturing.running.lock();
    if running.is_some() {
        return failed(ErrorName::Busy, "Cowork Studio is already recording");
    }
    let session = format!("r{:016x}", rand::random::<u64>());
    let root = app.state::<Session>().root.dir().to_path_buf();
    let note = repair::Note { part: recorder::part_of(&spec.file), file: spec.file.clone() };
    if let Err(error) = repair::begin(&root, &session, &note) {
        tracing::warn!("failed to note the recording for repair after a crash: {error}");
    }
    let on_audio: Option<recorder::OnAudio> = spec.live.then(|| audio_sender(app, &session));
    let ended = {
        let (app, session, root) = (app.clone(), session.clone(), root.clone());
        Box::new(move |outcome: Result<PathBuf, String>, reason: String| {
            ended(&app, &session, &root, outcome, reason)
        })
    };
    if let Some(recorder::Video::Window(xid)) = spec.video {
        xerror::recording(xid);
    }
    let recorder = match Recorder::start(&spec, on_audio, ended) {
        Ok(recorder) => Arc::new(recorder),
        Err(error) => {
            repair::end(&root, &session);
            return failed(error.name(), error);
        }
    };
    *running = Some(Running {
        session: session.clone(),
        workspace: request.workspace.clone(),
        recorder: recorder.clone(),
    });
    drop(running);
    let stopper = app.clone();
    let stopping = session.clone();
    pill::show(app, request.app_title.clone(), move || stop(&stopper, Some(&stopping), "Stop"));
    let window = match spec.video {
        Some(recorder::Video::Window(xid)) => Some(xid),
        _ => None,
    };
    watch(app, session.clone(), spec.file, window);
    Outcome::Started { session }
}

/// The live frames, batched to the daemon in order.
fn audio_sender(app: &AppHandle, session: &str) -> recorder::OnAudio {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let (app, session) = (app.clone(), session.to_string());
    tauri::async_runtime::spawn(async move {
        let engine = base64::engine::general_purpose::STANDARD;
        while let Some(first) = rx.recv().await {
            let mut frames = vec![engine.encode(first)];
            tokio::time::sleep(AUDIO_BATCH).await;
            while let Ok(more) = rx.try_recv() {
                frames.push(engine.encode(more));
            }
            let event = SessionEvent::Audio { session: session.clone(), frames };
            if let Err(error) = report(&app, &event).await {
                tracing::debug!("live audio of {session} not delivered: {error}");
            }
        }
    });
    Box::new(move |frame| {
        let _ = tx.send(frame);
    })
}

/// Stops the recording under 2 GB free, or when the recorded window has closed, checking every
/// [`WATCH_EVERY`].
fn watch(app: &AppHandle, session: String, file: PathBuf, window: Option<u64>) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        loop {
            tokio::time::sleep(WATCH_EVERY).await;
            let still_running = app
                .state::<Capturing>()
                .running
                .lock()
                .as_ref()
                .is_some_and(|running| running.session == session);
            if !still_running {
                return;
            }
            if let Err(error) = check_room(&file, &file.display().to_string()) {
                tracing::warn!("{error}: the recording stops");
                stop(&app, Some(&session), DISK_FULL);
                return;
            }
            if window.is_some_and(|xid| !still::window_exists(xid)) {
                stop(&app, Some(&session), "the recorded window closed");
                return;
            }
        }
    });
}

/// Stops the recording `session` (any, with `None`); the file is final when it has ended.
pub fn stop(app: &AppHandle, session: Option<&str>, reason: &str) {
    let capturing = app.state::<Capturing>();
    let running = capturing.running.lock();
    if let Some(running) = running.as_ref().filter(|r| session.is_none_or(|s| s == r.session)) {
        running.recorder.stop(reason);
    }
}

/// A stop from the desktop channel (`type: "captureStop"`, a pane's `stop()`).
fn on_stop_request(app: &AppHandle, session: &str) {
    stop(app, Some(session), "stop() from its app");
}

/// The workspace switched away from `workspace`: its recording stops.
fn on_switch(app: &AppHandle, workspace: &Path) {
    let capturing = app.state::<Capturing>();
    let running = capturing.running.lock();
    if let Some(running) = running.as_ref().filter(|r| Path::new(&r.workspace) == workspace) {
        running.recorder.stop("the workspace switched");
    }
}

/// Quit or SIGTERM: ends the recording and waits (up to [`QUIT_WAIT`]) for its file.
async fn stop_for_quit(app: &AppHandle) {
    let recorder = app.state::<Capturing>().running.lock().as_ref().map(|r| r.recorder.clone());
    if let Some(recorder) = recorder {
        let done = tauri::async_runtime::spawn_blocking(move || {
            recorder.stop_and_wait("Cowork Studio quit", QUIT_WAIT)
        })
        .await
        .unwrap_or(false);
        if !done {
            tracing::warn!(
                "the recording did not finish within {} s: the next start repairs it",
                QUIT_WAIT.as_secs()
            );
        }
        // Its end is posted from the bus thread: give it a moment to reach the daemon.
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// The recording is over (from its bus thread): the pill goes, and the daemon and the pane hear.
fn ended(
    app: &AppHandle,
    session: &str,
    root: &Path,
    outcome: Result<PathBuf, String>,
    reason: String,
) {
    app.state::<Capturing>().running.lock().take_if(|running| running.session == session);
    pill::hide(app);
    let (reason, error) = match outcome {
        Ok(file) => {
            repair::end(root, session);
            tracing::info!("recording saved to {} ({reason})", file.display());
            let error = (reason == DISK_FULL).then_some(ErrorName::DiskFull);
            (reason, error)
        }
        Err(error) => {
            tracing::error!("the recording failed: {error}");
            (format!("{reason}; {error}"), Some(ErrorName::Unavailable))
        }
    };
    let app = app.clone();
    let event = SessionEvent::Stopped { session: session.to_string(), reason, error };
    tauri::async_runtime::spawn(async move {
        if let Err(error) = report(&app, &event).await {
            tracing::warn!("failed to report the end of a recording: {error}");
        }
    });
}

#[cfg(test)]
mod tests;
