//! `cowork queue …`, `cowork journal …` and `cowork table …` on the real binary: an agent's loop
//! end to end, waiting receivers woken by another process, processes killed mid-lease and
//! mid-write, a damaged store, and the errors (pinned) that name the field.

use crate::support::*;
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn settings(env: &Env) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&path_str(&env.ws_path())), "[WS]");
    settings.add_filter(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", "[TS]");
    settings.add_filter(r"\b[0-9a-f]{32}\b", "[RECEIPT]");
    settings.add_filter(r"cowork(\.exe)?\b", "cowork");
    settings.add_filter(r" {2,}", "  ");
    settings
}

fn env() -> Env {
    Env::new(runtimes()[0])
}

/// `cowork <args> --json` that must succeed; its answer.
fn ok(env: &Env, args: &[&str]) -> Value {
    let out = env.run(&[args, &["--json"]].concat());
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", transcript(&out));
    serde_json::from_str(stdout(&out).trim()).unwrap()
}

#[test]
fn an_agent_takes_a_task_and_the_owner_reviews_it() {
    let env = env();
    std::fs::write(env.file("brief.md"), "# The brief\n").unwrap();
    let sent = ok(
        &env,
        &[
            "queue",
            "send",
            "inbox",
            "Summarise the notes\nin three lines",
            "--to",
            "claude",
            "--review",
            "--file",
            "brief.md",
            "--meta",
            r#"{"from":"mail"}"#,
        ],
    );
    assert_eq!(
        (
            &sent["subject"],
            &sent["to"],
            &sent["from"],
            &sent["status"],
            &sent["review"],
            &sent["meta"]
        ),
        (
            &json!("Summarise the notes"),
            &json!("claude"),
            &json!("owner"),
            &json!("todo"),
            &json!(true),
            &json!({"from": "mail"})
        )
    );
    assert_eq!(sent["files"], json!([{"id": 1, "name": "brief.md", "size": 12}]));
    let id = sent["id"].as_i64().unwrap().to_string();

    let empty = env.run(&["queue", "receive", "inbox", "--json"]);
    assert_eq!(empty.status.code(), Some(3), "no --as: only unaddressed tasks");
    let got = ok(&env, &["queue", "receive", "inbox", "--as", "claude"]);
    assert_eq!(
        (&got["id"], &got["status"], &got["attempts"]),
        (&sent["id"], &json!("in_progress"), &json!(1))
    );
    assert_eq!(got["body"], "Summarise the notes\nin three lines");
    let receipt = got["receipt"].as_str().unwrap();

    let done = ok(
        &env,
        &["queue", "ack", "inbox", &id, "--receipt", receipt, "--result", "Done: three lines."],
    );
    assert_eq!(done["status"], "needs_review", "the task asked for review");
    assert_eq!(ok(&env, &["queue", "list"])[0]["counts"]["needs_you"], 1);
    let summary = ok(&env, &["queue", "summary"]);
    assert_eq!(summary["needsYou"][0]["id"], sent["id"]);

    let back = ok(&env, &["queue", "reject", "inbox", &id, "--comment", "Two lines."]);
    assert_eq!((&back["status"], &back["to"]), (&json!("todo"), &json!("claude")));
    let again = ok(&env, &["queue", "receive", "inbox", "--as", "claude", "--mine"]);
    let receipt = again["receipt"].as_str().unwrap();
    ok(&env, &["queue", "ack", "inbox", &id, "--receipt", receipt, "--review"]);
    let approved = ok(&env, &["queue", "approve", "inbox", &id]);
    assert_eq!(approved["status"], "done");
    let kinds: Vec<_> = approved["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["result", "comment", "approved"]);

    // A reply to an agent reopens it; a reply to owner is a note.
    let noted = ok(&env, &["queue", "reply", "inbox", &id, "thanks", "--to", "owner"]);
    assert_eq!(noted["status"], "done");
    let reopened = ok(&env, &["queue", "reply", "inbox", &id, "one more pass", "--to", "bob"]);
    assert_eq!((&reopened["status"], &reopened["to"]), (&json!("todo"), &json!("bob")));
    let listed = ok(&env, &["queue", "items", "inbox", "--agent", "bob", "--q", "notes three"]);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert!(listed[0].get("body").is_none(), "items leave the body out");
    assert_eq!(ok(&env, &["queue", "items", "inbox", "--view", "done"]), json!([]));
    assert_eq!(ok(&env, &["queue", "receivers", "inbox"])[0]["name"], "claude");

    let out = env.run(&["queue", "peek", "inbox", &id]);
    settings(&env).bind(|| insta::assert_snapshot!("queue_peek", transcript(&out)));
}

#[test]
fn nack_retry_ref_delay_purge_and_delete() {
    let env = env();
    ok(&env, &["queue", "create", "jobs", "--max-attempts", "1", "--lease", "60"]);
    let first = ok(&env, &["queue", "send", "jobs", "fetch mail", "--ref", "mail-1"]);
    let repeat = ok(&env, &["queue", "send", "jobs", "fetch mail again", "--ref", "mail-1"]);
    assert_eq!((&repeat["id"], &repeat["deduplicated"]), (&first["id"], &json!(true)));
    let got = ok(&env, &["queue", "receive", "jobs"]);
    let failed = ok(
        &env,
        &[
            "queue",
            "nack",
            "jobs",
            "1",
            "--receipt",
            got["receipt"].as_str().unwrap(),
            "--error",
            "IMAP down",
        ],
    );
    assert_eq!(failed["status"], "failed", "its only attempt");
    assert_eq!(ok(&env, &["queue", "retry", "jobs", "1"])["status"], "todo");
    ok(&env, &["queue", "send", "jobs", "later", "--delay", "3600"]);
    let got = ok(&env, &["queue", "receive", "jobs"]);
    assert_eq!(got["id"], 1, "the delayed task is held back");
    assert_eq!(env.run(&["queue", "receive", "jobs"]).status.code(), Some(3));
    ok(&env, &["queue", "ack", "jobs", "1", "--receipt", got["receipt"].as_str().unwrap()]);
    assert_eq!(stdout(&env.run(&["queue", "purge", "jobs"])), "Deleted 1 task(s) of jobs.\n");
    assert_eq!(stdout(&env.run(&["queue", "delete", "jobs", "2"])), "Deleted task 2 of jobs.\n");
    assert_eq!(env.run(&["queue", "delete", "jobs", "--yes"]).status.code(), Some(0));
    assert_eq!(ok(&env, &["queue", "list"]), json!([]));
}

#[test]
fn bad_input_is_refused_naming_the_field() {
    let env = env();
    std::fs::write(env.file("big.txt"), "x".repeat((1 << 20) + 1)).unwrap();
    let outside = tempfile::NamedTempFile::new().unwrap();
    let outside = path_str(outside.path());
    ok(&env, &["queue", "send", "inbox", "first"]);
    let cases: &[(&str, &[&str])] = &[
        ("send_body_over_1_mib", &["queue", "send", "inbox", "--body-file", "big.txt"]),
        ("send_to_not_a_name", &["queue", "send", "inbox", "hi", "--to", "Claude Code"]),
        ("send_file_outside_the_workspace", &["queue", "send", "inbox", "hi", "--file", &outside]),
        ("send_meta_not_an_object", &["queue", "send", "inbox", "hi", "--meta", "[1]"]),
        ("send_empty_body", &["queue", "send", "inbox"]),
        ("ack_missing_receipt", &["queue", "ack", "inbox", "1"]),
        ("ack_stale_receipt", &["queue", "ack", "inbox", "1", "--receipt", "0123"]),
        ("items_unknown_view", &["queue", "items", "inbox", "--view", "soon"]),
        ("receive_wait_over_600", &["queue", "receive", "inbox", "--as", "a", "--wait", "601"]),
        ("receive_empty", &["queue", "receive", "nothing-here", "--as", "a", "--json"]),
        ("peek_unknown_task", &["queue", "peek", "inbox", "99"]),
        ("approve_a_todo", &["queue", "approve", "inbox", "1"]),
        ("delete_queue_without_yes", &["queue", "delete", "inbox"]),
    ];
    for (name, args) in cases {
        let out = env.run(args);
        settings(&env).bind(|| {
            let mut settings = insta::Settings::clone_current();
            settings.add_filter(&regex_escape(&outside), "[OUTSIDE]");
            settings.bind(|| insta::assert_snapshot!(*name, transcript(&out)))
        });
    }
}

#[test]
fn queue_help_is_pinned() {
    let env = env();
    for (name, args) in [
        ("queue_help", &["queue", "--help"][..]),
        ("queue_send_help", &["queue", "send", "--help"]),
    ] {
        let out = env.run(args);
        settings(&env).bind(|| insta::assert_snapshot!(name, transcript(&out)));
    }
}

#[test]
fn a_waiting_receiver_wakes_as_soon_as_another_process_sends() {
    let env = env();
    ok(&env, &["queue", "create", "inbox"]);
    let waiter = env
        .cmd(&["queue", "receive", "inbox", "--as", "claude", "--wait", "60", "--json"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(
        eventually(Duration::from_secs(10), || ok(&env, &["queue", "receivers"])
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r["name"] == "claude" && r["listening"] == true))),
        "receivers shows it listening"
    );
    let sent_at = Instant::now();
    ok(&env, &["queue", "send", "inbox", "wake up", "--to", "claude"]);
    let out = waiter.wait_with_output().unwrap();
    let lag = sent_at.elapsed();
    assert_eq!(out.status.code(), Some(0));
    let got: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(got["subject"], "wake up");
    assert!(lag < Duration::from_secs(1), "the receiver took {lag:?} to wake (send included)");
    assert_eq!(ok(&env, &["queue", "receivers"])[0]["listening"], false);
}

#[test]
fn a_receiver_killed_mid_lease_loses_nothing() {
    let env = env();
    ok(&env, &["queue", "send", "inbox", "survive this"]);
    // The agent: takes the task with a 2 s lease, then hangs until it is killed.
    let script = format!(
        "{} queue receive inbox --as doomed --lease 2 --json; sleep 60",
        cowork_core::shell::quote(env!("CARGO_BIN_EXE_cowork"))
    );
    let mut agent = Command::new("sh")
        .args(["-c", &script])
        .current_dir(env.ws.path())
        .env("COWORK_HOME", env.home.path())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    assert!(eventually(Duration::from_secs(10), || {
        ok(&env, &["queue", "list"])[0]["counts"]["in_progress"] == 1
    }));
    agent.kill().unwrap(); // SIGKILL
    agent.wait().unwrap();
    let started = Instant::now();
    let got = ok(&env, &["queue", "receive", "inbox", "--as", "heir", "--wait", "30"]);
    assert_eq!((&got["subject"], &got["attempts"]), (&json!("survive this"), &json!(2)));
    assert!(started.elapsed() < Duration::from_secs(5), "woke when the lease ran out");
    let entries = &got["entries"];
    assert_eq!(entries[0]["text"], "the lease of doomed ran out");
}

#[test]
fn a_writer_killed_mid_write_leaves_every_committed_task() {
    let env = env();
    ok(&env, &["queue", "create", "bulk"]);
    let log = env.file("sent.log");
    let script = format!(
        "i=0; while true; do i=$((i+1)); {} queue send bulk \"task $i\" --json >> {} || exit 1; done",
        cowork_core::shell::quote(env!("CARGO_BIN_EXE_cowork")),
        cowork_core::shell::quote(&path_str(&log))
    );
    let mut writer = Command::new("setsid")
        .args(["sh", "-c", &script])
        .current_dir(env.ws.path())
        .env("COWORK_HOME", env.home.path())
        .spawn()
        .unwrap();
    assert!(eventually(Duration::from_secs(20), || std::fs::read_to_string(&log)
        .is_ok_and(|t| t.lines().count() >= 20)));
    // The whole group, mid-write: the shell and whichever `cowork queue send` is running.
    let group = writer.id() as i32;
    kill_group(group);
    writer.wait().unwrap();
    let told: Vec<i64> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|t| t["id"].as_i64().unwrap())
        .collect();
    let kept = ok(&env, &["queue", "items", "bulk", "--limit", "200"]);
    let kept: Vec<i64> =
        kept.as_array().unwrap().iter().map(|t| t["id"].as_i64().unwrap()).collect();
    for id in &told {
        assert!(kept.contains(id) || kept.len() == 200, "task {id} was reported sent and is gone");
    }
    let counts = &ok(&env, &["queue", "list"])[0]["counts"];
    assert!(counts["todo"].as_u64().unwrap() >= told.len() as u64, "{counts} < {}", told.len());
    let check = env.run(&["doctor"]);
    assert!(stdout(&check).contains("integrity ok"), "{}", transcript(&check));
}

