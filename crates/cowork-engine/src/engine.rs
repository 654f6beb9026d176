//! The engine: the workspaces a daemon (or a CLI without one) serves, and how a run request becomes
//! a run — refusals first (no such routine, switched off, too deep, a cycle, no free slot), then an
//! identical call in flight is shared, then a fresh process, then one audit line.

use crate::hub::{Delivery, Hub, Notification, NotifyError, Poster};
use crate::run::{self, Execution, Masks};
use crate::runtime::{self, Runtime, RuntimeError};
use cowork_core::audit::{self, AuditLog, Caller, Context, Outcome, Record, RecordedError, Status};
use cowork_core::paths::Root;
use cowork_core::registry::{self, Kind, Registry, RoutineEntry, SwitchedOff};
use parking_lot::{Mutex, RwLock};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use time::OffsetDateTime;
use tokio::sync::{broadcast, watch};

/// The account secrets belong to while nobody is signed in to Cowork.
pub const LOCAL_ACCOUNT: &str = "local";

/// Calls nest at most this deep: a → b → c, and c calling another is refused.
pub const MAX_DEPTH: usize = 2;
/// The longest any run may take.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(300);
/// Routines running at once when nothing else is configured.
pub const DEFAULT_SLOTS: usize = 8;

/// How an engine is set up.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Routines that may run at once across every workspace (`TooManyRoutines` past it).
    pub slots: usize,
    /// Watch each workspace's `.cowork/` and reload its registry on a change.
    pub watch: bool,
    /// Whether this engine outlives its runs (a daemon). A sign-in a routine starts
    /// (`ctx.credential.start()`) finishes after the run, on a loopback listener this process
    /// keeps; the CLI's own engine exits with the run, so it refuses to start one (`NoDaemon`).
    pub long_lived: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig { slots: DEFAULT_SLOTS, watch: true, long_lived: true }
    }
}

/// Something the daemon's event stream carries.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Event {
    /// A notification was delivered (the bell, `cowork.onNotification`, triggers). `replaced`: it
    /// took the place of this app's not-yet-shown one with the same tag, so a shell replaces that
    /// banner instead of adding one.
    #[serde(rename_all = "camelCase")]
    Notification { workspace: String, notification: Notification, replaced: bool },
    /// An app's badge count changed.
    #[serde(rename_all = "camelCase")]
    Badge { workspace: String, app: String, count: u64, total: u64 },
    /// A workspace's apps changed on disk.
    #[serde(rename_all = "camelCase")]
    Registry { workspace: String },
    /// A line a routine logged (`ctx.log`, stdout, stderr): the Output panel.
    #[serde(rename_all = "camelCase")]
    Log { workspace: String, run_id: String, routine: String, stream: &'static str, line: String },
    /// A widget file changed on disk: its open panes reload.
    #[serde(rename_all = "camelCase")]
    Widget { workspace: String, app: String, file: String },
    /// A pane's `cowork.app.post`: every other open pane of the same app receives it.
    #[serde(rename_all = "camelCase")]
    AppMessage { workspace: String, app: String, from_pane: String, message: serde_json::Value },
    /// What a pane said to the workbench's agent (`chat.ask`, `agent.*`): recorded for the chat pane.
    #[serde(rename_all = "camelCase")]
    Agent { workspace: String, app: String, method: String, params: serde_json::Value },
    /// `cowork app open`: the workbench opens an app, or one of its widget files `as` a tab,
    /// dialog or side-bar pane.
    #[serde(rename_all = "camelCase")]
    Open { workspace: String, app: String, file: Option<String>, r#as: Option<String> },
    /// A run finished.
    #[serde(rename_all = "camelCase")]
    Run {
        workspace: String,
        run_id: String,
        routine: String,
        status: Status,
        duration_ms: u64,
        /// Why it failed, masked as its audit line is.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<audit::RecordedError>,
    },
}

/// Where a run request came from, as the audit log's `source` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    App,
    Cli,
    Mcp,
    Webhook,
    Schedule,
    System,
}

