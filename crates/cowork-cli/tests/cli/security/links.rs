//! A workspace is often a folder someone else made: a symlink in place of a folder Cowork writes
//! into (`.cowork/local`, `.claude/skills`) must not carry Cowork's writes out of the workspace.
//! The workspace does not open (`SymlinkedFolder`), wherever it is opened, and doctor says why.

use crate::support::*;
use serde_json::json;

const PING: &str =
    r#"{"name": "notes", "version": "1.0.0", "routines": {"notes-ping": "ping.ts"}}"#;

/// A workspace with one routine, and `folder` a link to a folder outside holding a `.gitignore`
/// of its own; that outside folder.
fn linked(folder: &str) -> (Env, tempfile::TempDir) {
    let env = Env::new(runtimes()[0]);
    env.app("notes", PING, &[("ping.ts", "export default () => 'pong';\n")]);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join(".gitignore"), "mine\n").unwrap();
    let link = env.file(folder);
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(outside.path(), &link).unwrap();
    (env, outside)
}

/// Nothing was written where the link leads.
fn untouched(outside: &tempfile::TempDir) {
    let names: Vec<_> = std::fs::read_dir(outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, [".gitignore"], "written outside the workspace");
    assert_eq!(std::fs::read_to_string(outside.path().join(".gitignore")).unwrap(), "mine\n");
}

#[test]
fn a_linked_cowork_folder_stops_the_workspace_before_anything_is_written_through_it() {
    for folder in [".cowork/local", ".claude/skills"] {
        let (env, outside) = linked(folder);
        // In-process (no daemon): the engine opens the workspace.
        let run = env.run(&["routine", "run", "notes-ping", "--json"]);
        assert_eq!(run.status.code(), Some(1), "{folder}: {}", transcript(&run));
        let line: serde_json::Value = serde_json::from_str(stdout(&run).trim()).unwrap();
        assert_eq!(line["error"]["name"], "SymlinkedFolder", "{line}");
        let message = line["error"]["message"].as_str().unwrap();
        assert!(message.contains(&format!("{folder} is a symlink (to ")), "{message}");
        assert!(line["error"]["hint"].as_str().unwrap().contains("a real folder"), "{line}");
        // The task store, with no engine at all.
        let send = env.run(&["queue", "send", "inbox", "x", "--json"]);
        assert!(stdout(&send).contains("\"SymlinkedFolder\""), "{folder}: {}", transcript(&send));
        let doctor = stdout(&env.run(&["doctor"]));
        assert!(doctor.contains(&format!("{folder} is a symlink")), "{doctor}");
        untouched(&outside);
    }
    // Through the daemon: the owner's request is refused by name.
    let (env, outside) = linked(".cowork/local");
    let daemon = env.daemon(&[]);
    let ws = path_str(&env.ws_path());
    let (status, answer) = Http { port: daemon.port }.json(
        "POST",
        "/api/routines/run",
        env.owner_token().trim(),
        Some(&json!({"workspace": ws, "id": "notes-ping"})),
    );
    assert_eq!((status, &answer["error"]["name"]), (403, &json!("SymlinkedFolder")), "{answer}");
    untouched(&outside);
}