/// SIGKILL to a process group, through the `kill` command (the workspace denies unsafe code).
fn kill_group(group: i32) {
    let status =
        Command::new("kill").args(["-s", "KILL", "--", &format!("-{group}")]).status().unwrap();
    assert!(status.success());
}

#[test]
fn a_damaged_store_is_reported_by_doctor_and_never_recreated() {
    let env = env();
    let path = env.file(".cowork/local/queues.db");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let junk = b"definitely not SQLite, but long enough to be read as a header.....".to_vec();
    std::fs::write(&path, &junk).unwrap();
    let out = env.run(&["queue", "list"]);
    settings(&env).bind(|| insta::assert_snapshot!("damaged_store", transcript(&out)));
    let doctor = env.run(&["doctor"]);
    let line = stdout(&doctor).lines().find(|l| l.contains("queues")).map(String::from);
    let line = line.unwrap_or_else(|| panic!("{}", transcript(&doctor)));
    assert!(line.contains("is not a Cowork task store") && line.contains("move"), "{line}");
    assert_ne!(doctor.status.code(), Some(0));
    assert_eq!(std::fs::read(&path).unwrap(), junk, "left as it was");
}

#[test]
fn the_journal_and_the_summary() {
    let env = env();
    std::fs::create_dir_all(env.file(".claude/skills/mail")).unwrap();
    std::fs::write(env.file(".claude/skills/mail/SKILL.md"), "# Mail\n").unwrap();
    let first = ok(
        &env,
        &[
            "journal",
            "add",
            "mail",
            "IMAP needs the app password",
            "--kind",
            "error",
            "--source",
            "agent:claude",
        ],
    );
    assert_eq!(
        (&first["status"], &first["kind"], &first["source"]),
        (&json!("open"), &json!("error"), &json!("agent:claude"))
    );
    ok(&env, &["journal", "add", "mail", "Threads are grouped by subject"]);
    let skills = ok(&env, &["journal", "list"]);
    assert_eq!(
        skills,
        json!([{"skill": "mail", "open": 2, "applied": 0, "skillMd": ".claude/skills/mail/SKILL.md"}])
    );
    assert_eq!(ok(&env, &["queue", "summary"])["journal"].as_array().unwrap().len(), 2);
    assert_eq!(
        stdout(&env.run(&["journal", "resolve", "mail", "1"])),
        "Marked 1 entry of mail applied.\n"
    );
    let open = ok(&env, &["journal", "entries", "mail"]);
    assert_eq!(open.as_array().unwrap().len(), 1);
    assert_eq!(ok(&env, &["journal", "entries", "mail", "--all"]).as_array().unwrap().len(), 2);
    env.run(&["journal", "resolve", "mail"]);
    assert_eq!(env.run(&["journal", "entries", "mail"]).status.code(), Some(3), "none open");
    assert_eq!(env.run(&["journal", "delete", "9"]).status.code(), Some(3));
    let out = env.run(&["queue", "summary"]);
    settings(&env).bind(|| insta::assert_snapshot!("summary_nothing", transcript(&out)));
}

