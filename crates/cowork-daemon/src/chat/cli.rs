//! Finding the agent CLI and the command line it runs with: Claude Code spawned as a desktop host
//! spawns it (shared/spec/context-agent-spawn-contract.md) — print mode with stream-json in and
//! out, permission prompts and questions over the control protocol on stdio, the Cowork door as an
//! MCP server — and nothing of the vendor's cloud or VM. Secrets never go in argv: the door's
//! bearer is in a 0600 `--mcp-config` file.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The env variable naming the Claude Code binary to run instead of `claude` on the PATH.
pub const CLI_ENV: &str = "COWORK_CLAUDE";

/// How the daemon starts agent CLIs: where it looks, what it adds to their environment. Tests
/// point it at the stand-in's `bin/` and give the stand-in's URL; the daemon uses its own PATH.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// The binary to run (else `$COWORK_CLAUDE`, else `claude` on `path`).
    pub program: Option<PathBuf>,
    /// The PATH to look on and to give the CLI (else the daemon's).
    pub path: Option<OsString>,
    /// Extra environment for the CLI.
    pub env: Vec<(OsString, OsString)>,
}

/// No agent CLI to run.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    /// Nothing called `claude` on the PATH.
    #[error("failed to start the chat: Claude Code (`claude`) is not on the PATH")]
    NotOnPath,
    /// `$COWORK_CLAUDE` or the configured path names no file.
    #[error("failed to start the chat: the configured Claude Code {} does not exist", .0.display())]
    Configured(PathBuf),
}

impl FindError {
    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        "install Claude Code with `npm install -g @anthropic-ai/claude-code` (then sign in with \
         `claude`), or set COWORK_CLAUDE to its binary and restart the daemon"
    }
}

impl Launch {
    /// The CLI's binary.
    pub fn find(&self) -> Result<PathBuf, FindError> {
        let configured =
            self.program.clone().or_else(|| std::env::var_os(CLI_ENV).map(PathBuf::from));
        if let Some(program) = configured {
            return match program.is_file() {
                true => Ok(program),
                false => Err(FindError::Configured(program)),
            };
        }
        let path = self.path.clone().or_else(|| std::env::var_os("PATH")).unwrap_or_default();
        std::env::split_paths(&path)
            .map(|dir| dir.join("claude"))
            .find(|candidate| is_executable(candidate))
            .ok_or(FindError::NotOnPath)
    }
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// What a session runs with.
pub struct Settings<'a> {
    /// The 0600 file with the door's MCP server and its bearer.
    pub mcp_config: &'a Path,
    pub model: Option<&'a str>,
    pub effort: Option<&'a str>,
    /// The CLI session to go on with (`--resume`).
    pub resume: Option<&'a str>,
}

/// The door's tools that only read or list: pre-approved, as their grants still decide. `run`
/// (anything else granted) asks the person first, as do the CLI's own tools that change things.
const PRE_APPROVED: &str =
    "mcp__cowork__list_capabilities,mcp__cowork__read,mcp__cowork__start_task";

/// The CLI's arguments.
pub fn args(settings: &Settings) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        // Text as it is written, not a whole message at the end.
        "--include-partial-messages",
        // Each tool not pre-approved, and AskUserQuestion, comes to us as a control request.
        "--permission-prompt-tool",
        "stdio",
        "--allowedTools",
        PRE_APPROVED,
    ]
    .into_iter()
    .map(OsString::from)
    .collect();
    args.push("--mcp-config".into());
    args.push(settings.mcp_config.into());
    if let Some(model) = settings.model {
        args.extend(["--model".into(), model.into()]);
    }
    if let Some(effort) = settings.effort {
        args.extend(["--effort".into(), effort.into()]);
    }
    if let Some(session) = settings.resume {
        args.extend(["--resume".into(), session.into()]);
    }
    args
}

/// The environment the CLI gets on top of the daemon's (contract: "Spawn env object", the keys
/// that are not about the vendor's cloud). `COWORK_AGENT` makes a `cowork routine run` from
/// inside the session audited `source: cli` with `agent: claude-code` (page 02).
pub fn env() -> Vec<(&'static str, &'static str)> {
    vec![
        ("COWORK_AGENT", "claude-code"),
        ("CLAUDE_CODE_ENABLE_ASK_USER_QUESTION_TOOL", "true"),
        ("CLAUDE_CODE_DISABLE_TERMINAL_TITLE", "1"),
        ("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS", "1"),
        ("CLAUDE_CODE_DISABLE_CRON", "1"),
        // The door's tools offered to the model directly, not behind ToolSearch.
        ("ENABLE_TOOL_SEARCH", "false"),
    ]
}

/// `--mcp-config`'s JSON: the door for this workspace, with the session login's bearer.
pub fn mcp_config(url: &str, token: &str) -> serde_json::Value {
    serde_json::json!({
        "mcpServers": {
            "cowork": { "type": "http", "url": url, "headers": { "Authorization": format!("Bearer {token}") } }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_claude_on_the_path_is_named_with_what_to_install() {
        let empty = tempfile::tempdir().unwrap();
        let launch = Launch { path: Some(empty.path().into()), ..Default::default() };
        let error = launch.find().unwrap_err();
        assert!(matches!(error, FindError::NotOnPath));
        assert!(error.hint().contains("npm install -g @anthropic-ai/claude-code"));
    }

    #[test]
    fn the_bearer_is_never_in_argv() {
        let file = Path::new("/tmp/x.mcp.json");
        let args = args(&Settings {
            mcp_config: file,
            model: Some("opus"),
            effort: Some("high"),
            resume: Some("s1"),
        });
        let line = args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" ");
        assert!(!line.contains("Bearer"));
        assert!(line.contains("--mcp-config /tmp/x.mcp.json"));
        assert!(line.contains("--model opus --effort high --resume s1"));
    }
}
