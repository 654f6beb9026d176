//! Finding and talking to the daemon of a Cowork root.
//!
//! A daemon is "ours" only when its pidfile names a live process AND it answers `/api/health` with
//! our owner token and our root: a stale pidfile, or another program that took the port, never
//! passes for Cowork (single instance, identity-verified).

use cowork_core::paths::Root;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// What a running daemon writes to `<root>/daemon.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PidFile {
    pub pid: u32,
    pub port: u16,
    pub root: PathBuf,
    pub version: String,
    pub started_at: String,
}

impl PidFile {
    /// The pidfile of `root`, when there is one that parses (a crashed daemon's is left behind).
    pub fn read(root: &Root) -> Option<PidFile> {
        let text = std::fs::read_to_string(root.pid_file()).ok()?;
        serde_json::from_str(&text).ok()
    }
}

pub use crate::routines::{RunAnswer, RunBody, RunError};

/// A key mode as `/api/status` (the daemon's) and `cowork status --json` (the CLI's) write it.
#[derive(Debug, Serialize)]
pub struct KeyModeView {
    pub mode: &'static str,
    pub detail: String,
    pub ok: bool,
    pub problem: Option<String>,
}

impl From<&cowork_secrets::KeyMode> for KeyModeView {
    fn from(mode: &cowork_secrets::KeyMode) -> Self {
        KeyModeView {
            mode: mode.kind.as_str(),
            detail: mode.detail.clone(),
            ok: mode.ok,
            problem: mode.problem.clone(),
        }
    }
}

/// [`KeyModeView`] as a JSON value, for an answer the CLI builds itself.
pub fn key_mode_json(mode: &cowork_secrets::KeyMode) -> Value {
    serde_json::to_value(KeyModeView::from(mode)).expect("a key mode serializes")
}

/// A failure to reach a daemon that should be there.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("failed to reach the Cowork daemon on port {port}: {source}")]
    Http { port: u16, source: reqwest::Error },
    #[error("the Cowork daemon answered {status}: {message}")]
    Refused { status: u16, message: String },
    #[error("the Cowork daemon on port {port} answered in a shape this CLI does not read (is it another version?): {source}")]
    Answer { port: u16, source: serde_json::Error },
}

/// A verified, running daemon.
#[derive(Debug, Clone)]
pub struct Daemon {
    pub pid: u32,
    pub port: u16,
    token: String,
    http: reqwest::Client,
}

/// Whether process `pid` exists and has not exited (a zombie waiting for its parent has).
pub fn is_alive(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state letter follows the command name, which is in parentheses and may hold spaces.
        return stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X");
    }
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    // SAFETY: signal 0 only checks that the process exists and we may signal it.
    #[allow(unsafe_code)]
    let result = unsafe { libc::kill(pid, 0) };
    result == 0
}

/// The address of the workbench on `workspace` at a daemon on `port`, with `fragment` (`code=…`,
/// or `token=…` for a webview this process opens itself), which browsers never send to a server.
pub fn workbench_url(port: u16, workspace: &std::path::Path, fragment: &str) -> String {
    let encoded: String = workspace
        .display()
        .to_string()
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_./".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("http://127.0.0.1:{port}/?workspace={encoded}#{fragment}")
}

/// A server-sent-event stream from the daemon: one JSON value per `data:` line.
pub struct EventStream {
    response: reqwest::Response,
    buffer: Vec<u8>,
}

impl EventStream {
    /// The next event; `None` once the daemon closed the stream (or stopped).
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            while let Some(end) = self.buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                // Keep-alive comments (`:`) and blank separators carry nothing.
                if let Some(data) = line.strip_prefix(b"data:") {
                    if let Ok(value) = serde_json::from_slice(data.trim_ascii()) {
                        return Some(value);
                    }
                }
            }
            let chunk = self.response.chunk().await.ok()??;
            self.buffer.extend_from_slice(&chunk);
        }
    }
}

/// What the pidfile of a root leads to.
#[derive(Debug)]
pub enum Found {
    /// A daemon that answers as this root's.
    Running(Daemon),
    /// The pidfile's process is alive and is a Cowork daemon, but it does not answer as this
    /// root's (stopped, hung, or its token replaced): nothing may take the root over while it
    /// lives, since it still holds the port and would serve again.
    NotAnswering { pid: u32, port: u16 },
    /// Nothing runs: no pidfile, or its process is gone or is another program.
    Nothing,
}

/// Whether process `pid` is a Cowork daemon: the `cowork` binary serving (`start`, `app serve`) or
/// the desktop app, which hosts one. Read from `/proc/<pid>/cmdline`; elsewhere it cannot be
/// verified, and an unverified process is never treated as ours (nor killed).
pub fn is_cowork_daemon(pid: u32) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { return false };
    let args: Vec<String> =
        cmdline.split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
    let Some(program) = args
        .first()
        .and_then(|a| std::path::Path::new(a).file_name())
        .map(|n| n.to_string_lossy().into_owned())
    else {
        return false;
    };
    match program.as_str() {
        "cowork-desktop" => true,
        "cowork" => args.iter().skip(1).any(|a| a == "start" || a == "serve"),
        _ => false,
    }
}

