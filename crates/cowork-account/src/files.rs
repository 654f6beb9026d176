//! What this machine keeps about its Cowork account, under the Cowork root, all 0600:
//!
//! - `account.json`: the hub named once (`--hub`), and who is signed in — their user, their
//!   organization and the organizations they manage, as the hub last said (what `ctx.identity`
//!   and `cowork status` read without reaching the hub);
//! - `team-servers.json`: the team servers the last updates poll listed, and the poll's cursor;
//! - `account.json.lock`: held by whoever changes the session (a sign-in, a refresh, a sign-out),
//!   so the CLI and the daemon never both spend the same rotating refresh token.
//!
//! The session's tokens are not here: they are in the secret store ([`crate::session`]).

use crate::error::AccountError;
use cowork_core::fs_atomic;
use cowork_core::paths::Root;
use cowork_wire::hub::{Me, Millis, OrgRef, TeamServerState, User};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `<root>/account.json`.
pub const ACCOUNT_FILE: &str = "account.json";
/// `<root>/team-servers.json`.
pub const TEAM_SERVERS_FILE: &str = "team-servers.json";

/// How a session was signed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// The browser, back to a loopback port (PKCE).
    Browser,
    /// The device flow (RFC 8628): a code typed on another device.
    Device,
    /// The address the browser ended on, pasted into the terminal.
    Paste,
    /// An email and a password.
    Password,
}

/// Who is signed in on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignedIn {
    /// The hub the session is on.
    pub hub: String,
    /// The signed-in person.
    pub user: User,
    /// Their organization, when they belong to one.
    pub organization: Option<OrgRef>,
    /// The organizations this account manages (`cowork org` picks from them).
    #[serde(default)]
    pub manages: Vec<OrgRef>,
    /// Whether the account administers the hub itself.
    #[serde(default)]
    pub hub_admin: bool,
    /// The session's id on the hub (never a token).
    pub session_id: String,
    /// How it signed in.
    pub method: Method,
    /// When it signed in.
    pub signed_in_at: Millis,
}

impl SignedIn {
    /// The record of a session that just signed in (or was renewed) with `me`.
    pub fn new(hub: &str, me: Me, method: Method, signed_in_at: Millis) -> SignedIn {
        SignedIn {
            hub: hub.to_string(),
            user: me.user,
            organization: me.organization,
            manages: me.manages,
            hub_admin: me.hub_admin,
            session_id: me.session_id,
            method,
            signed_in_at,
        }
    }

    /// The same session with what the hub says now of its account (a renewal's answer).
    pub fn refreshed(&self, me: Me) -> SignedIn {
        SignedIn {
            session_id: me.session_id.clone(),
            ..SignedIn::new(&self.hub, me, self.method, self.signed_in_at)
        }
    }

    /// The secret store account this session's tokens are kept under: one per Cowork account,
    /// so `logout --forget` removes exactly its records.
    pub fn secrets_account(&self) -> String {
        secrets_account(&self.user.uid)
    }
}

/// The secret store account of the Cowork account `uid`.
pub fn secrets_account(uid: &str) -> String {
    format!("cowork-account:{uid}")
}

/// `account.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountFile {
    /// The hub named once with `--hub` (and kept after a sign-out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hub: Option<String>,
    /// Who is signed in; `None` when nobody is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed_in: Option<SignedIn>,
}

/// `team-servers.json`: the team servers of the signed-in account, as the last updates poll
/// listed them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TeamServersFile {
    /// The account they are for (a file of another account is ignored).
    pub uid: String,
    /// The hub they are on (a file of another hub is ignored).
    pub hub: String,
    /// What the next poll sends as `since`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Each team server as the hub last listed it.
    #[serde(default)]
    pub team_servers: Vec<TeamServerState>,
    /// When the hub last answered a poll (a 304 too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub polled_at: Option<Millis>,
}

/// The account's files in one Cowork root.
#[derive(Debug, Clone)]
pub struct Files {
    root: Root,
}

impl Files {
    /// The files under `root`.
    pub fn new(root: &Root) -> Files {
        Files { root: root.clone() }
    }

    /// The Cowork root.
    pub fn root(&self) -> &Root {
        &self.root
    }

    /// Where `account.json` is.
    pub fn account_path(&self) -> PathBuf {
        self.root.dir().join(ACCOUNT_FILE)
    }

    /// Where `team-servers.json` is.
    pub fn team_servers_path(&self) -> PathBuf {
        self.root.dir().join(TEAM_SERVERS_FILE)
    }

