//! The session: this machine's sign-in to its hub, and the calls made with it.
//!
//! The tokens live in the secret store, under the account's own records
//! ([`crate::files::secrets_account`], name [`TOKENS_NAME`]): a short-lived access token and a
//! rotating refresh token. [`Session::client`] hands out a [`HubClient`] whose access token is
//! fresh, renewing it when it has under a minute left. A renewal holds the account lock
//! (`account.json.lock`) and reads the tokens again under it, so the CLI and the daemon never both
//! spend one refresh token — the hub would take the second use for a stolen token and sign the
//! session out. A session the hub ended (signed out elsewhere, revoked, unused too long) signs
//! this machine out: `account.json` forgets it and the tokens are deleted.

use crate::error::AccountError;
use crate::files::{now_millis, secrets_account, Files, Method, SignedIn};
use cowork_core::paths::Root;
use cowork_secrets::SecretStore;
use cowork_wire::hub::client::{ClientError, HubClient};
use cowork_wire::hub::{HubErrorName, Millis, OAuthErrorCode, TokenAnswer};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::time::{Duration, SystemTime};

/// The secret (of the account's records) holding the session's tokens.
pub const TOKENS_NAME: &str = "cowork.session";

/// The environment variable naming the hub when `--hub` never did (servers, containers).
pub const HUB_ENV: &str = "COWORK_HUB";

/// An access token with less than this left is renewed before use.
const RENEW_MARGIN: Millis = 60_000;

/// How long one hub call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// The session's tokens, as the secret store keeps them.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Tokens {
    access_token: String,
    expires_at: Millis,
    refresh_token: String,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens").field("expires_at", &self.expires_at).finish_non_exhaustive()
    }
}

impl Tokens {
    fn from_answer(answer: &TokenAnswer) -> Tokens {
        Tokens {
            access_token: answer.access_token.clone(),
            expires_at: now_millis() + answer.expires_in as Millis * 1000,
            refresh_token: answer.refresh_token.clone(),
        }
    }

    fn fresh(&self) -> bool {
        self.expires_at - now_millis() > RENEW_MARGIN
    }
}

/// An access token this process holds, for one session.
#[derive(Clone)]
struct Access {
    session_id: String,
    token: String,
    expires_at: Millis,
}

/// An ID token this process holds.
#[derive(Clone)]
struct HeldIdToken {
    session_id: String,
    token: String,
    expires_at: Millis,
}

/// `account.json` as last read, with the file's stamp, so a per-run identity costs a `stat`.
struct Seen {
    stamp: Option<(SystemTime, u64)>,
    signed_in: Option<SignedIn>,
}

/// This machine's Cowork account: who is signed in, and calls to the hub with the session.
/// One per process (the daemon's lives as long as it does); cheap to share behind an `Arc`.
pub struct Session {
    files: Files,
    /// Read (or made) on first need, so a command that only looks — `doctor`, `status` — leaves a
    /// Cowork root that does not exist yet uncreated.
    device_id: std::sync::OnceLock<String>,
    device_name: String,
    /// Built on the first hub call: most processes (a routine run without a hub) never make one.
    http: std::sync::OnceLock<reqwest::Client>,
    access: Mutex<Option<Access>>,
    id_token: Mutex<Option<HeldIdToken>>,
    seen: Mutex<Option<Seen>>,
}

impl Session {
    /// The account of the Cowork root `root`.
    pub fn new(root: &Root) -> Session {
        Session {
            files: Files::new(root),
            device_id: std::sync::OnceLock::new(),
            device_name: host_name(),
            http: std::sync::OnceLock::new(),
            access: Mutex::new(None),
            id_token: Mutex::new(None),
            seen: Mutex::new(None),
        }
    }

    /// The account's files under the Cowork root.
    pub fn files(&self) -> &Files {
        &self.files
    }

    /// The Cowork root.
    pub fn root(&self) -> &Root {
        self.files.root()
    }

    /// This machine's id (`<root>/device-id`), sent with every sign-in and run report.
    pub fn device_id(&self) -> &str {
        self.device_id.get_or_init(|| self.root().device_id())
    }

    /// This machine's host name, as the sessions page and run reports show it.
    pub fn device_name(&self) -> &str {
        &self.device_name
    }

