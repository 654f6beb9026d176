//! `cowork install`, `cowork setup`'s first half and `cowork doctor --disable-autostart`: Bun from
//! a registry that speaks npm's protocol (a local one, serving Bun's real npm tarball); the
//! autostart entry written and removed. A tarball other than the pinned one is refused:
//! `security/runtime.rs`.

use crate::support::*;
use base64::Engine as _;
use sha2::{Digest, Sha512};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Bun's real npm tarball of the pinned version, from npm's cache (content-addressed by its
/// sha512), where `scripts/install-deps` left it when it installed Bun.
fn real_tarball() -> Vec<u8> {
    let pin = cowork_daemon::bun::INTEGRITY_LINUX_X64;
    let digest = base64::engine::general_purpose::STANDARD
        .decode(pin.strip_prefix("sha512-").unwrap())
        .unwrap();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let cache = std::env::var_os("npm_config_cache")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".npm"));
    let file =
        cache.join("_cacache/content-v2/sha512").join(&hex[..2]).join(&hex[2..4]).join(&hex[4..]);
    std::fs::read(&file).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: the tests serve Bun's real tarball from npm's cache (run `npm cache add @oven/bun-linux-x64@{}`)",
            file.display(),
            cowork_daemon::bun::VERSION
        )
    })
}

/// A stand-in for Bun's tarball, a real npm tarball whose `bin/bun` prints `1.4.5`.
pub fn stand_in_tarball() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("package/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("bun"), "#!/bin/sh\necho 1.4.5\n").unwrap();
    let tgz = dir.path().join("bun.tgz");
    let made = Command::new("tar")
        .args(["-czf", tgz.to_str().unwrap(), "-C", dir.path().to_str().unwrap(), "package"])
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::read(&tgz).unwrap()
}

/// An npm registry on a free port holding `@oven/bun-linux-x64@1.4.5` as `tarball`, its metadata
/// vouching for it with its true sha512 and naming it at `tarball_url` (by default, its own
/// address in this registry).
pub fn registry(tarball: Vec<u8>, tarball_url: Option<&str>) -> String {
    let integrity = format!(
        "sha512-{}",
        base64::engine::general_purpose::STANDARD.encode(Sha512::digest(&tarball))
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let at = tarball_url
        .map(str::to_string)
        .unwrap_or_else(|| format!("{base}/@oven/bun-linux-x64/-/bun-linux-x64-1.4.5.tgz"));
    let metadata = serde_json::json!({
        "name": "@oven/bun-linux-x64",
        "version": "1.4.5",
        "dist": { "tarball": at, "integrity": integrity },
    })
    .to_string()
    .into_bytes();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut request_line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            reader.read_line(&mut request_line).unwrap();
            // The headers, up to the blank line.
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap() > 2 {
                line.clear();
            }
            let path = request_line.split(' ').nth(1).unwrap_or_default();
            let (status, body, kind) = match path {
                "/@oven%2fbun-linux-x64/1.4.5" => ("200 OK", &metadata, "application/json"),
                "/@oven/bun-linux-x64/-/bun-linux-x64-1.4.5.tgz" => {
                    ("200 OK", &tarball, "application/octet-stream")
                }
                _ => ("404 Not Found", &Vec::new(), "text/plain"),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body));
        }
    });
    base
}

