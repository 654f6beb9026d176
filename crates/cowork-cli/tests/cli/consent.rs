//! `ctx.command.run` and `ctx.consent.request`: refused headless with the exact line to run,
//! allowed ahead of time with `cowork consent allow`, or asked in a listening window.

use crate::support::*;
use serde_json::{json, Value};
use std::io::Write;

fn shell_app(env: &Env) {
    env.app(
        "ops",
        r#"{ "name": "ops", "version": "1.0.0", "routines": { "ops-uptime": "uptime.ts", "ops-ask": "ask.ts", "ops-leave": "leave.ts" } }"#,
        &[
            (
                "uptime.ts",
                r#"export default async (_a: any, ctx: any) => {
  const { code, stdout, stderr } = await ctx.command.run("echo hello from $0 in $(basename $PWD) && echo oops >&2", { title: "Say hello", value: "say-hello" });
  return { code, stdout: stdout.trim(), stderr: stderr.trim() };
};
"#,
            ),
            ("ask.ts", "export default async (args: any, ctx: any) => ctx.consent.request({ value: args.value ?? \"deploy it\", title: \"Deploy\" });\n"),
            // Asks, and is done before anyone answers.
            (
                "leave.ts",
                "export default async (_a: any, ctx: any) => {\n  ctx.consent.request({ value: \"leave\", title: \"Leave\" }).catch(() => {});\n  await new Promise((resolve) => setTimeout(resolve, 300));\n  return \"left\";\n};\n",
            ),
        ],
    );
}

#[test]
fn headless_refuses_with_the_line_that_allows_it() {
    let env = Env::new(runtimes()[0]);
    shell_app(&env);
    let refused = env.routine("ops-uptime", "{}");
    assert_eq!(refused["error"]["name"], "Denied", "{refused}");
    let line = format!(
        "cowork consent allow 'say-hello' --app ops --workspace {}",
        path_str(&env.ws_path())
    );
    assert_eq!(
        refused["error"]["message"],
        json!(format!("no window can ask for consent here; approve it ahead of time with: {line}"))
    );
    let asked = env.ok("ops-ask", json!({}));
    let line = format!(
        "cowork consent allow 'deploy it' --app ops --workspace {}",
        path_str(&env.ws_path())
    );
    assert_eq!(
        asked,
        json!({"granted": false, "message": format!("no window can ask for consent here; approve it ahead of time with: {line}")})
    );
    // A value with a single quote: closed, escaped, reopened — pasted into a shell it is the value.
    let asked = env.ok("ops-ask", json!({"value": "it's live"}));
    assert!(
        asked["message"].as_str().unwrap().ends_with(&format!(
            r"cowork consent allow 'it'\''s live' --app ops --workspace {}",
            path_str(&env.ws_path())
        )),
        "{asked}"
    );

    let allowed = env.run(&["consent", "allow", "say-hello", "--app", "ops"]);
    assert_eq!(
        stdout(&allowed),
        format!("Allowed \"say-hello\" for ops in {}.\n", path_str(&env.ws_path()))
    );
    assert_eq!(stderr(&allowed), "", "an app of that name is there");
    // A name no app has (a typo) is kept, for an app still to come, and said.
    let typo = env.run(&["consent", "allow", "say-hello", "--app", "opps"]);
    assert!(typo.status.success());
    assert_eq!(stderr(&typo), "warning: no app is named \"opps\" in this workspace now: the approval waits for one of that name (`cowork app list` shows the names)\n");
    assert!(env.run(&["consent", "revoke", "say-hello", "--app", "opps"]).status.success());
    let ran = env.routine("ops-uptime", "{}");
    let folder = env.ws_path().file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(ran["result"]["code"], 0, "{ran}");
    assert!(
        ran["result"]["stdout"].as_str().unwrap().starts_with("hello from ")
            && ran["result"]["stdout"].as_str().unwrap().ends_with(&format!(" in {folder}")),
        "{ran}"
    );
    // Last: a confined login shell may first say that its profile reached outside the routine's
    // reach (pyenv's rehash writing into ~/.pyenv here).
    assert_eq!(ran["result"]["stderr"].as_str().unwrap().lines().last(), Some("oops"), "{ran}");

    assert_eq!(stdout(&env.run(&["consent", "list"])), "ops  say-hello\n");
    assert!(env.run(&["consent", "revoke", "say-hello", "--app", "ops"]).status.success());
    assert_eq!(env.run(&["consent", "revoke", "say-hello", "--app", "ops"]).status.code(), Some(3));
    assert_eq!(env.routine("ops-uptime", "{}")["error"]["name"], "Denied");
}