#[test]
fn table_create_and_list() {
    let env = env();
    assert_eq!(stdout(&env.run(&["table", "create", "crm"])), "Created .cowork/data/crm.db.\n");
    assert_eq!(
        stdout(&env.run(&["table", "create", "crm"])),
        ".cowork/data/crm.db already exists.\n"
    );
    let listed = ok(&env, &["table", "list"]);
    assert_eq!(
        (&listed[0]["name"], &listed[0]["path"]),
        (&json!("crm"), &json!(".cowork/data/crm.db"))
    );
    assert_eq!(env.run(&["table", "create", "../x"]).status.code(), Some(2));
}

#[test]
fn a_routine_uses_ctx_queue_and_ctx_journal_synchronously() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        env.app(
            "desk",
            r#"{ "name": "desk", "version": "1.0.0", "routines": { "desk-work": "work.ts", "desk-bad": "bad.ts" } }"#,
            &[
                (
                    "work.ts",
                    r#"import fs from "node:fs";
export default (_a: any, ctx: any) => {
  const q = ctx.queue("inbox");
  const sent = q.send("Write the summary", { to: "claude", meta: { n: 1 }, files: [{ name: "a.txt", text: "hi" }] });
  const none = q.receive({ as: "bob", mine: true });
  const got = q.receive({ as: "claude" });
  const done = q.ack(got.id, got.receipt, { result: "written", review: true });
  const entry = ctx.journal.add({ skill: "summaries", text: "keep it short" });
  // The task store's Node-API module (copied beside the runner) is loaded in this process.
  const inProcess = fs.readFileSync("/proc/self/maps", "utf8").includes("/runner/queue-");
  return { id: sent.id, none, status: done.status, counts: q.counts(), listed: q.list({ view: "needs_review" }).length, source: entry.source, inProcess };
};
"#,
                ),
                (
                    "bad.ts",
                    r#"export default (_a: any, ctx: any) => {
  const names = [];
  const q = ctx.queue("inbox");
  for (const f of [() => q.send("x".repeat(1048577)), () => q.ack(1, "nope"), () => q.approve(99), () => q.send("x", { to: "a b" }), () => q.list({ view: "soon" })]) {
    try { f(); names.push("no error"); } catch (e: any) { names.push(`${e.name}: ${e.message.split(":")[0]}`); }
  }
  return names;
};
"#,
                ),
            ],
        );
        let result = env.ok("desk-work", json!({}));
        assert_eq!(
            result,
            json!({"id": 1, "none": null, "status": "needs_review", "counts": {"needs_you": 1, "todo": 0, "in_progress": 0, "needs_review": 1, "done": 0, "failed": 0}, "listed": 1, "source": "routine:.cowork/apps/desk/work.ts", "inProcess": true}),
            "{runtime}"
        );
        // The CLI sees what the routine did.
        let peeked = ok(&env, &["queue", "peek", "inbox", "1"]);
        assert_eq!(
            (&peeked["status"], &peeked["entries"][0]["text"]),
            (&json!("needs_review"), &json!("written"))
        );
        assert_eq!(ok(&env, &["journal", "entries", "summaries"])[0]["text"], "keep it short");
        let names = env.ok("desk-bad", json!({}));
        assert_eq!(
            names,
            json!([
                "BadRequest: body",
                "StaleReceipt: receipt",
                "NotFound: no task 99 in the queue \"inbox\"",
                "BadRequest: to",
                "BadRequest: ctx request \"queue\""
            ]),
            "{runtime}"
        );
    }
}

