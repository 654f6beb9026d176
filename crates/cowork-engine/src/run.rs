//! One run of one routine: prepare its files, start a fresh runtime process on `runner.mjs`, answer
//! its `ctx` requests, stream its output, and kill its whole process tree when it is done or late.

use crate::consent::Question;
use crate::credentials;
use crate::db::Databases;
use crate::engine::{Event, RunFailure, RunRequest, TimeLimit, Workspace};
use crate::grants::Access;
use crate::process::{self, Channels, Spawn};
use cowork_core::registry::Kind;
use cowork_core::registry::RoutineEntry;
use parking_lot::Mutex;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The routine side of every run, written next to the cache on first use.
const RUNNER: &str = include_str!("runner.mjs");
/// How long a finished runtime gets to exit and flush its output before its group is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// What a run produced: its value (and warnings) or its failure, what it logged, and whether it
/// called `ctx.unchanged()`.
pub(crate) struct Execution {
    pub outcome: Result<(Value, Vec<String>), RunFailure>,
    pub log: Vec<String>,
    pub unchanged: bool,
}

fn failed(name: &str, message: impl Into<String>, log: Vec<String>) -> Execution {
    Execution {
        outcome: Err(RunFailure { name: name.into(), message: message.into(), run_id: None }),
        log,
        unchanged: false,
    }
}

/// Values shorter than this are not masked. A mask replaces every occurrence of the value in the
/// run's output, so a secret "on" or "1" would turn a log into a row of `[redacted]` — and, worse,
/// tell a reader which short strings the secret is. Four characters is where a value stops
/// being an ordinary word or number; README's Secrets paragraph says so.
const MASK_MIN_CHARS: usize = 4;

/// The secret values a run has read (`ctx.secrets.get`, a key's fields, a sign-in's token), masked
/// as `[redacted]` in its log lines, the Output stream, its error and its audit record — as
/// 1Password's `op run` masks what it injects.
///
/// A nested run's values are its callers' too: what it returns (or the caller logs after reading
/// it) may carry them, so every value is passed on to the runs waiting on this one.
#[derive(Default)]
pub(crate) struct Masks {
    values: Mutex<Vec<String>>,
    callers: Mutex<Vec<Arc<Masks>>>,
}

impl std::fmt::Debug for Masks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Masks { .. }") // never the values
    }
}

impl Masks {
    /// From now on, every value this run's masks hold is masked in `caller`'s output too
    /// (`ctx.routines.run` returned this run's result to it, or an identical call shares it).
    pub fn pass_on_to(&self, caller: &Arc<Masks>) {
        let known = self.values.lock().clone();
        self.callers.lock().push(caller.clone());
        caller.insert(known);
    }

    /// Masks `value` from now on, in every form it can reach the output in: whole; line by line
    /// (stdout and stderr are read a line at a time, so a multi-line value never shows whole
    /// there); and JSON-escaped (the audit record's result preview is masked after encoding, where
    /// a `"` or `\` of the value reads `\"` or `\\`).
    pub fn add(&self, value: &str) {
        let mut forms = vec![value.to_string()];
        if value.contains('\n') {
            forms.extend(value.split('\n').map(|line| line.trim_end_matches('\r').to_string()));
        }
        let escaped: Vec<String> = forms.iter().map(|form| json_escaped(form)).collect();
        forms.extend(escaped);
        self.insert(
            forms.into_iter().filter(|form| form.chars().count() >= MASK_MIN_CHARS).collect(),
        );
    }

    /// Keeps `forms` and passes the new ones on to the callers (only new ones, so shared runs
    /// waiting on each other cannot pass a value around forever).
    fn insert(&self, forms: Vec<String>) {
        let mut values = self.values.lock();
        let new: Vec<String> = forms.into_iter().filter(|form| !values.contains(form)).collect();
        if new.is_empty() {
            return;
        }
        values.extend(new.iter().cloned());
        // Longest first, so a secret containing another (or one of its own lines) is masked whole.
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        drop(values);
        let callers = self.callers.lock().clone();
        for caller in callers {
            caller.insert(new.clone());
        }
    }

