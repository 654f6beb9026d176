//! Manage Workspace › Permissions › Agent access, for the owner: the agent logins with each
//! capability routine's answers (`GET /api/agents`), a new login with its token shown once and its
//! connect lines (`POST /api/agents`, serving this workspace), letting a login into this workspace
//! or out of it (`POST /api/agents/workspaces`), and a grant (`POST /api/agents/grant`) — the same
//! store and rule as `cowork agent …` (`cowork_core::agents`).

use crate::error::{ApiError, Body};
use crate::state::AppState;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::Json;
use cowork_core::agents::{self, AgentError, Grants, Logins, Setting, Target};
use cowork_engine::credentials;
use cowork_wire::daemon::agents::{
    AgentSummary, AgentWorkspaces, AgentsInfo, CreateAgent, GrantAnswer, GrantChange, NewAgent,
    WorkspaceAction,
};
use cowork_wire::daemon::Changed;
use serde::Deserialize;
use std::path::PathBuf;

/// `?workspace=` (required here).
#[derive(Deserialize)]
pub struct WorkspaceQuery {
    workspace: PathBuf,
}

/// A login or grant the owner asked for wrongly: 404 for a name that is not there, 400 otherwise.
impl From<AgentError> for ApiError {
    fn from(error: AgentError) -> Self {
        let status = match error {
            AgentError::Unknown(_) | AgentError::NoCapability(_) | AgentError::NoRoutine { .. } => {
                StatusCode::NOT_FOUND
            }
            AgentError::Write { .. } | AgentError::Corrupt { .. } | AgentError::Lock { .. } => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, error.to_string())
    }
}

pub async fn list(
    State(state): State<AppState>,
    Query(query): Query<WorkspaceQuery>,
) -> Result<Json<AgentsInfo>, ApiError> {
    let ws = state.engine.workspace(&query.workspace)?;
    let root = state.engine.root();
    let logins: Vec<_> = Logins::new(root).list()?.into_iter().filter(|l| !l.revoked).collect();
    let grants = Grants::new(root, ws.root()).read()?;
    let registry = ws.registry();
    let connected = credentials::connected(state.engine.secrets().ok().as_deref(), &registry);
    let routines = agents::table(&registry, &grants, &logins, &connected);
    let agents = logins
        .into_iter()
        .map(|l| AgentSummary {
            here: l.serves(ws.root()),
            name: l.name,
            id: l.id,
            last_seen: l.last_seen,
            workspaces: l.workspaces,
        })
        .collect();
    Ok(Json(AgentsInfo { agents, routines }))
}

pub async fn create(
    State(state): State<AppState>,
    Body(body): Body<CreateAgent>,
) -> Result<Json<NewAgent>, ApiError> {
    let ws = state.engine.workspace(&body.workspace)?;
    agents::check_workspace(ws.root())?;
    let (login, token) = Logins::new(state.engine.root()).create(&body.name, ws.root())?;
    let connect = agents::connect(&format!("http://127.0.0.1:{}", state.port), ws.root(), &token);
    Ok(Json(NewAgent {
        name: login.name,
        id: login.id,
        token,
        url: connect.url,
        claude: connect.claude,
        codex: connect.codex,
    }))
}

pub async fn workspaces(
    State(state): State<AppState>,
    Body(body): Body<AgentWorkspaces>,
) -> Result<Json<Changed>, ApiError> {
    let ws = state.engine.workspace(&body.workspace)?;
    let logins = Logins::new(state.engine.root());
    let (_, changed) = match body.action {
        WorkspaceAction::Add => {
            agents::check_workspace(ws.root())?;
            logins.add_workspace(&body.name, ws.root())?
        }
        WorkspaceAction::Remove => logins.remove_workspace(&body.name, ws.root())?,
    };
    Ok(Json(Changed { changed }))
}

pub async fn grant(
    State(state): State<AppState>,
    Body(body): Body<GrantChange>,
) -> Result<Json<Changed>, ApiError> {
    let ws = state.engine.workspace(&body.workspace)?;
    let target = Target::parse(&body.target)?;
    agents::check_target(&ws.registry(), &target)?;
    let root = state.engine.root();
    let agent = match &body.agent {
        Some(name) => Some(Logins::new(root).live(name)?.id),
        None => None,
    };
    let setting = match body.answer {
        GrantAnswer::Allow => Some(Setting::Allow),
        GrantAnswer::Deny => Some(Setting::Deny),
        GrantAnswer::Default => None,
    };
    Grants::new(root, ws.root()).set(&target, setting, agent.as_deref())?;
    Ok(Json(Changed { changed: true }))
}