impl Source {
    fn as_str(self) -> &'static str {
        match self {
            Source::App => "app",
            Source::Cli => "cli",
            Source::Mcp => "mcp",
            Source::Webhook => "webhook",
            Source::Schedule => "schedule",
            Source::System => "system",
        }
    }
}

/// One request to run a routine.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub routine: String,
    pub args: Value,
    pub source: Source,
    /// The agent (Claude Code, Codex) that ran the CLI, if any.
    pub agent: Option<String>,
    /// The app the caller is (a widget's app, the calling routine's app); None for the owner's CLI.
    pub caller_app: Option<String>,
    /// What part of the caller asked, recorded as the audit line's `context.caller.source`: a
    /// footer item's refresh is tagged `status-bar` (page 12). Not passed on to nested runs.
    pub caller_source: Option<String>,
    /// Per-call timeout, capped at 300 s.
    pub timeout_ms: Option<u64>,
    /// The routines that called this one, outermost first.
    pub chain: Vec<String>,
    /// A nested run never outlives its caller.
    pub deadline: Option<Instant>,
    /// The calling run's masks, for a nested run: the values it reads are masked there too.
    pub(crate) caller_masks: Option<Arc<Masks>>,
}

impl RunRequest {
    /// A top-level request with no caller app.
    pub fn new(routine: impl Into<String>, args: Value, source: Source) -> Self {
        RunRequest {
            routine: routine.into(),
            args,
            source,
            agent: None,
            caller_app: None,
            caller_source: None,
            timeout_ms: None,
            chain: Vec::new(),
            deadline: None,
            caller_masks: None,
        }
    }
}

/// A run's result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSuccess {
    pub run_id: String,
    pub result: Value,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A run that failed or was refused: `name` is what a widget branches on; a refusal (nothing ran)
/// has no `run_id`.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RunFailure {
    pub name: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
}

impl RunFailure {
    fn refusal(name: &str, message: String) -> Self {
        RunFailure { name: name.into(), message, run_id: None }
    }
}

/// The result of [`Workspace::run`].
pub type RunResult = Result<RunSuccess, RunFailure>;

/// A workspace folder could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("failed to open the workspace {path}: {source}")]
    Workspace { path: PathBuf, source: std::io::Error },
    #[error("{path} is not a folder")]
    NotAFolder { path: PathBuf },
}

/// What every workspace of an engine shares.
pub(crate) struct Shared {
    pub root: Root,
    pub runtime: Result<Runtime, RuntimeError>,
    pub transpiler: cowork_transpile::Cache,
    pub device_id: String,
    pub events: broadcast::Sender<Event>,
    pub consent: Arc<crate::consent::ConsentBroker>,
    /// Opened on first use and kept while its key source is the one in force; a failure (a locked
    /// keychain) is not kept, so the next use retries.
    secrets: Mutex<Option<Arc<cowork_secrets::SecretStore>>>,
    pub oauth: Arc<crate::signin::OAuth>,
    slots_max: usize,
    slots_used: AtomicUsize,
    /// The workspace the desktop shell shows: while one is set, only its notifications deliver.
    active: RwLock<Option<PathBuf>>,
}

/// A held concurrency slot, given back when dropped.
pub(crate) struct Slot<'a>(&'a AtomicUsize);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Shared {
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

