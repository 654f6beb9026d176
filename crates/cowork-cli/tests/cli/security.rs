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

/// `GET /api/health` with the owner token on a fresh connection; the status, or `None` when no
/// answer came within `limit`.
fn health(port: u16, token: &str, limit: Duration) -> Option<u16> {
    use std::io::{Read, Write};
    let mut stream =
        std::net::TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), limit).ok()?;
    stream.set_read_timeout(Some(limit)).unwrap();
    stream.set_write_timeout(Some(limit)).unwrap();
    write!(stream, "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n").ok()?;
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).ok()?;
    String::from_utf8_lossy(&head[9..12]).parse().ok()
}

#[test]
fn an_idle_flood_and_a_slow_loris_do_not_stop_the_daemon() {
    use std::io::{Read, Write};
    let env = Env::new(runtimes()[0]);
    env.app("slow", r#"{"name": "slow", "version": "1.0.0", "routines": {"slow-wait": "wait.ts"}}"#, &[(
        "wait.ts",
        "export default async () => { await new Promise((r) => setTimeout(r, 3000)); return 'done' };\n",
    )]);
    // A small file limit, so a flood a test can open exhausts it as 1,100 sockets exhausted 1,024.
    let port = free_port();
    let child = std::process::Command::new("sh")
        .args([
            "-c",
            "ulimit -n 256 && exec \"$COWORK_BIN\" start --headless --port \"$0\"",
            &port.to_string(),
        ])
        .current_dir(env.ws.path())
        .env("COWORK_HOME", env.home.path())
        .env("COWORK_RUNTIME", env.runtime)
        .env("COWORK_BIN", env!("CARGO_BIN_EXE_cowork"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _daemon = Daemon { child, port };
    assert!(eventually(Duration::from_secs(20), || {
        env.home.path().join("daemon.json").is_file()
            && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    }));
    let token = env.owner_token();
    let token = token.trim().to_string();

    let run = {
        let cmd = env.cmd(&["routine", "run", "slow-wait", "--json"]);
        std::thread::spawn(move || {
            let mut cmd = cmd;
            cmd.stdin(Stdio::null()).output().unwrap()
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    // More idle sockets than the daemon has descriptors, and one that trickles its request head.
    let flood: Vec<_> =
        (0..300).filter_map(|_| std::net::TcpStream::connect(("127.0.0.1", port)).ok()).collect();
    let mut loris = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let trickle = std::thread::spawn(move || {
        let request = format!("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n");
        for byte in request.bytes().cycle().take(60) {
            if loris.write_all(&[byte]).is_err() {
                return true;
            }
            std::thread::sleep(Duration::from_secs(1));
        }
        // Still open after a minute of trickling: see whether the daemon hung up.
        loris.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
        matches!(loris.read(&mut [0u8; 1]), Ok(0))
    });

    // The daemon answers within the header timeout (10 s) and a margin, and the run finishes.
    let answered = eventually(Duration::from_secs(30), || {
        health(port, &token, Duration::from_secs(2)) == Some(200)
    });
    assert!(answered, "/api/health stopped answering under {} idle sockets", flood.len());
    let out = run.join().unwrap();
    let outcome: Value = serde_json::from_str(stdout(&out).trim()).unwrap_or_else(|e| {
        panic!("{e}: {} {}", stdout(&out), stderr(&out));
    });
    assert_eq!(outcome["result"], "done", "{outcome}");
    assert!(trickle.join().unwrap(), "a slow-loris connection was kept open");
    drop(flood);
}
