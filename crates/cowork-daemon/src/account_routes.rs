//! The daemon's account routes (`/api/account…`: what the workbench's title bar and Manage
//! Workspace show and do; `cowork login|logout|team-server …` tell a running daemon with
//! `POST /api/account/changed`, so every open window follows), and [`spawn`], the daemon's two
//! background tasks of the account: the updates poll and the reports' sender.

use crate::account::{poll_once, AccountHost, POLL_EVERY};
use crate::error::{ApiError, Body};
use crate::guard;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use cowork_account::login::{BrowserSignIn, BROWSER_TIMEOUT};
use cowork_account::AccountError;
use cowork_wire::daemon::account::{
    AccountInfo, AccountTeamServer, AccountUser, SignIn, SignInStarted,
};
use std::time::Duration;

/// Starts the daemon's updates poll and the reports' sender.
pub fn spawn(state: AppState) {
    let host = state.account.clone();
    let engine = state.engine.clone();
    let mut stopping = state.stopping.clone();
    tokio::spawn(async move {
        loop {
            poll_once(&host, &engine).await;
            tokio::select! {
                () = tokio::time::sleep(POLL_EVERY) => {}
                () = host.poll_now.notified() => {}
                _ = stopping.wait_for(|s| *s) => break,
            }
        }
    });
    let host = state.account.clone();
    let mut stopping = state.stopping.clone();
    tokio::spawn(async move {
        loop {
            host.flush(Duration::from_secs(60)).await;
            tokio::select! {
                () = host.queued.notified() => {}
                // Reports that waited for an unreachable hub are tried again with the poll's rhythm.
                () = tokio::time::sleep(POLL_EVERY) => {}
                _ = stopping.wait_for(|s| *s) => break,
            }
        }
    });
}

fn info(host: &AccountHost) -> Result<AccountInfo, ApiError> {
    let session = &host.session;
    let failed = |error: AccountError| ApiError::internal("failed to read the account", &error);
    let file = session.files().account().map_err(failed)?;
    let signed_in = file.signed_in;
    let (team_servers, polled_at) = match &signed_in {
        Some(s) => session
            .files()
            .team_servers(&s.user.uid)
            .map_err(failed)?
            .filter(|f| f.hub == s.hub)
            .map(|f| (f.team_servers, f.polled_at))
            .unwrap_or_default(),
        None => (Vec::new(), None),
    };
    Ok(AccountInfo {
        hub: file.hub,
        user: signed_in.map(|s| AccountUser {
            uid: s.user.uid,
            email: s.user.email,
            display_name: s.user.display_name,
            organization: s.organization,
            method: serde_json::to_value(s.method)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
        }),
        team_servers: team_servers
            .into_iter()
            .map(|t| AccountTeamServer {
                slug: t.slug,
                name: t.name,
                role: t.role.as_str().to_string(),
            })
            .collect(),
        polled_at,
        signing_in: host.pending.lock().as_ref().is_some_and(|task| !task.is_finished()),
    })
}

pub(crate) async fn show(State(state): State<AppState>) -> Result<Json<AccountInfo>, ApiError> {
    Ok(Json(info(&state.account)?))
}

/// A failure of the account as the daemon answers it: the hub's name, the message, the hint.
fn refused(doing: &str, error: AccountError) -> ApiError {
    let status = match &error {
        AccountError::NoHub | AccountError::BadHubAddress { .. } => StatusCode::BAD_REQUEST,
        AccountError::NotSignedIn | AccountError::SessionEnded { .. } => StatusCode::UNAUTHORIZED,
        AccountError::Hub(cowork_wire::hub::client::ClientError::Transport { .. }) => {
            StatusCode::BAD_GATEWAY
        }
        _ => StatusCode::BAD_REQUEST,
    };
    let api = ApiError::named(status, error.name(), format!("failed to {doing}: {error}"));
    match error.hint() {
        Some(hint) => api.hint(hint),
        None => api,
    }
}

/// `POST /api/account/sign-in`: starts a browser sign-in whose browser comes back to this
/// daemon's loopback listener (only from a window on this computer, else `NotHere`); the window
/// opens the address. When the browser comes back, the account event follows.
pub(crate) async fn sign_in(
    State(state): State<AppState>,
    window: guard::Window,
    Body(body): Body<SignIn>,
) -> Result<Json<SignInStarted>, ApiError> {
    window
        .may_sign_in()
        .map_err(|refusal| ApiError::named(StatusCode::FORBIDDEN, refusal.name, refusal.message))?;
    let host = state.account.clone();
    let hub = host.session.hub(body.hub.as_deref()).map_err(|e| refused("sign in", e))?;
    let sign_in = BrowserSignIn::start(&hub).await.map_err(|e| refused("sign in", e))?;
    let url = sign_in.url.clone();
    let engine = state.engine.clone();
    let task_host = host.clone();
    let task = tokio::spawn(async move {
        match sign_in.finish(&task_host.session, BROWSER_TIMEOUT).await {
            Ok(signed_in) => {
                tracing::info!(email = %signed_in.user.email, "signed in from a window");
                task_host.poll_now.notify_one();
                engine.announce_account(true);
            }
            Err(error) => {
                tracing::info!(%error, "a sign-in from a window did not finish");
                engine.announce_account(false);
            }
        }
    });
    // One sign-in at a time: a newer one replaces the one waiting.
    if let Some(before) = host.pending.lock().replace(task) {
        before.abort();
    }
    Ok(Json(SignInStarted { url }))
}

/// `POST /api/account/sign-out`: signs this machine out (the session revoked on the hub).
pub(crate) async fn sign_out(State(state): State<AppState>) -> Result<Json<AccountInfo>, ApiError> {
    let report = cowork_account::logout(&state.account.session, false)
        .await
        .map_err(|e| refused("sign out", e))?;
    if let Some(error) = &report.not_revoked {
        tracing::warn!(%error, "signed out here; the hub could not be told");
    }
    state.engine.announce_account(false);
    Ok(Json(info(&state.account)?))
}

/// `POST /api/account/changed`: the CLI signed in or out, or changed a team server: poll now
/// (answering once the poll is done, so the CLI and tests can rely on it) and tell every window.
pub(crate) async fn changed(State(state): State<AppState>) -> Result<Json<AccountInfo>, ApiError> {
    let signed_in = state.account.session.signed_in().ok().flatten().is_some();
    if signed_in {
        poll_once(&state.account, &state.engine).await;
    }
    state.engine.announce_account(signed_in);
    Ok(Json(info(&state.account)?))
}