    fn try_slot(&self) -> Option<Slot<'_>> {
        self.slots_used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |used| {
                (used < self.slots_max).then_some(used + 1)
            })
            .ok()
            .map(|_| Slot(&self.slots_used))
    }
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
        let (events, _) = broadcast::channel(1024);
        let shared = Shared {
            transpiler: cowork_transpile::Cache::new(root.cache_dir().join("transpile")),
            device_id: root.device_id(),
            runtime: runtime::find(),
            oauth: Arc::new(crate::signin::OAuth::load(&root, config.long_lived)),
            root,
            events,
            consent: Arc::new(crate::consent::ConsentBroker::default()),
            secrets: Mutex::new(None),
            slots_max: config.slots.max(1),
            slots_used: AtomicUsize::new(0),
            active: RwLock::new(None),
        };
        Arc::new(Engine {
            shared: Arc::new(shared),
            config,
            workspaces: Mutex::new(HashMap::new()),
        })
    }

    /// The Cowork root this engine keeps its files in.
    pub fn root(&self) -> &Root {
        &self.shared.root
    }

    /// The runtime routines run on, or why there is none.
    pub fn runtime(&self) -> Result<&Runtime, &RuntimeError> {
        self.shared.runtime.as_ref()
    }

    /// The configured number of slots and how many are in use.
    pub fn slots(&self) -> (usize, usize) {
        (self.shared.slots_used.load(Ordering::SeqCst), self.shared.slots_max)
    }

    /// The secret store, opened on first use.
    pub fn secrets(&self) -> Result<Arc<cowork_secrets::SecretStore>, cowork_secrets::SecretError> {
        self.shared.secrets()
    }

    /// The transpile cache (routines and widgets).
    pub fn transpiler(&self) -> &cowork_transpile::Cache {
        &self.shared.transpiler
    }

    /// Sign-ins (OAuth) of this root.
    pub fn oauth(&self) -> &Arc<crate::signin::OAuth> {
        &self.shared.oauth
    }

    /// Consent questions and answers (the desktop shell's modal listens here).
    pub fn consent(&self) -> &Arc<crate::consent::ConsentBroker> {
        &self.shared.consent
    }

    /// How many event streams are listening (an open workbench is one).
    pub fn listeners(&self) -> usize {
        self.shared.events.receiver_count()
    }

    /// Subscribes to every workspace's events.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.shared.events.subscribe()
    }

    /// The workspaces opened so far.
    pub fn open_workspaces(&self) -> Vec<Arc<Workspace>> {
        self.workspaces.lock().values().cloned().collect()
    }

    /// Makes `path` the active workspace (the one the desktop shell shows), or clears it: while a
    /// workspace is active, another workspace's notifications are dropped (their calls still resolve).
    pub fn set_active(&self, path: Option<&Path>) -> Result<Option<Arc<Workspace>>, EngineError> {
        let ws = path.map(|path| self.workspace(path)).transpose()?;
        *self.shared.active.write() = ws.as_ref().map(|ws| ws.root.clone());
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
        let mut open = self.workspaces.lock();
        if let Some(ws) = open.get(&canonical) {
            return Ok(ws.clone());
        }
        write_local_files(&canonical);
        let audit = AuditLog::new(self.shared.root.audit_dir(&canonical));
        // Pruning is housekeeping: a failure leaves old files, never stops a run.
        if let Err(error) = audit.prune(OffsetDateTime::now_utc().date()) {
            tracing::warn!(%error, "could not prune the audit log");
        }
        let ws = Arc::new(Workspace {
            registry: RwLock::new(Arc::new(registry::load(&canonical))),
            root: canonical.clone(),
            audit,
            hub: Hub::default(),
            shared: self.shared.clone(),
            inflight: Mutex::new(HashMap::new()),
        });
        if self.config.watch {
            if let Err(error) = crate::watch::watch(&ws) {
                tracing::warn!(%error, workspace = %canonical.display(), "not watching the workspace; edits apply on restart");
            }
        }
        open.insert(canonical, ws.clone());
        Ok(ws)
    }
}

/// A run in flight: its answer, and its masks (a caller sharing it must mask what it reads).
type InflightAnswer = (watch::Receiver<Option<RunResult>>, Arc<Masks>);

/// One open workspace: its registry (kept fresh by the watcher), audit log and notification hub.
pub struct Workspace {
    root: PathBuf,
    registry: RwLock<Arc<Registry>>,
    audit: AuditLog,
    hub: Hub,
    pub(crate) shared: Arc<Shared>,
    inflight: Mutex<HashMap<String, InflightAnswer>>,
}

