//! Manifests through the real binary: cowork-core's corpus as `cowork app list --json` reports
//! it, and a routine file that is a symlink out of its app.

use crate::manifest_case::{Case, LABEL};
use crate::support::*;
use serde_json::{json, Value};
use std::path::Path;

/// `app list --json` of `workspace`: the app (or broken folder) at `.cowork/apps/mail`, if any,
/// and whether it registered as an app.
fn listed_mail(env: &Env, workspace: &Path) -> Option<(Value, bool)> {
    let out = env.run(&["app", "list", "--json", "--workspace", &path_str(workspace)]);
    let list: Value =
        serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    let dir = LABEL.strip_suffix("/cowork.json").unwrap();
    let find = |key: &str| list[key].as_array().unwrap().iter().find(|a| a["dir"] == dir).cloned();
    find("apps").map(|app| (app, true)).or_else(|| find("broken").map(|broken| (broken, false)))
}

/// The problems as lines, each checked to name its key when its message is about one.
fn problem_lines(entry: &Value) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    for problem in entry["problems"].as_array().unwrap() {
        let (file, message) =
            (problem["file"].as_str().unwrap(), problem["message"].as_str().unwrap());
        if let Some(quoted) =
            message.strip_prefix('"').and_then(|m| m.split_once('"')).map(|(key, _)| key)
        {
            if problem["key"].as_str() != Some(quoted) {
                return Err(format!("{problem} does not name its key \"{quoted}\""));
            }
        }
        lines.push(format!("{file}: {message}"));
    }
    Ok(lines)
}

