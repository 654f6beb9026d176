//! The door's tools, as the reference names them: `start_task`, `list_capabilities`, and `read` /
//! `run`, each `{capability, tool, params}`. Every routine of the workspace's capabilities is
//! listed — granted, not granted (with the exact grant line), or unavailable (not connected) — so
//! an agent learns what exists and whom to ask; what it may run is decided by the grant rule
//! (`cowork_core::agents::decide`) from the manifest, the workspace's grants and whether each
//! capability's connection is connected, never from anything the client says. What the client
//! says (its name, its task) only labels the audit line.

use super::wire::{Annotations, CallResult, CapabilityListing, Listing, RoutineListing, Tool};
use cowork_core::agents::{self, Decision, GrantFile, Grants, Login};
use cowork_core::registry::{Kind, Registry, RoutineEntry};
use cowork_core::schema::{Schema, Segment};
use cowork_engine::{credentials, Engine, RunRequest, Source, Workspace};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Most of a capability's SKILL.md the listing and the instructions carry.
const SKILL_LIMIT: usize = 16 * 1024;

/// The most characters a task id an agent gives may have: an id (`start_task` makes 18), not a
/// document — it is written whole into every audit line of the task, a denied call's too.
pub const TASK_MAX: usize = 200;

/// Why `task`, a task id an agent gave (`taskId`, `_meta["studio.cowork/task"]`), cannot label
/// an audit line, if it cannot: too long, or with control characters (a line break or an escape
/// sequence would forge lines in a terminal reading the log). Refused by name, never cut: a cut
/// id would file the call under another task.
pub fn task_problem(task: &str) -> Option<String> {
    let chars = task.chars().count();
    if chars > TASK_MAX {
        return Some(format!(
            "BadRequest: a task id is a short id of at most {TASK_MAX} characters; this one has {chars}. Use the taskId start_task answers."
        ));
    }
    task.chars().any(char::is_control).then(|| {
        "BadRequest: a task id has no control characters (line breaks, tabs, escapes). Use the taskId start_task answers.".to_string()
    })
}

/// The tool that starts a task (its id labels the calls made for it).
pub const START_TASK: &str = "start_task";
/// The tool that lists the capabilities.
pub const LIST: &str = "list_capabilities";
/// The tool that runs a granted read.
pub const READ: &str = "read";
/// The tool that runs any other granted routine (or a read).
pub const RUN: &str = "run";

/// The door's four tools, the same for every agent: what each may do is in the listing.
pub fn list() -> Vec<Tool> {
    let hints = |read: bool, open_world: bool| Annotations {
        read_only_hint: read,
        destructive_hint: !read,
        idempotent_hint: read,
        open_world_hint: open_world,
    };
    vec![
        Tool {
            name: START_TASK.into(),
            title: "Start a task".into(),
            description: "Starts a task: call it first, once per piece of work the person asked for. Answers {taskId}: pass it as `taskId` to `read` and `run` so every call is recorded under that task (within this MCP session the door also remembers it).".into(),
            input_schema: json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            annotations: hints(true, false),
        },
        Tool {
            name: LIST.into(),
            title: "List the capabilities".into(),
            description: "Lists the workspace's capabilities and every routine of each: its description, its input schema (what `params` must match), its risk, which door tool calls it (`read` or `run`) and its state for you — granted; not granted, with the exact line the workspace's owner runs to grant it; or unavailable: not connected. Each capability's guide (its SKILL.md) says how to use it.".into(),
            input_schema: json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            annotations: hints(true, false),
        },
        Tool {
            name: READ.into(),
            title: "Read".into(),
            description: "Runs a granted read — a routine that changes nothing (`call: \"read\"` in the listing) — and answers its result as JSON.".into(),
            input_schema: call_schema(),
            annotations: hints(true, false),
        },
        Tool {
            name: RUN.into(),
            title: "Run".into(),
            description: "Runs a granted routine that may change something (`call: \"run\"` in the listing; a read runs too) and answers its result as JSON. A routine that is not granted is refused with the line that grants it: show that line to the person, who owns the workspace.".into(),
            input_schema: call_schema(),
            annotations: hints(false, true),
        },
    ]
}