    pub fn apply(&self, text: &str) -> String {
        let values = self.values.lock();
        values
            .iter()
            .fold(text.to_string(), |acc, v| acc.replace(v.as_str(), cowork_core::audit::REDACTED))
    }
}

/// `text` as it reads inside a JSON string (without the quotes).
fn json_escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).expect("a string always serializes");
    quoted[1..quoted.len() - 1].to_string()
}

/// Runs `entry` in a fresh process until it answers, fails, exits or reaches `deadline`.
pub(crate) async fn execute(
    ws: &Arc<Workspace>,
    entry: &RoutineEntry,
    request: &RunRequest,
    run_id: &str,
    limit: &TimeLimit,
    masks: &Arc<Masks>,
) -> Execution {
    let deadline = limit.deadline;
    let shared = &ws.shared;
    let runtime = match &shared.runtime {
        Ok(runtime) => runtime,
        Err(error) => return failed("NoRuntime", format!("{error}; {}", error.hint()), Vec::new()),
    };
    let app_dir = ws.root().join(&entry.app_dir);
    let app_folder = entry.app_dir.rsplit('/').next().unwrap_or(&entry.app_dir);
    let mirror = ws.root().join(".cowork/local/routines").join(app_folder);
    let staged = tokio::task::block_in_place(|| {
        crate::modules::stage(&shared.transpiler, &app_dir, &entry.rel_file, &mirror)
    });
    let entry_module = match staged {
        Ok(path) => path,
        Err(error) => return failed("BadRoutine", error.to_string(), Vec::new()),
    };
    let runner = match runner_script(&shared.root) {
        Ok(path) => path,
        Err(error) => {
            return failed(
                "NoRuntime",
                format!("failed to write the routine runner: {error}"),
                Vec::new(),
            )
        }
    };
    let token = hex::encode(rand::random::<[u8; 32]>());
    let (program, args) = runtime.command(&runner);
    let env = [
        ("COWORK_RUN_ID".to_string(), run_id.to_string()),
        ("COWORK_RUN_TOKEN".to_string(), token.clone()),
        ("COWORK_WORKSPACE".to_string(), ws.root().display().to_string()),
    ];
    let reach = crate::confine::Reach {
        workspace: ws.root(),
        runner: &runner,
        cowork_root: shared.root.dir(),
    };
    let spawned =
        process::spawn(Spawn { program: &program, args: &args, cwd: ws.root(), env: &env, reach })
            .await;
    let (mut child, channels) = match spawned {
        Ok(pair) => pair,
        Err(error) => {
            return failed(
                "NoRuntime",
                format!("failed to start {}: {error}", program.display()),
                Vec::new(),
            )
        }
    };
    let pid = child.id();
    // Declared after `child`, so dropped before it: a dropped run kills the tree before its
    // runtime is reaped.
    let mut tree = process::Tree::new(pid);
    let log = Arc::new(Mutex::new(Vec::new()));
    let output = Output {
        ws: ws.clone(),
        run_id: run_id.to_string(),
        routine: entry.id.clone(),
        log: log.clone(),
        masks: masks.clone(),
    };
    let stdout = child.stdout.take().map(|out| tokio::spawn(output.clone().stream(out, "stdout")));
    let stderr = child.stderr.take().map(|err| tokio::spawn(output.clone().stream(err, "stderr")));

    let session = Session {
        ws,
        entry,
        request,
        run_id,
        token,
        entry_module,
        output,
        deadline,
        nested: Mutex::new(Vec::new()),
    };
    let verdict = tokio::select! {
        verdict = session.serve(channels) => verdict,
        () = tokio::time::sleep_until(deadline.into()) => Verdict::TimedOut,
    };
    // Nested runs share this run's deadline, so they end by then; waiting for them keeps the
    // promise that a nested run never outlives its caller, and lets each write its audit line.
    let nested = std::mem::take(&mut *session.nested.lock());
    for task in nested {
        let _ = tokio::time::timeout_at((deadline + EXIT_GRACE).into(), task).await;
    }
    // Give a finished runtime a moment to exit on its own, then end the whole tree either way:
    // whatever the routine started must not outlive the run.
    if !matches!(verdict, Verdict::TimedOut) {
        process::exited_within(pid, EXIT_GRACE).await;
    }
    tree.kill();
    let exit = child.wait().await.ok();
    for task in [stdout, stderr].into_iter().flatten() {
        // A grandchild holding the pipe open must not hold the run: its group is gone now anyway.
        let _ = tokio::time::timeout(Duration::from_millis(500), task).await;
    }
    let log = std::mem::take(&mut *log.lock());
    let mut execution = match verdict {
        Verdict::Done { result, unchanged, warning } => {
            Execution { outcome: Ok((result, warning.into_iter().collect())), log, unchanged }
        }
        Verdict::Failed { name, message } => failed(&name, message, log),
        Verdict::TimedOut => failed("Timeout", limit.overrun_message(&entry.id), log),
        Verdict::Exited => {
            let code = exit
                .and_then(|s| s.code())
                .map(|c| c.to_string())
                .unwrap_or_else(|| "by a signal".into());
            let last = log.iter().rev().find(|l| !l.trim().is_empty()).cloned().unwrap_or_default();
            failed(
                "RoutineCrashed",
                format!(
                    "the routine's process exited ({code}) before returning a result{}",
                    if last.is_empty() { String::new() } else { format!(": {last}") }
                ),
                log,
            )
        }
    };
    if let Err(failure) = &mut execution.outcome {
        failure.message = masks.apply(&failure.message);
    }
    execution
}