impl Workspace {
    /// The workspace folder (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The registry as last loaded.
    pub fn registry(&self) -> Arc<Registry> {
        self.registry.read().clone()
    }

    /// Re-reads every manifest and `workspace.json`.
    pub fn reload(&self) {
        let fresh = Arc::new(registry::load(&self.root));
        *self.registry.write() = fresh;
        let _ = self.shared.events.send(Event::Registry { workspace: self.display() });
    }

    /// The audit log.
    pub fn audit(&self) -> &AuditLog {
        &self.audit
    }

    /// The notification hub.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    /// The workspace path as events name it.
    pub fn display(&self) -> String {
        self.root.display().to_string()
    }

    pub fn emit(&self, event: Event) {
        // Nobody listening is normal (a CLI run); events are best effort by design.
        let _ = self.shared.events.send(event);
    }

    /// Whether an app's notifications are muted (`workspace.json#notifications.muted` lists its folder).
    pub fn is_muted(&self, app_name: &str) -> bool {
        let registry = self.registry();
        let Some(app) = registry.app_by_name(app_name) else { return false };
        registry.config.notifications.muted.iter().any(|dir| dir.trim_end_matches('/') == app.dir)
    }

    /// Raises a notification as `app_name` (a capability's goes to the one app that uses it).
    pub fn notify(
        &self,
        app_name: &str,
        caller: Option<&str>,
        raw: &Value,
    ) -> Result<Delivery, NotifyError> {
        let registry = self.registry();
        let (poster, muted_too) = attribute(&registry, app_name, caller);
        let title = registry
            .app_by_name(&poster)
            .map(|a| a.manifest.title.clone())
            .unwrap_or_else(|| poster.clone());
        let muted = self.is_muted(&poster) || muted_too.is_some_and(|cap| self.is_muted(&cap));
        let inactive =
            self.shared.active.read().as_ref().is_some_and(|active| *active != self.root);
        let poster = Poster { app: &poster, app_title: &title, muted, inactive };
        let (delivery, notification) =
            self.hub.notify(poster, raw, audit::format_ts(OffsetDateTime::now_utc()))?;
        if matches!(delivery, Delivery::Delivered | Delivery::Replaced) {
            self.emit(Event::Notification {
                workspace: self.display(),
                notification,
                replaced: delivery == Delivery::Replaced,
            });
        }
        Ok(delivery)
    }

    /// Sets an app's badge count.
    pub fn badge(
        &self,
        app_name: &str,
        caller: Option<&str>,
        raw: &Value,
    ) -> Result<u64, NotifyError> {
        let registry = self.registry();
        let (poster, _) = attribute(&registry, app_name, caller);
        let count = self.hub.badge(&poster, raw)?;
        let total = self.hub.badges(|app| self.is_muted(app)).total;
        self.emit(Event::Badge { workspace: self.display(), app: poster, count, total });
        Ok(count)
    }

    /// Runs a routine: refusals at once, identical calls in flight shared, one audit line per run.
    pub async fn run(self: &Arc<Self>, request: RunRequest) -> RunResult {
        let registry = self.registry();
        let entry = self.admit(&registry, &request)?.clone();
        let key = inflight_key(&entry.id, request.caller_app.as_deref(), &request.args);
        let (sender, masks) = loop {
            // Looked up and claimed under one lock: two identical calls arriving together must not
            // both find the table empty and start two runs (the second then refused for its slot).
            let claimed = {
                let mut table = self.inflight.lock();
                match table.get(&key) {
                    Some((answer, masks)) => Err((answer.clone(), masks.clone())),
                    None => {
                        let (sender, receiver) = watch::channel(None);
                        let masks = Arc::new(Masks::default());
                        table.insert(key.clone(), (receiver, masks.clone()));
                        Ok((sender, masks))
                    }
                }
            };
            let (mut answer, masks) = match claimed {
                Ok(claim) => break claim,
                Err(joined) => joined,
            };
            // A caller sharing the run masks what the run reads, as if it had run it.
            if let Some(caller) = &request.caller_masks {
                masks.pass_on_to(caller);
            }
            let joined = match answer.wait_for(Option::is_some).await {
                Ok(result) => result.clone(),
                Err(_) => None,
            };
            if let Some(result) = joined {
                return result;
            }
            // The run it joined was dropped before it answered: clear its entry and start one.
            let mut table = self.inflight.lock();
            if table.get(&key).is_some_and(|(current, _)| current.same_channel(&answer)) {
                table.remove(&key);
            }
        };
        if let Some(caller) = &request.caller_masks {
            masks.pass_on_to(caller);
        }
        let result = self.run_admitted(&entry, &request, &masks).await;
        self.inflight.lock().remove(&key);
        sender.send_replace(Some(result.clone()));
        result
    }

