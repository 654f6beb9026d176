//! `cowork routine run` without a daemon (the engine in the CLI process), on Bun and on Node:
//! results, every error name, timeouts, nesting, the audit line byte by byte.

use crate::support::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const NOTES: &str = r#"{ "name": "notes", "version": "1.2.3", "routines": {
  "notes-hello": "hello.ts",
  "notes-fail": "fail.ts",
  "notes-quiet": "quiet.ts",
  "notes-bigint": "bigint.ts",
  "notes-slow": { "file": "slow.ts", "timeout": 1 },
  "notes-escape": { "file": "escape.ts", "timeout": 1 },
  "notes-hang": { "file": "slow.ts", "timeout": 60 },
  "notes-crash": "crash.ts",
  "notes-dup": "dup.ts",
  "notes-a": "a.ts", "notes-b": "b.ts", "notes-c": "c.ts", "notes-d": "d.ts",
  "notes-loop": "loop.ts",
  "notes-parent": { "file": "parent.ts", "timeout": 2 },
  "notes-unavailable": "unavailable.ts",
  "notes-bad-calls": "bad-calls.ts",
  "notes-chatty": "chatty.ts",
  "notes-off": "hello.ts"
} }"#;

fn notes(env: &Env) {
    env.app(
        "notes",
        NOTES,
        &[
            ("lib/greet.ts", "export const greet = (who: string): string => `hello ${who}`;\n"),
            (
                "hello.ts",
                r#"import { greet } from "./lib/greet";
interface Args { who?: string; secret_token?: string }
export default async (args: Args, ctx: any) => {
  console.log("stdout line");
  ctx.log("ctx line", { n: 1 });
  return { text: greet(args.who ?? "world"), workspace: ctx.workspaceRoot, identity: ctx.identity,
           env: Object.keys(process.env).filter((k) => k.startsWith("COWORK")).sort() };
};
"#,
            ),
            ("fail.ts", "export default async (_a: any, ctx: any) => { ctx.log('about to fail'); throw ctx.error('NotConnected', 'connect it first'); };\n"),
            ("quiet.ts", "export default (_a: any, ctx: any) => { ctx.unchanged(); ctx.log('quiet'); return [1, 2]; };\n"),
            ("bigint.ts", "export default () => ({ n: 10n });\n"),
            (
                "slow.ts",
                r#"import { spawn } from "node:child_process";
export default async (args: any) => { spawn("sleep", [String(args.marker)]); await new Promise(() => {}); };
"#,
            ),
            (
                "escape.ts",
                r#"import { spawn } from "node:child_process";
export default async (args: any) => { spawn("sleep", [String(args.marker)], { detached: true, stdio: "ignore" }); await new Promise(() => {}); };
"#,
            ),
            ("crash.ts", "export default () => { console.error('going down'); process.kill(process.pid, 'SIGKILL'); };\n"),
            ("dup.ts", "const a = 1;\nconst b = 2;\nlet a = 3;\nexport default () => a + b;\n"),
            ("a.ts", "export default async (_a: any, ctx: any) => ctx.routines.run('notes-b', {});\n"),
            ("b.ts", "export default async (_a: any, ctx: any) => ctx.routines.run('notes-c', {});\n"),
            ("c.ts", "export default async (_a: any, ctx: any) => ctx.routines.run('notes-d', {});\n"),
            ("d.ts", "export default () => 'deep';\n"),
            ("loop.ts", "export default async (args: any, ctx: any) => args.again ? ctx.routines.run('notes-loop', {}) : ctx.routines.run('notes-loop', { again: false, x: 1 });\n"),
            (
                "parent.ts",
                "export default async (_a: any, ctx: any) => ctx.routines.run('notes-slow', { marker: 4242 }, { timeoutMs: 60000 });\n",
            ),
            (
                "chatty.ts",
                r#"export default (_a: any, ctx: any) => {
  for (let i = 0; i < 20; i++) { ctx.log(`ctx ${i}`); console.log(`out ${i}`); console.error(`err ${i}`); console.warn(`warn ${i}\nsecond ${i}`); }
  return "said";
};
"#,
            ),
            (
                "bad-calls.ts",
                r#"export default async (_a: any, ctx: any) => {
  const out = [];
  for (const [id, options] of [["notes-d", { timeoutMs: 0 }], ["notes-d", { timeoutMs: -5 }], ["notes-d", { timeoutMs: "abc" }], ["notes-d", { timeoutMs: 1.5 }], ["notes-d", { timeoutMs: 300001 }], [5, {}]]) {
    try { await ctx.routines.run(id, {}, options); out.push("ran"); } catch (e: any) { out.push(`${e.name}: ${e.message}`); }
  }
  out.push(await ctx.routines.run("notes-d", {}, { timeoutMs: 5000 }));
  return out;
};
"#,
            ),
            (
                "unavailable.ts",
                r#"export default async (_a: any, ctx: any) => {
  const names = [];
  for (const f of [() => ctx.queue(""), () => ctx.journal.add({ skill: "x" }), () => ctx.browser.open("https://example.com")]) {
    try { await f(); } catch (e: any) { names.push(e.name); }
  }
  return names;
};
"#,
            ),
        ],
    );
    env.workspace_json(r#"{ "disabled": { "routines": ["notes-off"] } }"#);
}

