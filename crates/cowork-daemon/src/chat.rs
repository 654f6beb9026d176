//! The workbench's Chat: a conversation with an agent CLI — Claude Code (the default) or Codex, the
//! workspace's choice, remembered — running in the workspace folder, as a desktop host runs it
//! (shared/spec/context-agent-spawn-contract.md; Codex as `codex app-server`). Each conversation
//! keeps the CLI it began with and has at most one CLI process, spawned on the first message and
//! resumed (Claude Code's `--resume`, Codex's `thread/resume`) after it exits; what it prints becomes [`ChatEvent`]s — streamed text, tool calls
//! and their results, permission prompts and questions the person answers, the turn's end,
//! named errors — broadcast to the workbench (`GET /api/chat/events`) and appended to the
//! conversation's transcript ([`store`]).
//!
//! The CLI reaches the workspace's routines through Cowork's MCP door with a login of its own,
//! `chat` (made on first use, its token in a 0600 file of the root, never in argv), so the grants
//! of that login apply and the door audits its calls `source: mcp`, `agent: claude-code` (or
//! `codex`). `COWORK_AGENT=<cli>` in its environment makes `cowork routine run` from inside
//! audited `source: cli` with the same `agent`.
//!
//! Errors a conversation shows: `AgentCliMissing` (no `claude` / `codex`: what to install),
//! `AgentCrashed` (the CLI exited mid-turn; the transcript is kept and the next message
//! resumes), `AgentFailed` (it could not be started, or a turn failed), `AgentOffline` (it runs
//! but cannot reach its model API: no connection, no DNS; it retries on its own).

mod cli;
mod codex;
mod install;
mod protocol;
mod store;

pub use cli::{Cli, Launch, CLI_ENV};
pub use install::{agents_dir, install};
pub use store::Store;

use codex::QUESTION;

use crate::error::ApiError;
use axum::http::StatusCode;
use cowork_core::agents::{AgentError, Logins};
use cowork_wire::chat::{
    AnswerBody, ChatEvent, ChatEventKind, ConversationBody, ConversationSummary, Decision,
    SendBody, Sent,
};
use parking_lot::Mutex;
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{broadcast, mpsc};

/// Our `initialize` control request's id.
const INIT: &str = "cowork_init";

/// Our request opening Codex's thread (`thread/start`, `thread/resume`).
const THREAD: &str = "cowork_thread";

/// The prefix of our `turn/start` requests' ids (Codex).
const TURN: &str = "cowork_turn_";

/// How long a CLI may take to start (connect its MCP servers, load its skills).
const START_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(90);

/// The agent login the Chat's sessions use at the door: Cowork's own, which a person cannot
/// create, re-token or revoke.
pub const LOGIN: &str = cowork_core::agents::CHAT;

/// What the Chat reads of the daemon: its table of conversations, the engine, the port the door
/// listens on. `AppState` is one (`chat_routes`); the Chat never imports the state that holds its table.
pub trait Host {
    /// The conversations and their event stream.
    fn chats(&self) -> &Arc<Chats>;
    /// The engine whose workspaces the conversations run in.
    fn engine(&self) -> &Arc<cowork_engine::Engine>;
    /// The daemon's port (the door the CLI is given).
    fn port(&self) -> u16;
}

/// An event and the workspace (canonical) it belongs to.
#[derive(Clone, Debug)]
pub struct Emitted {
    /// The workspace it belongs to (canonical).
    pub workspace: PathBuf,
    /// The event.
    pub event: ChatEvent,
}

/// Every conversation with a live CLI (or one since the daemon started), and the event stream.
pub struct Chats {
    launch: Mutex<Launch>,
    live: Mutex<HashMap<String, Arc<Conversation>>>,
    events: broadcast::Sender<Emitted>,
    /// Held while the `chat` login is looked up or made, so two first sessions make one.
    login: tokio::sync::Mutex<()>,
    /// Held while an agent CLI is being installed: one install at a time.
    installing: tokio::sync::Mutex<()>,
}