/// `cowork ARGS` with a home, a config folder and a registry of its own; the desktop app "is"
/// /opt/cowork/cowork-desktop (what the autostart entry starts).
pub fn run(env: &Env, home: &Path, registry: &str, args: &[&str]) -> Output {
    env.cmd(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("COWORK_NPM_REGISTRY", registry)
        .env("COWORK_DESKTOP_BIN", "/opt/cowork/cowork-desktop")
        .env_remove("COWORK_BUN")
        .env_remove("COWORK_RUNTIME")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

pub fn installed_bun(home: &Path) -> PathBuf {
    home.join(".cowork-studio/runtime/node_modules/@oven/bun-linux-x64/bin/bun")
}

#[test]
fn install_takes_bun_from_the_registry_and_starts_at_login_until_doctor_disables_it() {
    let env = Env::new("node");
    let home = tempfile::tempdir().unwrap();
    let registry = registry(real_tarball(), None);

    let out = run(&env, home.path(), &registry, &["install", "--force"]);
    assert!(out.status.success(), "{}", transcript(&out));
    let said = stdout(&out);
    assert!(said.contains("Bun 1.4.5 installed from npm, integrity checked"), "{said}");
    // Off a terminal the progress bar is a line per quarter, the last one full.
    assert!(stderr(&out).contains("[####################] 100%"), "{}", stderr(&out));
    let bun = Command::new(installed_bun(home.path())).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&bun.stdout).trim(), "1.4.5");

    let entry = home.path().join(".config/autostart/cowork-studio.desktop");
    let text = std::fs::read_to_string(&entry).unwrap();
    assert!(text.contains("\nExec=/opt/cowork/cowork-desktop\n"), "{text}");
    assert!(stdout(&run(&env, home.path(), &registry, &["doctor"])).contains("ok   autostart on ("));

    let off = run(&env, home.path(), &registry, &["doctor", "--disable-autostart"]);
    assert!(off.status.success(), "{}", transcript(&off));
    assert!(stdout(&off).contains("autostart: off (removed"), "{}", stdout(&off));
    assert!(!entry.exists());
    let doctor = stdout(&run(&env, home.path(), &registry, &["doctor"]));
    assert!(
        doctor.contains("ok   autostart off (`cowork install` starts Cowork Studio at login)"),
        "{doctor}"
    );

    // Without --force a Bun that runs is kept.
    let again = run(&env, home.path(), &registry, &["install"]);
    assert!(stdout(&again).contains("runtime:   Bun 1.4.5 ("), "{}", transcript(&again));
}

#[test]
fn onboarding_lists_what_is_pending_until_install_does_it() {
    let env = Env::new("node");
    let home = tempfile::tempdir().unwrap();
    let registry = registry(real_tarball(), None);

    let before = stdout(&run(&env, home.path(), &registry, &["onboarding", "status"]));
    assert!(
        before.contains("pending  autostart  Start Cowork Studio when you log in?"),
        "{before}"
    );
    // Off a terminal nobody can answer: the pending steps are listed, with how to answer them.
    let asked = stdout(&run(&env, home.path(), &registry, &["onboarding"]));
    assert!(
        asked.contains("pending  autostart") && asked.contains("hint: answer them in a terminal"),
        "{asked}"
    );

    assert!(run(&env, home.path(), &registry, &["install", "--force"]).status.success());
    let after = stdout(&run(&env, home.path(), &registry, &["onboarding", "status"]));
    assert!(after.contains("done     autostart") && after.contains("done     runtime"), "{after}");

    let unknown = run(&env, home.path(), &registry, &["onboarding", "reset", "bogus"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("there is no onboarding step \"bogus\""),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn the_workbench_installs_bun_through_the_daemon_and_draws_its_progress() {
    let env = Env::new("bun");
    let home = tempfile::tempdir().unwrap();
    let registry = registry(real_tarball(), None);
    // No Bun anywhere this daemon looks: not on its PATH, not in COWORK_BUN, not installed.
    let daemon = env.daemon_with(
        &[],
        &[
            ("HOME", home.path()),
            ("PATH", home.path()),
            ("COWORK_BUN", &home.path().join("no-bun")),
            ("COWORK_NPM_REGISTRY", Path::new(&registry)),
        ],
    );
    let http = Http { port: daemon.port };
    let token = env.owner_token();

    let (status, before) = http.json("GET", "/api/runtime", &token, None);
    assert_eq!(status, 200, "{before}");
    assert_eq!(before["runtime"], serde_json::Value::Null, "{before}");
    assert_eq!(before["install"]["state"], "idle", "{before}");

    let (status, started) =
        http.json("POST", "/api/runtime/install", &token, Some(&serde_json::json!({})));
    assert_eq!(status, 200, "{started}");
    assert!(matches!(started["install"]["state"].as_str(), Some("running" | "done")), "{started}");
    let installed = eventually(std::time::Duration::from_secs(20), || {
        http.json("GET", "/api/runtime", &token, None).1["install"]["state"] == "done"
    });
    assert!(installed, "{}", http.json("GET", "/api/runtime", &token, None).1);
    let (_, after) = http.json("GET", "/api/runtime", &token, None);
    assert_eq!(after["runtime"]["kind"], "bun", "{after}");
    assert_eq!(after["runtime"]["version"], "1.4.5", "{after}");
    assert!(installed_bun(home.path()).is_file());
}