    /// Who is signed in, read from `account.json` (again only when the file changed).
    pub fn signed_in(&self) -> Result<Option<SignedIn>, AccountError> {
        let path = self.files.account_path();
        let stamp = std::fs::metadata(&path).ok().and_then(|m| Some((m.modified().ok()?, m.len())));
        let mut seen = self.seen.lock();
        if let Some(seen) = seen.as_ref().filter(|seen| stamp.is_some() && seen.stamp == stamp) {
            return Ok(seen.signed_in.clone());
        }
        let signed_in = self.files.signed_in()?;
        *seen = Some(Seen { stamp, signed_in: signed_in.clone() });
        Ok(signed_in)
    }

    /// The hub to use: `named` (a `--hub` given now), else the one this machine remembers, else
    /// `$COWORK_HUB`.
    pub fn hub(&self, named: Option<&str>) -> Result<String, AccountError> {
        if let Some(url) = named {
            return normalize_hub(url);
        }
        if let Some(url) = self.files.account()?.hub {
            return Ok(url);
        }
        match std::env::var(HUB_ENV).ok().filter(|v| !v.is_empty()) {
            Some(url) => normalize_hub(&url),
            None => Err(AccountError::NoHub),
        }
    }

    /// A client of `hub` with no token (sign-in calls).
    pub fn anonymous(&self, hub: &str) -> Result<HubClient, AccountError> {
        let http = self.http.get_or_init(|| {
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(CALL_TIMEOUT)
                .connect_timeout(Duration::from_secs(10))
                .build()
                .expect("an HTTP client with rustls builds")
        });
        Ok(HubClient::with_http(hub, http.clone())?)
    }

    /// Who is signed in, for a command that needs the hub: else `NotSignedIn`, or `NoHub` when no
    /// hub is named either (a bare `cowork login` would fail too, so that is said first).
    pub fn needed(&self) -> Result<SignedIn, AccountError> {
        match self.signed_in()? {
            Some(signed_in) => Ok(signed_in),
            None => {
                self.hub(None)?;
                Err(AccountError::NotSignedIn)
            }
        }
    }

    /// A client of the signed-in session's hub with a fresh access token, and who it is for.
    pub async fn client(&self) -> Result<(HubClient, SignedIn), AccountError> {
        let signed_in = self.needed()?;
        let token = self.access_token(&signed_in, false).await?;
        Ok((self.anonymous(&signed_in.hub)?.with_token(token), signed_in))
    }

    /// Calls the hub with the session: an access token the hub no longer takes (expired early,
    /// a clock off) is renewed and the call made once more; a session the hub ended signs this
    /// machine out ([`AccountError::SessionEnded`]).
    pub async fn call<T, F, Fut>(&self, call: F) -> Result<T, AccountError>
    where
        F: Fn(HubClient) -> Fut,
        Fut: Future<Output = Result<T, ClientError>>,
    {
        let (client, signed_in) = self.client().await?;
        let error = match call(client).await {
            Ok(answer) => return Ok(answer),
            Err(error) => error,
        };
        let error = match error.name() {
            Some(HubErrorName::SessionExpired | HubErrorName::InvalidToken) => {
                let token = self.access_token(&signed_in, true).await?;
                let client = self.anonymous(&signed_in.hub)?.with_token(token);
                match call(client).await {
                    Ok(answer) => return Ok(answer),
                    Err(error) => error,
                }
            }
            _ => error,
        };
        Err(self.ended(&signed_in, error).await)
    }

    /// A short-lived ID token of the signed-in account (`ctx.auth.getIdToken()`); `None` when
    /// nobody is signed in or the session ended.
    pub async fn id_token(&self) -> Result<Option<String>, AccountError> {
        let Some(signed_in) = self.signed_in()? else { return Ok(None) };
        if let Some(held) = self.id_token.lock().as_ref() {
            if held.session_id == signed_in.session_id
                && held.expires_at - now_millis() > RENEW_MARGIN
            {
                return Ok(Some(held.token.clone()));
            }
        }
        let answer = match self.call(|client| async move { client.id_token().await }).await {
            Ok(answer) => answer,
            Err(AccountError::NotSignedIn | AccountError::SessionEnded { .. }) => return Ok(None),
            Err(error) => return Err(error),
        };
        *self.id_token.lock() = Some(HeldIdToken {
            session_id: signed_in.session_id,
            token: answer.id_token.clone(),
            expires_at: answer.expires_at,
        });
        Ok(Some(answer.id_token))
    }

