//! Widgets' streams (`POST /api/streams`, `stream.write|resize|close|ack`): a real process on a
//! pseudo-terminal, its refusals by name, its tree killed when the view closes or its client goes,
//! and a flood that blocks its own writer while the daemon keeps answering — also when the client
//! reads everything but acknowledges none of it.

use super::*;
use futures_util::StreamExt;
use std::time::{Duration, Instant};

/// A pane of `notes` in `workspace`: its token.
pub(super) async fn pane(daemon: &Daemon, workspace: &std::path::Path) -> String {
    let open = json!({ "workspace": workspace, "app": "notes", "file": "notes.jsx" }).to_string();
    let (status, pane) = daemon.ask(post("/api/panes", &open)).await;
    assert_eq!(status, StatusCode::OK, "{pane}");
    pane["paneToken"].as_str().unwrap().to_string()
}

pub(super) fn as_pane(path: &str, token: &str, body: Value) -> Request<Body> {
    Request::post(path)
        .header("host", HOST)
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

/// Approves `value` ahead for `notes` in `workspace` (`cowork consent allow`).
fn approve(daemon: &Daemon, workspace: &std::path::Path, value: &str) {
    cowork_core::consent::Approvals::new(daemon.state.engine.root(), workspace)
        .allow("notes", value)
        .unwrap();
}

/// Approves `argv` ahead, as the person reads it (and `cowork consent allow` takes it).
fn approve_argv(daemon: &Daemon, workspace: &std::path::Path, argv: &[&str]) {
    let argv: Vec<String> = argv.iter().map(|w| w.to_string()).collect();
    approve(daemon, workspace, &cowork_engine::terminal::shown(&argv));
}

/// An open stream: its id and its frames as they come.
struct Stream {
    id: String,
    body: axum::body::BodyDataStream,
    pending: Vec<u8>,
}

enum Frame {
    Output(Vec<u8>),
    End(Value),
}

impl Stream {
    async fn frame(&mut self) -> Option<Frame> {
        loop {
            if self.pending.len() >= 5 {
                let len = u32::from_be_bytes(self.pending[1..5].try_into().unwrap()) as usize;
                if self.pending.len() >= 5 + len {
                    let kind = self.pending[0];
                    let payload = self.pending[5..5 + len].to_vec();
                    self.pending.drain(..5 + len);
                    return Some(match kind {
                        0 => Frame::Output(payload),
                        _ => Frame::End(serde_json::from_slice(&payload).unwrap()),
                    });
                }
            }
            let chunk = self.body.next().await?.unwrap();
            self.pending.extend_from_slice(&chunk);
        }
    }

    /// Output until `needle` shows (10 s at most), all of it.
    async fn until(&mut self, needle: &str) -> String {
        let mut seen = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !String::from_utf8_lossy(&seen).contains(needle) {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.frame()).await {
                Ok(Some(Frame::Output(bytes))) => seen.extend(bytes),
                other => panic!(
                    "no {needle:?} in {:?} (then {})",
                    String::from_utf8_lossy(&seen),
                    match other {
                        Ok(Some(Frame::End(end))) => format!("the end {end}"),
                        Ok(None) => "the body ended".into(),
                        _ => "nothing for 10 s".into(),
                    }
                ),
            }
        }
        String::from_utf8_lossy(&seen).into_owned()
    }

    /// The end frame (10 s at most), skipping output.
    async fn end(&mut self) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.frame()).await.expect("an end within 10 s") {
                Some(Frame::Output(_)) => continue,
                Some(Frame::End(end)) => return end,
                None => panic!("the body ended without an end frame"),
            }
        }
    }
}

/// `POST /api/streams` as the pane `token`: the stream, or the refusal's SDK answer.
async fn open(daemon: &Daemon, token: &str, params: Value) -> Result<Stream, Value> {
    open_on(daemon.state.clone(), token, params).await
}

async fn open_on(state: AppState, token: &str, params: Value) -> Result<Stream, Value> {
    let response = app(state).oneshot(as_pane("/api/streams", token, params)).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let json = response.headers()["content-type"] == "application/json";
    if json {
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
        return Err(serde_json::from_slice(&bytes).unwrap());
    }
    let id = response.headers()["x-cowork-stream"].to_str().unwrap().to_string();
    Ok(Stream { id, body: response.into_body().into_data_stream(), pending: Vec::new() })
}

pub(super) async fn call(daemon: &Daemon, token: &str, method: &str, params: Value) -> Value {
    let (status, answer) = daemon.ask(as_pane(&format!("/api/sdk/{method}"), token, params)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer
}

fn refusal(answer: Result<Stream, Value>) -> Value {
    match answer {
        Ok(stream) => panic!("stream {} opened", stream.id),
        Err(answer) => {
            assert_eq!(answer["ok"], false, "{answer}");
            answer["error"].clone()
        }
    }
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| !stat.rsplit_once(')').unwrap().1.trim_start().starts_with('Z'))
}

