//! `.cowork/workspace.json#deployments`: each routine's triggers (a schedule, a webhook, the
//! notifications of some apps) and where it is built to run. The file records intent only — secret
//! NAMES, never a value — and is checked in: whether a trigger fires on this machine is the owner's
//! decision, kept apart in [`super::arming`].
//!
//! Writes go through [`workspace_json::update`] (the workspace.json lock, an atomic replace) after
//! the new entry is checked against `schemas/workspace.schema.json`, so nothing is written that the
//! reader would drop.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::schema;
use crate::workspace_json::{self, WorkspaceConfig, WorkspaceJsonError, WORKSPACE_FILE};

/// Where the routine runs its invocations: this machine (`local`, the default) or the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// This computer's daemon fires the schedule, in local time.
    #[default]
    Local,
    /// Only the copy on the target fires the schedule (in UTC); webhooks and notifications still
    /// answer here.
    Deployed,
}

/// One routine's deployment, as the schema describes it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Deployment {
    /// `cloudflare-worker`, `aws-lambda`, `gcloud-function` or `container`.
    pub target: String,
    /// Absent means [`Mode::Local`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// The cloud resource's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// An HTTP trigger.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub webhook: bool,
    /// A 5-field cron expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// App names (or `*`) whose notifications start the routine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notifications: Vec<String>,
    /// Secret names pushed to the target at deploy time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<String>,
    /// Plain environment variables baked into the deployed routine.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, String>,
    /// Webhook calls must carry `x-cowork-hook-token`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hook_token: bool,
    /// The one origin webhook responses allow (`*` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cors_origin: Option<String>,
    /// Cloud region (aws-lambda, gcloud-function).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// An existing execution role (aws-lambda).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role_arn: Option<String>,
    /// The container's port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// The image registry (container).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry: Option<String>,
    /// A Worker's D1 database.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db: Option<String>,
}

/// What can start a routine on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trigger {
    /// A cron expression this machine fires (mode local only).
    Schedule(String),
    /// An HTTP call to the daemon (either mode).
    Webhook,
    /// Notifications of these apps (either mode).
    Notifications(Vec<String>),
}

impl Deployment {
    /// The mode, default filled in.
    pub fn mode(&self) -> Mode {
        self.mode.unwrap_or_default()
    }

    /// The triggers this machine answers, most telling first (a schedule, a webhook,
    /// notifications): a `deployed` schedule is the target's, not ours.
    pub fn local_triggers(&self) -> Vec<Trigger> {
        let mut triggers = Vec::new();
        if let Some(cron) = self.schedule.as_ref().filter(|_| self.mode() == Mode::Local) {
            triggers.push(Trigger::Schedule(cron.clone()));
        }
        if self.webhook {
            triggers.push(Trigger::Webhook);
        }
        if !self.notifications.is_empty() {
            triggers.push(Trigger::Notifications(self.notifications.clone()));
        }
        triggers
    }

    /// The schedule this machine fires, if any.
    pub fn local_schedule(&self) -> Option<&str> {
        self.schedule.as_deref().filter(|_| self.mode() == Mode::Local)
    }

    /// Whether a notification raised by `app` starts this routine.
    pub fn listens_to(&self, app: &str) -> bool {
        self.notifications.iter().any(|a| a == "*" || a == app)
    }
}

/// The secret-store name of routine `id`'s webhook token in `workspace` (absolute, canonical): a
/// reserved `cowork.` name (no routine reads it), told apart per workspace by the hash of its path.
pub fn hook_token_secret(workspace: &Path, id: &str) -> String {
    let key = crate::paths::workspace_key(workspace);
    format!("cowork.hook.{}.{id}", &key[key.len() - 8..])
}

/// A new webhook token: 32 random bytes, hex.
pub fn mint_hook_token() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

/// The workspace's deployments, routine id → deployment. The reader already dropped every entry
/// that does not fit the schema; one that still does not read is skipped.
pub fn of(config: &WorkspaceConfig) -> BTreeMap<String, Deployment> {
    config
        .deployments
        .iter()
        .filter_map(|(id, value)| Some((id.clone(), serde_json::from_value(value.clone()).ok()?)))
        .collect()
}

/// Reads the deployments of the workspace at `workspace_root`.
pub fn read(workspace_root: &Path) -> BTreeMap<String, Deployment> {
    of(&workspace_json::read(workspace_root).0)
}

