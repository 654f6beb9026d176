//! What the workbench page asks the daemon (owner token), one route family a module: the
//! workspace's apps for the rail (`summary`), the explorer's folders and files and file routes
//! (`files`), switches that write `workspace.json` (`switches`), footer items (`status_bar`), app
//! icons (`icon`) and `cowork app open` (`open`).

pub mod files;
pub mod icon;
pub mod open;
pub mod status_bar;
pub mod summary;
pub mod switches;

use crate::error::ApiError;
use crate::state::AppState;
use axum::http::StatusCode;
use std::path::Path;

/// The open workspace at `path`, else the daemon's default one (`cowork app serve <folder>`).
pub(crate) fn workspace(
    state: &AppState,
    path: Option<&Path>,
) -> Result<std::sync::Arc<cowork_engine::Workspace>, ApiError> {
    let path = path.map(Path::to_path_buf).or_else(|| state.default_workspace.clone()).ok_or_else(
        || ApiError::new(StatusCode::BAD_REQUEST, "name the workspace: ?workspace=<folder>"),
    )?;
    Ok(state.engine.workspace(&path)?)
}
