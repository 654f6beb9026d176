//! Triggers (page 03 "Running"): `cowork deploy` writes them, `cowork routine active` and
//! `cowork deploy triggers` arm them, and the daemon fires them — schedules, webhooks — as ordinary,
//! audited runs. The arming consent rules one by one, the webhook's auth, CORS and body cases, a
//! load test of 1,000 webhook calls on loopback, and the line triggered runs wait in for a slot:
//! a burst past the slots loses no call and delays no notification, a call past the line's bound
//! is a named 429 with Retry-After (issue 38).

use crate::support::*;
use serde_json::{json, Value};
use std::time::Duration;

/// A workspace with a `mail` app whose routines echo their args, and a `chat` app.
pub(crate) fn workspace() -> Env {
    let env = Env::new(runtimes()[0]);
    env.app(
        "mail",
        r#"{ "name": "mail", "version": "1.0.0", "title": "Mail", "routines": {
            "mail-sync": "echo.ts", "mail-hook": "echo.ts", "mail-triage": "echo.ts", "mail-plain": "echo.ts" } }"#,
        &[("echo.ts", "export default (args: any) => ({ got: args });\n")],
    );
    env.app("chat", r#"{ "name": "chat", "version": "1.0.0", "title": "Chat" }"#, &[]);
    env
}

/// `cowork routine list`'s state of each routine, by id.
pub(crate) fn states(env: &Env) -> Value {
    let list = env.json(&["routine", "list"]);
    let states: serde_json::Map<String, Value> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap().to_owned(), r["state"].clone()))
        .collect();
    Value::Object(states)
}

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

#[test]
fn a_cloned_workspace_fires_nothing_until_the_owner_switches_it_on() {
    let env = workspace();
    // As checked in and cloned: triggers declared, nothing armed on this machine.
    env.workspace_json(
        r#"{ "deployments": {
            "mail-sync": { "target": "container", "schedule": "*/5 * * * *" },
            "mail-hook": { "target": "container", "webhook": true },
            "mail-triage": { "target": "container", "notifications": ["mail"] } } }"#,
    );
    assert_eq!(
        states(&env),
        json!({
            "mail-hook": "webhook · not armed",
            "mail-plain": "on demand",
            "mail-sync": "*/5 * * * * · not armed",
            "mail-triage": "notifications · not armed",
        })
    );

    // A switch arms its routine (and turns the workspace on), no other: each routine is armed
    // by its own switch, a notifications trigger too (the consent to hand it those apps' text).
    let on = env.json(&["routine", "active", "mail-sync", "on"]);
    assert_eq!(
        on,
        json!({"ok": true, "id": "mail-sync", "active": true, "state": "active · */5 * * * *"})
    );
    assert_eq!(states(&env)["mail-hook"], "webhook · not armed");
    assert_eq!(states(&env)["mail-triage"], "notifications · not armed");
    let text = env.run(&["routine", "active", "mail-triage", "on"]);
    assert_eq!(
        stdout(&text),
        "mail-triage: active · notifications\nArmed as: notifications of mail. Any later change to it in .cowork/workspace.json stops it until you confirm it again (this command).\n"
    );
    assert!(env.run(&["routine", "active", "mail-hook", "on"]).status.success());

    // Off stops that routine only.
    let off = env.json(&["routine", "active", "mail-hook", "off"]);
    assert_eq!(off["state"], "webhook · not armed");
    assert_eq!(off["active"], false);
    assert_eq!(states(&env)["mail-sync"], "active · */5 * * * *");

    // `deploy triggers off` stops them all; `on` brings back those switched on, as they were armed.
    assert!(env.run(&["deploy", "triggers", "off"]).status.success());
    let all_off = states(&env);
    for id in ["mail-sync", "mail-hook", "mail-triage"] {
        assert!(all_off[id].as_str().unwrap().ends_with("· not armed"), "{id}: {all_off}");
    }
    assert_eq!(env.json(&["deploy", "triggers", "on"]), json!({"ok": true, "armed": true}));
    let back = states(&env);
    assert_eq!(back["mail-sync"], "active · */5 * * * *");
    assert_eq!(back["mail-hook"], "webhook · not armed");

    // A switched-off routine is `off`, whatever its trigger.
    assert!(env.run(&["app", "disable", "mail"]).status.success());
    assert_eq!(states(&env)["mail-sync"], "off");

    // The armed state is machine-local: nothing of it is in the workspace's files.
    let written = std::fs::read_to_string(env.file(".cowork/workspace.json")).unwrap();
    assert!(!written.contains("armed") && !written.contains("active"), "{written}");
    assert!(grep(env.ws.path(), "\"armed\"").is_empty());
}

