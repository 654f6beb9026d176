//! `GET /api/runs`, what Manage Workspace › Observability › Executions shows: the runs running now,
//! then the finished ones with who asked (you, or the agent), behind the owner token.

use crate::support::*;
use serde_json::Value;

fn workspace() -> Env {
    let env = Env::new(runtimes()[0]);
    env.app(
        "pulse",
        r#"{ "name": "pulse", "version": "1.0.0", "routines": { "pulse-wait": "wait.ts" } }"#,
        &[(
            "wait.ts",
            "export default async (args: any) => { await new Promise((r) => setTimeout(r, args.ms)); return { waited: args.ms }; };\n",
        )],
    );
    env
}

#[test]
fn executions_list_the_running_run_then_the_finished_ones_with_who_asked() {
    let env = workspace();
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let token = env.owner_token();
    let ws = path_str(&env.ws_path());
    let runs =
        |query: &str| http.json("GET", &format!("/api/runs?workspace={ws}{query}"), &token, None);
    let mut events = http.events(&format!("/api/events?workspace={ws}"), &token);

    // You run it from a terminal; while it runs, it is listed as running, and said to have started.
    let mut mine = env
        .cmd(&["routine", "run", "pulse-wait", "--args", r#"{"ms":2500}"#])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::iter::from_fn(|| events.next()).find(|(e, _)| e["type"] == "runStarted");
    assert_eq!(started.unwrap().0["routine"], "pulse-wait");
    let (status, listed) = runs("");
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["running"].as_array().unwrap().len(), 1, "{listed}");
    let running = &listed["running"][0];
    assert_eq!(
        (running["routine"].as_str(), running["app"].as_str()),
        (Some("pulse-wait"), Some("pulse"))
    );
    assert_eq!((running["source"].as_str(), &running["agent"]), (Some("cli"), &Value::Null));
    assert!(mine.wait().unwrap().success());

    // An agent (Claude Code) runs it too: named as who asked, and a filter of its own.
    let agents = env
        .cmd(&["routine", "run", "pulse-wait", "--args", r#"{"ms":10}"#])
        .env("CLAUDECODE", "1")
        .output()
        .unwrap();
    assert!(agents.status.success(), "{}", stderr(&agents));
    let (_, listed) = runs("");
    assert_eq!(listed["running"], serde_json::json!([]));
    let who: Vec<(&str, &Value)> = listed["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["status"].as_str().unwrap(), &r["agent"]))
        .collect();
    assert_eq!(
        who,
        [("ok", &Value::from("claude-code")), ("ok", &Value::Null)],
        "newest first: {listed}"
    );
    assert_eq!(listed["runs"][1]["routine"], "pulse-wait");
    assert_eq!(listed["runs"][1]["source"], "cli");
    assert!(listed["runs"][1]["durationMs"].as_u64().unwrap() >= 2500);
    let (_, only) = runs("&agent=claude-code");
    assert_eq!(only["runs"].as_array().unwrap().len(), 1, "{only}");

    // One at a time: the next page starts where the first ended.
    let (_, first) = runs("&limit=1");
    let next = first["next"].as_str().expect("a next page").to_string();
    let (_, second) = runs(&format!("&limit=1&before={next}"));
    assert_eq!(second["runs"][0]["runId"], listed["runs"][1]["runId"]);
    assert_eq!(second["next"], Value::Null);
}

#[test]
fn executions_are_the_owners_to_read_and_a_bad_filter_is_named() {
    let env = workspace();
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let ws = path_str(&env.ws_path());
    let host = format!("127.0.0.1:{}", daemon.port);

    // No token, or a made-up one (an app's pane has only its pane token): refused.
    for token in [None, Some("pane-notes-0123")] {
        let (status, _, body) =
            http.call("GET", &host, &format!("/api/runs?workspace={ws}"), token, None);
        assert_eq!(status, 401, "{body}");
    }
    // A page on another origin, even with the token somehow in hand, is refused by Origin.
    let token = env.owner_token();
    let (status, _, _) = http.call_with(
        "GET",
        &host,
        &format!("/api/runs?workspace={ws}"),
        Some(&token),
        None,
        &[("Origin", "https://evil.example")],
    );
    assert_eq!(status, 403);

    let (status, body) =
        http.json("GET", &format!("/api/runs?workspace={ws}&status=maybe"), &token, None);
    assert_eq!(status, 400);
    assert_eq!(body["error"]["name"], "BadRequest");
    assert!(body["error"]["message"].as_str().unwrap().starts_with("status: \"maybe\""), "{body}");
    let (status, body) =
        http.json("GET", &format!("/api/runs?workspace={ws}&before=feedface"), &token, None);
    assert_eq!((status, body["error"]["name"].as_str()), (404, Some("NotFound")), "{body}");
}
