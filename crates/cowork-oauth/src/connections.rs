//! [`Connections`]: signing in, handing out fresh access tokens, disconnecting.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::endpoint::{revoke, token_request, Previous};
use crate::key_locks::KeyLocks;
use crate::sign_in::{self, Context, PendingSignIn};
use crate::tokens::Tokens;
use crate::{OAuthError, Provider, TokenStore};

/// How long a sign-in waits for the browser by default.
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// How long one request to a provider endpoint may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// What [`Connections::disconnect`] did at the provider. The tokens are removed in every case.
#[derive(Debug)]
pub enum Revocation {
    /// The provider revoked the grant.
    Revoked,
    /// The provider has no revocation endpoint (Microsoft): the grant stays valid at the
    /// provider until it expires or the person removes the app from their account.
    NotOffered,
    /// Revoking failed; revocation is best effort, so the tokens were removed anyway. The error
    /// says why, for a log line.
    Failed(OAuthError),
    /// Nothing readable was stored under the key.
    NothingStored,
}

/// The sign-in engine: an HTTP client for the providers' endpoints and the per-key locks that
/// keep refreshes from racing.
///
/// Keep ONE for the process and share it: the guarantee that a key has a single refresh in
/// flight holds among the calls of one `Connections`.
pub struct Connections {
    http: reqwest::Client,
    locks: Arc<KeyLocks>,
    sign_in_timeout: Duration,
}

impl Default for Connections {
    fn default() -> Self {
        Self::new()
    }
}