/// The batch calls (our extension) from a routine, in both runtimes: many tasks in one request
/// each way, all or none, a refusal naming the task it is about.
#[test]
fn a_routine_sends_receives_and_acks_in_batches() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        env.app(
            "bulk",
            r#"{ "name": "bulk", "version": "1.0.0", "routines": { "bulk-work": "work.ts" } }"#,
            &[(
                "work.ts",
                r#"export default (_a: any, ctx: any) => {
  const q = ctx.queue("inbox");
  const sent = q.sendMany([1, 2, 3].map((n) => ({ body: `task ${n}`, options: { ref: `r-${n}` } })));
  const again = q.sendMany([{ body: "a repeat", options: { ref: "r-2" } }]);
  const refused = [];
  for (const f of [() => q.sendMany([{ body: "fine" }, { body: "" }]), () => q.receiveMany(0)]) {
    try { f(); refused.push("no error"); } catch (e: any) { refused.push(`${e.name}: ${e.message.split(":")[0]}`); }
  }
  const got = q.receiveMany(2, { as: "claude" });
  const stale = got.map((t: any) => ({ id: t.id, receipt: t.receipt }));
  stale[1].receipt = "not-the-receipt";
  try { q.ackMany(stale); refused.push("no error"); } catch (e: any) { refused.push(`${e.name}: ${e.message.includes(`task ${got[1].id}`)}`); }
  const done = q.ackMany(got.map((t: any) => ({ id: t.id, receipt: t.receipt, options: { result: "ok" } })));
  return { sent: sent.map((t: any) => [t.body, t.deduplicated]), again: again.map((t: any) => [t.id, t.deduplicated]), refused, got: got.map((t: any) => t.id), done: done.map((t: any) => t.status), counts: q.counts() };
};
"#,
            )],
        );
        let result = env.ok("bulk-work", json!({}));
        assert_eq!(
            result,
            json!({
                "sent": [["task 1", false], ["task 2", false], ["task 3", false]],
                "again": [[2, true]],
                "refused": ["BadRequest: tasks[1].body", "BadRequest: max", "StaleReceipt: true"],
                "got": [1, 2],
                "done": ["done", "done"],
                "counts": {"needs_you": 0, "todo": 1, "in_progress": 0, "needs_review": 0, "done": 2, "failed": 0}
            }),
            "{runtime}"
        );
        // The CLI sees the batch as one-at-a-time calls would have left it.
        assert_eq!(ok(&env, &["queue", "peek", "inbox", "1"])["entries"][0]["text"], "ok");
    }
}

