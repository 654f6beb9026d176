//! The setup every CLI test shares: a temp workspace with apps written inline, a temp Cowork root,
//! the real `cowork` binary, and — for daemon tests — a real daemon on a free port.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runtimes every routine test runs on: Bun when the set-up installed it, and Node ≥ 20 when present.
pub fn runtimes() -> Vec<&'static str> {
    let node_major = Command::new("node")
        .args(["-p", "process.versions.node.split('.')[0]"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse::<u32>().ok())
        .unwrap_or(0);
    let mut list = if node_major >= 20 { vec!["node"] } else { Vec::new() };
    let bun_found = std::env::var_os("COWORK_BUN").is_some()
        || Command::new("bun").arg("--version").output().is_ok()
        || std::env::var_os("HOME").map(PathBuf::from).is_some_and(|h| {
            h.join(".cowork-studio/runtime/node_modules/@oven/bun-linux-x64/bin/bun").is_file()
        });
    if bun_found {
        list.insert(0, "bun");
    } else if std::env::var_os("CI").is_some() {
        panic!("Bun is not installed: the set-up command installs it (npm @oven/bun-linux-x64)");
    }
    assert!(!list.is_empty(), "neither Bun nor Node ≥ 20 is installed: run ./scripts/install-deps");
    list
}

/// A workspace and a Cowork root, both temporary.
pub struct Env {
    pub ws: tempfile::TempDir,
    pub home: tempfile::TempDir,
    pub runtime: &'static str,
    /// The `cowork` binary its commands run: this build's, unless [`Env::running`] says another.
    bin: PathBuf,
}

impl Env {
    pub fn new(runtime: &'static str) -> Env {
        Env {
            ws: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            runtime,
            bin: PathBuf::from(env!("CARGO_BIN_EXE_cowork")),
        }
    }

    /// This env with its commands run by the `cowork` binary `bin` (a benchmark's release build).
    pub fn running(mut self, bin: &Path) -> Env {
        self.bin = bin.to_path_buf();
        self
    }

    /// A copy of the demo workspace (without runtime output a manual try may have left).
    pub fn demo(runtime: &'static str) -> Env {
        let env = Env::new(runtime);
        copy_tree(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo"),
            env.ws.path(),
        );
        env
    }

    /// A path in the workspace.
    pub fn file(&self, rel: &str) -> PathBuf {
        self.ws.path().join(rel)
    }

    /// The canonical workspace path (what the daemon and the audit log record).
    pub fn ws_path(&self) -> PathBuf {
        self.ws.path().canonicalize().unwrap()
    }

