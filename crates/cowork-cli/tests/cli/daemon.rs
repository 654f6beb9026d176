//! A real daemon (`cowork start --headless`): single instance, ports, slots, shared in-flight runs,
//! notifications in `cowork status --json`, the event stream, stop, and kill -9 mid-write.

use crate::support::*;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::time::Duration;

const APP: &str = r#"{ "name": "pulse", "version": "0.3.0", "title": "Pulse", "routines": {
  "pulse-wait": "wait.ts", "pulse-ping": "ping.ts", "pulse-write": "write.ts",
  "pulse-long": { "file": "wait.ts", "timeout": 20 }, "pulse-child": "child.ts", "pulse-say": "say.ts"
} }"#;

fn pulse(env: &Env) {
    env.app(
        "pulse",
        APP,
        &[
            ("wait.ts", "export default async (args: any) => { await new Promise((r) => setTimeout(r, args.ms ?? 800)); return { pid: process.pid, tag: args.tag ?? null }; };\n"),
            (
                "ping.ts",
                r#"export default async (args: any, ctx: any) => {
  for (let i = 0; i < (args.count ?? 1); i++) await ctx.notify({ title: `Ping ${i}`, body: "from pulse", tag: args.tag });
  await ctx.badge(args.badge ?? 0);
  return "sent";
};
"#,
            ),
            (
                "child.ts",
                r#"import { spawn } from "node:child_process";
export default async (args: any) => { spawn("sleep", [String(args.marker)]); await new Promise((r) => setTimeout(r, args.ms)); return "done"; };
"#,
            ),
            ("say.ts", "export default async (_a: any, ctx: any) => { ctx.log('the key is', ctx.secrets.get('pulse.key')); console.error('on stderr'); return 1; };\n"),
            (
                "write.ts",
                r#"export default async (_a: any, ctx: any) => {
  for (let i = 0; ; i++) ctx.data.write("state.json", { i, filler: "x".repeat(200000) });
};
"#,
            ),
        ],
    );
}