impl Default for Chats {
    fn default() -> Self {
        Chats {
            launch: Mutex::default(),
            live: Mutex::default(),
            events: broadcast::channel(4096).0,
            login: tokio::sync::Mutex::new(()),
            installing: tokio::sync::Mutex::new(()),
        }
    }
}

struct Conversation {
    id: String,
    cli: Cli,
    workspace: PathBuf,
    store: Store,
    inner: Mutex<Inner>,
}

struct Inner {
    summary: ConversationSummary,
    seq: u64,
    /// Streamed text not yet in the transcript (written joined, before the next other event).
    text: Option<(u64, String)>,
    process: Option<Process>,
    /// Prompts and questions waiting for the person, by request id.
    pending: HashMap<String, Pending>,
    /// Tools the person allowed for the rest of this session.
    always: HashSet<String>,
    running: bool,
    interrupted: bool,
    generation: u64,
    /// The running turn's id (Codex's interrupt names it).
    turn: Option<String>,
    /// `AgentOffline` was said in this turn (the CLI retries; once is enough).
    offline: bool,
    /// Told when the CLI is ready (Claude Code answered `initialize`, its MCP servers connected
    /// by then; Codex opened the thread), or why it is not.
    initialized: Option<tokio::sync::oneshot::Sender<Result<(), String>>>,
}

struct Process {
    stdin: mpsc::UnboundedSender<Value>,
    pid: Option<u32>,
    generation: u64,
    /// Notified to end the process (new settings start another).
    kill: Arc<tokio::sync::Notify>,
}

struct Pending {
    tool: String,
    input: Value,
}

fn named(status: StatusCode, name: &str, message: impl Into<String>) -> ApiError {
    ApiError::own(status, name, message)
}

impl Chats {
    /// How CLIs are found and started from now on (tests: the stand-in's `bin/`).
    pub fn set_launch(&self, launch: Launch) {
        *self.launch.lock() = launch;
    }

    /// Every event from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Emitted> {
        self.events.subscribe()
    }

    /// The live CLI's process id in a conversation (tests kill it mid-turn).
    pub fn cli_pid(&self, conversation: &str) -> Option<u32> {
        let conversation = self.live.lock().get(conversation).cloned()?;
        let inner = conversation.inner.lock();
        inner.process.as_ref().and_then(|p| p.pid)
    }

    fn live(&self, workspace: &Path, id: &str) -> Option<Arc<Conversation>> {
        self.live.lock().get(id).filter(|c| c.workspace == workspace).cloned()
    }
}

impl Conversation {
    fn emit(&self, chats: &Chats, kind: ChatEventKind) {
        let event = {
            let mut inner = self.inner.lock();
            inner.seq += 1;
            let event = ChatEvent { conversation: self.id.clone(), seq: inner.seq, kind };
            match &event.kind {
                ChatEventKind::Text { text } => match &mut inner.text {
                    Some((_, joined)) => joined.push_str(text),
                    None => inner.text = Some((event.seq, text.clone())),
                },
                _ => {
                    self.flush(&mut inner);
                    self.write(&event);
                }
            }
            event
        };
        // No receiver (no workbench open) is fine: the transcript has it.
        let _ = chats.events.send(Emitted { workspace: self.workspace.clone(), event });
    }

    fn flush(&self, inner: &mut Inner) {
        if let Some((seq, text)) = inner.text.take() {
            let kind = ChatEventKind::Text { text };
            self.write(&ChatEvent { conversation: self.id.clone(), seq, kind });
        }
    }

    fn write(&self, event: &ChatEvent) {
        if let Err(error) = self.store.append(event) {
            tracing::error!(%error, conversation = %self.id, "failed to append to the chat transcript");
        }
    }

    fn save(&self, summary: &ConversationSummary) {
        if let Err(error) = self.store.save(summary) {
            tracing::error!(%error, conversation = %self.id, "failed to save the conversation");
        }
    }

