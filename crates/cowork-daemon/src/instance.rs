//! Starting the one daemon of a Cowork root: single instance, the port (default 47913, moved and
//! remembered when a foreign program holds it), the owner token, the pidfile, a clean stop.

pub use crate::discovery::configured_port;
use crate::discovery::{is_alive, read_config, Found, PidFile};
use crate::router::app;
use crate::state::AppState;
use cowork_core::paths::Root;
use cowork_engine::{Engine, EngineConfig};
use serde_json::{json, Value};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::Notify;

/// The port the reference uses.
pub use cowork_wire::daemon::DEFAULT_PORT;

/// How `cowork start --headless` was asked to start.
#[derive(Debug, Clone, Default)]
pub struct StartOptions {
    /// An explicit port: fail rather than move when it is taken.
    pub port: Option<u16>,
    /// Replace a running daemon.
    pub force: bool,
    /// Concurrency slots for routines.
    pub slots: Option<usize>,
    /// Webhook calls that may wait for a slot.
    pub queue: Option<usize>,
    /// The workspace the workbench opens when its page names none.
    pub workspace: Option<std::path::PathBuf>,
}

/// Why the daemon did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// Our daemon already runs for this root.
    #[error("Cowork is already running (pid {pid}, http://127.0.0.1:{port})")]
    AlreadyRunning {
        /// The running daemon's process id.
        pid: u32,
        /// The port it listens on.
        port: u16,
    },
    /// `--port` names a port something else holds.
    #[error("failed to listen on 127.0.0.1:{port}")]
    PortInUse {
        /// The port asked for.
        port: u16,
        /// What the system said.
        source: std::io::Error,
    },
    /// The running daemon would not stop for `--force`.
    #[error("the running Cowork daemon (pid {0}) did not stop")]
    WouldNotStop(u32),
    /// A Cowork daemon of this root is alive but does not answer: starting a second one would
    /// overwrite its token and pidfile, and both would serve the root once it wakes.
    #[error("Cowork's daemon (pid {0}) is running but does not answer")]
    NotAnswering(u32),
    /// The root's files could not be written.
    #[error("failed to write {what} under the Cowork root: {source}")]
    Root {
        /// What could not be written (the token, the pidfile…).
        what: &'static str,
        /// What the system said.
        source: std::io::Error,
    },
    /// A setting in `config.json` has a value the daemon cannot use.
    #[error("failed to read the setting \"{key}\" in {path}: it is {found}, not true or false")]
    Setting {
        /// The setting's name.
        key: &'static str,
        /// The `config.json` it is in.
        path: std::path::PathBuf,
        /// The value found.
        found: Value,
    },
    /// Anything else the server hit.
    #[error("the daemon stopped with an error: {0}")]
    Serve(std::io::Error),
}

impl StartError {
    /// The line that tells the person what to do.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            StartError::AlreadyRunning { .. } => Some("`cowork stop` stops it; `cowork start --headless --force` replaces it"),
            StartError::PortInUse { .. } => Some("pick another --port, or leave --port out to let Cowork choose a free one"),
            StartError::WouldNotStop(_) => Some("stop it with `cowork stop`, or end the process yourself"),
            StartError::NotAnswering(_) => Some("`cowork start --headless --force` ends it and starts a new one (or end it yourself: kill -9 <that pid>)"),
            StartError::Setting { .. } => Some("write true or false there, or remove the line to use the default"),
            _ => None,
        }
    }
}

/// A daemon that is listening: `serve` runs it until stopped.
pub struct Started {
    /// The port it listens on.
    pub port: u16,
    /// Set when the default port was taken by another program and we moved.
    pub moved_from: Option<u16>,
    /// The engine it serves.
    pub engine: Arc<Engine>,
    listener: TcpListener,
    state: AppState,
    root: Root,
    stopping: tokio::sync::watch::Sender<bool>,
}

