//! What the workbench page asks the daemon (owner token): the workspace's apps for the rail, the
//! explorer's folders and files, file routes, switches that write `workspace.json`, and footer
//! items.

use crate::error::{ApiError, Body};
use crate::state::AppState;
use crate::wire::{Changed, Flag};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::Json;
use cowork_core::manifest::{Display, Open, StatusBar};
use cowork_core::registry::{BrokenApp, Kind, Problem, Registry, Risk, RouteConflict};
use cowork_core::workspace_json::{self, Rail, Startup};
use cowork_engine::notifications::{Badges, Notification};
use cowork_engine::{CallerSource, ErrorName, RunFailure, RunRequest, Source};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use ts_rs::TS;

#[derive(Deserialize)]
pub struct WorkspaceQuery {
    workspace: Option<PathBuf>,
}

pub(crate) fn workspace(
    state: &AppState,
    path: Option<&Path>,
) -> Result<std::sync::Arc<cowork_engine::Workspace>, ApiError> {
    let path = path.map(Path::to_path_buf).or_else(|| state.default_workspace.clone()).ok_or_else(
        || ApiError::new(StatusCode::BAD_REQUEST, "name the workspace: ?workspace=<folder>"),
    )?;
    Ok(state.engine.workspace(&path)?)
}

/// The address of an app's image icon, with the key `/api/icon` asks for (an `<img>` carries no
/// token).
fn icon_url(token: &str, registry: &Registry, app: &cowork_core::registry::App) -> Option<String> {
    let icon = app.manifest.icon_file()?;
    let workspace = registry.root.display().to_string();
    let key = crate::session::address_key(token, &[&workspace, &app.manifest.name]);
    Some(format!(
        "/api/icon?workspace={}&app={}&file={icon}&key={key}",
        percent(&workspace),
        app.manifest.name
    ))
}

