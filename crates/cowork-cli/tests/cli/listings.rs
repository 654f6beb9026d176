//! What the listing commands print, pinned with snapshots (paths, ids and times filtered), and the
//! app switch.

use crate::support::*;
use serde_json::Value;

fn settings(env: &Env) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&path_str(&env.ws_path())), "[WS]");
    settings.add_filter(&regex_escape(&path_str(env.home.path())), "[HOME]");
    settings.add_filter(r"\b[0-9a-f]{32}\b", "[RUN]");
    settings.add_filter(r"\b[0-9a-f]{8}\b", "[RUN8]");
    settings.add_filter(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", "[TS]");
    settings.add_filter(r"\b\d+ ms\b", "[N] ms");
    settings.add_filter(r"cowork(\.exe)?\b", "cowork");
    settings.add_filter(r"confine: .*", "confine: [WHETHER ROUTINES ARE CONFINED HERE]");
    // Column widths follow the widest cell (a run id, a duration): keep only the separation.
    settings.add_filter(r" {2,}", "  ");
    settings
}

fn workspace() -> Env {
    let env = Env::new(runtimes()[0]);
    env.app(
        "mail",
        r#"{ "name": "mail", "version": "1.0.0", "title": "Mail", "display": "sideways", "routines": {
            "mail-list": { "file": "list.ts", "readOnly": true, "description": "Lists the inbox" },
            "mail-send": { "file": "send.ts", "reachesOthers": true, "description": "Sends a message" },
            "mail-sync": "list.ts" } }"#,
        &[("list.ts", "export default (_a: any, ctx: any) => { ctx.unchanged(); return []; };\n"), ("send.ts", "export default () => 'sent';\n")],
    );
    env.app(
        "pad",
        r#"{ "name": "pad", "version": "1.0.0", "entry": "pad.jsx" }"#,
        &[(
            "pad.jsx",
            "import React from 'react'\nimport pad from 'left-pad'\nexport default () => null\n",
        )],
    );
    env.app("broken", r#"{ "name": "Broken App", "version": "1.0.0" }"#, &[]);
    env.app("tools", r#"{ "name": "tools", "version": "2.0.0", "kind": "capability", "routines": { "tools-wipe": { "file": "send.ts", "destructive": true } } }"#, &[("send.ts", "export default () => 1;\n")]);
    env.workspace_json(r#"{ "deployments": { "mail-sync": { "target": "container", "schedule": "*/5 * * * *" } } }"#);
    env
}

#[test]
fn app_list_shows_apps_problems_and_broken_folders() {
    let env = workspace();
    settings(&env)
        .bind(|| insta::assert_snapshot!("app_list", transcript(&env.run(&["app", "list"]))));
    let json: Value = serde_json::from_str(&stdout(&env.run(&["app", "list", "--json"]))).unwrap();
    assert_eq!(json["apps"].as_array().unwrap().len(), 3);
    assert_eq!(
        json["widgetProblems"],
        serde_json::json!([
            ".cowork/apps/pad/pad.jsx:2: \"left-pad\" is not in the cowork webapp allowlist"
        ])
    );
    assert_eq!(json["broken"][0]["dir"], ".cowork/apps/broken");
}

#[test]
fn routine_list_shows_risk_and_state() {
    let env = workspace();
    settings(&env).bind(|| {
        insta::assert_snapshot!("routine_list", transcript(&env.run(&["routine", "list"])))
    });
    let json: Value =
        serde_json::from_str(&stdout(&env.run(&["routine", "list", "--json"]))).unwrap();
    let wipe = json.as_array().unwrap().iter().find(|r| r["id"] == "tools-wipe").unwrap();
    assert_eq!(
        (wipe["risk"].as_str(), wipe["kind"].as_str(), wipe["state"].as_str()),
        (Some("high"), Some("capability"), Some("on demand"))
    );
}

#[test]
fn disabling_an_app_switches_its_routines_off_and_back() {
    let env = workspace();
    let out = env.run(&["app", "disable", "mail"]);
    assert_eq!(
        stdout(&out),
        ".cowork/apps/mail is now off: no rail icon, no file routes, its routines refuse to run.\n"
    );
    let written: Value = serde_json::from_str(
        &std::fs::read_to_string(env.ws.path().join(".cowork/workspace.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(written["disabled"]["apps"], serde_json::json!([".cowork/apps/mail"]));
    assert!(written["deployments"]["mail-sync"].is_object(), "other keys are kept");
    assert_eq!(env.routine("mail-send", "{}")["error"]["name"], "RoutineDisabled");
    assert_eq!(
        stdout(&env.run(&["app", "disable", ".cowork/apps/mail"])),
        ".cowork/apps/mail is already off.\n"
    );
    let enabled = stdout(&env.run(&["app", "enable", "mail", "--json"]));
    assert_eq!(
        serde_json::from_str::<Value>(&enabled).unwrap(),
        serde_json::json!({ "app": ".cowork/apps/mail", "enabled": true, "changed": true })
    );
    assert_eq!(env.routine("mail-send", "{}")["result"], "sent");
    let missing = env.run(&["app", "enable", "nope"]);
    assert_eq!(missing.status.code(), Some(3));
    settings(&env).bind(|| insta::assert_snapshot!("app_enable_unknown", transcript(&missing)));
}

#[test]
fn switching_an_app_off_leaves_the_rest_of_a_hand_written_workspace_json_as_written() {
    let env = workspace();
    let hand_written = "{\n    \"name\": \"Acme\",\n    \"openWith\": { \"*.csv\": \"mail\" },\n    \"rail\": { \"order\": [\"mail\", \"pad\"] }\n}\n";
    env.workspace_json(hand_written);
    assert!(env.run(&["app", "disable", "mail"]).status.success());
    let written = std::fs::read_to_string(env.ws.path().join(".cowork/workspace.json")).unwrap();
    assert_eq!(
        written,
        "{\n    \"name\": \"Acme\",\n    \"openWith\": { \"*.csv\": \"mail\" },\n    \"rail\": { \"order\": [\"mail\", \"pad\"] },\n    \"disabled\": {\n        \"apps\": [\n            \".cowork/apps/mail\"\n        ]\n    }\n}\n",
        "only the new member is added, in the file's 4-space indent"
    );
}

#[test]
fn runs_page_newest_first_and_print_the_next_page() {
    let env = workspace();
    for _ in 0..3 {
        env.routine("mail-send", "{}");
    }
    env.routine("mail-list", "{}");
    let first = env.run(&["routine", "runs", "--limit", "2"]);
    settings(&env).bind(|| insta::assert_snapshot!("runs_first_page", transcript(&first)));
    let next = stdout(&first)
        .lines()
        .last()
        .unwrap()
        .strip_prefix("next page: cowork ")
        .unwrap()
        .to_string();
    let args: Vec<&str> = next.split(' ').collect();
    let second = env.run(&args);
    assert_eq!(
        stdout(&second).lines().count(),
        2,
        "the third run, and no further page: {}",
        stdout(&second)
    );
    let page: Value = serde_json::from_str(&stdout(&env.run(&[
        "routine",
        "runs",
        "--json",
        "--unchanged",
        "--status",
        "ok",
        "--routine",
        "mail-list",
    ])))
    .unwrap();
    assert_eq!(page["runs"].as_array().unwrap().len(), 1);
    let unknown = env.run(&["routine", "runs", "show", "0123456789"]);
    assert_eq!(unknown.status.code(), Some(3));
    settings(&env).bind(|| insta::assert_snapshot!("runs_show_unknown", transcript(&unknown)));
}

#[test]
fn runs_list_newest_first_by_start_time() {
    let env = workspace();
    env.app(
        "chain",
        r#"{ "name": "chain", "version": "1.0.0", "routines": { "chain-outer": "outer.ts", "chain-inner": "inner.ts" } }"#,
        &[("outer.ts", "export default async (_a: any, ctx: any) => ctx.routines.run('chain-inner', {});\n"), ("inner.ts", "export default () => 'inner';\n")],
    );
    env.routine("mail-send", "{}");
    assert_eq!(env.routine("chain-outer", "{}")["result"], "inner");
    // The inner run finishes (and is appended) first, but started after its caller.
    let page: Value =
        serde_json::from_str(&stdout(&env.run(&["routine", "runs", "--json"]))).unwrap();
    let order: Vec<&str> = page["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["capability"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["chain-inner", "chain-outer", "mail-send"]);
}

#[test]
fn runs_filter_by_app_agent_and_task_and_record_the_agent() {
    let env = workspace();
    env.routine("mail-send", "{}");
    assert!(env
        .cmd(&["routine", "run", "tools-wipe"])
        .env("COWORK_AGENT", "my-bot")
        .output()
        .unwrap()
        .status
        .success());
    assert!(env
        .cmd(&["routine", "run", "mail-send"])
        .env("CLAUDECODE", "1")
        .output()
        .unwrap()
        .status
        .success());
    let runs = |filter: &[&str]| -> Vec<(String, Value)> {
        let page: Value = serde_json::from_str(&stdout(
            &env.run(&[&["routine", "runs", "--json"], filter].concat()),
        ))
        .unwrap();
        page["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["capability"].as_str().unwrap().to_string(), r["context"]["agent"].clone()))
            .collect()
    };
    assert_eq!(runs(&["--app", "tools"]), [("tools-wipe".to_string(), Value::from("my-bot"))]);
    assert_eq!(
        runs(&["--agent", "claude-code"]),
        [("mail-send".to_string(), Value::from("claude-code"))]
    );
    assert_eq!(
        runs(&["--app", "mail"]).iter().map(|(_, agent)| agent.clone()).collect::<Vec<_>>(),
        [Value::from("claude-code"), Value::Null]
    );
    // No run here is made for a task (only the MCP door will carry one): the filter matches none.
    assert!(runs(&["--task", "task-1"]).is_empty());
}

#[test]
fn runs_of_every_workspace_and_a_next_page_command_that_pastes() {
    let env = workspace();
    // A second workspace under the same root, in a folder whose name has a space.
    let other = env.file("my work");
    let other_app = other.join(".cowork/apps/pad2");
    std::fs::create_dir_all(&other_app).unwrap();
    std::fs::write(other_app.join("cowork.json"), r#"{ "name": "pad2", "version": "1.0.0", "routines": { "pad2-hit": "hit.ts", "pad2-fail": "fail.ts" } }"#).unwrap();
    std::fs::write(other_app.join("hit.ts"), "export default () => 'hit';\n").unwrap();
    std::fs::write(other_app.join("fail.ts"), "export default () => { throw new Error('no'); };\n")
        .unwrap();
    let other_arg = path_str(&other);
    let mut other_runs = Vec::new();
    for _ in 0..2 {
        let out = env.run(&["routine", "run", "pad2-hit", "--workspace", &other_arg, "--json"]);
        other_runs.push(
            serde_json::from_str::<Value>(&stdout(&out)).unwrap()["runId"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    env.routine("mail-send", "{}");

    let all: Value =
        serde_json::from_str(&stdout(&env.run(&["routine", "runs", "--all", "--json"]))).unwrap();
    let routines: Vec<&str> =
        all["runs"].as_array().unwrap().iter().map(|r| r["capability"].as_str().unwrap()).collect();
    assert_eq!(routines, ["mail-send", "pad2-hit", "pad2-hit"]);
    let here: Value =
        serde_json::from_str(&stdout(&env.run(&["routine", "runs", "--json"]))).unwrap();
    assert_eq!(here["runs"].as_array().unwrap().len(), 1, "without --all: this workspace only");
    let shown = env.run(&["routine", "runs", "show", &other_runs[0], "--all"]);
    assert!(stdout(&shown).contains("pad2-hit"), "{}", stderr(&shown));
    assert_eq!(
        env.run(&["routine", "runs", "show", &other_runs[0]]).status.code(),
        Some(3),
        "not in this workspace's log"
    );

    let real_other = path_str(&other.canonicalize().unwrap());
    let first = stdout(&env.run(&["routine", "runs", "--workspace", &other_arg, "--limit", "1"]));
    let next = first.lines().last().unwrap().strip_prefix("next page: ").unwrap();
    assert!(
        next.starts_with(&format!("cowork routine runs --workspace '{real_other}' --before ")),
        "{next}"
    );
    // Pasted into a shell as printed, it gives the second page.
    let shell = std::process::Command::new("sh")
        .arg("-c")
        .arg(next.replacen("cowork", env!("CARGO_BIN_EXE_cowork"), 1))
        .env("COWORK_HOME", env.home.path())
        .output()
        .unwrap();
    assert!(shell.status.success(), "{}", stderr(&shell));
    assert!(stdout(&shell).contains(&other_runs[0][..8]), "{}", stdout(&shell));
    let all_next = stdout(&env.run(&["routine", "runs", "--all", "--limit", "1", "--app", "mail"]));
    assert!(!all_next.contains("next page"), "one mail run: a single page\n{all_next}");
    let all_paged = stdout(&env.run(&["routine", "runs", "--all", "--limit", "1"]));
    assert_eq!(
        all_paged.lines().next().unwrap().split_whitespace().take(2).collect::<Vec<_>>(),
        ["RUN", "WORKSPACE"],
        "{all_paged}"
    );
    assert!(
        all_paged
            .lines()
            .last()
            .unwrap()
            .starts_with("next page: cowork routine runs --all --before "),
        "{all_paged}"
    );
    // The hint after a failed run quotes the path as well.
    let failed = stderr(&env.run(&["routine", "run", "pad2-fail", "--workspace", &other_arg]));
    assert!(
        failed.lines().last().unwrap().ends_with(&format!(" --workspace '{real_other}'")),
        "{failed}"
    );
}

#[test]
fn help_and_errors_read_well() {
    let env = workspace();
    // A key file, so `cowork status` reads the same with or without an OS keychain.
    assert!(env.run(&["secrets", "init", "--key-file"]).status.success());
    for (name, args) in [
        ("help", vec!["--help"]),
        ("routine_run_help", vec!["routine", "run", "--help"]),
        ("routine_runs_help", vec!["routine", "runs", "--help"]),
        ("routine_runs_show_help", vec!["routine", "runs", "show", "--help"]),
        ("run_unknown", vec!["routine", "run", "mail-nope"]),
        ("run_bad_args", vec!["routine", "run", "mail-send", "--args", "nope"]),
        ("status_not_running", vec!["status"]),
        ("start_bad_slots", vec!["start", "--headless", "--slots", "0"]),
    ] {
        let out = env.run(&args);
        settings(&env).bind(|| insta::assert_snapshot!(name, transcript(&out)));
    }
    let empty = Env::new(runtimes()[0]);
    let out = empty.run(&["routine", "run", "x"]);
    settings(&empty)
        .bind(|| insta::assert_snapshot!("run_in_a_folder_without_apps", transcript(&out)));
}

#[test]
fn the_references_commands_this_version_lacks_say_so_by_name() {
    let env = Env::new(runtimes()[0]);
    for (command, named) in [
        (&["restart"][..], "restart"),
        (&["update", "--force"], "update"),
        (&["self-update", "--port", "4000"], "self-update"),
        (&["machine", "add", "box", "me@box"], "machine"),
        (&["webapp", "deploy", "site"], "webapp"),
        (&["personal-server", "status", "--json"], "personal-server"),
        (&["app", "build", "--out", "dist"], "app build"),
        (&["app", "deploy"], "app deploy"),
    ] {
        let out = env.run(command);
        assert_eq!(out.status.code(), Some(5), "{command:?}: {}", stderr(&out));
        assert!(
            stderr(&out)
                .starts_with(&format!("error: `cowork {named}` is not available in this version")),
            "{command:?}: {}",
            stderr(&out)
        );
    }
    // Not offered as commands: only met by someone who follows the reference.
    assert!(!stdout(&env.run(&["--help"])).contains("restart"));
}