    /// The same as [`Workspace::run`], boxed so that a run can start nested runs.
    pub(crate) fn run_boxed(
        self: Arc<Self>,
        request: RunRequest,
    ) -> Pin<Box<dyn Future<Output = RunResult> + Send>> {
        Box::pin(async move { self.run(request).await })
    }

    fn admit<'r>(
        &self,
        registry: &'r Registry,
        request: &RunRequest,
    ) -> Result<&'r RoutineEntry, RunFailure> {
        let id = &request.routine;
        let Some(entry) = registry.routine(id) else {
            let why = registry
                .why_not_registered(id)
                .map(|why| format!(": its manifest entry was dropped ({why})"))
                .unwrap_or_default();
            return Err(RunFailure::refusal(
                "NotFound",
                format!("no routine \"{id}\" in this workspace{why}"),
            ));
        };
        if let Some(off) = registry.switched_off(id) {
            let message = match off {
                SwitchedOff::App(app) => format!("\"{id}\" belongs to {} ({}), which is switched off in .cowork/workspace.json#disabled.apps", app.manifest.name, app.dir),
                SwitchedOff::Routine => format!("the routine \"{id}\" is switched off in .cowork/workspace.json#disabled.routines"),
                SwitchedOff::File(file) => format!("the file of \"{id}\", {file}, is switched off in .cowork/workspace.json#disabled.apps"),
            };
            return Err(RunFailure::refusal("RoutineDisabled", message));
        }
        if let Some(message) = crate::grants::unrestricted_refusal(&registry.config, entry) {
            return Err(RunFailure::refusal("Forbidden", message));
        }
        if request.chain.contains(id) {
            let mut path = request.chain.clone();
            path.push(id.clone());
            return Err(RunFailure::refusal(
                "RoutineCycle",
                format!("\"{id}\" is already running in this chain: {}", path.join(" → ")),
            ));
        }
        if request.chain.len() > MAX_DEPTH {
            return Err(RunFailure::refusal(
                "RoutineDepth",
                format!(
                    "calls nest at most {MAX_DEPTH} deep ({} → {id})",
                    request.chain.join(" → ")
                ),
            ));
        }
        if let Some(caller) = &request.caller_app {
            check_uses(registry, caller, entry)?;
        }
        Ok(entry)
    }

    async fn run_admitted(
        self: &Arc<Self>,
        entry: &RoutineEntry,
        request: &RunRequest,
        masks: &Arc<Masks>,
    ) -> RunResult {
        let Some(_slot) = self.shared.try_slot() else {
            let running = match self.shared.slots_max {
                1 => "1 routine is running already".to_string(),
                max => format!("{max} routines are running already"),
            };
            return Err(RunFailure::refusal(
                "TooManyRoutines",
                format!("{running}, the most at once; try again when one finishes"),
            ));
        };
        let run_id = new_run_id();
        let started = Instant::now();
        let started_at = OffsetDateTime::now_utc();
        let limit = TimeLimit::of(entry, request, started);
        let execution: Execution = run::execute(self, entry, request, &run_id, &limit, masks).await;
        let duration_ms = started.elapsed().as_millis() as u64;
        let (status, error) = match &execution.outcome {
            Ok(_) => (Status::Ok, None),
            Err(f) => (
                Status::Error,
                Some(RecordedError { name: f.name.clone(), message: f.message.clone() }),
            ),
        };
        let result_value = execution.outcome.as_ref().ok().map(|(v, _)| v.clone());
        let mask = |text: &str| masks.apply(text);
        let record = Record::finish(
            started_at,
            &entry.id,
            &request.args,
            duration_ms,
            self.context(entry, request, &run_id),
            Outcome {
                status,
                error,
                result: result_value.as_ref(),
                log_lines: &execution.log,
                unchanged: execution.unchanged,
                mask: Some(&mask),
            },
        );
        // The run happened either way; its caller must hear that no record of it was kept.
        let audit_lost = self.audit.append(&record).err().map(|error| {
            tracing::error!(%error, "audit line lost");
            format!("this run was not recorded in the audit log ({error}); `cowork routine runs` will not list it")
        });
        self.emit(Event::Run {
            workspace: self.display(),
            run_id: run_id.clone(),
            routine: entry.id.clone(),
            status,
            duration_ms,
            error: record.error.clone(),
        });
        match execution.outcome {
            Ok((result, mut warnings)) => {
                warnings.extend(audit_lost);
                Ok(RunSuccess { run_id, result, warnings })
            }
            Err(mut failure) => {
                failure.run_id = Some(run_id);
                if let Some(lost) = audit_lost {
                    failure.message = format!("{} (also: {lost})", failure.message);
                }
                Err(failure)
            }
        }
    }

    fn context(&self, entry: &RoutineEntry, request: &RunRequest, run_id: &str) -> Context {
        let caller = (request.caller_app.is_some()
            || request.caller_source.is_some()
            || !request.chain.is_empty())
        .then(|| Caller {
            app: request.caller_app.clone(),
            source: request.caller_source.clone(),
            agent: None,
            chain: request.chain.clone(),
        });
        Context {
            execution_id: run_id.to_string(),
            user_id: None,
            organization_id: None,
            device_id: self.shared.device_id.clone(),
            workspace: self.display(),
            source: request.source.as_str().to_string(),
            agent: request.agent.clone(),
            task_id: None,
            app_id: Some(entry.app_name.clone()),
            app_version: Some(entry.app_version.clone()),
            kind: Some(match entry.kind {
                Kind::App => "app".into(),
                Kind::Capability => "capability".into(),
            }),
            caller,
        }
    }
}