impl Daemon {
    /// The daemon of `root`, if one is running and proves it is ours.
    pub async fn discover(root: &Root) -> Option<Daemon> {
        match Daemon::find(root).await {
            Found::Running(daemon) => Some(daemon),
            Found::NotAnswering { .. } | Found::Nothing => None,
        }
    }

    /// What runs for `root`: a daemon that answers, one that is alive but does not, or nothing.
    pub async fn find(root: &Root) -> Found {
        let Some(pidfile) = PidFile::read(root) else {
            return Found::Nothing;
        };
        if !is_alive(pidfile.pid) {
            return Found::Nothing;
        }
        if let Some(daemon) = Daemon::answering(root, &pidfile).await {
            return Found::Running(daemon);
        }
        if is_cowork_daemon(pidfile.pid) {
            Found::NotAnswering { pid: pidfile.pid, port: pidfile.port }
        } else {
            Found::Nothing
        }
    }

    async fn answering(root: &Root, pidfile: &PidFile) -> Option<Daemon> {
        let token = std::fs::read_to_string(root.token_file()).ok()?.trim().to_string();
        let http = reqwest::Client::builder().no_proxy().build().ok()?;
        let daemon = Daemon { pid: pidfile.pid, port: pidfile.port, token, http };
        let health =
            daemon.get_with_timeout("/api/health", Some(Duration::from_secs(3))).await.ok()?;
        let same_root =
            health["root"].as_str().map(PathBuf::from) == Some(root.dir().to_path_buf());
        (same_root && health["pid"].as_u64() == Some(u64::from(pidfile.pid))).then_some(daemon)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The address of the workbench on `workspace`, carrying the owner token in its fragment: only
    /// for a webview this process opens itself (the desktop shell), never to print or to hand to
    /// another program (see [`Daemon::workbench_link`]).
    pub fn workbench_url(&self, workspace: &std::path::Path) -> String {
        workbench_url(self.port, workspace, &format!("token={}", self.token))
    }

    /// The address of the workbench on `workspace` to print or open in a browser: it carries a
    /// one-time code the page exchanges for its session, nothing reusable.
    pub async fn workbench_link(&self, workspace: &std::path::Path) -> Result<String, ClientError> {
        let issued = self.post("/api/session/code", &Value::Null).await?;
        let code = issued["code"].as_str().unwrap_or_default();
        Ok(workbench_url(self.port, workspace, &format!("code={code}")))
    }

    /// Follows a server-sent-event route (`/api/events`, `/api/desktop/requests`, …).
    pub async fn stream(&self, path: &str) -> Result<EventStream, ClientError> {
        let port = self.port;
        let response = self
            .http
            .get(self.url(path))
            .bearer_auth(&self.token)
            .send()
            .await
            .map_err(|source| ClientError::Http { port, source })?;
        let status = response.status();
        if !status.is_success() {
            let body: Value = response.json().await.unwrap_or_default();
            let message = body["error"]["message"].as_str().unwrap_or("no message").to_string();
            return Err(ClientError::Refused { status: status.as_u16(), message });
        }
        Ok(EventStream { response, buffer: Vec::new() })
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    async fn get_with_timeout(
        &self,
        path: &str,
        timeout: Option<Duration>,
    ) -> Result<Value, ClientError> {
        let mut request = self.http.get(self.url(path)).bearer_auth(&self.token);
        if let Some(timeout) = timeout {
            request = request.timeout(timeout);
        }
        self.finish(request.send().await).await
    }

    /// `GET path`.
    pub async fn get(&self, path: &str) -> Result<Value, ClientError> {
        self.get_with_timeout(path, Some(Duration::from_secs(30))).await
    }

    /// `POST path` with a JSON body (no timeout: a routine may take up to 300 s).
    pub async fn post(&self, path: &str, body: &Value) -> Result<Value, ClientError> {
        self.send(path, body).await
    }

    /// `POST /api/routines/run`: runs a routine in the daemon and waits for its answer.
    pub async fn run(&self, body: &RunBody) -> Result<RunAnswer, ClientError> {
        self.send("/api/routines/run", body).await
    }

    async fn send<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        body: &impl Serialize,
    ) -> Result<T, ClientError> {
        let body = self
            .finish(self.http.post(self.url(path)).bearer_auth(&self.token).json(body).send().await)
            .await?;
        serde_json::from_value(body)
            .map_err(|source| ClientError::Answer { port: self.port, source })
    }

    async fn finish(
        &self,
        response: Result<reqwest::Response, reqwest::Error>,
    ) -> Result<Value, ClientError> {
        let port = self.port;
        let response = response.map_err(|source| ClientError::Http { port, source })?;
        let status = response.status();
        let body: Value =
            response.json().await.map_err(|source| ClientError::Http { port, source })?;
        if !status.is_success() {
            let message = body["error"]["message"].as_str().unwrap_or("no message").to_string();
            return Err(ClientError::Refused { status: status.as_u16(), message });
        }
        Ok(body)
    }

    /// Asks the daemon to stop and waits (up to `wait`) for its process to end.
    pub async fn stop(&self, wait: Duration) -> Result<bool, ClientError> {
        self.post("/api/stop", &Value::Null).await?;
        let deadline = std::time::Instant::now() + wait;
        while std::time::Instant::now() < deadline {
            if !is_alive(self.pid) {
                return Ok(true);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(!is_alive(self.pid))
    }
}