#[test]
fn a_routine_runs_and_prints_its_result() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        notes(&env);
        let out = env.run(&["routine", "run", "notes-hello", "--args", r#"{"who":"ana"}"#]);
        assert!(out.status.success(), "{runtime}: {}", stderr(&out));
        let result: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(result["text"], "hello ana", "{runtime}");
        assert_eq!(result["workspace"], json!(path_str(&env.ws_path())));
        assert_eq!(result["identity"], json!({"user": null, "organization": null}));
        // Never the owner's token (or any other COWORK_ variable of ours); the per-run token is
        // gone once the runner used it, so nothing the routine starts inherits it.
        assert_eq!(result["env"], json!(["COWORK_RUN_ID", "COWORK_WORKSPACE"]));
        let types = std::fs::read_to_string(env.file(".cowork/local/cowork.d.ts"))
            .expect("every workspace gets the SDK types");
        assert!(
            types.contains("interface CoworkRoutineContext")
                && types.contains("interface CoworkSDK")
        );
        assert_eq!(
            std::fs::read_to_string(env.file(".cowork/local/.gitignore")).unwrap(),
            "# Cowork's machine-local files\n*\n"
        );

        let mut stdin_run = env
            .cmd(&["routine", "run", "notes-hello", "--args", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        stdin_run.stdin.take().unwrap().write_all(br#"{"who":"stdin"}"#).unwrap();
        let out = stdin_run.wait_with_output().unwrap();
        assert!(stdout(&out).contains("hello stdin"), "{runtime}");
    }
}

#[test]
fn every_run_leaves_one_audit_line_in_the_documented_shape() {
    let env = Env::new(runtimes()[0]);
    notes(&env);
    let ok = env.routine("notes-hello", r#"{"who":"ana","secret_token":"s3cr3t"}"#);
    let lines = env.audit_lines();
    assert_eq!(lines.len(), 1);
    let line = &lines[0];
    assert!(!line.contains("s3cr3t"), "credential-looking keys are redacted: {line}");
    let keys: Vec<&str> = [
        "\"ts\":",
        "\"capability\":",
        "\"input\":",
        "\"status\":",
        "\"durationMs\":",
        "\"context\":",
    ]
    .to_vec();
    let positions: Vec<usize> = keys
        .iter()
        .map(|k| line.find(k).unwrap_or_else(|| panic!("{k} missing in {line}")))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "documented key order: {line}");
    let record: Value = serde_json::from_str(line).unwrap();
    assert_eq!(record["capability"], "notes-hello");
    assert_eq!(record["input"], json!({"who": "ana", "secret_token": "[redacted]"}));
    assert_eq!(record["status"], "ok");
    let context = &record["context"];
    assert_eq!(context["executionId"], ok["runId"]);
    assert_eq!(
        (context["userId"].clone(), context["organizationId"].clone()),
        (Value::Null, Value::Null)
    );
    assert_eq!(context["deviceId"].as_str().unwrap().len(), 32);
    assert_eq!(context["workspace"], json!(path_str(&env.ws_path())));
    assert_eq!(
        (
            context["source"].as_str(),
            context["appId"].as_str(),
            context["appVersion"].as_str(),
            context["kind"].as_str()
        ),
        (Some("cli"), Some("notes"), Some("1.2.3"), Some("app"))
    );
    assert!(record["ts"].as_str().unwrap().ends_with('Z'));
    // A run that changed something keeps a result preview and its log lines (stdout and ctx.log).
    assert!(record["result"].as_str().unwrap().starts_with("{\"text\":\"hello ana\""));
    assert_eq!(
        record["log"], "stdout line\nctx line { n: 1 }",
        "in the order the routine wrote them"
    );

    let today = time::OffsetDateTime::now_utc().date();
    let file = env.audit_dir().join(format!("{today}.jsonl"));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    let key = env.audit_dir().parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        key.starts_with(
            &path_str(&env.ws_path()).replace(|c: char| !c.is_ascii_alphanumeric(), "-")
        ),
        "{key}"
    );
}

#[test]
fn an_audit_line_is_exactly_the_documented_line() {
    let env = Env::new(runtimes()[0]);
    notes(&env);
    let out = env
        .cmd(&[
            "routine",
            "run",
            "notes-fail",
            "--args",
            r#"{"folder":"INBOX","api_key":"k-123"}"#,
            "--json",
        ])
        .env("COWORK_AGENT", "claude-code")
        .output()
        .unwrap();
    let outcome: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let lines = env.audit_lines();
    assert_eq!(lines.len(), 1);
    let record: Value = serde_json::from_str(&lines[0]).unwrap();
    let (ts, device) =
        (record["ts"].as_str().unwrap(), record["context"]["deviceId"].as_str().unwrap());
    assert!(ts.len() == 24 && ts.ends_with('Z') && device.len() == 32, "{ts} {device}");
    // Only what differs from run to run is replaced; every other byte is compared.
    let line = lines[0]
        .replace(&format!(r#""ts":"{ts}""#), r#""ts":"[TS]""#)
        .replace(&format!(r#""durationMs":{},"#, record["durationMs"]), r#""durationMs":[N],"#)
        .replace(outcome["error"]["runId"].as_str().unwrap(), "[RUN]")
        .replace(device, "[DEVICE]")
        .replace(&path_str(&env.ws_path()), "[WS]");
    assert_eq!(
        line,
        concat!(
            r#"{"ts":"[TS]","capability":"notes-fail","input":{"folder":"INBOX","api_key":"[redacted]"},"status":"error","durationMs":[N],"#,
            r#""context":{"executionId":"[RUN]","userId":null,"organizationId":null,"deviceId":"[DEVICE]","workspace":"[WS]","source":"cli","agent":"claude-code","appId":"notes","appVersion":"1.2.3","kind":"app"},"#,
            r#""error":{"name":"NotConnected","message":"connect it first"},"log":"about to fail"}"#
        )
    );
}

#[test]
fn failures_carry_their_name_and_run_id() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        notes(&env);
        let failed = env.routine("notes-fail", "{}");
        assert_eq!(failed["ok"], false);
        assert_eq!(
            (failed["error"]["name"].as_str(), failed["error"]["message"].as_str()),
            (Some("NotConnected"), Some("connect it first")),
            "{runtime}"
        );
        assert_eq!(failed["error"]["runId"].as_str().unwrap().len(), 32);

        let out = env.run(&["routine", "run", "notes-fail"]);
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert!(err.starts_with("error: notes-fail failed: NotConnected: connect it first\nhint: its log and input: cowork routine runs show "), "{err}");

        let missing = env.run(&["routine", "run", "notes-nope"]);
        assert_eq!(missing.status.code(), Some(3), "Cowork's own NotFound");
        assert!(stderr(&missing)
            .starts_with("error: NotFound: no routine \"notes-nope\" in this workspace"));
        let json = env.routine("notes-nope", "{}");
        assert_eq!(
            (json["error"]["name"].as_str(), json["error"]["message"].as_str()),
            (Some("NotFound"), Some("no routine \"notes-nope\" in this workspace"))
        );
        assert!(json["error"]["runId"].is_null(), "no runId: nothing ran");
        // The hint text mode prints comes with the JSON too.
        assert_eq!(
            json["error"]["hint"].as_str(),
            stderr(&missing).lines().find_map(|l| l.strip_prefix("hint: ")),
            "{json}"
        );

        let off = env.routine("notes-off", "{}");
        assert_eq!(off["error"]["name"], "RoutineDisabled");
        assert!(off["error"]["runId"].is_null());

        let dup = env.routine("notes-dup", "{}");
        assert_eq!(dup["error"]["name"], "BadRoutine");
        let message = dup["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("`a` is declared twice") && message.contains("line 1"),
            "{message}"
        );

        let bigint = env.run(&["routine", "run", "notes-bigint"]);
        assert!(bigint.status.success());
        assert_eq!(stdout(&bigint).trim(), "null");
        assert!(
            stderr(&bigint)
                .contains("warning: the routine's return value is not JSON-serializable"),
            "{}",
            stderr(&bigint)
        );

        let crash = env.routine("notes-crash", "{}");
        assert_eq!(crash["error"]["name"], "RoutineCrashed", "{runtime}: {crash}");
        assert!(crash["error"]["message"].as_str().unwrap().contains("going down"));

        let names = env.routine("notes-unavailable", "{}");
        assert_eq!(
            names["result"],
            json!(["BadRequest", "BadRequest", "NotDeclared"]),
            "{runtime}"
        );
    }
}

#[test]
fn a_switched_off_routine_says_what_switched_it_off_and_how_to_switch_it_on() {
    let env = Env::new(runtimes()[0]);
    notes(&env);
    let off = env.run(&["routine", "run", "notes-off"]);
    assert_eq!(off.status.code(), Some(1));
    assert_eq!(
        stderr(&off),
        "error: RoutineDisabled: the routine \"notes-off\" is switched off in .cowork/workspace.json#disabled.routines\n\
         hint: switch it back on: remove \"notes-off\" from disabled.routines in .cowork/workspace.json\n"
    );

    assert!(env.run(&["app", "disable", "notes"]).status.success());
    let app_off = env.run(&["routine", "run", "notes-hello"]);
    assert_eq!(
        stderr(&app_off),
        format!(
            "error: RoutineDisabled: \"notes-hello\" belongs to notes (.cowork/apps/notes), which is switched off in .cowork/workspace.json#disabled.apps\n\
             hint: switch its app back on: `cowork app enable notes --workspace {}`\n",
            path_str(&env.ws_path())
        )
    );
}

/// A `.cowork/workspace.json` its off-switches cannot be read from (a bad merge left a trailing
/// comma; `disabled` of the wrong shape) turns nothing back on: no routine runs until it is fixed.
/// An `unrestrictedPackages` of the wrong type is read as `false`.
#[test]
fn a_damaged_workspace_json_turns_no_switch_back_on() {
    let env = Env::new(runtimes()[0]);
    notes(&env);
    for (damaged, why) in [
        (
            r#"{"disabled": {"routines": ["notes-off"]}},"#,
            "is not valid JSON (trailing characters at line 1 column 42)",
        ),
        (
            r#"{"disabled": {"routines": "notes-off"}}"#,
            "\"disabled.routines\": \"notes-off\" is not an array",
        ),
    ] {
        env.workspace_json(damaged);
        for id in ["notes-off", "notes-hello"] {
            let out = env.run(&["routine", "run", id]);
            assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
            assert!(
                stderr(&out).starts_with(&format!("error: RoutineDisabled: \"{id}\" may not run while the off-switches of .cowork/workspace.json cannot be read ({why}); fix the file (`cowork app list` names the problem)\nhint: fix .cowork/workspace.json (git diff shows what changed in it); until then no routine here runs\n")),
                "{}",
                transcript(&out)
            );
        }
    }
    env.workspace_json(
        r#"{"disabled": {"routines": ["notes-off"]}, "unrestrictedPackages": "no"}"#,
    );
    assert_eq!(env.routine("notes-off", "{}")["error"]["name"], "RoutineDisabled");
    let old = env.routine("notes-hello", "{}");
    assert_eq!(old["error"]["name"], "Forbidden", "notes is an old-style package: {old}");
}

#[test]
fn a_routine_dropped_from_its_manifest_says_why() {
    let env = Env::new(runtimes()[0]);
    env.app("mail", r#"{ "name": "mail", "version": "1.0.0", "routines": { "mail-send": "send.ts", "mail-up": "../x.ts" } }"#, &[]);
    env.app(
        "lost",
        r#"{ "name": "Lost", "version": "1.0.0", "routines": { "lost-sync": "sync.ts" } }"#,
        &[("sync.ts", "export default () => 1;\n")],
    );
    for (id, why) in [
        ("mail-send", ".cowork/apps/mail/cowork.json: \"routines.mail-send\": the file \"send.ts\" does not exist — ignored"),
        ("mail-up", ".cowork/apps/mail/cowork.json: \"routines.mail-up\": \"../x.ts\" is not a path inside the app folder (relative, forward slashes, no .., no \\, no drive letter) — ignored"),
        ("lost-sync", ".cowork/apps/lost declares it but is not an app: .cowork/apps/lost/cowork.json: \"name\": \"Lost\" is not a lowercase name (letters, digits and dashes, starting with a letter or digit, at most 63 characters) — not an app"),
    ] {
        let out = env.run(&["routine", "run", id]);
        assert_eq!(out.status.code(), Some(3), "{id}");
        assert_eq!(
            stderr(&out),
            format!("error: NotFound: no routine \"{id}\" in this workspace: its manifest entry was dropped ({why})\nhint: fix the manifest entry; `cowork app list` shows every manifest's problems\n")
        );
    }
}

#[test]
fn a_routine_of_an_app_whose_manifest_is_not_json_points_at_that_manifest() {
    let env = Env::new(runtimes()[0]);
    notes(&env);
    std::fs::write(env.file(".cowork/apps/notes/cowork.json"), "{ \"name\": \"notes\",").unwrap();
    let out = env.cmd(&["routine", "run", "notes-hello"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let said = stderr(&out);
    assert!(
        said.contains("hint: its app may be .cowork/apps/notes, whose manifest did not load (.cowork/apps/notes/cowork.json: "),
        "{said}"
    );
    // An id named after no broken app still hears which folders did not load.
    let out = env.cmd(&["routine", "run", "mail-send"]).output().unwrap();
    assert!(
        stderr(&out).contains("hint: these app folders did not load, so none of their routines is registered: .cowork/apps/notes;"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_cowork_root_a_command_creates_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new(runtimes()[0]);
    notes(&env);
    let mode =
        |folder: &std::path::Path| std::fs::metadata(folder).unwrap().permissions().mode() & 0o777;
    // `status` and `doctor` only look: they leave a root that does not exist uncreated (they
    // used to make it, 0755, writing the device id — and doctor said it "does not exist yet").
    for command in [&["status"][..], &["doctor"]] {
        let root = env.home.path().join(format!("fresh-root-{}", command[0]));
        let out = env.cmd(command).env("COWORK_HOME", &root).output().unwrap();
        assert!(!root.exists(), "{command:?}: {}", stdout(&out));
    }
    // What creates it makes it private (it then holds the owner token, secrets' key and agents'
    // logins).
    for command in [&["doctor", "--fix"][..], &["routine", "run", "notes-hello"]] {
        let root = env.home.path().join(format!("fresh-root-{}", command[0]));
        let out = env.cmd(command).env("COWORK_HOME", &root).output().unwrap();
        assert!(root.exists(), "{command:?}: {}", stderr(&out));
        assert_eq!(mode(&root), 0o700, "{command:?}");
    }
    let ran = env.home.path().join("fresh-root-routine");
    assert_eq!(mode(&ran.join("workspaces")), 0o700);
}

#[test]
fn a_run_from_inside_an_app_folder_names_the_enclosing_workspace() {
    let env = Env::new(runtimes()[0]);
    notes(&env);
    let ws = env.ws_path();
    let out = env
        .cmd(&["routine", "run", "notes-hello"])
        .current_dir(env.file(".cowork/apps/notes"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let hint = stderr(&out).lines().last().unwrap().to_string();
    assert_eq!(hint, format!("hint: {}/.cowork/apps/notes has no .cowork/apps folder; it is inside the workspace {}: run from there or pass --workspace {}", ws.display(), ws.display(), ws.display()));
}

#[test]
fn bad_arguments_are_usage_errors() {
    let env = Env::new(runtimes()[0]);
    notes(&env);
    let out = env.run(&["routine", "run", "notes-hello", "--args", "{who:1}"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("error: --args is not valid JSON"));
    // `--args -` with nothing piped in is not told to pipe it with `--args -`.
    let out = env.run(&["routine", "run", "notes-hello", "--args", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), "error: --args - read nothing from stdin\nhint: pipe the JSON in: echo '{\"title\":\"Hi\"}' | cowork routine run <id> --args -\n");
    for ms in ["0", "300001"] {
        let out = env.run(&["routine", "run", "notes-hello", "--timeout-ms", ms]);
        assert_eq!(
            (out.status.code(), stderr(&out).as_str()),
            (Some(2), "error: --timeout-ms is from 1 to 300000 (300 s)\n")
        );
    }
    assert!(env.audit_lines().is_empty(), "nothing ran, nothing recorded");
}

#[test]
fn a_timeout_kills_the_whole_process_tree() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        notes(&env);
        let marker = if runtime == "bun" { "4131" } else { "4132" };
        let started = Instant::now();
        let out = env.routine("notes-slow", &format!(r#"{{"marker":{marker}}}"#));
        let took = started.elapsed();
        assert_eq!(out["error"]["name"], "Timeout", "{runtime}: {out}");
        assert!(out["error"]["message"].as_str().unwrap().contains("within 1 s"));
        assert!(took >= Duration::from_millis(900) && took < Duration::from_secs(8), "{took:?}");
        assert!(
            eventually(Duration::from_secs(3), || !process_running(&format!("sleep {marker}"))),
            "the routine's child outlived the timeout"
        );
        let record: Value = serde_json::from_str(env.audit_lines().last().unwrap()).unwrap();
        assert_eq!(
            (record["status"].as_str(), record["error"]["name"].as_str()),
            (Some("error"), Some("Timeout"))
        );
    }
}

#[test]
fn a_timeout_kills_a_descendant_that_left_the_process_group() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        notes(&env);
        // `detached: true` makes the child call setsid: a group kill alone no longer reaches it.
        let marker = sleep_marker(if runtime == "bun" { 1 } else { 2 });
        let out = env.routine("notes-escape", &format!(r#"{{"marker":{marker}}}"#));
        assert_eq!(out["error"]["name"], "Timeout", "{runtime}: {out}");
        assert!(
            eventually(Duration::from_secs(3), || !process_running(&format!("sleep {marker}"))),
            "{runtime}: the detached child outlived the timeout"
        );
    }
}

#[test]
fn ctrl_c_on_a_run_without_the_daemon_ends_the_routines_processes_and_records_it() {
    let env = Env::new(runtimes()[0]);
    notes(&env);
    let marker = sleep_marker(4);
    let child = format!("sleep {marker}");
    let cli = env
        .cmd(&["routine", "run", "notes-hang", "--args", &format!(r#"{{"marker":{marker}}}"#)])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    assert!(
        eventually(Duration::from_secs(10), || process_running(&child)),
        "the routine started its child"
    );
    // The routine's process group is its own: like a terminal's Ctrl-C, this reaches the CLI only.
    let sent =
        std::process::Command::new("kill").args(["-INT", &cli.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let out = cli.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("error: notes-hang failed: Stopped: stopped by the person (Ctrl-C) before it returned a result\nhint: its log and input: cowork routine runs show "),
        "{said}"
    );
    assert!(
        eventually(Duration::from_secs(3), || !process_running(&child)),
        "the routine's child outlived the Ctrl-C"
    );
    // The run is recorded, as every run is: stopped, by name.
    let runs = env.run(&["routine", "runs", "--json", "--routine", "notes-hang"]);
    let runs: serde_json::Value = serde_json::from_slice(&runs.stdout).unwrap();
    let run = &runs["runs"][0];
    assert_eq!(
        [&run["status"], &run["error"]["name"]],
        [&serde_json::json!("error"), &serde_json::json!("Stopped")],
        "{runs}"
    );
}

#[test]
fn calls_nest_two_deep_and_never_in_a_cycle() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        notes(&env);
        let deep = env.routine("notes-b", "{}");
        assert_eq!(deep["result"], "deep", "{runtime}: b → c → d is two deep");
        let too_deep = env.routine("notes-a", "{}");
        assert_eq!(too_deep["error"]["name"], "RoutineDepth", "{runtime}: {too_deep}");
        let cycle = env.routine("notes-loop", "{}");
        assert_eq!(cycle["error"]["name"], "RoutineCycle", "{runtime}: {cycle}");
        assert!(cycle["error"]["message"].as_str().unwrap().contains("notes-loop → notes-loop"));

        // The nested run's audit line names its chain.
        let records: Vec<Value> =
            env.audit_lines().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        let d = records.iter().find(|r| r["capability"] == "notes-d").unwrap();
        assert_eq!(
            d["context"]["caller"],
            json!({"app": "notes", "chain": ["notes-b", "notes-c"]})
        );

        let out =
            env.run(&["routine", "runs", "show", d["context"]["executionId"].as_str().unwrap()]);
        assert!(stdout(&out).contains("via notes-b → notes-c → notes-d"), "{}", stdout(&out));
    }
}

#[test]
fn a_nested_run_never_outlives_its_caller() {
    let env = Env::new(runtimes()[0]);
    notes(&env);
    // notes-parent has 2 s; it asks for 60 s for notes-slow (whose own limit is 1 s, overridden by
    // the caller's timeoutMs) — the nested run is cut at what is left of the parent's 2 s.
    let started = Instant::now();
    let out = env.routine("notes-parent", "{}");
    assert_eq!(out["error"]["name"], "Timeout", "{out}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let records: Vec<Value> =
        env.audit_lines().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let nested = records
        .iter()
        .find(|r| r["capability"] == "notes-slow")
        .expect("the nested run is recorded");
    assert_eq!(nested["error"]["name"], "Timeout");
    // Cut at the parent's deadline (2 s), far from the 60 s asked; the bound leaves room for a busy
    // machine, and the message below says which limit stopped it.
    let took = nested["durationMs"].as_u64().unwrap();
    assert!(took < 5000, "cut at the parent's deadline, took {took} ms");
    let message = nested["error"]["message"].as_str().unwrap();
    assert!(message.ends_with("(that was what its caller notes-parent had left of its own time; raise \"timeout\" for notes-parent in cowork.json, at most 300)"), "{message}");
    assert!(eventually(Duration::from_secs(3), || !process_running("sleep 4242")));
}

#[test]
fn unchanged_runs_are_kept_but_hidden() {
    let env = Env::new(runtimes()[0]);
    notes(&env);
    env.routine("notes-quiet", "{}");
    env.routine("notes-hello", "{}");
    let record: Value = serde_json::from_str(&env.audit_lines()[0]).unwrap();
    assert_eq!(record["unchanged"], true);
    assert!(record.get("result").is_none() && record.get("log").is_none(), "{record}");
    let listed = stdout(&env.run(&["routine", "runs"]));
    assert!(listed.contains("notes-hello") && !listed.contains("notes-quiet"), "{listed}");
    let all = stdout(&env.run(&["routine", "runs", "--unchanged"]));
    assert!(all.contains("notes-quiet"), "{all}");
}

#[test]
fn bad_nested_calls_are_refused_before_anything_starts() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        notes(&env);
        let refused = |what: &str| format!("BadRequest: ctx.routines.run: {what}");
        let timeout = |value: &str| {
            refused(&format!(
                "timeoutMs is a whole number of milliseconds from 1 to 300000, not {value}"
            ))
        };
        assert_eq!(
            env.ok("notes-bad-calls", json!({})),
            json!([
                timeout("0"),
                timeout("-5"),
                timeout("\"abc\""),
                timeout("1.5"),
                timeout("300001"),
                refused("the routine id is a string such as \"notes-list\", not a number"),
                "deep"
            ]),
            "{runtime}"
        );
        let started: Vec<String> = env
            .audit_lines()
            .iter()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["capability"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(started, ["notes-d", "notes-bad-calls"], "{runtime}: only the good call ran");
    }
}

#[test]
fn a_long_workspace_path_keeps_its_audit_log() {
    let env = Env::new(runtimes()[0]);
    // ~330 characters: the workspace's folder under the root would exceed the 255 bytes a name may have.
    let deep = env.ws.path().join("a-rather-long-folder-name/".repeat(12));
    let app = deep.join(".cowork/apps/deep");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("cowork.json"),
        r#"{ "name": "deep", "version": "1.0.0", "routines": { "deep-hi": "hi.ts" } }"#,
    )
    .unwrap();
    std::fs::write(app.join("hi.ts"), "export default () => 'hi';\n").unwrap();
    let run = |args: &[&str]| env.cmd(args).current_dir(&deep).output().unwrap();
    let outcome: Value =
        serde_json::from_slice(&run(&["routine", "run", "deep-hi", "--json"]).stdout).unwrap();
    assert_eq!(outcome["ok"], true, "{outcome}");
    assert!(outcome["warnings"].as_array().is_none_or(Vec::is_empty), "{outcome}");
    let runs = run(&["routine", "runs", "--json"]);
    assert!(runs.status.success(), "{}", stderr(&runs));
    let page: Value = serde_json::from_slice(&runs.stdout).unwrap();
    assert_eq!(page["runs"][0]["context"]["executionId"], outcome["runId"]);
}

#[test]
fn a_run_whose_audit_line_is_lost_says_so() {
    let env = Env::new(runtimes()[0]);
    notes(&env);
    // A file where the audit folder belongs: no day file can be written.
    std::fs::create_dir_all(env.audit_dir().parent().unwrap()).unwrap();
    std::fs::write(env.audit_dir(), "not a folder").unwrap();
    let lost = "this run was not recorded in the audit log (failed to append to the audit log ";
    let outcome = env.routine("notes-d", "{}");
    assert_eq!(outcome["result"], "deep");
    assert!(outcome["warnings"][0].as_str().unwrap().starts_with(lost), "{outcome}");
    let failed = env.routine("notes-fail", "{}");
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("connect it first (also: {lost}")),
        "{failed}"
    );
    let printed = env.run(&["routine", "run", "notes-d"]);
    assert!(
        stderr(&printed).contains(&format!("\nwarning: {lost}"))
            || stderr(&printed).starts_with(&format!("warning: {lost}")),
        "{}",
        stderr(&printed)
    );
}

#[test]
fn a_routine_imports_json_typescript_siblings_by_their_js_name_and_the_apps_own_packages() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        env.app(
            "kit",
            r#"{ "name": "kit", "version": "1.0.0", "routines": { "kit-use": "use.ts" } }"#,
            &[
                ("config.json", r#"{ "factor": 3 }"#),
                ("lib/twice.ts", "export const twice = (n: number): number => n * 2;\n"),
                (
                    "node_modules/greeter/package.json",
                    r#"{ "name": "greeter", "type": "module", "exports": "./index.js" }"#,
                ),
                (
                    "node_modules/greeter/index.js",
                    "export const hello = (who) => `hello ${who}`;\n",
                ),
                (
                    "use.ts",
                    r#"import cfg from "./config.json" with { type: "json" };
import { twice } from "./lib/twice.js";
import { hello } from "greeter";
export default () => [twice(cfg.factor), hello("kit")];
"#,
                ),
            ],
        );
        assert_eq!(env.ok("kit-use", json!({})), json!([6, "hello kit"]), "{runtime}");
    }
}

#[test]
fn two_function_bodies_with_one_name_are_refused_in_typescript_as_in_javascript() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        env.app(
            "fns",
            r#"{ "name": "fns", "version": "1.0.0", "routines": { "fns-twice": "twice.ts", "fns-twice-js": "twice.js", "fns-overloads": "overloads.ts" } }"#,
            &[
                ("twice.ts", "function f() { return 1; }\nfunction f() { return 2; }\nexport default () => f();\n"),
                ("twice.js", "function f() { return 1; }\nfunction f() { return 2; }\nexport default () => f();\n"),
                ("overloads.ts", "function f(a: string): string;\nfunction f(a: number): number;\nfunction f(a: any) { return a; }\nexport default () => f(2);\n"),
            ],
        );
        for (id, file) in [("fns-twice", "twice.ts"), ("fns-twice-js", "twice.js")] {
            let outcome = env.routine(id, "{}");
            assert_eq!(outcome["error"]["name"], "BadRoutine", "{runtime}: {outcome}");
            let message = outcome["error"]["message"].as_str().unwrap();
            assert_eq!(message, format!("failed to transpile {file}:2:10: `f` is declared twice (first on line 1, again on line 2); rename or remove one"), "{runtime}");
        }
        assert_eq!(
            env.ok("fns-overloads", json!({})),
            json!(2),
            "{runtime}: overload signatures are not bodies"
        );
    }
}

#[test]
fn what_a_routines_child_wrote_is_logged_whole_though_the_run_answers_before_the_reap() {
    // The child writes straight into the run's stdout pipe, not through the runner: what is still
    // in the pipe when the routine returns is taken in after the tree is killed, partial last line
    // included, without waiting for the processes' teardown.
    let expected: Vec<String> = (1..=3000).map(|i| i.to_string()).chain(["tail".into()]).collect();
    for runtime in runtimes() {
        let env = Env::new(runtime);
        env.app(
            "shell",
            r#"{ "name": "shell", "version": "1.0.0", "routines": { "shell-seq": "seq.ts" } }"#,
            &[(
                "seq.ts",
                "import { spawnSync } from 'node:child_process';\nexport default () => { spawnSync('/bin/sh', ['-c', 'seq 1 3000; printf tail'], { stdio: 'inherit' }); return 1; };\n",
            )],
        );
        assert_eq!(env.ok("shell-seq", json!({})), json!(1), "{runtime}");
        // The audit keeps the log's tail: its lines after the first (which may be cut) must be
        // the end of what was written, every line in order.
        let record: Value = serde_json::from_str(&env.audit_lines()[0]).unwrap();
        let tail: Vec<&str> = record["log"].as_str().unwrap().lines().skip(1).collect();
        assert!(tail.len() > 100, "{runtime}: {tail:?}");
        assert_eq!(tail, expected[expected.len() - tail.len()..], "{runtime}");
    }
}

#[test]
fn log_lines_keep_the_order_the_routine_wrote_them_in() {
    let expected: Vec<String> = (0..20)
        .flat_map(|i| {
            [
                format!("ctx {i}"),
                format!("out {i}"),
                format!("err {i}"),
                format!("warn {i}"),
                format!("second {i}"),
            ]
        })
        .collect();
    for runtime in runtimes() {
        let env = Env::new(runtime);
        notes(&env);
        env.ok("notes-chatty", json!({}));
        let record: Value = serde_json::from_str(&env.audit_lines()[0]).unwrap();
        assert_eq!(
            record["log"].as_str().unwrap().lines().collect::<Vec<_>>(),
            expected,
            "{runtime}"
        );
    }
}