    fn write_cli(&self, message: Value) -> bool {
        let inner = self.inner.lock();
        inner.process.as_ref().is_some_and(|p| p.stdin.send(message).is_ok())
    }

    /// Events to show (a new session id is kept for resuming).
    fn handle_shown(&self, chats: &Chats, kinds: Vec<ChatEventKind>) {
        for kind in kinds {
            if let ChatEventKind::Session { session, .. } = &kind {
                let mut inner = self.inner.lock();
                if inner.summary.session.as_deref() == Some(session) {
                    continue;
                }
                inner.summary.session = Some(session.clone());
                let summary = inner.summary.clone();
                drop(inner);
                self.save(&summary);
            }
            self.emit(chats, kind);
        }
    }

    /// One line the CLI printed.
    fn handle(&self, chats: &Chats, line: &str) {
        match self.cli.read(line) {
            protocol::Output::Show(kinds) => self.handle_shown(chats, kinds),
            protocol::Output::CanUseTool { request_id, tool, input } => {
                let always = self.inner.lock().always.contains(&tool);
                if always && tool != QUESTION {
                    let allow = cli::Reply::Allow { always: true };
                    self.write_cli(self.cli.reply(&request_id, &tool, &input, allow));
                    return;
                }
                let kind = match tool.as_str() {
                    QUESTION => ChatEventKind::Question {
                        id: request_id.clone(),
                        questions: self.cli.questions(&input),
                    },
                    _ => ChatEventKind::Permission {
                        id: request_id.clone(),
                        tool: tool.clone(),
                        input: input.clone(),
                    },
                };
                self.inner.lock().pending.insert(request_id, Pending { tool, input });
                self.emit(chats, kind);
            }
            protocol::Output::Result { result, is_error } => {
                let interrupted = {
                    let mut inner = self.inner.lock();
                    inner.running = false;
                    inner.turn = None;
                    inner.offline = false;
                    inner.pending.clear();
                    std::mem::take(&mut inner.interrupted)
                };
                self.emit(chats, ChatEventKind::TurnEnd { result, is_error, interrupted });
            }
            protocol::Output::Answered { request_id, .. } if request_id == INIT => {
                let resume = self.inner.lock().summary.session.clone();
                let next = self.cli.after_initialize(THREAD, &self.workspace, resume.as_deref());
                if next.is_empty() {
                    self.ready(Ok(()));
                }
                for message in next {
                    self.write_cli(message);
                }
            }
            protocol::Output::Answered { request_id, result } if request_id == THREAD => {
                match result["thread"]["id"].as_str() {
                    Some(thread) => {
                        let model = result["model"].as_str().map(str::to_string);
                        let session = ChatEventKind::Session { session: thread.into(), model };
                        self.handle_shown(chats, vec![session]);
                        self.ready(Ok(()));
                    }
                    None => self.ready(Err(format!("it opened no thread: {result}"))),
                }
            }
            protocol::Output::Refused { request_id, message } if request_id == THREAD => {
                self.ready(Err(format!("it could not open the conversation's thread: {message}")))
            }
            protocol::Output::Answered { request_id, result } if request_id.starts_with(TURN) => {
                if let Some(turn) = result["turn"]["id"].as_str() {
                    self.inner.lock().turn.get_or_insert_with(|| turn.to_string());
                }
            }
            protocol::Output::Refused { request_id, message } if request_id.starts_with(TURN) => {
                self.inner.lock().running = false;
                self.emit(
                    chats,
                    ChatEventKind::Error {
                        name: "AgentFailed".into(),
                        message: format!(
                            "failed to start the turn: {} refused it: {message}",
                            self.cli.name()
                        ),
                        hint: Some("send the message again, or start a new conversation".into()),
                    },
                );
            }
            protocol::Output::TurnStarted { turn } => self.inner.lock().turn = Some(turn),
            protocol::Output::Unsupported { request_id } => {
                if let Some(refusal) = self.cli.refuse(&request_id) {
                    self.write_cli(refusal);
                }
            }
            protocol::Output::Failed { message, .. } => {
                let name = self.cli.name();
                self.emit(
                    chats,
                    ChatEventKind::Error {
                        name: "AgentFailed".into(),
                        message: format!("failed to finish the turn: {name} said: {message}"),
                        hint: None,
                    },
                );
            }
            protocol::Output::Offline { detail } => {
                if std::mem::replace(&mut self.inner.lock().offline, true) {
                    return;
                }
                let name = self.cli.name();
                let said = if detail.is_empty() { String::new() } else { format!(" ({detail})") };
                self.emit(
                    chats,
                    ChatEventKind::Error {
                        name: "AgentOffline".into(),
                        message: format!("failed to reach {name}'s model API{said}"),
                        hint: Some(format!(
                            "check the network, or {name}'s login and API settings (`{}` signs \
                             in); it keeps retrying: Stop ends the turn",
                            self.cli.bin()
                        )),
                    },
                );
            }
            protocol::Output::Answered { .. }
            | protocol::Output::Refused { .. }
            | protocol::Output::Nothing => {}
        }
    }