/// How a run ended.
enum Verdict {
    Done { result: Value, unchanged: bool, warning: Option<String> },
    Failed { name: String, message: String },
    TimedOut,
    Exited,
}

/// The daemon's half of one run's conversation.
struct Session<'a> {
    ws: &'a Arc<Workspace>,
    entry: &'a RoutineEntry,
    request: &'a RunRequest,
    run_id: &'a str,
    token: String,
    entry_module: std::path::PathBuf,
    output: Output,
    deadline: Instant,
    nested: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

impl Session<'_> {
    async fn serve(&self, channels: Channels) -> Verdict {
        let Channels { requests, async_answers, mut sync_answers } = channels;
        let (answer_tx, mut answer_rx) = mpsc::unbounded_channel::<String>();
        let writer = tokio::spawn(async move {
            let mut pipe = async_answers;
            while let Some(line) = answer_rx.recv().await {
                if pipe.write_all(line.as_bytes()).await.is_err() {
                    break;
                }
            }
        });
        let mut databases = Databases::new(self.ws.root());
        let mut lines = BufReader::new(requests).lines();
        let mut initialised = false;
        let verdict = loop {
            let line = match lines.next_line().await {
                Ok(Some(line)) => line,
                Ok(None) | Err(_) => break Verdict::Exited,
            };
            let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
            let op = message["op"].as_str().unwrap_or_default();
            let id = message["id"].clone();
            let args = &message["args"];
            match op {
                "done" => {
                    break Verdict::Done {
                        result: message["result"].clone(),
                        unchanged: message["unchanged"].as_bool().unwrap_or(false),
                        warning: message["warning"].as_str().map(String::from),
                    }
                }
                "fail" => {
                    let error = &message["error"];
                    break Verdict::Failed {
                        name: error["name"].as_str().unwrap_or("Error").to_string(),
                        message: error["message"].as_str().unwrap_or_default().to_string(),
                    };
                }
                "log" => {
                    // `console.*` names the stream it stands for; `ctx.log` names none.
                    let stream = match message["stream"].as_str() {
                        Some("stdout") => "stdout",
                        Some("stderr") => "stderr",
                        _ => "log",
                    };
                    self.log_line(stream, message["line"].as_str().unwrap_or_default());
                }
                "init" => {
                    if args["token"].as_str() != Some(self.token.as_str()) {
                        break Verdict::Failed {
                            name: "Forbidden".into(),
                            message: "the routine process did not present its run token".into(),
                        };
                    }
                    initialised = true;
                    let answer = answer_line(&id, Ok(self.init()));
                    if sync_answers.write_all(answer.as_bytes()).await.is_err() {
                        break Verdict::Exited;
                    }
                }
                _ if !initialised => {
                    break Verdict::Failed {
                        name: "Forbidden".into(),
                        message: "ctx was used before the run was set up".into(),
                    }
                }
                _ if message["sync"] == json!(true) => {
                    let answer =
                        tokio::task::block_in_place(|| self.answer_sync(&mut databases, op, args));
                    if sync_answers.write_all(answer_line(&id, answer).as_bytes()).await.is_err() {
                        break Verdict::Exited;
                    }
                }
                "routines.run" => self.nested_run(id, args, answer_tx.clone()),
                "consent.request" => self.consent_request(id, args, answer_tx.clone()),
                "credential.token"
                | "credential.authorize"
                | "credential.start"
                | "credential.disconnect" => self.credential_async(op, id, args, answer_tx.clone()),
                "notify" => {
                    let result = self
                        .ws
                        .notify(&self.entry.app_name, self.request.caller_app.as_deref(), args)
                        .map(|d| json!({ "delivery": d }))
                        .map_err(|e| ("BadRequest".to_string(), e.to_string(), None));
                    let _ = answer_tx.send(answer_line(&id, result));
                }
                "badge" => {
                    let result = self
                        .ws
                        .badge(
                            &self.entry.app_name,
                            self.request.caller_app.as_deref(),
                            &args["count"],
                        )
                        .map(Value::from)
                        .map_err(|e| ("BadRequest".to_string(), e.to_string(), None));
                    let _ = answer_tx.send(answer_line(&id, result));
                }
                other => {
                    let _ = answer_tx.send(answer_line(
                        &id,
                        Err((
                            "BadRequest".into(),
                            format!("unknown ctx request \"{other}\""),
                            None,
                        )),
                    ));
                }
            }
        };
        writer.abort();
        verdict
    }

    /// A synchronous request: the routine is blocked until this returns.
    fn answer_sync(&self, databases: &mut Databases, op: &str, args: &Value) -> Answer {
        if op.starts_with("db.") {
            return databases
                .handle(op, args)
                .map_err(|e| (e.name().to_string(), e.to_string(), None));
        }
        match op {
            "secrets.get" | "secrets.list" | "secrets.set" => self.secrets(op, args),
            "credential.fields" => self.credential_fields(),
            "credential.status" => self.credential_status(),
            other => Err(("BadRequest".into(), format!("unknown ctx request \"{other}\""), None)),
        }
    }

    /// `ctx.secrets.get/list/set`, within the package's grants; values read are masked from now on.
    fn secrets(&self, op: &str, args: &Value) -> Answer {
        let store = self.ws.shared.secrets().map_err(unavailable)?;
        let access = Access::of(self.entry);
        let package = &self.entry.app_name;
        if op == "secrets.list" {
            let names = store.list().map_err(unavailable)?;
            return Ok(json!(names.into_iter().filter(|n| access.may_read(n)).collect::<Vec<_>>()));
        }
        let name = args["name"].as_str().unwrap_or_default();
        cowork_secrets::validate_name(name)
            .map_err(|e| ("BadRequest".to_string(), e.to_string(), None))?;
        if op == "secrets.get" {
            if !access.may_read(name) {
                return Err(("NotGranted".into(), access.refusal(package, name), None));
            }
            let value = store.get(name).map_err(unavailable)?;
            if let Some(value) = &value {
                self.output.masks.add(value);
            }
            return Ok(value.map(|v| Value::String(v.to_string())).unwrap_or(Value::Null));
        }
        if !access.may_write(name) {
            return Err(("NotGranted".into(), access.refusal(package, name), None));
        }
        let value = args["value"].as_str().unwrap_or_default();
        self.output.masks.add(value);
        store.set(name, value).map_err(unavailable)?;
        Ok(Value::Null)
    }

    /// The connection this routine's capability declares, or the error a routine gets instead.
    fn connection(
        &self,
    ) -> Result<(Arc<cowork_secrets::SecretStore>, credentials::Connection), CtxError> {
        let cap = &self.entry.app_name;
        if self.entry.kind != Kind::Capability {
            return Err(("NotGranted".into(), format!("{cap} is an app: an app's routines reach no credential — call a routine of the capability that declares it (\"uses\")"), None));
        }
        let registry = self.ws.registry();
        let Some(connection) = credentials::of_capability(&registry, cap) else {
            return Err(("NotConnected".into(), format!("{cap} declares no \"credential\" in its cowork.json, so it has no connection to use"), None));
        };
        let store = self.ws.shared.secrets().map_err(unavailable)?;
        Ok((store, connection))
    }

    /// `ctx.credential.fields()`: the key's fields by name, or `NotConnected` saying where to connect.
    fn credential_fields(&self) -> Answer {
        let (store, connection) = self.connection()?;
        if connection.key.is_none() {
            return Err(("BadRequest".into(), format!("{} signs in (OAuth) and has no key fields: use ctx.credential.fetch or token()", connection.name), None));
        }
        let mut fields = serde_json::Map::new();
        for (field, secret) in connection.field_names() {
            let Some(value) = store.get(&secret).map_err(unavailable)? else {
                return Err(not_connected(&connection));
            };
            self.output.masks.add(&value);
            fields.insert(field, Value::String(value.to_string()));
        }
        Ok(Value::Object(fields))
    }

    /// `ctx.credential.status()`: `{connected, account?}`, never a token.
    fn credential_status(&self) -> Answer {
        let (store, connection) = self.connection()?;
        let status = credentials::status(&store, &connection);
        let mut out = json!({ "connected": status.state == "connected" });
        if let Some(account) = status.account {
            out["account"] = account;
        }
        Ok(out)
    }

    /// `credential.token/fetch/start/disconnect`: answered off the request loop (a refresh or a
    /// revocation talks to the provider).
    fn credential_async(
        &self,
        op: &str,
        id: Value,
        args: &Value,
        answers: mpsc::UnboundedSender<String>,
    ) {
        let (store, connection) = match self.connection() {
            Ok(pair) => pair,
            Err(error) => {
                let _ = answers.send(answer_line(&id, Err(error)));
                return;
            }
        };
        let op = op.to_string();
        let args = args.clone();
        let masks = self.output.masks.clone();
        let oauth = self.ws.shared.oauth.clone();
        let task = tokio::spawn(async move {
            let answer =
                crate::signin::answer(&oauth, &store, &connection, &op, &args, &masks).await;
            let _ = answers.send(answer_line(&id, answer));
        });
        self.nested.lock().push(task);
    }

    fn init(&self) -> Value {
        json!({
            "entry": self.entry_module,
            "file": format!("{}/{}", self.entry.app_dir, self.entry.rel_file),
            "args": self.request.args,
            "workspaceRoot": self.ws.root(),
            "app": { "name": self.entry.app_name, "dir": self.entry.app_dir },
            "identity": { "user": null, "organization": null },
            "runId": self.run_id,
            "routine": self.entry.id,
            "dataIgnore": crate::engine::DATA_GITIGNORE,
        })
    }

    fn log_line(&self, stream: &'static str, line: &str) {
        self.output.line(stream, line);
    }

    /// `ctx.routines.run`: a nested run under this one's chain and deadline, answered when it ends.
    fn nested_run(&self, id: Value, args: &Value, answers: mpsc::UnboundedSender<String>) {
        let (routine, timeout_ms) = match nested_call(args) {
            Ok(parts) => parts,
            Err(error) => {
                let _ = answers.send(answer_line(&id, Err(error)));
                return;
            }
        };
        let mut chain = self.request.chain.clone();
        chain.push(self.entry.id.clone());
        let nested = RunRequest {
            routine,
            args: if args["args"].is_null() { json!({}) } else { args["args"].clone() },
            source: self.request.source,
            agent: self.request.agent.clone(),
            caller_app: Some(self.entry.app_name.clone()),
            caller_source: None,
            timeout_ms,
            chain,
            deadline: Some(self.deadline),
            caller_masks: Some(self.output.masks.clone()),
        };
        let ws = self.ws.clone();
        let task = tokio::spawn(async move {
            let result = ws
                .run_boxed(nested)
                .await
                .map(|ok| ok.result)
                .map_err(|f| (f.name, f.message, f.run_id));
            let _ = answers.send(answer_line(&id, result));
        });
        self.nested.lock().push(task);
    }
}

