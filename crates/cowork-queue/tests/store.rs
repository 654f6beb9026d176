//! The store's behaviour as a caller sees it: every status transition, receipts, leases, and
//! many receiver processes on one queue.

use cowork_queue::*;
use std::path::Path;
use std::time::{Duration, Instant};

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    (dir, store)
}

fn send(store: &mut Store, body: &str) -> i64 {
    store.send("q", body, &SendOptions::default()).unwrap().task.id
}

fn take(store: &mut Store, receiver: &str) -> Received {
    let options = ReceiveOptions { receiver: Some(receiver.into()), ..Default::default() };
    store.receive("q", &options).unwrap().expect("a task to receive")
}

fn status(store: &mut Store, id: i64) -> Status {
    store.peek("q", id).unwrap().status
}

/// Each row: a task brought to a starting status, an operation, the status it ends in.
#[test]
fn every_status_transition_of_the_page() {
    type Step = fn(&mut Store, i64, &str) -> Result<Task>;
    let ack: Step = |s, id, r| s.ack("q", id, r, &AckOptions::default());
    let ack_review: Step =
        |s, id, r| s.ack("q", id, r, &AckOptions { review: true, ..Default::default() });
    let ack_to: Step =
        |s, id, r| s.ack("q", id, r, &AckOptions { to: Some("bob".into()), ..Default::default() });
    let nack: Step = |s, id, r| s.nack("q", id, r, &NackOptions::default());
    let approve: Step = |s, id, _| s.approve("q", id);
    let reject: Step = |s, id, _| s.reject("q", id, "shorter, please", &[]);
    let retry: Step = |s, id, _| s.retry("q", id);
    let reply_agent: Step = |s, id, _| {
        s.reply("q", id, "again", &ReplyOptions { to: Some("carol".into()), ..Default::default() })
    };
    let reply_owner: Step = |s, id, _| {
        s.reply("q", id, "noted", &ReplyOptions { to: Some("owner".into()), ..Default::default() })
    };
    use Status::*;
    // The queue's attempts: 1 makes the first nack final.
    let table: &[(&str, u32, Status, Step, Status)] = &[
        ("ack", 3, InProgress, ack, Done),
        ("ack --review", 3, InProgress, ack_review, NeedsReview),
        ("ack --to", 3, InProgress, ack_to, Todo),
        ("nack with attempts left", 3, InProgress, nack, Todo),
        ("nack on the last attempt", 1, InProgress, nack, Failed),
        ("approve", 3, NeedsReview, approve, Done),
        ("reject", 3, NeedsReview, reject, Todo),
        ("retry", 1, Failed, retry, Todo),
        ("reply to an agent reopens done", 3, Done, reply_agent, Todo),
        ("reply to an agent reopens failed", 1, Failed, reply_agent, Todo),
        ("reply to owner is a note", 3, Done, reply_owner, Done),
        ("reply while in progress is a note", 3, InProgress, reply_agent, InProgress),
    ];
    for (name, attempts, from, step, to) in table {
        let (_dir, mut store) = store();
        let settings = SettingsChange { max_attempts: Some(*attempts), ..Default::default() };
        store.create("q", &settings).unwrap();
        let id = send(&mut store, "write the report");
        let receipt = bring_to(&mut store, id, *from);
        assert_eq!(status(&mut store, id), *from, "{name}: setup");
        let task = step(&mut store, id, &receipt).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(task.status, *to, "{name}");
    }
}

/// Moves a fresh task to `status` (failed needs a queue of 1 attempt); answers its receipt when in progress.
fn bring_to(store: &mut Store, id: i64, status: Status) -> String {
    if status == Status::Todo {
        return String::new();
    }
    let received = take(store, "alice");
    assert_eq!(received.task.id, id);
    let receipt = received.receipt;
    match status {
        Status::InProgress => return receipt,
        Status::Done => store.ack("q", id, &receipt, &AckOptions::default()).map(drop),
        Status::NeedsReview => store
            .ack("q", id, &receipt, &AckOptions { review: true, ..Default::default() })
            .map(drop),
        Status::Failed => store.nack("q", id, &receipt, &NackOptions::default()).map(drop),
        Status::Todo => unreachable!(),
    }
    .unwrap();
    String::new()
}

