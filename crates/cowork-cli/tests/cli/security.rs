//! The trust boundaries: what another local user, a page or a pane can reach, and what they cannot.
//! One case per finding of the hardening review, here and in `security/`:
//!
//! * the owner token never in argv or on stdout, the one-time code — `the_owner_token_is_never_…`;
//!   another local user — `another_local_user_cannot_get_the_owner_token_or_use_the_daemon`;
//! * a routine's reach (Landlock), its commands' fds and token, the descriptors its daemon
//!   inherited, a `/dev/shm` of its workspace's own, unrestricted packages, consent keyed by app
//!   and label — `security/confinement.rs`;
//! * agent logins and workspaces (issue 38) — `security/agents.rs`: a token opens only the
//!   workspaces its login was made in or let into, and the door touches no other
//!   (`an_agents_token_opens_only_the_workspaces_it_was_made_in_or_let_into`; a login from before,
//!   `a_login_from_before_workspaces_were_kept_opens_none_until_its_owner_lets_it_in`); a
//!   workspace that holds the Cowork root (or lies inside it) runs no routine and doctor says so
//!   (`a_workspace_that_holds_the_cowork_root_runs_no_routine_and_doctor_says_why`); the logins
//!   file's lock (`a_last_seen_written_beside_a_token_or_a_revoke_never_undoes_them`);
//! * a daemon that stays up — `an_idle_flood_and_a_slow_loris_do_not_stop_the_daemon`,
//!   `stalled_request_bodies_do_not_stop_the_daemon_and_are_cut_off`;
//! * a triggered run is never lost: a webhook burst past the slots waits in line or gets a named
//!   429 with Retry-After, every refusal audited, and a notification right after still fires —
//!   `triggers.rs` (`a_burst_of_webhook_calls_runs_every_call_and_a_notification_right_after_…`,
//!   `past_the_webhook_line_a_call_gets_a_named_429_and_a_notification_is_queued_ahead_of_it`);
//! * Bun installed only as the tarball pinned in the source, over https — `security/runtime.rs`;
//! * symlinks (`/api/files`, `ctx.data`), the frame's CSP, a pane's runs, a credential on the
//!   command line — the tests below;
//! * what a widget pane reaches (issue 38): queue files as content, never a path, and tables that
//!   are the workspace's own `.db` files under an authorizer (no task store, no other app's data,
//!   no `ATTACH`/`VACUUM INTO`/`load_extension`/writing PRAGMAs) — `security/widgets.rs`;
//!   a symlinked `.cowork/local` or `.claude/skills` never carries a write out of the workspace
//!   (`SymlinkedFolder`) — `security/links.rs`;
//! * triggers armed one routine at a time with a digest (an edit of `workspace.json` since fires
//!   nothing until confirmed), a webhook checked before its body is read, refused calls one line
//!   and one summary a minute — `security/triggers.rs`;
//! * what a routine's `ctx.db` reaches through the unconfined daemon (issue 38's follow-up): its
//!   own file only (no `ATTACH`/`VACUUM INTO`/`load_extension`/PRAGMAs that reach past it or
//!   weaken it), no link out of the workspace, and no statement that outlives its run, while
//!   migrations and transactions still work — `security/routine_db.rs`;
//! * pane tokens tied to the workbench session and `/api/icon` — `workbench.rs`
//!   (`a_pages_pane_tokens_end_with_its_session`, `icons_are_served_only_for_open_workspaces_…`);
//!   banners headed by their app, the native consent dialog, frames without the system resolver,
//!   no `data:`/`blob:` page in the main window — `tests/desktop/` and the shell's unit tests.

mod agents;
mod confinement;
mod links;
mod routine_db;
mod runtime;
mod triggers;
mod widgets;

use crate::support::*;
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
            // Written aside and renamed: the test polls for the file and reads it at once, and a
            // file the shell had created but not yet written read empty (seen once in a full run).
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{0}.partial' && mv '{0}.partial' '{0}'\n",
                record.display()
            ),
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
    assert!(body.contains("run `cowork open --browser` (or `cowork app serve`) again"), "{body}");

    // `cowork app serve` through the running daemon prints a fresh code, not the token either.
    let again = env.cmd(&["app", "serve", "--no-open"]).output().unwrap();
    let again = stdout(&again);
    assert!(again.contains("#code="), "{again}");
    assert!(!again.contains(token), "{again}");
    let (status, body) = exchange(&http, &code_of(again.trim()));
    assert_eq!(status, 200, "{body}");
    // `cowork` with no command does the same for the folder it runs in (page 05), opening the
    // browser (`$BROWSER`, here one that opens nothing) at it.
    let bare = env.cmd(&[]).current_dir(env.ws_path()).env("BROWSER", "true").output().unwrap();
    let bare = stdout(&bare);
    assert!(
        bare.starts_with("Workbench (through the running daemon): ") && bare.contains("#code="),
        "{bare}"
    );
    let (status, body) = exchange(&http, &code_of(bare.trim()));
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
    let (_daemon, token) = small_daemon(&env, port);

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