    /// Keeps a new sign-in: its tokens in the account's secret-store records, who it is in
    /// `account.json` (with `hub` as the hub this machine remembers). A session signed in before
    /// it is signed out (revoked on its hub, best effort), and another account's team-server
    /// state dropped. Holds the account lock while it writes.
    pub async fn keep_sign_in(
        &self,
        hub: &str,
        answer: TokenAnswer,
        method: Method,
    ) -> Result<SignedIn, AccountError> {
        let signed_in = SignedIn::new(hub, answer.me.clone(), method, now_millis());
        let kept = self.keep_tokens(&signed_in, &answer).await;
        let previous = match kept {
            Ok(previous) => previous,
            Err(error) => {
                // The hub made a session this machine could not keep (no secret store, say):
                // end it there rather than leave it live and unseen.
                let revoked = async {
                    self.anonymous(hub)?
                        .revoke(&answer.refresh_token)
                        .await
                        .map_err(AccountError::from)
                };
                if let Err(error) = revoked.await {
                    tracing::warn!(%error, "the session that could not be kept could not be signed out on the hub");
                }
                return Err(error);
            }
        };
        if let Some((previous_hub, refresh_token)) = previous {
            let revoked = async {
                self.anonymous(&previous_hub)?
                    .revoke(&refresh_token)
                    .await
                    .map_err(AccountError::from)
            };
            if let Err(error) = revoked.await {
                tracing::warn!(%error, "the previous session could not be signed out on its hub");
            }
        }
        Ok(signed_in)
    }

    /// [`Session::keep_sign_in`]'s writes, under the account lock. Returns the session signed in
    /// before (its hub and refresh token), to be revoked.
    async fn keep_tokens(
        &self,
        signed_in: &SignedIn,
        answer: &TokenAnswer,
    ) -> Result<Option<(String, String)>, AccountError> {
        let previous = {
            let _lock = self.files.lock().await?;
            let mut file = self.files.account_for_sign_in()?;
            let previous = match file.signed_in.take() {
                Some(before) if before.session_id != signed_in.session_id => {
                    let account = before.secrets_account();
                    let tokens = read_tokens(self.root(), &account).await.ok().flatten();
                    write_tokens(self.root(), &account, None).await?;
                    if before.user.uid != signed_in.user.uid {
                        self.files.remove_team_servers()?;
                    }
                    tokens.map(|t| (before.hub, t.refresh_token))
                }
                _ => None,
            };
            let tokens = Tokens::from_answer(answer);
            write_tokens(self.root(), &signed_in.secrets_account(), Some(&tokens)).await?;
            file.hub = Some(signed_in.hub.clone());
            file.signed_in = Some(signed_in.clone());
            self.files.write_account(&file)?;
            *self.id_token.lock() = None;
            *self.access.lock() = Some(Access {
                session_id: signed_in.session_id.clone(),
                token: tokens.access_token,
                expires_at: tokens.expires_at,
            });
            previous
        };
        Ok(previous)
    }

    /// Remembers `hub` as this machine's hub (a `--hub` given to a command that did not sign in).
    pub async fn remember_hub(&self, hub: &str) -> Result<(), AccountError> {
        let _lock = self.files.lock().await?;
        let mut file = self.files.account()?;
        if file.hub.as_deref() != Some(hub) {
            file.hub = Some(hub.to_string());
            self.files.write_account(&file)?;
        }
        Ok(())
    }

    /// The refresh token of the signed-in session, for a sign-out to revoke; the session is
    /// forgotten here at once (tokens deleted, `account.json` signed out), under the lock, so no
    /// renewal can spend it meanwhile. `None` when nobody was signed in.
    pub(crate) async fn take_session(
        &self,
    ) -> Result<Option<(SignedIn, Option<String>)>, AccountError> {
        let _lock = self.files.lock().await?;
        let mut file = self.files.account()?;
        let Some(signed_in) = file.signed_in.take() else { return Ok(None) };
        let account = signed_in.secrets_account();
        let tokens = read_tokens(self.root(), &account).await.ok().flatten();
        // Signed out here first: a hub that cannot be reached must not keep this machine signed in.
        self.files.write_account(&file)?;
        if let Err(error) = write_tokens(self.root(), &account, None).await {
            tracing::warn!(%error, "the session's tokens could not be deleted");
        }
        *self.access.lock() = None;
        *self.id_token.lock() = None;
        Ok(Some((signed_in, tokens.map(|t| t.refresh_token))))
    }

