//! Finding the agent CLI and the command line it runs with. [`Cli`] holds every difference
//! between the two the Chat runs:
//! - Claude Code, spawned as a desktop host spawns it (shared/spec/context-agent-spawn-contract.md)
//!   — print mode with stream-json in and out, permission prompts and questions over the control
//!   protocol on stdio, the Cowork door as an MCP server — and nothing of the vendor's cloud or VM;
//! - Codex, as `codex app-server` (JSON-RPC on stdio: a thread per conversation, streamed items,
//!   approvals and questions as the server's requests), the door as its `cowork` MCP server.
//!
//! Secrets never go in argv: Claude Code reads the door's bearer from a 0600 `--mcp-config` file,
//! Codex from an environment variable its config names (`bearer_token_env_var`).

use super::codex;
use super::protocol::{self, Output};
use cowork_wire::chat::Question;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The env variable naming the Claude Code binary to run instead of `claude` on the PATH.
pub const CLI_ENV: &str = "COWORK_CLAUDE";

/// The environment variable Codex reads the door's bearer from.
pub const CODEX_TOKEN_ENV: &str = "COWORK_DOOR_TOKEN";

/// An agent CLI the Chat runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cli {
    /// Claude Code (npm `@anthropic-ai/claude-code`), the default.
    ClaudeCode,
    /// Codex (npm `@openai/codex`).
    Codex,
}

impl Cli {
    /// Every CLI, the default first.
    pub const ALL: [Cli; 2] = [Cli::ClaudeCode, Cli::Codex];

    /// Its id on the wire and in the audit's `agent` (`claude-code`, `codex`).
    pub fn id(self) -> &'static str {
        match self {
            Cli::ClaudeCode => "claude-code",
            Cli::Codex => "codex",
        }
    }

    /// The CLI named `id`.
    pub fn parse(id: &str) -> Option<Cli> {
        Cli::ALL.into_iter().find(|c| c.id() == id)
    }

    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Cli::ClaudeCode => "Claude Code",
            Cli::Codex => "Codex",
        }
    }

    /// The binary's name on the PATH.
    pub fn bin(self) -> &'static str {
        match self {
            Cli::ClaudeCode => "claude",
            Cli::Codex => "codex",
        }
    }

    /// The npm package it comes in.
    pub fn package(self) -> &'static str {
        match self {
            Cli::ClaudeCode => "@anthropic-ai/claude-code",
            Cli::Codex => "@openai/codex",
        }
    }

    /// The env variable naming its binary, instead of the PATH.
    pub fn env_var(self) -> &'static str {
        match self {
            Cli::ClaudeCode => CLI_ENV,
            Cli::Codex => "COWORK_CODEX",
        }
    }
}

/// How the daemon starts agent CLIs: where it looks, what it adds to their environment. Tests
/// point it at the stand-in's `bin/` and give the stand-in's URL; the daemon uses its own PATH.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// The PATH to look on and to give the CLI (else the daemon's).
    pub path: Option<OsString>,
    /// Extra environment for the CLI.
    pub env: Vec<(OsString, OsString)>,
}

/// No agent CLI to run.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    /// Nothing of that name on the PATH, nor installed by the Chat.
    #[error("failed to start the chat: {} (`{}`) is not on the PATH", .0.name(), .0.bin())]
    NotOnPath(Cli),
    /// `$COWORK_CLAUDE` / `$COWORK_CODEX` names no file.
    #[error("failed to start the chat: the configured {} {} does not exist", .0.name(), .1.display())]
    Configured(Cli, PathBuf),
}

impl FindError {
    /// What to do about it.
    pub fn hint(&self) -> String {
        let cli = match self {
            FindError::NotOnPath(cli) | FindError::Configured(cli, _) => *cli,
        };
        format!(
            "press Install {} in the Chat, or install {} with `npm install -g {}` (then sign in \
             with `{}`), or set {} to its binary and restart the daemon",
            cli.name(),
            cli.name(),
            cli.package(),
            cli.bin(),
            cli.env_var()
        )
    }
}