/// The SDK types every workspace gets, ambient for editors and agents.
const SDK_TYPES: &str = include_str!("cowork.d.ts");

/// Writes `.cowork/local/cowork.d.ts` (and the `.gitignore` that keeps `local/` out of git) into a
/// workspace that has a `.cowork` folder, when they are missing or out of date.
fn write_local_files(workspace: &Path) {
    if !workspace.join(".cowork").is_dir() {
        return;
    }
    let local = workspace.join(cowork_core::workspace_json::LOCAL_DIR);
    for (name, text) in
        [("cowork.d.ts", SDK_TYPES), (".gitignore", cowork_core::workspace_json::LOCAL_GITIGNORE)]
    {
        let path = local.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
            // A read-only workspace still runs; only editors miss the types.
            if let Err(error) = cowork_core::fs_atomic::write(&path, text.as_bytes(), false) {
                tracing::warn!(%error, path = %path.display(), "could not write the SDK types");
            }
        }
    }
}

/// The workspace folder of the apps' data (`ctx.data`, and `ctx.db` files placed there).
pub(crate) const DATA_DIR: &str = ".cowork/data";
/// `.cowork/data/.gitignore`: app data is local to a machine, never committed.
pub(crate) const DATA_GITIGNORE: &str = "# Cowork app data (ctx.data): local to this machine\n*\n";

