//! Installing an agent CLI on request (`POST /api/chat/install`): when the chosen CLI is not found,
//! the Chat offers to install it with npm — `npm install --prefix <root>/agents/<cli>
//! <package>@<pinned version>` — streaming npm's output as `install` events, and finds it there
//! from then on ([`super::Launch::find`] looks after the PATH). One install at a time; each one is
//! audited (`cowork.chat.install`, `source: app`).

use super::{named, Cli, Emitted, Host};
use crate::error::ApiError;
use axum::http::StatusCode;
use cowork_core::audit::{AuditLog, Context, Record, RecordedError, Source, Status};
use cowork_core::error_name::ErrorName;
use cowork_wire::chat::{ChatEvent, ChatEventKind, InstallBody, Installed};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use tokio::io::{AsyncBufReadExt, BufReader};

/// The versions installed: the ones tests/standin pins and the Chat is tested with.
impl Cli {
    /// The npm version the Chat installs.
    pub fn version(self) -> &'static str {
        match self {
            Cli::ClaudeCode => "2.1.328",
            Cli::Codex => "0.169.1",
        }
    }
}

/// Where installed CLIs live: `<root>/agents/` (one npm prefix per CLI below it).
pub fn agents_dir(root: &cowork_core::paths::Root) -> PathBuf {
    root.dir().join("agents")
}

/// npm's last lines kept for a failure's message.
const TAIL: usize = 8;

/// Installs `body.cli` and answers once npm is done (its output streamed as events meanwhile).
pub async fn install(state: &impl Host, body: InstallBody) -> Result<Installed, ApiError> {
    let ws = state.engine().workspace(&body.workspace)?;
    let workspace = ws.root().to_path_buf();
    let cli = Cli::parse(&body.cli).ok_or_else(|| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("failed to install: \"{}\" is not an agent CLI of the Chat", body.cli),
        )
        .hint("the Chat installs `claude-code` or `codex`")
    })?;
    let name = cli.name();
    let Ok(_one) = state.chats().installing.try_lock() else {
        return Err(named(
            StatusCode::CONFLICT,
            "InstallRunning",
            format!("failed to install {name}: another agent CLI is being installed"),
        )
        .hint("wait for it to finish (the Chat shows its progress), then try again"));
    };
    let launch = state.chats().launch.lock().clone();
    let path = launch.path.clone().or_else(|| std::env::var_os("PATH")).unwrap_or_default();
    let Some(npm) = std::env::split_paths(&path).map(|d| d.join("npm")).find(|p| p.is_file())
    else {
        return Err(named(
            StatusCode::SERVICE_UNAVAILABLE,
            "NpmMissing",
            format!("failed to install {name}: npm is not on the PATH"),
        )
        .hint(format!(
            "install Node.js 20 or later with npm (https://nodejs.org), restart the daemon, and \
             press Install again; or install {name} yourself: `npm install -g {}`",
            cli.package()
        )));
    };
    let root = state.engine().root();
    let prefix = agents_dir(root).join(cli.id());
    let spec = format!("{}@{}", cli.package(), cli.version());
    let audit = Audit::start(root, &workspace, cli);
    let emit = |line: Option<String>, lines: u64, outcome: Option<&str>| {
        let kind = ChatEventKind::Install {
            cli: cli.id().into(),
            line,
            lines,
            outcome: outcome.map(str::to_string),
        };
        let event = ChatEvent { conversation: String::new(), seq: 0, kind };
        let _ = state.chats().events.send(Emitted { workspace: workspace.clone(), event });
    };
    let failed = |why: String, tail: &VecDeque<String>| {
        let said = match tail.is_empty() {
            true => String::new(),
            false => format!(": {}", tail.iter().cloned().collect::<Vec<_>>().join(" / ")),
        };
        named(
            StatusCode::BAD_GATEWAY,
            "AgentInstallFailed",
            format!("failed to install {name} ({spec}): {why}{said}"),
        )
        .hint("check the network and npm's registry settings (`npm config get registry`), then press Install again")
    };
    let mut tail = VecDeque::new();
    let outcome = run_npm(&npm, &path, &launch.env, &prefix, &spec, |line, lines| {
        if tail.len() == TAIL {
            tail.pop_front();
        }
        tail.push_back(line.chars().take(300).collect::<String>());
        emit(Some(line), lines, None);
    })
    .await;
    let result = match outcome {
        Err(why) => Err(failed(why, &tail)),
        Ok(()) => match launch.find(cli, &agents_dir(root)) {
            Ok(program) => Ok(Installed {
                program: program.display().to_string(),
                version: cli.version().into(),
            }),
            Err(error) => Err(failed(format!("npm finished, but {error}"), &tail)),
        },
    };
    let lines = tail.len() as u64;
    match &result {
        Ok(_) => emit(None, lines, Some("ok")),
        Err(_) => emit(None, lines, Some("failed")),
    }
    audit.finish(&spec, result.as_ref().err().map(|e| e.name_and_message().1.to_string()));
    result
}