#[test]
fn deploy_add_writes_names_only_and_adding_apps_switches_notifications_off() {
    let env = workspace();
    let added = env.json(&[
        "deploy",
        "add",
        "mail-triage",
        "--notifications",
        "mail",
        "--secret",
        "mail.token",
        "--var",
        "REGION=eu",
        "--target",
        "aws-lambda",
        "--region",
        "eu-west-1",
        "--role-arn",
        "arn:aws:iam::1:role/x",
        "--name",
        "triage",
    ]);
    assert_eq!(added["state"], "notifications · not armed");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(env.file(".cowork/workspace.json")).unwrap())
            .unwrap();
    assert_eq!(
        written["deployments"]["mail-triage"],
        json!({"target": "aws-lambda", "name": "triage", "notifications": ["mail"],
               "secrets": ["mail.token"], "vars": {"REGION": "eu"}, "region": "eu-west-1",
               "roleArn": "arn:aws:iam::1:role/x"})
    );
    assert_eq!(
        env.json(&["routine", "active", "mail-triage", "on"])["state"],
        "active · notifications"
    );

    // A flag left out keeps what is there; more apps need the switch again.
    let more = env.run(&["deploy", "add", "mail-triage", "--notifications", "mail,chat"]);
    assert!(more.status.success(), "{}", stderr(&more));
    assert!(
        stdout(&more).contains("Changed since you armed it (armed: notifications of mail; now: notifications of chat, mail): it fires nothing until you confirm it"),
        "{}",
        stdout(&more)
    );
    assert_eq!(states(&env)["mail-triage"], "notifications · changed since armed");
    let after: Value =
        serde_json::from_str(&std::fs::read_to_string(env.file(".cowork/workspace.json")).unwrap())
            .unwrap();
    assert_eq!(after["deployments"]["mail-triage"]["secrets"], json!(["mail.token"]));
    assert_eq!(
        env.json(&["routine", "active", "mail-triage", "on"])["state"],
        "active · notifications"
    );

    // Cloud flags for a later issue are written; the verbs that would use them say so, exit 5.
    let d = env.run(&[
        "deploy",
        "add",
        "mail-sync",
        "--schedule",
        "0 6 * * *",
        "--mode",
        "deployed",
        "--db",
        "mail-db",
        "--target",
        "cloudflare-worker",
    ]);
    assert!(d.status.success(), "{}", stderr(&d));
    assert_eq!(states(&env)["mail-sync"], "on demand", "a deployed schedule does not fire here");
    for verb in [
        &["deploy", "build", "mail-sync"][..],
        &["deploy", "dev", "mail-sync"],
        &["deploy", "run", "mail-sync"],
        &["deploy", "doctor"],
    ] {
        let out = env.run(verb);
        assert_eq!(code(&out), 5, "{verb:?}");
        assert!(
            stderr(&out).contains(&format!(
                "`cowork {}` is not available in this version",
                verb[..2].join(" ")
            )),
            "{}",
            stderr(&out)
        );
    }

    // Remove drops it.
    assert!(env.run(&["deploy", "remove", "mail-triage"]).status.success());
    assert_eq!(states(&env)["mail-triage"], "on demand");
    assert_eq!(code(&env.run(&["deploy", "remove", "mail-triage"])), 3);
}