#[test]
fn a_wrong_status_is_refused_by_name() {
    let (_dir, mut store) = store();
    let id = send(&mut store, "x");
    for (error, op) in [
        (store.approve("q", id).unwrap_err(), "approve"),
        (store.reject("q", id, "no", &[]).unwrap_err(), "reject"),
        (store.retry("q", id).unwrap_err(), "retry"),
    ] {
        assert_eq!(error.name(), cowork_core::error_name::ErrorName::WrongStatus, "{op}");
        assert!(error.to_string().contains("is todo"), "{op}: {error}");
    }
    let error = store.ack("q", id, "r", &AckOptions::default()).unwrap_err();
    assert_eq!(error.name(), cowork_core::error_name::ErrorName::StaleReceipt);
}

#[test]
fn reject_sends_the_task_back_to_the_agent_who_finished_it_with_the_comment() {
    let (_dir, mut store) = store();
    let id = store
        .send("q", "draft", &SendOptions { review: Some(true), ..Default::default() })
        .unwrap()
        .task
        .id;
    let r = take(&mut store, "alice");
    let task = store
        .ack("q", id, &r.receipt, &AckOptions { result: Some("v1".into()), ..Default::default() })
        .unwrap();
    assert_eq!(task.status, Status::NeedsReview, "the task asked for review");
    let task = store.reject("q", id, "add the numbers", &[]).unwrap();
    assert_eq!((task.status, task.to.as_str()), (Status::Todo, "alice"));
    let thread: Vec<_> =
        task.entries.unwrap().into_iter().map(|e| (e.kind, e.author, e.text)).collect();
    assert_eq!(
        thread,
        [
            ("result".to_string(), "alice".to_string(), "v1".to_string()),
            ("comment".into(), "owner".into(), "add the numbers".into())
        ]
    );
    // `--mine` now finds it for alice, and bob (anyone-only tasks) does not.
    let mine = ReceiveOptions { receiver: Some("alice".into()), mine: true, ..Default::default() };
    let bob = ReceiveOptions { receiver: Some("bob".into()), ..Default::default() };
    assert!(store.receive("q", &bob).unwrap().is_none());
    assert_eq!(store.receive("q", &mine).unwrap().unwrap().task.id, id);
}

#[test]
fn addressing_decides_who_receives() {
    let (_dir, mut store) = store();
    let to = |name: &str| SendOptions { to: Some(name.into()), ..Default::default() };
    let for_bob = store.send("q", "for bob", &to("bob")).unwrap().task.id;
    let for_owner = store.send("q", "for owner", &to("owner")).unwrap().task.id;
    let for_anyone = send(&mut store, "for anyone");
    let unnamed = ReceiveOptions::default();
    assert_eq!(store.receive("q", &unnamed).unwrap().unwrap().task.id, for_anyone);
    assert!(store.receive("q", &unnamed).unwrap().is_none(), "no --as: unaddressed tasks only");
    assert_eq!(take(&mut store, "bob").task.id, for_bob);
    assert!(store
        .receive("q", &ReceiveOptions { receiver: Some("bob".into()), ..Default::default() })
        .unwrap()
        .is_none());
    assert_eq!(
        store.items("q", &ItemsQuery { view: View::NeedsYou, ..Default::default() }).unwrap()[0].id,
        for_owner
    );
}

#[test]
fn a_receipt_fences_a_holder_whose_lease_ran_out() {
    let (_dir, mut store) = store();
    let id = send(&mut store, "slow work");
    let lease = |name: &str| ReceiveOptions {
        receiver: Some(name.into()),
        lease_s: Some(1),
        ..Default::default()
    };
    let first = store.receive("q", &lease("alice")).unwrap().unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    // Expired and not yet taken again: the old receipt is already void.
    let error = store.ack("q", id, &first.receipt, &AckOptions::default()).unwrap_err();
    assert_eq!(error.name(), cowork_core::error_name::ErrorName::StaleReceipt);
    assert!(error.to_string().contains("is todo now"), "{error}");
    let second = store.receive("q", &lease("bob")).unwrap().expect("the task came back");
    assert_eq!((second.task.id, second.task.attempts), (id, 2));
    let error = store.nack("q", id, &first.receipt, &NackOptions::default()).unwrap_err();
    assert!(error.to_string().contains("received again"), "{error}");
    store.ack("q", id, &second.receipt, &AckOptions::default()).unwrap();
    let kinds: Vec<_> =
        store.peek("q", id).unwrap().entries.unwrap().into_iter().map(|e| e.text).collect();
    assert_eq!(kinds, ["the lease of alice ran out"]);
}