/// Runs npm, each line it prints (stdout and stderr) given to `line` with the count so far.
async fn run_npm(
    npm: &Path,
    path: &std::ffi::OsStr,
    env: &[(std::ffi::OsString, std::ffi::OsString)],
    prefix: &Path,
    spec: &str,
    mut line: impl FnMut(String, u64),
) -> Result<(), String> {
    std::fs::create_dir_all(prefix)
        .map_err(|e| format!("failed to make {}: {e}", prefix.display()))?;
    let mut child = tokio::process::Command::new(npm)
        .arg("install")
        .arg("--prefix")
        .arg(prefix)
        // A line per request: the progress there is to show (npm prints no percent).
        .args(["--no-audit", "--no-fund", "--progress=false", "--loglevel=http", spec])
        .env("PATH", path)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(prefix)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("npm ({}) did not start: {e}", npm.display()))?;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let out = child.stdout.take().expect("piped");
    let err = child.stderr.take().expect("piped");
    for reader in [Box::new(out) as Box<dyn tokio::io::AsyncRead + Unpin + Send>, Box::new(err)] {
        let tx = tx.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(reader).lines();
            while let Ok(Some(l)) = lines.next_line().await {
                let _ = tx.send(l);
            }
        });
    }
    drop(tx);
    let mut count = 0;
    while let Some(l) = rx.recv().await {
        if !l.trim().is_empty() {
            count += 1;
            line(l, count);
        }
    }
    let status = child.wait().await.map_err(|e| format!("npm did not finish: {e}"))?;
    match status.success() {
        true => Ok(()),
        false => Err(format!("npm exited with {status}")),
    }
}

/// The install's audit line, in the workspace whose Chat asked.
struct Audit {
    log: AuditLog,
    workspace: PathBuf,
    actor: cowork_store::audit::Actor,
    cli: Cli,
    started: time::OffsetDateTime,
    clock: std::time::Instant,
}

impl Audit {
    fn start(root: &cowork_core::paths::Root, workspace: &Path, cli: Cli) -> Audit {
        Audit {
            log: AuditLog::new(root.audit_dir(workspace)),
            workspace: workspace.to_path_buf(),
            actor: cowork_store::audit::Actor::of(root, Source::App, None),
            cli,
            started: time::OffsetDateTime::now_utc(),
            clock: std::time::Instant::now(),
        }
    }

    fn finish(self, spec: &str, error: Option<String>) {
        let record = Record {
            ts: cowork_core::audit::format_ts(self.started),
            capability: "cowork.chat.install".into(),
            input: serde_json::json!({ "cli": self.cli.id(), "package": spec }),
            status: if error.is_some() { Status::Error } else { Status::Ok },
            duration_ms: self.clock.elapsed().as_millis() as u64,
            queued_ms: None,
            context: Context {
                run_id: hex::encode(rand::random::<[u8; 16]>()),
                user_id: self.actor.user_id,
                organization_id: self.actor.organization_id,
                device_id: self.actor.device_id,
                workspace: self.workspace.display().to_string(),
                source: self.actor.source,
                principal: None,
                agent: None,
                task_id: None,
                app_id: None,
                app_version: None,
                kind: None,
                caller: None,
            },
            error: error.map(|message| RecordedError {
                name: ErrorName::Other("AgentInstallFailed".into()),
                message,
            }),
            result: None,
            log: None,
            unchanged: false,
            repeated: None,
        };
        if let Err(error) = self.log.append(&record) {
            tracing::warn!(%error, "the chat install's audit line could not be written");
        }
    }
}
