//! The workbench Chat's engine with the REAL Claude Code (tests/standin's pinned CLI) against the
//! scripted stand-in for its model API: what the person sees — streamed text, permission prompts
//! answered, questions answered, interrupts, a crash mid-turn, no CLI — and what lands on disk.
//! Needs `npm ci --prefix tests/standin` (scripts/install-deps does it).

use cowork_daemon::chat::{self, Emitted, Launch};
use cowork_daemon::{app, AppState};
use cowork_wire::chat::{
    AnswerBody, ChatEventKind, ContextItem, ConversationBody, Decision, SendBody,
};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::broadcast;

/// Generous: the CLI starts in a few seconds on an idle machine; this one is shared.
const WAIT: Duration = Duration::from_secs(120);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

struct Rig {
    state: AppState,
    workspace: PathBuf,
    events: broadcast::Receiver<Emitted>,
    standin_url: String,
    /// Held: event streams end when the daemon stops (its sender dropped).
    _stopping: tokio::sync::watch::Sender<bool>,
    _standin: tokio::process::Child,
    _dirs: Vec<tempfile::TempDir>,
}

/// A daemon on a port of its own (the door answers there), a workspace, and a stand-in playing
/// `plan`, with `claude` on the CLI's PATH being the stand-in's wrapper of the pinned CLI.
async fn rig(plan: Value) -> Rig {
    let standin_dir = repo().join("tests/standin");
    assert!(
        standin_dir.join("node_modules/@anthropic-ai/claude-code").is_dir(),
        "the pinned Claude Code is not installed: run `npm ci --prefix tests/standin`"
    );
    let home = tempfile::tempdir().unwrap();
    let workspace_dir = tempfile::tempdir().unwrap();
    let cli_home = tempfile::tempdir().unwrap();
    let workspace = workspace_dir.path().canonicalize().unwrap();
    std::fs::create_dir(workspace.join(".cowork")).unwrap();

    let mut standin = tokio::process::Command::new("node")
        .arg(standin_dir.join("standin.mjs"))
        .args(["-", "--quiet"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("node runs the stand-in");
    let mut stdin = standin.stdin.take().unwrap();
    stdin.write_all(plan.to_string().as_bytes()).await.unwrap();
    drop(stdin);
    let mut out = BufReader::new(standin.stdout.take().unwrap()).lines();
    let standin_url = out.next_line().await.unwrap().expect("the stand-in says its URL");

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let root = cowork_core::paths::Root::new(home.path());
    let (stopping_tx, stopping) = tokio::sync::watch::channel(false);
    let engine = cowork_engine::Engine::new(
        root.clone(),
        cowork_engine::EngineConfig { watch: false, ..Default::default() },
    );
    let state = AppState {
        engine,
        token: "owner-token".into(),
        port,
        started: std::time::Instant::now(),
        shutdown: Default::default(),
        panes: Default::default(),
        default_workspace: None,
        stopping,
        desktop: Default::default(),
        codes: Default::default(),
        mcp: Default::default(),
        door: Default::default(),
        account: cowork_daemon::account::AccountHost::new(&root),
        chat: Default::default(),
    };
    state.engine.set_account(state.account.clone());
    tokio::spawn(std::future::IntoFuture::into_future(axum::serve(listener, app(state.clone()))));

    let path = std::env::join_paths(
        std::iter::once(standin_dir.join("bin"))
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    state.chat.set_launch(Launch {
        path: Some(path),
        env: vec![
            ("STANDIN_URL".into(), standin_url.clone().into()),
            ("STANDIN_HOME".into(), cli_home.path().into()),
        ],
    });
    let events = state.chat.subscribe();
    Rig {
        state,
        workspace,
        events,
        standin_url,
        _stopping: stopping_tx,
        _standin: standin,
        _dirs: vec![home, workspace_dir, cli_home],
    }
}

impl Rig {
    fn body(&self, conversation: Option<&str>, text: &str) -> SendBody {
        SendBody {
            workspace: self.workspace.clone(),
            conversation: conversation.map(str::to_string),
            text: text.into(),
            context: vec![],
            model: None,
            effort: None,
            cli: None,
        }
    }

    async fn send(&self, conversation: Option<&str>, text: &str) -> String {
        let body = self.body(conversation, text);
        match chat::send(&self.state, body).await {
            Ok(sent) => sent.conversation,
            Err(error) => panic!("send failed: {:?}", error.name_and_message()),
        }
    }

    /// The next event `pick` takes, every event before it returned too.
    async fn until<T>(
        &mut self,
        mut pick: impl FnMut(&ChatEventKind) -> Option<T>,
    ) -> (T, Vec<ChatEventKind>) {
        let mut seen = Vec::new();
        let found = tokio::time::timeout(WAIT, async {
            loop {
                let emitted = self.events.recv().await.expect("the chat's events go on");
                let kind = emitted.event.kind;
                if let ChatEventKind::Error { .. } = &kind {
                    if pick(&kind).is_none() {
                        panic!("the chat failed: {kind:?} (before: {seen:?})");
                    }
                }
                if let Some(found) = pick(&kind) {
                    return found;
                }
                seen.push(kind);
            }
        })
        .await;
        match found {
            Ok(found) => (found, seen),
            Err(_) => panic!("no such event within {WAIT:?}; saw {seen:?}"),
        }
    }

    async fn turn_end(&mut self) -> (ChatEventKind, Vec<ChatEventKind>) {
        self.until(|k| matches!(k, ChatEventKind::TurnEnd { .. }).then(|| k.clone())).await
    }

    async fn answer(
        &self,
        conversation: &str,
        id: &str,
        decision: Option<Decision>,
        answers: Option<Value>,
    ) {
        let body = AnswerBody {
            workspace: self.workspace.clone(),
            conversation: conversation.into(),
            id: id.into(),
            decision,
            answers: answers.map(|a| serde_json::from_value(a).unwrap()),
        };
        chat::answer(&self.state, body).await.unwrap();
    }

    /// The stand-in's checks all held and its plan was played to the end.
    async fn standin_done(&self) {
        let url = format!("{}/_standin/requests", self.standin_url);
        let answer: Value = reqwest::get(url).await.unwrap().json().await.unwrap();
        assert_eq!(answer["failures"], json!([]), "the stand-in's checks");
        assert_eq!(answer["turnsLeft"], json!(0), "turns the agent never asked for");
    }

    fn transcript(&self, conversation: &str) -> Vec<ChatEventKind> {
        chat::transcript(&self.state, &self.workspace, conversation)
            .unwrap()
            .into_iter()
            .map(|e| e.kind)
            .collect()
    }
}

fn streamed(events: &[ChatEventKind]) -> String {
    events
        .iter()
        .filter_map(|k| match k {
            ChatEventKind::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_answer_streams_and_is_kept() {
    let mut rig = rig(json!({ "turns": [{ "text": ["Hello ", "from ", "the stand-in."] }] })).await;
    let id = rig.send(None, "say hello").await;
    let (end, before) = rig.turn_end().await;
    assert!(
        before.iter().filter(|k| matches!(k, ChatEventKind::Text { .. })).count() >= 2,
        "text arrives in pieces as it is written: {before:?}"
    );
    assert_eq!(streamed(&before), "Hello from the stand-in.");
    assert!(
        matches!(end, ChatEventKind::TurnEnd { is_error: false, interrupted: false, ref result } if result.as_deref() == Some("Hello from the stand-in."))
    );
    rig.standin_done().await;

    // Kept: listed with its first words as title, and its transcript has the text joined.
    let list = chat::list(&rig.state, &rig.workspace);
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].title, "say hello");
    assert!(list[0].session.is_some(), "the CLI's session id is kept for --resume");
    let transcript = rig.transcript(&id);
    assert!(matches!(&transcript[0], ChatEventKind::User { text, .. } if text == "say hello"));
    assert!(transcript.contains(&ChatEventKind::Text { text: "Hello from the stand-in.".into() }));
    assert!(matches!(transcript.last(), Some(ChatEventKind::TurnEnd { .. })));
}

/// A Bash call that writes `made.txt`, then the agent's closing words.
fn make_a_file() -> Value {
    json!({ "turns": [
        { "tool": { "name": "Bash", "input": { "command": "echo made $COWORK_AGENT > made.txt", "description": "Make a file" } } },
        { "text": "Finished." }
    ] })
}

async fn permission(rig: &mut Rig) -> String {
    let (id, _) = rig
        .until(|k| match k {
            ChatEventKind::Permission { id, tool, .. } if tool == "Bash" => Some(id.clone()),
            _ => None,
        })
        .await;
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_asks_permission_and_allow_runs_it() {
    let mut rig = rig(make_a_file()).await;
    let conversation = rig.send(None, "make a file").await;
    let prompt = permission(&mut rig).await;
    assert!(!rig.workspace.join("made.txt").exists(), "nothing runs before the person answers");
    rig.answer(&conversation, &prompt, Some(Decision::Allow), None).await;
    let (_, events) = rig.turn_end().await;
    assert!(
        events.iter().any(|k| matches!(k, ChatEventKind::ToolResult { is_error: false, .. })),
        "{events:?}"
    );
    assert_eq!(
        std::fs::read_to_string(rig.workspace.join("made.txt")).unwrap(),
        "made claude-code\n",
        "the CLI runs with COWORK_AGENT (audited as its agent)"
    );
    rig.standin_done().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_tool_call_does_not_run() {
    let mut rig = rig(make_a_file()).await;
    let conversation = rig.send(None, "make a file").await;
    let prompt = permission(&mut rig).await;
    rig.answer(&conversation, &prompt, Some(Decision::Deny), None).await;
    let (_, events) = rig.turn_end().await;
    assert!(
        events.iter().any(|k| matches!(k, ChatEventKind::ToolResult { is_error: true, .. })),
        "{events:?}"
    );
    assert!(!rig.workspace.join("made.txt").exists());
    rig.standin_done().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_is_answered_in_the_chat() {
    let mut rig = rig(json!({ "turns": [
        { "ask": { "question": "Which colour?", "options": ["Blue", "Red"] } },
        { "expect": { "toolResult": "Blue" }, "text": "Blue it is." }
    ] }))
    .await;
    let conversation = rig.send(None, "pick a colour").await;
    let ((id, questions), _) = rig
        .until(|k| match k {
            ChatEventKind::Question { id, questions } => Some((id.clone(), questions.clone())),
            _ => None,
        })
        .await;
    assert_eq!(questions[0].question, "Which colour?");
    assert_eq!(
        questions[0].options.iter().map(|o| o.label.as_str()).collect::<Vec<_>>(),
        ["Blue", "Red"]
    );
    rig.answer(&conversation, &id, None, Some(json!({ "Which colour?": "Blue" }))).await;
    let (end, _) = rig.turn_end().await;
    assert!(
        matches!(end, ChatEventKind::TurnEnd { ref result, .. } if result.as_deref() == Some("Blue it is."))
    );
    rig.standin_done().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_stops_a_turn_and_the_conversation_goes_on() {
    let mut rig =
        rig(json!({ "turns": [{ "text": "Working on it", "hang": true }, "Second answer."] }))
            .await;
    let conversation = rig.send(None, "start something long").await;
    rig.until(|k| matches!(k, ChatEventKind::Text { .. }).then_some(())).await;
    let body =
        ConversationBody { workspace: rig.workspace.clone(), conversation: conversation.clone() };
    assert!(chat::interrupt(&rig.state, body).await.unwrap(), "a turn was running");
    let (end, _) = rig.turn_end().await;
    assert!(matches!(end, ChatEventKind::TurnEnd { interrupted: true, .. }), "{end:?}");
    rig.send(Some(&conversation), "and now?").await;
    let (end, _) = rig.turn_end().await;
    assert!(
        matches!(end, ChatEventKind::TurnEnd { ref result, .. } if result.as_deref() == Some("Second answer."))
    );
    rig.standin_done().await;
}

/// The CLI (`cli`, none: Claude Code) killed mid-turn: `AgentCrashed` naming it (`name`), the
/// transcript so far kept.
async fn killed_mid_turn(cli: Option<&str>, name: &str) {
    let mut rig = rig(json!({ "turns": [{ "text": "Half an answer", "hang": true }] })).await;
    let mut body = rig.body(None, "start something long");
    body.cli = cli.map(str::to_string);
    let conversation = chat::send(&rig.state, body).await.unwrap().conversation;
    rig.until(|k| matches!(k, ChatEventKind::Text { .. }).then_some(())).await;
    let pid = rig.state.chat.cli_pid(&conversation).expect("the CLI runs");
    let killed =
        std::process::Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap();
    assert!(killed.success());
    let ((error, message), _) = rig
        .until(|k| match k {
            ChatEventKind::Error { name, message, .. } => Some((name.clone(), message.clone())),
            _ => None,
        })
        .await;
    assert_eq!(error, "AgentCrashed");
    let said = format!("failed to finish the turn: {name} exited mid-turn");
    assert!(message.starts_with(&said), "{message}");
    let transcript = rig.transcript(&conversation);
    // (Codex's thread opens before the message goes: its `session` event comes first.)
    assert!(transcript
        .iter()
        .any(|k| matches!(k, ChatEventKind::User { text, .. } if text == "start something long")));
    assert!(streamed(&transcript).starts_with("Half"), "{transcript:?}");
    assert!(
        matches!(transcript.last(), Some(ChatEventKind::Error { name, .. }) if name == "AgentCrashed")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_killed_mid_turn_is_a_named_error_and_the_transcript_stays() {
    killed_mid_turn(None, "Claude Code").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_cli_is_a_named_error_saying_what_to_install() {
    let rig = rig(json!({ "turns": [] })).await;
    let empty = tempfile::tempdir().unwrap();
    rig.state.chat.set_launch(Launch { path: Some(empty.path().into()), ..Default::default() });
    let body = rig.body(None, "hello");
    let error = chat::send(&rig.state, body).await.unwrap_err();
    let (name, message) = error.name_and_message();
    assert_eq!(name.to_string(), "AgentCliMissing");
    assert!(message.contains("Claude Code (`claude`) is not on the PATH"), "{message}");
    assert!(chat::list(&rig.state, &rig.workspace).is_empty(), "no conversation is left behind");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_door_is_pre_wired_with_the_chats_own_login() {
    let mut rig = rig(json!({ "turns": [
        { "expect": { "toolOffered": "mcp__cowork__list_capabilities" },
          "tool": { "name": "mcp__cowork__list_capabilities", "input": {} } },
        { "expect": { "toolResultError": false }, "text": "Listed." }
    ] }))
    .await;
    rig.send(None, "what can you do here?").await;
    let (_, events) = rig.turn_end().await;
    assert!(
        !events.iter().any(|k| matches!(k, ChatEventKind::Permission { .. })),
        "listing is pre-approved (grants decide at the door): {events:?}"
    );
    rig.standin_done().await;
    let root = rig.state.engine.root();
    let login = cowork_core::agents::Logins::new(root).get(chat::LOGIN).unwrap();
    assert!(login.last_seen.is_some(), "the CLI opened the door with the chat login");
    assert!(login.serves(&rig.workspace));
    let token = std::fs::read_to_string(root.dir().join("chat/agent.token")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(root.dir().join("chat/agent.token")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the token file is the owner's only");
    assert!(token.starts_with("cwa_"), "a door token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chats_calls_through_the_door_are_recorded_under_its_conversation() {
    let mut rig = rig(json!({ "turns": [
        { "expect": { "toolOffered": "mcp__cowork__read" },
          "tool": { "name": "mcp__cowork__read", "input": { "capability": "tasks", "tool": "tasks-list" } } },
        { "expect": { "toolResultError": false }, "text": "Read." }
    ] }))
    .await;
    let app = rig.workspace.join(".cowork/apps/tasks");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("cowork.json"),
        r#"{ "name": "tasks", "version": "1.0.0", "kind": "capability", "routines": { "tasks-list": { "file": "list.ts", "readOnly": true, "description": "Lists the tasks" } } }"#,
    )
    .unwrap();
    std::fs::write(app.join("list.ts"), "export default () => ({ tasks: ['ship'] });\n").unwrap();
    let conversation = rig.send(None, "what is there to do?").await;
    let (_, events) = rig.turn_end().await;
    assert!(
        events.iter().any(|k| matches!(k, ChatEventKind::ToolResult { is_error: false, .. })),
        "{events:?}"
    );
    rig.standin_done().await;
    let audit =
        cowork_core::audit::AuditLog::new(rig.state.engine.root().audit_dir(&rig.workspace));
    let line = audit.records().unwrap().into_iter().find(|r| r.capability == "tasks-list");
    let context = line.expect("the read is audited").context;
    assert_eq!(context.principal.as_deref(), Some(chat::LOGIN));
    assert_eq!(
        context.task_id.as_deref(),
        Some(conversation.as_str()),
        "Executions shows the conversation as the task"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_listed_earlier_resumes_its_session() {
    let mut rig = rig(json!({ "turns": [
        "First answer.",
        { "expect": { "contains": "First answer." }, "text": "I remember." }
    ] }))
    .await;
    let id = rig.send(None, "hello").await;
    rig.turn_end().await;
    // The daemon forgets the live session (as after a restart): the next message resumes it.
    let pid = rig.state.chat.cli_pid(&id).unwrap();
    std::process::Command::new("kill").arg(pid.to_string()).status().unwrap();
    // Until the process itself is gone, not only the daemon's handle of it: the resume is a new
    // Codex on the same thread files, as after a restart.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while rig.state.chat.cli_pid(&id).is_some() || running(pid) {
        assert!(std::time::Instant::now() < deadline, "Codex (pid {pid}) did not exit");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    rig.send(Some(&id), "do you remember?").await;
    let (end, _) = rig.turn_end().await;
    assert!(
        matches!(end, ChatEventKind::TurnEnd { ref result, .. } if result.as_deref() == Some("I remember."))
    );
    rig.standin_done().await;
}

/// The routes, through the router and its owner gate: the events stream, a send, the list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_routes_stream_a_conversation() {
    use axum::body::Body;
    use axum::http::Request;
    use futures_util::StreamExt;
    use tower::ServiceExt;
    let rig = rig(json!({ "turns": ["Over the wire."] })).await;
    let host = format!("127.0.0.1:{}", rig.state.port);
    let ws = rig.workspace.display().to_string();
    let request = |method: &str, uri: String, body: Option<Value>, token: bool| {
        let mut r = Request::builder().method(method).uri(uri).header("host", &host);
        if token {
            r = r.header("authorization", "Bearer owner-token");
        }
        match body {
            Some(body) => {
                r.header("content-type", "application/json").body(Body::from(body.to_string()))
            }
            None => r.body(Body::empty()),
        }
        .unwrap()
    };
    let encoded: String = url_encode(&ws);
    let refused = app(rig.state.clone())
        .oneshot(request("GET", format!("/api/chat?workspace={encoded}"), None, false))
        .await
        .unwrap();
    assert_eq!(refused.status(), 401, "the owner's routes need the owner token");

    let events = app(rig.state.clone())
        .oneshot(request("GET", format!("/api/chat/events?workspace={encoded}"), None, true))
        .await
        .unwrap();
    assert_eq!(events.status(), 200);
    let mut stream = events.into_body().into_data_stream();
    let sent = app(rig.state.clone())
        .oneshot(request(
            "POST",
            "/api/chat/send".into(),
            Some(json!({ "workspace": ws, "text": "hi" })),
            true,
        ))
        .await
        .unwrap();
    assert_eq!(sent.status(), 200);
    let mut seen = String::new();
    tokio::time::timeout(WAIT, async {
        while !seen.contains("\"type\":\"turnEnd\"") {
            let chunk = stream.next().await.expect("the stream goes on").unwrap();
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no turnEnd; saw {seen}"));
    assert!(seen.contains("\"type\":\"user\""), "{seen}");
    assert!(seen.contains("\"result\":\"Over the wire.\""), "{seen}");

    let list = app(rig.state.clone())
        .oneshot(request("GET", format!("/api/chat?workspace={encoded}"), None, true))
        .await
        .unwrap();
    let bytes = axum::body::to_bytes(list.into_body(), 1 << 20).await.unwrap();
    let list: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(list["conversations"][0]["title"], "hi");
}

fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            true => (b as char).to_string(),
            false => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_context_and_settings_reach_the_cli() {
    let mut rig = rig(json!({ "turns": [
        { "expect": { "userText": ["Quarterly numbers", "summarise this"], "contains": "\"model\":\"claude-sonnet-4-5\"" },
          "text": "Seen." }
    ] }))
    .await;
    let mut body = rig.body(None, "summarise this");
    body.context = vec![ContextItem {
        kind: "selection".into(),
        app: Some("mail".into()),
        text: "Quarterly numbers".into(),
    }];
    body.model = Some("claude-sonnet-4-5".into());
    body.effort = Some("high".into());
    let id = chat::send(&rig.state, body).await.unwrap().conversation;
    let (end, _) = rig.turn_end().await;
    assert!(matches!(end, ChatEventKind::TurnEnd { is_error: false, .. }), "{end:?}");
    rig.standin_done().await;
    let first = &rig.transcript(&id)[0];
    assert!(
        matches!(first, ChatEventKind::User { context, .. } if context[0].text == "Quarterly numbers"),
        "the transcript keeps the context as chips: {first:?}"
    );
    let listed = &chat::list(&rig.state, &rig.workspace)[0];
    assert_eq!(
        (listed.model.as_deref(), listed.effort.as_deref()),
        (Some("claude-sonnet-4-5"), Some("high"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_allows_that_tool_for_the_rest_of_the_session() {
    let mut rig = rig(json!({ "turns": [
        { "tool": { "name": "Bash", "input": { "command": "echo a > a.txt", "description": "First file" } } },
        { "tool": { "name": "Bash", "input": { "command": "echo b > b.txt", "description": "Second file" } } },
        { "text": "Both made." }
    ] }))
    .await;
    let conversation = rig.send(None, "make two files").await;
    let prompt = permission(&mut rig).await;
    rig.answer(&conversation, &prompt, Some(Decision::Always), None).await;
    let (_, events) = rig.turn_end().await;
    assert!(
        !events.iter().any(|k| matches!(k, ChatEventKind::Permission { .. })),
        "the second Bash call is not asked: {events:?}"
    );
    assert!(rig.workspace.join("a.txt").exists() && rig.workspace.join("b.txt").exists());
    rig.standin_done().await;
}

// Codex, the Chat's other choice: the real `codex app-server` (tests/standin's pinned CLI)
// against the stand-in's Responses API.

impl Rig {
    async fn send_codex(&self, conversation: Option<&str>, text: &str) -> String {
        let mut body = self.body(conversation, text);
        body.cli = Some("codex".into());
        match chat::send(&self.state, body).await {
            Ok(sent) => sent.conversation,
            Err(error) => panic!("send failed: {:?}", error.name_and_message()),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_streams_a_plain_answer_and_is_remembered_as_the_choice() {
    let mut rig = rig(json!({ "turns": [{ "text": ["Hello ", "from ", "Codex."] }] })).await;
    assert_eq!(chat::choice(&rig.state, &rig.workspace), chat::Cli::ClaudeCode, "the default");
    let id = rig.send_codex(None, "say hello").await;
    let (end, before) = rig.turn_end().await;
    assert!(
        before.iter().filter(|k| matches!(k, ChatEventKind::Text { .. })).count() >= 2,
        "text arrives in pieces as it is written: {before:?}"
    );
    assert_eq!(streamed(&before), "Hello from Codex.");
    assert!(
        matches!(end, ChatEventKind::TurnEnd { is_error: false, interrupted: false, ref result } if result.as_deref() == Some("Hello from Codex.")),
        "{end:?}"
    );
    rig.standin_done().await;
    assert_eq!(chat::choice(&rig.state, &rig.workspace), chat::Cli::Codex, "remembered");
    let list = chat::list(&rig.state, &rig.workspace);
    assert_eq!((list[0].cli.as_str(), list[0].title.as_str()), ("codex", "say hello"));
    assert!(list[0].session.is_some(), "Codex's thread id is kept to resume");
    let transcript = rig.transcript(&id);
    assert!(transcript.contains(&ChatEventKind::Text { text: "Hello from Codex.".into() }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_calls_the_door_with_the_chats_own_login() {
    let mut rig = rig(json!({ "turns": [
        { "expect": { "toolOffered": "mcp__cowork__list_capabilities" },
          "tool": { "name": "mcp__cowork__list_capabilities", "input": {} } },
        { "text": "Listed." }
    ] }))
    .await;
    rig.send_codex(None, "what can you do here?").await;
    let (end, events) = rig.turn_end().await;
    assert!(
        events.iter().any(|k| matches!(k, ChatEventKind::ToolCall { name, .. } if name == "mcp__cowork__list_capabilities")),
        "the call is shown as it runs: {events:?}"
    );
    assert!(
        events.iter().any(|k| matches!(k, ChatEventKind::ToolResult { is_error: false, .. })),
        "its result is folded in: {events:?}"
    );
    assert!(matches!(end, ChatEventKind::TurnEnd { is_error: false, .. }), "{end:?}");
    rig.standin_done().await;
    let login = cowork_core::agents::Logins::new(rig.state.engine.root()).get(chat::LOGIN).unwrap();
    assert!(login.last_seen.is_some(), "Codex opened the door with the chat login");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_killed_mid_turn_is_a_named_error_and_the_transcript_stays() {
    killed_mid_turn(Some("codex"), "Codex").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_interrupted_and_resumed_goes_on_with_its_thread() {
    let mut rig = rig(json!({ "turns": [
        { "text": "Working on it", "hang": true },
        { "expect": { "contains": "Working on it" }, "text": "I remember." }
    ] }))
    .await;
    let id = rig.send_codex(None, "start something long").await;
    rig.until(|k| matches!(k, ChatEventKind::Text { .. }).then_some(())).await;
    // Codex records the answer so far in its thread when it has the whole message item, which may
    // come after the text is shown: interrupted before that, its thread never holds the text (2
    // runs in 12 did so). The interrupt waits until the thread holds it.
    let sessions = rig._dirs[2].path().join(".codex/sessions");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !holds(&sessions, "Working on it") {
        assert!(
            std::time::Instant::now() < deadline,
            "Codex's thread never held the answer so far"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let body = ConversationBody { workspace: rig.workspace.clone(), conversation: id.clone() };
    assert!(chat::interrupt(&rig.state, body).await.unwrap(), "a turn was running");
    let (end, _) = rig.turn_end().await;
    assert!(matches!(end, ChatEventKind::TurnEnd { interrupted: true, .. }), "{end:?}");
    // The daemon forgets the live process (as after a restart): the next message resumes the thread.
    let pid = rig.state.chat.cli_pid(&id).unwrap();
    std::process::Command::new("kill").arg(pid.to_string()).status().unwrap();
    // Until the process itself is gone, not only the daemon's handle of it: the resume is a new
    // Codex on the same thread files, as after a restart.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while rig.state.chat.cli_pid(&id).is_some() || running(pid) {
        assert!(std::time::Instant::now() < deadline, "Codex (pid {pid}) did not exit");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    rig.send(Some(&id), "do you remember?").await;
    let (end, _) = rig.turn_end().await;
    assert!(
        matches!(end, ChatEventKind::TurnEnd { ref result, .. } if result.as_deref() == Some("I remember.")),
        "{end:?}"
    );
    rig.standin_done().await;
}

/// The model API down (the stand-in stopped): the Chat says so by name, and Stop ends the turn.
async fn offline_is_said(cli: Option<&str>) {
    let mut rig = rig(json!({ "turns": ["never answered"] })).await;
    rig._standin.kill().await.unwrap();
    let mut body = rig.body(None, "hello?");
    body.cli = cli.map(str::to_string);
    let conversation = chat::send(&rig.state, body).await.unwrap().conversation;
    let ((message, hint), _) = rig
        .until(|k| match k {
            ChatEventKind::Error { name, message, hint } if name == "AgentOffline" => {
                Some((message.clone(), hint.clone().unwrap_or_default()))
            }
            _ => None,
        })
        .await;
    assert!(message.starts_with("failed to reach "), "{message}");
    assert!(hint.contains("check the network"), "{hint}");
    let body = ConversationBody { workspace: rig.workspace.clone(), conversation };
    assert!(chat::interrupt(&rig.state, body).await.unwrap());
    let (end, _) = rig.turn_end().await;
    assert!(matches!(end, ChatEventKind::TurnEnd { interrupted: true, .. }), "{end:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_without_its_model_api_is_agent_offline() {
    offline_is_said(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_without_its_model_api_is_agent_offline() {
    offline_is_said(Some("codex")).await;
}

// Installing the CLI on request: npm against a registry on loopback serving a tiny `@openai/codex`
// whose `codex` runs the pinned one against the stand-in.

/// A loopback npm registry serving `@openai/codex@0.169.1` (`tarball` false: every request 404s).
/// The tarball's answer waits until `release` is notified; `asked` is notified when it is asked.
struct Registry {
    url: String,
    asked: std::sync::Arc<tokio::sync::Notify>,
    release: std::sync::Arc<tokio::sync::Notify>,
    _dir: tempfile::TempDir,
}

async fn registry(serve: bool) -> Registry {
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("package");
    std::fs::create_dir_all(package.join("bin")).unwrap();
    std::fs::write(
        package.join("package.json"),
        json!({ "name": "@openai/codex", "version": "0.169.1", "bin": { "codex": "bin/codex" } })
            .to_string(),
    )
    .unwrap();
    let standin_codex = repo().join("tests/standin/bin/codex");
    std::fs::write(
        package.join("bin/codex"),
        format!("#!/bin/sh\nexec '{}' \"$@\"\n", standin_codex.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(package.join("bin/codex"), std::fs::Permissions::from_mode(0o755))
        .unwrap();
    let tgz = dir.path().join("codex.tgz");
    let tar = std::process::Command::new("tar")
        .arg("czf")
        .arg(&tgz)
        .arg("-C")
        .arg(dir.path())
        .arg("package")
        .status()
        .unwrap();
    assert!(tar.success());
    let sum = std::process::Command::new("sha1sum").arg(&tgz).output().unwrap();
    let shasum =
        String::from_utf8_lossy(&sum.stdout).split_whitespace().next().unwrap().to_string();
    let bytes = std::fs::read(&tgz).unwrap();

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let asked = std::sync::Arc::new(tokio::sync::Notify::new());
    let release = std::sync::Arc::new(tokio::sync::Notify::new());
    let packument = json!({
        "name": "@openai/codex",
        "dist-tags": { "latest": "0.169.1" },
        "versions": { "0.169.1": {
            "name": "@openai/codex", "version": "0.169.1", "bin": { "codex": "bin/codex" },
            "dist": { "tarball": format!("{url}/codex-0.169.1.tgz"), "shasum": shasum }
        } }
    });
    let (a, r) = (asked.clone(), release.clone());
    let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
        let (packument, bytes, a, r) = (packument.clone(), bytes.clone(), a.clone(), r.clone());
        async move {
            use axum::response::IntoResponse;
            if !serve {
                return (axum::http::StatusCode::NOT_FOUND, "{\"error\":\"not found\"}")
                    .into_response();
            }
            if uri.path().ends_with(".tgz") {
                a.notify_one();
                r.notified().await;
                return ([("content-type", "application/octet-stream")], bytes).into_response();
            }
            axum::Json(packument).into_response()
        }
    });
    tokio::spawn(std::future::IntoFuture::into_future(axum::serve(listener, app)));
    Registry { url, asked, release, _dir: dir }
}

impl Rig {
    /// The CLI's PATH without the stand-in's `bin/` (npm and node stay), npm pointed at `registry`.
    fn launch_without_codex(&self, registry: &str, cache: &Path) {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let home = self._dirs[2].path();
        self.state.chat.set_launch(Launch {
            path: Some(path),
            env: vec![
                ("STANDIN_URL".into(), self.standin_url.clone().into()),
                ("STANDIN_HOME".into(), home.into()),
                ("npm_config_registry".into(), registry.into()),
                // The test's own cache: the fake package never enters the machine's.
                ("npm_config_cache".into(), cache.into()),
                ("npm_config_update_notifier".into(), "false".into()),
            ],
        });
    }

    fn install_body(&self) -> cowork_wire::chat::InstallBody {
        cowork_wire::chat::InstallBody { workspace: self.workspace.clone(), cli: "codex".into() }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_codex_is_installed_on_request_then_found_and_launched() {
    let mut rig = rig(json!({ "turns": ["Installed and answering."] })).await;
    let registry = registry(true).await;
    let cache = tempfile::tempdir().unwrap();
    rig.launch_without_codex(&registry.url, cache.path());
    let mut body = rig.body(None, "hello");
    body.cli = Some("codex".into());
    let error = chat::send(&rig.state, body.clone()).await.unwrap_err();
    let (name, message) = error.name_and_message();
    assert_eq!(name.to_string(), "AgentCliMissing", "{message}");
    assert!(message.contains("Codex (`codex`) is not on the PATH"), "{message}");

    let state = rig.state.clone();
    let install_body = rig.install_body();
    let first = tokio::spawn(async move { chat::install(&state, install_body).await });
    registry.asked.notified().await;
    // One at a time: a second request while npm runs is a named conflict.
    let second = chat::install(&rig.state, rig.install_body()).await.unwrap_err();
    assert_eq!(second.name_and_message().0.to_string(), "InstallRunning");
    registry.release.notify_one();
    let installed = match first.await.unwrap() {
        Ok(installed) => installed,
        Err(error) => panic!("the install failed: {:?}", error.name_and_message()),
    };
    let agents = chat::agents_dir(rig.state.engine.root());
    assert_eq!(
        PathBuf::from(&installed.program),
        agents.join("codex/node_modules/.bin/codex"),
        "installed in Cowork's root, found there"
    );
    assert_eq!(installed.version, "0.169.1");
    let (outcome, progress) = rig
        .until(|k| match k {
            ChatEventKind::Install { outcome: Some(outcome), .. } => Some(outcome.clone()),
            _ => None,
        })
        .await;
    assert_eq!(outcome, "ok");
    assert!(
        progress.iter().any(|k| matches!(k, ChatEventKind::Install { line: Some(_), .. })),
        "npm's lines stream as progress: {progress:?}"
    );
    let audit =
        cowork_core::audit::AuditLog::new(rig.state.engine.root().audit_dir(&rig.workspace));
    let line = audit.records().unwrap().into_iter().find(|r| r.capability == "cowork.chat.install");
    let line = line.expect("the install is audited");
    assert_eq!(line.input["package"], "@openai/codex@0.169.1");
    assert_eq!(line.status, cowork_core::audit::Status::Ok);

    // The installed CLI is found and runs the conversation.
    chat::send(&rig.state, body).await.unwrap();
    let (end, _) = rig.turn_end().await;
    assert!(
        matches!(end, ChatEventKind::TurnEnd { ref result, .. } if result.as_deref() == Some("Installed and answering.")),
        "{end:?}"
    );
    rig.standin_done().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_install_is_named_with_npms_last_lines_and_no_npm_says_what_to_install() {
    let rig = rig(json!({ "turns": [] })).await;
    let registry = registry(false).await;
    let cache = tempfile::tempdir().unwrap();
    rig.launch_without_codex(&registry.url, cache.path());
    let error = chat::install(&rig.state, rig.install_body()).await.unwrap_err();
    let (name, message) = error.name_and_message();
    assert_eq!(name.to_string(), "AgentInstallFailed");
    assert!(
        message.starts_with("failed to install Codex (@openai/codex@0.169.1): npm exited"),
        "{message}"
    );
    assert!(message.contains("404"), "npm's own words are in it: {message}");
    let audit =
        cowork_core::audit::AuditLog::new(rig.state.engine.root().audit_dir(&rig.workspace));
    let line = audit.records().unwrap().into_iter().find(|r| r.capability == "cowork.chat.install");
    assert_eq!(line.expect("audited").status, cowork_core::audit::Status::Error);

    let empty = tempfile::tempdir().unwrap();
    rig.state.chat.set_launch(Launch { path: Some(empty.path().into()), ..Default::default() });
    let error = chat::install(&rig.state, rig.install_body()).await.unwrap_err();
    let (name, message) = error.name_and_message();
    assert_eq!(name.to_string(), "NpmMissing");
    assert_eq!(message, "failed to install Codex: npm is not on the PATH");
}

/// A client of `/api/chat/events` that never reads: its socket fills, and the daemon goes on
/// serving everyone else (the other routes, the transcript kept whole on disk).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_events_reader_that_never_reads_holds_up_nothing() {
    use tokio::io::AsyncWriteExt;
    // About 800 KB of events: far more than the socket buffers between the daemon and the reader.
    let chunk = "x".repeat(399) + " ";
    let chunks: Vec<String> = (0..2000).map(|_| chunk.clone()).collect();
    let whole: String = chunks.concat();
    let mut rig = rig(json!({ "turns": [{ "text": chunks }] })).await;
    let port = rig.state.port;
    let ws = url_encode(&rig.workspace.display().to_string());
    let mut slow = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let request = format!(
        "GET /api/chat/events?workspace={ws} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\
         Authorization: Bearer owner-token\r\n\r\n"
    );
    slow.write_all(request.as_bytes()).await.unwrap();
    // Its stream is open (the status line read); from here on it reads nothing.
    let mut status = [0u8; 12];
    tokio::io::AsyncReadExt::read_exact(&mut slow, &mut status).await.unwrap();
    assert_eq!(&status, b"HTTP/1.1 200");

    let id = rig.send(None, "write a lot").await;
    let (end, _) = rig.turn_end().await;
    assert!(matches!(end, ChatEventKind::TurnEnd { is_error: false, .. }), "{end:?}");
    // Other routes answer at once, the slow reader's stream still open and full.
    let client = reqwest::Client::new();
    let list = tokio::time::timeout(
        Duration::from_secs(20),
        client
            .get(format!("http://127.0.0.1:{port}/api/chat?workspace={ws}"))
            .header("host", format!("127.0.0.1:{port}"))
            .bearer_auth("owner-token")
            .send(),
    )
    .await
    .expect("the daemon answers other requests")
    .unwrap();
    assert_eq!(list.status(), 200);
    assert_eq!(streamed(&rig.transcript(&id)), whole, "the transcript is whole");
    drop(slow);
}

/// Whether `pid` still runs (a zombie waiting to be reaped has finished).
/// Whether a file under `dir` (any depth) contains `text`.
fn holds(dir: &std::path::Path, text: &str) -> bool {
    std::fs::read_dir(dir).into_iter().flatten().flatten().any(|entry| {
        let path = entry.path();
        if path.is_dir() {
            holds(&path, text)
        } else {
            std::fs::read_to_string(&path).is_ok_and(|content| content.contains(text))
        }
    })
}

fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next()) != Some("Z")
    })
}