#[test]
fn a_lease_running_out_on_the_last_attempt_fails_the_task() {
    let (_dir, mut store) = store();
    store
        .create(
            "q",
            &SettingsChange { max_attempts: Some(1), lease_s: Some(1), ..Default::default() },
        )
        .unwrap();
    let id = send(&mut store, "x");
    take(&mut store, "alice");
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(status(&mut store, id), Status::Failed);
    assert_eq!(store.counts("q").unwrap().failed, 1);
}

#[test]
fn nack_delays_and_fails_after_the_last_attempt() {
    let (_dir, mut store) = store();
    store.create("q", &SettingsChange { max_attempts: Some(2), ..Default::default() }).unwrap();
    let id = send(&mut store, "x");
    let r = take(&mut store, "a");
    let task = store
        .nack("q", id, &r.receipt, &NackOptions { delay_s: Some(60), error: Some("busy".into()) })
        .unwrap();
    assert_eq!(task.status, Status::Todo);
    assert!(task.available_at > task.updated + 59_000);
    let options = ReceiveOptions { receiver: Some("a".into()), ..Default::default() };
    assert!(store.receive("q", &options).unwrap().is_none(), "held back by the delay");
    let id2 = send(&mut store, "y");
    let r = take(&mut store, "a");
    assert_eq!(r.task.id, id2);
    store.nack("q", id2, &r.receipt, &NackOptions::default()).unwrap();
    let r = take(&mut store, "a");
    let task = store.nack("q", id2, &r.receipt, &NackOptions::default()).unwrap();
    assert_eq!((task.status, task.attempts), (Status::Failed, 2));
    let task = store.retry("q", id2).unwrap();
    assert_eq!((task.status, task.attempts), (Status::Todo, 0));
}

#[test]
fn a_repeated_ref_answers_the_first_task() {
    let (_dir, mut store) = store();
    let with_ref = SendOptions { reference: Some("mail-42".into()), ..Default::default() };
    let first = store.send("q", "one", &with_ref).unwrap();
    let second = store.send("q", "two", &with_ref).unwrap();
    assert_eq!(
        (second.task.id, second.deduplicated, first.deduplicated),
        (first.task.id, true, false)
    );
    assert_eq!(second.task.body.as_deref(), Some("one"));
    assert_eq!(store.counts("q").unwrap().todo, 1);
}

#[test]
fn bad_input_names_the_field() {
    let (dir, mut store) = store();
    let big = "x".repeat(MAX_BODY + 1);
    let error = store.send("q", &big, &SendOptions::default()).unwrap_err();
    assert!(
        error.to_string().starts_with("body: 1048577 bytes is over the 1 MiB limit"),
        "{error}"
    );
    let error = store
        .send("q", "x", &SendOptions { to: Some("two words".into()), ..Default::default() })
        .unwrap_err();
    assert!(error.to_string().starts_with("to: \"two words\" is not a name"), "{error}");
    let outside = tempfile::NamedTempFile::new().unwrap();
    let files = vec![FileInput::Path { path: outside.path().display().to_string() }];
    let error = store.send("q", "x", &SendOptions { files, ..Default::default() }).unwrap_err();
    assert!(error.to_string().starts_with("files[0].path: "), "{error}");
    assert!(error.to_string().contains("is outside the workspace"), "{error}");
    let files = vec![FileInput::Path { path: "../../etc/passwd".into() }];
    let error = store.send("q", "x", &SendOptions { files, ..Default::default() }).unwrap_err();
    assert!(error.to_string().contains("outside the workspace"), "{error}");
    let error = store.ack("q", 1, "", &AckOptions::default()).unwrap_err();
    assert!(error.to_string().starts_with("receipt: "), "{error}");
    assert_eq!(error.name(), cowork_core::error_name::ErrorName::BadRequest);
    std::fs::write(dir.path().join("notes.txt"), "inside").unwrap();
    let files = vec![
        FileInput::Path { path: "notes.txt".into() },
        FileContent::Text { name: "a.md".into(), text: "# A".into() }.into(),
    ];
    let task = store.send("q", "x", &SendOptions { files, ..Default::default() }).unwrap().task;
    let names: Vec<_> = task.files.unwrap().into_iter().map(|f| (f.name, f.size)).collect();
    assert_eq!(names, [("notes.txt".to_string(), 6), ("a.md".to_string(), 3)]);
}

