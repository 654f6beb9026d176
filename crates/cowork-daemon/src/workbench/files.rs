//! The explorer and the text viewer: `GET /api/files` (one folder), `GET /api/file` (a file's
//! text) and `GET /api/route` (which app opens a path). Every path stays inside the workspace and
//! outside its machine-local `.cowork/local`.

use super::workspace;
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::Json;
use cowork_engine::ErrorName;
use cowork_wire::daemon::workbench::{FileEntry, FileRoute, FileText, NotText, PathQuery};
use std::path::{Path, PathBuf};

/// A workspace-relative path that stays inside it.
fn relative(path: &str) -> Result<PathBuf, ApiError> {
    let rel = Path::new(path.trim_start_matches("./").trim_end_matches('/'));
    if rel.components().all(|c| matches!(c, std::path::Component::Normal(_)))
        || path.is_empty()
        || path == "."
    {
        Ok(rel.to_path_buf())
    } else {
        Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("\"{path}\" is not a path inside the workspace"),
        ))
    }
}

/// What the explorer leaves out: VS Code's default `files.exclude` (every other dotfile shows, as
/// there), and the machine's own `.cowork/local` (caches and staged code, which `/api/file`
/// refuses to read).
fn excluded(rel: &Path) -> bool {
    const FILES_EXCLUDE: &[&str] = &[".git", ".svn", ".hg", "CVS", ".DS_Store", "Thumbs.db"];
    rel.file_name().is_some_and(|name| FILES_EXCLUDE.iter().any(|hidden| name == *hidden))
        || rel == Path::new(LOCAL)
}

/// Cowork's machine-local state inside a workspace.
const LOCAL: &str = ".cowork/local";

/// `GET /api/files`: one folder of the explorer, folders first.
pub async fn files(
    State(state): State<AppState>,
    Query(query): Query<PathQuery>,
) -> Result<Json<Vec<FileEntry>>, ApiError> {
    let ws = workspace(&state, query.workspace.as_deref())?;
    let rel = relative(&query.path)?;
    let (_, dir) = resolve_inside(ws.root(), &rel)?;
    let entries = std::fs::read_dir(&dir).map_err(|e| {
        ApiError::new(StatusCode::NOT_FOUND, format!("failed to list {}: {e}", rel.display()))
    })?;
    let mut out: Vec<(bool, String)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.file_type().ok()?.is_dir();
            (!excluded(&rel.join(&name))).then_some((is_dir, name))
        })
        .collect();
    out.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.to_lowercase().cmp(&b.1.to_lowercase())));
    Ok(Json(
        out.into_iter().map(|(dir, name)| FileEntry { path: rel.join(&name), name, dir }).collect(),
    ))
}

/// The workspace's real path and `rel`'s inside it, symlinks resolved: a path that leads outside
/// (a symlink to `/etc`) is `Forbidden`, whether it is listed or read.
fn resolve_inside(workspace: &Path, rel: &Path) -> Result<(PathBuf, PathBuf), ApiError> {
    let shown = rel.display();
    let root = workspace.canonicalize().map_err(|e| {
        ApiError::new(StatusCode::NOT_FOUND, format!("failed to open the workspace: {e}"))
    })?;
    let path = root.join(rel).canonicalize().map_err(|e| {
        ApiError::new(StatusCode::NOT_FOUND, format!("failed to open {shown}: {e}"))
    })?;
    if !path.starts_with(&root) {
        return Err(ApiError::named(
            StatusCode::FORBIDDEN,
            ErrorName::Forbidden,
            format!("{shown} leads outside the workspace"),
        ));
    }
    Ok((root, path))
}

/// The most the text viewer shows: a bigger file is a data dump, not something to read there.
const MAX_TEXT_BYTES: u64 = 1024 * 1024;

/// `GET /api/file`: a workspace file's text, for the workbench's read-only viewer (a file no app
/// opens, an app's source). The path must resolve inside the workspace (a symlink leading out is
/// refused) and outside `.cowork/local`; for a file over 1 MiB or not UTF-8 text the answer says
/// why there is no text (`notText`: `TooLarge`, `Binary`) in words the viewer shows — clicking
/// one in the Explorer is ordinary, not a failed request.
pub async fn file(
    State(state): State<AppState>,
    Query(query): Query<PathQuery>,
) -> Result<Json<FileText>, ApiError> {
    let ws = workspace(&state, query.workspace.as_deref())?;
    let rel = relative(&query.path)?;
    let shown = rel.display();
    let (root, path) = resolve_inside(ws.root(), &rel)?;
    if path.starts_with(root.join(LOCAL)) {
        return Err(ApiError::named(
            StatusCode::FORBIDDEN,
            ErrorName::Forbidden,
            format!("{shown} is Cowork's own machine-local state ({LOCAL})"),
        ));
    }
    let size = std::fs::metadata(&path)
        .map_err(|e| ApiError::new(StatusCode::NOT_FOUND, format!("failed to open {shown}: {e}")))?
        .len();
    if path.is_dir() {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, format!("{shown} is a folder")));
    }
    let not_text = |name: &str, message: String| {
        let not_text = Some(NotText { name: name.to_string(), message });
        Ok(Json(FileText { path: rel.clone(), text: None, size, not_text }))
    };
    if size > MAX_TEXT_BYTES {
        let kib = (size / 1024, MAX_TEXT_BYTES / 1024);
        return not_text(
            "TooLarge",
            format!("{shown} is {} KiB; the viewer shows files up to {} KiB", kib.0, kib.1),
        );
    }
    let bytes = std::fs::read(&path).map_err(|e| {
        ApiError::new(StatusCode::NOT_FOUND, format!("failed to read {shown}: {e}"))
    })?;
    // A NUL byte is how editors tell binary from text; UTF-8 alone passes some binaries.
    match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => {
            Ok(Json(FileText { path: rel, text: Some(text), size, not_text: None }))
        }
        _ => not_text("Binary", format!("{shown} is not a text file")),
    }
}

/// `GET /api/route`: which app opens a file or folder (fileRouting), or null.
pub async fn route(
    State(state): State<AppState>,
    Query(query): Query<PathQuery>,
) -> Result<Json<Option<FileRoute>>, ApiError> {
    let ws = workspace(&state, query.workspace.as_deref())?;
    let rel = relative(&query.path)?;
    let is_dir = ws.root().join(&rel).is_dir();
    Ok(Json(ws.registry().route(&rel.to_string_lossy(), is_dir).map(|route| FileRoute {
        app: route.app_name,
        file: route.file,
        glob: route.glob,
        folder: route.folder,
    })))
}