    /// Tells the start whether the CLI is ready.
    fn ready(&self, outcome: Result<(), String>) {
        if let Some(initialized) = self.inner.lock().initialized.take() {
            let _ = initialized.send(outcome);
        }
    }

    /// The CLI exited: mid-turn, that is `AgentCrashed` (the transcript stays; the next message
    /// resumes the session).
    fn exited(&self, chats: &Chats, generation: u64, status: String, stderr: Vec<String>) {
        let crashed = {
            let mut inner = self.inner.lock();
            if inner.process.as_ref().is_some_and(|p| p.generation == generation) {
                inner.process = None;
            }
            inner.pending.clear();
            inner.always.clear();
            std::mem::take(&mut inner.running)
        };
        let _ = std::fs::remove_file(self.store.mcp_config_file(&self.id));
        if crashed {
            let said = match stderr.is_empty() {
                true => String::new(),
                false => format!(": {}", stderr.join(" / ")),
            };
            self.emit(
                chats,
                ChatEventKind::Error {
                    name: "AgentCrashed".into(),
                    message: format!(
                        "failed to finish the turn: {} exited mid-turn ({status}){said}",
                        self.cli.name()
                    ),
                    hint: Some(
                        "the conversation so far is kept: send a message to go on from it".into(),
                    ),
                },
            );
        }
    }
}

/// The conversation `id` of `workspace`, live or from its files; a new one when `id` is none.
fn conversation(
    state: &impl Host,
    workspace: &Path,
    id: Option<&str>,
    cli: Cli,
) -> Result<(Arc<Conversation>, bool), ApiError> {
    let store = Store::new(state.engine().root(), workspace);
    let Some(id) = id else {
        let id = format!(
            "{}-{}",
            jiff::Timestamp::now().strftime("%Y%m%d%H%M%S"),
            hex::encode(rand::random::<[u8; 4]>())
        );
        let summary = ConversationSummary {
            id: id.clone(),
            title: String::new(),
            created: jiff::Timestamp::now().to_string(),
            model: None,
            effort: None,
            session: None,
            cli: cli.id().into(),
            running: false,
        };
        return Ok((new_conversation(workspace, store, summary, 0), true));
    };
    if let Some(live) = state.chats().live(workspace, id) {
        return Ok((live, false));
    }
    let not_found = || {
        ApiError::new(StatusCode::NOT_FOUND, format!("no conversation \"{id}\" in this workspace"))
            .hint("GET /api/chat lists the workspace's conversations")
    };
    let summary = store.summary(id).ok_or_else(not_found)?;
    let seq = store.transcript(id).last().map_or(0, |e| e.seq);
    let conversation = new_conversation(workspace, store, summary, seq);
    let mut live = state.chats().live.lock();
    Ok((live.entry(id.to_string()).or_insert(conversation).clone(), false))
}