/// `cowork start --headless` on `port`, from `sh -c` once `setup` has run (a file limit,
/// descriptors left open) with `args` as its `$1`…; the daemon and its owner token once it answers.
pub(crate) fn daemon_after(env: &Env, port: u16, setup: &str, args: &[&str]) -> (Daemon, String) {
    let script = format!("{setup} && exec \"$COWORK_BIN\" start --headless --port \"$0\"");
    let child = std::process::Command::new("sh")
        .args(["-c", &script, &port.to_string()])
        .args(args)
        .current_dir(env.ws.path())
        .env("COWORK_HOME", env.home.path())
        .env("COWORK_RUNTIME", env.runtime)
        .env("COWORK_BIN", env!("CARGO_BIN_EXE_cowork"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let daemon = Daemon { child, port };
    assert!(eventually(Duration::from_secs(20), || {
        env.home.path().join("daemon.json").is_file()
            && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    }));
    let token = env.owner_token().trim().to_string();
    (daemon, token)
}

/// [`daemon_after`] a file limit of 256: a daemon whose 192 connections a flood can fill.
fn small_daemon(env: &Env, port: u16) -> (Daemon, String) {
    daemon_after(env, port, "ulimit -n 256", &[])
}

#[test]
fn stalled_request_bodies_do_not_stop_the_daemon_and_are_cut_off() {
    use std::io::{Read, Write};
    let env = Env::new(runtimes()[0]);
    std::fs::create_dir_all(env.file(".cowork")).unwrap();
    let port = free_port();
    let (_daemon, token) = small_daemon(&env, port);

    // More sockets than the daemon serves at once, each with a request head and a body that
    // stops halfway: the handler reading it waits for the rest.
    let stalled: Vec<_> = (0..240)
        .filter_map(|_| {
            let mut socket = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
            write!(socket, "POST /api/session HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n{{\"code\": ").ok()?;
            Some(socket)
        })
        .collect();
    assert!(stalled.len() > 200, "{} sockets", stalled.len());

    // The owner's calls are answered at once, long before any timeout frees a connection.
    let started = std::time::Instant::now();
    let answered = eventually(Duration::from_secs(5), || {
        health(port, &token, Duration::from_secs(2)) == Some(200)
    });
    assert!(answered, "/api/health stopped answering under {} stalled bodies", stalled.len());
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "answered only after {:?}",
        started.elapsed()
    );

    // Every stalled request ends: closed to make room, or answered `Timeout` once its body is
    // 10 s late (never held for ever).
    let mut timed_out = 0;
    for mut socket in stalled {
        socket.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut answer = Vec::new();
        let _ = socket.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer);
        if answer.is_empty() {
            continue;
        }
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(answer.contains(r#""name":"Timeout""#), "{answer}");
        assert!(answer.contains("did not arrive within 10 s"), "{answer}");
        timed_out += 1;
    }
    assert!(timed_out > 0, "the stalled requests that stayed were never answered");
}

#[test]
fn a_credential_value_on_the_command_line_is_refused() {
    let env = Env::new(runtimes()[0]);
    env.app("acme", r#"{"name": "acme", "version": "1.0.0", "kind": "capability", "credential": {"key": {"fields": ["token"]}}}"#, &[]);
    let refused = env.run(&["credential", "connect", "acme", "--field", "token=s3cret-in-argv"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("puts a secret on the command line"), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("--field token` alone"), "{}", stderr(&refused));
    assert_eq!(stdout(&refused), "", "nothing was connected");
}

#[test]
fn the_explorer_does_not_list_through_a_symlink_out_of_the_workspace() {
    let env = Env::new(runtimes()[0]);
    std::fs::create_dir_all(env.file(".cowork")).unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("private.txt"), "not the workspace's").unwrap();
    std::os::unix::fs::symlink(outside.path(), env.file("escape")).unwrap();
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let host = format!("127.0.0.1:{}", daemon.port);
    let owner = env.owner_token();
    let ws = path_str(&env.ws_path());
    let (status, _, body) = http.call(
        "GET",
        &host,
        &format!("/api/files?workspace={ws}&path=escape"),
        Some(owner.trim()),
        None,
    );
    assert_eq!(status, 403, "{body}");
    assert!(!body.contains("private.txt"), "{body}");
    assert!(body.contains("leads outside the workspace"), "{body}");
}

#[test]
fn a_symlink_in_the_data_folder_does_not_lead_a_write_outside_it() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        env.app("keeper", r#"{"name": "keeper", "version": "1.0.0", "routines": {"keeper-write": "write.ts"}}"#, &[(
            "write.ts",
            "export default (args: any, ctx: any) => { try { ctx.data.write(args.name, { planted: true }); return 'written'; } catch (e: any) { return e.name; } };\n",
        )]);
        let outside = tempfile::tempdir().unwrap();
        let data = env.file(".cowork/data/keeper");
        std::fs::create_dir_all(&data).unwrap();
        std::os::unix::fs::symlink(outside.path(), data.join("link")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("new.json"), data.join("dangling.json"))
            .unwrap();
        for name in ["link/x.json", "dangling.json"] {
            assert_eq!(
                env.ok("keeper-write", json!({ "name": name })),
                "BadRequest",
                "{runtime}: {name}"
            );
        }
        assert_eq!(
            std::fs::read_dir(outside.path()).unwrap().count(),
            0,
            "{runtime}: a write landed outside the data folder"
        );
        assert_eq!(env.ok("keeper-write", json!({ "name": "inside/ok.json" })), "written");
    }
}

