//! One open workspace: its registry (kept fresh by the watcher), audit log, notification hub and
//! the runs of its routines — admitted, shared when identical, run, and recorded.

use crate::admission;
use crate::engine::Shared;
use crate::event::Event;
use crate::hub::{Delivery, Hub, NotifyError, Poster};
use crate::inflight::{inflight_key, Claim, Inflight};
use crate::masks::Masks;
use crate::protocol::ErrorName;
use crate::request::{new_run_id, RunFailure, RunRequest, RunResult, RunSuccess, TimeLimit};
use crate::run::{self, Execution};
use crate::running::{Running, RunningRun};
use crate::slots::{NoSlot, Place, SlotWait, RETRY_AFTER, WEBHOOK_WAIT};
use cowork_core::audit::{self, AuditLog, Caller, Context, Outcome, Record, RecordedError, Status};
use cowork_core::registry::{self, Kind, Registry, RoutineEntry};
use parking_lot::{Mutex, RwLock};
use serde_json::Value;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;
use time::OffsetDateTime;

/// One open workspace: its registry (kept fresh by the watcher), audit log and notification hub.
pub struct Workspace {
    root: PathBuf,
    registry: RwLock<Arc<Registry>>,
    /// Held from a reload's first read to its store: two reloads at once (the watcher's and a
    /// request's that has just written `workspace.json`) could otherwise store the older read
    /// last, and the workspace would show the state from before the write.
    reloading: Mutex<()>,
    audit: AuditLog,
    hub: Hub,
    shared: Arc<Shared>,
    inflight: Inflight,
    running: Running,
    /// Why no routine runs here, when the workspace overlaps the Cowork root (worked out once:
    /// neither path moves while the workspace is open).
    overlap: Option<String>,
}

/// Reads every manifest and `workspace.json`, and keeps `.claude/skills/` in step with them:
/// page 12 has Cowork link every switched-on app's SKILL.md as a project skill, so a coding agent
/// opened in the workspace knows its apps without anyone running `cowork agent skills`.
fn load(root: &Path) -> Registry {
    let registry = registry::load(root);
    // The links are a convenience for coding agents: a workspace that cannot take them (read-only,
    // or a person's own file where a link would go) still loads.
    if let Err(error) = cowork_core::skills::link(&registry) {
        tracing::warn!(%error, "could not link the apps' skills under .claude/skills");
    }
    registry
}

impl Workspace {
    /// Opens the workspace at `root` (canonical): loads its registry, prunes its audit log.
    pub(crate) fn open(root: PathBuf, shared: Arc<Shared>) -> Workspace {
        write_local_files(&root);
        let audit = AuditLog::new(shared.root().audit_dir(&root));
        // Pruning is housekeeping: a failure leaves old files, never stops a run.
        if let Err(error) = audit.prune(OffsetDateTime::now_utc().date()) {
            tracing::warn!(%error, "could not prune the audit log");
        }
        let overlap = shared.root().overlap(&root).map(|o| o.explain(&root, shared.root().dir()));
        Workspace {
            overlap,
            registry: RwLock::new(Arc::new(load(&root))),
            reloading: Mutex::new(()),
            root,
            audit,
            hub: Hub::default(),
            shared,
            inflight: Inflight::default(),
            running: Running::default(),
        }
    }

    /// What every workspace of the engine shares (the runtime, the secret store, sign-ins…).
    pub(crate) fn shared(&self) -> &Shared {
        &self.shared
    }