fn new_conversation(
    workspace: &Path,
    store: Store,
    summary: ConversationSummary,
    seq: u64,
) -> Arc<Conversation> {
    Arc::new(Conversation {
        id: summary.id.clone(),
        // A transcript of an unknown CLI (a newer Cowork's) goes on with the default.
        cli: Cli::parse(&summary.cli).unwrap_or(Cli::ClaudeCode),
        workspace: workspace.to_path_buf(),
        store,
        inner: Mutex::new(Inner {
            summary,
            seq,
            text: None,
            process: None,
            pending: HashMap::new(),
            always: HashSet::new(),
            running: false,
            interrupted: false,
            generation: 0,
            turn: None,
            offline: false,
            initialized: None,
        }),
    })
}

/// The `chat` login's token, made (or its token renewed) when there is none on file, and let
/// into `workspace`.
async fn login_token(state: &impl Host, workspace: &Path) -> Result<String, ApiError> {
    cowork_core::agents::check_workspace(workspace)?;
    let _held = state.chats().login.lock().await;
    let root = state.engine().root();
    let logins = Logins::new(root);
    let file = root.dir().join("chat").join("agent.token");
    let saved = std::fs::read_to_string(&file).ok().map(|t| t.trim().to_string());
    let token = match logins.get(LOGIN) {
        Err(AgentError::Unknown(_)) => logins.create_chat(workspace)?.1,
        Err(error) => return Err(error.into()),
        Ok(login) if login.revoked => {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                format!("failed to start the chat: its agent login \"{LOGIN}\" was revoked"),
            )
            .hint("it was revoked before Cowork kept people from revoking the Chat's login; a revoked login stays revoked"))
        }
        Ok(login) => match saved.clone() {
            Some(token) if logins.authenticate(&token).is_some_and(|l| l.id == login.id) => token,
            _ => logins.new_chat_token()?.1,
        },
    };
    if saved.as_deref() != Some(token.as_str()) {
        cowork_core::fs_atomic::write(&file, token.as_bytes(), true)
            .map_err(|e| ApiError::internal("failed to save the chat login's token", &e))?;
    }
    logins.add_workspace(LOGIN, workspace)?;
    Ok(token)
}

