//! The engine: the workspaces a daemon (or a CLI without one) serves, opened once each and watched,
//! over what they all share (`shared.rs`). How a run request becomes a run is `launch.rs`.

use crate::event::Event;
use crate::runtime::{self, Runtime, RuntimeError};
use crate::shared::Shared;
use crate::workspace::Workspace;
use cowork_core::paths::Root;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::broadcast;

/// Routines running at once when nothing else is configured.
pub const DEFAULT_SLOTS: usize = 8;

/// How an engine is set up.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Routines that may run at once across every workspace (`TooManyRoutines` past it).
    pub slots: usize,
    /// Webhook calls that may wait for a slot at once (`slots::SlotWait::Webhook`); schedules'
    /// and notifications' runs wait whatever this says.
    pub queue: usize,
    /// Watch each workspace's `.cowork/` and reload its registry on a change.
    pub watch: bool,
    /// Whether this engine outlives its runs (a daemon). A sign-in a routine starts
    /// (`ctx.credential.start()`) finishes after the run, on a loopback listener this process
    /// keeps; the CLI's own engine exits with the run, so it refuses to start one (`NoDaemon`).
    pub long_lived: bool,
    /// Keep warm spares (`spares.rs`): runtime processes started ahead of demand, one run each.
    /// Only a long-lived engine gains from them; the daemon turns them on unless its
    /// `config.json` says `"spares": false`.
    pub spares: bool,
    /// Run a routine's `ctx.queue` in the routine's own process, on the task store's Node-API
    /// module (queue_module.rs), when the module is found; off, or without it, each call is a
    /// request to this engine. On by default; off only to test that way.
    pub queue_in_process: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            slots: DEFAULT_SLOTS,
            queue: crate::slots::DEFAULT_QUEUE,
            watch: true,
            long_lived: true,
            spares: false,
            queue_in_process: true,
        }
    }
}

/// A workspace folder could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The path could not be resolved: it does not exist, or a part of it cannot be read.
    #[error("failed to open the workspace {path}: {source}")]
    Workspace {
        /// The folder as given.
        path: PathBuf,
        /// Why it could not be opened.
        source: std::io::Error,
    },
    /// The path names something other than a folder.
    #[error("{path} is not a folder")]
    NotAFolder {
        /// The path, resolved.
        path: PathBuf,
    },
    /// A folder Cowork writes into (`.cowork/local`, `.claude/skills` …) is a symlink.
    #[error(transparent)]
    Symlinked(#[from] cowork_core::own_folders::SymlinkedFolder),
}

/// The engine: one per daemon, or one per CLI invocation when no daemon runs.
pub struct Engine {
    shared: Arc<Shared>,
    config: EngineConfig,
    workspaces: Mutex<HashMap<PathBuf, Arc<Workspace>>>,
}

impl Engine {
    /// An engine on `root`; looks for the JS runtime once.
    pub fn new(root: Root, config: EngineConfig) -> Arc<Engine> {
        let shared = Shared::new(
            root,
            runtime::find(),
            (config.slots, config.queue),
            config.spares,
            config.long_lived,
            config.queue_in_process,
        );
        Arc::new(Engine {
            shared: Arc::new(shared),
            config,
            workspaces: Mutex::new(HashMap::new()),
        })
    }

    /// The Cowork root this engine keeps its files in.
    pub fn root(&self) -> &Root {
        self.shared.root()
    }

    /// The runtime routines run on, or why there is none.
    pub fn runtime(&self) -> Result<&Runtime, &RuntimeError> {
        self.shared.runtime()
    }

    /// The configured number of slots and how many are in use.
    pub fn slots(&self) -> (usize, usize) {
        (self.shared.slots().used(), self.shared.slots().max())
    }

    /// How many triggered runs wait for a slot now, in every workspace.
    pub fn queued(&self) -> usize {
        self.shared.slots().waiting()
    }

    /// The warm spares kept now, and whether they are on (`cowork status`).
    pub fn spares(&self) -> crate::spares::SparesView {
        self.shared.spares().view()
    }