impl Session<'_> {
    /// `ctx.consent.request` / `ctx.command.run`: approved ahead of time, asked in a window, or —
    /// with no window to ask — refused at once with the line that approves it (logged too).
    fn consent_request(&self, id: Value, args: &Value, answers: mpsc::UnboundedSender<String>) {
        let value = match self.consent_value(args) {
            Ok(value) => value,
            Err(message) => {
                let _ = answers.send(answer_line(&id, Err(("BadRequest".into(), message, None))));
                return;
            }
        };
        // The window shows the question, and the desktop shell may log it: never a secret in it.
        let masked = |key: &str| args[key].as_str().map(|text| self.output.masks.apply(text));
        let question = Question {
            app: self.entry.app_name.clone(),
            routine: Some(self.entry.id.clone()),
            value: value.clone(),
            title: masked("title"),
            description: masked("description"),
            command: masked("command"),
        };
        let (ws, output, deadline) = (self.ws.clone(), self.output.clone(), self.deadline);
        let task = tokio::spawn(async move {
            let decision = crate::consent::decide(&ws, question, deadline).await;
            if let Some(line) = &decision.allow_line {
                output.line("log", &format!("consent needed for \"{value}\": {line}"));
            }
            let _ = answers.send(answer_line(&id, Ok(decision.reply)));
        });
        self.nested.lock().push(task);
    }
}