impl Connections {
    /// An engine whose sign-ins wait [`SIGN_IN_TIMEOUT`] for the browser.
    pub fn new() -> Self {
        let http = reqwest::Client::builder()
            // Token endpoints answer directly; following a redirect could post a code elsewhere.
            .redirect(reqwest::redirect::Policy::none())
            .timeout(REQUEST_TIMEOUT)
            .user_agent(concat!("cowork-oauth/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("a client with built-in roots and no proxy settings always builds");
        Self { http, locks: Arc::default(), sign_in_timeout: SIGN_IN_TIMEOUT }
    }

    /// The same engine with sign-ins that give up after `timeout` (a headless CLI may want
    /// longer; tests shorter).
    pub fn with_sign_in_timeout(mut self, timeout: Duration) -> Self {
        self.sign_in_timeout = timeout;
        self
    }

    /// Starts a sign-in asking for `scopes` (the union every capability sharing the connection
    /// needs; the provider's `extra_scopes` are added) whose tokens go to `store` under `key`.
    ///
    /// Authorization code with PKCE (S256) and a random `state`, redirected to a listener on
    /// `http://127.0.0.1:<ephemeral port>/oauth/callback`. Open the returned
    /// [`PendingSignIn::auth_url`] in a browser and [`PendingSignIn::wait`] for the outcome.
    ///
    /// Fails at once with [`OAuthError::BadConfig`] when the provider's client id is still a
    /// build's placeholder, or [`OAuthError::Listen`] when no loopback port can be opened.
    pub async fn start(
        &self,
        provider: &Provider,
        scopes: &[String],
        store: Arc<dyn TokenStore>,
        key: &str,
    ) -> Result<PendingSignIn, OAuthError> {
        let context = Context {
            http: self.http.clone(),
            locks: self.locks.clone(),
            timeout: self.sign_in_timeout,
            store,
            key: key.to_owned(),
        };
        sign_in::start(context, provider, scopes).await
    }

    /// An access token for `key`'s connection, refreshed first when it has less than a minute
    /// left or when `force` is set (the service answered 401 to the current one).
    ///
    /// One refresh per key at a time: callers arriving while one is in flight wait for it and
    /// get its token, which matters because reusing a rotated refresh token makes providers
    /// revoke the whole grant. A rotated refresh token is saved with the new access token.
    ///
    /// [`OAuthError::NotConnected`] when nothing is stored, when the sign-in expired without a
    /// refresh token, or when the provider answers `invalid_grant` (revoked, expired, or a reused
    /// refresh token); the stored tokens are removed in the last two cases.
    pub async fn access_token(
        &self,
        provider: &Provider,
        store: &dyn TokenStore,
        key: &str,
        force: bool,
    ) -> Result<String, OAuthError> {
        let asked = Instant::now();
        let not_connected = || OAuthError::NotConnected {
            connection: provider.connection.clone(),
            reason: "nobody has signed in yet".into(),
        };
        if !force {
            match Tokens::load(store, key)? {
                Some(tokens) if tokens.is_fresh() => return Ok(tokens.access_token),
                Some(_) => {}
                None => return Err(not_connected()),
            }
        }
        let lock = self.locks.for_key(key);
        let mut last_write = lock.lock().await;
        let tokens = Tokens::load(store, key)?.ok_or_else(not_connected)?;
        let renewed_meanwhile = last_write.is_some_and(|written| written > asked);
        if renewed_meanwhile || (!force && tokens.is_fresh()) {
            return Ok(tokens.access_token);
        }
        let result = self.refresh(provider, store, key, tokens).await;
        // Written whether it refreshed or removed the tokens: waiters re-read either way.
        *last_write = Some(Instant::now());
        result
    }

    /// Exchanges the refresh token; on `invalid_grant` forgets the sign-in.
    async fn refresh(
        &self,
        provider: &Provider,
        store: &dyn TokenStore,
        key: &str,
        tokens: Tokens,
    ) -> Result<String, OAuthError> {
        let gone = |reason: String| {
            Tokens::remove(store, key)?;
            Err(OAuthError::NotConnected { connection: provider.connection.clone(), reason })
        };
        let Some(refresh_token) = &tokens.refresh_token else {
            return gone(format!(
                "the sign-in expired and {} gave no refresh token",
                provider.connection
            ));
        };
        let answer = token_request(
            &self.http,
            provider,
            &[("grant_type", "refresh_token"), ("refresh_token", refresh_token)],
        )
        .await;
        match answer {
            Ok(answer) => {
                let renewed = answer.into_tokens(Previous {
                    refresh_token: tokens.refresh_token.as_ref(),
                    scopes: &tokens.scopes,
                    account: tokens.account.as_ref(),
                });
                renewed.save(store, key)?;
                Ok(renewed.access_token)
            }
            Err(OAuthError::ProviderError { error, .. }) if error == "invalid_grant" => {
                gone(format!(
                    "{} no longer accepts this sign-in (revoked or expired)",
                    provider.connection
                ))
            }
            Err(error) => Err(error),
        }
    }

    /// Forgets `key`'s connection: revokes it at the provider when the provider has a
    /// revocation endpoint — best effort: a failure is reported in [`Revocation::Failed`], not
    /// returned as an error — then removes the tokens. An `Err` means the store could not remove
    /// them.
    pub async fn disconnect(
        &self,
        provider: &Provider,
        store: &dyn TokenStore,
        key: &str,
    ) -> Result<Revocation, OAuthError> {
        let lock = self.locks.for_key(key);
        let mut last_write = lock.lock().await;
        let revocation = match Tokens::load(store, key) {
            // An entry that cannot be read cannot be revoked, but is removed all the same:
            // disconnecting is how the person gets rid of it.
            Ok(None) | Err(_) => Revocation::NothingStored,
            Ok(Some(tokens)) => match &provider.revocation_endpoint {
                None => Revocation::NotOffered,
                Some(url) => {
                    // Revoking the refresh token ends the grant; an access token only itself.
                    let (token, hint) = match &tokens.refresh_token {
                        Some(refresh_token) => (refresh_token, "refresh_token"),
                        None => (&tokens.access_token, "access_token"),
                    };
                    match revoke(&self.http, provider, url, token, hint).await {
                        Ok(()) => Revocation::Revoked,
                        Err(error) => Revocation::Failed(error),
                    }
                }
            },
        };
        Tokens::remove(store, key)?;
        *last_write = Some(Instant::now());
        Ok(revocation)
    }
}
