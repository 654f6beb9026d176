//! What an agent sees and may run: the routines of the workspace's capabilities, decided by the
//! grant rule (`cowork_core::agents::decide`) from the manifest, the workspace's grants and whether
//! each capability's connection is connected — never from anything the client says.

use super::wire::{Annotations, CallResult, Tool};
use cowork_core::agents::{self, Decision, GrantFile, Grants, Login};
use cowork_core::registry::{Kind, Registry, RoutineEntry};
use cowork_engine::{credentials, Engine, RunRequest, Source, Workspace};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Most of a capability's SKILL.md the instructions carry.
const SKILL_LIMIT: usize = 16 * 1024;

/// One workspace as one agent sees it now.
pub struct View {
    registry: Arc<Registry>,
    grants: GrantFile,
    /// Capability name → whether its connection is connected (or it declares none).
    connected: BTreeMap<String, bool>,
}

impl View {
    pub fn of(ws: &Workspace, engine: &Engine) -> View {
        let registry = ws.registry();
        // A grants file that cannot be read grants nothing beyond the rule: fail closed.
        let grants = Grants::new(engine.root(), ws.root()).read().unwrap_or_else(|error| {
            tracing::warn!(%error, "agent grants unreadable; only the rule applies");
            GrantFile::default()
        });
        let connected = connections(engine, &registry);
        View { registry, grants, connected }
    }

    /// The rule's answer for `entry` and `login`.
    pub fn decide(&self, entry: &RoutineEntry, login: &Login) -> Decision {
        let tool = agents::Tool {
            capability: entry.kind == Kind::Capability,
            connected: self.connected.get(&entry.app_name).copied().unwrap_or(true),
            read_only: entry.read_only,
            destructive: entry.destructive,
            reaches_others: entry.reaches_others,
        };
        let own = self.grants.own(&login.id, &entry.app_name, &entry.id);
        let default = self.grants.default_for(&entry.app_name, &entry.id);
        agents::decide(tool, own, default)
    }

    /// The switched-on capability routines `login` may run, as tools.
    pub fn tools(&self, login: &Login) -> Vec<Tool> {
        self.offered().filter(|e| self.decide(e, login).allowed()).map(tool).collect()
    }

    /// The routine a tool name names, if agents are offered it at all.
    pub fn routine(&self, name: &str) -> Option<&RoutineEntry> {
        self.registry.routine(name).filter(|e| e.kind == Kind::Capability && !e.disabled)
    }

    fn offered(&self) -> impl Iterator<Item = &RoutineEntry> {
        self.registry.routines.values().filter(|e| e.kind == Kind::Capability && !e.disabled)
    }

    /// What the agent reads first: the workspace, and the guide (SKILL.md) of each capability it
    /// may use.
    pub fn instructions(&self, login: &Login) -> String {
        let mut text = format!(
            "Cowork workspace {}. Each tool is a routine of one of its capabilities; reads are granted by default, anything else only once the workspace's owner allows it (a refused call names the command that allows it).",
            self.registry.root.display()
        );
        let mut guided: Vec<&str> = Vec::new();
        for entry in self.offered().filter(|e| self.decide(e, login).allowed()) {
            if guided.contains(&entry.app_dir.as_str()) {
                continue;
            }
            guided.push(&entry.app_dir);
            let Ok(skill) =
                std::fs::read_to_string(self.registry.root.join(&entry.app_dir).join("SKILL.md"))
            else {
                continue;
            };
            let skill: String = skill.chars().take(SKILL_LIMIT).collect();
            text.push_str(&format!("\n\n## Capability {}\n\n{}", entry.app_name, skill.trim()));
        }
        text
    }
}

/// Whether each switched-on capability's connection is connected. A store that cannot be opened
/// connects nothing (fail closed).
fn connections(engine: &Engine, registry: &Registry) -> BTreeMap<String, bool> {
    let declared = credentials::declared(registry);
    let mut out = BTreeMap::new();
    if declared.is_empty() {
        return out;
    }
    let store = engine.secrets().ok();
    for connection in declared.values() {
        let state = store.as_ref().map(|s| credentials::status(s, connection).state);
        for capability in &connection.used_by {
            out.insert(capability.clone(), state == Some(credentials::ConnectionState::Connected));
        }
    }
    out
}

fn tool(entry: &RoutineEntry) -> Tool {
    let read = entry.read_only && !entry.destructive && !entry.reaches_others;
    Tool {
        name: entry.id.clone(),
        title: format!("{} › {}", entry.app_title, entry.id),
        description: entry.description.clone().unwrap_or_else(|| {
            format!(
                "The {} capability's routine {} (its author gave no description).",
                entry.app_name, entry.id
            )
        }),
        input_schema: entry.input.clone().unwrap_or_else(|| json!({ "type": "object" })),
        annotations: Annotations {
            read_only_hint: read,
            destructive_hint: entry.destructive,
            idempotent_hint: read,
            open_world_hint: entry.reaches_others,
        },
    }
}

/// Runs a tool call for `login`: refused and recorded `denied` unless the rule allows it, else an
/// ordinary routine run (`source: "mcp"`, the agent, the task).
pub async fn call(
    ws: Arc<Workspace>,
    view: &View,
    login: &Login,
    entry: &RoutineEntry,
    arguments: Option<Map<String, Value>>,
    task: Option<String>,
) -> CallResult {
    let mut request = RunRequest::new(
        entry.id.clone(),
        Value::Object(arguments.unwrap_or_default()),
        Source::Mcp,
    );
    request.agent = Some(login.name.clone());
    request.task = task;
    let refusal = match view.decide(entry, login) {
        Decision::Allowed(_) => None,
        Decision::NotConnected => Some(format!(
            "{} cannot run: the {} capability's connection is not connected. The workspace's owner connects it in Manage Workspace › Components › Credentials or with `cowork credential connect`.",
            entry.id, entry.app_name
        )),
        Decision::Denied(_) | Decision::NotOffered => Some(format!(
            "{} is not granted to the agent {}. Ask the owner of the workspace {} to allow it: {}",
            entry.id,
            login.name,
            ws.root().display(),
            agents::grant_command(&entry.app_name, &entry.id, &login.name, ws.root())
        )),
    };
    if let Some(message) = refusal {
        let failure = ws.deny(entry, &request, message);
        return CallResult::text(failure.message, true);
    }
    // Detached, as `POST /api/routines/run`: a client that goes away leaves a run that finishes
    // and is audited.
    let run = tokio::spawn(async move { ws.run(request).await });
    match run.await {
        Ok(Ok(success)) => {
            let text = match &success.result {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            CallResult::text(text, false)
        }
        Ok(Err(failure)) => {
            CallResult::text(format!("{}: {}", failure.name, failure.message), true)
        }
        Err(error) => {
            tracing::error!(%error, "an agent's run failed inside the daemon");
            CallResult::text("the run failed inside the daemon (see its log)".into(), true)
        }
    }
}
