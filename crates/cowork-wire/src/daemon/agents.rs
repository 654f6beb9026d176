//! Manage Workspace › Permissions › Agent access, for the owner: the agent logins with each
//! capability routine's answers (`GET /api/agents`), a new login (`POST /api/agents`), letting a
//! login into a workspace or out of it (`POST /api/agents/workspaces`), a grant
//! (`POST /api/agents/grant`); and the agents' door on a listener of its own
//! (`GET|POST /api/agents/door`, `POST /api/agents/door/off`, `cowork agent door`).

use cowork_core::agents::RoutineGrants;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::PathBuf;

/// What the Agent access page shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AgentsInfo {
    /// The live logins (revoked ones have nothing left to grant).
    pub agents: Vec<AgentSummary>,
    /// Every capability routine: the workspace default and each agent's answer.
    #[cfg_attr(feature = "typescript", ts(type = "RoutineGrants[]"))]
    pub routines: Vec<RoutineGrants>,
}

/// One agent login, without its token hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AgentSummary {
    /// The login's name, as the owner gave it (`cowork agent new <name>`).
    pub name: String,
    /// The login's id: what grants and the audit name it by.
    pub id: String,
    /// When the login's token last opened the door ; none if it never did.
    pub last_seen: Option<String>,
    /// Its token opens this workspace (it was made here, or the workspace was added to it).
    pub here: bool,
    /// Every workspace its token opens.
    #[cfg_attr(feature = "typescript", ts(type = "string[]"))]
    pub workspaces: Vec<PathBuf>,
}

/// A new login: its token (shown once) and the lines that connect a client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct NewAgent {
    /// The name the owner gave the login.
    pub name: String,
    /// The login's id.
    pub id: String,
    /// The bearer token the agent sends; shown this once, only its hash is kept.
    pub token: String,
    /// The door's address the agent connects to.
    pub url: String,
    /// Claude Code's command that connects it (local scope: private to the folder it runs in).
    pub claude: String,
    /// Codex's `[mcp_servers.cowork]` block for `~/.codex/config.toml`.
    pub codex: String,
}

/// `POST /api/agents`: a new login named `name`, serving this workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateAgent {
    /// The workspace the login serves first.
    pub workspace: PathBuf,
    /// The login's name.
    pub name: String,
}

/// `POST /api/agents/workspaces`: let the login `name` into the workspace (`add`) or out of it
/// (`remove`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentWorkspaces {
    /// The workspace to let the login into or out of.
    pub workspace: PathBuf,
    /// The login's name.
    pub name: String,
    /// In or out.
    pub action: WorkspaceAction,
}

/// Into the workspace, or out of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WorkspaceAction {
    /// Let the login into the workspace.
    Add,
    /// Take the workspace from the login.
    Remove,
}

/// `POST /api/agents/grant`: allow or deny a routine (or a capability's every routine) for one
/// agent, or as the workspace default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantChange {
    /// The workspace whose setting changes.
    pub workspace: PathBuf,
    /// `<capability>/<routine>` or `<capability>/*`.
    pub target: String,
    /// Allow, deny, or drop the setting.
    pub answer: GrantAnswer,
    /// The agent's name; none = the workspace default.
    #[serde(default)]
    pub agent: Option<String>,
}

/// `allow`, `deny`, or `default` (drop the setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GrantAnswer {
    /// The routine runs when the agent calls it.
    Allow,
    /// The routine is refused.
    Deny,
    /// No setting of its own: the workspace default (or, for the default, the ask) applies.
    Default,
}

/// Where the door's own listener listens and the address agents use (`GET /api/agents/door`
/// answers it or null; `<root>/door.json` keeps it for the next start).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoorInfo {
    /// The address the door's listener is bound to.
    pub listen: SocketAddr,
    /// The door's address as agents reach it, e.g. `https://cowork.example.com/api/mcp`.
    pub url: String,
}

/// `POST /api/agents/door`: open the door on `listen` (`host:port`), agents told to use `url`
/// (default `http://<listen>/api/mcp`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenDoor {
    /// The `host:port` to listen on.
    pub listen: String,
    /// The address agents are told to use; none = `http://<listen>/api/mcp`.
    #[serde(default)]
    pub url: Option<String>,
}