#[test]
fn a_widget_drives_the_queue_and_tables_through_the_daemon() {
    let env = env();
    env.widget_app("board");
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let host = format!("127.0.0.1:{}", daemon.port);
    let owner = env.owner_token();
    let ws = path_str(&env.ws_path());
    let (status, _, body) = http.call(
        "POST",
        &host,
        "/api/panes",
        Some(&owner),
        Some(&json!({"workspace": ws, "app": "board", "file": "board.jsx"})),
    );
    assert_eq!(status, 200, "{body}");
    let token =
        serde_json::from_str::<Value>(&body).unwrap()["paneToken"].as_str().unwrap().to_string();
    let sdk = |method: &str, params: Value| -> Value {
        let (status, _, body) =
            http.call("POST", &host, &format!("/api/sdk/{method}"), Some(&token), Some(&params));
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    };

    // What `cowork.queue.send("inbox", { body, to })` sends.
    let sent = sdk(
        "queue",
        json!({"method": "send", "queue": "inbox", "body": "From the widget", "options": {"to": "claude", "files": [{"name": "n.txt", "text": "hi"}]}}),
    );
    assert_eq!((&sent["ok"], &sent["result"]["id"]), (&json!(true), &json!(1)), "{sent}");
    // An agent's shell takes it; the widget sees the change.
    let got = ok(&env, &["queue", "receive", "inbox", "--as", "claude"]);
    ok(
        &env,
        &["queue", "ack", "inbox", "1", "--receipt", got["receipt"].as_str().unwrap(), "--review"],
    );
    let listed = sdk("queue", json!({"method": "tasks", "query": {"view": "needs_you"}}));
    assert_eq!(listed["result"][0]["status"], "needs_review", "{listed}");
    let approved = sdk("queue", json!({"method": "approve", "queue": "inbox", "id": 1}));
    assert_eq!(approved["result"]["status"], "done");
    let stale = sdk("queue", json!({"method": "ack", "queue": "inbox", "id": 1, "receipt": "old"}));
    assert_eq!(stale["error"]["name"], "StaleReceipt", "{stale}");
    let bad = sdk(
        "queue",
        json!({"method": "send", "queue": "inbox", "body": "x", "options": {"to": "not a name"}}),
    );
    assert_eq!(
        (&bad["error"]["name"], bad["error"]["message"].as_str().unwrap().starts_with("to: ")),
        (&json!("BadRequest"), true)
    );
    let journal = sdk(
        "queue",
        json!({"method": "journalAdd", "entry": {"skill": "board", "text": "learned"}}),
    );
    assert_eq!(journal["result"]["status"], "open");

    // The Tasks view (owner) reads the same store.
    let (_, _, body) = http.call(
        "POST",
        &host,
        "/api/queues",
        Some(&owner),
        Some(&json!({"workspace": ws, "call": {"method": "queues"}})),
    );
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["result"][0]["counts"]["done"],
        1,
        "{body}"
    );

    // Tables: exec writes, query reads (and only reads), a page at a time.
    env.run(&["table", "create", "crm"]);
    let db = ".cowork/data/crm.db";
    sdk("tables.exec", json!({"db": db, "sql": "CREATE TABLE people (name TEXT)"}));
    let inserted = sdk(
        "tables.exec",
        json!({"db": db, "sql": "INSERT INTO people VALUES (?1)", "params": ["Ada"]}),
    );
    assert_eq!(inserted["result"]["changes"], 1);
    let rows = sdk("tables.query", json!({"db": db, "sql": "SELECT name FROM people"}));
    assert_eq!(rows["result"]["rows"], json!([{"name": "Ada"}]));
    let write = sdk("tables.query", json!({"db": db, "sql": "DELETE FROM people"}));
    assert_eq!(write["error"]["name"], "Forbidden", "{write}");
    let outside = sdk("tables.query", json!({"db": "../x.db", "sql": "SELECT 1"}));
    assert!(outside["error"]["message"].as_str().unwrap().starts_with("db: "), "{outside}");
    let schema = sdk("tables.schema", json!({"db": db}));
    assert_eq!(schema["result"][0]["name"], "people");
}

