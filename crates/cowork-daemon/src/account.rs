//! The signed-in Cowork account in a process that runs routines (the daemon, or the CLI running
//! one itself), and the daemon's account routes.
//!
//! [`AccountHost`] is what the engine is handed ([`cowork_engine::Engine::set_account`]): it
//! answers `ctx.identity` from `account.json` (a `stat` per run), fetches ID tokens from the hub,
//! and queues a report of each audited run of an app installed from a team server. In the daemon,
//! [`spawn`] starts the two background tasks: the updates poll (at start, after every sign-in or
//! account change, and every [`POLL_EVERY`]; a team server the hub no longer lists is dropped
//! here) and the reports' sender. The owner's routes (`/api/account…`) are what the workbench's
//! title bar and Manage Workspace show and do; `cowork login|logout|team-server …` tell a running
//! daemon with `POST /api/account/changed`, so every open window follows.

use crate::error::{ApiError, Body};
use crate::guard;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use cowork_account::login::{BrowserSignIn, BROWSER_TIMEOUT};
use cowork_account::{reports, updates, AccountError, Session};
use cowork_core::paths::Root;
use cowork_engine::account::{FinishedRun, IdTokenFuture, Identity, Organization, User};
use cowork_engine::{CtxError, ErrorName};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// How often the daemon polls the hub for updates when nothing else asks it to.
pub const POLL_EVERY: Duration = Duration::from_secs(5 * 60);

/// The signed-in account, as the engine and the daemon's routes see it.
pub struct AccountHost {
    session: Arc<Session>,
    /// A report was queued: the sender wakes.
    queued: Notify,
    /// Poll now (a sign-in, an account change).
    poll_now: Notify,
    /// The sign-in the workbench started, while the browser has not come back.
    pending: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl AccountHost {
    pub fn new(root: &Root) -> Arc<AccountHost> {
        Arc::new(AccountHost {
            session: Arc::new(Session::new(root)),
            queued: Notify::new(),
            poll_now: Notify::new(),
            pending: Mutex::new(None),
        })
    }

    /// The session (who is signed in, hub calls).
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// Sends the queued run reports (the CLI after a run it made itself), giving up after
    /// `limit`: what is not sent waits for the next flush (the daemon's, or the next CLI run's).
    pub async fn flush(&self, limit: Duration) {
        match tokio::time::timeout(limit, reports::flush(&self.session)).await {
            Ok(Ok(flushed)) => tracing::debug!(?flushed, "run reports flushed"),
            Ok(Err(error)) => tracing::debug!(%error, "run reports wait"),
            Err(_) => tracing::debug!("run reports wait: the hub is slow"),
        }
    }
}

/// The engine's identity of a signed-in account.
fn identity(signed_in: &cowork_account::SignedIn) -> Identity {
    Identity {
        user: Some(User {
            uid: signed_in.user.uid.clone(),
            email: signed_in.user.email.clone(),
            display_name: Some(signed_in.user.display_name.clone()).filter(|n| !n.is_empty()),
        }),
        organization: signed_in.organization.as_ref().map(|o| Organization {
            id: o.id.clone(),
            slug: o.slug.clone(),
            name: o.name.clone(),
        }),
    }
}

impl cowork_engine::Account for AccountHost {
    fn identity(&self) -> Identity {
        match self.session.signed_in() {
            Ok(Some(signed_in)) => identity(&signed_in),
            Ok(None) => Identity::default(),
            Err(error) => {
                tracing::warn!(%error, "the signed-in account could not be read: runs are signed out");
                Identity::default()
            }
        }
    }

    fn id_token(&self) -> IdTokenFuture<'_> {
        Box::pin(async move {
            self.session.id_token().await.map_err(|error| {
                let name = match &error {
                    AccountError::Hub(cowork_wire::hub::client::ClientError::Transport {
                        ..
                    }) => ErrorName::Unreachable,
                    _ => ErrorName::Unavailable,
                };
                let mut failure =
                    CtxError::new(name, format!("failed to get an ID token from the hub: {error}"));
                if let Some(hint) = error.hint() {
                    failure = failure.with_hint(hint);
                }
                failure
            })
        })
    }

    fn finished(&self, run: FinishedRun<'_>) {
        match reports::queue(&self.session, run.workspace, run.app_dir, run.record) {
            Ok(true) => self.queued.notify_one(),
            Ok(false) => {}
            Err(error) => tracing::warn!(%error, "a run report could not be queued"),
        }
    }
}

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

/// One poll; the workbench hears when the account's team servers (or its session) changed.
async fn poll_once(host: &AccountHost, engine: &cowork_engine::Engine) -> Option<updates::Polled> {
    match updates::poll(&host.session).await {
        Ok(Some(polled)) => {
            for dropped in &polled.dropped {
                tracing::info!(team_server = %dropped.slug, "no longer a member: the team server is dropped here");
            }
            if polled.changed {
                engine.announce_account(true);
            }
            // Reports that waited for the hub may go now.
            host.queued.notify_one();
            Some(polled)
        }
        Ok(None) => None,
        Err(error @ AccountError::SessionEnded { .. }) => {
            tracing::warn!(%error, "signed out");
            engine.announce_account(false);
            None
        }
        Err(error) => {
            tracing::debug!(%error, "the updates poll failed; it is tried again later");
            None
        }
    }
}

/// A signed-in account, as the workbench shows it.
#[derive(Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AccountUser {
    pub uid: String,
    pub email: String,
    pub display_name: String,
    #[ts(type = "{ id: string; slug: string; name: string } | null")]
    pub organization: Option<cowork_wire::hub::OrgRef>,
    /// `browser`, `device`, `paste` or `password`.
    pub method: String,
}

/// One of the account's team servers, as the last poll listed it.
#[derive(Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AccountTeamServer {
    pub slug: String,
    pub name: String,
    /// `owner`, `admin` or `member`.
    pub role: String,
}

/// `GET /api/account`: who is signed in on this machine, on which hub, their team servers.
#[derive(Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AccountInfo {
    /// The hub this machine remembers (none before the first `cowork login --hub`).
    pub hub: Option<String>,
    pub user: Option<AccountUser>,
    pub team_servers: Vec<AccountTeamServer>,
    /// When the hub last answered the updates poll (ms since the epoch).
    #[ts(type = "number | null")]
    pub polled_at: Option<i64>,
    /// A sign-in started from a window waits for the browser.
    pub signing_in: bool,
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
    let api = ApiError::named(
        status,
        ErrorName::parse(error.name()),
        format!("failed to {doing}: {error}"),
    );
    match error.hint() {
        Some(hint) => api.hint(hint),
        None => api,
    }
}

#[derive(Deserialize, Default)]
pub(crate) struct SignInBody {
    /// The hub to sign in to (remembered); default: the one this machine remembers.
    #[serde(default)]
    hub: Option<String>,
}

/// What a sign-in started from a window answers: the address to open in the browser.
#[derive(Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SignInStarted {
    pub url: String,
}

/// `POST /api/account/sign-in`: starts a browser sign-in whose browser comes back to this
/// daemon's loopback listener (only from a window on this computer, else `NotHere`); the window
/// opens the address. When the browser comes back, the account event follows.
pub(crate) async fn sign_in(
    State(state): State<AppState>,
    window: guard::Window,
    Body(body): Body<SignInBody>,
) -> Result<Json<SignInStarted>, ApiError> {
    window.may_sign_in().map_err(|(name, message)| {
        ApiError::named(StatusCode::FORBIDDEN, ErrorName::parse(name), message)
    })?;
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