    /// Writes `files` (path → content) under `.cowork/apps/<app>/`.
    pub fn app(&self, app: &str, manifest: &str, files: &[(&str, &str)]) -> &Self {
        let dir = self.ws.path().join(".cowork/apps").join(app);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("cowork.json"), manifest).unwrap();
        for (name, body) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, body).unwrap();
        }
        self
    }

    /// An app `<app>` at 1.0.0 of `files` small files: `cowork.json`, the entry `<app>.jsx` and
    /// `lib/mNN/fNNNN.ts` spread over 40 folders (what the store's benchmarks publish).
    pub fn app_of_files(&self, app: &str, files: usize) -> &Self {
        let manifest = format!(
            "{{\n  \"name\": \"{app}\",\n  \"version\": \"1.0.0\",\n  \"entry\": \"{app}.jsx\"\n}}\n"
        );
        let bodies: Vec<(String, String)> = (0..files.saturating_sub(2))
            .map(|i| {
                (format!("lib/m{:02}/f{i:04}.ts", i % 40), format!("export const v{i} = {i};\n"))
            })
            .collect();
        let mut list: Vec<(&str, &str)> =
            bodies.iter().map(|(p, b)| (p.as_str(), b.as_str())).collect();
        let entry = format!("{app}.jsx");
        list.push((&entry, "export default () => 'hi'\n"));
        self.app(app, &manifest, &list)
    }

    /// An app `<app>` with one widget, `<app>.jsx`, that declares nothing else (no `kind`, no
    /// `uses`): what a pane in a test belongs to.
    pub fn widget_app(&self, app: &str) -> &Self {
        let manifest = format!(r#"{{"name": "{app}", "version": "1.0.0", "entry": "{app}.jsx"}}"#);
        self.app(app, &manifest, &[(&format!("{app}.jsx"), "export default () => null\n")])
    }

    /// Writes `.cowork/workspace.json`.
    pub fn workspace_json(&self, body: &str) {
        std::fs::write(self.ws.path().join(".cowork/workspace.json"), body).unwrap();
    }

    /// A `cowork` command in the workspace with this env's root and runtime.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.bin);
        cmd.args(args)
            .current_dir(self.ws.path())
            .env("COWORK_HOME", self.home.path())
            .env("COWORK_RUNTIME", self.runtime);
        cmd.env_remove("CLAUDECODE").env_remove("CODEX_SANDBOX").env_remove("COWORK_AGENT");
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).stdin(Stdio::null()).output().unwrap()
    }

    /// `cowork credential connect <name> --field <field>` with `value` on stdin.
    pub fn connect_key(&self, name: &str, field: &str, value: &str) -> Output {
        with_stdin(self.cmd(&["credential", "connect", name, "--field", field]), value)
    }

    /// `cowork routine run <id> --args <json> --json`, parsed.
    pub fn routine(&self, id: &str, args: &str) -> Value {
        let out = self.run(&["routine", "run", id, "--args", args, "--json"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
            panic!("{id}: {e}: stdout {stdout} stderr {}", String::from_utf8_lossy(&out.stderr))
        })
    }

    /// `cowork <args> --json`, parsed.
    pub fn json(&self, args: &[&str]) -> Value {
        let out = self.run(&[args, &["--json"]].concat());
        let text = stdout(&out);
        serde_json::from_str(text.trim()).unwrap_or_else(|e| {
            panic!("{args:?} on {}: {e}\nstdout {text}\nstderr {}", self.runtime, stderr(&out))
        })
    }

    /// Runs a routine that must succeed; its result.
    pub fn ok(&self, id: &str, args: Value) -> Value {
        let outcome = self.routine(id, &args.to_string());
        assert_eq!(outcome["ok"], Value::Bool(true), "{id} {args} on {}: {outcome}", self.runtime);
        outcome["result"].clone()
    }

    /// Runs a routine that must fail; its error's name.
    pub fn fails(&self, id: &str, args: Value) -> String {
        let outcome = self.routine(id, &args.to_string());
        assert_eq!(
            outcome["ok"],
            Value::Bool(false),
            "{id} {args} on {} should fail: {outcome}",
            self.runtime
        );
        outcome["error"]["name"].as_str().unwrap().to_string()
    }

    /// Every audit line of the workspace, oldest first, as raw text.
    pub fn audit_lines(&self) -> Vec<String> {
        let dir = self.audit_dir();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        files.sort();
        files
            .iter()
            .flat_map(|f| {
                std::fs::read_to_string(f).unwrap().lines().map(String::from).collect::<Vec<_>>()
            })
            .collect()
    }

    pub fn audit_dir(&self) -> PathBuf {
        cowork_core::paths::Root::new(self.home.path()).audit_dir(&self.ws_path())
    }

    /// The running daemon's owner token, as a window or the CLI sends it.
    pub fn owner_token(&self) -> String {
        std::fs::read_to_string(self.home.path().join("daemon.token")).unwrap()
    }

    /// Starts a real daemon on a free port and waits until it answers.
    pub fn daemon(&self, extra: &[&str]) -> Daemon {
        self.daemon_with(extra, &[])
    }

    /// [`Env::daemon`] with extra environment variables for the daemon.
    pub fn daemon_with(&self, extra: &[&str], vars: &[(&str, &Path)]) -> Daemon {
        let port = free_port();
        let port_text = port.to_string();
        let mut args = vec!["start", "--headless", "--port", &port_text];
        args.extend_from_slice(extra);
        // Owned by the guard at once, so a daemon that never answers is still killed.
        let daemon = Daemon {
            child: self
                .cmd(&args)
                .envs(vars.iter().copied())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
            port,
        };
        // Its own pidfile: one a killed daemon left in this home names another pid.
        let pid = daemon.child.id();
        let up = eventually(Duration::from_secs(20), || {
            std::fs::read_to_string(self.home.path().join("daemon.json"))
                .ok()
                .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                .is_some_and(|pidfile| pidfile["pid"] == pid)
                && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        assert!(up, "the daemon did not start");
        daemon
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let runtime_output = source.parent().is_some_and(|p| p.ends_with(".cowork"))
            && ["data", "local"].iter().any(|n| entry.file_name() == *n);
        if runtime_output {
            continue;
        }
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            // The demo's skill links (.claude/skills/<app> → ../../.cowork/apps/<app>), kept
            // relative so the copy's point into the copy.
            std::os::unix::fs::symlink(std::fs::read_link(&source).unwrap(), &target).unwrap();
        } else if kind.is_dir() {
            copy_tree(&source, &target);
        } else {
            std::fs::copy(&source, &target).unwrap();
        }
    }
}