#[test]
fn the_widget_frame_has_a_content_security_policy() {
    let env = Env::new(runtimes()[0]);
    std::fs::create_dir_all(env.file(".cowork")).unwrap();
    // A stand-in build of ui/: the policy is the daemon's header, whatever the page holds, and
    // the Rust tests run before the workbench is built.
    let ui = tempfile::tempdir().unwrap();
    std::fs::write(ui.path().join("frame.html"), "<!doctype html>frame").unwrap();
    let daemon = env.daemon_with(&[], &[("COWORK_UI_DIR", ui.path())]);
    let http = Http { port: daemon.port };
    let host = format!("notes-0123abcd.app.localhost:{}", daemon.port);
    let (status, head, _) = http.call("GET", &host, "/frame.html", None, None);
    assert_eq!(status, 200, "{head}");
    let policy = head
        .lines()
        .find_map(|l| l.strip_prefix("content-security-policy: "))
        .unwrap_or_else(|| panic!("no policy: {head}"));
    for rule in [
        "default-src 'none'",
        &format!("script-src http://{host} 'unsafe-eval'"),
        "connect-src 'none'",
        "frame-src 'none'",
        "base-uri 'none'",
    ] {
        assert!(policy.contains(rule), "{rule} missing from {policy}");
    }
}