/// The routine id and `timeoutMs` of a `ctx.routines.run(id, args, {timeoutMs})`, refused with
/// `BadRequest` before anything starts when either is not what the call takes.
fn nested_call(args: &Value) -> Result<(String, Option<u64>), CtxError> {
    let bad =
        |message: String| ("BadRequest".to_string(), format!("ctx.routines.run: {message}"), None);
    let routine = match &args["id"] {
        Value::String(id) => id.clone(),
        other => {
            return Err(bad(format!(
                "the routine id is a string such as \"notes-list\", not {}",
                json_type(other)
            )))
        }
    };
    let max = crate::engine::MAX_TIMEOUT.as_millis() as u64;
    let timeout_ms = match &args["timeoutMs"] {
        Value::Null => None,
        value => match value.as_u64().filter(|ms| (1..=max).contains(ms)) {
            Some(ms) => Some(ms),
            None => {
                return Err(bad(format!(
                    "timeoutMs is a whole number of milliseconds from 1 to {max}, not {value}"
                )))
            }
        },
    };
    Ok((routine, timeout_ms))
}

/// How a message names the type of a JSON value a routine passed.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null or undefined",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Session<'_> {
    /// The value an approval is remembered under: `options.value`, else the command itself (the
    /// runner sends the command as the value then). It is stored in the clear and pasted into a
    /// shell, so it holds no secret the run read and is one line.
    fn consent_value(&self, args: &Value) -> Result<String, String> {
        let Some(value) =
            args["value"].as_str().or(args["command"].as_str()).filter(|v| !v.trim().is_empty())
        else {
            return Err(
                "consent needs a `value`: the stable label the approval is remembered under".into(),
            );
        };
        let is_the_command = args["command"].as_str() == Some(value);
        if self.output.masks.apply(value) != value {
            let what = if is_the_command {
                "the command holds a secret the routine read, and the command is the consent value"
            } else {
                "the consent value holds a secret the routine read"
            };
            return Err(format!("{what}; approvals are stored in the clear: pass options.value: a label without the secret"));
        }
        if let Err(message) = crate::consent::one_line(value) {
            return Err(match is_the_command {
                true => "a multi-line command needs options.value: a one-line label the approval is remembered under".into(),
                false => message.into(),
            });
        }
        Ok(value.to_string())
    }
}