#[test]
fn the_daemon_killed_mid_write_leaves_every_committed_task() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let env = env();
    env.widget_app("board");
    let mut daemon = env.daemon(&[]);
    let (port, host) = (daemon.port, format!("127.0.0.1:{}", daemon.port));
    let ws = path_str(&env.ws_path());
    let opened = Http { port }.call(
        "POST",
        &host,
        "/api/panes",
        Some(&env.owner_token()),
        Some(&json!({"workspace": ws, "app": "board", "file": "board.jsx"})),
    );
    let token = serde_json::from_str::<Value>(&opened.2).unwrap()["paneToken"]
        .as_str()
        .unwrap()
        .to_string();
    // A widget sending as fast as the daemon answers, until the daemon is gone.
    let answered = Arc::new(AtomicUsize::new(0));
    let counter = answered.clone();
    let writer = std::thread::spawn(move || {
        let mut told = Vec::new();
        for i in 0.. {
            let send = json!({"method": "send", "queue": "bulk", "body": format!("task {i}")});
            let call = std::panic::catch_unwind(|| {
                Http { port }.call("POST", &host, "/api/sdk/queue", Some(&token), Some(&send))
            });
            let Ok((200, _, body)) = call else { break };
            let Ok(answer) = serde_json::from_str::<Value>(&body) else { break };
            told.push(answer["result"]["id"].as_i64().expect("an id"));
            counter.fetch_add(1, Ordering::SeqCst);
        }
        told
    });
    assert!(eventually(Duration::from_secs(30), || answered.load(Ordering::SeqCst) >= 30));
    daemon.child.kill().unwrap(); // SIGKILL, mid-stream
    daemon.child.wait().unwrap();
    let told = writer.join().unwrap();
    let kept = ok(&env, &["queue", "list"])[0]["counts"]["todo"].as_u64().unwrap();
    assert!(kept >= told.len() as u64, "{kept} tasks kept, {} answered", told.len());
    for id in [told[0], told[told.len() / 2], *told.last().unwrap()] {
        assert_eq!(ok(&env, &["queue", "peek", "bulk", &id.to_string()])["status"], "todo");
    }
    let doctor = env.run(&["doctor"]);
    assert!(stdout(&doctor).contains("integrity ok"), "{}", transcript(&doctor));
}