#[test]
fn a_foreign_or_damaged_store_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(STORE);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"this is not a database at all, just some bytes........").unwrap();
    let error = Store::open(dir.path()).err().unwrap();
    assert_eq!(error.name(), cowork_core::error_name::ErrorName::StoreDamaged);
    assert!(error.to_string().contains("is not a Cowork task store"), "{error}");
    assert!(error.hint().unwrap().contains("move"));
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"this is not a database at all, just some bytes........"
    );

    std::fs::remove_file(&path).unwrap();
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("CREATE TABLE notes (x)").unwrap();
    drop(other);
    let error = Store::open(dir.path()).err().unwrap();
    assert!(error.to_string().contains("application_id 0x0"), "{error}");
    assert!(schema::check(&path).is_err());
}

#[test]
fn the_journal_keeps_entries_open_until_resolved() {
    use cowork_queue::journal::{Filter, Kind, NewEntry};
    let (dir, mut store) = store();
    std::fs::create_dir_all(dir.path().join(".claude/skills/mail")).unwrap();
    std::fs::write(dir.path().join(".claude/skills/mail/SKILL.md"), "# mail").unwrap();
    let add = |store: &mut Store, text: &str| {
        store
            .journal_add(&NewEntry {
                skill: "mail".into(),
                kind: Kind::Error,
                text: text.into(),
                source: None,
            })
            .unwrap()
            .id
    };
    let a = add(&mut store, "IMAP times out");
    add(&mut store, "use OAuth");
    assert_eq!(store.journal_resolve("mail", &[a]).unwrap(), 1);
    let open: Vec<_> = store
        .journal_entries("mail", Filter::Open, 200)
        .unwrap()
        .into_iter()
        .map(|e| e.text)
        .collect();
    assert_eq!(open, ["use OAuth"]);
    let skills = store.journal_skills().unwrap();
    assert_eq!((skills[0].open, skills[0].applied), (1, 1));
    assert_eq!(skills[0].skill_md.as_deref(), Some(".claude/skills/mail/SKILL.md"));
    assert_eq!(store.journal_resolve("mail", &[]).unwrap(), 1);
    assert!(store.journal_open().unwrap().is_empty());
    assert_eq!(
        store.journal_delete(999).unwrap_err().name(),
        cowork_core::error_name::ErrorName::NotFound
    );
}

#[test]
fn a_waiting_receiver_wakes_when_another_process_sends() {
    let (dir, mut store) = store();
    store.create("q", &SettingsChange::default()).unwrap();
    let workspace = dir.path().to_path_buf();
    let sender = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        let mut other = Store::open(&workspace).unwrap();
        send(&mut other, "arrives");
        Instant::now()
    });
    let options = ReceiveOptions { receiver: Some("alice".into()), ..Default::default() };
    let got = store.receive_wait("q", &options, Duration::from_secs(20)).unwrap().expect("woken");
    let woke = Instant::now();
    let sent = sender.join().unwrap();
    assert_eq!(got.task.subject, "arrives");
    let lag = woke.saturating_duration_since(sent);
    assert!(lag < Duration::from_millis(500), "woke {lag:?} after the send");
}

#[test]
fn a_wait_ends_when_a_delayed_task_comes_due() {
    let (_dir, mut store) = store();
    store.send("q", "later", &SendOptions { delay_s: Some(1), ..Default::default() }).unwrap();
    let start = Instant::now();
    let got = store.receive_wait("q", &ReceiveOptions::default(), Duration::from_secs(20)).unwrap();
    assert!(got.is_some());
    assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
}