/// A failure as a routine sees it: its `e.name`, its message, and the run that failed (if one ran).
pub(crate) type CtxError = (String, String, Option<String>);

pub(crate) type Answer = Result<Value, CtxError>;

pub(crate) fn unavailable(error: cowork_secrets::SecretError) -> CtxError {
    let message = match error.hint() {
        Some(hint) if !error.to_string().contains(&hint) => format!("{error} ({hint})"),
        _ => error.to_string(),
    };
    ("Unavailable".into(), format!("the secret store: {message}"), None)
}

/// `NotConnected`, naming where the person connects it.
pub(crate) fn not_connected(connection: &credentials::Connection) -> CtxError {
    let name = &connection.name;
    let how = if connection.key.is_some() {
        format!(
            "`cowork credential connect {name} --field {}=…`",
            connection.key.as_ref().map(|k| k.fields[0].as_str()).unwrap_or("token")
        )
    } else {
        format!("`cowork credential connect {name}`")
    };
    ("NotConnected".into(), format!("{name} is not connected: connect it in Manage Workspace › Components › Credentials, from the app's pane, or with {how}"), None)
}

fn answer_line(id: &Value, answer: Answer) -> String {
    let message = match answer {
        Ok(value) => json!({ "id": id, "ok": value }),
        Err((name, message, run_id)) => {
            json!({ "id": id, "error": { "name": name, "message": message, "runId": run_id } })
        }
    };
    format!("{message}\n")
}