/// Binds the port and writes the token and pidfile; the daemon is reachable once this returns.
pub async fn start(root: Root, options: StartOptions) -> Result<Started, StartError> {
    root.create().map_err(|source| StartError::Root { what: "the root folder", source })?;
    // The port this root's last daemon listened on, as its pidfile says (one a crash left, too).
    let last_port = PidFile::read(&root).map(|pidfile| pidfile.port);
    match crate::discovery::find(&root).await {
        Found::Running(running) => {
            if !options.force {
                return Err(StartError::AlreadyRunning {
                    pid: running.pid,
                    port: running.daemon.port(),
                });
            }
            if !running.stop(Duration::from_secs(15)).await.unwrap_or(false) {
                return Err(StartError::WouldNotStop(running.pid));
            }
        }
        Found::NotAnswering { pid, .. } => {
            if !options.force {
                return Err(StartError::NotAnswering(pid));
            }
            // It cannot be asked to stop: end it (a stopped process takes SIGKILL too). Its routines'
            // runtimes die with it (PDEATHSIG).
            if !kill(pid).await {
                return Err(StartError::WouldNotStop(pid));
            }
        }
        Found::Nothing => {}
    }
    let remembered = read_config(&root)["port"].as_u64().and_then(|p| u16::try_from(p).ok());
    let (listener, moved_from) = match options.port {
        Some(port) => {
            let listener = bind(port, last_port == Some(port)).await;
            (listener.map_err(|source| StartError::PortInUse { port, source })?, None)
        }
        None => {
            let wanted = remembered.unwrap_or(DEFAULT_PORT);
            match bind(wanted, last_port == Some(wanted)).await {
                Ok(listener) => (listener, None),
                Err(_) => {
                    // A foreign program holds it (ours would have been discovered above): move to a
                    // free port and remember it, so the next start and the CLI agree.
                    let listener = bind(0, false).await.map_err(StartError::Serve)?;
                    let port = listener.local_addr().map_err(StartError::Serve)?.port();
                    let mut config = read_config(&root);
                    config["port"] = json!(port);
                    write_json(&root.config_file(), &config, false)
                        .map_err(|source| StartError::Root { what: "config.json", source })?;
                    (listener, Some(wanted))
                }
            }
        }
    };
    let port = listener.local_addr().map_err(StartError::Serve)?.port();
    let token = hex::encode(rand::random::<[u8; 32]>());
    cowork_core::fs_atomic::write(&root.token_file(), token.as_bytes(), true)
        .map_err(|source| StartError::Root { what: "the owner token", source })?;
    let mut config = EngineConfig { spares: spares_setting(&root)?, ..EngineConfig::default() };
    if let Some(slots) = options.slots {
        config.slots = slots;
    }
    if let Some(queue) = options.queue {
        config.queue = queue;
    }
    let engine = Engine::new(root.clone(), config);
    let account = crate::account::AccountHost::new(&root);
    engine.set_account(account.clone());
    let desktop = Arc::<crate::desktop_channel::DesktopChannel>::default();
    engine.set_browser(Arc::new(crate::browser::DesktopBrowser {
        desktop: desktop.clone(),
        root: root.clone(),
        account: account.clone(),
    }));
    let (stopping_tx, stopping) = tokio::sync::watch::channel(false);
    let state = AppState {
        stopping,
        engine: engine.clone(),
        token: token.into(),
        port,
        started: Instant::now(),
        shutdown: Arc::new(Notify::new()),
        panes: Arc::default(),
        desktop,
        default_workspace: options.workspace.clone(),
        codes: Arc::default(),
        mcp: Arc::default(),
        door: Arc::default(),
        account,
        chat: Arc::default(),
    };
    let pidfile = PidFile {
        pid: std::process::id(),
        port,
        root: root.dir().to_path_buf(),
        version: env!("CARGO_PKG_VERSION").into(),
        started_at: cowork_core::audit::format_ts(time::OffsetDateTime::now_utc()),
    };
    write_json(
        &root.pid_file(),
        &serde_json::to_value(&pidfile).expect("a pidfile serializes"),
        true,
    )
    .map_err(|source| StartError::Root { what: "the pidfile", source })?;
    Ok(Started { port, moved_from, engine, listener, state, root, stopping: stopping_tx })
}

/// Stops a daemon served in-process (the desktop shell's Quit), as `POST /api/stop` does.
#[derive(Clone)]
pub struct StopHandle(Arc<Notify>);

impl StopHandle {
    /// Asks the daemon to stop; `Started::serve` returns once in-flight requests have finished.
    pub fn stop(&self) {
        self.0.notify_one();
    }
}