/// Starts the CLI for `conversation` (resuming its session, if it has one).
async fn start_process(
    state: &impl Host,
    conversation: &Arc<Conversation>,
    program: PathBuf,
) -> Result<(), ApiError> {
    let workspace = &conversation.workspace;
    let token = login_token(state, workspace).await?;
    let base = format!("http://127.0.0.1:{}", state.port());
    // The conversation is the task of every call the Chat makes (Executions' Task): the CLIs send
    // no task of their own, so the door reads it from the address.
    let door = cowork_core::agents::connect(&base, workspace, &token).url;
    let url = format!("{door}&task={}", cowork_core::agents::query_value(&conversation.id));
    let config_file = conversation.store.mcp_config_file(&conversation.id);
    let agent = conversation.cli;
    if agent == Cli::ClaudeCode {
        let config = serde_json::to_vec(&cli::mcp_config(&url, &token)).expect("json");
        cowork_core::fs_atomic::write(&config_file, &config, true)
            .map_err(|e| ApiError::internal("failed to write the chat's MCP config", &e))?;
    }
    let summary = conversation.inner.lock().summary.clone();
    let settings = cli::Settings {
        door: &url,
        mcp_config: &config_file,
        model: summary.model.as_deref(),
        effort: summary.effort.as_deref(),
        resume: summary.session.as_deref(),
    };
    let launch = state.chats().launch.lock().clone();
    let mut command = tokio::process::Command::new(&program);
    command
        .args(agent.args(&settings))
        .current_dir(workspace)
        .envs(agent.env())
        .envs(launch.env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    if let Some(path) = &launch.path {
        command.env("PATH", path);
    }
    if agent == Cli::Codex {
        // Codex reads the door's bearer from here (its config names the variable).
        command.env(cli::CODEX_TOKEN_ENV, &token);
    }
    let (name, bin) = (agent.name(), agent.bin());
    let mut child = command.spawn().map_err(|error| {
        named(
            StatusCode::SERVICE_UNAVAILABLE,
            "AgentFailed",
            format!("failed to start {name} ({}): {error}", program.display()),
        )
        .hint(format!("check that it runs: `{bin} --version`"))
    })?;
    let (stdin_tx, mut stdin_rx) = mpsc::unbounded_channel::<Value>();
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let kill = Arc::new(tokio::sync::Notify::new());
    let (initialized_tx, initialized) = tokio::sync::oneshot::channel();
    let generation = {
        let mut inner = conversation.inner.lock();
        inner.initialized = Some(initialized_tx);
        inner.generation += 1;
        let generation = inner.generation;
        inner.process =
            Some(Process { stdin: stdin_tx, pid: child.id(), generation, kill: kill.clone() });
        generation
    };
    tokio::spawn(async move {
        while let Some(message) = stdin_rx.recv().await {
            let mut line = message.to_string();
            line.push('\n');
            if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                break;
            }
        }
    });
    // The last lines it said on stderr, for a crash's message.
    let tail = Arc::new(Mutex::new(VecDeque::<String>::new()));
    let tail_writer = tail.clone();
    let stderr_done = tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let mut tail = tail_writer.lock();
            if tail.len() == 5 {
                tail.pop_front();
            }
            tail.push_back(line.chars().take(300).collect());
        }
    });
    let chats = state.chats().clone();
    let reading = conversation.clone();
    let killed = kill.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::with_capacity(1 << 16, stdout).lines();
        loop {
            tokio::select! {
                line = lines.next_line() => match line {
                    Ok(Some(line)) => reading.handle(&chats, &line),
                    _ => break,
                },
                _ = killed.notified() => {
                    // Read on to the end: its last lines still belong to the transcript.
                    let _ = child.start_kill();
                }
            }
        }
        let status = match child.wait().await {
            Ok(status) => status.to_string(),
            Err(error) => format!("no exit status: {error}"),
        };
        let _ = stderr_done.await;
        let stderr = tail.lock().drain(..).collect();
        reading.exited(&chats, generation, status, stderr);
    });
    conversation.write_cli(agent.initialize(INIT));
    // The first message waits for the CLI to be ready: before that its MCP tools (the door)
    // may not be offered to the model yet.
    let failed = |why: String| {
        named(
            StatusCode::SERVICE_UNAVAILABLE,
            "AgentFailed",
            format!("failed to start {name} ({}): {why}", program.display()),
        )
        .hint(format!("check that it runs in the workspace folder: `{bin} --version`"))
    };
    match tokio::time::timeout(START_TIMEOUT, initialized).await {
        Ok(Ok(Ok(()))) => Ok(()),
        Ok(Ok(Err(why))) => {
            kill.notify_one();
            Err(failed(why))
        }
        Ok(Err(_)) => Err(failed("it exited while starting".into())),
        Err(_) => {
            kill.notify_one();
            Err(failed(format!("it did not get ready within {} s", START_TIMEOUT.as_secs())))
        }
    }
}

fn check_setting(what: &str, value: &Option<String>) -> Result<(), ApiError> {
    match value {
        Some(v)
            if v.is_empty()
                || v.len() > 64
                || !v.chars().all(|c| c.is_ascii_alphanumeric() || "-._[]".contains(c)) =>
        {
            Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                format!("failed to send: \"{v}\" is not a {what}"),
            )
            .hint(format!("a {what} is a word like `sonnet`, `opus`, `high`")))
        }
        _ => Ok(()),
    }
}

