//! `GET /api/workbench`: everything the rail, the footer, the bell and Manage Workspace draw.

use super::workspace;
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{Query, State};
use axum::Json;
use cowork_core::registry::{Problem, Registry};
use cowork_wire::daemon::workbench::{App, Routine, WorkbenchInfo, WorkspaceName};
use cowork_wire::daemon::WorkspaceQuery;

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
                .map(|r| Routine {
                    id: r.id.clone(),
                    risk: r.risk,
                    read_only: r.read_only,
                    destructive: r.destructive,
                    reaches_others: r.reaches_others,
                    description: r.description.clone(),
                    disabled: r.disabled,
                })
                .collect();
            App {
                dir: a.dir.clone(),
                name: m.name.clone(),
                title: m.title.clone(),
                icon: m.icon.clone(),
                icon_url: icon_url(&state.token, &registry, a),
                color: m.color.clone(),
                display: m.display,
                entry: m.entry.clone(),
                open: m.open.clone(),
                kind: m.kind,
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
                web_url: m
                    .is_web_app()
                    .then(|| crate::assets::origin_url(ws.root(), &m.name, state.port)),
            }
        })
        .collect();
    Ok(Json(WorkbenchInfo {
        workspace: WorkspaceName { path: ws.root().to_path_buf(), name: config.name.clone() },
        apps,
        broken: registry.broken.clone(),
        // Courses are files of the workspace too: their rules are the store's (page 11).
        problems: registry
            .problems
            .iter()
            .cloned()
            .chain(cowork_store::course::problems(ws.root()))
            .collect(),
        rail: config.rail.clone(),
        startup: config.startup.clone(),
        home: registry.home().map(|a| a.manifest.name.clone()),
        muted: config.notifications.muted.clone(),
        badges: ws.notifications().badges(|app| ws.is_muted(app)),
        notifications: ws.notifications().bell(),
        route_conflicts: registry.route_conflicts.clone(),
    }))
}
