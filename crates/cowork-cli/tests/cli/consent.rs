//! `ctx.command.run` and `ctx.consent.request`: refused headless with the exact line to run,
//! allowed ahead of time with `cowork consent allow`, or asked in a listening window.

use crate::support::*;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};

fn shell_app(env: &Env) {
    env.app(
        "ops",
        r#"{ "name": "ops", "version": "1.0.0", "routines": { "ops-uptime": "uptime.ts", "ops-ask": "ask.ts" } }"#,
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
        ],
    );
}

#[test]
fn headless_refuses_with_the_line_that_allows_it() {
    let env = Env::new(runtimes()[0]);
    shell_app(&env);
    let refused = env.routine("ops-uptime", "{}");
    assert_eq!(refused["error"]["name"], "Denied", "{refused}");
    let line = format!("cowork consent allow 'say-hello' --workspace {}", path_str(&env.ws_path()));
    assert_eq!(refused["error"]["message"], json!(format!("no window can ask for consent here; approve it ahead of time with: {line}")));
    let asked = env.ok("ops-ask", json!({}));
    let line = format!("cowork consent allow 'deploy it' --workspace {}", path_str(&env.ws_path()));
    assert_eq!(asked, json!({"granted": false, "message": format!("no window can ask for consent here; approve it ahead of time with: {line}")}));
    // A value with a single quote: closed, escaped, reopened — pasted into a shell it is the value.
    let asked = env.ok("ops-ask", json!({"value": "it's live"}));
    assert!(asked["message"].as_str().unwrap().ends_with(&format!(r"cowork consent allow 'it'\''s live' --workspace {}", path_str(&env.ws_path()))), "{asked}");

    let allowed = env.run(&["consent", "allow", "say-hello"]);
    assert_eq!(stdout(&allowed), format!("Allowed \"say-hello\" in {}.\n", path_str(&env.ws_path())));
    let ran = env.routine("ops-uptime", "{}");
    let folder = env.ws_path().file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(ran["result"]["code"], 0, "{ran}");
    assert!(ran["result"]["stdout"].as_str().unwrap().starts_with("hello from ") && ran["result"]["stdout"].as_str().unwrap().ends_with(&format!(" in {folder}")), "{ran}");
    assert_eq!(ran["result"]["stderr"], "oops");

    assert_eq!(stdout(&env.run(&["consent", "list"])), "say-hello\n");
    assert!(env.run(&["consent", "revoke", "say-hello"]).status.success());
    assert_eq!(env.run(&["consent", "revoke", "say-hello"]).status.code(), Some(3));
    assert_eq!(env.routine("ops-uptime", "{}")["error"]["name"], "Denied");
}

#[test]
fn a_listening_window_is_asked_and_its_answer_counts() {
    let env = Env::new(runtimes()[0]);
    shell_app(&env);
    let daemon = env.daemon(&[]);
    let token = std::fs::read_to_string(env.home.path().join("daemon.token")).unwrap();
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", daemon.port)).unwrap();
    write!(stream, "GET /api/consent/requests HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {token}\r\n\r\n", daemon.port).unwrap();
    let mut events = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    while !line.starts_with("HTTP/1.1 200") {
        line.clear();
        events.read_line(&mut line).unwrap();
    }

    let run = env.cmd(&["routine", "run", "ops-ask", "--json"]).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let question: Value = loop {
        line.clear();
        events.read_line(&mut line).unwrap();
        if let Some(data) = line.strip_prefix("data: ") {
            break serde_json::from_str(data.trim()).unwrap();
        }
    };
    assert_eq!((question["app"].as_str(), question["value"].as_str(), question["title"].as_str()), (Some("ops"), Some("deploy it"), Some("Deploy")));
    let body = json!({ "id": question["id"], "granted": true, "remember": true }).to_string();
    let answer = std::net::TcpStream::connect(("127.0.0.1", daemon.port)).and_then(|mut s| {
        write!(s, "POST /api/consent/answer HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", daemon.port, body.len())?;
        let mut text = String::new();
        std::io::Read::read_to_string(&mut s, &mut text)?;
        Ok(text)
    });
    assert!(answer.unwrap().starts_with("HTTP/1.1 200"));
    let outcome: Value = serde_json::from_slice(&run.wait_with_output().unwrap().stdout).unwrap();
    assert_eq!(outcome["result"]["granted"], true, "{outcome}");
    assert_eq!(outcome["result"]["ticket"].as_str().unwrap().len(), 32);
    assert_eq!(stdout(&env.run(&["consent", "list"])), "deploy it\n", "remembered");
}
