//! What a widget pane reaches through `/api/sdk` (page 04): its queue files are content, never a
//! path, and its tables are the workspace's own `.db` files, each statement reaching only the file
//! it names. The pane here belongs to an app that declares nothing, as in the review.

use crate::support::*;
use serde_json::{json, Value};

/// A workspace with the app `board` (a widget, no `kind`, no `uses`), its daemon, and a pane of it.
struct Pane {
    env: Env,
    _daemon: Daemon,
    http: Http,
    token: String,
}

impl Pane {
    fn open() -> Pane {
        let env = Env::new(runtimes()[0]);
        env.widget_app("board");
        let daemon = env.daemon(&[]);
        let http = Http { port: daemon.port };
        let ws = path_str(&env.ws_path());
        let (status, opened) = http.json(
            "POST",
            "/api/panes",
            env.owner_token().trim(),
            Some(&json!({"workspace": ws, "app": "board", "file": "board.jsx"})),
        );
        assert_eq!(status, 200, "{opened}");
        let token = opened["paneToken"].as_str().unwrap().to_string();
        Pane { env, _daemon: daemon, http, token }
    }

    /// `window.cowork.<method>(params)`: the SDK answer, `{ok, result}` or `{ok: false, error}`.
    fn sdk(&self, method: &str, params: Value) -> Value {
        let (status, answer) =
            self.http.json("POST", &format!("/api/sdk/{method}"), &self.token, Some(&params));
        assert_eq!(status, 200, "{answer}");
        answer
    }

    /// The error a call was refused with: its name and message.
    fn refused(&self, method: &str, params: Value) -> (String, String) {
        let answer = self.sdk(method, params);
        assert_eq!(answer["ok"], false, "{method} was not refused: {answer}");
        let error = &answer["error"];
        (error["name"].as_str().unwrap().into(), error["message"].as_str().unwrap().into())
    }
}

#[test]
fn a_widget_cannot_attach_a_workspace_file_by_path() {
    let pane = Pane::open();
    std::fs::write(pane.env.file(".env"), "API_KEY=sk-live-123\n").unwrap();
    let send = |files: Value| json!({"method": "send", "queue": "inbox", "body": "hi", "options": {"files": files}});
    for files in [json!([{"path": ".env"}]), json!([{"name": "x", "path": ".env"}])] {
        let (name, message) = pane.refused("queue", send(files));
        assert_eq!(name, "BadRequest", "{message}");
        assert!(message.contains("never by path (\".env\")"), "{message}");
    }
    // A routine still may: the file system is already its own (page 03).
    let sent = pane.env.run(&["queue", "send", "inbox", "from a script", "--file", ".env"]);
    assert!(sent.status.success(), "{}", transcript(&sent));
    let task = pane.sdk("queue", json!({"method": "receive", "queue": "inbox"}));
    let (id, receipt) = (&task["result"]["id"], task["result"]["receipt"].as_str().unwrap());
    let ack = json!({"method": "ack", "queue": "inbox", "id": id, "receipt": receipt,
        "options": {"files": [{"path": ".env"}]}});
    assert_eq!(pane.refused("queue", ack).0, "BadRequest");
    // Content is what a widget attaches.
    let sent = pane.sdk("queue", send(json!([{"name": "note.txt", "text": "from the widget"}])));
    assert_eq!(sent["result"]["files"][0]["name"], "note.txt", "{sent}");
}

#[test]
fn a_widget_s_tables_never_reach_the_task_store_or_another_app_s_data() {
    let pane = Pane::open();
    let sent = pane.env.run(&["queue", "send", "inbox", "review the contract"]);
    assert!(sent.status.success(), "{}", transcript(&sent));
    let store = ".cowork/local/queues.db";
    std::os::unix::fs::symlink(pane.env.file(store), pane.env.file("tasks.db")).unwrap();
    let other = pane.env.file(".cowork/data/mail/inbox.db");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    std::fs::write(&other, "").unwrap(); // SQLite takes an empty file for an empty database
    for db in [store, "tasks.db", ".cowork/data/mail/inbox.db"] {
        let (name, message) =
            pane.refused("tables.query", json!({"db": db, "sql": "SELECT * FROM sqlite_schema"}));
        assert_eq!(name, "Forbidden", "{db}: {message}");
        assert!(message.starts_with(&format!("db: \"{db}\" is ")), "{message}");
        let (name, _) = pane
            .refused("tables.exec", json!({"db": db, "sql": "UPDATE tasks SET status = 'done'"}));
        assert_eq!(name, "Forbidden", "{db}");
    }
    // The task is as the queue left it: only the queue API changes tasks.
    let peek = pane.env.run(&["queue", "peek", "inbox", "1", "--json"]);
    let task: Value = serde_json::from_str(&stdout(&peek)).unwrap();
    assert_eq!(task["status"], "todo", "{task}");
}

#[test]
fn a_widget_s_sql_cannot_write_a_file_outside_the_one_it_names() {
    let pane = Pane::open();
    pane.env.run(&["table", "create", "crm"]);
    let db = ".cowork/data/crm.db";
    pane.sdk("tables.exec", json!({"db": db, "sql": "CREATE TABLE people (name TEXT)"}));
    let home = tempfile::tempdir().unwrap();
    let keys = home.path().join("authorized_keys");
    let into = format!("VACUUM INTO '{}'", keys.display());
    let attach = format!("ATTACH '{}' AS keys", keys.display());
    for sql in
        [&into, &attach, "VACUUM", "PRAGMA writable_schema = ON", "SELECT load_extension('x')"]
    {
        for method in ["tables.exec", "tables.query"] {
            let (name, message) = pane.refused(method, json!({"db": db, "sql": sql}));
            assert_eq!(name, "Forbidden", "{method} {sql}: {message}");
            assert!(message.starts_with("sql: "), "{message}");
        }
        assert!(!keys.exists(), "{sql} wrote {}", keys.display());
    }
    let (name, message) =
        pane.refused("tables.query", json!({"db": db, "sql": "DELETE FROM people"}));
    assert_eq!(
        (name.as_str(), message.as_str()),
        ("Forbidden", "sql: tables.query only reads; DELETE FROM people is for tables.exec")
    );
    // What reads and writes the file itself still works.
    let read = pane.sdk("tables.query", json!({"db": db, "sql": "PRAGMA table_info(people)"}));
    assert_eq!(read["result"]["rows"][0]["name"], "name", "{read}");
    let wrote =
        pane.sdk("tables.exec", json!({"db": db, "sql": "INSERT INTO people VALUES ('Ada')"}));
    assert_eq!(wrote["result"]["changes"], 1, "{wrote}");
}