/// More receivers waiting in one process than the watches the OS lets a user hold (inotify's
/// `max_user_instances`, 128 by default): all wait at once, and each is woken with a task.
#[test]
fn more_waiting_threads_than_the_os_has_watches_each_get_a_task() {
    const WAITERS: usize = 150;
    let (dir, mut store) = store();
    store.create("q", &SettingsChange::default()).unwrap();
    let waiters: Vec<_> = (0..WAITERS)
        .map(|i| {
            let workspace = dir.path().to_path_buf();
            std::thread::spawn(move || {
                let mut store = Store::open(&workspace).unwrap();
                let options =
                    ReceiveOptions { receiver: Some(format!("w{i}")), ..Default::default() };
                store
                    .receive_wait("q", &options, Duration::from_secs(120))
                    .map(|got| got.map(|got| got.task.id))
            })
        })
        .collect();
    // Every waiter is watching once it is listed as listening; one that failed to watch ends.
    let start = Instant::now();
    loop {
        let listening = store.receivers(Some("q")).unwrap().iter().filter(|r| r.listening).count();
        if listening == WAITERS || waiters.iter().any(|w| w.is_finished()) {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "{listening} of {WAITERS} waiting");
        std::thread::sleep(Duration::from_millis(20));
    }
    for i in 0..WAITERS {
        send(&mut store, &format!("task {i}"));
    }
    let mut ids: Vec<i64> =
        waiters.into_iter().map(|w| w.join().unwrap().expect("waiting").expect("a task")).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), WAITERS);
}

/// The child half of the many-process test: receives and acks until the queue stays empty,
/// printing each id it got.
#[test]
fn receiver_child() {
    let Ok(workspace) = std::env::var("COWORK_QUEUE_CHILD") else { return };
    let mut store = Store::open(Path::new(&workspace)).unwrap();
    let name = format!("r{}", std::process::id());
    let options = ReceiveOptions { receiver: Some(name), ..Default::default() };
    let mut got = Vec::new();
    while let Some(task) = store.receive_wait("q", &options, Duration::from_millis(1500)).unwrap() {
        store.ack("q", task.task.id, &task.receipt, &AckOptions::default()).unwrap();
        got.push(task.task.id.to_string());
    }
    println!("GOT {}", got.join(","));
}

#[test]
fn many_receiver_processes_each_task_exactly_once() {
    let (dir, mut store) = store();
    const TASKS: i64 = 300;
    store.create("q", &SettingsChange::default()).unwrap();
    let children: Vec<_> = (0..6)
        .map(|_| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "receiver_child", "--nocapture", "--test-threads=1"])
                .env("COWORK_QUEUE_CHILD", dir.path())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for i in 0..TASKS {
        send(&mut store, &format!("task {i}"));
    }
    let mut all = Vec::new();
    let mut busy = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let line = text.lines().find_map(|l| l.split("GOT ").nth(1)).expect("the child's ids");
        let ids: Vec<i64> =
            line.split(',').filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
        busy += usize::from(!ids.is_empty());
        all.extend(ids);
    }
    all.sort();
    assert_eq!(all, (1..=TASKS).collect::<Vec<_>>(), "every task received exactly once");
    assert!(busy >= 2, "the receivers shared the work");
    assert_eq!(store.counts("q").unwrap().done, TASKS as u64);
    assert_eq!(store.receivers(Some("q")).unwrap().len(), 6);
}

fn new_task(body: &str) -> NewTask {
    NewTask { body: body.into(), options: SendOptions::default() }
}

fn acks(taken: &[Received]) -> Vec<TaskAck> {
    taken
        .iter()
        .map(|t| TaskAck { id: t.task.id, receipt: t.receipt.clone(), options: Default::default() })
        .collect()
}