/// Says `text` (with the apps' context) in a conversation: a new one, or one listed before
/// (its CLI started again with `--resume` when it is not running).
pub async fn send(state: &impl Host, body: SendBody) -> Result<Sent, ApiError> {
    let ws = state.engine().workspace(&body.workspace)?;
    let workspace = ws.root().to_path_buf();
    if body.text.trim().is_empty() {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "failed to send: the message is empty"));
    }
    check_setting("model", &body.model)?;
    check_setting("effort", &body.effort)?;
    let store = Store::new(state.engine().root(), &workspace);
    let chosen = match body.cli.as_deref() {
        None => store.cli().and_then(|id| Cli::parse(&id)).unwrap_or(Cli::ClaudeCode),
        Some(id) => Cli::parse(id).ok_or_else(|| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                format!("failed to send: \"{id}\" is not an agent CLI of the Chat"),
            )
            .hint("the Chat runs `claude-code` or `codex`")
        })?,
    };
    let (conversation, new) =
        conversation(state, &workspace, body.conversation.as_deref(), chosen)?;
    if new && body.cli.is_some() {
        // The workspace's choice from now on.
        if let Err(error) = store.set_cli(chosen.id()) {
            tracing::error!(%error, "failed to save the chat's choice of CLI");
        }
    }
    // Claimed under the lock, so two sends cannot both start a turn.
    let (restart, old_pid) = {
        let mut inner = conversation.inner.lock();
        if inner.running {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                format!(
                    "failed to send: a turn is running in conversation \"{}\"",
                    conversation.id
                ),
            )
            .hint("wait for it to end, or interrupt it"));
        }
        let mut changed = false;
        if body.model.is_some() && body.model != inner.summary.model {
            inner.summary.model = body.model.clone();
            changed = true;
        }
        if body.effort.is_some() && body.effort != inner.summary.effort {
            inner.summary.effort = body.effort.clone();
            changed = true;
        }
        if inner.summary.title.is_empty() {
            inner.summary.title = body.text.trim().chars().take(80).collect();
        }
        inner.running = true;
        let old = if changed { inner.process.take().map(|p| p.kill) } else { None };
        (changed || inner.process.is_none(), old)
    };
    let release = |conversation: &Conversation| conversation.inner.lock().running = false;
    if let Some(kill) = old_pid {
        // New settings: the old process goes, the session resumes with them.
        kill.notify_one();
    }
    if restart {
        let agents = agents_dir(state.engine().root());
        let program = state.chats().launch.lock().find(conversation.cli, &agents);
        let program = match program {
            Ok(program) => program,
            Err(error) => {
                release(&conversation);
                return Err(named(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "AgentCliMissing",
                    error.to_string(),
                )
                .hint(error.hint()));
            }
        };
        if let Err(error) = start_process(state, &conversation, program).await {
            release(&conversation);
            return Err(error);
        }
    }
    let summary = conversation.inner.lock().summary.clone();
    conversation.save(&summary);
    if new {
        state.chats().live.lock().insert(conversation.id.clone(), conversation.clone());
    }
    let mut said = String::new();
    for item in &body.context {
        let from = item.app.as_deref().map(|a| format!(" from the app {a}")).unwrap_or_default();
        said.push_str(&format!("<{}{from}>\n{}\n</{}>\n", item.kind, item.text, item.kind));
    }
    said.push_str(&body.text);
    conversation
        .emit(state.chats(), ChatEventKind::User { text: body.text, context: body.context });
    let session = conversation.inner.lock().summary.session.clone();
    let turn = format!("{TURN}{}", rand::random::<u32>());
    let message = conversation.cli.message(&turn, session.as_deref(), &said);
    if !conversation.write_cli(message) {
        release(&conversation);
        return Err(named(
            StatusCode::SERVICE_UNAVAILABLE,
            "AgentCrashed",
            format!(
                "failed to send: {} exited before it read the message",
                conversation.cli.name()
            ),
        )
        .hint("send it again: the conversation resumes"));
    }
    Ok(Sent { conversation: conversation.id.clone() })
}

fn waiting(state: &impl Host, workspace: &Path, id: &str) -> Result<Arc<Conversation>, ApiError> {
    state.chats().live(workspace, id).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no running conversation \"{id}\" in this workspace"),
        )
    })
}