    /// The secret store, opened on first use.
    pub fn secrets(&self) -> Result<Arc<cowork_secrets::SecretStore>, cowork_secrets::SecretError> {
        self.shared.secrets()
    }

    /// The transpile cache (routines and widgets).
    pub fn transpiler(&self) -> &cowork_transpile::Cache {
        self.shared.transpiler()
    }

    /// Sign-ins (OAuth) of this root.
    pub fn oauth(&self) -> &Arc<crate::signin::OAuth> {
        self.shared.oauth()
    }

    /// Hands the engine the host's signed-in account (until then, nobody is signed in): runs
    /// started from now on read their identity from it.
    pub fn set_account(&self, account: Arc<dyn crate::account::Account>) {
        self.shared.set_account(account);
    }

    /// Hands the engine the host that reaches the desktop app's browser (until then, every
    /// `ctx.browser` call is `Unsupported`).
    pub fn set_browser(&self, browser: Arc<dyn crate::browser::BrowserHost>) {
        self.shared.set_browser(browser);
    }

    /// Tells every event stream that the signed-in account changed (its windows read it again).
    pub fn announce_account(&self, signed_in: bool) {
        self.shared.emit(Event::Account { signed_in });
    }

    /// The signed-in account (a widget's `cowork.identity.currentUser()` reads it).
    pub fn account(&self) -> Arc<dyn crate::account::Account> {
        self.shared.account()
    }

    /// Consent questions and answers (the desktop shell's modal listens here).
    pub fn consent(&self) -> &Arc<crate::consent::ConsentBroker> {
        self.shared.consent()
    }

    /// Subscribes to every workspace's events.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.shared.subscribe()
    }

    /// Subscribes to every notification raised in any workspace — delivered, muted or not shown
    /// (a rate-limited one excepted) — but never to one raised by a run a notification started.
    pub fn subscribe_raised(&self) -> broadcast::Receiver<crate::notifications::Raised> {
        self.shared.subscribe_raised()
    }

    /// The workspaces opened so far.
    pub fn open_workspaces(&self) -> Vec<Arc<Workspace>> {
        self.workspaces.lock().values().cloned().collect()
    }

    /// Makes `path` the active workspace (the one the desktop shell shows), or clears it: while a
    /// workspace is active, another workspace's notifications are dropped (their calls still resolve).
    pub fn set_active(&self, path: Option<&Path>) -> Result<Option<Arc<Workspace>>, EngineError> {
        let ws = path.map(|path| self.workspace(path)).transpose()?;
        self.shared.set_active(ws.as_ref().map(|ws| ws.root().to_path_buf()));
        Ok(ws)
    }

    /// The workspace at `path` if it is open already; never opens one (a route that anyone on
    /// the machine may call must not make the daemon write into or watch a folder it names).
    pub fn opened(&self, path: &Path) -> Option<Arc<Workspace>> {
        let canonical = path.canonicalize().ok()?;
        self.workspaces.lock().get(&canonical).cloned()
    }

    /// Opens (once) the workspace at `path`: loads its registry, starts watching it.
    pub fn workspace(&self, path: &Path) -> Result<Arc<Workspace>, EngineError> {
        let canonical = path
            .canonicalize()
            .map_err(|source| EngineError::Workspace { path: path.to_path_buf(), source })?;
        if !canonical.is_dir() {
            return Err(EngineError::NotAFolder { path: canonical });
        }
        // Every time, not only at the first open: a link put in place later must stop the writes
        // of the requests that follow.
        cowork_core::own_folders::check(&canonical)?;
        let mut open = self.workspaces.lock();
        if let Some(ws) = open.get(&canonical) {
            return Ok(ws.clone());
        }
        let ws = Arc::new(Workspace::open(canonical.clone(), self.shared.clone()));
        if self.config.watch {
            if let Err(error) = crate::watch::watch(&ws) {
                tracing::warn!(%error, workspace = %canonical.display(), "not watching the workspace; edits apply on restart");
            }
        }
        open.insert(canonical, ws.clone());
        Ok(ws)
    }
}
