//! Signing this machine out (`cowork logout [--forget]`).
//!
//! The session is forgotten here first (so a hub that cannot be reached never keeps this machine
//! signed in), then revoked on the hub (RFC 7009: the refresh token ends the whole session).
//! `--forget` also removes that account's local data, exactly page 05's list as far as this
//! build has it — and never a workspace file:
//!
//! | page 05 | here |
//! | --- | --- |
//! | its workspaces list | `desktop.json`'s last and recent workspaces |
//! | onboarding progress | `onboarding.json` |
//! | team-server state | `team-servers.json`, the run reports not yet sent (`reports/`) |
//! | organization access | kept in `account.json` with the session: gone with it |
//! | secrets | every secret-store record of the account (`cowork-account:<uid>`) |
//! | the personal server's target here | none in this build |
//! | the desktop app's browser data | `browser/` (the browser window's storage) |
//!
//! The routines' secrets (`cowork secrets`, the `local` records) belong to the machine, not to
//! the account, and stay.

use crate::error::AccountError;
use crate::files::{remove, SignedIn};
use crate::session::{delete_account_secrets, Session};
use std::path::PathBuf;

/// What a sign-out did.
#[derive(Debug)]
pub struct SignedOutReport {
    /// The session that was signed out, if one was signed in.
    pub signed_out: Option<SignedIn>,
    /// Why the hub could not be told (the session then ends there when it expires).
    pub not_revoked: Option<AccountError>,
    /// With `--forget`: what was removed.
    pub forgotten: Vec<Forgotten>,
}

/// One thing `--forget` removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Forgotten {
    /// A file or folder under the Cowork root.
    Path(PathBuf),
    /// The workspaces list of `desktop.json`.
    WorkspacesList(PathBuf),
    /// The account's records in the secret store.
    Secrets { count: usize },
}

impl std::fmt::Display for Forgotten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Forgotten::Path(path) => write!(f, "{}", path.display()),
            Forgotten::WorkspacesList(path) => {
                write!(f, "the workspaces list in {}", path.display())
            }
            Forgotten::Secrets { count: 1 } => write!(f, "1 record in the secret store"),
            Forgotten::Secrets { count } => write!(f, "{count} records in the secret store"),
        }
    }
}

/// Signs this machine out; with `forget`, also removes the account's local data (see the module).
pub async fn logout(session: &Session, forget: bool) -> Result<SignedOutReport, AccountError> {
    let taken = session.take_session().await?;
    let mut not_revoked = None;
    let signed_out = match taken {
        Some((signed_in, refresh_token)) => {
            if let Some(token) = refresh_token {
                let revoked = async {
                    session
                        .anonymous(&signed_in.hub)?
                        .revoke(&token)
                        .await
                        .map_err(AccountError::from)
                };
                not_revoked = revoked.await.err();
            }
            Some(signed_in)
        }
        None => None,
    };
    let mut forgotten = Vec::new();
    if forget {
        // The account to forget: the one just signed out, else the one the team-server state is of.
        let state = crate::files::read::<crate::files::TeamServersFile>(
            &session.files().team_servers_path(),
        )?;
        let uid = signed_out.as_ref().map(|s| s.user.uid.clone()).or(state.map(|s| s.uid));
        forgotten = forget_local(session, uid.as_deref()).await?;
    }
    Ok(SignedOutReport { signed_out, not_revoked, forgotten })
}

async fn forget_local(
    session: &Session,
    uid: Option<&str>,
) -> Result<Vec<Forgotten>, AccountError> {
    let root = session.root().dir().to_path_buf();
    let mut forgotten = Vec::new();
    if let Some(uid) = uid {
        let count = delete_account_secrets(session.root(), uid).await?;
        if count > 0 {
            forgotten.push(Forgotten::Secrets { count });
        }
    }
    for name in [crate::files::TEAM_SERVERS_FILE, "onboarding.json"] {
        let path = root.join(name);
        if remove(&path)? {
            forgotten.push(Forgotten::Path(path));
        }
    }
    for name in [crate::reports::REPORTS_DIR, "browser"] {
        let path = root.join(name);
        match std::fs::remove_dir_all(&path) {
            Ok(()) => forgotten.push(Forgotten::Path(path)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(AccountError::File { action: "remove", path, source }),
        }
    }
    let desktop = root.join("desktop.json");
    if forget_workspaces_list(&desktop)? {
        forgotten.push(Forgotten::WorkspacesList(desktop));
    }
    Ok(forgotten)
}

/// Drops `last` and `recent` from the desktop app's `desktop.json`, keeping its other settings.
fn forget_workspaces_list(path: &std::path::Path) -> Result<bool, AccountError> {
    let Some(mut value) = crate::files::read::<serde_json::Value>(path)? else { return Ok(false) };
    let Some(object) = value.as_object_mut() else { return Ok(false) };
    let had = object.remove("last").is_some_and(|v| !v.is_null())
        | object.remove("recent").is_some_and(|v| v.as_array().is_some_and(|a| !a.is_empty()));
    if had {
        let text = format!("{}\n", serde_json::to_string_pretty(&value).expect("JSON serializes"));
        cowork_core::fs_atomic::write(path, text.as_bytes(), false).map_err(|source| {
            AccountError::File { action: "write", path: path.to_path_buf(), source }
        })?;
    }
    Ok(had)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgetting_the_workspaces_list_keeps_do_not_disturb() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("desktop.json");
        std::fs::write(&path, r#"{"last": "/w", "recent": ["/w", "/v"], "doNotDisturb": true}"#)
            .unwrap();
        assert!(forget_workspaces_list(&path).unwrap());
        let kept: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(kept, serde_json::json!({"doNotDisturb": true}));
        assert!(!forget_workspaces_list(&path).unwrap(), "nothing left to forget");
    }
}