    /// A fresh access token for `signed_in`'s session: the one held, else the stored one, else a
    /// renewal (`force`: even when the held one looks fresh).
    async fn access_token(
        &self,
        signed_in: &SignedIn,
        force: bool,
    ) -> Result<String, AccountError> {
        if !force {
            if let Some(access) = self.access.lock().as_ref() {
                if access.session_id == signed_in.session_id
                    && access.expires_at - now_millis() > RENEW_MARGIN
                {
                    return Ok(access.token.clone());
                }
            }
        }
        let stale = self.access.lock().as_ref().map(|a| a.token.clone());
        let _lock = self.files.lock().await?;
        // Under the lock: another process may have renewed, or signed out, since.
        let now_signed_in =
            self.files.signed_in()?.filter(|s| s.session_id == signed_in.session_id);
        let Some(signed_in) = now_signed_in else { return Err(AccountError::NotSignedIn) };
        let account = signed_in.secrets_account();
        let Some(tokens) = read_tokens(self.root(), &account).await? else {
            return Err(AccountError::NotSignedIn);
        };
        // Forced, a stored token other than the one refused was renewed by another process.
        let renewed_elsewhere = force && stale.as_deref() != Some(tokens.access_token.as_str());
        let tokens = if tokens.fresh() && (!force || renewed_elsewhere) {
            tokens
        } else {
            let hub = self.anonymous(&signed_in.hub)?;
            match hub.refresh(&tokens.refresh_token, Some(self.device_id())).await {
                Ok(answer) => {
                    let renewed = Tokens::from_answer(&answer);
                    write_tokens(self.root(), &account, Some(&renewed)).await?;
                    let mut file = self.files.account()?;
                    file.signed_in = Some(signed_in.refreshed(answer.me));
                    self.files.write_account(&file)?;
                    renewed
                }
                Err(error) => {
                    let Some(name) = session_over(&error) else { return Err(error.into()) };
                    self.forget_session(&signed_in).await?;
                    return Err(AccountError::SessionEnded {
                        email: signed_in.user.email.clone(),
                        name,
                    });
                }
            }
        };
        *self.access.lock() = Some(Access {
            session_id: signed_in.session_id.clone(),
            token: tokens.access_token.clone(),
            expires_at: tokens.expires_at,
        });
        Ok(tokens.access_token)
    }

    /// `error` of a call made with `signed_in`'s session; a session the hub says is over (signed
    /// out elsewhere, revoked) signs this machine out. An access token refused as expired right
    /// after its renewal is the hub's clock or settings, not the session's end: it is passed on.
    async fn ended(&self, signed_in: &SignedIn, error: ClientError) -> AccountError {
        if !matches!(error.name(), Some(HubErrorName::SessionRevoked)) {
            return error.into();
        }
        let forgotten = async {
            let _lock = self.files.lock().await?;
            self.forget_session(signed_in).await
        };
        if let Err(error) = forgotten.await {
            tracing::warn!(%error, "a session the hub ended could not be forgotten here");
        }
        AccountError::SessionEnded {
            email: signed_in.user.email.clone(),
            name: HubErrorName::SessionRevoked,
        }
    }

    /// Forgets `signed_in`'s session here (the lock is held by the caller).
    async fn forget_session(&self, signed_in: &SignedIn) -> Result<(), AccountError> {
        *self.access.lock() = None;
        *self.id_token.lock() = None;
        forget_locked(&self.files, self.root(), signed_in).await
    }
}

/// Signs this machine out of `signed_in`'s session if it is still the one in `account.json`.
async fn forget_locked(
    files: &Files,
    root: &Root,
    signed_in: &SignedIn,
) -> Result<(), AccountError> {
    let mut file = files.account()?;
    if file.signed_in.as_ref().is_some_and(|s| s.session_id == signed_in.session_id) {
        file.signed_in = None;
        files.write_account(&file)?;
        write_tokens(root, &signed_in.secrets_account(), None).await?;
    }
    Ok(())
}