/// `cowork routine run <args…> --json` started in `env`, its answer piped.
fn start_run(env: &Env, args: &[&str]) -> std::process::Child {
    let args = [&["routine", "run"], args, &["--json"]].concat();
    env.cmd(&args).stdout(std::process::Stdio::piped()).spawn().unwrap()
}

#[test]
fn a_listening_window_is_asked_and_its_answer_counts() {
    let env = Env::new(runtimes()[0]);
    shell_app(&env);
    let daemon = env.daemon(&[]);
    let mut window = ConsentWindow::listen(&env, daemon.port);

    let run = start_run(&env, &["ops-ask"]);
    let (question, _) = window.question();
    assert_eq!(
        (question["app"].as_str(), question["value"].as_str(), question["title"].as_str()),
        (Some("ops"), Some("deploy it"), Some("Deploy"))
    );
    assert_eq!(window.answer(&question, true, true), 200);
    let outcome: Value = serde_json::from_slice(&run.wait_with_output().unwrap().stdout).unwrap();
    assert_eq!(outcome["result"]["granted"], true, "{outcome}");
    assert_eq!(outcome["result"]["ticket"].as_str().unwrap().len(), 32);
    assert_eq!(stdout(&env.run(&["consent", "list"])), "ops  deploy it\n", "remembered");
}

#[test]
fn a_question_whose_routine_is_done_is_withdrawn_at_once_not_at_its_deadline() {
    let env = Env::new(runtimes()[0]);
    shell_app(&env);
    let daemon = env.daemon(&[]);
    let mut window = ConsentWindow::listen(&env, daemon.port);
    let started = std::time::Instant::now();
    let run = start_run(&env, &["ops-leave", "--timeout-ms", "60000"]);
    let (question, _) = window.question();
    assert_eq!(question["title"], "Leave");
    let (closed, _) = window.question();
    assert_eq!(closed, json!({ "id": question["id"], "closed": "withdrawn" }));
    let outcome: Value = serde_json::from_slice(&run.wait_with_output().unwrap().stdout).unwrap();
    assert_eq!(outcome["result"], "left", "{outcome}");
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(20), "the run ended with its routine: {took:?}");
    assert_eq!(window.answer(&question, true, false), 404, "nobody waits for an answer");
}