/// Runs `cmd` with `input` on its stdin (then closed): its output.
pub fn with_stdin(mut cmd: Command, input: &str) -> Output {
    use std::io::Write;
    let mut child =
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// A port nobody listens on right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A daemon the test started; killed when dropped.
pub struct Daemon {
    pub child: Child,
    pub port: u16,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Waits until `check` holds or `limit` passes.
pub fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    check()
}

/// A number for `sleep <n>` that names a test's process: unique to this test run (a leftover of an
/// earlier, failed run must not count), `slot` telling a test's markers apart.
pub fn sleep_marker(slot: u32) -> String {
    (100_000 + (std::process::id() % 10_000) * 100 + slot).to_string()
}

/// Whether a process whose command line contains `marker` is running.
pub fn process_running(marker: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().filter_map(Result::ok).any(|entry| {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        text.contains(marker) && !text.contains("pgrep")
    })
}

pub fn path_str(path: &Path) -> String {
    path.display().to_string()
}

/// Every file under `dir` (a Cowork root) holding `needle`: plaintext secrets must never be on disk.
pub fn grep(dir: &Path, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            hits.extend(grep(&path, needle));
        } else if std::fs::read(&path)
            .unwrap_or_default()
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
        {
            hits.push(path.display().to_string());
        }
    }
    hits
}

/// Raw HTTP/1.1 to a daemon on loopback: every test sets the `Host` (and, where it plays a
/// browser, `Origin`) it means to, which a client library would fill in for it.
pub struct Http {
    pub port: u16,
}

impl Http {
    /// One request on its own connection; the status code, the head and the body.
    pub fn call(
        &self,
        method: &str,
        host: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> (u16, String, String) {
        self.call_with(method, host, path, token, body, &[])
    }

    /// [`Http::call`] with extra headers (what a browser adds: `Origin`, `Sec-Fetch-Site`).
    pub fn call_with(
        &self,
        method: &str,
        host: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> (u16, String, String) {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let body = body.map(Value::to_string).unwrap_or_default();
        let head = self.head(method, host, path, token, headers);
        write!(stream, "{head}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        let status = head[9..12].parse().unwrap();
        (status, head.to_string(), body.to_string())
    }

    /// A request on 127.0.0.1 with the owner's (or a pane's) `token`: the status and the body as
    /// JSON (`null` when it is not JSON).
    pub fn json(
        &self,
        method: &str,
        path: &str,
        token: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let host = format!("127.0.0.1:{}", self.port);
        let (status, _, body) = self.call(method, &host, path, Some(token), body);
        (status, serde_json::from_str(&body).unwrap_or(Value::Null))
    }

    /// `GET path` held open as an event stream (`text/event-stream`), once its head has come.
    pub fn events(&self, path: &str, token: &str) -> EventStream {
        use std::io::{BufRead, Write};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let host = format!("127.0.0.1:{}", self.port);
        let head = self.head("GET", &host, path, Some(token), &[("Accept", "text/event-stream")]);
        write!(stream, "{head}\r\n").unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut reader = std::io::BufReader::new(stream);
        let mut status_line = String::new();
        reader.read_line(&mut status_line).unwrap();
        let status = status_line.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap() > 2 {
            line.clear();
        }
        EventStream { status, reader }
    }

    fn head(
        &self,
        method: &str,
        host: &str,
        path: &str,
        token: Option<&str>,
        headers: &[(&str, &str)],
    ) -> String {
        let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\n");
        if let Some(token) = token {
            head.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head
    }
}

/// A server-sent event stream the daemon holds open: its status, then one event at a time.
pub struct EventStream {
    pub status: u16,
    reader: std::io::BufReader<std::net::TcpStream>,
}

impl EventStream {
    /// The next event's `data` as JSON and its line as it came; `None` once the stream closed.
    pub fn next(&mut self) -> Option<(Value, String)> {
        use std::io::BufRead;
        let mut line = String::new();
        loop {
            line.clear();
            if self.reader.read_line(&mut line).ok()? == 0 {
                return None;
            }
            if let Some(data) = line.strip_prefix("data:") {
                return Some((serde_json::from_str(data.trim()).unwrap(), line));
            }
        }
    }
}

/// `text` as a regex matching it literally (for insta filters that hide temporary paths).
pub fn regex_escape(text: &str) -> String {
    text.chars()
        .map(|c| match c.is_ascii_alphanumeric() || c == '/' || c == '_' || c == '-' {
            true => c.to_string(),
            false => format!("\\{c}"),
        })
        .collect()
}

/// A command's exit code, stdout and stderr, as the CLI's snapshots record them.
pub fn transcript(out: &Output) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.status.code().unwrap_or(-1),
        stdout(out),
        stderr(out)
    )
}
