//! One run of one routine: prepare its files, start a fresh runtime process on `runner.mjs`, answer
//! its `ctx` requests, stream its output, and kill its whole process tree when it is done or late.

use crate::consent::Question;
use crate::db::Databases;
use crate::event::Event;
use crate::masks::Masks;
use crate::process::Channels;
use crate::protocol::{
    self, Answer, AnswerError, AppRef, BrowserArgs, Call, ConsentArgs, CtxError, ErrorName, Init,
    Line, Malformed, Notified, Report, Request, RoutinesRunArgs, SecretName, SecretValue, Stream,
};
use crate::request::{RunFailure, RunRequest, RunResult, TimeLimit};
use crate::routine_credential::{self, RoutineCredential};
use crate::secret_access::{unavailable, Access};
use crate::spares::Claimed;
use crate::workspace::Workspace;
use cowork_core::audit::LOG_TAIL_CHARS;
use cowork_core::registry::RoutineEntry;
use parking_lot::Mutex;
use serde_json::Value;
use std::future::Future;
use std::io::Read;
use std::os::fd::{AsFd, OwnedFd};
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::net::unix::pipe;
use tokio::sync::{mpsc, oneshot};

/// How long nested runs get past the deadline to write their audit lines.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// Starts a run nested in this one (`ctx.routines.run`): the workspace's own `Workspace::run`,
/// handed down by `launch.rs`, so that this module runs a process without knowing how a run is
/// admitted.
pub(crate) type StartNested =
    Arc<dyn Fn(RunRequest) -> Pin<Box<dyn Future<Output = RunResult> + Send>> + Send + Sync>;

/// What `launch.rs` hands a run beside its request: who it runs for, read once so that
/// `ctx.identity` and the audit line agree, and how it starts nested runs.
pub(crate) struct FromLaunch<'a> {
    pub identity: &'a crate::account::Identity,
    pub start_nested: StartNested,
}

/// What a run produced: its value (and warnings) or its failure, what it logged, and whether it
/// called `ctx.unchanged()`.
pub(crate) struct Finished {
    pub outcome: Result<(Value, Vec<String>), RunFailure>,
    pub log: Vec<String>,
    pub unchanged: bool,
}

fn failed(name: ErrorName, message: impl Into<String>, log: Vec<String>) -> Finished {
    Finished {
        outcome: Err(RunFailure { name, message: message.into(), run_id: None }),
        log,
        unchanged: false,
    }
}