/// A capability that reads its key and runs commands with it: `args.value` (or none), `args.title`.
fn keyed_shell(env: &Env) {
    crate::secrets::with_key_file(env);
    env.app(
        "acme",
        r#"{ "name": "acme", "version": "1.0.0", "kind": "capability", "credential": {"key": {"fields": ["token"]}}, "routines": { "acme-curl": "curl.ts", "acme-cmd": "cmd.ts" } }"#,
        &[
            (
                "curl.ts",
                r#"export default async (args: any, ctx: any) => {
  const { token } = ctx.credential.fields();
  const options: any = { title: `Call Acme with ${token}`, description: `as ${token}` };
  if (args.value) options.value = args.value === "with the key" ? `call ${token}` : args.value;
  return await ctx.command.run(`curl -H "Authorization: Bearer ${token}" https://acme.example/`, options);
};
"#,
            ),
            ("cmd.ts", "export default async (args: any, ctx: any) => ctx.command.run(args.cmd, args.value ? { value: args.value } : {});\n"),
        ],
    );
    let mut connect = env
        .cmd(&["credential", "connect", "acme", "--field", "token"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    connect.stdin.take().unwrap().write_all(format!("{TOKEN}\n").as_bytes()).unwrap();
    let out = connect.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

const TOKEN: &str = "AcmeTokenValue-7777";

#[test]
fn a_consent_value_never_holds_a_secret_and_the_question_is_masked() {
    let env = Env::new(runtimes()[0]);
    keyed_shell(&env);
    let refused = env.routine("acme-curl", "{}");
    assert_eq!(refused["error"]["name"], "BadRequest", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with("pass options.value: a label without the secret"),
        "{refused}"
    );
    let refused = env.routine("acme-curl", r#"{"value":"with the key"}"#);
    assert_eq!(
        refused["error"]["name"], "BadRequest",
        "a value naming the secret itself: {refused}"
    );

    let daemon = env.daemon(&[]);
    let mut window = ConsentWindow::listen(&env, daemon.port);
    let run = env
        .cmd(&["routine", "run", "acme-curl", "--args", r#"{"value":"call acme"}"#, "--json"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (question, line) = window.question();
    assert!(!line.contains(TOKEN), "the question shows no secret: {line}");
    assert_eq!(
        (question["value"].as_str(), question["title"].as_str(), question["description"].as_str()),
        (Some("call acme"), Some("Call Acme with [redacted]"), Some("as [redacted]"))
    );
    assert_eq!(
        question["command"],
        r#"curl -H "Authorization: Bearer [redacted]" https://acme.example/"#
    );
    window.answer(&question, false, false);
    run.wait_with_output().unwrap();
    assert!(
        grep(env.home.path(), TOKEN).is_empty(),
        "nothing on disk: {:?}",
        grep(env.home.path(), TOKEN)
    );
}

#[test]
fn the_headless_allow_line_runs_for_a_value_starting_with_a_dash_and_multi_line_commands_need_a_value(
) {
    let env = Env::new(runtimes()[0]);
    keyed_shell(&env);
    let multi = env.routine("acme-cmd", &json!({"cmd": "echo one\necho two"}).to_string());
    assert_eq!((multi["error"]["name"].as_str(), multi["error"]["message"].as_str()), (Some("BadRequest"), Some("a multi-line command needs options.value: a one-line label the approval is remembered under")), "{multi}");
    let labelled = env.routine(
        "acme-cmd",
        &json!({"cmd": "echo one\necho two", "value": "two echoes"}).to_string(),
    );
    assert_eq!(
        labelled["error"]["name"], "Denied",
        "with a one-line value it is asked for: {labelled}"
    );

    let refused =
        env.routine("acme-cmd", &json!({"cmd": "echo dashed", "value": "-n dashed"}).to_string());
    let message = refused["error"]["message"].as_str().unwrap();
    let line = message
        .split("approve it ahead of time with: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{refused}"));
    assert_eq!(
        line,
        format!(
            "cowork consent allow '-n dashed' --app acme --workspace {}",
            path_str(&env.ws_path())
        )
    );
    // The line as printed, run by a shell.
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_cowork")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let ran = std::process::Command::new("sh")
        .args(["-c", line])
        .env("PATH", path)
        .env("COWORK_HOME", env.home.path())
        .output()
        .unwrap();
    assert!(ran.status.success(), "{}", stderr(&ran));
    let ran =
        env.routine("acme-cmd", &json!({"cmd": "echo dashed", "value": "-n dashed"}).to_string());
    assert_eq!(ran["result"]["stdout"], "dashed\n", "{ran}");
}

/// What a desktop window does with consent: follows `GET /api/consent/requests` and answers.
struct ConsentWindow {
    events: EventStream,
    http: Http,
    token: String,
}

impl ConsentWindow {
    /// Subscribed once the response head has arrived.
    fn listen(env: &Env, port: u16) -> Self {
        let (http, token) = (Http { port }, env.owner_token());
        let events = http.events("/api/consent/requests", &token);
        assert_eq!(events.status, 200);
        ConsentWindow { events, http, token }
    }

    /// The next question, parsed and as its event line came.
    fn question(&mut self) -> (Value, String) {
        self.events.next().expect("a question before the stream closed")
    }

    /// `POST /api/consent/answer`: its status.
    fn answer(&self, question: &Value, granted: bool, remember: bool) -> u16 {
        let body = json!({ "id": question["id"], "granted": granted, "remember": remember });
        self.http.json("POST", "/api/consent/answer", &self.token, Some(&body)).0
    }
}
