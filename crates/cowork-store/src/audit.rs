//! The audit lines of the app lifecycle (page 02): `cowork.app.push`, `cowork.app.install`,
//! `cowork.app.update`, `cowork.app.remove` — one JSON line each in the workspace's audit log, in
//! the shape of a routine run's, with `source` `cli` (or `app` from the workbench, `system` for an
//! automatic update).

use cowork_core::audit::{AuditLog, Context, Record, RecordedError, Source, Status};
use cowork_core::error_name::ErrorName;
use cowork_core::manifest::Kind;
use cowork_core::paths::Root;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A lifecycle action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// `cowork push`: a version up (`cowork.app.push`).
    Push,
    /// An install (`cowork.app.install`).
    Install,
    /// An update (`cowork.app.update`).
    Update,
    /// A removal (`cowork.app.remove`).
    Remove,
}

impl Action {
    /// The audit line's `capability`.
    pub fn capability(self) -> &'static str {
        match self {
            Action::Push => "cowork.app.push",
            Action::Install => "cowork.app.install",
            Action::Update => "cowork.app.update",
            Action::Remove => "cowork.app.remove",
        }
    }
}

/// Who acts, as every line of one command records it.
#[derive(Debug, Clone)]
pub struct Actor {
    /// `cli`, `app` (the workbench) or `system` (an automatic update).
    pub source: Source,
    /// Claude Code, Codex … when one runs the command.
    pub agent: Option<String>,
    /// The signed-in account's id, when someone is signed in.
    pub user_id: Option<String>,
    /// The account's organization's id, when it belongs to one.
    pub organization_id: Option<String>,
    /// This machine's id (`Root::device_id`).
    pub device_id: String,
}

impl Actor {
    /// The signed-in account of `root` acting from `source`.
    pub fn of(root: &Root, source: Source, agent: Option<String>) -> Actor {
        let signed_in = cowork_account::files::Files::new(root).signed_in().ok().flatten();
        Actor {
            source,
            agent,
            user_id: signed_in.as_ref().map(|s| s.user.uid.clone()),
            organization_id: signed_in.and_then(|s| s.organization.map(|o| o.id)),
            device_id: root.device_id(),
        }
    }
}

/// One lifecycle action being done: [`Line::finish`] writes its line.
pub struct Line {
    log: AuditLog,
    workspace: PathBuf,
    action: Action,
    actor: Actor,
    started: time::OffsetDateTime,
    clock: Instant,
}

impl Line {
    /// Starts timing `action` in `workspace`, done by `actor`; [`Line::finish`] writes the line.
    pub fn start(root: &Root, workspace: &Path, action: Action, actor: &Actor) -> Line {
        Line {
            log: AuditLog::new(root.audit_dir(workspace)),
            workspace: workspace.to_path_buf(),
            action,
            actor: actor.clone(),
            started: time::OffsetDateTime::now_utc(),
            clock: Instant::now(),
        }
    }

    /// Writes the line of an app's install, update or removal from its `result`: ok, or the
    /// error's name and message.
    pub fn finish_app<T>(
        self,
        app: &str,
        version: Option<&str>,
        input: Value,
        result: &crate::error::Result<T>,
    ) {
        let error = result.as_ref().err().map(|e| (e.name(), e.to_string()));
        self.finish(app, version, Some(Kind::App), input, error);
    }

    /// Writes the line: the app (its manifest name) and version, `input` (what was asked), and
    /// the error when it failed. A line that cannot be written is a warning, never the action's
    /// failure.
    pub fn finish(
        self,
        app: &str,
        version: Option<&str>,
        kind: Option<Kind>,
        input: Value,
        error: Option<(ErrorName, String)>,
    ) {
        let record = Record {
            ts: cowork_core::audit::format_ts(self.started),
            capability: self.action.capability().to_string(),
            input: cowork_core::audit::redact(&input),
            status: if error.is_some() { Status::Error } else { Status::Ok },
            duration_ms: self.clock.elapsed().as_millis() as u64,
            queued_ms: None,
            context: Context {
                run_id: hex::encode(rand::random::<[u8; 16]>()),
                user_id: self.actor.user_id.clone(),
                organization_id: self.actor.organization_id.clone(),
                device_id: self.actor.device_id.clone(),
                workspace: self.workspace.display().to_string(),
                source: self.actor.source,
                principal: None,
                agent: self.actor.agent.clone(),
                task_id: None,
                app_id: Some(app.to_string()),
                app_version: version.map(str::to_owned),
                kind,
                caller: None,
            },
            error: error.map(|(name, message)| RecordedError { name, message }),
            result: None,
            log: None,
            unchanged: false,
            repeated: None,
        };
        if let Err(error) = self.log.append(&record) {
            tracing::warn!(%error, "a lifecycle audit line could not be written");
        }
    }
}