#[test]
fn a_pane_lists_only_its_own_apps_runs() {
    let env = Env::new(runtimes()[0]);
    for app in ["notes", "mail"] {
        env.app(app, &format!(r#"{{"name": "{app}", "version": "1.0.0", "entry": "{app}.jsx", "routines": {{"{app}-ping": "ping.ts"}}}}"#), &[
            (&format!("{app}.jsx"), "export default () => null\n"),
            ("ping.ts", "export default () => 'pong';\n"),
        ]);
    }
    let daemon = env.daemon(&[]);
    let http = Http { port: daemon.port };
    let host = format!("127.0.0.1:{}", daemon.port);
    let owner = env.owner_token();
    let ws = path_str(&env.ws_path());
    for app in ["notes", "mail"] {
        let (status, _, body) = http.call(
            "POST",
            &host,
            "/api/routines/run",
            Some(owner.trim()),
            Some(&json!({"workspace": ws, "id": format!("{app}-ping")})),
        );
        assert_eq!(status, 200, "{body}");
    }
    let (_, _, body) = http.call(
        "POST",
        &host,
        "/api/panes",
        Some(owner.trim()),
        Some(&json!({"workspace": ws, "app": "notes", "file": "notes.jsx"})),
    );
    let token = serde_json::from_str::<Value>(&body).unwrap()["paneToken"]
        .as_str()
        .unwrap_or_else(|| panic!("{body}"))
        .to_string();
    let runs = |params: Value| {
        let (_, _, body) =
            http.call("POST", &host, "/api/sdk/routines.runs", Some(&token), Some(&params));
        let answer: Value = serde_json::from_str(&body).unwrap();
        answer["result"]
            .as_array()
            .unwrap_or_else(|| panic!("{body}"))
            .iter()
            .map(|r| r["routine"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(runs(json!({})), ["notes-ping"]);
    assert_eq!(runs(json!({"app": "mail"})), Vec::<String>::new(), "another app named in params");
    assert_eq!(runs(json!({"id": "mail-ping"})), Vec::<String>::new());
}

/// The second local user the multi-user test acts as.
const OTHER_USER: &str = "cowork-test-other";

/// Makes sure [`OTHER_USER`] exists (creating it where the test runs as root, as CI does); false
/// when it cannot, which skips the test outside CI only.
fn other_user() -> bool {
    let exists = || {
        std::process::Command::new("id").arg(OTHER_USER).output().is_ok_and(|o| o.status.success())
    };
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !exists() && root {
        let made = std::process::Command::new("useradd")
            .args(["--system", "--no-create-home", OTHER_USER])
            .status()
            .unwrap();
        assert!(made.success() || exists(), "useradd {OTHER_USER} failed");
    }
    if exists() && root {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI runs this test as root, with a second user ({OTHER_USER}) it may create"
    );
    eprintln!("skipped: not root (runuser needs it) or no user {OTHER_USER} to act as");
    false
}

/// `args` run as [`OTHER_USER`], with `stdin` on its standard input.
fn as_other(args: &[&str], stdin: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = std::process::Command::new("runuser")
        .args(["-u", OTHER_USER, "--"])
        .args(args)
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn another_local_user_cannot_get_the_owner_token_or_use_the_daemon() {
    if !other_user() {
        return;
    }
    let env = Env::new(runtimes()[0]);
    env.app(
        "notes",
        r#"{"name": "notes", "version": "1.0.0", "routines": {"notes-hello": "hello.ts"}}"#,
        &[("hello.ts", "export default async () => 'hi';\n")],
    );
    // A root folder the person left traversable: its files' own modes must keep them private.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(env.home.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let output = tempfile::NamedTempFile::new().unwrap();
    let port = free_port();
    let daemon = Daemon {
        child: env
            .cmd(&["start", "--headless", "--port", &port.to_string()])
            .stdout(output.reopen().unwrap())
            .stderr(output.reopen().unwrap())
            .spawn()
            .unwrap(),
        port,
    };
    assert!(eventually(Duration::from_secs(20), || {
        env.home.path().join("daemon.json").is_file()
            && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    }));
    let token = env.owner_token();
    let token = token.trim();
    env.ok("notes-hello", json!({}));
    let served = env.cmd(&["app", "serve", "--no-open"]).output().unwrap();
    let code = code_of(stdout(&served).trim());

    // No process's arguments carry the token (grep reads the token from stdin, not its argv).
    let found = as_other(&["sh", "-c", "grep -l -a -F -f /dev/stdin /proc/[0-9]*/cmdline"], token);
    assert!(
        !found.status.success(),
        "a process's argv holds the owner token: {}",
        String::from_utf8_lossy(&found.stdout)
    );
    // Nor anything the owner's commands printed.
    let printed =
        [std::fs::read_to_string(output.path()).unwrap(), stdout(&served), stderr(&served)]
            .concat();
    assert!(!printed.contains(token), "the owner's commands printed the owner token: {printed}");

    // The token file, the secret store and the audit folder are the owner's alone.
    let init = env.run(&["secrets", "init", "--key-file"]);
    assert!(init.status.success(), "{}", stderr(&init));
    let home = env.home.path();
    let files = [home.join("daemon.token"), home.join("secrets.key"), home.join("secrets.db")];
    for file in files.iter().filter(|f| f.is_file()) {
        let read = as_other(&["cat", &path_str(file)], "");
        assert!(!read.status.success(), "{OTHER_USER} read {}", file.display());
    }
    assert!(home.join("secrets.key").is_file(), "the key file of the secret store");
    let audit = env.audit_dir();
    assert!(audit.is_dir(), "the run wrote the audit log");
    for folder in [audit.clone(), home.join("workspaces")] {
        let list = as_other(&["ls", &path_str(&folder)], "");
        assert!(!list.status.success(), "{OTHER_USER} listed {}", folder.display());
    }

    // The daemon refuses the other user without the token, and a used code buys nothing.
    let status = |args: &[&str], body: &str| {
        let mut curl = vec!["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}"];
        curl.extend_from_slice(args);
        String::from_utf8_lossy(&as_other(&curl, body).stdout).to_string()
    };
    assert_eq!(status(&[&format!("http://127.0.0.1:{port}/api/status")], ""), "401");
    let http = Http { port: daemon.port };
    let (exchanged, body) = exchange(&http, &code);
    assert_eq!(exchanged, 200, "the owner's page: {body}");
    let url = format!("http://127.0.0.1:{port}/api/session");
    let post = ["-X", "POST", "-H", "content-type: application/json", "--data-binary", "@-", &url];
    assert_eq!(status(&post, &json!({ "code": code }).to_string()), "401", "a used code");
}
