//! The signed-in Cowork account in a process that runs routines (the daemon, or the CLI running
//! one itself). A table `AppState` holds: it imports neither `state` nor the router (the routes
//! and the daemon's background tasks are `account_routes`).
//!
//! [`AccountHost`] is what the engine is handed ([`cowork_engine::Engine::set_account`]): it
//! answers `ctx.identity` from `account.json` (a `stat` per run), fetches ID tokens from the hub,
//! and queues a report of each audited run of an app installed from a team server. In the daemon,
//! `account_routes::spawn` starts the two background tasks: the updates poll (at start, after
//! every sign-in or account change, and every [`POLL_EVERY`]; a team server the hub no longer
//! lists is dropped here) and the reports' sender.

use cowork_account::{reports, updates, AccountError, Session};
use cowork_core::paths::Root;
use cowork_engine::account::{FinishedRun, IdTokenFuture, Identity, Organization, User};
use cowork_engine::{CtxError, ErrorName};
use parking_lot::Mutex;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// How often the daemon polls the hub for updates when nothing else asks it to.
pub const POLL_EVERY: Duration = Duration::from_secs(5 * 60);

/// The signed-in account, as the engine and the daemon's routes see it.
pub struct AccountHost {
    pub(crate) session: Arc<Session>,
    /// A report was queued: the sender wakes.
    pub(crate) queued: Notify,
    /// Poll now (a sign-in, an account change).
    pub(crate) poll_now: Notify,
    /// The sign-in the workbench started, while the browser has not come back.
    pub(crate) pending: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl AccountHost {
    /// The account host of `root`: its session, and nothing queued or pending yet.
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

/// One poll; the workbench hears when the account's team servers (or its session) changed.
pub(crate) async fn poll_once(
    host: &AccountHost,
    engine: &cowork_engine::Engine,
) -> Option<updates::Polled> {
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