    /// `account.json`; empty when there is none.
    pub fn account(&self) -> Result<AccountFile, AccountError> {
        Ok(read(&self.account_path())?.unwrap_or_default())
    }

    /// `account.json` for a new sign-in, which rewrites it whole: a damaged one is set aside as
    /// `account.json.damaged` (kept to look at, never read again) and the sign-in starts from
    /// nothing — otherwise no command, `login` included, could get past it.
    pub fn account_for_sign_in(&self) -> Result<AccountFile, AccountError> {
        match self.account() {
            Err(AccountError::Damaged { path, .. }) => {
                let aside = path.with_extension("json.damaged");
                std::fs::rename(&path, &aside).map_err(|source| AccountError::File {
                    action: "set aside",
                    path: path.clone(),
                    source,
                })?;
                tracing::warn!(path = %path.display(), aside = %aside.display(), "set a damaged account file aside");
                Ok(AccountFile::default())
            }
            other => other,
        }
    }

    /// Who is signed in, from `account.json`.
    pub fn signed_in(&self) -> Result<Option<SignedIn>, AccountError> {
        Ok(self.account()?.signed_in)
    }

    /// Replaces `account.json` atomically.
    pub fn write_account(&self, file: &AccountFile) -> Result<(), AccountError> {
        write(&self.account_path(), file)
    }

    /// `team-servers.json` of account `uid`; `None` when there is none, or it is another's.
    pub fn team_servers(&self, uid: &str) -> Result<Option<TeamServersFile>, AccountError> {
        Ok(read::<TeamServersFile>(&self.team_servers_path())?.filter(|file| file.uid == uid))
    }

    /// Replaces `team-servers.json` atomically.
    pub fn write_team_servers(&self, file: &TeamServersFile) -> Result<(), AccountError> {
        write(&self.team_servers_path(), file)
    }

    /// Removes `team-servers.json` (a sign-out's `--forget`, another account signing in).
    pub fn remove_team_servers(&self) -> Result<bool, AccountError> {
        remove(&self.team_servers_path())
    }

    /// Takes the account lock, waiting for another process that holds it (a sign-in, a renewal);
    /// it ends when the returned file is dropped, or when the process dies.
    pub async fn lock(&self) -> Result<std::fs::File, AccountError> {
        // `<root>/account.json.lock`, beside the file it guards.
        let path = self.account_path();
        tokio::task::spawn_blocking(move || {
            fs_atomic::lock(&path).map_err(|source| AccountError::File {
                action: "lock",
                path,
                source,
            })
        })
        .await
        .expect("taking a file lock does not panic")
    }
}

/// Reads a JSON file; `None` when it does not exist.
pub(crate) fn read<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, AccountError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| AccountError::Damaged {
            path: path.to_path_buf(),
            problem: e.to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(AccountError::File { action: "read", path: path.to_path_buf(), source }),
    }
}

/// Writes a JSON file atomically, 0600.
pub(crate) fn write<T: Serialize>(path: &Path, value: &T) -> Result<(), AccountError> {
    let mut text = serde_json::to_string_pretty(value).expect("an account file serializes");
    text.push('\n');
    fs_atomic::write(path, text.as_bytes(), true).map_err(|source| AccountError::File {
        action: "write",
        path: path.to_path_buf(),
        source,
    })
}

/// Removes a file; `false` when it was not there.
pub(crate) fn remove(path: &Path) -> Result<bool, AccountError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(source) => {
            Err(AccountError::File { action: "remove", path: path.to_path_buf(), source })
        }
    }
}

/// Now, in milliseconds since the Unix epoch.
pub fn now_millis() -> Millis {
    (time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as Millis
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_account_file_is_signed_out_and_written_files_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let files = Files::new(&Root::new(dir.path()));
        assert_eq!(files.account().unwrap(), AccountFile::default());
        files
            .write_account(&AccountFile { hub: Some("http://127.0.0.1:1".into()), signed_in: None })
            .unwrap();
        assert_eq!(files.account().unwrap().hub.as_deref(), Some("http://127.0.0.1:1"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(files.account_path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn another_accounts_team_servers_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let files = Files::new(&Root::new(dir.path()));
        let file = TeamServersFile { uid: "u1".into(), hub: "h".into(), ..Default::default() };
        files.write_team_servers(&file).unwrap();
        assert_eq!(files.team_servers("u1").unwrap(), Some(file));
        assert_eq!(files.team_servers("u2").unwrap(), None);
    }
}
