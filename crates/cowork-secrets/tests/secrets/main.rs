//! The secret store through its public API: key-file stores anywhere, the real OS keychain under
//! `scripts/with-keyring`, and the keychain's failure modes in child processes (each with its own
//! environment: no bus, a bus without a Secret Service, a locked keyring).

#[cfg(target_os = "linux")]
mod keychain;
mod store;

use cowork_core::paths::Root;
use cowork_secrets::{probe, SecretError, SecretStore, LOCAL_ACCOUNT};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in a child process to the operation it runs (see [`child_process_entry`]).
const CHILD_OP: &str = "COWORK_SECRETS_TEST_CHILD";
/// The root the child opens.
const CHILD_ROOT: &str = "COWORK_SECRETS_TEST_CHILD_ROOT";

/// In a normal run this test does nothing. A child process started by [`Child`] runs only this
/// test, which performs one operation in the child's environment and prints what came of it:
/// `CHILD-OK <detail>`, or `CHILD-ERR <variant>` / `CHILD-MSG <message>` / `CHILD-HINT <hint>`.
#[test]
fn child_process_entry() {
    let Ok(op) = std::env::var(CHILD_OP) else { return };
    println!(); // off the harness's `test child_process_entry ... ` line
    let root = Root::new(std::env::var_os(CHILD_ROOT).expect("the parent names the root"));
    let result = match op.as_str() {
        "open" => SecretStore::open(&root, LOCAL_ACCOUNT).map(|store| store.mode().detail.clone()),
        "set" => SecretStore::open(&root, LOCAL_ACCOUNT)
            .and_then(|store| store.set("child.secret", "v"))
            .map(|()| "set".into()),
        "get" => SecretStore::open(&root, LOCAL_ACCOUNT)
            .and_then(|store| store.get("child.secret"))
            .map(|value| format!("{:?}", value.as_deref().map(String::as_str))),
        "probe" => {
            let mode = probe(&root);
            println!("CHILD-PROBE kind={} ok={} problem={:?}", mode.kind, mode.ok, mode.problem);
            return;
        }
        other => panic!("unknown child operation {other}"),
    };
    match result {
        Ok(detail) => println!("CHILD-OK {detail}"),
        Err(error) => report(&error),
    }
}

fn report(error: &SecretError) {
    let debug = format!("{error:?}");
    let variant = debug.split([' ', '{', '(']).next().unwrap_or_default();
    println!("CHILD-ERR {variant}");
    println!("CHILD-MSG {error}");
    println!("CHILD-HINT {:?}", error.hint());
}

/// A child process that runs one operation of [`child_process_entry`].
pub struct Child {
    command: Command,
}

/// What a child printed.
#[derive(Debug)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    /// The text after `CHILD-<tag> ` on the child's output, if it printed that line.
    pub fn line(&self, tag: &str) -> Option<&str> {
        let prefix = format!("CHILD-{tag} ");
        self.stdout.lines().find_map(|l| l.strip_prefix(&prefix))
    }

    /// The error variant the child got; panics with everything it printed when it got none.
    pub fn error(&self) -> &str {
        self.line("ERR").unwrap_or_else(|| panic!("the child reported no error:\n{self:#?}"))
    }

    /// The child's error message.
    pub fn message(&self) -> &str {
        self.line("MSG").unwrap_or_else(|| panic!("the child reported no message:\n{self:#?}"))
    }
}

impl Child {
    /// `op` on `root`, in this test binary run again.
    pub fn new(op: &str, root: &Path) -> Child {
        Child::wrapped(op, root, &[])
    }

    /// [`Child::new`] behind other programs (`dbus-run-session -- sh -c …`).
    pub fn wrapped(op: &str, root: &Path, wrap: &[&str]) -> Child {
        let exe = std::env::current_exe().expect("a test binary knows its path");
        let mut command = match wrap.split_first() {
            Some((program, args)) => {
                let mut c = Command::new(program);
                c.args(args).arg(&exe);
                c
            }
            None => Command::new(&exe),
        };
        command
            .args(["--exact", "child_process_entry", "--nocapture", "--test-threads=1"])
            .env(CHILD_OP, op)
            .env(CHILD_ROOT, root)
            .env_remove(cowork_secrets::KEY_FILE_ENV)
            // No display: a locked keyring's prompt must fail at once, never wait for a person.
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        Child { command }
    }

    /// Changes the child's environment.
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Child {
        self.command.env(key, value);
        self
    }

    /// Removes a variable from the child's environment.
    pub fn env_remove(mut self, key: &str) -> Child {
        self.command.env_remove(key);
        self
    }

    /// Runs the child to its end (at most a minute) and asserts that it exited cleanly.
    pub fn run(mut self) -> Outcome {
        let mut child = self.command.spawn().expect("the child starts");
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("the child can be waited for") {
                break status;
            }
            if started.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                panic!("the child ran over a minute (a keychain prompt waiting for someone?)");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let output = child.wait_with_output().expect("the child's output can be read");
        let outcome = Outcome {
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        };
        assert!(status.success(), "the child failed ({status}):\n{outcome:#?}");
        outcome
    }
}

/// Every file under `dir`, recursively.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Every file under `dir` with its bytes.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    files_under(dir).into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect()
}