/// Whether a renewal's refusal means the session is over (and which name says so).
fn session_over(error: &ClientError) -> Option<HubErrorName> {
    match error {
        ClientError::OAuth { error, .. } if error.error == OAuthErrorCode::InvalidGrant => {
            Some(HubErrorName::SessionRevoked)
        }
        ClientError::Hub { error, .. } => match error.name {
            HubErrorName::SessionRevoked | HubErrorName::InvalidToken => {
                Some(HubErrorName::SessionRevoked)
            }
            HubErrorName::SessionExpired => Some(HubErrorName::SessionExpired),
            _ => None,
        },
        _ => None,
    }
}

/// The tokens kept for secret-store account `account`.
async fn read_tokens(root: &Root, account: &str) -> Result<Option<Tokens>, AccountError> {
    let (root, account) = (root.clone(), account.to_string());
    tokio::task::spawn_blocking(move || {
        let store = SecretStore::open(&root, &account)?;
        let Some(text) = store.get(TOKENS_NAME)? else { return Ok(None) };
        // A record that is not ours any more (an older format) is as good as none: sign in again.
        Ok(serde_json::from_str(&text).ok())
    })
    .await
    .expect("reading the secret store does not panic")
}

/// Writes (or, with `None`, deletes) the tokens of secret-store account `account`.
async fn write_tokens(
    root: &Root,
    account: &str,
    tokens: Option<&Tokens>,
) -> Result<(), AccountError> {
    let (root, account) = (root.clone(), account.to_string());
    let text = tokens.map(|t| serde_json::to_string(t).expect("tokens serialize"));
    tokio::task::spawn_blocking(move || {
        let store = SecretStore::open(&root, &account)?;
        match text {
            Some(text) => store.set_reserved(TOKENS_NAME, &text)?,
            None => {
                store.delete_reserved(TOKENS_NAME)?;
            }
        }
        Ok(())
    })
    .await
    .expect("writing the secret store does not panic")
}

/// Deletes every secret-store record of the Cowork account `uid` (`logout --forget`); how many.
pub(crate) async fn delete_account_secrets(root: &Root, uid: &str) -> Result<usize, AccountError> {
    let (root, account) = (root.clone(), secrets_account(uid));
    tokio::task::spawn_blocking(move || {
        let store = SecretStore::open(&root, &account)?;
        let names = store.list()?;
        for name in &names {
            store.delete_reserved(name)?;
        }
        Ok(names.len())
    })
    .await
    .expect("deleting from the secret store does not panic")
}

/// `url` as a hub address: http(s), without a trailing slash.
pub fn normalize_hub(url: &str) -> Result<String, AccountError> {
    let parsed = url::Url::parse(url.trim())
        .map_err(|_| AccountError::BadHubAddress { url: url.to_string() })?;
    if !matches!(parsed.scheme(), "http" | "https")
        || parsed.host_str().is_none()
        || !parsed.username().is_empty()
        || parsed.password().is_some()
    {
        return Err(AccountError::BadHubAddress { url: url.to_string() });
    }
    Ok(parsed.as_str().trim_end_matches('/').to_string())
}

/// This machine's host name (Linux: the kernel's; else `$HOSTNAME`), for the sessions page.
fn host_name() -> String {
    let from_kernel = std::fs::read_to_string("/proc/sys/kernel/hostname").ok();
    let from_env = || std::env::var("HOSTNAME").ok().or_else(|| std::env::var("COMPUTERNAME").ok());
    from_kernel
        .or_else(from_env)
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hub_address_is_http_without_a_trailing_slash() {
        assert_eq!(normalize_hub("http://127.0.0.1:8480/").unwrap(), "http://127.0.0.1:8480");
        assert_eq!(normalize_hub("https://hub.example.com").unwrap(), "https://hub.example.com");
        for bad in ["hub.example.com", "ftp://hub", "https://ana:pw@hub.example.com", ""] {
            assert!(matches!(normalize_hub(bad), Err(AccountError::BadHubAddress { .. })), "{bad}");
        }
    }

    #[test]
    fn tokens_never_show_in_debug_output() {
        let tokens = Tokens {
            access_token: "at-secret".into(),
            expires_at: 1,
            refresh_token: "rt-secret".into(),
        };
        let shown = format!("{tokens:?}");
        assert!(!shown.contains("secret"), "{shown}");
    }
}
