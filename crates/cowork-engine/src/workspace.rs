//! One open workspace: its registry (kept fresh by the watcher), audit log, notifications,
//! consent, and the tables of its runs (in flight, running). How a run request becomes a run —
//! `Workspace::run` — is `launch.rs`, above this module and `run.rs`.

use crate::consent::{AskedIn, Decision, Question};
use crate::event::Event;
use crate::inflight::Inflight;
use crate::notifications::{Delivery, Notifications, NotifyError, Poster};
use crate::request::{new_run_id, RunFailure, RunRequest};
use crate::running::{Running, RunningRun};
use crate::shared::Shared;
use cowork_core::audit::{self, AuditLog, Caller, Context, Outcome, Record, RecordedError, Status};
use cowork_core::error_name::ErrorName;
use cowork_core::registry::{self, Kind, Registry, RoutineEntry};
use cowork_core::workspace_json::WORKSPACE_FILE;
use parking_lot::{Mutex, RwLock};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use time::OffsetDateTime;

/// One open workspace: its registry (kept fresh by the watcher), audit log and notifications.
pub struct Workspace {
    root: PathBuf,
    registry: RwLock<Arc<Registry>>,
    /// `workspace.json` as the registry read it (modified time and size): a run compares it
    /// with the file's, so an off-switch written by hand is in force for the very next run, not
    /// only once the watcher's quiet period has passed.
    switches_read: Mutex<Option<Stamp>>,
    /// Held from a reload's first read to its store: two reloads at once (the watcher's and a
    /// request's that has just written `workspace.json`) could otherwise store the older read
    /// last, and the workspace would show the state from before the write.
    reloading: Mutex<()>,
    audit: AuditLog,
    notifications: Notifications,
    pub(crate) shared: Arc<Shared>,
    inflight: Inflight,
    running: Running,
    /// Why no routine runs here, when the workspace overlaps the Cowork root (worked out once:
    /// neither path moves while the workspace is open).
    overlap: Option<String>,
    /// The task store kept open for `ctx.queue` and the daemon's queue routes.
    queues: cowork_queue::Pool,
}