fn percent(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_./".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The switched-on app's widgets that would not run (a syntax error, an import outside the
/// allowlist), as `cowork app list` reports them: Manage Workspace shows them before anyone opens
/// the pane. Transpiles go through the content-hash cache, so an unchanged widget costs a read.
fn widget_problems(
    engine: &cowork_engine::Engine,
    app: &cowork_core::registry::App,
) -> Vec<Problem> {
    cowork_engine::widgets::problems(engine.transpiler(), app)
        .into_iter()
        .map(|error| {
            let line = error.line.map(|l| format!(":{l}")).unwrap_or_default();
            Problem::new(format!("{}/{}{line}", app.dir, error.file), None, error.message)
        })
        .collect()
}

/// `GET /api/workbench`: everything the rail, the footer, the bell and Manage Workspace draw.
/// Problems are `{file, key, message}` everywhere (an app's, a folder's that is not an app, the
/// workspace's own).
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorkbenchInfo {
    pub workspace: WorkspaceName,
    pub apps: Vec<WorkbenchApp>,
    #[ts(type = "{ dir: string; problems: Problem[] }[]")]
    pub broken: Vec<BrokenApp>,
    #[ts(type = "Problem[]")]
    pub problems: Vec<Problem>,
    #[ts(type = "{ folders: RailFolder[] }")]
    pub rail: Rail,
    #[ts(type = "{ home?: string; left?: boolean; right?: boolean }")]
    pub startup: Startup,
    /// The home app's name.
    #[ts(optional = nullable)]
    pub home: Option<String>,
    pub muted: Vec<String>,
    #[ts(type = "Badges")]
    pub badges: Badges,
    #[ts(type = "DaemonNotification[]")]
    pub notifications: Vec<Notification>,
    #[ts(type = "RouteConflict[]")]
    pub route_conflicts: Vec<RouteConflict>,
}

/// The workspace the workbench shows.
#[derive(Serialize, TS)]
pub struct WorkspaceName {
    pub path: PathBuf,
    pub name: String,
}

/// An app as the rail and Manage Workspace draw it.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "App")]
pub struct WorkbenchApp {
    /// The folder under `.cowork/apps/`; what the on/off and mute switches name.
    pub dir: String,
    pub name: String,
    pub title: String,
    pub icon: Option<String>,
    #[ts(optional = nullable)]
    pub icon_url: Option<String>,
    #[ts(optional = nullable)]
    pub color: Option<String>,
    #[ts(type = "Display")]
    pub display: Display,
    #[ts(optional = nullable)]
    pub entry: Option<String>,
    /// `sidebar` only: an app file, or a routine returning `{path}`, opened once per session.
    #[ts(optional, type = "string | { routine: string; args?: unknown }")]
    pub open: Option<Open>,
    #[ts(type = "\"app\" | \"capability\"")]
    pub kind: &'static str,
    pub enabled: bool,
    /// False when an earlier folder claimed the same name.
    pub owns_name: bool,
    /// Declares neither `kind` nor `uses`: keeps its old access to every secret.
    pub unrestricted: bool,
    /// The manifest's problems, then its widgets' that would not run.
    #[ts(type = "Problem[]")]
    pub problems: Vec<Problem>,
    #[ts(optional, type = "{ routine: string; args?: unknown; interval?: number }")]
    pub status_bar: Option<StatusBar>,
    pub routines: Vec<RoutineSummary>,
    /// A web site installed as an app: it draws only in the desktop app.
    pub site: bool,
    /// A site app's count source, once the desktop app reported one.
    #[ts(optional, type = "\"badge\" | \"title\" | \"notifications\" | null")]
    pub unread_source: Option<String>,
    /// What its panes may capture (`capture`), each still asked for in Cowork's dialog; left out
    /// when nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, type = "(\"screen\" | \"system-audio\" | \"mic\" | \"screenshot\")[]")]
    pub capture: Vec<cowork_core::manifest::Capture>,
    /// The frame page of its panes, on the app's own origin: the workbench starts loading it while
    /// the daemon opens a pane (`POST /api/panes` answers the same address).
    pub frame_url: String,
}

/// A routine as Manage Workspace lists it.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "Routine")]
pub struct RoutineSummary {
    pub id: String,
    #[ts(type = "Risk")]
    pub risk: Risk,
    pub read_only: bool,
    pub destructive: bool,
    pub reaches_others: bool,
    #[ts(optional = nullable)]
    pub description: Option<String>,
    pub disabled: bool,
}

pub async fn summary(
    State(state): State<AppState>,
    Query(query): Query<WorkspaceQuery>,
) -> Result<Json<WorkbenchInfo>, ApiError> {
    let ws = workspace(&state, query.workspace.as_deref())?;
    let registry = ws.registry();
    let config = &registry.config;
    let apps = registry
        .apps
        .iter()
        .map(|a| {
            let m = &a.manifest;
            let routines = registry
                .routines
                .values()
                .filter(|r| r.app_dir == a.dir)
                .map(|r| RoutineSummary {
                    id: r.id.clone(),
                    risk: r.risk,
                    read_only: r.read_only,
                    destructive: r.destructive,
                    reaches_others: r.reaches_others,
                    description: r.description.clone(),
                    disabled: r.disabled,
                })
                .collect();
            WorkbenchApp {
                dir: a.dir.clone(),
                name: m.name.clone(),
                title: m.title.clone(),
                icon: m.icon.clone(),
                icon_url: icon_url(&state.token, &registry, a),
                color: m.color.clone(),
                display: m.display,
                entry: m.entry.clone(),
                open: m.open.clone(),
                kind: if m.kind == Kind::Capability { "capability" } else { "app" },
                enabled: a.enabled,
                owns_name: a.owns_name,
                unrestricted: cowork_engine::secret_access::is_unrestricted(m),
                problems: a
                    .problems
                    .iter()
                    .cloned()
                    .chain(widget_problems(&state.engine, a))
                    .collect(),
                status_bar: m.status_bar.clone(),
                routines,
                site: m.is_site_app(),
                unread_source: ws.notifications().unread_source(&m.name),
                capture: m.capture.clone(),
                frame_url: crate::assets::frame_url(ws.root(), &m.name, state.port),
            }
        })
        .collect();
    Ok(Json(WorkbenchInfo {
        workspace: WorkspaceName { path: ws.root().to_path_buf(), name: config.name.clone() },
        apps,
        broken: registry.broken.clone(),
        problems: registry.problems.clone(),
        rail: config.rail.clone(),
        startup: config.startup.clone(),
        home: registry.home().map(|a| a.manifest.name.clone()),
        muted: config.notifications.muted.clone(),
        badges: ws.notifications().badges(|app| ws.is_muted(app)),
        notifications: ws.notifications().bell(),
        route_conflicts: registry.route_conflicts.clone(),
    }))
}

#[derive(Deserialize)]
pub struct PathQuery {
    workspace: Option<PathBuf>,
    #[serde(default)]
    path: String,
}

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

/// One entry of an explorer folder.
#[derive(Serialize, TS)]
pub struct FileEntry {
    pub name: String,
    /// Workspace-relative.
    pub path: PathBuf,
    pub dir: bool,
}

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

/// A workspace file's text.
#[derive(Serialize, TS)]
pub struct FileText {
    /// Workspace-relative.
    pub path: PathBuf,
    pub text: String,
    pub size: u64,
}

/// `GET /api/file`: a workspace file's text, for the workbench's read-only viewer (a file no app
/// opens, an app's source). The path must resolve inside the workspace (a symlink leading out is
/// refused) and outside `.cowork/local`; a file over 1 MiB or not UTF-8 text is refused by name
/// (`TooLarge`, `Binary`) with a message the viewer shows.
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
    if size > MAX_TEXT_BYTES {
        return Err(ApiError::named(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorName::TooLarge,
            format!(
                "{shown} is {} KiB; the viewer shows files up to {} KiB",
                size / 1024,
                MAX_TEXT_BYTES / 1024
            ),
        ));
    }
    let bytes = std::fs::read(&path).map_err(|e| {
        ApiError::new(StatusCode::NOT_FOUND, format!("failed to read {shown}: {e}"))
    })?;
    // A NUL byte is how editors tell binary from text; UTF-8 alone passes some binaries.
    match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => Ok(Json(FileText { path: rel, text, size })),
        _ => Err(ApiError::own(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Binary",
            format!("{shown} is not a text file"),
        )),
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

/// The app that opens a path, and with which of its files.
#[derive(Serialize, TS)]
#[ts(rename = "Route")]
pub struct FileRoute {
    pub app: String,
    pub file: String,
    pub glob: String,
    pub folder: bool,
}

#[derive(Deserialize)]
pub struct Switch {
    workspace: Option<PathBuf>,
    app: String,
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    muted: Option<bool>,
}

fn written(
    result: Result<bool, workspace_json::WorkspaceJsonError>,
) -> Result<Json<Changed>, ApiError> {
    Ok(Json(Changed { changed: result? }))
}

/// `POST /api/apps/enable` and `POST /api/apps/mute`: switches in `workspace.json`.
pub async fn switch(
    State(state): State<AppState>,
    Body(body): Body<Switch>,
) -> Result<Json<Changed>, ApiError> {
    let ws = workspace(&state, body.workspace.as_deref())?;
    let app =
        ws.registry().resolve_app(&body.app).map(|a| a.dir.clone()).ok_or_else(|| {
            ApiError::new(StatusCode::NOT_FOUND, format!("no app \"{}\"", body.app))
        })?;
    let result = match (body.enabled, body.muted) {
        (Some(enabled), None) => workspace_json::set_app_disabled(ws.root(), &app, !enabled),
        (None, Some(muted)) => workspace_json::set_app_muted(ws.root(), &app, muted),
        _ => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "send either \"enabled\" or \"muted\"",
            ))
        }
    };
    let answer = written(result);
    ws.reload();
    answer
}