/// Writes `.cowork/data/.gitignore` when it is missing (runner.mjs does the same for `ctx.data`,
/// with this text from its init answer).
pub(crate) fn ignore_data_folder(workspace: &Path) {
    let path = workspace.join(DATA_DIR).join(".gitignore");
    if !path.exists() {
        // The data is there either way; a failure only risks it being committed, so say so.
        if let Err(error) = cowork_core::fs_atomic::write(&path, DATA_GITIGNORE.as_bytes(), false) {
            tracing::warn!(%error, path = %path.display(), "could not keep app data out of git");
        }
    }
}

/// A capability's notification is posted as the one app that uses it (its own mute applies too).
fn attribute(
    registry: &Registry,
    app_name: &str,
    caller: Option<&str>,
) -> (String, Option<String>) {
    let Some(app) = registry.app_by_name(app_name) else { return (app_name.to_string(), None) };
    if app.manifest.kind != Kind::Capability {
        return (app_name.to_string(), None);
    }
    let users: Vec<&str> = registry
        .apps
        .iter()
        .filter(|a| a.enabled && a.owns_name && a.manifest.uses.contains_key(app_name))
        .map(|a| a.manifest.name.as_str())
        .collect();
    // The app whose call led here is the one the person was using: a click opens it, even when
    // other apps use the capability too.
    if let Some(caller) = caller.filter(|c| users.contains(c)) {
        return (caller.to_string(), Some(app_name.to_string()));
    }
    match users.as_slice() {
        [one] => (one.to_string(), Some(app_name.to_string())),
        _ => (app_name.to_string(), None),
    }
}

/// Under the capability model (an app declaring `kind` or `uses`), another package's routine is
/// reachable only through a capability named in `uses`, at a version that meets it.
fn check_uses(registry: &Registry, caller: &str, target: &RoutineEntry) -> Result<(), RunFailure> {
    if target.app_name == caller {
        return Ok(());
    }
    let Some(app) = registry.app_by_name(caller) else { return Ok(()) };
    let manifest = &app.manifest;
    if !manifest.kind_declared && !manifest.declares_uses {
        return Ok(());
    }
    if target.kind != Kind::Capability {
        return Err(RunFailure::refusal(
            "Forbidden",
            format!("{caller} may not run \"{}\": it belongs to the app {}, and an app's routines are its own (only a capability's are shared)", target.id, target.app_name),
        ));
    }
    let Some(wanted) = manifest.uses.get(&target.app_name) else {
        return Err(RunFailure::refusal(
            "Forbidden",
            format!(
                "{caller} may not run \"{}\": it belongs to the capability {}, which {}/cowork.json does not use — add \"uses\": {{\"{}\": \"{}\"}}",
                target.id, target.app_name, app.dir, target.app_name, target.app_version
            ),
        ));
    };
    if !cowork_core::manifest::satisfies(wanted, &target.app_version) {
        return Err(RunFailure::refusal(
            "NotFound",
            format!("{caller} needs the capability {} {wanted} or a later {}.x, but this workspace has {}", target.app_name, wanted.split('.').next().unwrap_or(wanted), target.app_version),
        ));
    }
    Ok(())
}

/// How long a run may take, and what set that: the message of a run that overran says what to raise.
pub(crate) struct TimeLimit {
    pub duration: Duration,
    pub deadline: Instant,
    pub set_by: LimitSource,
}

/// Where a run's time limit came from.
pub(crate) enum LimitSource {
    /// The routine's `timeout` in cowork.json (or the default).
    Manifest,
    /// The call's own `timeoutMs` (`ctx.routines.run`, `--timeout-ms`).
    Call,
    /// What the calling routine had left of its own time, shorter than either of the above.
    Caller(String),
}

impl TimeLimit {
    fn of(entry: &RoutineEntry, request: &RunRequest, started: Instant) -> TimeLimit {
        let (own, mut set_by) = match request.timeout_ms {
            Some(ms) => (Duration::from_millis(ms), LimitSource::Call),
            None => (Duration::from_secs(u64::from(entry.timeout_s)), LimitSource::Manifest),
        };
        let mut duration = own.min(MAX_TIMEOUT);
        if let Some(deadline) = request.deadline {
            let left = deadline.saturating_duration_since(started);
            if left < duration {
                duration = left;
                set_by = LimitSource::Caller(request.chain.last().cloned().unwrap_or_default());
            }
        }
        TimeLimit { duration, deadline: started + duration, set_by }
    }