#[test]
fn the_workbench_hears_of_every_change_another_process_makes_to_the_store() {
    let env = env();
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let path = format!("/api/events?workspace={}", path_str(&env.ws_path()));
    let mut events = http.events(&path, &env.owner_token());
    let heard = |events: &mut EventStream| {
        std::iter::from_fn(|| events.next()).find(|(event, _)| event["type"] == "queues").is_some()
    };

    // An agent's shell sends, takes and finishes a task: no daemon call, yet each is heard.
    let sent = ok(&env, &["queue", "send", "inbox", "Summarise the plan"]);
    assert!(heard(&mut events), "the send");
    let got = ok(&env, &["queue", "receive", "inbox", "--as", "claude"]);
    assert!(heard(&mut events), "the receive");
    let receipt = got["receipt"].as_str().unwrap();
    ok(&env, &["queue", "ack", "inbox", &sent["id"].to_string(), "--receipt", receipt]);
    assert!(heard(&mut events), "the ack");
}

/// A routine's `ctx.queue` writes the store from its own process (the task store's Node-API
/// module), not through the daemon: the Tasks view still hears of it, as of any other process.
#[test]
fn the_workbench_hears_of_a_task_a_routine_sends_from_its_own_process() {
    let env = env();
    env.app(
        "desk",
        r#"{ "name": "desk", "version": "1.0.0", "routines": { "desk-send": "send.ts" } }"#,
        &[(
            "send.ts",
            r#"import fs from "node:fs";
export default (_a: any, ctx: any) => {
  const sent = ctx.queue("inbox").send("From a routine");
  return { id: sent.id, inProcess: fs.readFileSync("/proc/self/maps", "utf8").includes("/runner/queue-") };
};
"#,
        )],
    );
    // The store exists before the daemon starts, so the only change it can hear is the routine's.
    ok(&env, &["queue", "send", "inbox", "Before the daemon"]);
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let path = format!("/api/events?workspace={}", path_str(&env.ws_path()));
    let mut events = http.events(&path, &env.owner_token());
    let result = env.ok("desk-send", json!({}));
    assert_eq!(result, json!({ "id": 2, "inProcess": true }), "{}", env.runtime);
    let heard = std::iter::from_fn(|| events.next()).find(|(event, _)| event["type"] == "queues");
    assert!(heard.is_some(), "the routine's send was not heard");
    assert_eq!(ok(&env, &["queue", "peek", "inbox", "2"])["body"], "From a routine");
}