/// Writes `deployment` as routine `id`'s, replacing what was there and keeping every other key of
/// the file. A deployment that does not fit the schema is refused unwritten. Returns the one it
/// replaced.
pub fn put(
    workspace_root: &Path,
    id: &str,
    deployment: &Deployment,
) -> Result<Option<Deployment>, WorkspaceJsonError> {
    let value = serde_json::to_value(deployment).expect("a deployment serializes");
    let mut entry = Map::new();
    entry.insert(id.to_owned(), value.clone());
    let part = serde_json::json!({ "deployments": entry });
    if let Some(issue) = schema::workspace().check(&part).into_iter().next() {
        return Err(WorkspaceJsonError::Invalid {
            path: workspace_root.join(WORKSPACE_FILE),
            problem: issue.describe(),
        });
    }
    let mut previous = None;
    workspace_json::update(workspace_root, |object, path| {
        let deployments = deployments_mut(object, path)?;
        previous = deployments.insert(id.to_owned(), value).and_then(|old| {
            // A hand-written entry that does not read is replaced, not returned.
            serde_json::from_value(old).ok()
        });
        Ok(())
    })?;
    Ok(previous)
}

/// Removes routine `id`'s deployment. Returns the one removed, if there was one.
pub fn remove(workspace_root: &Path, id: &str) -> Result<Option<Value>, WorkspaceJsonError> {
    let mut removed = None;
    workspace_json::update(workspace_root, |object, path| {
        if object.contains_key("deployments") {
            removed = deployments_mut(object, path)?.shift_remove(id);
        }
        Ok(())
    })?;
    Ok(removed)
}

fn deployments_mut<'a>(
    object: &'a mut Map<String, Value>,
    path: &Path,
) -> Result<&'a mut Map<String, Value>, WorkspaceJsonError> {
    object
        .entry("deployments")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| WorkspaceJsonError::WrongType {
            path: path.to_owned(),
            key: "deployments".to_owned(),
            expected: "an object",
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scheduled(cron: &str) -> Deployment {
        Deployment {
            target: "container".into(),
            schedule: Some(cron.into()),
            secrets: vec!["mail.token".into()],
            ..Default::default()
        }
    }

    #[test]
    fn put_keeps_other_keys_and_returns_the_replaced_entry() {
        let ws = tempfile::tempdir().unwrap();
        let file = ws.path().join(WORKSPACE_FILE);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            r#"{"name": "Mine", "deployments": {"other": {"target": "container"}}}"#,
        )
        .unwrap();
        assert_eq!(put(ws.path(), "sync", &scheduled("0 6 * * *")).unwrap(), None);
        let replaced = put(ws.path(), "sync", &scheduled("*/5 * * * *")).unwrap();
        assert_eq!(replaced.unwrap().schedule.as_deref(), Some("0 6 * * *"));

        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(written["name"], "Mine");
        assert_eq!(written["deployments"]["other"]["target"], "container");
        assert_eq!(
            written["deployments"]["sync"],
            serde_json::json!({"target": "container", "schedule": "*/5 * * * *", "secrets": ["mail.token"]}),
            "names only, defaults left out"
        );
        let read_back = read(ws.path());
        assert_eq!(read_back["sync"].local_schedule(), Some("*/5 * * * *"));

        assert!(remove(ws.path(), "sync").unwrap().is_some());
        assert!(remove(ws.path(), "sync").unwrap().is_none());
        assert_eq!(read(ws.path()).keys().collect::<Vec<_>>(), ["other"]);
    }

    #[test]
    fn a_deployment_outside_the_schema_is_refused_unwritten() {
        let ws = tempfile::tempdir().unwrap();
        let bad = Deployment { target: "mainframe".into(), ..Default::default() };
        assert!(matches!(put(ws.path(), "sync", &bad), Err(WorkspaceJsonError::Invalid { .. })));
        assert!(!ws.path().join(WORKSPACE_FILE).exists());
    }

    #[test]
    fn a_deployed_schedule_is_not_a_local_trigger() {
        let mut d = scheduled("0 6 * * *");
        d.mode = Some(Mode::Deployed);
        d.webhook = true;
        assert_eq!(d.local_triggers(), [Trigger::Webhook]);
        assert_eq!(d.local_schedule(), None);
        d.notifications = vec!["*".into()];
        assert!(d.listens_to("mail"));
    }
}