/// `read` and `run`'s arguments.
fn call_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "capability": { "type": "string", "description": "The capability's name, as list_capabilities gives it" },
            "tool": { "type": "string", "description": "The routine's id within that capability" },
            "params": { "type": "object", "description": "The routine's arguments: its input schema in the listing" },
            "taskId": { "type": "string", "maxLength": TASK_MAX, "description": "The task this call is for, from start_task" }
        },
        "required": ["capability", "tool"],
        "additionalProperties": false
    })
}

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
        let connected = credentials::connected(engine.secrets().ok().as_deref(), &registry);
        View { registry, grants, connected }
    }

    /// The rule's answer for `entry` and `login`.
    pub fn decide(&self, entry: &RoutineEntry, login: &Login) -> Decision {
        let own = self.grants.own(&login.id, &entry.app_name, &entry.id);
        let default = self.grants.default_for(&entry.app_name, &entry.id);
        agents::decide(self.rule_input(entry), own, default)
    }

    fn rule_input(&self, entry: &RoutineEntry) -> agents::Tool {
        agents::Tool {
            capability: entry.kind == Kind::Capability,
            connected: self.connected.get(&entry.app_name).copied().unwrap_or(true),
            read_only: entry.read_only,
            destructive: entry.destructive,
            reaches_others: entry.reaches_others,
        }
    }

    /// Whether `entry` is a read: `read` runs it.
    fn is_read(&self, entry: &RoutineEntry) -> bool {
        self.rule_input(entry).is_read()
    }

    /// The switched-on capabilities' routines, in name order.
    fn offered(&self) -> impl Iterator<Item = &RoutineEntry> {
        self.registry.routines.values().filter(|e| e.kind == Kind::Capability && !e.disabled)
    }

    /// A capability's SKILL.md, cut at [`SKILL_LIMIT`].
    fn guide(&self, entry: &RoutineEntry) -> Option<String> {
        let path = self.registry.root.join(&entry.app_dir).join(cowork_core::skills::SKILL_FILE);
        let text = std::fs::read_to_string(path).ok()?;
        Some(text.chars().take(SKILL_LIMIT).collect::<String>().trim().to_string())
    }

    /// `list_capabilities`: every switched-on capability and every routine of it, with its state
    /// for `login`.
    pub fn listing(&self, login: &Login) -> Listing {
        let root = &self.registry.root;
        let mut capabilities: BTreeMap<&str, CapabilityListing> = BTreeMap::new();
        for entry in self.offered() {
            let listing =
                capabilities.entry(&entry.app_name).or_insert_with(|| CapabilityListing {
                    capability: entry.app_name.clone(),
                    title: entry.app_title.clone(),
                    version: entry.app_version.clone(),
                    guide: self.guide(entry),
                    routines: Vec::new(),
                });
            let (state, grant, connect) = match self.decide(entry, login) {
                Decision::Allowed(_) => ("granted", None, None),
                Decision::NotConnected => {
                    ("unavailable: not connected", None, Some(connect_hint(&entry.app_name)))
                }
                Decision::Denied(_) | Decision::NotOffered => (
                    "not granted",
                    Some(agents::grant_command(&entry.app_name, &entry.id, &login.name, root)),
                    None,
                ),
            };
            listing.routines.push(RoutineListing {
                tool: entry.id.clone(),
                description: description(entry),
                input: entry.input.clone().unwrap_or_else(|| json!({ "type": "object" })),
                risk: entry.risk,
                call: if self.is_read(entry) { READ } else { RUN },
                state,
                grant,
                connect,
            });
        }
        let capabilities = capabilities.into_values().collect();
        Listing { workspace: root.display().to_string(), agent: login.name.clone(), capabilities }
    }

    /// What the agent reads first: the workspace, how the door works, and the guide (SKILL.md) of
    /// each capability it may use something of.
    pub fn instructions(&self, login: &Login) -> String {
        let mut text = format!(
            "Cowork workspace {}. Its capabilities' routines are reached through four tools: `start_task` (once per piece of work; pass its taskId to the calls), `list_capabilities` (every routine with its input schema and whether you may call it), `read` (a granted read) and `run` (any other granted routine), both taking {{capability, tool, params}}. Reads are granted by default, anything else only once the workspace's owner allows it: a refused call, and the listing, name the exact command that allows it.",
            self.registry.root.display()
        );
        let mut guided: Vec<&str> = Vec::new();
        for entry in self.offered().filter(|e| self.decide(e, login).allowed()) {
            if guided.contains(&entry.app_dir.as_str()) {
                continue;
            }
            guided.push(&entry.app_dir);
            if let Some(skill) = self.guide(entry) {
                text.push_str(&format!("\n\n## Capability {}\n\n{skill}", entry.app_name));
            }
        }
        text
    }

    /// The routine `tool` of the switched-on capability `capability`, or why there is none.
    fn find(&self, capability: &str, tool: &str) -> Result<&RoutineEntry, String> {
        let has_capability = self.offered().any(|e| e.app_name == capability);
        if !has_capability {
            let app = self.registry.routines.values().any(|e| e.app_name == capability);
            return Err(if app {
                format!("NotFound: \"{capability}\" is not a switched-on capability of this workspace (an app's own routines, and a switched-off capability's, are not offered to agents). Call list_capabilities for the ones there are.")
            } else {
                format!("NotFound: no capability \"{capability}\" in this workspace. Call list_capabilities for the ones there are.")
            });
        }
        self.offered().find(|e| e.app_name == capability && e.id == tool).ok_or_else(|| {
            format!("NotFound: the capability {capability} has no routine \"{tool}\". Call list_capabilities for its routines.")
        })
    }
}