impl Launch {
    /// `cli`'s binary: `$COWORK_CLAUDE` / `$COWORK_CODEX`, else on the PATH, else the one the
    /// Chat installed in `agents` (`<root>/agents/<cli>/node_modules/.bin/`).
    pub fn find(&self, cli: Cli, agents: &Path) -> Result<PathBuf, FindError> {
        if let Some(program) = std::env::var_os(cli.env_var()).map(PathBuf::from) {
            return match program.is_file() {
                true => Ok(program),
                false => Err(FindError::Configured(cli, program)),
            };
        }
        let path = self.path.clone().or_else(|| std::env::var_os("PATH")).unwrap_or_default();
        let installed = agents.join(cli.id()).join("node_modules/.bin");
        std::env::split_paths(&path)
            .chain(std::iter::once(installed))
            .map(|dir| dir.join(cli.bin()))
            .find(|candidate| is_executable(candidate))
            .ok_or(FindError::NotOnPath(cli))
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
    /// The door's URL for this workspace.
    pub door: &'a str,
    /// Claude Code: the 0600 file with the door's MCP server and its bearer.
    pub mcp_config: &'a Path,
    pub model: Option<&'a str>,
    pub effort: Option<&'a str>,
    /// Claude Code: the CLI session to go on with (`--resume`). Codex resumes its thread over
    /// the protocol (`thread/resume`), not on the command line.
    pub resume: Option<&'a str>,
}

/// The door's tools that only read or list: pre-approved, as their grants still decide. `run`
/// (anything else granted) asks the person first, as do the CLI's own tools that change things.
const PRE_APPROVED: &str =
    "mcp__cowork__list_capabilities,mcp__cowork__read,mcp__cowork__start_task";

/// A TOML string for Codex's `-c key=value` (JSON's escapes are TOML's for a basic string).
fn toml(value: &str) -> String {
    serde_json::Value::from(value).to_string()
}

impl Cli {
    /// The CLI's arguments.
    pub fn args(self, settings: &Settings) -> Vec<OsString> {
        match self {
            Cli::ClaudeCode => claude_args(settings),
            Cli::Codex => {
                let mut config = vec![
                    // Commands and edits outside the workspace's sandbox ask first: each such
                    // request becomes a prompt in the Chat.
                    "approval_policy=\"on-request\"".to_string(),
                    "sandbox_mode=\"workspace-write\"".to_string(),
                    // Questions (`request_user_input`) outside Plan mode too.
                    "features.default_mode_request_user_input=true".to_string(),
                    format!("mcp_servers.cowork.url={}", toml(settings.door)),
                    format!("mcp_servers.cowork.bearer_token_env_var={}", toml(CODEX_TOKEN_ENV)),
                ];
                if let Some(model) = settings.model {
                    config.push(format!("model={}", toml(model)));
                }
                if let Some(effort) = settings.effort {
                    config.push(format!("model_reasoning_effort={}", toml(effort)));
                }
                let mut args: Vec<OsString> = vec!["app-server".into()];
                for c in config {
                    args.extend(["-c".into(), c.into()]);
                }
                args
            }
        }
    }

    /// The environment the CLI gets on top of the daemon's. `COWORK_AGENT` makes a `cowork
    /// routine run` from inside the session audited `source: cli` with its `agent` (page 02).
    pub fn env(self) -> Vec<(&'static str, &'static str)> {
        match self {
            // The contract's "Spawn env object", the keys that are not about the vendor's cloud.
            Cli::ClaudeCode => vec![
                ("COWORK_AGENT", "claude-code"),
                ("CLAUDE_CODE_ENABLE_ASK_USER_QUESTION_TOOL", "true"),
                ("CLAUDE_CODE_DISABLE_TERMINAL_TITLE", "1"),
                ("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS", "1"),
                ("CLAUDE_CODE_DISABLE_CRON", "1"),
                // The door's tools offered to the model directly, not behind ToolSearch.
                ("ENABLE_TOOL_SEARCH", "false"),
            ],
            Cli::Codex => vec![("COWORK_AGENT", "codex")],
        }
    }
}

/// The person's answer to a prompt or a question.
pub enum Reply<'a> {
    /// Run it (`always`: and that tool for the rest of the session).
    Allow { always: bool },
    /// Do not.
    Deny,
    /// A question's answers: question text → the chosen label(s) or free text.
    Answers(&'a BTreeMap<String, String>),
}

/// What the Chat writes to a CLI and reads from it: Claude Code's stream-json and control
/// protocol (`protocol.rs`) or Codex's app-server JSON-RPC (`codex.rs`).
impl Cli {
    /// One line it printed.
    pub fn read(self, line: &str) -> Output {
        match self {
            Cli::ClaudeCode => protocol::read(line),
            Cli::Codex => codex::read(line),
        }
    }

    /// A question's questions, as the Chat shows them.
    pub fn questions(self, input: &Value) -> Vec<Question> {
        match self {
            Cli::ClaudeCode => protocol::questions(input),
            Cli::Codex => codex::questions(input),
        }
    }

