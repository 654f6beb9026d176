//! What every workspace of an engine shares: the runtime, the transpile cache, the secret store,
//! sign-ins, consent, the warm spares, the concurrency slots, the event streams and which
//! workspace is active. A leaf below the engine and its workspaces: it knows neither.

use crate::consent::ConsentBroker;
use crate::event::Event;
use crate::notifications::Raised;
use crate::runtime::{Runtime, RuntimeError};
use crate::signin::OAuth;
use crate::slots::Slots;
use crate::spares::Spares;
use cowork_core::paths::Root;
use cowork_secrets::LOCAL_ACCOUNT;
use parking_lot::{Mutex, RwLock};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::broadcast;

/// What every workspace of an engine shares.
pub(crate) struct Shared {
    root: Root,
    runtime: Result<Runtime, RuntimeError>,
    transpiler: cowork_transpile::Cache,
    device_id: String,
    events: broadcast::Sender<Event>,
    /// Every notification an app raises, for notification triggers (the daemon's).
    raised: broadcast::Sender<Raised>,
    consent: Arc<ConsentBroker>,
    /// Opened on first use and kept while its key source is the one in force; a failure (a locked
    /// keychain) is not kept, so the next use retries.
    secrets: Mutex<Option<Arc<cowork_secrets::SecretStore>>>,
    oauth: Arc<OAuth>,
    spares: Spares,
    slots: Slots,
    /// The workspace the desktop shell shows: while one is set, only its notifications deliver.
    active: RwLock<Option<PathBuf>>,
    /// Who is signed in to Cowork, as the host keeps it (`Engine::set_account`).
    account: RwLock<Arc<dyn crate::account::Account>>,
    /// Whether runs get the task store's Node-API module (`EngineConfig::queue_in_process`).
    queue_in_process: bool,
    /// Who drives the desktop app's browser for `ctx.browser` (`Engine::set_browser`).
    browser: RwLock<Arc<dyn crate::browser::BrowserHost>>,
}

impl Shared {
    /// What an engine on `root` shares, running routines on `runtime`: `slots` at once (and
    /// `queue` webhook calls waiting for one), warm `spares` or none, and whether the engine is
    /// `long_lived` (a daemon, whose sign-ins may finish after the run that started them), and
    /// whether `ctx.queue` runs in the routine's process (`queue_in_process`).
    pub fn new(
        root: Root,
        runtime: Result<Runtime, RuntimeError>,
        (slots, queue): (usize, usize),
        spares: bool,
        long_lived: bool,
        queue_in_process: bool,
    ) -> Shared {
        let (events, _) = broadcast::channel(1024);
        let (raised, _) = broadcast::channel(256);
        Shared {
            raised,
            transpiler: cowork_transpile::Cache::new(root.cache_dir().join("transpile")),
            device_id: root.device_id(),
            runtime,
            oauth: Arc::new(OAuth::load(&root, long_lived)),
            spares: Spares::new(root.clone(), spares),
            root,
            events,
            consent: Arc::new(ConsentBroker::default()),
            secrets: Mutex::new(None),
            slots: Slots::new(slots, queue),
            active: RwLock::new(None),
            account: RwLock::new(Arc::new(crate::account::SignedOut)),
            queue_in_process,
            browser: RwLock::new(Arc::new(crate::browser::NoDesktop)),
        }
    }

    /// The task store's Node-API module, beside the runner, for a run's `ctx.queue` to load; `None`
    /// when runs go through this engine for it (queue_module.rs).
    pub fn queue_module(&self) -> Option<PathBuf> {
        self.queue_in_process.then(|| crate::queue_module::staged(&self.root)).flatten()
    }

    /// The secret store of this root (the signed-out account is `local`).
    pub fn secrets(&self) -> Result<Arc<cowork_secrets::SecretStore>, cowork_secrets::SecretError> {
        let mut slot = self.secrets.lock();
        // A key file made (`cowork secrets init --key-file`) or removed while the daemon runs
        // moves the key: the store opened before would look in the old place.
        if let Some(store) = slot.as_ref().filter(|store| store.is_current()) {
            return Ok(store.clone());
        }
        let store = Arc::new(cowork_secrets::SecretStore::open(&self.root, LOCAL_ACCOUNT)?);
        *slot = Some(store.clone());
        Ok(store)
    }

    /// The Cowork root (`~/.cowork-studio`).
    pub fn root(&self) -> &Root {
        &self.root
    }

    /// The runtime routines run on, or why there is none.
    pub fn runtime(&self) -> Result<&Runtime, &RuntimeError> {
        self.runtime.as_ref()
    }

    pub fn transpiler(&self) -> &cowork_transpile::Cache {
        &self.transpiler
    }

    /// The runtime processes waiting for a run (none unless the config turned them on).
    pub fn spares(&self) -> &Spares {
        &self.spares
    }

    /// This computer's id, as audit lines name it.
    pub fn device_id(&self) -> &str {
        &self.device_id
    }

    /// The signed-in account, as the host handed it.
    pub fn account(&self) -> Arc<dyn crate::account::Account> {
        self.account.read().clone()
    }

    /// Hands over the host's signed-in account: runs started from now on read their identity
    /// from it.
    pub fn set_account(&self, account: Arc<dyn crate::account::Account>) {
        *self.account.write() = account;
    }

    /// The host `ctx.browser` goes through.
    pub fn browser(&self) -> Arc<dyn crate::browser::BrowserHost> {
        self.browser.read().clone()
    }

    /// Hands over the host that reaches the desktop app's browser.
    pub fn set_browser(&self, browser: Arc<dyn crate::browser::BrowserHost>) {
        *self.browser.write() = browser;
    }

    pub fn oauth(&self) -> &Arc<OAuth> {
        &self.oauth
    }

    pub fn consent(&self) -> &Arc<ConsentBroker> {
        &self.consent
    }

    pub fn emit(&self, event: Event) {
        // Nobody listening is normal (a CLI run); events are best effort by design.
        let _ = self.events.send(event);
    }

    pub fn raise(&self, raised: Raised) {
        // Nobody listening is normal: no daemon, so no notification triggers.
        let _ = self.raised.send(raised);
    }

    /// Whether another workspace than `root` is the active one (its notifications are dropped).
    pub fn active_is_not(&self, root: &Path) -> bool {
        self.active.read().as_ref().is_some_and(|active| active != root)
    }

    /// The concurrency slots and the runs waiting for one.
    pub fn slots(&self) -> &Slots {
        &self.slots
    }

    /// Subscribes to every workspace's events.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// Subscribes to every notification raised in any workspace (see `Engine::subscribe_raised`).
    pub fn subscribe_raised(&self) -> broadcast::Receiver<Raised> {
        self.raised.subscribe()
    }

    /// Makes `root` the active workspace, or clears it.
    pub fn set_active(&self, root: Option<PathBuf>) {
        *self.active.write() = root;
    }
}
