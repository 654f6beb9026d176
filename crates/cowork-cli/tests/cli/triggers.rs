//! Triggers (page 03 "Running"): `cowork deploy` writes them, `cowork routine active` and
//! `cowork deploy triggers` arm them, and the daemon fires them — schedules, webhooks — as ordinary,
//! audited runs. The arming consent rules one by one, the webhook's auth, CORS and body cases, and
//! a load test of 1,000 webhook calls on loopback.

use crate::support::*;
use serde_json::{json, Value};
use std::time::Duration;

/// A workspace with a `mail` app whose routines echo their args, and a `chat` app.
fn workspace() -> Env {
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

fn states(env: &Env) -> Value {
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

    // The first switch arms the workspace: its other schedules and webhooks too, but a
    // notifications trigger waits for its own switch (the consent to hand it those apps' text).
    let on = env.json(&["routine", "active", "mail-sync", "on"]);
    assert_eq!(
        on,
        json!({"ok": true, "id": "mail-sync", "active": true, "state": "active · */5 * * * *"})
    );
    assert_eq!(states(&env)["mail-hook"], "active · webhook");
    assert_eq!(states(&env)["mail-triage"], "notifications · not armed");
    let text = env.run(&["routine", "active", "mail-triage", "on"]);
    assert_eq!(stdout(&text), "mail-triage: active · notifications\n");

    // Off stops that routine only.
    let off = env.json(&["routine", "active", "mail-hook", "off"]);
    assert_eq!(off["state"], "webhook · not armed");
    assert_eq!(off["active"], false);
    assert_eq!(states(&env)["mail-sync"], "active · */5 * * * *");

    // `deploy triggers off` stops them all; `on` brings back all but the one switched off.
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
    assert!(stdout(&more).contains("is off until you switch it on again"), "{}", stdout(&more));
    assert_eq!(states(&env)["mail-triage"], "notifications · not armed");
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

/// Posts to a webhook; answers (status, headers, body).
fn post(
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

fn hook_url(env: &Env, id: &str) -> String {
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

fn audit(env: &Env) -> Vec<Value> {
    env.audit_lines().iter().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn webhooks_answer_once_armed_with_the_body_as_args() {
    let env = workspace();
    crate::secrets::with_key_file(&env);
    let _daemon = env.daemon(&[]);
    let added = env.json(&[
        "deploy",
        "add",
        "mail-hook",
        "--webhook",
        "--hook-token",
        "--cors-origin",
        "https://app.example",
    ]);
    let token = added["hookToken"].as_str().unwrap().to_owned();
    assert_eq!(token.len(), 64);
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

    // Every call is audited as `webhook`: the runs, and each refusal as denied.
    let lines = audit(&env);
    let webhook: Vec<_> = lines.iter().filter(|r| r["context"]["source"] == "webhook").collect();
    let denied: Vec<&str> = webhook
        .iter()
        .filter(|r| r["status"] == "denied")
        .map(|r| r["error"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        denied,
        ["NotArmed", "Forbidden", "Forbidden", "InvalidJson", "OriginNotAllowed", "NotArmed"]
    );
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