/// Answers a permission prompt (allow once, always for this session, deny) or a question.
pub async fn answer(state: &impl Host, body: AnswerBody) -> Result<(), ApiError> {
    let ws = state.engine().workspace(&body.workspace)?;
    let conversation = waiting(state, ws.root(), &body.conversation)?;
    let pending = conversation.inner.lock().pending.remove(&body.id).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("nothing is waiting for an answer as \"{}\"", body.id),
        )
        .hint("it was answered already, or its turn ended")
    })?;
    let (reply, said) = match (&body.answers, body.decision) {
        (Some(answers), _) if pending.tool == QUESTION => {
            let said = answers.values().cloned().collect::<Vec<_>>().join("; ");
            (cli::Reply::Answers(answers), said)
        }
        (_, Some(Decision::Deny)) => (cli::Reply::Deny, "deny".to_string()),
        (_, Some(decision)) if pending.tool != QUESTION => {
            let always = decision == Decision::Always;
            if always {
                conversation.inner.lock().always.insert(pending.tool.clone());
            }
            let said = if always { "always" } else { "allow" };
            (cli::Reply::Allow { always }, said.to_string())
        }
        _ => {
            let what = if pending.tool == QUESTION {
                "answers"
            } else {
                "a decision (allow, always, deny)"
            };
            conversation.inner.lock().pending.insert(body.id.clone(), pending);
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                format!("failed to answer \"{}\": it needs {what}", body.id),
            ));
        }
    };
    let reply = conversation.cli.reply(&body.id, &pending.tool, &pending.input, reply);
    conversation.write_cli(reply);
    conversation.emit(state.chats(), ChatEventKind::Answered { id: body.id, answer: said });
    Ok(())
}

/// Stops the running turn (the CLI stays, the conversation goes on); false when none runs.
pub async fn interrupt(state: &impl Host, body: ConversationBody) -> Result<bool, ApiError> {
    let ws = state.engine().workspace(&body.workspace)?;
    let conversation = waiting(state, ws.root(), &body.conversation)?;
    let (session, turn) = {
        let mut inner = conversation.inner.lock();
        if !inner.running {
            return Ok(false);
        }
        inner.interrupted = true;
        (inner.summary.session.clone(), inner.turn.clone())
    };
    let id = format!("cowork_interrupt_{}", rand::random::<u32>());
    Ok(conversation.write_cli(conversation.cli.interrupt(&id, session.as_deref(), turn.as_deref())))
}

/// The CLI a new conversation of `workspace` runs, as last chosen there (`claude-code` else).
pub fn choice(state: &impl Host, workspace: &Path) -> Cli {
    let store = Store::new(state.engine().root(), workspace);
    store.cli().and_then(|id| Cli::parse(&id)).unwrap_or(Cli::ClaudeCode)
}

/// The workspace's conversations, newest first.
pub fn list(state: &impl Host, workspace: &Path) -> Vec<ConversationSummary> {
    let live = state.chats().live.lock();
    Store::new(state.engine().root(), workspace)
        .list()
        .into_iter()
        .map(|mut summary| {
            summary.running = live.get(&summary.id).is_some_and(|c| c.inner.lock().running);
            summary
        })
        .collect()
}

/// A conversation's events so far (with text still streaming).
pub fn transcript(
    state: &impl Host,
    workspace: &Path,
    id: &str,
) -> Result<Vec<ChatEvent>, ApiError> {
    let store = Store::new(state.engine().root(), workspace);
    if store.summary(id).is_none() {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no conversation \"{id}\" in this workspace"),
        ));
    }
    let mut events = store.transcript(id);
    if let Some(live) = state.chats().live(workspace, id) {
        if let Some((seq, text)) = live.inner.lock().text.clone() {
            events.push(ChatEvent {
                conversation: id.to_string(),
                seq,
                kind: ChatEventKind::Text { text },
            });
        }
    }
    Ok(events)
}
