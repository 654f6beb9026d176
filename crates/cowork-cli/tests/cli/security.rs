//! The trust boundaries: what another local user, a page or a pane can reach, and what they cannot.

use crate::support::*;
use crate::workbench::Http;
use serde_json::{json, Value};
use std::io::BufRead;
use std::process::Stdio;
use std::time::Duration;

/// A fake `xdg-open` (and `open`) that records the arguments it was given, as `ps` would show them.
fn recording_opener(dir: &std::path::Path) -> std::path::PathBuf {
    let record = dir.join("opened.txt");
    for name in ["xdg-open", "open"] {
        let script = dir.join(name);
        std::fs::write(
            &script,
            format!("#!/bin/sh\nprintf '%s\\n' \"$@\" >> '{}'\n", record.display()),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    record
}

/// Reads `child`'s stdout until a line starts with `prefix`; that line.
fn line_starting(child: &mut std::process::Child, prefix: &str) -> String {
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let prefix = prefix.to_string();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.starts_with(&prefix) {
                let _ = tx.send(line);
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(30)).expect("the line was never printed")
}

/// `POST /api/session` as the workbench page sends it.
fn exchange(http: &Http, code: &str) -> (u16, String) {
    let host = format!("127.0.0.1:{}", http.port);
    let origin = format!("http://{host}");
    let (status, _, body) = http.call_with(
        "POST",
        &host,
        "/api/session",
        None,
        Some(&json!({ "code": code })),
        &[("Origin", &origin)],
    );
    (status, body)
}

fn code_of(url: &str) -> String {
    url.split_once("#code=").expect("the address carries a code").1.to_string()
}

#[test]
fn the_owner_token_is_never_in_argv_or_on_stdout() {
    let env = Env::new(runtimes()[0]);
    std::fs::create_dir_all(env.file(".cowork")).unwrap();
    let bin = tempfile::tempdir().unwrap();
    let opened = recording_opener(bin.path());
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    let port = free_port();
    let mut child = env
        .cmd(&["app", "serve", &path_str(env.ws.path()), "--port", &port.to_string()])
        .env("PATH", &path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let line = line_starting(&mut child, "Workbench: ");
    let _daemon = Daemon { child, port };
    let token = env.owner_token();
    let token = token.trim();
    assert!(!line.contains(token), "the printed address carries the owner token: {line}");
    assert!(eventually(Duration::from_secs(10), || opened.is_file()), "the browser was not opened");
    let argv = std::fs::read_to_string(&opened).unwrap();
    assert!(!argv.contains(token), "the opener's arguments carry the owner token: {argv}");

    // The page trades the code for its session once; a second use (someone who read it from `ps`
    // after the page did) gets nothing.
    let http = Http { port };
    let opened_url = argv.lines().next().unwrap();
    let (status, body) = exchange(&http, &code_of(opened_url));
    assert_eq!(status, 200, "{body}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["token"], token);
    let (status, body) = exchange(&http, &code_of(opened_url));
    assert_eq!(status, 401, "a used code: {body}");
    assert!(body.contains("used already"), "{body}");

    // `cowork app serve` through the running daemon prints a fresh code, not the token either.
    let again = env.cmd(&["app", "serve", "--no-open"]).output().unwrap();
    let again = stdout(&again);
    assert!(again.contains("#code="), "{again}");
    assert!(!again.contains(token), "{again}");
    let (status, body) = exchange(&http, &code_of(again.trim()));
    assert_eq!(status, 200, "{body}");

    // A code is worth nothing from another site, even before it is used.
    let (status, _, _) = http.call_with(
        "POST",
        &format!("127.0.0.1:{port}"),
        "/api/session",
        None,
        Some(&json!({ "code": code_of(&line) })),
        &[("Origin", "http://evil.example")],
    );
    assert_eq!(status, 403);
}