#[derive(Deserialize)]
pub struct RailBody {
    workspace: Option<PathBuf>,
    folders: Value,
}

/// `POST /api/rail`: the rail's folders, written to `workspace.json#rail.folders` when they fit the
/// schema (else refused, `InvalidWorkspaceJson`, and nothing is written).
pub async fn rail(
    State(state): State<AppState>,
    Body(body): Body<RailBody>,
) -> Result<Json<Changed>, ApiError> {
    let ws = workspace(&state, body.workspace.as_deref())?;
    let answer = written(workspace_json::set_rail_folders(ws.root(), body.folders));
    ws.reload();
    answer
}

#[derive(Deserialize)]
pub struct OpenWith {
    workspace: Option<PathBuf>,
    glob: String,
    app: String,
}

/// `POST /api/open-with`: the person's answer to "which app opens this file type".
pub async fn open_with(
    State(state): State<AppState>,
    Body(body): Body<OpenWith>,
) -> Result<Json<Changed>, ApiError> {
    let ws = workspace(&state, body.workspace.as_deref())?;
    let (glob, app) = (body.glob, body.app);
    let result = workspace_json::update(ws.root(), move |map, _| {
        let open_with = map.entry("openWith").or_insert_with(|| json!({}));
        if let Some(open_with) = open_with.as_object_mut() {
            open_with.insert(glob, Value::String(app));
        }
        Ok(())
    });
    let answer = written(result);
    ws.reload();
    answer
}

#[derive(Deserialize)]
pub struct StatusBarBody {
    workspace: Option<PathBuf>,
    app: String,
    #[serde(default)]
    args: Option<Value>,
}

/// `GET /api/statusbar?workspace=&app=`: a refresh of the app's footer item, tagged `status-bar`
/// in the audit log.
pub async fn status_bar_refresh(
    State(state): State<AppState>,
    Query(query): Query<IconQuery>,
) -> Result<Json<StatusBarAnswer>, ApiError> {
    run_status_bar(
        &state,
        StatusBarBody { workspace: query.workspace, app: query.app, args: None },
        Some(CallerSource::StatusBar),
    )
    .await
}

/// `POST /api/statusbar/click`: the app's footer routine with the click's `args` (or its
/// manifest `args`) — the click's work, not a refresh, so untagged.
pub async fn status_bar_click(
    State(state): State<AppState>,
    Body(body): Body<StatusBarBody>,
) -> Result<Json<StatusBarAnswer>, ApiError> {
    run_status_bar(&state, body, None).await
}

