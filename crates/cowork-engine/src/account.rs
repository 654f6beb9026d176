//! Who is signed in to Cowork, as a run sees it: `ctx.identity`, `ctx.auth.getState()`,
//! `ctx.auth.getIdToken()`, a widget's `cowork.identity.currentUser()` and the audit line's
//! `userId` / `organizationId`.
//!
//! The engine holds no HTTP client and knows no hub: its host (the daemon, or the CLI running a
//! routine without one) hands it an [`Account`] ([`crate::Engine::set_account`]), which answers
//! from what it keeps on this machine and reaches the hub itself when asked for an ID token. A
//! run reads the identity once, as it starts, and keeps it to the end ("frozen at the start of
//! the run"), so a sign-out mid-run changes nothing the routine already saw.

use cowork_core::audit::Record;
use cowork_core::error_name::CtxError;
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::path::Path;
use std::pin::Pin;

/// The signed-in person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct User {
    /// The account's id on its hub.
    pub uid: String,
    /// The account's email address.
    pub email: String,
    /// The name the person gave, when they gave one (`ctx.auth.getState().user.displayName`).
    #[serde(default)]
    pub display_name: Option<String>,
}

/// The organization the signed-in account belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Organization {
    /// The organization's id on its hub.
    pub id: String,
    /// Its short name in addresses.
    pub slug: String,
    /// Its name as people read it.
    pub name: String,
}

/// Who a run is for: `{ user: {uid, email} | null, organization: {id, slug, name} | null }`
/// (page 01); both null when nobody is signed in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// The signed-in person; `None` when this machine is signed out.
    pub user: Option<User>,
    /// Their organization; `None` when signed out or in none.
    pub organization: Option<Organization>,
}

/// What an ID token request can end in besides a token or nothing.
pub type IdTokenFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Option<String>, CtxError>> + Send + 'a>>;

/// A run that finished (or was refused and recorded), for the host to report where it must: a
/// run of an app installed from a team server goes to that team server (page 03).
#[derive(Debug, Clone, Copy)]
pub struct FinishedRun<'a> {
    /// The workspace folder (canonical).
    pub workspace: &'a Path,
    /// The app's folder, workspace-relative (`.cowork/apps/gmail`): its install receipt is found
    /// by it.
    pub app_dir: &'a str,
    /// The run's audit line, as written (redacted, masked).
    pub record: &'a Record,
}

/// The host's side of the signed-in account.
pub trait Account: Send + Sync {
    /// Who is signed in now, from what this machine keeps (no network): called once per run.
    fn identity(&self) -> Identity;

    /// A short-lived ID token signed by the hub (`ctx.auth.getIdToken()`), `None` when nobody is
    /// signed in. May reach the hub (and renew the session).
    fn id_token(&self) -> IdTokenFuture<'_>;

    /// Called once per audited run, after its line was written. Must not block: a host that
    /// sends it somewhere queues it.
    fn finished(&self, run: FinishedRun<'_>) {
        let _ = run;
    }
}

/// The account of a host that has none: nobody is signed in.
#[derive(Debug, Default)]
pub struct SignedOut;

impl Account for SignedOut {
    fn identity(&self) -> Identity {
        Identity::default()
    }

    fn id_token(&self) -> IdTokenFuture<'_> {
        Box::pin(async { Ok(None) })
    }
}

/// `ctx.auth.getState()`'s answer, frozen with the identity at the start of the run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AuthState {
    pub authenticated: bool,
    pub user: Option<AuthUser>,
}

/// The user of [`AuthState`]: `displayName` is the email when the person gave no name.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AuthUser {
    pub uid: String,
    pub email: String,
    pub display_name: String,
}

/// `ctx.identity`'s user and `cowork.identity.currentUser()`: `{uid, email}` only.
#[derive(Debug, Clone, Serialize)]
pub struct IdentityUser {
    /// The account's id on its hub.
    pub uid: String,
    /// The account's email address.
    pub email: String,
}

/// `ctx.identity` as the runner receives it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct RunIdentity {
    pub user: Option<IdentityUser>,
    pub organization: Option<Organization>,
}

impl Identity {
    /// `ctx.identity`.
    pub(crate) fn for_run(&self) -> RunIdentity {
        RunIdentity { user: self.current_user(), organization: self.organization.clone() }
    }

    /// A widget's `cowork.identity.currentUser()`: `{uid, email}`, or `None` when signed out.
    pub fn current_user(&self) -> Option<IdentityUser> {
        self.user.as_ref().map(|u| IdentityUser { uid: u.uid.clone(), email: u.email.clone() })
    }

    /// `ctx.auth.getState()`.
    pub(crate) fn auth_state(&self) -> AuthState {
        AuthState {
            authenticated: self.user.is_some(),
            user: self.user.as_ref().map(|u| AuthUser {
                uid: u.uid.clone(),
                email: u.email.clone(),
                display_name: u.display_name.clone().unwrap_or_else(|| u.email.clone()),
            }),
        }
    }

    /// The audit line's `userId`.
    pub fn user_id(&self) -> Option<String> {
        self.user.as_ref().map(|u| u.uid.clone())
    }

    /// The audit line's `organizationId`.
    pub fn organization_id(&self) -> Option<String> {
        self.organization.as_ref().map(|o| o.id.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ana() -> Identity {
        Identity {
            user: Some(User {
                uid: "u1".into(),
                email: "ana@example.com".into(),
                display_name: None,
            }),
            organization: Some(Organization {
                id: "o1".into(),
                slug: "acme".into(),
                name: "Acme".into(),
            }),
        }
    }

    #[test]
    fn ctx_identity_carries_uid_and_email_only() {
        let run = serde_json::to_value(ana().for_run()).unwrap();
        assert_eq!(
            run,
            json!({"user": {"uid": "u1", "email": "ana@example.com"}, "organization": {"id": "o1", "slug": "acme", "name": "Acme"}})
        );
        let nobody = serde_json::to_value(Identity::default().for_run()).unwrap();
        assert_eq!(nobody, json!({"user": null, "organization": null}));
    }

    #[test]
    fn auth_state_names_the_email_when_no_name_was_given() {
        let state = serde_json::to_value(ana().auth_state()).unwrap();
        assert_eq!(
            state,
            json!({"authenticated": true, "user": {"uid": "u1", "email": "ana@example.com", "displayName": "ana@example.com"}})
        );
        let out = serde_json::to_value(Identity::default().auth_state()).unwrap();
        assert_eq!(out, json!({"authenticated": false, "user": null}));
    }
}