fn description(entry: &RoutineEntry) -> String {
    entry.description.clone().unwrap_or_else(|| {
        format!(
            "The {} capability's routine {} (its author gave no description).",
            entry.app_name, entry.id
        )
    })
}

fn connect_hint(capability: &str) -> String {
    format!("the workspace's owner connects the {capability} capability in Manage Workspace › Components › Credentials or with `cowork credential connect`")
}

/// Who is calling and for what: the audit line's `principal` (the login), `agent` (the client it
/// speaks through) and `taskId`.
pub struct Caller<'a> {
    pub login: &'a Login,
    pub client: Option<String>,
    pub task: Option<String>,
}

/// `read` (`only_reads`) or `run` with `arguments`: checked against the tool's own schema, then
/// the routine found, refused and recorded `denied` unless the rule allows it, its `params`
/// checked against the routine's `input`, and run as an ordinary routine run (`source: "mcp"`).
pub async fn call(
    ws: Arc<Workspace>,
    view: &View,
    caller: Caller<'_>,
    only_reads: bool,
    arguments: Option<Map<String, Value>>,
) -> CallResult {
    let arguments = Value::Object(arguments.unwrap_or_default());
    let door_tool = if only_reads { READ } else { RUN };
    // Before the schema check, whose answer would quote a long id back whole.
    let task = arguments.get("taskId").and_then(Value::as_str);
    if let Some(problem) = task.and_then(task_problem) {
        return CallResult::text(format!("{problem} (taskId)"), true);
    }
    if let Some(problems) = mismatches(&call_schema(), &arguments, &[]) {
        return CallResult::text(
            format!("BadRequest: the arguments of {door_tool} do not match its input schema:\n{problems}\nIt takes {{capability, tool, params, taskId?}}."),
            true,
        );
    }
    let text = |key: &str| arguments.get(key).and_then(Value::as_str).map(str::to_string);
    let (capability, tool) =
        (text("capability").unwrap_or_default(), text("tool").unwrap_or_default());
    let params = arguments.get("params").cloned().unwrap_or_else(|| json!({}));
    let entry = match view.find(&capability, &tool) {
        Ok(entry) => entry,
        Err(message) => return CallResult::text(message, true),
    };
    if only_reads && !view.is_read(entry) {
        return CallResult::text(
            format!("BadRequest: {tool} is not a read (it may change something): call `run` with the same arguments."),
            true,
        );
    }
    let login = caller.login;
    let mut request = RunRequest::new(entry.id.clone(), params, Source::Mcp);
    request.principal = Some(login.name.clone());
    request.agent = caller.client;
    request.task = text("taskId").or(caller.task);
    let refused = match view.decide(entry, login) {
        Decision::Allowed(_) => None,
        Decision::NotConnected => Some(ws.not_connected(
            entry,
            &request,
            format!(
                "{tool} cannot run: the {capability} capability's connection is not connected; {}.",
                connect_hint(&capability)
            ),
        )),
        Decision::Denied(_) | Decision::NotOffered => Some(ws.deny(
            entry,
            &request,
            format!(
                "{tool} is not granted to the agent {}. Ask the owner of the workspace {} to allow it: {}",
                login.name,
                ws.root().display(),
                agents::grant_command(&capability, &tool, &login.name, ws.root())
            ),
        )),
    };
    if let Some(failure) = refused {
        return CallResult::text(format!("{}: {}", failure.name, failure.message), true);
    }
    if let Some(input) = &entry.input {
        if let Some(problems) = mismatches(input, &request.args, &[Segment::from("params")]) {
            return CallResult::text(
                format!("BadRequest: the params of {tool} do not match its input schema:\n{problems}\nlist_capabilities shows the schema."),
                true,
            );
        }
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

/// Every way `value` fails `schema`, one `- "<field>" …` line each (under `prefix`), or `None`
/// when it matches. A schema that does not compile fails everything, saying so: a call is never
/// let through unchecked.
fn mismatches(schema: &Value, value: &Value, prefix: &[Segment]) -> Option<String> {
    let compiled = match Schema::of(schema) {
        Ok(compiled) => compiled,
        Err(error) => return Some(format!("- the input schema itself does not compile: {error}")),
    };
    let issues = compiled.check(value);
    if issues.is_empty() {
        return None;
    }
    let lines: Vec<String> = issues
        .into_iter()
        .map(|mut issue| {
            let mut path = prefix.to_vec();
            path.append(&mut issue.path);
            issue.path = path;
            format!("- {}", issue.describe())
        })
        .collect();
    Some(lines.join("\n"))
}