/// A footer item as its routine returned it (null hides it), or why the routine failed.
#[derive(Serialize, TS)]
#[serde(untagged)]
pub enum StatusBarAnswer {
    Drawn {
        #[ts(type = "true")]
        ok: Flag<true>,
        #[ts(type = "StatusBarItem | null")]
        item: Value,
    },
    Failed {
        #[ts(type = "false")]
        ok: Flag<false>,
        #[ts(type = "WireError")]
        error: RunFailure,
    },
}

/// The app's footer routine, run as the app (audited, like every run). A routine that failed is
/// an answer (`{ok: false, error}`, HTTP 200), which the footer shows as a warning.
async fn run_status_bar(
    state: &AppState,
    body: StatusBarBody,
    tag: Option<CallerSource>,
) -> Result<Json<StatusBarAnswer>, ApiError> {
    let ws = workspace(state, body.workspace.as_deref())?;
    let registry = ws.registry();
    let app = registry
        .app_by_name(&body.app)
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no app \"{}\"", body.app)))?;
    let item = app.manifest.status_bar.as_ref().ok_or_else(|| {
        ApiError::new(StatusCode::NOT_FOUND, format!("{} has no statusBar", body.app))
    })?;
    let args = body.args.unwrap_or_else(|| Value::Object(item.args.clone()));
    let mut request = RunRequest::new(item.routine.clone(), args, Source::App);
    request.caller_app = Some(app.manifest.name.clone());
    request.caller_source = tag;
    Ok(Json(match ws.run(request).await {
        Ok(success) => StatusBarAnswer::Drawn { ok: Flag, item: success.result },
        Err(error) => StatusBarAnswer::Failed { ok: Flag, error },
    }))
}

#[derive(Deserialize)]
pub struct IconQuery {
    workspace: Option<PathBuf>,
    app: String,
    #[serde(default)]
    key: String,
}

/// `GET /api/icon`: an app's image icon (≤ 256 KB, checked by the manifest validation), of a
/// workspace the workbench opened already: this route carries no token, so it never opens one.
pub async fn icon(
    State(state): State<AppState>,
    Query(query): Query<IconQuery>,
) -> Result<axum::response::Response, ApiError> {
    use axum::response::IntoResponse;
    let path = query.workspace.or_else(|| state.default_workspace.clone()).ok_or_else(|| {
        ApiError::new(StatusCode::BAD_REQUEST, "name the workspace: ?workspace=<folder>")
    })?;
    // Before anything that would tell which workspaces are open or which apps they have.
    let key = crate::session::address_key(&state.token, &[&path.display().to_string(), &query.app]);
    if !crate::guard::same_token(&query.key, &key) {
        return Err(ApiError::named(
            StatusCode::UNAUTHORIZED,
            ErrorName::Forbidden,
            "an icon's address comes from /api/workbench (its key is missing or wrong)",
        ));
    }
    let ws = state.engine.opened(&path).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("{} is not an open workspace: open it in the workbench first", path.display()),
        )
    })?;
    let registry = ws.registry();
    let app = registry
        .app_by_name(&query.app)
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "no such app"))?;
    let file = app
        .manifest
        .icon_file()
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "the app's icon is not an image"))?;
    let bytes = std::fs::read(app.path.join(file))
        .map_err(|e| ApiError::new(StatusCode::NOT_FOUND, e.to_string()))?;
    let kind = match Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("svg") => "image/svg+xml",
        Some("webp") => "image/webp",
        Some("jpg" | "jpeg") => "image/jpeg",
        _ => "image/png",
    };
    Ok((
        [
            (axum::http::header::CONTENT_TYPE, kind),
            (
                axum::http::header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'",
            ),
        ],
        bytes,
    )
        .into_response())
}

#[derive(Deserialize)]
pub struct OpenBody {
    workspace: PathBuf,
    app: String,
    file: Option<String>,
    r#as: Option<String>,
}

/// `POST /api/open`'s answer.
#[derive(Serialize)]
pub struct Opened {
    pub opened: bool,
}

/// `POST /api/open` (`cowork app open`): asks the open workbench to show an app or a widget file.
pub async fn open(
    State(state): State<AppState>,
    Body(body): Body<OpenBody>,
) -> Result<Json<Opened>, ApiError> {
    let ws = workspace(&state, Some(&body.workspace))?;
    if ws.registry().app_by_name(&body.app).is_none() {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no app \"{}\" in {}", body.app, ws.display()),
        ));
    }
    if state.engine.listeners() == 0 {
        return Err(ApiError::named(
            StatusCode::CONFLICT,
            ErrorName::Unavailable,
            "no workbench is open: `cowork app serve` opens one",
        ));
    }
    ws.emit(cowork_engine::Event::Open {
        workspace: ws.display(),
        app: body.app,
        file: body.file,
        r#as: body.r#as,
    });
    Ok(Json(Opened { opened: true }))
}