#[test]
fn batches_send_receive_and_ack_as_one_at_a_time_does() {
    let (_dir, mut store) = store();
    let first = send(&mut store, "first");
    let again = NewTask {
        body: "a repeat".into(),
        options: SendOptions { reference: Some("r-1".into()), ..Default::default() },
    };
    store.send("q", "with a ref", &again.options).unwrap();
    let sent = store.send_many("q", &[new_task("second"), again, new_task("third")]).unwrap();
    let answers: Vec<_> =
        sent.iter().map(|s| (s.task.body.clone().unwrap(), s.deduplicated)).collect();
    assert_eq!(
        answers,
        [("second".into(), false), ("with a ref".into(), true), ("third".into(), false)]
    );
    let stored = serde_json::to_value(store.peek("q", sent[0].task.id).unwrap()).unwrap();
    assert_eq!(serde_json::to_value(&sent[0].task).unwrap(), stored, "answered as stored");

    // The oldest first, each with its own receipt; the rest stay to do.
    let options = ReceiveOptions { receiver: Some("claude".into()), ..Default::default() };
    let taken = store.receive_many("q", &options, 3).unwrap();
    let ids: Vec<i64> = taken.iter().map(|t| t.task.id).collect();
    assert_eq!(ids, [first, first + 1, sent[0].task.id]);
    assert_ne!(taken[0].receipt, taken[1].receipt);
    assert!(taken.iter().all(|t| t.task.status == Status::InProgress && t.task.attempts == 1));
    assert_eq!(store.counts("q").unwrap().todo, 1);

    let done = store.ack_many("q", &acks(&taken)).unwrap();
    assert!(done.iter().all(|t| t.status == Status::Done));
    assert_eq!(store.counts("q").unwrap().done, 3);
    let rest = store.receive_many("q", &options, 10).unwrap();
    assert_eq!(rest.len(), 1);
    assert!(store.receive_many("q", &options, 10).unwrap().is_empty());
}

#[test]
fn a_batch_is_all_or_none_and_names_what_refused_it() {
    let (_dir, mut store) = store();
    send(&mut store, "one");
    send(&mut store, "two");
    let refused = store.send_many("q", &[new_task("fine"), new_task("")]).unwrap_err();
    assert!(refused.to_string().starts_with("tasks[1].body: "), "{refused}");
    assert_eq!(store.counts("q").unwrap().todo, 2, "nothing of the batch was sent");

    // One stale receipt refuses the whole ack: the other task is still held.
    let taken = store.receive_many("q", &ReceiveOptions::default(), 2).unwrap();
    let mut finish = acks(&taken);
    finish[1].receipt = "not-the-receipt".into();
    let refused = store.ack_many("q", &finish).unwrap_err();
    assert_eq!(refused.name(), cowork_core::error_name::ErrorName::StaleReceipt);
    assert!(refused.to_string().contains(&format!("task {}", taken[1].task.id)), "{refused}");
    assert_eq!(status(&mut store, taken[0].task.id), Status::InProgress);
    // The same task twice in one ack: the second finds it finished.
    let twice = [acks(&taken)[0].clone(), acks(&taken)[0].clone()];
    assert_eq!(
        store.ack_many("q", &twice).unwrap_err().name(),
        cowork_core::error_name::ErrorName::StaleReceipt
    );
    assert_eq!(store.counts("q").unwrap().in_progress, 2);

    for max in [0, MAX_BATCH + 1] {
        let refused = store.receive_many("q", &ReceiveOptions::default(), max).unwrap_err();
        assert!(refused.to_string().starts_with("max: "), "{refused}");
    }
    assert!(store.send_many("q", &[]).unwrap_err().to_string().starts_with("tasks: "));
}

#[test]
fn batches_reach_callers_as_calls() {
    let (_dir, mut store) = store();
    let call = |json: serde_json::Value| serde_json::from_value::<Call>(json).unwrap();
    let sent = store
        .call(call(serde_json::json!({"method": "sendMany", "queue": "q",
            "tasks": [{"body": "a"}, {"body": "b", "options": {"to": "claude"}}]})))
        .unwrap();
    assert_eq!(sent.as_array().unwrap().len(), 2);
    let taken = store
        .call(call(serde_json::json!({"method": "receiveMany", "queue": "q", "max": 5,
            "options": {"as": "claude"}})))
        .unwrap();
    let acks: Vec<serde_json::Value> = taken
        .as_array()
        .unwrap()
        .iter()
        .map(|t| serde_json::json!({"id": t["id"], "receipt": t["receipt"]}))
        .collect();
    assert_eq!(acks.len(), 2);
    let done = store
        .call(call(serde_json::json!({"method": "ackMany", "queue": "q", "acks": acks})))
        .unwrap();
    assert!(done.as_array().unwrap().iter().all(|t| t["status"] == "done"));
}