#[test]
fn the_manifest_corpus_reads_the_same_through_app_list() {
    let env = Env::new(runtimes()[0]);
    let cases = Case::all(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../cowork-core/tests/fixtures/manifests"),
    );
    assert!(cases.len() >= 60, "the corpus is there");
    let mut failures = Vec::new();
    for case in &cases {
        let workspace = tempfile::tempdir().unwrap();
        let folder = workspace.path().join(LABEL.strip_suffix("/cowork.json").unwrap());
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("cowork.json"), case.manifest_text()).unwrap();
        case.write_files(&folder);
        let Some((entry, registered)) = listed_mail(&env, workspace.path()) else {
            failures.push(format!(
                "{}: .cowork/apps/mail is neither an app nor a broken folder",
                case.name
            ));
            continue;
        };
        if registered == case.not_an_app() {
            failures.push(format!(
                "{}: registered {registered}, expected the opposite ({})",
                case.name,
                case.about()
            ));
        }
        // The registry may add its own lines (a `uses` nobody here answers); the manifest's are all there.
        match problem_lines(&entry) {
            Err(why) => failures.push(format!("{}: {why}", case.name)),
            Ok(lines) => {
                for expected in case.problems() {
                    if !lines.iter().any(|l| l == expected) {
                        failures.push(format!(
                            "{}: missing problem {expected:?}; got {lines:#?}",
                            case.name
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) differ through the binary:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_routine_file_symlinked_out_of_its_app_is_dropped_and_refused() {
    let env = Env::new(runtimes()[0]);
    env.app(
        "mail",
        r#"{ "name": "mail", "version": "1.0.0", "routines": { "mail-send": "send.ts", "mail-fetch": "fetch.ts" } }"#,
        &[("fetch.ts", "export default () => 'fetched';\n")],
    );
    std::fs::write(env.file("outside.ts"), "export default () => 'outside code ran';\n").unwrap();
    std::os::unix::fs::symlink(env.file("outside.ts"), env.file(".cowork/apps/mail/send.ts"))
        .unwrap();

    let (app, registered) = listed_mail(&env, &env.ws_path()).unwrap();
    assert!(registered);
    assert_eq!(
        app["problems"],
        json!([{ "file": ".cowork/apps/mail/cowork.json", "key": "routines.mail-send", "message": "\"routines.mail-send\": the file \"send.ts\" leads outside the app folder (a symlink) — ignored" }])
    );
    let refused = env.run(&["routine", "run", "mail-send"]);
    assert_eq!(refused.status.code(), Some(3), "{}", stderr(&refused));
    assert!(
        stderr(&refused).starts_with("error: NotFound: no routine \"mail-send\" in this workspace"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(env.ok("mail-fetch", json!({})), "fetched", "the rest of the app works");
}

#[test]
fn app_list_names_the_folders_it_skipped_and_why() {
    let env = Env::new(runtimes()[0]);
    let apps = env.ws_path().join(".cowork/apps");
    for folder in ["my app", "notes"] {
        let name = if folder == "notes" { "notes" } else { "my-app" };
        std::fs::create_dir_all(apps.join(folder)).unwrap();
        std::fs::write(
            apps.join(folder).join("cowork.json"),
            json!({ "name": name, "version": "1.0.0", "title": name }).to_string(),
        )
        .unwrap();
    }
    // Listed with the app beside it, so the reason is not the workspace's having no apps.
    let text = stdout(&env.run(&["app", "list"]));
    assert!(text.contains("\nSkipped folders:\n  .cowork/apps/my app: skipped: an app folder's name is lowercase letters, digits and dashes"), "{text}");
    let out = env.run(&["app", "list", "--json"]);
    let list: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(list["skipped"][0]["file"], ".cowork/apps/my app", "{list}");
    assert_eq!(list["apps"].as_array().map(Vec::len), Some(1), "{list}");
}

/// Two folders holding one name (Keep both's copy beside the original), switched by that name.
#[test]
fn a_switch_by_name_changes_the_folder_it_can_change_and_names_them_when_several_could() {
    let env = Env::new(runtimes()[0]);
    for folder in ["dupa", "dupb"] {
        env.app(folder, r#"{ "name": "dupname", "version": "1.0.0" }"#, &[]);
    }
    // Switched off by name, the copy takes the name over; switched on by name, the one that was
    // off comes back (it said "the copy is already on").
    let out = env.run(&["app", "disable", "dupname"]);
    assert!(stdout(&out).starts_with(".cowork/apps/dupa is now off"), "{}", transcript(&out));
    let out = env.run(&["app", "enable", "dupname"]);
    assert_eq!(stdout(&out), ".cowork/apps/dupa is now on.\n", "{}", transcript(&out));
    // Both off, a switch on by name is ambiguous: it names the folders.
    assert!(env.run(&["app", "disable", "dupb"]).status.success());
    assert!(env.run(&["app", "disable", "dupname"]).status.success());
    let out = env.run(&["app", "enable", "dupname"]);
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    assert!(
        stderr(&out).contains(
            "several folders hold the app \"dupname\": .cowork/apps/dupa, .cowork/apps/dupb"
        ),
        "{}",
        transcript(&out)
    );
}

#[test]
fn a_second_folder_claiming_a_name_is_listed_as_broken() {
    let env = Env::new(runtimes()[0]);
    let apps = env.ws_path().join(".cowork/apps");
    for folder in ["notes", "notes-copy"] {
        std::fs::create_dir_all(apps.join(folder)).unwrap();
        std::fs::write(
            apps.join(folder).join("cowork.json"),
            json!({ "name": "notes", "version": "1.0.0", "title": "Notes", "routines": {"notes-run": "run.ts"} }).to_string(),
        )
        .unwrap();
        std::fs::write(apps.join(folder).join("run.ts"), "export default () => 1;\n").unwrap();
    }
    let text = stdout(&env.run(&["app", "list"]));
    assert_eq!(
        text.matches("notes: unrestricted").count(),
        1,
        "the folder that registers nothing reaches nothing: {text}"
    );
    let row = |dir: &str| text.lines().find(|l| l.ends_with(dir)).map(str::to_owned);
    assert!(row(".cowork/apps/notes").is_some_and(|r| r.contains("  on  ")), "{text}");
    assert!(
        row(".cowork/apps/notes-copy").is_some_and(|r| r.contains("broken (name taken)")),
        "{text}"
    );
    assert!(text.contains(".cowork/apps/notes-copy/cowork.json: \"name\": \"notes\" belongs to .cowork/apps/notes — this folder registers nothing"), "{text}");
}

#[test]
fn only_a_package_with_routines_is_marked_unrestricted() {
    let env = Env::new(runtimes()[0]);
    // Neither `kind` nor `uses`: a site app (no routines) reaches no secret; an old-style app
    // with a routine reaches every one.
    env.app(
        "chat",
        r#"{"name": "chat", "version": "1.0.0", "web": {"url": "https://chat.example/"}}"#,
        &[],
    );
    env.app(
        "old",
        r#"{"name": "old", "version": "1.0.0", "routines": {"old-run": "run.ts"}}"#,
        &[("run.ts", "export default () => 1;\n")],
    );
    let list: Value = serde_json::from_str(&stdout(&env.run(&["app", "list", "--json"]))).unwrap();
    let names: Vec<&str> = list["apps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["manifest"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["chat", "old"], "{list}");
    assert_eq!(list["unrestricted"], json!(["old"]), "{list}");
    let text = stdout(&env.run(&["app", "list"]));
    assert!(text.contains("Reaching every secret:\n  old: unrestricted"), "{text}");
    assert!(!text.contains("chat: unrestricted"), "{text}");
}