async fn until_gone(pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        assert!(Instant::now() < deadline, "process {pid} still runs 10 s later");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_shell_on_a_terminal_echoes_input_starts_in_the_workspace_and_ends_with_its_code() {
    let daemon = daemon();
    let workspace = notes_workspace();
    let token = pane(&daemon, workspace.path()).await;
    approve(&daemon, workspace.path(), "sh");
    let mut stream = open(&daemon, &token, json!({ "argv": ["sh"], "cols": 100, "rows": 30 }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let typed = json!({ "id": stream.id, "data": "tty; pwd; stty size; echo done-$((40+2))\n" });
    assert_eq!(call(&daemon, &token, "stream.write", typed).await["ok"], true);
    let out = stream.until("done-42").await;
    assert!(out.contains("/dev/pts/"), "a real terminal: {out}");
    let real = workspace.path().canonicalize().unwrap();
    assert!(out.contains(real.to_str().unwrap()), "starts in the workspace: {out}");
    assert!(out.contains("30 100"), "the size asked for: {out}");
    let resize = json!({ "id": stream.id, "cols": 120, "rows": 40 });
    assert_eq!(call(&daemon, &token, "stream.resize", resize).await["ok"], true);
    let typed = json!({ "id": stream.id, "data": "stty size; exit 3\n" });
    call(&daemon, &token, "stream.write", typed).await;
    stream.until("40 120").await;
    assert_eq!(stream.end().await, json!({ "code": 3 }));
    let gone = call(&daemon, &token, "stream.write", json!({ "id": stream.id, "data": "x" })).await;
    assert_eq!(gone["error"]["name"], "NotFound", "{gone}");
    let audit = daemon.state.engine.workspace(workspace.path()).unwrap().audit().records().unwrap();
    let line = audit.iter().find(|r| r.capability == "cowork.stream.open").expect("audited");
    assert_eq!(line.input, json!({ "argv": ["sh"] }), "the argv, never the input");
    assert_eq!(line.context.caller.as_ref().unwrap().app.as_deref(), Some("notes"));
}

#[tokio::test]
async fn refusals_are_named_no_consent_a_third_stream_a_ticket_reused_or_for_another_argv() {
    let daemon = daemon();
    let workspace = notes_workspace();
    let token = pane(&daemon, workspace.path()).await;

    let none = refusal(open(&daemon, &token, json!({ "argv": ["sh"] })).await);
    assert_eq!(none["name"], "Denied", "{none}");
    assert!(none["hint"].as_str().unwrap().contains("cowork consent allow"), "{none}");

    let broker = daemon.state.engine.consent();
    let other = broker.ticket("tail -f log.txt");
    let wrong = refusal(open(&daemon, &token, json!({ "argv": ["sh"], "consent": other })).await);
    assert_eq!(wrong["name"], "Denied", "{wrong}");
    assert!(wrong["message"].as_str().unwrap().contains("granted for \"tail -f log.txt\""));

    // A value names one argv: the words of a person's approval are not re-split another way.
    approve(&daemon, workspace.path(), "sh -c echo SAFE; touch PWNED");
    let split = json!({ "argv": ["sh", "-c", "echo SAFE; touch PWNED"] });
    let refused = refusal(open(&daemon, &token, split).await);
    assert_eq!(refused["name"], "Denied", "{refused}");
    assert!(
        refused["message"].as_str().unwrap().contains("\"sh -c 'echo SAFE; touch PWNED'\""),
        "{refused}"
    );
    assert!(!workspace.path().join("PWNED").exists());

    let ticket = broker.ticket("cat");
    let first = open(&daemon, &token, json!({ "argv": ["cat"], "consent": ticket })).await;
    let first = first.unwrap_or_else(|e| panic!("{e}"));
    let again = refusal(open(&daemon, &token, json!({ "argv": ["cat"], "consent": ticket })).await);
    assert_eq!(again["name"], "Denied", "{again}");
    assert!(again["message"].as_str().unwrap().contains("used already"), "{again}");

    approve(&daemon, workspace.path(), "cat");
    let second = open(&daemon, &token, json!({ "argv": ["cat"] })).await.unwrap();
    let third = refusal(open(&daemon, &token, json!({ "argv": ["cat"] })).await);
    assert_eq!(third["name"], "TooManyStreams", "{third}");
    // Another view of the same app has its own two.
    let other_view = pane(&daemon, workspace.path()).await;
    let elsewhere = open(&daemon, &other_view, json!({ "argv": ["cat"] })).await.unwrap();
    // Closing one frees its slot.
    call(&daemon, &token, "stream.close", json!({ "id": first.id })).await;
    drop((first, elsewhere));
    let deadline = Instant::now() + Duration::from_secs(10);
    let reopened = loop {
        match open(&daemon, &token, json!({ "argv": ["cat"] })).await {
            Ok(stream) => break stream,
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await
            }
            Err(answer) => panic!("the slot never came back: {answer}"),
        }
    };
    drop((second, reopened));

    approve(&daemon, workspace.path(), "no-such-program-here");
    let token = pane(&daemon, workspace.path()).await;
    let missing = refusal(open(&daemon, &token, json!({ "argv": ["no-such-program-here"] })).await);
    assert_eq!(missing["name"], "CommandFailed", "{missing}");
    assert!(missing["message"].as_str().unwrap().contains("no-such-program-here"), "{missing}");
    let empty = refusal(open(&daemon, &token, json!({ "argv": [] })).await);
    assert_eq!(empty["name"], "BadRequest", "{empty}");
}

const DESCENDANTS: &str =
    "sleep 1000 & sh -c 'sleep 1000 & echo grand=$!; wait' & echo child=$!; wait";

/// Starts `sh` printing the pids of a child and a grandchild it leaves running; answers both.
async fn with_descendants(daemon: &Daemon, token: &str) -> (Stream, u32, u32) {
    let mut stream =
        open(daemon, token, json!({ "argv": ["sh", "-c", DESCENDANTS] })).await.unwrap();
    let out = stream.until("grand=").await;
    let out = if out.contains("child=") { out } else { out + &stream.until("child=").await };
    let pid = |key: &str| -> u32 {
        let at = out.find(key).unwrap() + key.len();
        out[at..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap()
    };
    let (child, grand) = (pid("child="), pid("grand="));
    assert!(alive(child) && alive(grand));
    (stream, child, grand)
}

#[tokio::test]
async fn closing_the_view_or_dropping_the_stream_kills_the_whole_tree() {
    let daemon = daemon();
    let workspace = notes_workspace();
    approve_argv(&daemon, workspace.path(), &["sh", "-c", DESCENDANTS]);

    let token = pane(&daemon, workspace.path()).await;
    let (mut stream, child, grand) = with_descendants(&daemon, &token).await;
    assert_eq!(call(&daemon, &token, "pane.close", json!({})).await["ok"], true);
    until_gone(child).await;
    until_gone(grand).await;
    assert_eq!(stream.end().await, json!({ "code": null }), "killed by a signal");

    let token = pane(&daemon, workspace.path()).await;
    let (stream, child, grand) = with_descendants(&daemon, &token).await;
    drop(stream); // the workbench's connection went
    until_gone(child).await;
    until_gone(grand).await;
}

#[tokio::test]
async fn a_daemon_that_stops_kills_every_stream_and_ends_its_answer() {
    let daemon = daemon();
    let workspace = notes_workspace();
    approve_argv(&daemon, workspace.path(), &["sh", "-c", DESCENDANTS]);
    let token = pane(&daemon, workspace.path()).await;
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let state = AppState { stopping, ..daemon.state.clone() };
    let mut stream =
        open_on(state, &token, json!({ "argv": ["sh", "-c", DESCENDANTS] })).await.unwrap();
    let out = stream.until("grand=").await;
    let at = out.find("grand=").unwrap() + 6;
    let grand: u32 =
        out[at..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap();
    stop.send(true).unwrap();
    // A graceful stop waits for open answers: this one must end, not hold the daemon up.
    assert_eq!(stream.end().await, json!({ "code": null }));
    assert!(stream.frame().await.is_none(), "the answer ended");
    until_gone(grand).await;
}

#[tokio::test]
async fn another_panes_token_the_owners_or_another_origin_reach_no_stream() {
    let daemon = daemon();
    let workspace = notes_workspace();
    approve(&daemon, workspace.path(), "cat");
    let token = pane(&daemon, workspace.path()).await;
    let mut stream = open(&daemon, &token, json!({ "argv": ["cat"] })).await.unwrap();

    let intruder = pane(&daemon, workspace.path()).await;
    for method in ["stream.write", "stream.resize", "stream.close", "stream.ack"] {
        let params = match method {
            "stream.write" => json!({ "id": stream.id, "data": "x\n" }),
            "stream.resize" => json!({ "id": stream.id, "cols": 1, "rows": 1 }),
            "stream.ack" => json!({ "id": stream.id, "bytes": 1 << 30 }),
            _ => json!({ "id": stream.id }),
        };
        let answer = call(&daemon, &intruder, method, params).await;
        assert_eq!(answer["error"]["name"], "NotFound", "{method}: {answer}");
    }
    let ack = json!({ "id": stream.id, "bytes": 1 }).to_string();
    for (path, body) in [("/api/streams", r#"{"argv": ["cat"]}"#), ("/api/sdk/stream.ack", &*ack)] {
        let (status, _) = daemon.ask(post(path, body)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}: the owner token is not a pane's");
        let foreign = Request::post(path)
            .header("host", HOST)
            .header("origin", "null")
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap();
        let (status, _) = daemon.ask(foreign).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: a widget frame's own origin");
    }
    // The stream is untouched: it still echoes.
    call(&daemon, &token, "stream.write", json!({ "id": stream.id, "data": "still-mine\n" })).await;
    stream.until("still-mine").await;
}

/// The bytes `pid` has written so far (`/proc/<pid>/io`).
fn written(pid: u32) -> u64 {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap();
    io.lines().find_map(|l| l.strip_prefix("wchar: ")).unwrap().trim().parse().unwrap()
}

/// A pane of a fresh daemon flooding its stream with `yes`: its token, the stream, the output
/// read so far and `yes`'s pid.
async fn flooding(daemon: &Daemon, workspace: &std::path::Path) -> (String, Stream, String, u32) {
    approve_argv(daemon, workspace, &["sh", "-c", "echo pid=$$; exec yes"]);
    let token = pane(daemon, workspace).await;
    let mut stream = open(daemon, &token, json!({ "argv": ["sh", "-c", "echo pid=$$; exec yes"] }))
        .await
        .unwrap();
    let out = stream.until("pid=").await;
    let at = out.find("pid=").unwrap() + 4;
    let pid: u32 =
        out[at..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap();
    (token, stream, out, pid)
}

#[tokio::test]
async fn a_flood_blocks_its_own_writer_while_the_daemon_answers() {
    let daemon = daemon();
    let workspace = notes_workspace();
    let (token, mut stream, _, pid) = flooding(&daemon, workspace.path()).await;

    // Nobody reads: the buffer fills, then `yes` is blocked on its terminal.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut last = written(pid);
    loop {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let now = written(pid);
        if now == last {
            break;
        }
        assert!(Instant::now() < deadline, "yes never blocked ({now} bytes written)");
        last = now;
    }
    assert!(last < 16 << 20, "at most the bounded buffer and the terminal's hold: {last}");
    // Meanwhile the daemon answers others at once.
    let asked = Instant::now();
    let (status, _) = daemon.ask(get("/api/health", &[("host", HOST), OWNER])).await;
    assert_eq!(status, StatusCode::OK);
    assert!(asked.elapsed() < Duration::from_secs(2), "{:?}", asked.elapsed());
    // Reading (and acknowledging) again lets it flow.
    let mut read = 0usize;
    while read < 8 << 20 {
        match stream.frame().await {
            Some(Frame::Output(bytes)) => {
                read += bytes.len();
                let ack = json!({ "id": stream.id, "bytes": bytes.len() });
                call(&daemon, &token, "stream.ack", ack).await;
            }
            _ => panic!("the flood ended"),
        }
    }
    assert!(written(pid) > last);
}

#[tokio::test]
async fn a_client_that_reads_but_acknowledges_nothing_gets_one_window_then_the_flood_waits() {
    let daemon = daemon();
    let workspace = notes_workspace();
    let (token, mut stream, out, pid) = flooding(&daemon, workspace.path()).await;

    // Everything that comes is read at once (as a browser's fetch takes a body in), none of it
    // acknowledged: the output stops after one window (and the read that crossed it).
    let window = cowork_wire::streams::WINDOW as usize;
    let mut read = out.len();
    while let Ok(frame) = tokio::time::timeout(Duration::from_secs(1), stream.frame()).await {
        match frame {
            Some(Frame::Output(bytes)) => read += bytes.len(),
            _ => panic!("the flood ended"),
        }
        assert!(read <= window + (64 << 10), "{read} bytes came, past the window of {window}");
    }
    assert!(read > window - (64 << 10), "the whole window came before it stopped: {read} bytes");
    let held = written(pid);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(written(pid), held, "yes waits on its terminal");

    // An acknowledgement of more than was sent buys no room ahead: one of everything read lets
    // about one more window come, not two.
    let ack = json!({ "id": stream.id, "bytes": 1u64 << 40 });
    call(&daemon, &token, "stream.ack", ack).await;
    let mut more = 0usize;
    while let Ok(frame) = tokio::time::timeout(Duration::from_secs(1), stream.frame()).await {
        match frame {
            Some(Frame::Output(bytes)) => more += bytes.len(),
            _ => panic!("the flood ended"),
        }
    }
    assert!(more > window - (64 << 10), "one more window after the acknowledgement: {more}");
    assert!(more <= window + (64 << 10), "no more than one window ahead: {more}");
}