/// An id is given once: not again after the newest task is deleted, its queue removed (the tasks
/// go with it) or it is purged — an owner's `approve 42` must never reach a newer task.
#[test]
fn a_deleted_task_s_id_is_never_given_again() {
    let (_dir, mut store) = store();
    let first = send(&mut store, "a");
    let newest = send(&mut store, "b");
    store.delete_task("q", newest).unwrap();
    let next = send(&mut store, "c");
    assert_eq!(next, newest + 1, "after delete_task");
    store.delete_queue("q").unwrap();
    let after_queue = send(&mut store, "d");
    assert_eq!(after_queue, next + 1, "after delete_queue");
    let received = take(&mut store, "w");
    store.ack("q", received.task.id, &received.receipt, &AckOptions::default()).unwrap();
    assert_eq!(store.purge("q", true, false).unwrap(), 1);
    assert_eq!(send(&mut store, "e"), after_queue + 1, "after purge");
    assert!(first < newest);
}

/// `queues.db` and its WAL copied while the store is open — what a process killed mid-run leaves,
/// with no WAL index — as a plain SQLite connection (no VFS of the store's) recovers them.
fn recovered(workspace: &Path) -> (i64, i64) {
    let copy = tempfile::tempdir().unwrap();
    for name in ["queues.db", "queues.db-wal"] {
        std::fs::copy(workspace.join(".cowork/local").join(name), copy.path().join(name)).unwrap();
    }
    let conn = rusqlite::Connection::open(copy.path().join("queues.db")).unwrap();
    let sql = "SELECT count(*), count(*) FILTER (WHERE status = 'done') FROM tasks";
    conn.query_row(sql, [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap()
}

/// Counts of all tasks and of the done ones, as another connection (a plain SQLite one, reading
/// the WAL through its index, as the daemon or another routine does) sees the open store.
fn seen_by_another_connection(workspace: &Path) -> (i64, i64) {
    let conn = rusqlite::Connection::open(workspace.join(".cowork/local/queues.db")).unwrap();
    let sql = "SELECT count(*), count(*) FILTER (WHERE status = 'done') FROM tasks";
    conn.query_row(sql, [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap()
}

/// The store hands each commit's WAL writes to the system as one (wal_frames.rs): every commit
/// must still be whole in the WAL when it returns — for small commits and for a transaction big
/// enough to spill pages before its commit (whose checksums SQLite rewrites at the commit) and
/// to pass what is gathered before one write — and read whole by another connection.
#[test]
fn every_commit_is_whole_in_the_wal_when_it_returns() {
    let (dir, mut store) = store();
    for i in 0..300 {
        send(&mut store, &format!("task {i}"));
    }
    assert_eq!(recovered(dir.path()), (300, 0));
    assert_eq!(seen_by_another_connection(dir.path()), (300, 0));
    // 40 bodies of 100 KiB in one transaction: past SQLite's 2 MiB page cache.
    let big: Vec<NewTask> =
        (0..40).map(|i| new_task(&format!("{i} {}", "x".repeat(100 * 1024)))).collect();
    store.send_many("q", &big).unwrap();
    assert_eq!(recovered(dir.path()), (340, 0));
    assert_eq!(seen_by_another_connection(dir.path()), (340, 0));
    for i in 0..100 {
        let task = take(&mut store, "worker");
        store.ack("q", task.task.id, &task.receipt, &AckOptions::default()).unwrap();
        if i % 25 == 0 {
            assert_eq!(seen_by_another_connection(dir.path()), (340, i + 1));
        }
    }
    assert_eq!(recovered(dir.path()), (340, 100));
    assert_eq!(seen_by_another_connection(dir.path()), (340, 100));
}