/// A file's modified time and size: enough to tell that it was written since.
type Stamp = (std::time::SystemTime, u64);

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
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
        let queues = cowork_queue::Pool::new(&root);
        let switches_read = Mutex::new(stamp(&root.join(WORKSPACE_FILE)));
        Workspace {
            overlap,
            registry: RwLock::new(Arc::new(load(&root))),
            switches_read,
            reloading: Mutex::new(()),
            root,
            audit,
            notifications: Notifications::default(),
            shared,
            inflight: Inflight::default(),
            running: Running::default(),
            queues,
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

    /// The workspace's task stores, kept open: a run holds one from its first `ctx.queue` call to
    /// its end, the daemon takes one per widget or Tasks view call.
    pub fn queues(&self) -> &cowork_queue::Pool {
        &self.queues
    }

    /// The registry as last loaded.
    pub fn registry(&self) -> Arc<Registry> {
        self.registry.read().clone()
    }

    /// Re-reads every manifest and `workspace.json`.
    pub fn reload(&self) {
        let reloading = self.reloading.lock();
        // Stamped before the read: a write landing during it is seen by the next comparison.
        *self.switches_read.lock() = stamp(&self.root.join(WORKSPACE_FILE));
        let fresh = Arc::new(load(&self.root));
        *self.registry.write() = fresh;
        drop(reloading);
        self.emit(Event::Registry { workspace: self.display() });
    }

    /// Reloads when `workspace.json` changed since the registry read it (a hand edit the watcher
    /// has not reloaded for yet): what it switches off holds for the very next run.
    pub(crate) fn reload_if_switches_changed(&self) {
        let now = stamp(&self.root.join(WORKSPACE_FILE));
        if *self.switches_read.lock() != now {
            self.reload();
        }
    }

    /// The audit log.
    pub fn audit(&self) -> &AuditLog {
        &self.audit
    }

    /// Its notifications and badge counts.
    pub fn notifications(&self) -> &Notifications {
        &self.notifications
    }

    /// The workspace path as events name it.
    pub fn display(&self) -> String {
        self.root.display().to_string()
    }

    /// Sends `event` to every event stream that listens.
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
            self.notifications.notify(poster, raw, audit::format_ts(OffsetDateTime::now_utc()))?;
        if delivery != Delivery::RateLimited && !from_trigger {
            self.shared.raise(crate::notifications::Raised {
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
        let count = self.notifications.badge(&poster, raw)?;
        let total = self.notifications.badges(|app| self.is_muted(app)).total;
        let unread_source = self.notifications.unread_source(&poster);
        self.emit(Event::Badge {
            workspace: self.display(),
            app: poster,
            count,
            total,
            unread_source,
        });
        Ok(count)
    }

    /// The runs started here and not yet finished, oldest first.
    pub fn running(&self) -> Vec<RunningRun> {
        self.running.list()
    }

    /// The table of the runs started here and not yet finished.
    pub(crate) fn running_runs(&self) -> &Running {
        &self.running
    }

    /// The runs in flight, which an identical call shares.
    pub(crate) fn inflight(&self) -> &Inflight {
        &self.inflight
    }

    /// Why no routine runs here (the workspace overlaps the Cowork root), when none does.
    pub(crate) fn overlap(&self) -> Option<&str> {
        self.overlap.as_deref()
    }

    /// Asks the person `question` for an app of this workspace — approved ahead of time, asked
    /// in a window until `deadline`, or refused at once with the line that approves it — for a
    /// routine (`ctx.consent.request`, `ctx.command.run`) and a widget alike.
    pub async fn consent(&self, question: Question, deadline: Instant) -> Decision {
        let app_title = self
            .registry()
            .app_by_name(&question.app)
            .map(|a| a.manifest.title.clone())
            .unwrap_or_else(|| question.app.clone());
        let asked_in = AskedIn {
            approvals: cowork_core::consent::Approvals::new(self.shared.root(), &self.root),
            workspace: &self.root,
            app_title,
        };
        self.shared.consent().decide(asked_in, question, deadline).await
    }

    /// Records a call that was refused before it started (an agent the routine is not granted
    /// to) as a `denied` audit line, and answers it as a `Denied` refusal with `message`.
    pub fn deny(&self, entry: &RoutineEntry, request: &RunRequest, message: String) -> RunFailure {
        let run_id = new_run_id();
        let failure = RunFailure { name: ErrorName::Denied, message, run_id: Some(run_id.clone()) };
        self.refused(Some(entry), request, &run_id, &failure);
        failure
    }

    /// Records a call refused before it started because the capability's connection is not
    /// connected, and answers it as `NotConnected` — what the routine itself would have thrown
    /// from `ctx.credential`. An `error` line, not `denied`: `denied` is a call that is not
    /// granted (page 02), and this one may well be.
    pub fn not_connected(
        &self,
        entry: &RoutineEntry,
        request: &RunRequest,
        message: String,
    ) -> RunFailure {
        let run_id = new_run_id();
        let failure =
            RunFailure { name: ErrorName::NotConnected, message, run_id: Some(run_id.clone()) };
        self.record_refusal(Some(entry), request, &run_id, &failure, Status::Error);
        failure
    }

    /// Writes `failure`, a refusal of `request` before it ran, as a `denied` audit line under
    /// `run_id`, and tells the event stream.
    pub(crate) fn refused(
        &self,
        entry: Option<&RoutineEntry>,
        request: &RunRequest,
        run_id: &str,
        failure: &RunFailure,
    ) {
        self.record_refusal(entry, request, run_id, failure, Status::Denied);
    }

    /// Writes `failure`, a refusal of `request` before it ran, as an audit line of `status`
    /// under `run_id`, and tells the event stream.
    fn record_refusal(
        &self,
        entry: Option<&RoutineEntry>,
        request: &RunRequest,
        run_id: &str,
        failure: &RunFailure,
        status: Status,
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
                status,
                error: Some(RecordedError {
                    name: failure.name.clone(),
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
            status,
            duration_ms: 0,
            error: record.error.clone(),
        });
    }

    /// Hands an audited run to the host's account (a run of an app installed from a team server
    /// is reported there); a refusal of a routine that does not exist names no app to report for.
    pub(crate) fn finished(&self, entry: Option<&RoutineEntry>, record: &Record) {
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
    pub(crate) fn context(
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
            source: request.caller_source,
            agent: None,
            chain: request.chain.clone(),
        });
        Context {
            run_id: run_id.to_string(),
            user_id: identity.user_id(),
            organization_id: identity.organization_id(),
            device_id: self.shared.device_id().to_string(),
            workspace: self.display(),
            source: request.source,
            principal: request.principal.clone(),
            agent: request.agent.clone(),
            task_id: request.task.clone(),
            app_id: entry.map(|entry| entry.app_name.clone()),
            app_version: entry.map(|entry| entry.app_version.clone()),
            kind: entry.map(|entry| entry.kind),
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

    /// The SDK's `CoworkErrorName` (what a widget or routine author branches on) is this enum.
    #[test]
    fn the_sdk_types_name_exactly_these_errors() {
        let dts = SDK_TYPES;
        let start =
            dts.find("type CoworkErrorName =").expect("cowork.d.ts declares CoworkErrorName");
        let union = &dts[start..start + dts[start..].find(';').expect("the union ends")];
        let mut in_sdk: Vec<&str> = union.split('"').skip(1).step_by(2).collect();
        let mut in_rust: Vec<&str> = ErrorName::ALL.iter().map(ErrorName::as_str).collect();
        in_sdk.sort_unstable();
        in_rust.sort_unstable();
        assert_eq!(in_sdk, in_rust, "cowork.d.ts's CoworkErrorName and ErrorName::ALL differ");
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