    /// Why `routine` was stopped, and what to change so it has time enough.
    pub fn overrun_message(&self, routine: &str) -> String {
        let secs = self.duration.as_secs_f64().ceil() as u64;
        let hint = match &self.set_by {
            LimitSource::Manifest => "raise \"timeout\" for it in cowork.json, at most 300".to_string(),
            LimitSource::Call => "the call's timeoutMs set that limit; raise it, at most 300000".to_string(),
            LimitSource::Caller(caller) => format!("that was what its caller {caller} had left of its own time; raise \"timeout\" for {caller} in cowork.json, at most 300"),
        };
        format!("{routine} did not finish within {secs} s and was stopped ({hint})")
    }
}

/// The in-flight table's key: the routine, the calling app and the arguments as canonical JSON
/// (keys sorted at every level), so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one call.
fn inflight_key(routine: &str, caller_app: Option<&str>, args: &Value) -> String {
    format!("{routine}\u{0}{}\u{0}{}", caller_app.unwrap_or(""), canonical(args))
}

/// `value` with every object's keys in sorted order (serde_json keeps insertion order here).
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> =
                map.iter().map(|(k, v)| (k.clone(), canonical(v))).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// A run id: 32 hex digits, unique enough to name a run in `cowork routine runs show`.
fn new_run_id() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn calls_differing_only_in_key_order_share_one_in_flight_key() {
        let a = inflight_key(
            "r",
            None,
            &json!({"s": 2, "b": 1, "n": {"y": [{"q": 1, "p": 2}], "x": null}}),
        );
        let b = inflight_key(
            "r",
            None,
            &json!({"b": 1, "n": {"x": null, "y": [{"p": 2, "q": 1}]}, "s": 2}),
        );
        assert_eq!(a, b);
        assert_ne!(a, inflight_key("r", None, &json!({"b": 1, "s": 3})));
        assert_ne!(
            inflight_key("r", None, &json!([1, 2])),
            inflight_key("r", None, &json!([2, 1])),
            "arrays keep their order"
        );
    }

    #[test]
    fn a_capabilitys_notification_goes_to_the_app_whose_call_led_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let app = |name: &str, manifest: &str| {
            let folder = dir.path().join(".cowork/apps").join(name);
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(folder.join("cowork.json"), manifest).unwrap();
        };
        app("tasks", r#"{"name": "tasks", "version": "1.0.0", "kind": "capability"}"#);
        app(
            "board",
            r#"{"name": "board", "version": "1.0.0", "entry": "board.jsx", "uses": {"tasks": "1.0.0"}}"#,
        );
        app(
            "standup",
            r#"{"name": "standup", "version": "1.0.0", "entry": "standup.jsx", "uses": {"tasks": "1.0.0"}}"#,
        );
        app("notes", r#"{"name": "notes", "version": "1.0.0", "entry": "notes.jsx"}"#);
        let registry = cowork_core::registry::load(dir.path());
        let owned = |poster: &str| (poster.to_string(), Some("tasks".to_string()));
        assert_eq!(attribute(&registry, "tasks", Some("board")), owned("board"));
        assert_eq!(attribute(&registry, "tasks", Some("standup")), owned("standup"));
        // Two apps use it and none called (the CLI, a schedule): the capability keeps it.
        assert_eq!(attribute(&registry, "tasks", None), ("tasks".to_string(), None));
        // An app that does not use the capability never takes its notifications.
        assert_eq!(attribute(&registry, "tasks", Some("notes")), ("tasks".to_string(), None));
        assert_eq!(attribute(&registry, "notes", Some("board")), ("notes".to_string(), None));
    }
}