impl Started {
    /// The address of the workbench on `workspace` to print or open in a browser: a one-time code
    /// in place of the owner token (see `session`).
    pub fn workbench_link(&self, workspace: &std::path::Path) -> String {
        let code = self.state.codes.issue();
        cowork_wire::daemon::client::workbench_url(self.port, workspace, &format!("code={code}"))
    }

    /// A handle that stops this daemon gracefully.
    pub fn stop_handle(&self) -> StopHandle {
        StopHandle(self.state.shutdown.clone())
    }

    /// Serves until `POST /api/stop`, SIGINT or SIGTERM; in-flight requests (running routines)
    /// finish first, so no run loses its audit line. Removes the pidfile if it is still ours.
    pub async fn serve(self) -> Result<(), StartError> {
        let shutdown = self.state.shutdown.clone();
        let stopping = self.stopping;
        crate::triggers::spawn_scheduler(self.state.clone());
        crate::triggers::notifications::spawn(self.state.clone());
        crate::door::reopen(self.state.clone());
        crate::account_routes::spawn(self.state.clone());
        crate::store_updates::spawn(self.state.clone());
        let router = app(self.state);
        crate::limits::serve(self.listener, router, async move {
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                    .expect("installing a SIGTERM handler");
            tokio::select! {
                () = shutdown.notified() => {}
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            // Event streams end now; requests in flight (running routines) finish first.
            stopping.send_replace(true);
        })
        .await;
        // A run whose client went away is no longer a request in flight, yet it runs on (see
        // `routines::run`): wait for it too, so it still writes its audit line. A triggered run
        // waiting for a slot is handed one as the others end, so this waits for it as well.
        while self.engine.slots().0 > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let ours = PidFile::read(&self.root).is_some_and(|p| p.pid == std::process::id());
        if ours {
            let _ = std::fs::remove_file(self.root.pid_file());
        }
        Ok(())
    }
}

/// Sends SIGKILL to `pid` (verified as a Cowork daemon by [`crate::discovery::find`]) and waits up to 5 s
/// for it to be gone.
async fn kill(pid: u32) -> bool {
    let Ok(target) = libc::pid_t::try_from(pid) else { return false };
    // SAFETY: kill(2) with a pid and a signal number has no memory effects.
    #[allow(unsafe_code)]
    let sent = unsafe { libc::kill(target, libc::SIGKILL) } == 0;
    if !sent {
        return false;
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while is_alive(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    !is_alive(pid)
}

/// Listens on `port`. The last daemon's port (`reclaiming`) is tried again for up to [`RECLAIM`]
/// while it is taken: a daemon that died (a crash, SIGKILL) leaves it taken until its last
/// processes have died with it — a routine's process being started holds a copy of the daemon's
/// sockets until it has become its runtime (they close on exec) — which a start right after the
/// crash can meet. Then the port is reclaimed, not given up (`--port`) or moved away from.
async fn bind(port: u16, reclaiming: bool) -> std::io::Result<TcpListener> {
    let deadline = Instant::now() + RECLAIM;
    loop {
        match TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await {
            Err(error)
                if reclaiming
                    && error.kind() == std::io::ErrorKind::AddrInUse
                    && Instant::now() < deadline =>
            {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            bound => return bound,
        }
    }
}

/// How long a start waits for its last daemon's port to be let go (see [`bind`]).
const RECLAIM: Duration = Duration::from_secs(3);

/// Whether to keep warm spares (cowork-engine's `spares.rs`): on unless `config.json` says
/// `"spares": false`.
fn spares_setting(root: &Root) -> Result<bool, StartError> {
    match read_config(root).get("spares") {
        None => Ok(true),
        Some(Value::Bool(on)) => Ok(*on),
        Some(other) => Err(StartError::Setting {
            key: "spares",
            path: root.config_file(),
            found: other.clone(),
        }),
    }
}

/// Takes the remembered port out of `config.json`, so the next start tries [`DEFAULT_PORT`] again
/// (`cowork doctor --fix` once the program that held it has gone).
pub fn forget_port(root: &Root) -> std::io::Result<()> {
    let mut config = read_config(root);
    if config.as_object_mut().and_then(|c| c.shift_remove("port")).is_some() {
        write_json(&root.config_file(), &config, false)?;
    }
    Ok(())
}

fn write_json(path: &std::path::Path, value: &Value, private: bool) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(value).expect("JSON values serialize");
    cowork_core::fs_atomic::write(path, format!("{text}\n").as_bytes(), private)
}