/// Runs `entry` in a fresh process until it answers, fails, exits or reaches `deadline`.
pub(crate) async fn execute(
    ws: &Arc<Workspace>,
    entry: &RoutineEntry,
    request: &RunRequest,
    run_id: &str,
    limit: &TimeLimit,
    masks: &Arc<Masks>,
    FromLaunch { identity, start_nested }: FromLaunch<'_>,
) -> Finished {
    let deadline = limit.deadline;
    let shared = ws.shared();
    let runtime = match shared.runtime() {
        Ok(runtime) => runtime,
        Err(error) => {
            return failed(ErrorName::NoRuntime, format!("{error}; {}", error.hint()), Vec::new())
        }
    };
    let app_dir = ws.root().join(&entry.app_dir);
    let app_folder = entry.app_dir.rsplit('/').next().unwrap_or(&entry.app_dir);
    let mirror = ws.root().join(".cowork/local/routines").join(app_folder);
    let staged = match crate::modules::fresh(&app_dir, &entry.rel_file, &mirror) {
        // Staged before and nothing changed since: a few stats, nothing to read or write, so
        // none of the hand-over of this worker's tasks that blocking work asks of tokio.
        Some(staged) => Ok(staged),
        None => tokio::task::block_in_place(|| {
            // The mirror is written into the workspace: never through a link planted on its way.
            cowork_core::fs_atomic::no_link_below(ws.root(), &mirror.join("x")).map_err(
                |source| crate::modules::StageError::Write { path: mirror.clone(), source },
            )?;
            crate::modules::stage(shared.transpiler(), &app_dir, &entry.rel_file, &mirror)
        }),
    };
    let entry_module = match staged {
        Ok(path) => path,
        Err(error) => return failed(ErrorName::BadRoutine, error.to_string(), Vec::new()),
    };
    let inputs = serde_json::to_vec(&inputs(ws, entry, request, run_id, &entry_module, identity))
        .expect("a run's inputs serialize");
    let claimed = shared.spares().claim(runtime, ws.root(), &inputs).await;
    // `tree` bound last, so dropped first: a dropped run kills the tree before its runtime is
    // reaped (once reaped, its pid and group id may be reused).
    let Claimed { mut child, channels, mut tree, flight } = match claimed {
        Ok(claimed) => claimed,
        Err(error) => return failed(ErrorName::NoRuntime, error.to_string(), Vec::new()),
    };
    let log = Arc::new(Mutex::new(LogTail::default()));
    let output = RunLog {
        ws: ws.clone(),
        run_id: run_id.to_string(),
        routine: entry.id.clone(),
        log: log.clone(),
        masks: masks.clone(),
    };
    // Read in this task, beside the conversation: once the tree is killed, what is left is taken
    // at once, with no other task to wake and wait for.
    let mut stdout = child.stdout.take().map(|out| LogPipe::new(out, "stdout"));
    let mut stderr = child.stderr.take().map(|err| LogPipe::new(err, "stderr"));

    let session = Session {
        ws,
        entry,
        request,
        output: output.clone(),
        deadline,
        start_nested,
        nested: Mutex::new(Vec::new()),
        questions: Mutex::new(Vec::new()),
        sync_done: Mutex::new(None),
        sync_gate: Arc::new(SyncGate::default()),
    };
    let verdict = {
        let serve = session.serve(channels);
        let late = tokio::time::sleep_until(deadline.into());
        let stopped = async {
            match &request.stop {
                Some(stop) => stop.stopped().await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(serve, late, stopped);
        loop {
            tokio::select! {
                verdict = &mut serve => break verdict,
                () = &mut late => break Verdict::TimedOut,
                why = &mut stopped => break Verdict::Stopped { why },
                () = LogPipe::pump(&mut stdout, &output) => {}
                () = LogPipe::pump(&mut stderr, &output) => {}
            }
        }
    };
    // The routine is done (returned, failed, stopped or out of time): a consent question it is
    // still waiting on has nobody to answer, so every window asking it closes its dialog now,
    // not at the deadline.
    for question in std::mem::take(&mut *session.questions.lock()) {
        question.abort();
    }
    // Nested runs share this run's deadline, so they end by then; waiting for them keeps the
    // promise that a nested run never outlives its caller, and lets each write its audit line.
    let nested = std::mem::take(&mut *session.nested.lock());
    for task in nested {
        let _ = tokio::time::timeout_at((deadline + EXIT_GRACE).into(), task).await;
    }
    // Whatever the routine started must not outlive the run. A runner that reported waits to be
    // killed here (it still holds the orphans it adopted); one that exited already is a zombie
    // until it is reaped, so its pid and group cannot have been reused.
    tree.kill();
    // The thread that answered the run's synchronous requests stops with the loop (or once the
    // runner's pipe closes); waiting for it closes what the run held — a `ctx.db` transaction left
    // open is rolled back, the task store given back — before the run answers. Bounded: a store
    // call still waiting on a lock finishes on its own.
    // A thread that never answered holds nothing, and the gate shut here keeps it from starting
    // an answer now: the run need not wait for it to wake up and stop (two wake-ups between
    // threads, several ms each on two busy cores).
    let sync_done = session.sync_done.lock().take();
    if let Some(done) = sync_done.filter(|_| session.sync_gate.shut()) {
        let _ = tokio::time::timeout(EXIT_GRACE, done).await;
    }
    let exit = if matches!(
        verdict,
        Verdict::Done { .. } | Verdict::Failed { .. } | Verdict::Stopped { .. }
    ) {
        // Stopped, then killed: nothing in the tree runs again. The kernel's teardown of a killed
        // runtime (Bun's takes ~2 ms) and the reap are left to a task, so the answer does not
        // wait for them; the key's spares are topped up once the process is gone.
        let ws = ws.clone();
        tokio::spawn(async move {
            let _ = child.wait().await;
            if let Ok(runtime) = ws.shared().runtime() {
                ws.shared().spares().ended(runtime, ws.root(), flight);
            }
        });
        None
    } else {
        // It ended on its own, or ran out of time: its exit status is part of the failure.
        let exit = child.wait().await.ok();
        shared.spares().ended(runtime, ws.root(), flight);
        exit
    };
    if let Some(pipe) = stdout {
        pipe.drain(&output);
    }
    if let Some(pipe) = stderr {
        pipe.drain(&output);
    }
    let log = std::mem::take(&mut *log.lock());
    let said = log.said().map(str::to_string);
    let log = Vec::from(log.lines);
    let mut finished = match verdict {
        Verdict::Done { result, unchanged, warning } => {
            Finished { outcome: Ok((result, warning.into_iter().collect())), log, unchanged }
        }
        Verdict::Failed { name, message } => failed(name, message, log),
        Verdict::TimedOut => failed(ErrorName::Timeout, limit.overrun_message(&entry.id), log),
        Verdict::Stopped { why } => failed(
            ErrorName::Stopped,
            format!("stopped by the person ({why}) before it returned a result"),
            log,
        ),
        Verdict::Exited { code } => {
            let code = code
                .or_else(|| exit.and_then(|s| s.code()))
                .map(|c| c.to_string())
                .unwrap_or_else(|| "by a signal".into());
            failed(
                ErrorName::RoutineCrashed,
                format!(
                    "the routine's process exited ({code}) before returning a result{}",
                    said.map(|last| format!(": {last}")).unwrap_or_default()
                ),
                log,
            )
        }
    };
    if let Err(failure) = &mut finished.outcome {
        failure.message = masks.apply(&failure.message);
    }
    finished
}

/// What the runner reads on its stdin once this run is given its process.
fn inputs(
    ws: &Workspace,
    entry: &RoutineEntry,
    request: &RunRequest,
    run_id: &str,
    entry_module: &std::path::Path,
    identity: &crate::account::Identity,
) -> Init {
    Init {
        entry: url::Url::from_file_path(entry_module)
            .map(String::from)
            .expect("a staged module's path is absolute"),
        file: format!("{}/{}", entry.app_dir, entry.rel_file),
        args: request.args.clone(),
        workspace_root: ws.root().to_path_buf(),
        data_dir: ws.root().join(crate::data_folder::DATA_DIR).join(&entry.app_name),
        app: AppRef { name: entry.app_name.clone(), dir: entry.app_dir.clone() },
        identity: identity.for_run(),
        auth: identity.auth_state(),
        run_id: run_id.to_string(),
        routine: entry.id.clone(),
        data_ignore: crate::data_folder::DATA_GITIGNORE,
        queue_module: ws.shared().queue_module(),
    }
}

/// How a run ended.
enum Verdict {
    Done {
        result: Value,
        unchanged: bool,
        warning: Option<String>,
    },
    Failed {
        name: ErrorName,
        message: String,
    },
    TimedOut,
    /// The person stopped it (`RunRequest::stop`), saying why.
    Stopped {
        why: String,
    },
    /// The process ended, or said it was ending (`process.exit`, with its code), with no outcome.
    Exited {
        code: Option<i32>,
    },
}

/// The daemon's half of one run's conversation.
struct Session<'a> {
    ws: &'a Arc<Workspace>,
    entry: &'a RoutineEntry,
    request: &'a RunRequest,
    output: RunLog,
    deadline: Instant,
    /// How a `ctx.routines.run` starts its run.
    start_nested: StartNested,
    /// The tasks answering this run's asynchronous requests (nested runs among them): waited for
    /// before the run ends.
    nested: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    /// The tasks waiting for the person's answer to this run's consent questions: dropped once
    /// the routine is done, which withdraws a question nobody is left to read the answer of.
    questions: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    /// Ends (its sender dropped) once the thread answering the run's synchronous requests has
    /// closed what it held ([`SyncAnswers`]).
    sync_done: Mutex<Option<oneshot::Receiver<()>>>,
    /// Whether that thread has answered anything (and so may hold something to close).
    sync_gate: Arc<SyncGate>,
}

/// Between the run and the thread answering its synchronous requests: the thread opens the gate
/// before each answer (and so before it takes a `ctx.db` connection or a task store), the run
/// shuts it once it has its verdict. Whichever comes first decides: a thread that finds the gate
/// shut answers nothing more; a run that finds it never opened knows the thread holds nothing.
#[derive(Default)]
struct SyncGate(Mutex<GateState>);

#[derive(Default)]
struct GateState {
    answered: bool,
    shut: bool,
}

impl SyncGate {
    /// Before an answer: false once the run has shut the gate (answer nothing more).
    fn open(&self) -> bool {
        let mut state = self.0.lock();
        state.answered |= !state.shut;
        !state.shut
    }

    /// Shuts the gate; true when the thread has answered something (wait for it to close it).
    fn shut(&self) -> bool {
        let mut state = self.0.lock();
        state.shut = true;
        state.answered
    }
}

/// Where an asynchronous answer goes: the writer of fd 4.
type Answers = mpsc::UnboundedSender<String>;

/// The task writing asynchronous answers on fd 4, started at the first one: most runs ask for
/// none, and a task started and aborted for nothing is two more wake-ups on their path.
struct AnswerWriter {
    pipe: Option<pipe::Sender>,
    writing: Option<(tokio::task::JoinHandle<()>, Answers)>,
}

impl AnswerWriter {
    fn answers(&mut self) -> Answers {
        let (_, answers) = self.writing.get_or_insert_with(|| {
            let mut pipe = self.pipe.take().expect("the pipe is taken once, by the writer");
            let (answers, mut lines) = mpsc::unbounded_channel::<String>();
            let task = tokio::spawn(async move {
                while let Some(line) = lines.recv().await {
                    if pipe.write_all(line.as_bytes()).await.is_err() {
                        break;
                    }
                }
            });
            (task, answers)
        });
        answers.clone()
    }
}

impl Session<'_> {
    async fn serve(&self, channels: Channels) -> Verdict {
        let Channels { requests, async_answers, sync_answers } = channels;
        let mut writer = AnswerWriter { pipe: Some(async_answers), writing: None };
        // Dropped when this loop ends or is dropped (the run ran out of time): the thread that
        // answers synchronous requests, once started, stops.
        let (_stop_sync, stop) = oneshot::channel::<()>();
        let mut for_thread = Some((sync_answers, stop));
        // Read here until the routine's first synchronous request, then by that thread: a run
        // that makes none (most) starts no thread, and its outcome wakes this task directly.
        let mut lines = Lines::Pipe(BufReader::new(requests).lines());
        let verdict = loop {
            // Every line, in the order the runner wrote them.
            let Some(line) = lines.next().await else { break Verdict::Exited { code: None } };
            let call = match line {
                Ok(Line::Call(call)) if call.sync => match self.hand_over(&mut lines, &mut for_thread, call) {
                    Ok(()) => continue,
                    Err(error) => {
                        break Verdict::Failed {
                            name: ErrorName::Unavailable,
                            message: format!(
                                "failed to start the thread that answers the run's ctx.db and ctx.queue: {error}"
                            ),
                        }
                    }
                },
                Ok(Line::Report(report)) => match report {
                    Report::Done { result, unchanged, warning } => {
                        break Verdict::Done { result, unchanged, warning }
                    }
                    Report::Fail { error } => {
                        // Bounded as a log line is: the audit record, the event and the answer
                        // all carry it.
                        let message = self.output.bounded(&error.message, error.cut);
                        break Verdict::Failed { name: error.name, message }
                    }
                    Report::Exit { code } => break Verdict::Exited { code: Some(code) },
                    Report::Log { stream, line, cut } => {
                        // `console.*` names the stream it stands for; `ctx.log` names none.
                        let stream = match stream {
                            Some(Stream::Stdout) => "stdout",
                            Some(Stream::Stderr) => "stderr",
                            None => "log",
                        };
                        self.output.line(stream, &line, cut);
                        continue;
                    }
                },
                Ok(Line::Call(call)) => call,
                Err(Malformed(what)) => {
                    break Verdict::Failed {
                        name: ErrorName::BadRequest,
                        message: format!("the routine's runner sent {what}"),
                    }
                }
            };
            let Call { id, request, .. } = call;
            let answer = match request {
                Ok(request) if request.is_sync() => Err(wrong_channel(&request)),
                Ok(request) => {
                    self.answer_async(id, request, writer.answers());
                    continue;
                }
                Err(error) => Err(error.into()),
            };
            if writer.answers().send(protocol::answer_line(id, answer)).is_err() {
                break Verdict::Exited { code: None };
            }
        };
        if let Some((task, _)) = writer.writing {
            task.abort();
        }
        verdict
    }

    /// The routine's first synchronous request: from here on a thread of the run's own reads the
    /// request pipe (with what this loop read of it and did not use), answers that request and
    /// the next synchronous ones, and passes every other line back to this loop.
    fn hand_over(
        &self,
        lines: &mut Lines,
        for_thread: &mut Option<(pipe::Sender, oneshot::Receiver<()>)>,
        first: Call,
    ) -> std::io::Result<()> {
        let (to_loop, passed) = mpsc::unbounded_channel();
        let (Lines::Pipe(pipe), Some((answers, stop))) =
            (std::mem::replace(lines, Lines::Passed(passed)), for_thread.take())
        else {
            unreachable!("the thread keeps the synchronous requests it reads")
        };
        let thread = SyncAnswers {
            ws: self.ws.clone(),
            entry: self.entry.clone(),
            masks: self.output.masks.clone(),
            databases: Databases::new(self.ws.root(), self.deadline),
            queue: None,
            gate: self.sync_gate.clone(),
        };
        let done = thread.start(pipe.into_inner(), answers, first, to_loop, stop)?;
        *self.sync_done.lock() = Some(done);
        Ok(())
    }

    /// An asynchronous request: answered on fd 4 when it is done, the loop reading on meanwhile.
    fn answer_async(&self, id: u64, request: Request, answers: Answers) {
        let now = |answer: Answer| {
            let _ = answers.send(protocol::answer_line(id, answer));
        };
        let (app, caller) = (&self.entry.app_name, self.request.caller_app.as_deref());
        match request {
            Request::RoutinesRun(args) => self.nested_run(id, args, answers),
            Request::Consent(args) => self.consent_request(id, args, answers),
            Request::CredentialToken(args) => {
                self.credential_async(id, answers, move |c| Box::pin(c.token(args.force)))
            }
            Request::CredentialAuthorize(args) => self.credential_async(id, answers, move |c| {
                Box::pin(async move { c.authorize(&args.url, args.force).await })
            }),
            Request::CredentialStart(_) => {
                self.credential_async(id, answers, |c| Box::pin(c.start()))
            }
            Request::CredentialDisconnect(_) => {
                self.credential_async(id, answers, |c| Box::pin(c.disconnect()))
            }
            Request::Notify(notification) => now(self
                .ws
                .notify_from(app, caller, &notification, self.request.started_by_notification())
                .map(|delivery| Notified { delivery })
                .map_err(bad_request)
                .and_then(protocol::answer)),
            Request::Badge(args) => now(self
                .ws
                .badge(app, caller, &args.count)
                .map_err(bad_request)
                .and_then(protocol::answer)),
            Request::AuthIdToken(_) => self.id_token(id, answers),
            Request::Browser(args) => self.browser(id, args, answers),
            other => now(Err(CtxError::new(
                ErrorName::BadRequest,
                format!("ctx request \"{}\" is synchronous", other.op()),
            )
            .into())),
        }
    }

    /// The connection this routine's capability declares, as `ctx.credential` reaches it.
    fn credential(&self) -> Result<RoutineCredential, CtxError> {
        RoutineCredential::of(self.ws, self.entry, self.output.masks.clone())
    }

    /// `credential.token/authorize/start/disconnect`: answered off the request loop (a refresh or
    /// a revocation talks to the provider).
    fn credential_async(
        &self,
        id: u64,
        answers: Answers,
        ask: impl FnOnce(RoutineCredential) -> routine_credential::Pending + Send + 'static,
    ) {
        let credential = match self.credential() {
            Ok(credential) => credential,
            Err(error) => {
                let _ = answers.send(protocol::answer_line(id, Err(error.into())));
                return;
            }
        };
        let task = tokio::spawn(async move {
            let answer = ask(credential).await;
            let _ = answers.send(protocol::answer_line(id, answer));
        });
        self.nested.lock().push(task);
    }

    /// `ctx.auth.getIdToken()`: asked of the host's account (which may reach the hub), answered
    /// when it comes; the token is masked in the run's log like a secret it read.
    fn id_token(&self, id: u64, answers: Answers) {
        let account = self.ws.shared().account();
        let masks = self.output.masks.clone();
        let task = tokio::spawn(async move {
            let answer = match account.id_token().await {
                Ok(token) => {
                    if let Some(token) = &token {
                        masks.add(token);
                    }
                    protocol::answer(token)
                }
                Err(error) => Err(error.into()),
            };
            let _ = answers.send(protocol::answer_line(id, answer));
        });
        self.nested.lock().push(task);
    }

    /// `ctx.browser.<action>`: refused at once unless the app declares `"requires": ["desktop"]`,
    /// else handed to the host (the daemon, which asks consent and forwards it to the shell) with
    /// a budget that never outlives the run, and answered when the shell has acted.
    fn browser(&self, id: u64, args: BrowserArgs, answers: Answers) {
        let registry = self.ws.registry();
        let app = registry.app_by_name(&self.entry.app_name);
        let declared = app.as_ref().is_some_and(|app| {
            app.manifest.requires.contains(&cowork_core::manifest::Requirement::Desktop)
        });
        if !declared {
            let error = crate::browser::not_declared(&self.entry.app_name);
            let _ = answers.send(protocol::answer_line(id, Err(error.into())));
            return;
        }
        let title = app.map_or_else(|| self.entry.app_name.clone(), |a| a.manifest.title.clone());
        let asked = args.timeout_ms.unwrap_or(cowork_wire::browser::DEFAULT_TIMEOUT_MS);
        let left = self.deadline.saturating_duration_since(Instant::now()).as_millis() as u64;
        let call = crate::browser::BrowserCall {
            workspace: self.ws.display(),
            driver: cowork_wire::browser::Driver::App {
                workspace: self.ws.display(),
                app: self.entry.app_name.clone(),
                title,
            },
            target: args.target,
            timeout_ms: asked.min(cowork_wire::browser::MAX_TIMEOUT_MS).min(left),
            session: Some(self.output.run_id.clone()),
            action: args.action,
        };
        let pending = self.ws.shared().browser().drive(call);
        let task = tokio::spawn(async move {
            let answer = match pending.await {
                Ok(result) => protocol::answer(result),
                Err(error) => Err(crate::browser::ctx_error(error).into()),
            };
            let _ = answers.send(protocol::answer_line(id, answer));
        });
        self.nested.lock().push(task);
    }

    /// `ctx.routines.run`: a nested run under this one's chain and deadline, answered when it ends.
    fn nested_run(&self, id: u64, args: RoutinesRunArgs, answers: Answers) {
        let (routine, args, timeout_ms) =
            match args.checked(crate::request::MAX_TIMEOUT.as_millis() as u64) {
                Ok(parts) => parts,
                Err(error) => {
                    let _ = answers.send(protocol::answer_line(id, Err(error.into())));
                    return;
                }
            };
        let nested = self.request.nested(
            self.entry,
            routine,
            args,
            timeout_ms,
            self.deadline,
            self.output.masks.clone(),
        );
        let start = self.start_nested.clone();
        let task = tokio::spawn(async move {
            let result = start(nested).await.map(|ok| ok.result).map_err(AnswerError::from);
            let _ = answers.send(protocol::answer_line(id, result));
        });
        self.nested.lock().push(task);
    }

    /// `ctx.consent.request` / `ctx.command.run`: approved ahead of time, asked in a window, or —
    /// with no window to ask — refused at once with the line that approves it (logged too).
    fn consent_request(&self, id: u64, args: ConsentArgs, answers: Answers) {
        let value = match self.consent_value(&args) {
            Ok(value) => value,
            Err(message) => {
                let error = CtxError::new(ErrorName::BadRequest, message);
                let _ = answers.send(protocol::answer_line(id, Err(error.into())));
                return;
            }
        };
        // The window shows the question, and the desktop shell may log it: never a secret in it.
        let masked = |text: &Option<String>| text.as_deref().map(|t| self.output.masks.apply(t));
        let question = Question {
            app: self.entry.app_name.clone(),
            routine: Some(self.entry.id.clone()),
            value: value.clone(),
            title: masked(&args.title),
            description: masked(&args.description),
            command: masked(&args.command),
        };
        let (ws, output, deadline) = (self.ws.clone(), self.output.clone(), self.deadline);
        let task = tokio::spawn(async move {
            let decision = ws.consent(question, deadline).await;
            if let Some(line) = &decision.allow_line {
                output.line("log", &format!("consent needed for \"{value}\": {line}"), 0);
            }
            let _ = answers.send(protocol::answer_line(id, protocol::answer(decision.reply)));
        });
        self.questions.lock().push(task);
    }

    /// The value an approval is remembered under: `options.value`, else the command itself (the
    /// runner sends the command as the value then). It is stored in the clear and pasted into a
    /// shell, so it holds no secret the run read and is one line.
    fn consent_value(&self, args: &ConsentArgs) -> Result<String, String> {
        let Some(value) =
            args.value.as_deref().or(args.command.as_deref()).filter(|v| !v.trim().is_empty())
        else {
            return Err(
                "consent needs a `value`: the stable label the approval is remembered under".into(),
            );
        };
        let is_the_command = args.command.as_deref() == Some(value);
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

/// What answers a run's synchronous requests (`ctx.db`, `ctx.queue`, `ctx.journal.add`,
/// `ctx.secrets`, `ctx.credential.fields/status`), on a thread of the run's own: the routine is
/// blocked until it has its answer, so the request is read, answered and written back there, with
/// no hop through the daemon's scheduler (a routine's one-call-at-a-time `ctx.queue` spent most of
/// its time in those hops: BENCHMARKS.md, "Task queue"). It holds the run's `ctx.db` connections
/// and its task store (taken from the workspace's pool at the first `ctx.queue` call) until the
/// run ends, then closes or gives them back.
struct SyncAnswers {
    ws: Arc<Workspace>,
    entry: RoutineEntry,
    masks: Arc<Masks>,
    databases: Databases,
    queue: Option<cowork_queue::Pooled>,
    gate: Arc<SyncGate>,
}

/// A synchronous request's answer: a task store's typed (serialized straight to text), any
/// other's as a JSON value.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Reply {
    Queue(Box<cowork_queue::Answer>),
    Value(Value),
}

/// What the request thread passes on to the run's loop: every line but a synchronous request.
type Passed = Result<Line, Malformed>;

/// Where the run's loop reads the runner's lines: the request pipe itself until the first
/// synchronous request, then what the thread answering those passes on.
enum Lines {
    Pipe(tokio::io::Lines<BufReader<pipe::Receiver>>),
    Passed(mpsc::UnboundedReceiver<Passed>),
}

impl Lines {
    /// The next line; `None` once the pipe has ended (or cannot be read), or the thread is gone.
    async fn next(&mut self) -> Option<Passed> {
        match self {
            Lines::Pipe(lines) => {
                lines.next_line().await.ok().flatten().map(|l| protocol::decode(&l))
            }
            Lines::Passed(passed) => passed.recv().await,
        }
    }
}

impl SyncAnswers {
    /// Starts the thread on the run's request pipe (fd 3: `requests`, with what the loop read
    /// of it and did not use) and synchronous answer pipe (fd 5), to answer `first` and every
    /// synchronous request after it. It passes every other line to `to_loop`, and ends when
    /// `stop` ends (the loop is over), the runner's pipe closes, or the loop is gone; the answer
    /// is signalled once it has ended.
    fn start(
        self,
        requests: BufReader<pipe::Receiver>,
        answers: pipe::Sender,
        first: Call,
        to_loop: mpsc::UnboundedSender<Passed>,
        stop: oneshot::Receiver<()>,
    ) -> std::io::Result<oneshot::Receiver<()>> {
        // Its own reactor: a line that arrives wakes this thread, and only it.
        let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build()?;
        let read = requests.buffer().to_vec();
        let (requests, answers) =
            (requests.into_inner().into_nonblocking_fd()?, answers.into_nonblocking_fd()?);
        let (done, ended) = oneshot::channel::<()>();
        std::thread::Builder::new().name("cowork-run-sync".into()).spawn(move || {
            let pipes = (read, requests, answers);
            runtime.block_on(self.serve(pipes, first, to_loop, stop));
            // After `self` (and what it held) is dropped at the end of `serve`.
            drop(done);
        })?;
        Ok(ended)
    }

    async fn serve(
        mut self,
        (read, requests, answers): (Vec<u8>, OwnedFd, OwnedFd),
        first: Call,
        to_loop: mpsc::UnboundedSender<Passed>,
        mut stop: oneshot::Receiver<()>,
    ) {
        let (Ok(requests), Ok(mut answers)) =
            (pipe::Receiver::from_owned_fd(requests), pipe::Sender::from_owned_fd(answers))
        else {
            return; // the loop sees the run's lines end
        };
        let unread = std::io::Cursor::new(read);
        let mut lines = BufReader::new(tokio::io::AsyncReadExt::chain(unread, requests)).lines();
        let mut next = Some(first);
        loop {
            let call = match next.take() {
                Some(call) => call,
                None => {
                    let line = tokio::select! {
                        line = lines.next_line() => line,
                        _ = &mut stop => return,
                    };
                    let Ok(Some(line)) = line else { return };
                    match protocol::decode(&line) {
                        Ok(Line::Call(call)) if call.sync => call,
                        other => match to_loop.send(other) {
                            Ok(()) => continue,
                            Err(_) => return,
                        },
                    }
                }
            };
            if !self.gate.open() {
                return; // the run has its verdict and did not wait for this thread
            }
            let answer = match call.request {
                Ok(request) if !request.is_sync() => Err(wrong_channel(&request)),
                Ok(request) => self.answer(request),
                Err(error) => Err(error.into()),
            };
            let line = protocol::typed_answer_line(call.id, answer);
            let written = tokio::select! {
                written = answers.write_all(line.as_bytes()) => written.is_ok(),
                _ = &mut stop => return,
            };
            if !written {
                return; // the runner is gone: the loop sees its lines end
            }
        }
    }

    /// A synchronous request: the routine is blocked until this returns.
    fn answer(&mut self, request: Request) -> Result<Reply, AnswerError> {
        match request {
            Request::Queue(call) => self.queue_call(call).map(|a| Reply::Queue(Box::new(a))),
            Request::JournalAdd(mut entry) => {
                if entry.source.is_none() {
                    entry.source =
                        Some(format!("routine:{}/{}", self.entry.app_dir, self.entry.rel_file));
                }
                let call = cowork_queue::Call::JournalAdd { entry };
                self.queue_call(call).map(|a| Reply::Queue(Box::new(a)))
            }
            other => self.answer_value(other).map(Reply::Value),
        }
    }

    /// A synchronous request other than the task store's.
    fn answer_value(&mut self, request: Request) -> Answer {
        let databases = &mut self.databases;
        match request {
            Request::DbQuery(statement) => Ok(databases.query(&statement)?),
            Request::DbExec(statement) => protocol::answer(databases.exec(&statement)?),
            Request::DbBegin(file) => Ok(databases.begin(&file.path).map(|()| Value::Null)?),
            Request::DbCommit(file) => Ok(databases.commit(&file.path).map(|()| Value::Null)?),
            Request::DbRollback(file) => {
                Ok(databases.rollback(&file.path).map(|()| Value::Null)?)
            }
            Request::SecretsGet(SecretName { name }) => self.secret_get(&name),
            Request::SecretsList(_) => self.secret_list(),
            Request::SecretsSet(SecretValue { name, value }) => self.secret_set(&name, &value),
            Request::CredentialFields(_) => Ok(self.credential()?.fields()?),
            Request::CredentialStatus(_) => protocol::answer(self.credential()?.state()),
            other => Err(wrong_channel(&other)),
        }
    }

    /// `ctx.queue` / `ctx.journal`: one operation on the workspace's task store, which every
    /// process opens for itself (SQLite makes each operation atomic across them). The run takes a
    /// store from the workspace's pool at its first call and holds it to its end. A run given the
    /// task store's Node-API module runs `ctx.queue` in its own process and sends here only
    /// `ctx.journal.add` (queue_module.rs).
    fn queue_call(
        &mut self,
        call: cowork_queue::Call,
    ) -> Result<cowork_queue::Answer, AnswerError> {
        let named = |e: cowork_queue::QueueError| CtxError::new(e.name(), e.to_string());
        let store = match &mut self.queue {
            Some(store) => store,
            None => self.queue.insert(self.ws.queues().get().map_err(named)?),
        };
        Ok(store.answer(call).map_err(named)?)
    }

    /// The connection this routine's capability declares, as `ctx.credential` reaches it.
    fn credential(&self) -> Result<RoutineCredential, CtxError> {
        RoutineCredential::of(&self.ws, &self.entry, self.masks.clone())
    }

    /// `ctx.secrets.get`, within the package's grants; a value read is masked from now on.
    fn secret_get(&self, name: &str) -> Answer {
        cowork_secrets::validate_name(name).map_err(bad_request)?;
        let access = Access::of(&self.entry);
        if !access.may_read(name) {
            return Err(CtxError::new(
                ErrorName::NotGranted,
                access.refusal(&self.entry.app_name, name),
            )
            .into());
        }
        let value = self.ws.secrets().map_err(unavailable)?.get(name).map_err(unavailable)?;
        if let Some(value) = &value {
            self.masks.add(value);
        }
        Ok(value.map(|v| Value::String(v.to_string())).unwrap_or(Value::Null))
    }

    /// `ctx.secrets.list`: the names the package may read.
    fn secret_list(&self) -> Answer {
        let access = Access::of(&self.entry);
        let names = self.ws.secrets().map_err(unavailable)?.list().map_err(unavailable)?;
        protocol::answer(names.into_iter().filter(|n| access.may_read(n)).collect::<Vec<_>>())
    }

    /// `ctx.secrets.set`, within the package's grants; the value is masked from now on.
    fn secret_set(&self, name: &str, value: &str) -> Answer {
        cowork_secrets::validate_name(name).map_err(bad_request)?;
        let access = Access::of(&self.entry);
        if !access.may_write(name) {
            return Err(CtxError::new(
                ErrorName::NotGranted,
                access.refusal(&self.entry.app_name, name),
            )
            .into());
        }
        let store = self.ws.secrets().map_err(unavailable)?;
        self.masks.add(value);
        store.set(name, value).map_err(unavailable)?;
        Ok(Value::Null)
    }
}

/// `BadRequest`: a request sent on the other channel than its kind's (a synchronous one must
/// be waited for on fd 5, an asynchronous one answered on fd 4).
fn wrong_channel(request: &Request) -> AnswerError {
    let kind = if request.is_sync() { "synchronous" } else { "asynchronous" };
    CtxError::new(ErrorName::BadRequest, format!("ctx request \"{}\" is {kind}", request.op()))
        .into()
}

/// `BadRequest` with `error`'s message.
fn bad_request(error: impl std::fmt::Display) -> AnswerError {
    CtxError::new(ErrorName::BadRequest, error.to_string()).into()
}

impl From<cowork_secrets::SecretError> for AnswerError {
    fn from(error: cowork_secrets::SecretError) -> Self {
        unavailable(error).into()
    }
}
/// Bytes of a line kept for the run's log and the Output stream. A longer line keeps its start
/// and says how much was cut (`… [412 MB cut]`), so a routine printing with no newline costs the
/// daemon this much, not what it printed; the audit record keeps at most 2,000 characters anyway.
const LINE_CAP: usize = 16 * 1024;

/// Where a run's lines go: its log (the audit tail) and the Output stream, masked first.
#[derive(Clone)]
struct RunLog {
    ws: Arc<Workspace>,
    run_id: String,
    routine: String,
    log: Arc<Mutex<LogTail>>,
    masks: Arc<Masks>,
}

impl RunLog {
    /// Logs one line, of which `cut` bytes past its end were already left out.
    fn line(&self, stream: &'static str, line: &str, cut: u64) {
        let line = self.bounded(line, cut);
        self.log.lock().push(line.clone());
        self.ws.emit(Event::Log {
            workspace: self.ws.display(),
            run_id: self.run_id.clone(),
            routine: self.routine.clone(),
            stream: stream.into(),
            line,
        });
    }

    /// `line` masked, then cut to [`LINE_CAP`] bytes, saying how much it lost. Masked before it
    /// is cut: a secret straddling the cut would no longer match and keep its first characters.
    fn bounded(&self, line: &str, cut: u64) -> String {
        let (mut kept, partial) = match cut {
            0 => (self.masks.apply(line), 0),
            _ => self.masks.apply_to_start(line),
        };
        let mut cut = cut + partial as u64;
        if kept.len() > LINE_CAP {
            let end = kept.floor_char_boundary(LINE_CAP);
            cut += (kept.len() - end) as u64;
            kept.truncate(end);
        }
        if cut > 0 {
            kept.push_str(&format!(" … [{} cut]", in_words(cut)));
        }
        kept
    }
}

/// `412 MB`, `1.5 GB`, `16 KB`, `7 bytes`.
fn in_words(bytes: u64) -> String {
    const KB: u64 = 1024;
    match bytes {
        b if b >= KB * KB * KB => format!("{:.1} GB", b as f64 / (KB * KB * KB) as f64),
        b if b >= KB * KB => format!("{} MB", b / (KB * KB)),
        b if b >= KB => format!("{} KB", b / KB),
        b => format!("{b} bytes"),
    }
}

/// The end of a run's log, which is all that is read of it: the audit record keeps its last lines
/// within [`LOG_TAIL_CHARS`] (`audit::log_tail`) and a crash names the last line that said
/// something. Older lines are dropped as new ones come, so a run that logs for hours holds a few
/// KB, not all it logged.
#[derive(Default)]
struct LogTail {
    lines: std::collections::VecDeque<String>,
    /// The characters of `lines`, each counted with its newline.
    chars: usize,
    /// The last line dropped that was not blank: the one a crash names when every line kept is.
    said: Option<String>,
}

impl LogTail {
    fn push(&mut self, line: String) {
        self.chars += line.chars().count() + 1;
        self.lines.push_back(line);
        // The record keeps a line only while the lines after it leave room for it: once they fill
        // LOG_TAIL_CHARS by themselves (with their newlines), it can never be kept.
        while let Some(first) = self.lines.front() {
            let weight = first.chars().count() + 1;
            if self.chars - weight <= LOG_TAIL_CHARS + 1 {
                break;
            }
            self.chars -= weight;
            let first = self.lines.pop_front().expect("a first line is there");
            if !first.trim().is_empty() {
                self.said = Some(first);
            }
        }
    }

    /// The last line that was not blank.
    fn said(&self) -> Option<&str> {
        self.lines
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .or(self.said.as_ref())
            .map(|l| l.as_str())
    }
}

/// A line without its `\r\n` or `\n`, as text (bytes that are not UTF-8 replaced).
fn text(line: &[u8]) -> String {
    String::from_utf8_lossy(line.strip_suffix(b"\r").unwrap_or(line)).into_owned()
}

/// The line a pipe is in the middle of: its start, up to [`LINE_CAP`] bytes, and how many bytes
/// of it came past that and were left out.
#[derive(Default)]
struct PartLine {
    start: Vec<u8>,
    cut: u64,
}

impl PartLine {
    /// Takes in `chunk`, logging each line it ends.
    fn take(&mut self, chunk: &[u8], stream: &'static str, output: &RunLog) {
        let mut rest = chunk;
        while let Some(end) = rest.iter().position(|b| *b == b'\n') {
            self.keep(&rest[..end]);
            self.end(stream, output);
            rest = &rest[end + 1..];
        }
        self.keep(rest);
    }

    fn keep(&mut self, part: &[u8]) {
        let room = LINE_CAP.saturating_sub(self.start.len()).min(part.len());
        self.start.extend_from_slice(&part[..room]);
        self.cut += (part.len() - room) as u64;
    }

    /// Logs the line read so far (the pipe's last, when it ends without a newline).
    fn end(&mut self, stream: &'static str, output: &RunLog) {
        let mut start = &self.start[..];
        if self.cut > 0 {
            // A character cut in two at the cap goes with the rest.
            if let Err(e) = std::str::from_utf8(start) {
                if e.error_len().is_none() {
                    self.cut += (start.len() - e.valid_up_to()) as u64;
                    start = &start[..e.valid_up_to()];
                }
            }
        }
        let start =
            if self.cut > 0 { String::from_utf8_lossy(start).into_owned() } else { text(start) };
        output.line(stream, &start, self.cut);
        self.start.clear();
        self.cut = 0;
    }

    fn is_empty(&self) -> bool {
        self.start.is_empty() && self.cut == 0
    }
}

/// One of a run's output pipes (its stdout or stderr), read line by line into its log. It is
/// read as fast as the routine writes, however long its lines: a pipe left full would stall it.
struct LogPipe<R> {
    reader: BufReader<R>,
    /// A second handle on the pipe, to empty it without waiting for its end (`drain`).
    pipe: Option<std::fs::File>,
    stream: &'static str,
    /// Read but not yet logged.
    line: PartLine,
    open: bool,
}

impl<R: AsyncRead + AsFd + Unpin> LogPipe<R> {
    fn new(from: R, stream: &'static str) -> Self {
        let pipe = from.as_fd().try_clone_to_owned().ok().map(std::fs::File::from);
        // As much as a pipe holds (64 KiB on Linux): a flood is read in as few wake-ups as it can.
        let reader = BufReader::with_capacity(64 * 1024, from);
        LogPipe { reader, pipe, stream, line: PartLine::default(), open: true }
    }

    /// Logs the next line(s) once they come; never ready once the pipe has ended. Cancel safe:
    /// a cancelled read has taken nothing from the reader.
    async fn pump(pipe: &mut Option<Self>, output: &RunLog) {
        let Some(pipe) = pipe.as_mut().filter(|p| p.open) else {
            return std::future::pending().await;
        };
        let read = match pipe.reader.fill_buf().await {
            Ok(chunk) if !chunk.is_empty() => {
                pipe.line.take(chunk, pipe.stream, output);
                chunk.len()
            }
            _ => {
                pipe.open = false;
                if !pipe.line.is_empty() {
                    pipe.line.end(pipe.stream, output);
                }
                0
            }
        };
        pipe.reader.consume(read);
    }

    /// Takes in what is left once the tree is killed: everything it wrote is in the reader's
    /// buffer or the pipe, whose end would come only once the kernel has torn every process in
    /// it down. The pipe is read directly (it is non-blocking: WouldBlock when empty, 0 at its
    /// end), as the reactor may not yet know it is ready.
    fn drain(mut self, output: &RunLog) {
        if !self.open {
            return;
        }
        self.line.take(self.reader.buffer(), self.stream, output);
        if let Some(pipe) = &mut self.pipe {
            let mut chunk = [0u8; 8192];
            while let Ok(n @ 1..) = pipe.read(&mut chunk) {
                self.line.take(&chunk[..n], self.stream, output);
            }
        }
        if !self.line.is_empty() {
            self.line.end(self.stream, output);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{in_words, LogTail, SyncGate};
    use cowork_core::audit::log_tail;

    #[test]
    fn the_log_kept_gives_the_record_the_tail_that_all_of_it_would() {
        // Short lines, long ones, blank ones and one longer than the whole tail, in turn.
        let widths = [1, 0, 80, 1999, 2000, 2001, 5000, 3, 0, 0, 700, 1300, 1299, 40];
        let (mut all, mut tail) = (Vec::new(), LogTail::default());
        for i in 0..400 {
            let line = format!("{i}:{}", "x".repeat(widths[i % widths.len()]));
            let line = if i % 7 == 0 { String::new() } else { line };
            all.push(line.clone());
            tail.push(line);
            let kept = Vec::from(tail.lines.clone());
            assert_eq!(log_tail(&kept), log_tail(&all), "after line {i}");
            let after_first: usize = kept.iter().skip(1).map(|l| l.chars().count() + 1).sum();
            assert!(after_first <= 2002, "{after_first} characters kept after line {i}");
        }
    }

    #[test]
    fn a_crash_names_the_last_line_that_said_something_even_past_the_tail() {
        let mut tail = LogTail::default();
        tail.push("opening the inbox".into());
        for _ in 0..3000 {
            tail.push(String::new());
        }
        assert_eq!(tail.said(), Some("opening the inbox"));
        tail.push("fetched 3".into());
        assert_eq!(tail.said(), Some("fetched 3"));
    }

    #[test]
    fn a_cut_says_how_much_in_words() {
        assert_eq!(in_words(7), "7 bytes");
        assert_eq!(in_words(16 * 1024), "16 KB");
        assert_eq!(in_words(412 * 1024 * 1024 + 5), "412 MB");
        assert_eq!(in_words(3 * 1024 * 1024 * 1024 / 2), "1.5 GB");
    }

    #[test]
    fn a_run_waits_for_its_sync_thread_only_once_that_thread_has_answered_something() {
        let idle = SyncGate::default();
        assert!(!idle.shut(), "a thread that answered nothing holds nothing: no wait");
        assert!(!idle.open(), "and it answers nothing once the run has its verdict");

        let busy = SyncGate::default();
        assert!(busy.open(), "before the verdict a request is answered");
        assert!(busy.shut(), "then the run waits for the thread to close what it took");
        assert!(!busy.open());
    }
}