    /// The host's first request (`id` is what its answer names).
    pub fn initialize(self, id: &str) -> Value {
        match self {
            Cli::ClaudeCode => protocol::control_request(id, "initialize"),
            Cli::Codex => codex::initialize(id),
        }
    }

    /// What to write once it answered `initialize` (Codex: open the conversation's thread as
    /// request `id`, new in `cwd` or the one `resume` names); none: it is ready now.
    pub fn after_initialize(self, id: &str, cwd: &Path, resume: Option<&str>) -> Vec<Value> {
        match self {
            Cli::ClaudeCode => Vec::new(),
            Cli::Codex => vec![codex::initialized(), codex::thread(id, cwd, resume)],
        }
    }

    /// The person's message (`session`: the session or thread it goes to).
    pub fn message(self, id: &str, session: Option<&str>, text: &str) -> Value {
        match self {
            Cli::ClaudeCode => protocol::user_message(text),
            Cli::Codex => codex::turn(id, session.unwrap_or_default(), text),
        }
    }

    /// Stops the running turn (`turn`: its id, when the CLI needs it).
    pub fn interrupt(self, id: &str, session: Option<&str>, turn: Option<&str>) -> Value {
        match self {
            Cli::ClaudeCode => protocol::control_request(id, "interrupt"),
            Cli::Codex => {
                codex::interrupt(id, session.unwrap_or_default(), turn.unwrap_or_default())
            }
        }
    }

    /// Answers its request `request_id` for `tool` (with the tool's `input`).
    pub fn reply(self, request_id: &str, tool: &str, input: &Value, reply: Reply) -> Value {
        match self {
            Cli::ClaudeCode => {
                let response = match reply {
                    Reply::Allow { .. } => protocol::allow(input.clone()),
                    Reply::Deny => protocol::deny(),
                    Reply::Answers(answers) => {
                        let mut input = input.clone();
                        input["answers"] = serde_json::to_value(answers).expect("strings");
                        protocol::allow(input)
                    }
                };
                protocol::control_response(request_id, response)
            }
            Cli::Codex => {
                let result = match reply {
                    Reply::Allow { always } => codex::decision(tool, true, always),
                    Reply::Deny => codex::decision(tool, false, false),
                    Reply::Answers(answers) => codex::answers(input, answers),
                };
                codex::reply(request_id, result)
            }
        }
    }

    /// Refuses a request the Chat does not take.
    pub fn refuse(self, request_id: &str) -> Option<Value> {
        match self {
            Cli::ClaudeCode => None,
            Cli::Codex => Some(codex::refuse(request_id)),
        }
    }
}

fn claude_args(settings: &Settings) -> Vec<OsString> {
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
        let error = launch.find(Cli::ClaudeCode, empty.path()).unwrap_err();
        assert!(matches!(error, FindError::NotOnPath(Cli::ClaudeCode)));
        assert!(error.hint().contains("npm install -g @anthropic-ai/claude-code"));
        let error = launch.find(Cli::Codex, empty.path()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "failed to start the chat: Codex (`codex`) is not on the PATH"
        );
        assert!(error.hint().contains("npm install -g @openai/codex"));
        // What the person can do (the Chat's button), not the route behind it.
        assert!(
            error.hint().starts_with("press Install Codex in the Chat, or"),
            "{}",
            error.hint()
        );
        assert!(!error.hint().contains("/api/"), "{}", error.hint());
    }

    #[test]
    fn the_bearer_is_never_in_argv() {
        let file = Path::new("/tmp/x.mcp.json");
        let settings = Settings {
            door: "http://127.0.0.1:1/api/mcp?ws=/w",
            mcp_config: file,
            model: Some("opus"),
            effort: Some("high"),
            resume: Some("s1"),
        };
        let line = |cli: Cli| {
            cli.args(&settings).iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" ")
        };
        let claude = line(Cli::ClaudeCode);
        assert!(!claude.contains("Bearer"));
        assert!(claude.contains("--mcp-config /tmp/x.mcp.json"));
        assert!(claude.contains("--model opus --effort high --resume s1"));
        let codex = line(Cli::Codex);
        assert!(!codex.contains("Bearer") && !codex.contains("cwa_"), "{codex}");
        assert!(codex.contains(r#"mcp_servers.cowork.url="http://127.0.0.1:1/api/mcp?ws=/w""#));
        assert!(codex.contains(r#"mcp_servers.cowork.bearer_token_env_var="COWORK_DOOR_TOKEN""#));
        assert!(codex.contains(r#"-c model="opus" -c model_reasoning_effort="high""#), "{codex}");
    }
}
