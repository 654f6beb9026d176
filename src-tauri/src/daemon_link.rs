//! How the shell reaches the daemon of its Cowork root, and what makes it single-instance.
//!
//! One daemon serves a root. The shell attaches to the one that runs (identity-verified by
//! [`discovery::discover`]), or starts it in this process. The desktop channel
//! (`GET /api/desktop/requests`) is held by at most one shell: a second launch finds it taken,
//! asks the first to show its window (`POST /api/desktop/show`) and exits. No lock file of our own,
//! so a crashed shell never blocks the next one: its channel closes with its connection.

use cowork_core::paths::Root;
use cowork_daemon::discovery::{self, Running};
use cowork_daemon::{StartError, StartOptions, StopHandle};
use cowork_wire::daemon::client::{ClientError, Daemon, Subscription};
use cowork_wire::daemon::desktop::{ShellRequest, ShowWorkspace};
use parking_lot::Mutex;
use std::path::Path;
use std::time::Duration;
use tauri::async_runtime::JoinHandle;

/// How long Quit waits for the in-process daemon: a routine runs at most 300 s, and a graceful stop
/// lets running ones finish. Past this, something other than a routine holds it (an open
/// connection), and the shell quits anyway.
const STOP_WAIT: Duration = Duration::from_secs(330);

/// What starting the shell came to.
pub enum Launch {
    /// Another shell holds the desktop channel; it was asked to show the workspace.
    HandedOver,
    /// This shell holds the desktop channel: `requests` is it. (Boxed: it is the large one, made once.)
    Linked(Box<Linked>),
}

/// The daemon, and the desktop channel this shell holds on it.
pub struct Linked {
    pub link: Link,
    pub requests: Subscription<ShellRequest>,
}

/// Why the shell could not reach a daemon.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("failed to start the Cowork daemon: {0}")]
    Start(#[from] StartError),
    #[error("the Cowork daemon started but does not answer as ours (pidfile or token under {0})")]
    Unverified(String),
    #[error(transparent)]
    Client(#[from] ClientError),
}

impl LinkError {
    /// The line that tells the person what to do.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            LinkError::Start(error) => error.hint(),
            LinkError::Unverified(_) | LinkError::Client(_) => Some("`cowork doctor` checks the root, the pidfile and the port; `cowork stop` stops a daemon that is stuck"),
        }
    }
}

/// The daemon this shell talks to, and — when the shell started it — how to stop it.
pub struct Link {
    pub daemon: Daemon,
    /// The daemon's process.
    pub pid: u32,
    hosted: Mutex<Option<Hosted>>,
}

/// A daemon served in this process: Quit stops it and waits for it (running routines finish and
/// write their audit line first).
struct Hosted {
    stop: StopHandle,
    serve: JoinHandle<Result<(), StartError>>,
}

impl Link {
    /// Stops the in-process daemon, if any, and waits until it has finished serving.
    pub async fn shutdown(&self) {
        let hosted = self.hosted.lock().take();
        let Some(Hosted { stop, serve }) = hosted else { return };
        stop.stop();
        match tokio::time::timeout(STOP_WAIT, serve).await {
            Ok(Ok(Ok(()))) => tracing::info!("the Cowork daemon stopped"),
            Ok(Ok(Err(error))) => tracing::error!("the Cowork daemon stopped with an error: {error}"),
            Ok(Err(error)) => tracing::error!("the Cowork daemon's task failed: {error}"),
            Err(_) => tracing::error!("the Cowork daemon did not stop within {} s (a connection stayed open, e.g. a browser tab on the workbench); quitting anyway", STOP_WAIT.as_secs()),
        }
    }
}

/// Finds or starts the daemon of `root` and takes the desktop channel, or hands over to the shell
/// that holds it (asking it to show `workspace`).
pub async fn connect(root: &Root, workspace: &Path) -> Result<Launch, LinkError> {
    let (running, hosted) = match discovery::discover(root).await {
        Some(running) => (running, None),
        None => match cowork_daemon::start(
            root.clone(),
            StartOptions { workspace: Some(workspace.to_path_buf()), ..StartOptions::default() },
        )
        .await
        {
            Ok(started) => {
                crate::start_trace::mark("daemon started");
                let stop = started.stop_handle();
                let serve = tauri::async_runtime::spawn(started.serve());
                let running = discovery::discover(root)
                    .await
                    .ok_or_else(|| LinkError::Unverified(root.dir().display().to_string()))?;
                tracing::info!(
                    "started the Cowork daemon in this process on port {}",
                    running.daemon.port()
                );
                (running, Some(Hosted { stop, serve }))
            }
            // Two launches raced and the other one's daemon won: use it.
            Err(StartError::AlreadyRunning { .. }) => (
                discovery::discover(root)
                    .await
                    .ok_or_else(|| LinkError::Unverified(root.dir().display().to_string()))?,
                None,
            ),
            Err(error) => return Err(error.into()),
        },
    };
    let Running { daemon, pid } = running;
    let link = Link { daemon, pid, hosted: Mutex::new(hosted) };
    if link.daemon.health().await?.desktop {
        return hand_over(link, workspace).await;
    }
    match link.daemon.shell_requests().await {
        Ok(requests) => {
            if !link.hosted.lock().is_some() {
                // Not ours to stop: Quit leaves it running.
                tracing::info!(
                    "attached to the running Cowork daemon (pid {}, port {})",
                    link.pid,
                    link.daemon.port()
                );
            }
            Ok(Launch::Linked(Box::new(Linked { link, requests })))
        }
        // Another shell took the channel between the health check and now.
        Err(ClientError::Refused { status: 409, .. }) => hand_over(link, workspace).await,
        Err(error) => {
            link.shutdown().await;
            Err(error.into())
        }
    }
}

/// Asks the shell that holds the desktop channel to show `workspace`.
async fn hand_over(link: Link, workspace: &Path) -> Result<Launch, LinkError> {
    // The holder may be closing right now: its channel is gone a moment later, so ask again briefly.
    let mut attempts = 0;
    let show = ShowWorkspace { workspace: Some(workspace.to_path_buf()) };
    let result = loop {
        match link.daemon.show(&show).await {
            Err(ClientError::Refused { status: 409, .. }) if attempts < 10 => {
                attempts += 1;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            other => break other,
        }
    };
    // A daemon this launch started is not needed: the other shell uses its own.
    link.shutdown().await;
    result?;
    Ok(Launch::HandedOver)
}