    /// The secret store, opened on first use.
    pub(crate) fn secrets(
        &self,
    ) -> Result<Arc<cowork_secrets::SecretStore>, cowork_secrets::SecretError> {
        self.shared.secrets()
    }

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
        let reloading = self.reloading.lock();
        let fresh = Arc::new(load(&self.root));
        *self.registry.write() = fresh;
        drop(reloading);
        self.emit(Event::Registry { workspace: self.display() });
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
        self.shared.emit(event);
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
        self.notify_from(app_name, caller, raw, false)
    }

    /// [`Workspace::notify`], from a run a notification trigger started when `from_trigger`: that
    /// one reaches the person but starts no trigger (no loop of routines notifying each other).
    pub fn notify_from(
        &self,
        app_name: &str,
        caller: Option<&str>,
        raw: &Value,
        from_trigger: bool,
    ) -> Result<Delivery, NotifyError> {
        let registry = self.registry();
        let (poster, muted_too) = attribute(&registry, app_name, caller);
        let title = registry
            .app_by_name(&poster)
            .map(|a| a.manifest.title.clone())
            .unwrap_or_else(|| poster.clone());
        let muted = self.is_muted(&poster) || muted_too.is_some_and(|cap| self.is_muted(&cap));
        let inactive = self.shared.active_is_not(&self.root);
        let poster = Poster { app: &poster, app_title: &title, muted, inactive };
        let (delivery, notification) =
            self.hub.notify(poster, raw, audit::format_ts(OffsetDateTime::now_utc()))?;
        if delivery != Delivery::RateLimited && !from_trigger {
            self.shared.raise(crate::hub::Raised {
                workspace: self.root.clone(),
                notification: notification.clone(),
            });
        }
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
    /// A run a trigger started (`request.slot_wait`) waits for a slot instead of being refused
    /// one, and any refusal of it is an audit line too: nobody else would hear of it.
    pub async fn run(self: &Arc<Self>, request: RunRequest) -> RunResult {
        let mut registry = self.registry();
        if registry.routine(&request.routine).is_none() {
            // An app written a moment ago: the watcher reloads only after its quiet period, and
            // a run asked for at once (`cowork routine list` already shows it) must not miss it.
            self.reload();
            registry = self.registry();
        }
        let admitted = match &self.overlap {
            Some(why) => Err(RunFailure::refusal(ErrorName::HoldsRoot, why.clone())),
            None => admission::admit(&registry, &request),
        };
        let entry = match admitted {
            Ok(entry) => entry.clone(),
            Err(refusal) => {
                if request.slot_wait != SlotWait::Never {
                    self.refused(
                        registry.routine(&request.routine),
                        &request,
                        &new_run_id(),
                        &refusal,
                    );
                }
                return Err(refusal);
            }
        };
        let key = inflight_key(&entry.id, request.caller_app.as_deref(), &request.args);
        let mut joined_a_refusal = false;
        let (sender, masks) = loop {
            let (mut answer, masks) = match self.inflight.claim(&key) {
                Claim::Run(sender, masks) => break (sender, masks),
                Claim::Join(answer, masks) => (answer, masks),
            };
            // A caller sharing the run masks what the run reads, as if it had run it.
            if let Some(caller) = request.caller_masks() {
                masks.pass_on_to(caller);
            }
            let joined = match answer.wait_for(Option::is_some).await {
                Ok(result) => result.clone(),
                Err(_) => None,
            };
            if let Some(result) = joined {
                // The run it shared was refused a slot, and this one may wait for one: it asks
                // once itself (the run that refused has finished its entry).
                let refused_a_slot = matches!(&result, Err(f) if f.run_id.is_none() && f.name == ErrorName::TooManyRoutines);
                if !refused_a_slot || request.slot_wait == SlotWait::Never || joined_a_refusal {
                    return result;
                }
                joined_a_refusal = true;
                continue;
            }
            // The run it joined was dropped before it answered: clear its entry and start one.
            self.inflight.clear_dropped(&key, &answer);
        };
        if let Some(caller) = request.caller_masks() {
            masks.pass_on_to(caller);
        }
        let result = self.run_admitted(&entry, &request, &masks).await;
        self.inflight.finish(&key);
        sender.send_replace(Some(result.clone()));
        result
    }

    /// The runs started here and not yet finished, oldest first.
    pub fn running(&self) -> Vec<RunningRun> {
        self.running.list()
    }

    /// Records a call that was refused before it started (an agent the routine is not granted
    /// to) as a `denied` audit line, and answers it as a `Denied` refusal with `message`.
    pub fn deny(&self, entry: &RoutineEntry, request: &RunRequest, message: String) -> RunFailure {
        let run_id = new_run_id();
        let failure = RunFailure { name: ErrorName::Denied, message, run_id: Some(run_id.clone()) };
        self.refused(Some(entry), request, &run_id, &failure);
        failure
    }

    /// Writes `failure`, a refusal of `request` before it ran, as a `denied` audit line under
    /// `run_id`, and tells the event stream.
    fn refused(
        &self,
        entry: Option<&RoutineEntry>,
        request: &RunRequest,
        run_id: &str,
        failure: &RunFailure,
    ) {
        let routine = entry.map_or(request.routine.as_str(), |entry| entry.id.as_str());
        let identity = self.shared.account().identity();
        let record = Record::finish(
            OffsetDateTime::now_utc(),
            routine,
            &request.args,
            0,
            self.context(entry, request, run_id, &identity),
            Outcome {
                status: Status::Denied,
                error: Some(RecordedError {
                    name: failure.name.to_string(),
                    message: failure.message.clone(),
                }),
                result: None,
                log_lines: &[],
                unchanged: false,
                mask: None,
            },
        );
        if let Err(error) = self.audit.append(&record) {
            tracing::error!(%error, %routine, "audit line of a refused call lost");
        }
        self.finished(entry, &record);
        self.emit(Event::Run {
            workspace: self.display(),
            run_id: run_id.to_string(),
            routine: routine.to_string(),
            status: Status::Denied,
            duration_ms: 0,
            error: record.error.clone(),
        });
    }

    /// The refusal of a run that got no slot: what is busy, and when to try again.
    fn no_slot(&self, why: NoSlot) -> RunFailure {
        let slots = self.shared.slots();
        let running = match slots.max() {
            1 => "1 routine is running already".to_string(),
            max => format!("{max} routines are running already"),
        };
        let retry = RETRY_AFTER.as_secs();
        let message = match why {
            NoSlot::Busy => format!("{running}, the most at once; try again when one finishes"),
            NoSlot::LineFull => format!(
                "{running}, the most at once, and {} webhook calls wait for a slot, the most that may; try again in {retry} s",
                slots.queue()
            ),
            NoSlot::WaitedOut => format!(
                "{running}, the most at once, and none finished within the {} s this call may wait; try again in {retry} s",
                WEBHOOK_WAIT.as_secs()
            ),
        };
        RunFailure::refusal(ErrorName::TooManyRoutines, message)
    }

    /// The same as [`Workspace::run`], boxed so that a run can start nested runs.
    pub(crate) fn run_boxed(
        self: Arc<Self>,
        request: RunRequest,
    ) -> Pin<Box<dyn Future<Output = RunResult> + Send>> {
        Box::pin(async move { self.run(request).await })
    }

    async fn run_admitted(
        self: &Arc<Self>,
        entry: &RoutineEntry,
        request: &RunRequest,
        masks: &Arc<Masks>,
    ) -> RunResult {
        let run_id = new_run_id();
        let queued_at = OffsetDateTime::now_utc();
        let listing = |queued: bool, at: OffsetDateTime| RunningRun {
            run_id: run_id.clone(),
            routine: entry.id.clone(),
            app: entry.app_name.clone(),
            started: audit::format_ts(at),
            source: request.source.as_str().to_string(),
            agent: request.agent.clone(),
            task: request.task.clone(),
            queued,
            queued_ms: None,
        };
        let refuse = |why: NoSlot| {
            let failure = self.no_slot(why);
            if request.slot_wait != SlotWait::Never {
                self.refused(Some(entry), request, &run_id, &failure);
            }
            failure
        };
        let place = self.shared.slots().join(request.slot_wait).map_err(refuse)?;
        let (_slot, queued, listed) = match place {
            Place::Now(slot) => (slot, None, None),
            Place::InLine(waiting) => {
                // Listed while it waits, so Monitor and Executions show the delay as it grows.
                let listed = self.running.enter(listing(true, queued_at));
                self.emit(Event::RunQueued {
                    workspace: self.display(),
                    run_id: run_id.clone(),
                    routine: entry.id.clone(),
                });
                let since = Instant::now();
                match waiting.slot().await {
                    Ok(slot) => (slot, Some(since.elapsed().as_millis() as u64), Some(listed)),
                    Err(why) => {
                        // Off the list before the `run` event that says so.
                        drop(listed);
                        return Err(refuse(why));
                    }
                }
            }
        };
        let started = Instant::now();
        let started_at = OffsetDateTime::now_utc();
        let limit = TimeLimit::of(entry, request, started);
        let _listed = match listed {
            Some(listed) => {
                listed.start(audit::format_ts(started_at), queued.unwrap_or_default());
                listed
            }
            None => self.running.enter(listing(false, started_at)),
        };
        self.emit(Event::RunStarted {
            workspace: self.display(),
            run_id: run_id.clone(),
            routine: entry.id.clone(),
        });
        // Who the run is for, read once: `ctx.identity` and the audit line agree, and a sign-out
        // while it runs changes neither.
        let identity = self.shared.account().identity();
        let execution: Execution =
            run::execute(self, entry, request, &run_id, &limit, masks, &identity).await;
        let duration_ms = started.elapsed().as_millis() as u64;
        let (status, error) = match &execution.outcome {
            Ok(_) => (Status::Ok, None),
            Err(f) => (
                Status::Error,
                Some(RecordedError { name: f.name.to_string(), message: f.message.clone() }),
            ),
        };
        let result_value = execution.outcome.as_ref().ok().map(|(v, _)| v.clone());
        let mask = |text: &str| masks.apply(text);
        let mut record = Record::finish(
            started_at,
            &entry.id,
            &request.args,
            duration_ms,
            self.context(Some(entry), request, &run_id, &identity),
            Outcome {
                status,
                error,
                result: result_value.as_ref(),
                log_lines: &execution.log,
                unchanged: execution.unchanged,
                mask: Some(&mask),
            },
        );
        record.queued_ms = queued;
        // The run happened either way; its caller must hear that no record of it was kept.
        let audit_lost = self.audit.append(&record).err().map(|error| {
            tracing::error!(%error, "audit line lost");
            format!("this run was not recorded in the audit log ({error}); `cowork routine runs` will not list it")
        });
        self.finished(Some(entry), &record);
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

    /// Hands an audited run to the host's account (a run of an app installed from a team server
    /// is reported there); a refusal of a routine that does not exist names no app to report for.
    fn finished(&self, entry: Option<&RoutineEntry>, record: &Record) {
        let Some(entry) = entry else { return };
        self.shared.account().finished(crate::account::FinishedRun {
            workspace: self.root(),
            app_dir: &entry.app_dir,
            record,
        });
    }

    /// Who is signed in now (a refusal recorded outside a run, e.g. a webhook's, names them too).
    pub fn identity(&self) -> crate::account::Identity {
        self.shared.account().identity()
    }

    /// The audit line's `context` of `request`'s run `run_id` for the account `identity`;
    /// `entry` when the routine is known.
    fn context(
        &self,
        entry: Option<&RoutineEntry>,
        request: &RunRequest,
        run_id: &str,
        identity: &crate::account::Identity,
    ) -> Context {
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
            user_id: identity.user_id(),
            organization_id: identity.organization_id(),
            device_id: self.shared.device_id().to_string(),
            workspace: self.display(),
            source: request.source.as_str().to_string(),
            agent: request.agent.clone(),
            task_id: request.task.clone(),
            app_id: entry.map(|entry| entry.app_name.clone()),
            app_version: entry.map(|entry| entry.app_version.clone()),
            kind: entry.map(|entry| match entry.kind {
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
            let written =
                cowork_core::fs_atomic::write_inside(workspace, &path, text.as_bytes(), false);
            if let Err(error) = written {
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
        let written = cowork_core::fs_atomic::write_inside(
            workspace,
            &path,
            DATA_GITIGNORE.as_bytes(),
            false,
        );
        if let Err(error) = written {
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

#[cfg(test)]
mod tests {
    use super::*;

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