#[test]
fn deploy_refusals_name_what_is_wrong() {
    let env = workspace();
    let cases: [(&[&str], i32, &str); 7] = [
        (&["deploy", "add", "nope", "--webhook"], 3, "no routine \"nope\""),
        (
            &["deploy", "add", "mail-sync", "--schedule", "0 6 * *"],
            2,
            "is not a 5-field cron expression",
        ),
        (
            &["deploy", "add", "mail-sync", "--schedule", "0/10 * * * *"],
            2,
            "is not a 5-field cron expression",
        ),
        (
            &["deploy", "add", "mail-sync", "--notifications", "nobody"],
            2,
            "no app named \"nobody\"",
        ),
        (&["deploy", "add", "mail-sync", "--hook-token"], 2, "--hook-token protects a webhook"),
        (
            &["deploy", "add", "mail-sync", "--webhook", "--cors-origin", "https://x.com/path"],
            2,
            "is not an origin",
        ),
        (&["routine", "active", "mail-plain", "on"], 2, "mail-plain has no trigger here"),
    ];
    for (args, exit, message) in cases {
        let out = env.run(args);
        assert_eq!(code(&out), exit, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }
    assert!(!env.file(".cowork/workspace.json").exists(), "nothing written by a refusal");
}

/// `cowork deploy add mail-hook --webhook --hook-token <extra…>`: the token it minted.
pub(crate) fn hook_with_token(env: &Env, extra: &[&str]) -> String {
    let mut args = vec!["deploy", "add", "mail-hook", "--webhook", "--hook-token"];
    args.extend_from_slice(extra);
    let token = env.json(&args)["hookToken"].as_str().unwrap().to_owned();
    assert_eq!(token.len(), 64);
    token
}

/// `cowork stop`, and waits for `daemon` to exit (it finishes what it was doing first).
pub(crate) fn stop(env: &Env, daemon: &mut Daemon) {
    assert!(env.run(&["stop"]).status.success());
    assert!(
        eventually(Duration::from_secs(30), || daemon.child.try_wait().unwrap().is_some()),
        "the daemon did not stop"
    );
}

/// Posts to a webhook; answers (status, headers, body).
pub(crate) fn post(
    url: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> (u16, reqwest::header::HeaderMap, Value) {
    let mut request = reqwest::blocking::Client::new().post(url).body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.json().unwrap_or(Value::Null))
}

/// The URL `cowork deploy hooks` prints for routine `id`'s webhook.
pub(crate) fn hook_url(env: &Env, id: &str) -> String {
    let hooks = env.json(&["deploy", "hooks"]);
    hooks["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == id)
        .unwrap_or_else(|| panic!("no hook {id}: {hooks}"))["url"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The workspace's audit lines, parsed.
pub(crate) fn audit(env: &Env) -> Vec<Value> {
    env.audit_lines().iter().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn webhooks_answer_once_armed_with_the_body_as_args() {
    let env = workspace();
    crate::secrets::with_key_file(&env);
    let mut daemon = env.daemon(&[]);
    let token = hook_with_token(&env, &["--cors-origin", "https://app.example"]);
    let written = std::fs::read_to_string(env.file(".cowork/workspace.json")).unwrap();
    assert!(!written.contains(&token), "the token is in the secret store, never in the file");
    let url = hook_url(&env, "mail-hook");
    let auth = ("x-cowork-hook-token", token.as_str());

    // Not armed: a named 409, audited.
    let (status, _, body) = post(&url, r#"{"a":1}"#, &[auth]);
    assert_eq!((status, body["error"]["name"].as_str()), (409, Some("NotArmed")), "{body}");

    assert!(env.run(&["routine", "active", "mail-hook", "on"]).status.success());
    let (status, _, body) = post(&url, r#"{"folder":"INBOX"}"#, &[auth]);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"], json!({"got": {"folder": "INBOX"}}));
    let (_, _, empty) = post(&url, "", &[auth]);
    assert_eq!(empty["result"], json!({"got": {}}), "an empty body is {{}}");

    // Token missing or wrong: 403.
    for headers in [&[][..], &[("x-cowork-hook-token", "0".repeat(64).as_str())][..]] {
        let (status, _, body) = post(&url, "{}", headers);
        assert_eq!((status, body["error"]["name"].as_str()), (403, Some("Forbidden")), "{body}");
    }
    // Not JSON: a named 400.
    let (status, _, body) = post(&url, "folder=INBOX", &[auth]);
    assert_eq!((status, body["error"]["name"].as_str()), (400, Some("InvalidJson")), "{body}");
    // CORS for the one origin only.
    let (status, headers, _) = post(&url, "{}", &[auth, ("origin", "https://app.example")]);
    assert_eq!(status, 200);
    assert_eq!(headers["access-control-allow-origin"], "https://app.example");
    let (status, _, body) = post(&url, "{}", &[auth, ("origin", "https://evil.example")]);
    assert_eq!((status, body["error"]["name"].as_str()), (403, Some("OriginNotAllowed")));
    let preflight = reqwest::blocking::Client::new()
        .request(reqwest::Method::OPTIONS, &url)
        .header("origin", "https://app.example")
        .send()
        .unwrap();
    assert_eq!(preflight.status().as_u16(), 204);
    assert!(preflight.headers()["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .contains("x-cowork-hook-token"));

    // Switched off: a named 409 again; an unknown hook: 404.
    assert!(env.run(&["routine", "active", "mail-hook", "off"]).status.success());
    let (status, _, _) = post(&url, "{}", &[auth]);
    assert_eq!(status, 409);
    let (status, _, _) = post(&url.replace("mail-hook", "mail-sync"), "{}", &[]);
    assert_eq!(status, 404);

    // Every call is audited as `webhook`: the runs, and the refusals as denied — the minute's
    // first in full, the others counted into one line when the minute ends or the daemon stops.
    stop(&env, &mut daemon);
    let lines = audit(&env);
    let webhook: Vec<_> = lines.iter().filter(|r| r["context"]["source"] == "webhook").collect();
    let denied: Vec<_> = webhook.iter().filter(|r| r["status"] == "denied").collect();
    assert_eq!(denied[0]["error"]["name"], "NotArmed");
    let calls: u64 = denied.iter().map(|r| r["repeated"].as_u64().unwrap_or(1)).sum();
    assert_eq!(calls, 6, "{denied:?}");
    // Within one minute (a slower run may cross into the next, which starts a line of its own):
    if let [_, summary] = denied[..] {
        let summary = summary["error"]["message"].as_str().unwrap();
        assert!(
            summary.contains("(Forbidden ×2, InvalidJson ×1, NotArmed ×1, OriginNotAllowed ×1)"),
            "{summary}"
        );
    }
    assert_eq!(webhook.iter().filter(|r| r["status"] == "ok").count(), 3);
    assert!(!env.audit_lines().concat().contains(&token), "the token is never logged");
}

#[test]
fn a_thousand_webhook_calls_on_loopback_lose_nothing() {
    let env = workspace();
    let _daemon = env.daemon(&["--slots", "16"]);
    assert!(env.run(&["deploy", "add", "mail-hook", "--webhook"]).status.success());
    assert!(env.run(&["routine", "active", "mail-hook", "on"]).status.success());
    let url = hook_url(&env, "mail-hook");
    const CLIENTS: usize = 8;
    const CALLS: usize = 1000;
    std::thread::scope(|scope| {
        for client in 0..CLIENTS {
            let url = &url;
            scope.spawn(move || {
                let http = reqwest::blocking::Client::new();
                for n in (client..CALLS).step_by(CLIENTS) {
                    let response = http.post(url).body(format!(r#"{{"n":{n}}}"#)).send().unwrap();
                    assert_eq!(response.status().as_u16(), 200, "call {n}");
                    let body: Value = response.json().unwrap();
                    assert_eq!(body["result"]["got"]["n"], n, "call {n}");
                }
            });
        }
    });
    let mut seen: Vec<u64> = audit(&env)
        .iter()
        .filter(|r| r["context"]["source"] == "webhook" && r["status"] == "ok")
        .map(|r| r["input"]["n"].as_u64().unwrap())
        .collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..CALLS as u64).collect::<Vec<_>>(), "one audit line per call");
}

#[test]
fn a_schedule_missed_while_the_daemon_was_down_runs_once_as_a_catch_up() {
    let env = workspace();
    // Yearly, on January 1st at midnight: the latest fire is always more than a few minutes ago.
    assert!(env.run(&["deploy", "add", "mail-sync", "--schedule", "0 0 1 1 *"]).status.success());
    assert!(env.run(&["routine", "active", "mail-sync", "on"]).status.success());
    // The daemon last fired it two years ago, then stopped.
    let root = cowork_core::paths::Root::new(env.home.path());
    let last = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(2 * 366 * 24);
    let file = root.workspace_dir(&env.ws_path()).join("schedule.json");
    std::fs::write(&file, json!({ "lastFire": { "mail-sync": last.to_string() } }).to_string())
        .unwrap();
    let scheduled = |env: &Env| -> Vec<Value> {
        audit(env).into_iter().filter(|r| r["context"]["source"] == "schedule").collect()
    };
    let daemon = env.daemon(&[]);
    let ran = eventually(Duration::from_secs(20), || !scheduled(&env).is_empty());
    assert!(ran, "no scheduled run: {:?}", env.audit_lines());
    drop(daemon);
    let runs = scheduled(&env);
    assert_eq!(runs.len(), 1, "the missed years make one run");
    assert_eq!(runs[0]["capability"], "mail-sync");
    assert_eq!(runs[0]["context"]["caller"]["source"], "catch-up", "{}", runs[0]);
    assert_eq!(runs[0]["status"], "ok");

    // A new daemon fires nothing again: the last fire was saved before the run.
    let _again = env.daemon(&[]);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(scheduled(&env).len(), 1, "fired again after a restart");
}

#[test]
fn a_notification_starts_its_trigger_once_and_that_run_notifies_without_starting_another() {
    let env = Env::new(runtimes()[0]);
    env.app(
        "mail",
        r#"{ "name": "mail", "version": "1.0.0", "title": "Mail", "routines": {
            "mail-poll": "poll.ts", "mail-triage": "triage.ts" } }"#,
        &[
            ("poll.ts", "export default async (args: any, ctx: any) => { await ctx.notify({ title: 'New mail', body: args.from, tag: 'inbox' }); return 'polled'; };\n"),
            // It notifies too, and so does the routine it calls: that reaches the person, and must
            // start no second triage.
            ("triage.ts", "export default async (args: any, ctx: any) => { await ctx.notify({ title: 'Triaged: ' + args.title }); await ctx.routines.run('mail-poll', { from: 'nested' }); return args; };\n"),
        ],
    );
    env.workspace_json(r#"{ "notifications": { "muted": [".cowork/apps/mail"] } }"#);
    let _daemon = env.daemon(&[]);
    assert!(env.run(&["deploy", "add", "mail-triage", "--notifications", "mail"]).status.success());
    let triaged = |env: &Env| -> Vec<Value> {
        audit(env).into_iter().filter(|r| r["capability"] == "mail-triage").collect()
    };

    // Not switched on: the notification starts nothing.
    assert!(env
        .run(&["routine", "run", "mail-poll", "--args", r#"{"from":"ana"}"#])
        .status
        .success());
    std::thread::sleep(Duration::from_millis(500));
    assert!(triaged(&env).is_empty());

    assert!(env.run(&["routine", "active", "mail-triage", "on"]).status.success());
    assert!(env
        .run(&["routine", "run", "mail-poll", "--args", r#"{"from":"bob"}"#])
        .status
        .success());
    assert!(eventually(Duration::from_secs(15), || !triaged(&env).is_empty()), "no triage run");
    std::thread::sleep(Duration::from_millis(1500));
    let runs = triaged(&env);
    assert_eq!(runs.len(), 1, "the triage run's own notify started another: {runs:?}");
    let run = &runs[0];
    assert_eq!(run["status"], "ok", "{run}");
    assert_eq!(run["context"]["source"], "system");
    assert_eq!(run["context"]["caller"]["source"], "notification");
    let input = &run["input"];
    assert_eq!(
        (
            input["app"].as_str(),
            input["appTitle"].as_str(),
            input["title"].as_str(),
            input["body"].as_str(),
            input["tag"].as_str()
        ),
        (Some("mail"), Some("Mail"), Some("New mail"), Some("bob"), Some("inbox")),
        "a muted app still triggers, with the notification as args: {input}"
    );
    assert_eq!(input["urgent"], false);
    assert!(input["at"].as_str().is_some_and(|at| at.ends_with('Z')));
}

#[test]
fn the_workflows_route_lists_triggers_and_its_switch_needs_the_owner_token() {
    let env = workspace();
    let daemon = env.daemon(&[]);
    assert!(env.run(&["deploy", "add", "mail-hook", "--webhook"]).status.success());
    let base = format!("http://127.0.0.1:{}", daemon.port);
    let http = reqwest::blocking::Client::new();
    let body = json!({ "workspace": env.ws_path(), "id": "mail-hook", "active": true });

    // No owner token (an app's pane, a page elsewhere): refused, nothing armed.
    let refused = http.post(format!("{base}/api/deploy/active")).json(&body).send().unwrap();
    assert!(refused.status().is_client_error(), "{}", refused.status());
    assert_eq!(states(&env)["mail-hook"], "webhook · not armed");

    let token = env.owner_token();
    let switched: Value = http
        .post(format!("{base}/api/deploy/active"))
        .bearer_auth(token.trim())
        .json(&body)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(
        switched,
        json!({"ok": true, "id": "mail-hook", "active": true, "state": "active · webhook"})
    );
    let (status, _, _) = post(&hook_url(&env, "mail-hook"), r#"{"n":1}"#, &[]);
    assert_eq!(status, 200);

    let listed: Value = http
        .get(format!("{base}/api/deploy/workflows"))
        .query(&[("workspace", env.ws_path())])
        .bearer_auth(token.trim())
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(listed["armed"], true);
    let flow = &listed["workflows"][0];
    assert_eq!(
        (flow["id"].as_str(), flow["state"].as_str(), flow["active"].as_bool()),
        (Some("mail-hook"), Some("active · webhook"), Some(true))
    );
    assert_eq!(flow["lastRun"]["source"], "webhook");
    assert_eq!(listed["recent"][0]["trigger"], "webhook");
    assert_eq!(listed["recent"][0]["routine"], "mail-hook");
}

#[test]
fn the_monitor_lists_a_triggered_run_while_it_runs() {
    let env = workspace();
    env.app(
        "slow",
        r#"{ "name": "slow", "version": "1.0.0", "routines": { "slow-hook": "wait.ts" } }"#,
        &[("wait.ts", "export default async () => { await new Promise((r) => setTimeout(r, 2500)); return {}; };\n")],
    );
    let daemon = env.daemon(&[]);
    assert!(env.run(&["deploy", "add", "slow-hook", "--webhook"]).status.success());
    assert!(env.run(&["routine", "active", "slow-hook", "on"]).status.success());
    let http = Http { port: daemon.port };
    let token = env.owner_token();
    let workflows = format!("/api/deploy/workflows?workspace={}", path_str(&env.ws_path()));
    let url = hook_url(&env, "slow-hook");
    let call = std::thread::spawn(move || post(&url, "{}", &[]).0);

    let mut seen = Value::Null;
    let listed = eventually(Duration::from_secs(20), || {
        seen = http.json("GET", &workflows, &token, None).1;
        seen["runningNow"].as_array().is_some_and(|runs| !runs.is_empty())
    });
    assert!(listed, "never listed as running: {seen}");
    let run = &seen["runningNow"][0];
    assert_eq!(
        (run["routine"].as_str(), run["source"].as_str()),
        (Some("slow-hook"), Some("webhook"))
    );
    assert_eq!(call.join().unwrap(), 200);
    let (_, after) = http.json("GET", &workflows, &token, None);
    assert_eq!(after["runningNow"], json!([]), "{after}");
    assert_eq!(after["recent"][0]["routine"], "slow-hook");
}

/// A `mail` app for the slot tests: `mail-hook` echoes its args, `mail-poll` notifies (`New mail`,
/// its `from` as the body), `mail-triage` echoes the notification it is started with.
fn mail_with_triage(env: &Env, extra: &[(&str, &str)], extra_routines: &str) {
    let mut files = vec![
        ("echo.ts", "export default (args: any) => ({ got: args });\n"),
        ("poll.ts", "export default async (args: any, ctx: any) => { await ctx.notify({ title: 'New mail', body: args.from }); return 'polled'; };\n"),
    ];
    files.extend_from_slice(extra);
    env.app(
        "mail",
        &format!(
            r#"{{ "name": "mail", "version": "1.0.0", "title": "Mail", "routines": {{
                "mail-hook": "echo.ts", "mail-poll": "poll.ts", "mail-triage": "echo.ts"{extra_routines} }} }}"#
        ),
        &files,
    );
    assert!(env.run(&["deploy", "add", "mail-hook", "--webhook"]).status.success());
    assert!(env.run(&["deploy", "add", "mail-triage", "--notifications", "mail"]).status.success());
    assert!(env.run(&["routine", "active", "mail-hook", "on"]).status.success());
    assert!(env.run(&["routine", "active", "mail-triage", "on"]).status.success());
}

/// The runs of `routine` in the audit log.
fn runs_of(env: &Env, routine: &str) -> Vec<Value> {
    audit(env).into_iter().filter(|r| r["capability"] == routine).collect()
}

fn timestamp(value: &Value) -> jiff::Timestamp {
    value
        .as_str()
        .and_then(|text| text.parse().ok())
        .unwrap_or_else(|| panic!("not a time: {value}"))
}

#[test]
fn a_burst_of_webhook_calls_runs_every_call_and_a_notification_right_after_fires_within_2_s() {
    let env = Env::new(runtimes()[0]);
    // The default 8 slots: 16 callers at a time keep 8 calls waiting for one.
    let _daemon = env.daemon(&[]);
    mail_with_triage(&env, &[], "");
    let url = hook_url(&env, "mail-hook");
    const CLIENTS: usize = 16;
    const CALLS: usize = 300;
    let refused = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for client in 0..CLIENTS {
            let (url, refused) = (&url, &refused);
            scope.spawn(move || {
                let http = reqwest::blocking::Client::new();
                for n in (client..CALLS).step_by(CLIENTS) {
                    let response = http.post(url).body(format!(r#"{{"n":{n}}}"#)).send().unwrap();
                    let status = response.status().as_u16();
                    let retry = response.headers().get("retry-after").cloned();
                    let body: Value = response.json().unwrap();
                    if status == 200 {
                        assert_eq!(body["result"]["got"]["n"], n, "call {n}");
                        continue;
                    }
                    // Past the documented bound only: 16 callers never fill a line of 64, so a
                    // refusal can only be a call that waited out its 30 s on a starved machine.
                    assert_eq!(status, 429, "call {n}: {body}");
                    assert_eq!(body["error"]["name"], "TooManyRoutines", "call {n}: {body}");
                    let message = body["error"]["message"].as_str().unwrap();
                    assert!(message.contains("within the 30 s this call may wait"), "{message}");
                    let retry =
                        retry.unwrap_or_else(|| panic!("call {n}: a 429 without Retry-After"));
                    assert!(retry.to_str().unwrap().parse::<u64>().is_ok_and(|s| s > 0));
                    refused.lock().unwrap().push(n as u64);
                }
            });
        }
    });
    let refused = refused.into_inner().unwrap();
    let lines = audit(&env);
    let webhook = |status: &str| -> Vec<u64> {
        let mut ns: Vec<u64> = lines
            .iter()
            .filter(|r| r["context"]["source"] == "webhook" && r["status"] == status)
            .map(|r| r["input"]["n"].as_u64().unwrap())
            .collect();
        ns.sort_unstable();
        ns
    };
    let ran: Vec<u64> = (0..CALLS as u64).filter(|n| !refused.contains(n)).collect();
    assert_eq!(webhook("ok"), ran, "one audit line per call that ran");
    let mut refused_sorted = refused.clone();
    refused_sorted.sort_unstable();
    assert_eq!(webhook("denied"), refused_sorted, "every refusal is audited");

    // Right after the burst, an app's notification starts its trigger at once.
    let poll = env.run(&["routine", "run", "mail-poll", "--args", r#"{"from":"after the burst"}"#]);
    assert!(poll.status.success(), "{}", stderr(&poll));
    let fired = eventually(Duration::from_secs(15), || !runs_of(&env, "mail-triage").is_empty());
    assert!(fired, "the notification started nothing: {:?}", env.audit_lines().last());
    let triage = &runs_of(&env, "mail-triage")[0];
    assert_eq!(triage["status"], "ok", "{triage}");
    assert_eq!(triage["input"]["body"], "after the burst");
    let delay = timestamp(&triage["ts"]).duration_since(timestamp(&triage["input"]["at"]));
    assert!(
        delay <= jiff::SignedDuration::from_secs(2),
        "it started {delay:#} after the notification"
    );
}

#[test]
fn past_the_webhook_line_a_call_gets_a_named_429_and_a_notification_is_queued_ahead_of_it() {
    let env = Env::new(runtimes()[0]);
    // Holds the one slot until the test writes `release`; raises a notification once it sees `notify`.
    let gate = "import { existsSync } from 'node:fs';
const until = async (file: string) => { while (!existsSync(file)) await new Promise((r) => setTimeout(r, 20)); };
export default async (_args: any, ctx: any) => {
  await until(ctx.workspaceRoot + '/notify');
  await ctx.notify({ title: 'New mail', body: 'while every slot is busy' });
  await until(ctx.workspaceRoot + '/release');
  return 'released';
};
";
    let daemon = env.daemon(&["--slots", "1", "--queue", "3"]);
    mail_with_triage(&env, &[("gate.ts", gate)], r#", "mail-gate": "gate.ts""#);
    let url = hook_url(&env, "mail-hook");
    let http = Http { port: daemon.port };
    let token = env.owner_token();
    let ws = path_str(&env.ws_path());
    let monitor =
        || http.json("GET", &format!("/api/deploy/workflows?workspace={ws}"), &token, None).1;
    let queued = |listed: &Value| -> Vec<String> {
        listed["runningNow"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|run| run["queued"] == true)
            .map(|run| run["routine"].as_str().unwrap().to_owned())
            .collect()
    };

    let gate = env
        .cmd(&["routine", "run", "mail-gate"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let busy = || env.json(&["status"])["daemon"]["slots"]["used"] == 1;
    assert!(eventually(Duration::from_secs(20), busy), "the gate never took the slot");

    // Three calls wait in line: the Monitor and Executions list them as queued.
    let waiting: Vec<_> = (0..3)
        .map(|n| {
            let url = url.clone();
            std::thread::spawn(move || post(&url, &format!(r#"{{"n":{n}}}"#), &[]))
        })
        .collect();
    let mut seen = Value::Null;
    let lined_up = eventually(Duration::from_secs(20), || {
        seen = monitor();
        queued(&seen).len() == 3
    });
    assert!(lined_up, "three calls never showed as queued: {seen}");
    assert_eq!(seen["queued"], 3, "{seen}");
    let runs = http.json("GET", &format!("/api/runs?workspace={ws}"), &token, None).1;
    let listed: Vec<_> =
        runs["running"].as_array().unwrap().iter().filter(|r| r["queued"] == true).collect();
    assert_eq!(listed.len(), 3, "{runs}");
    assert!(listed.iter().all(|r| r["source"] == "webhook" && r["started"].is_string()), "{runs}");

    // The fourth is past the line: refused at once, named, with when to come back.
    let (status, headers, body) = post(&url, r#"{"n":99}"#, &[]);
    assert_eq!(status, 429, "{body}");
    assert_eq!(headers["retry-after"], "5");
    assert_eq!(body["error"]["name"], "TooManyRoutines", "{body}");
    assert_eq!(
        body["error"]["message"],
        "1 routine is running already, the most at once, and 3 webhook calls wait for a slot, the most that may; try again in 5 s"
    );
    assert!(body["error"]["hint"].as_str().is_some_and(|h| h.contains("Retry-After")), "{body}");
    // The owner's own call is refused at once, as before: only triggered runs wait.
    let mine = env.run(&["routine", "run", "mail-hook", "--args", r#"{"n":100}"#]);
    assert_eq!(code(&mine), 1);
    assert!(stderr(&mine).contains("TooManyRoutines"), "{}", stderr(&mine));

    // A notification now: its trigger is queued (never refused), ahead of the webhook calls.
    std::fs::write(env.file("notify"), "").unwrap();
    let mut seen = Value::Null;
    let triage_queued = eventually(Duration::from_secs(20), || {
        seen = monitor();
        queued(&seen).iter().any(|routine| routine == "mail-triage")
    });
    assert!(triage_queued, "the notification's run was not queued: {seen}");
    let status = env.run(&["status"]);
    assert!(
        stdout(&status).contains("slots:   1 of 1 in use, 4 triggered runs waiting for one"),
        "{}",
        stdout(&status)
    );

    std::fs::write(env.file("release"), "").unwrap();
    for call in waiting {
        let (status, _, body) = call.join().unwrap();
        assert_eq!(status, 200, "a queued call ran once a slot freed: {body}");
    }
    let mut gate = gate;
    assert!(gate.wait().unwrap().success());
    assert!(eventually(Duration::from_secs(20), || !runs_of(&env, "mail-triage").is_empty()));

    // The audit log: the refusal, and each queued run with how long it waited — the
    // notification's first, though it came last.
    let triage = &runs_of(&env, "mail-triage")[0];
    assert_eq!(triage["status"], "ok", "{triage}");
    assert!(triage["queuedMs"].as_u64().is_some(), "{triage}");
    let hooks = runs_of(&env, "mail-hook");
    let (ran, denied): (Vec<&Value>, Vec<&Value>) = hooks.iter().partition(|r| r["status"] == "ok");
    assert_eq!(ran.len(), 3, "{hooks:?}");
    for run in &ran {
        assert!(run["queuedMs"].as_u64().is_some(), "{run}");
        assert!(
            timestamp(&run["ts"]) > timestamp(&triage["ts"]),
            "a webhook call ran before the notification: {run}"
        );
    }
    let refused: Vec<_> = denied.iter().filter(|r| r["context"]["source"] == "webhook").collect();
    assert_eq!(refused.len(), 1, "{hooks:?}");
    assert_eq!(refused[0]["input"], json!({"n": 99}));
    assert_eq!(refused[0]["error"]["name"], "TooManyRoutines");

    // `cowork routine runs` says it too.
    let listed = stdout(&env.run(&["routine", "runs", "--routine", "mail-hook"]));
    assert_eq!(listed.matches(", queued ").count(), 3, "{listed}");
}