/// Where a run's lines go: its log (the audit tail) and the Output stream, masked first.
#[derive(Clone)]
struct Output {
    ws: Arc<Workspace>,
    run_id: String,
    routine: String,
    log: Arc<Mutex<Vec<String>>>,
    masks: Arc<Masks>,
}

impl Output {
    fn line(&self, stream: &'static str, line: &str) {
        let line = self.masks.apply(line);
        self.log.lock().push(line.clone());
        self.ws.emit(Event::Log {
            workspace: self.ws.display(),
            run_id: self.run_id.clone(),
            routine: self.routine.clone(),
            stream,
            line,
        });
    }

    async fn stream(self, from: impl AsyncRead + Unpin, stream: &'static str) {
        let mut lines = BufReader::new(from).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            self.line(stream, &line);
        }
    }
}

/// Writes `runner.mjs` into the cache once per content and returns its path. It has a folder of
/// its own: a confined routine is granted that folder (its runtime reads it), nothing else of the
/// root.
fn runner_script(root: &cowork_core::paths::Root) -> std::io::Result<std::path::PathBuf> {
    use sha2::Digest;
    let hash = hex::encode(&sha2::Sha256::digest(RUNNER.as_bytes())[..6]);
    let path = root.cache_dir().join("runner").join(format!("runner-{hash}.mjs"));
    if !path.is_file() {
        cowork_core::fs_atomic::write(&path, RUNNER.as_bytes(), false)?;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::Masks;

    fn masked(secret: &str, text: &str) -> String {
        let masks = Masks::default();
        masks.add(secret);
        masks.apply(text)
    }

    #[test]
    fn a_value_is_masked_whole() {
        assert_eq!(masked("sk-4242", "key sk-4242 used"), "key [redacted] used");
    }

    #[test]
    fn each_line_of_a_multi_line_value_is_masked_where_lines_are_read_one_by_one() {
        let pem = "-----BEGIN KEY-----\r\nMIIEabcd\nxyz\n-----END KEY-----";
        assert_eq!(masked(pem, "MIIEabcd"), "[redacted]");
        assert_eq!(masked(pem, "-----END KEY-----"), "[redacted]");
        assert_eq!(masked(pem, "xyz"), "xyz", "a line shorter than 4 characters is not masked");
        assert_eq!(
            masked(pem, &format!("got {pem}.")),
            "got [redacted].",
            "whole where it shows whole"
        );
    }

    #[test]
    fn the_json_escaped_form_is_masked_too() {
        let secret = r#"pa"ss\word"#;
        let preview = serde_json::json!({ "echo": secret }).to_string();
        assert_eq!(masked(secret, &preview), r#"{"echo":"[redacted]"}"#);
        let multi = "line-one\n\"two\"";
        assert_eq!(masked(multi, &serde_json::json!([multi]).to_string()), r#"["[redacted]"]"#);
    }

    #[test]
    fn values_under_four_characters_are_not_masked() {
        assert_eq!(masked("abc", "abc abcd"), "abc abcd");
        assert_eq!(masked("abcd", "abc abcd"), "abc [redacted]");
    }
}