#[test]
fn one_instance_per_root_and_a_clean_stop() {
    let env = Env::new(runtimes()[0]);
    pulse(&env);
    let mut daemon = env.daemon(&[]);
    let second = env.run(&["start", "--headless"]);
    assert!(second.status.success());
    assert_eq!(
        stdout(&second).trim(),
        format!(
            "Cowork is already running (pid {}, http://127.0.0.1:{})",
            daemon.child.id(),
            daemon.port
        )
    );

    let pidfile: Value = serde_json::from_str(
        &std::fs::read_to_string(env.home.path().join("daemon.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(pidfile["port"], daemon.port);
    use std::os::unix::fs::PermissionsExt;
    let token = env.home.path().join("daemon.token");
    assert_eq!(std::fs::metadata(&token).unwrap().permissions().mode() & 0o777, 0o600);

    // The gates (token, Host, Origin) are the router's, tested in cowork-daemon's tests/routes.rs;
    // here: the real daemon takes the token it wrote to daemon.token, and nothing without it.
    let token_text = std::fs::read_to_string(&token).unwrap();
    let health = format!("http://127.0.0.1:{}/api/health", daemon.port);
    let http = reqwest::blocking::Client::new();
    let no_token = http.get(&health).send().unwrap();
    assert_eq!(no_token.status(), 401, "{:?}", no_token.text());
    let good = http.get(&health).bearer_auth(&token_text).send().unwrap();
    assert_eq!(good.status(), 200);
    assert!(good.text().unwrap().contains("cowork-studio"));

    let stopped = env.run(&["stop"]);
    assert!(stdout(&stopped).starts_with("Stopped Cowork"), "{}", stderr(&stopped));
    assert!(daemon.child.wait().unwrap().success());
    assert!(!env.home.path().join("daemon.json").exists(), "a clean stop removes the pidfile");
    assert_eq!(stdout(&env.run(&["stop"])).trim(), "Cowork is not running.");
}

#[test]
fn force_replaces_a_running_daemon() {
    let env = Env::new(runtimes()[0]);
    let mut first = env.daemon(&[]);
    let port = first.port.to_string();
    let mut second = env
        .cmd(&["start", "--headless", "--force", "--port", &port])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let line = BufReader::new(second.stdout.take().unwrap()).lines().next().unwrap().unwrap();
    assert!(
        line.starts_with(&format!("Cowork daemon listening on http://127.0.0.1:{port}")),
        "{line}"
    );
    assert!(first.child.wait().unwrap().success(), "the old daemon stopped cleanly");
    let status: Value = serde_json::from_str(&stdout(&env.run(&["status", "--json"]))).unwrap();
    assert_eq!(status["daemon"]["pid"], second.id());
    assert!(
        status["daemon"]["runtime"]["foundIn"].is_string(),
        "camelCase like every other key: {status}"
    );
    let _ = second.kill();
    let _ = second.wait();
}

#[test]
fn json_errors_are_one_json_line_on_stdout_with_their_exit_code() {
    let env = Env::new(runtimes()[0]);
    pulse(&env);
    let line = |out: &std::process::Output| -> Value {
        let text = stdout(out);
        assert_eq!(text.lines().count(), 1, "one line: {text}");
        serde_json::from_str(&text).unwrap()
    };
    let bad_args = env.run(&["routine", "run", "pulse-wait", "--args", "nope", "--json"]);
    assert_eq!(bad_args.status.code(), Some(2));
    assert_eq!(line(&bad_args)["error"]["name"], "Usage");
    assert!(line(&bad_args)["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("--args is not valid JSON"));

    let bad_flag = env.run(&["routine", "list", "--json", "--bogus"]);
    assert_eq!(bad_flag.status.code(), Some(2));
    assert_eq!(
        line(&bad_flag),
        json!({ "ok": false, "error": { "name": "Usage", "message": "unexpected argument '--bogus' found" } })
    );
    assert!(
        stderr(&bad_flag).starts_with("error: unexpected argument '--bogus' found"),
        "clap's text stays on stderr"
    );
    let missing = env.run(&["app", "versions", "--json"]);
    assert_eq!(
        line(&missing)["error"]["message"],
        "the following required arguments were not provided: <team-server/app>",
        "the argument is named, not cut off at the colon"
    );
    // A command line the command itself refuses is `Usage` too, as clap's refusals are.
    let bad_spec = env.run(&["app", "install", "acme/", "--json"]);
    assert_eq!(
        (bad_spec.status.code(), line(&bad_spec)["error"]["name"].as_str()),
        (Some(2), Some("Usage"))
    );
    // A secret store without its key is `Unavailable`, as a routine's ctx.secrets names it.
    let no_key = env
        .cmd(&["secrets", "list", "--json"])
        .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/cowork-test-bus")
        .env_remove(cowork_secrets::KEY_FILE_ENV)
        .output()
        .unwrap();
    if cfg!(target_os = "linux") {
        assert_eq!(
            (no_key.status.code(), line(&no_key)["error"]["name"].as_str()),
            (Some(1), Some("Unavailable"))
        );
    }

    // The daemon goes away mid-run: exit 4, and still one JSON line.
    let mut daemon = env.daemon(&[]);
    let run = env
        .cmd(&["routine", "run", "pulse-long", "--args", r#"{"ms":10000}"#, "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    daemon.child.kill().unwrap();
    let gone = run.wait_with_output().unwrap();
    assert_eq!(gone.status.code(), Some(4), "{}", stderr(&gone));
    assert_eq!(line(&gone)["error"]["name"], "NoDaemon");
    assert!(line(&gone)["error"]["hint"].as_str().unwrap().contains("cowork doctor"));
}

/// Sends `signal` (`STOP`, `CONT`) to `pid`.
fn signal(pid: u32, signal: &str) {
    assert!(std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .unwrap()
        .success());
}

#[test]
fn a_daemon_that_stops_answering_is_never_replaced_behind_its_back() {
    let env = Env::new(runtimes()[0]);
    let mut first = env.daemon(&[]);
    let pid = first.child.id();
    let read = |name: &str| std::fs::read_to_string(env.home.path().join(name)).unwrap();
    let (pidfile, token) = (read("daemon.json"), read("daemon.token"));
    signal(pid, "STOP");

    let status = env.run(&["status"]);
    assert!(status.status.success());
    assert!(stdout(&status).contains(&format!("daemon:  not answering (pid {pid}, http://127.0.0.1:{})\nhint: `cowork start --headless --force`", first.port)), "{}", stdout(&status));
    assert_eq!(env.json(&["status"])["notAnswering"]["pid"], pid);

    let stop = env.run(&["stop"]);
    assert_eq!(stop.status.code(), Some(4), "{}", stdout(&stop));
    assert_eq!(
        stderr(&stop),
        format!("error: Cowork's daemon (pid {pid}) is running but does not answer, so it cannot be asked to stop\nhint: `cowork start --headless --force` ends it and starts a new one, or end it yourself: kill -9 {pid}\n")
    );

    let port = free_port().to_string();
    let second = env.run(&["start", "--headless", "--port", &port]);
    assert_eq!(second.status.code(), Some(1));
    assert!(stderr(&second).starts_with(&format!("error: Cowork's daemon (pid {pid}) is running but does not answer\nhint: `cowork start --headless --force`")), "{}", stderr(&second));
    assert_eq!(
        (read("daemon.json"), read("daemon.token")),
        (pidfile, token),
        "its pidfile and token are left alone"
    );

    signal(pid, "CONT");
    assert_eq!(env.json(&["status"])["daemon"]["pid"], pid, "awake, it is the one daemon again");

    signal(pid, "STOP");
    let mut forced = env
        .cmd(&["start", "--headless", "--force", "--port", &port])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let line = BufReader::new(forced.stdout.take().unwrap()).lines().next().unwrap().unwrap();
    assert!(
        line.starts_with(&format!("Cowork daemon listening on http://127.0.0.1:{port}")),
        "{line}"
    );
    assert!(
        !first.child.wait().unwrap().success(),
        "--force killed the daemon that did not answer"
    );
    assert_eq!(env.json(&["status"])["daemon"]["pid"], forced.id());
    let _ = forced.kill();
    let _ = forced.wait();
}

#[test]
fn a_foreign_program_on_the_port_moves_the_daemon_and_an_explicit_port_fails() {
    let env = Env::new(runtimes()[0]);
    let foreign = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = foreign.local_addr().unwrap().port();
    std::fs::write(env.home.path().join("config.json"), format!(r#"{{"port": {taken}}}"#)).unwrap();

    let explicit = env.run(&["start", "--headless", "--port", &taken.to_string()]);
    assert_eq!(explicit.status.code(), Some(1));
    let err = stderr(&explicit);
    assert!(
        err.starts_with(&format!("error: failed to listen on 127.0.0.1:{taken}\nCaused by: "))
            && err.contains("hint: pick another --port"),
        "{err}"
    );
    assert_eq!(
        err.matches("Address already in use").count(),
        1,
        "the system's words once, as the cause: {err}"
    );

    let mut child = env
        .cmd(&["start", "--headless"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut note = String::new();
    BufReader::new(child.stderr.take().unwrap()).read_line(&mut note).unwrap();
    assert!(
        note.starts_with(&format!("note: port {taken} is taken by another program; listening on ")),
        "{note}"
    );
    let config: Value = serde_json::from_str(
        &std::fs::read_to_string(env.home.path().join("config.json")).unwrap(),
    )
    .unwrap();
    let moved = config["port"].as_u64().unwrap();
    assert_ne!(moved, u64::from(taken), "the new port is remembered");
    assert!(note.contains(&format!("listening on {moved} instead")));
    let _ = child.kill();
    let _ = child.wait();

    // Later, `doctor` says why Cowork is on another port, and the way back once the default is free.
    let doctor = stdout(&env.run(&["doctor"]));
    let said = doctor
        .lines()
        .filter(|l| l.contains(&format!("Cowork uses port {moved}, remembered in ")))
        .count();
    assert_eq!(said, 1, "{doctor}");
    if std::net::TcpListener::bind(("127.0.0.1", cowork_daemon::DEFAULT_PORT)).is_ok() {
        assert!(
            doctor.contains("is free now\n     fix: `cowork doctor --fix` will forget the port"),
            "{doctor}"
        );
        assert!(env.run(&["doctor", "--fix"]).status.success());
        let config: Value = serde_json::from_str(
            &std::fs::read_to_string(env.home.path().join("config.json")).unwrap(),
        )
        .unwrap();
        assert!(config.get("port").is_none(), "{config}");
    }
}

#[test]
fn slots_refuse_at_once_and_identical_cli_calls_are_runs_of_their_own() {
    let env = Env::new(runtimes()[0]);
    pulse(&env);
    let _daemon = env.daemon(&["--slots", "2"]);
    let spawn = |args: &str| {
        env.cmd(&["routine", "run", "pulse-wait", "--args", args, "--json"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };

    // Two scripts sending the same call are two calls (only a widget's identical calls share a
    // run): each runs, in a process of its own, with an audit line of its own.
    let a = spawn(r#"{"tag":"same","ms":2000}"#);
    let b = spawn(r#"{"ms":2000,"tag":"same"}"#);
    // The refused call must come after both runs took their slots (a busy machine starts the
    // two clients slowly), and they last long enough for it to find them running.
    assert!(
        eventually(Duration::from_secs(10), || env.json(&["status"])["daemon"]["slots"]["used"]
            == 2),
        "both runs started"
    );
    let busy = env.routine("pulse-wait", r#"{"tag":"other","ms":10}"#);
    assert_eq!(
        busy["error"],
        json!({"name": "TooManyRoutines", "message": "2 routines are running already, the most at once; try again when one finishes", "hint": "wait for a routine to finish, or start the daemon with more --slots"})
    );
    assert!(busy["error"]["runId"].is_null(), "a refusal runs nothing");

    let a: Value = serde_json::from_slice(&a.wait_with_output().unwrap().stdout).unwrap();
    let b: Value = serde_json::from_slice(&b.wait_with_output().unwrap().stdout).unwrap();
    assert_ne!(a["runId"], b["runId"], "two calls, two runs: {a} {b}");
    assert_ne!(a["result"]["pid"], b["result"]["pid"]);
    assert_eq!(env.audit_lines().len(), 2, "two runs, two audit lines");
}

#[test]
fn an_app_switch_is_in_force_for_the_very_next_run_through_the_daemon() {
    let env = Env::new(runtimes()[0]);
    pulse(&env);
    let _daemon = env.daemon(&[]);
    // The daemon's file watcher alone would see each switch only after its debounce.
    for round in 0..4 {
        assert!(env.run(&["app", "disable", "pulse"]).status.success());
        assert_eq!(
            env.fails("pulse-wait", json!({ "ms": 1 })),
            "RoutineDisabled",
            "round {round}: disabled, then run at once"
        );
        assert!(env.run(&["app", "enable", "pulse"]).status.success());
        env.ok("pulse-wait", json!({ "ms": 1 }));
    }
    // A switch written by hand (an editor, a git checkout) holds for the very next run too.
    for round in 0..4 {
        env.workspace_json(r#"{"disabled": {"routines": ["pulse-wait"]}}"#);
        assert_eq!(
            env.fails("pulse-wait", json!({ "ms": 1 })),
            "RoutineDisabled",
            "round {round}: written, then run at once"
        );
        env.workspace_json("{}");
        env.ok("pulse-wait", json!({ "ms": 1 }));
    }
}

#[test]
fn parallel_app_switches_lose_no_change() {
    let env = Env::new(runtimes()[0]);
    let names: Vec<String> = (0..12).map(|i| format!("a{i:02}")).collect();
    for name in &names {
        env.app(name, &format!(r#"{{ "name": "{name}", "version": "1.0.0" }}"#), &[]);
    }
    let children: Vec<_> = names
        .iter()
        .map(|name| {
            env.cmd(&["app", "disable", name]).stdout(std::process::Stdio::null()).spawn().unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(env.file(".cowork/workspace.json")).unwrap())
            .unwrap();
    let mut disabled: Vec<&str> = written["disabled"]["apps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    disabled.sort();
    let expected: Vec<String> = names.iter().map(|n| format!(".cowork/apps/{n}")).collect();
    assert_eq!(disabled, expected, "every process's change is kept");
}

#[test]
fn notifications_and_badges_show_in_status_and_the_event_stream() {
    let env = Env::new(runtimes()[0]);
    pulse(&env);
    env.workspace_json(r#"{"notifications": {"muted": []}}"#);
    let daemon = env.daemon(&[]);

    let token = env.owner_token();
    // The whole stream read is bounded: a daemon that never sends the badge fails the test.
    let events = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
        .get(format!("http://127.0.0.1:{}/api/events", daemon.port))
        .query(&[("workspace", env.ws_path())])
        .bearer_auth(&token)
        .send()
        .unwrap();
    assert_eq!(events.status(), 200);
    let mut reader = BufReader::new(events);

    let sent = env.routine("pulse-ping", r#"{"count":7,"badge":4}"#);
    assert_eq!(sent["result"], "sent", "{sent}");

    let mut notifications = 0;
    let mut badge = None;
    let mut line = String::new();
    while badge.is_none() {
        line.clear();
        reader.read_line(&mut line).unwrap();
        if let Some(data) = line.strip_prefix("data: ") {
            let event: Value = serde_json::from_str(data.trim()).unwrap();
            match event["type"].as_str() {
                Some("notification") => {
                    assert_eq!(event["notification"]["appTitle"], "Pulse");
                    notifications += 1;
                }
                Some("badge") => badge = Some(event),
                _ => {}
            }
        }
    }
    assert_eq!(notifications, 6, "7 in a minute: the 7th is dropped");
    assert_eq!(badge.unwrap()["total"], 4);

    let status: Value = serde_json::from_str(&stdout(&env.run(&["status", "--json"]))).unwrap();
    let workspace = &status["daemon"]["workspaces"][0];
    assert_eq!(workspace["notifications"].as_array().unwrap().len(), 6);
    assert_eq!(
        workspace["notifications"][0],
        json!({"app": "pulse", "appTitle": "Pulse", "title": "Ping 0", "body": "from pulse", "urgent": false, "at": workspace["notifications"][0]["at"]})
    );
    assert_eq!(workspace["badges"], json!({"apps": {"pulse": 4}, "total": 4}));

    // Muting the app (workspace.json, picked up by the watcher) drops its notifications and its
    // count leaves the sum.
    env.workspace_json(r#"{"notifications": {"muted": [".cowork/apps/pulse"]}}"#);
    std::thread::sleep(Duration::from_millis(400));
    let status: Value = serde_json::from_str(&stdout(&env.run(&["status", "--json"]))).unwrap();
    assert_eq!(status["daemon"]["workspaces"][0]["badges"]["total"], 0);
    let text = stdout(&env.run(&["status"]));
    assert!(text.contains("Pulse: Ping 5 — from pulse"), "{text}");
}

#[test]
fn a_start_right_after_a_crash_reclaims_the_port_once_the_crashed_daemon_lets_it_go() {
    let env = Env::new(runtimes()[0]);
    // What a crash leaves: a pidfile naming a dead process and its port, the port still taken
    // for a moment (by the crashed daemon's last processes; here by this test).
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port();
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let pidfile = json!({
        "pid": dead, "port": port, "root": env.home.path(), "version": "0.1.0",
        "startedAt": "2026-12-03T10:00:00.000Z",
    });
    std::fs::write(env.home.path().join("daemon.json"), pidfile.to_string()).unwrap();
    let mut child = env
        .cmd(&["start", "--headless", "--port", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(child.try_wait().unwrap(), None, "the start waits for the port");
    drop(held);
    let pid = child.id();
    let reclaimed = eventually(Duration::from_secs(20), || {
        std::fs::read_to_string(env.home.path().join("daemon.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .is_some_and(|pidfile| pidfile["pid"] == pid && pidfile["port"] == port)
            && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    assert!(reclaimed, "the daemon took its port back: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn kill_9_of_the_daemon_mid_write_loses_nothing_whole() {
    let env = Env::new(runtimes()[0]);
    pulse(&env);
    env.routine("pulse-ping", "{}");
    let mut daemon = env.daemon(&[]);
    let mut writer = env
        .cmd(&["routine", "run", "pulse-write"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let state = env.ws.path().join(".cowork/data/pulse/state.json");
    assert!(eventually(Duration::from_secs(10), || state.is_file()));
    std::thread::sleep(Duration::from_millis(300));
    daemon.child.kill().unwrap(); // SIGKILL
    daemon.child.wait().unwrap();
    let _ = writer.wait();
    // The routine dies with the daemon, so nothing keeps writing after it.
    assert!(eventually(Duration::from_secs(5), || !process_running("pulse-write") && {
        let before = std::fs::metadata(&state).unwrap().modified().unwrap();
        std::thread::sleep(Duration::from_millis(200));
        std::fs::metadata(&state).unwrap().modified().unwrap() == before
    }));
    let data: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap())
        .expect("the data file is whole");
    assert!(data["i"].as_u64().unwrap() > 0);
    for line in env.audit_lines() {
        serde_json::from_str::<Value>(&line).expect("every audit line is whole");
    }
    // A stale pidfile is not a running daemon: doctor says so and fixes it, start works again.
    let doctor = stdout(&env.run(&["doctor"]));
    assert!(
        doctor.contains("warn pidfile")
            && doctor.contains("fix: `cowork doctor --fix` will remove it"),
        "{doctor}"
    );
    assert!(stdout(&env.run(&["doctor", "--fix"])).contains("fixed: remove it"));
    let _again = env.daemon(&[]);
    assert_eq!(env.routine("pulse-wait", r#"{"ms":1}"#)["ok"], true);
}

#[test]
fn doctor_removes_a_daemon_record_that_does_not_parse() {
    let env = Env::new(runtimes()[0]);
    pulse(&env);
    let record = env.home.path().join("daemon.json");
    for garbage in ["garbage", r#"{"pid": 1}"#] {
        std::fs::write(&record, garbage).unwrap();
        let doctor = stdout(&env.run(&["doctor"]));
        assert!(
            doctor.contains(&format!(
                "{} is not a daemon's record (no daemon runs)",
                record.display()
            )) && doctor.contains("fix: `cowork doctor --fix` will remove it"),
            "{garbage}: {doctor}"
        );
        assert!(stdout(&env.run(&["doctor", "--fix"])).contains("fixed: remove it"));
        assert!(!record.exists(), "{garbage}");
    }
}

#[test]
fn a_routine_runs_past_ten_seconds_through_the_daemon() {
    // Regression: the runtime was forked on a tokio blocking-pool thread, which exits after 10 s
    // idle, and PR_SET_PDEATHSIG (tied to the forking thread) then killed the routine mid-run.
    // The test's only slow run: it must outlast the pool's 10 s.
    let env = Env::new(runtimes()[0]);
    pulse(&env);
    let _daemon = env.daemon(&[]);
    let outcome = env.routine("pulse-long", r#"{"ms":11500}"#);
    assert_eq!(outcome["ok"], true, "{outcome}");
}

#[test]
fn a_client_that_goes_away_mid_run_leaves_a_finished_audited_run() {
    let env = Env::new(runtimes()[0]);
    pulse(&env);
    let _daemon = env.daemon(&[]);
    let marker = sleep_marker(3);
    let args = format!(r#"{{"marker":{marker},"ms":1500}}"#);
    let mut client = env
        .cmd(&["routine", "run", "pulse-child", "--args", &args])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let child = format!("sleep {marker}");
    assert!(
        eventually(Duration::from_secs(10), || process_running(&child)),
        "the routine started its child"
    );
    client.kill().unwrap(); // SIGKILL: the connection drops mid-run
    client.wait().unwrap();
    assert!(
        eventually(Duration::from_secs(10), || !env.audit_lines().is_empty()),
        "the run finished and was audited"
    );
    let record: Value = serde_json::from_str(&env.audit_lines()[0]).unwrap();
    assert_eq!(
        (record["capability"].as_str(), record["status"].as_str()),
        (Some("pulse-child"), Some("ok")),
        "{record}"
    );
    assert!(
        eventually(Duration::from_secs(3), || !process_running(&child)),
        "the routine's child ended with its run"
    );
}

#[test]
fn the_daemon_prints_each_routine_log_line_masked() {
    let env = Env::new(runtimes()[0]);
    pulse(&env);
    crate::secrets::with_key_file(&env);
    crate::secrets::set(&env, "pulse.key", "sk-pulse-9876");
    let mut daemon = env.daemon(&[]);
    let outcome = env.routine("pulse-say", "{}");
    assert_eq!(outcome["ok"], true, "{outcome}");
    let run = &outcome["runId"].as_str().unwrap()[..8];
    let (lines, got) = std::sync::mpsc::channel();
    let out = daemon.child.stdout.take().unwrap();
    std::thread::spawn(move || {
        BufReader::new(out).lines().map_while(Result::ok).try_for_each(|line| lines.send(line))
    });
    let mut printed = Vec::new();
    while printed.len() < 2 {
        let line =
            got.recv_timeout(Duration::from_secs(10)).expect("the daemon printed the run's lines");
        if line.starts_with(&format!("[{run} pulse-say]")) {
            printed.push(line);
        }
    }
    assert_eq!(
        printed,
        [
            format!("[{run} pulse-say] the key is [redacted]"),
            format!("[{run} pulse-say] on stderr")
        ],
        "in the routine's order"
    );
}

#[test]
fn a_lost_audit_line_is_a_warning_to_the_caller_and_a_plain_error_line_of_the_daemon() {
    let env = Env::new(runtimes()[0]);
    pulse(&env);
    std::fs::create_dir_all(env.audit_dir().parent().unwrap()).unwrap();
    std::fs::write(env.audit_dir(), "not a folder").unwrap();
    let mut daemon = env.daemon(&[]);
    let outcome = env.routine("pulse-wait", r#"{"ms":1}"#);
    assert!(
        outcome["warnings"][0]
            .as_str()
            .unwrap()
            .starts_with("this run was not recorded in the audit log"),
        "{outcome}"
    );
    let _ = daemon.child.kill();
    let mut printed = String::new();
    daemon.child.stderr.take().unwrap().read_to_string(&mut printed).unwrap();
    assert!(printed.contains("ERROR") && printed.contains("audit line lost"), "{printed}");
    assert!(
        !printed.contains('\u{1b}'),
        "no colour codes where stderr is not a terminal: {printed:?}"
    );
}

#[test]
fn ctrl_c_stops_waiting_and_the_run_goes_on_in_the_daemon() {
    let env = Env::new(runtimes()[0]);
    pulse(&env);
    let _daemon = env.daemon(&[]);
    let cli = env
        .cmd(&["routine", "run", "pulse-wait", "--args", r#"{"ms":1500}"#])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    assert!(
        eventually(Duration::from_secs(10), || env.json(&["status"])["daemon"]["slots"]["used"]
            == 1),
        "the run started"
    );
    assert!(std::process::Command::new("kill")
        .args(["-INT", &cli.id().to_string()])
        .status()
        .unwrap()
        .success());
    let out = cli.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: stopped waiting for pulse-wait (Ctrl-C); it goes on running in the daemon\nhint: its result, once it ends: cowork routine runs --workspace "), "{err}");
    assert!(
        eventually(Duration::from_secs(10), || env.audit_lines().iter().any(|l| l
            .contains("\"capability\":\"pulse-wait\",")
            && l.contains("\"status\":\"ok\""))),
        "the run finished in the daemon"
    );
}

#[test]
fn stop_says_it_waits_for_running_routines() {
    let env = Env::new(runtimes()[0]);
    pulse(&env);
    let _daemon = env.daemon(&[]);
    let run = env
        .cmd(&["routine", "run", "pulse-wait", "--args", r#"{"ms":3000}"#])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    assert!(
        eventually(Duration::from_secs(10), || env.json(&["status"])["daemon"]["slots"]["used"]
            == 1),
        "the run started"
    );
    let stop = env.run(&["stop"]);
    assert!(stop.status.success());
    assert_eq!(
        stderr(&stop),
        "Waiting for 1 running routine to finish (at the latest, its timeout ends it)…\n"
    );
    assert!(
        run.wait_with_output().unwrap().status.success(),
        "the run finished before the daemon stopped"
    );
}

#[test]
fn doctor_names_the_running_daemons_port() {
    let env = Env::new(runtimes()[0]);
    let daemon = env.daemon(&[]);
    let doctor = stdout(&env.run(&["doctor"]));
    assert!(
        doctor
            .lines()
            .any(|l| l == format!("ok   port     {} (the running daemon's)", daemon.port)),
        "{doctor}"
    );
}

#[test]
fn doctor_reports_extra_certificate_authorities_and_fails_on_unreadable_ones() {
    let env = Env::new(runtimes()[0]);
    let doctor = |pem: &std::path::Path| {
        let out = env.cmd(&["doctor"]).env("COWORK_EXTRA_CA_CERTS", pem).output().unwrap();
        let line = stdout(&out).lines().find(|l| l.contains(" trust ")).map(str::to_owned);
        (out.status.code(), line.unwrap_or_else(|| panic!("no trust line: {}", stdout(&out))))
    };
    // Unset: no line (the built-in roots are the normal case).
    let plain = env.run(&["doctor"]);
    assert!(!stdout(&plain).contains(" trust "), "{}", stdout(&plain));

    let dir = tempfile::tempdir().unwrap();
    let pem = dir.path().join("ca.pem");
    let made = std::process::Command::new("openssl")
        .args(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"])
        .args(["-keyout", "/dev/null", "-days", "1", "-subj", "/CN=Cowork test CA", "-out"])
        .arg(&pem)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    assert_eq!(
        doctor(&pem),
        (
            plain.status.code(),
            format!(
                "warn trust    COWORK_EXTRA_CA_CERTS={}: 1 certificate authority trusted for web apps' downloads besides the built-in roots (unset it to trust those alone)",
                pem.display()
            )
        )
    );
    let missing = dir.path().join("missing.pem");
    let (code, line) = doctor(&missing);
    assert_eq!(code, Some(1), "{line}");
    assert!(
        line.starts_with(&format!(
            "FAIL trust    failed to read the certificate authorities COWORK_EXTRA_CA_CERTS={}: ",
            missing.display()
        )),
        "{line}"
    );
}
