//! The owner's credential routes (`cowork credential`, the workbench): a connection's state, and
//! connecting it — a key saved, or a sign-in started.

use crate::error::{ApiError, Body};
use crate::guard;
use crate::state::AppState;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::Json;
use cowork_engine::credentials::{Connection, CredentialError, Status};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
pub struct CredentialQuery {
    workspace: PathBuf,
    name: String,
}

fn connection(state: &AppState, workspace: &Path, name: &str) -> Result<Connection, ApiError> {
    let ws = state.engine.workspace(workspace)?;
    cowork_engine::credentials::declared(&ws.registry())
        .remove(name)
        .ok_or_else(|| CredentialError::Unknown(name.to_string()).into())
}

/// `GET /api/credentials` (`cowork.credentials.get(name)`): the state of a connection — never
/// its key or token.
pub async fn status(
    State(state): State<AppState>,
    Query(query): Query<CredentialQuery>,
) -> Result<Json<Status>, ApiError> {
    let connection = connection(&state, &query.workspace, &query.name)?;
    Ok(Json(cowork_engine::credentials::status(&*state.engine.secrets()?, &connection)))
}

#[derive(Deserialize)]
pub struct ConnectBody {
    workspace: PathBuf,
    name: String,
    fields: Option<std::collections::BTreeMap<String, String>>,
}

/// A connection after `connect`: its state, and the address the browser opens for a sign-in.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Connected {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth_url: Option<String>,
    #[serde(flatten)]
    pub status: Status,
}

/// `POST /api/credentials/connect` (`cowork.credentials.connect(name, fields?)`): saves a key, or
/// starts a sign-in and answers with the address the browser opens (the sign-in then finishes on
/// its own; only from a window on this computer, else `NotHere`).
pub async fn connect(
    State(state): State<AppState>,
    window: guard::Window,
    Body(body): Body<ConnectBody>,
) -> Result<Json<Connected>, ApiError> {
    use cowork_engine::credentials::ConnectError;
    let connection = connection(&state, &body.workspace, &body.name)?;
    let store = state.engine.secrets()?;
    let oauth = state.engine.oauth();
    let connected =
        cowork_engine::credentials::connect(oauth, store, &connection, body.fields, || {
            window.may_sign_in()
        })
        .await
        .map_err(|error| match error {
            ConnectError::Fields(e) => ApiError::new(StatusCode::BAD_REQUEST, e.to_string()),
            ConnectError::NotHere(e) => ApiError::named(StatusCode::FORBIDDEN, e.name, e.message),
            ConnectError::SignIn(e) => ApiError::new(StatusCode::BAD_REQUEST, e.message),
        })?;
    Ok(Json(Connected { auth_url: connected.auth_url, status: connected.status }))
}
