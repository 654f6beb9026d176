//! The router, and only it: which route goes to which handler, behind which gate.

use crate::state::AppState;
use crate::workbench;
use crate::{
    agents, capture_routes, consent, credentials, desktop, door, events, guard, mcp, panes, queues,
    routines, runs, status,
};
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};
use axum::Router;

/// The owner's API behind the owner gate, the panes' SDK calls behind the pane gate, the agents'
/// MCP door behind the agent gate, app icons
/// behind the same-site check (an `<img>` carries no token), and the static workbench and frame
/// pages (host-checked, nothing secret) for everything else.
pub fn app(state: AppState) -> Router {
    let sdk = Router::new()
        .route("/api/sdk/{method}", post(panes::sdk))
        .layer(from_fn_with_state(state.clone(), guard::pane_only));
    let icons = Router::new()
        .route("/api/icon", get(workbench::icon::icon))
        .route("/api/session", post(crate::session::exchange))
        .layer(from_fn_with_state(state.clone(), guard::loopback_only));
    // Webhooks: called by other programs, guarded by arming, their hook token and corsOrigin.
    let hooks = Router::new().route(
        "/hooks/{key}/{id}",
        post(crate::triggers::webhook::call).options(crate::triggers::webhook::preflight),
    );
    let door = Router::new()
        .route("/api/mcp", post(mcp::post).get(mcp::get).delete(mcp::delete))
        .layer(from_fn_with_state(state.clone(), guard::agent_only));
    let public = Router::new().fallback(crate::web_apps::serve_or_assets);
    let owner = Router::new()
        .route("/api/health", get(status::health))
        .route("/api/workbench", get(workbench::summary::summary))
        .route("/api/files", get(workbench::files::files))
        .route("/api/file", get(workbench::files::file))
        .route("/api/route", get(workbench::files::route))
        .route("/api/apps/enable", post(workbench::switches::switch))
        .route("/api/apps/mute", post(workbench::switches::switch))
        .route("/api/rail", post(workbench::switches::rail))
        .route("/api/open-with", post(workbench::switches::open_with))
        .route("/api/statusbar", get(workbench::status_bar::refresh))
        .route("/api/statusbar/click", post(workbench::status_bar::click))
        .route("/api/panes", post(panes::open))
        .route("/api/open", post(workbench::open::open))
        .route("/api/web-apps/file", post(crate::web_files::open))
        .route("/api/web-apps/file/end", post(crate::web_files::end))
        .route("/api/web-apps/build", post(crate::web_download::build))
        .route("/api/status", get(status::status))
        .route("/api/runtime", get(crate::runtime_install::show))
        .route("/api/runtime/install", post(crate::runtime_install::install))
        .route("/api/stop", post(status::stop))
        .route("/api/session/code", post(crate::session::issue))
        .route("/api/session/end", post(crate::session::end))
        .route("/api/routines/run", post(routines::run))
        .route("/api/runs", get(runs::list))
        .route("/api/deploy/workflows", get(crate::triggers::workflows::list))
        .route("/api/deploy/active", post(crate::triggers::workflows::active))
        .route("/api/queues", post(queues::owner))
        .route("/api/tables", get(queues::owner_tables))
        .route("/api/events", get(events::events))
        .merge(crate::chat_routes::router())
        .route("/api/agents", get(agents::list).post(agents::create))
        .route("/api/agents/grant", post(agents::grant))
        .route("/api/agents/workspaces", post(agents::workspaces))
        .route("/api/agents/door", get(door::show).post(door::open))
        .route("/api/agents/door/off", post(door::close))
        .route("/api/credentials", get(credentials::status))
        .route("/api/credentials/connect", post(credentials::connect))
        .route("/api/consent/requests", get(consent::requests))
        .route("/api/consent/answer", post(consent::answer))
        .route("/api/desktop/requests", get(desktop::requests))
        .route("/api/desktop/show", post(desktop::show))
        .route("/api/desktop/active", post(desktop::active))
        .route("/api/desktop/notify", post(desktop::site_notify))
        .route("/api/desktop/badge", post(desktop::site_badge))
        .route("/api/desktop/capture/answer", post(capture_routes::answer))
        .route("/api/desktop/capture/event", post(capture_routes::event))
        .route("/api/notifications/shown", post(desktop::shown))
        .route("/api/account", get(crate::account_routes::show))
        .route("/api/account/sign-in", post(crate::account_routes::sign_in))
        .route("/api/account/sign-out", post(crate::account_routes::sign_out))
        .route("/api/account/changed", post(crate::account_routes::changed))
        .merge(crate::store_routes::router())
        .merge(crate::browser_routes::router())
        .layer(from_fn_with_state(state.clone(), guard::owner_only));
    let owner = owner.merge(crate::streams::router(&state));
    owner.merge(sdk).merge(icons).merge(hooks).merge(door).merge(public).with_state(state)
}
