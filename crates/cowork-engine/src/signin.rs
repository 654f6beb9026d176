//! Sign-ins (OAuth): the engine that starts one, keeps its tokens fresh and revokes it. Sign-ins run
//! through `cowork-oauth` with the provider presets, overridden by `<root>/oauth.json` (how tests
//! point them at a local OpenID provider); tokens live in the secret store under the reserved
//! `cowork.oauth.<connection>` names.
//!
//! This module knows a sign-in, not the connection around it: `credentials` connects and
//! disconnects connections, `routine_credential` answers a routine's `ctx.credential`.

use crate::protocol::{CtxError, ErrorName};
use cowork_oauth::{
    Config, Connections, OAuthError, PendingSignIn, Provider, StoreError, TokenStore,
};
use cowork_secrets::SecretStore;
use serde::Serialize;
use std::sync::Arc;

/// The sign-in part of a connection.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignIn {
    pub provider: String,
    /// Where its tokens are stored (`cowork.oauth.google`, or the capability's own).
    pub token_key: String,
    /// The union of scopes of everything sharing it.
    pub scopes: Vec<String>,
    pub own_client: bool,
}

/// The OAuth engine of one Cowork root: its configuration and the one `Connections` that keeps
/// refreshes of a connection from racing.
pub struct OAuth {
    config: Result<Config, String>,
    connections: Connections,
    /// Whether a sign-in a routine starts can finish here: see `EngineConfig::long_lived`.
    long_lived: bool,
}

impl OAuth {
    /// Reads `<root>/oauth.json` (a missing file means the presets). `long_lived`: this process
    /// outlives a routine's run, so the loopback listener of a sign-in it starts stays up.
    pub fn load(root: &cowork_core::paths::Root, long_lived: bool) -> OAuth {
        OAuth {
            config: Config::load(&root.dir().join("oauth.json")).map_err(|e| e.to_string()),
            connections: Connections::new(),
            long_lived,
        }
    }

    /// Whether a sign-in started here outlives the run that started it (see [`OAuth::load`]).
    pub fn is_long_lived(&self) -> bool {
        self.long_lived
    }

    /// The provider `sign_in` talks to; `connection` names an own client's capability.
    pub fn provider(&self, sign_in: &SignIn, connection: &str) -> Result<Provider, CtxError> {
        let config =
            self.config.as_ref().map_err(|e| CtxError::new(ErrorName::BadConfig, e.clone()))?;
        let provider = if sign_in.own_client {
            config.own_client(connection, &sign_in.provider)
        } else {
            config.provider(&sign_in.provider)
        };
        provider.map_err(error)
    }

    /// Starts `sign_in` (the union of its scopes); it finishes in the browser, on its own, after
    /// this returns.
    pub async fn start(
        &self,
        store: Arc<SecretStore>,
        sign_in: &SignIn,
        connection: &str,
    ) -> Result<PendingSignIn, CtxError> {
        let provider = self.provider(sign_in, connection)?;
        let tokens: Arc<dyn TokenStore> = Arc::new(Tokens(store));
        self.connections
            .start(&provider, &sign_in.scopes, tokens, &sign_in.token_key)
            .await
            .map_err(error)
    }

    /// Revokes `sign_in` at the provider, best effort: its tokens are forgotten by the caller
    /// either way.
    pub async fn revoke(
        &self,
        store: &SecretStore,
        sign_in: &SignIn,
        connection: &str,
    ) -> Result<(), CtxError> {
        let provider = self.provider(sign_in, connection)?;
        if let Err(e) =
            self.connections.disconnect(&provider, &TokenView(store), &sign_in.token_key).await
        {
            tracing::warn!(error = %e, "revoking a sign-in failed; its tokens are forgotten anyway");
        }
        Ok(())
    }

    /// A fresh access token of `sign_in` (refreshed when expired, or when `force`).
    pub async fn access_token(
        &self,
        provider: &Provider,
        store: &SecretStore,
        sign_in: &SignIn,
        force: bool,
    ) -> Result<String, OAuthError> {
        self.connections.access_token(provider, &TokenView(store), &sign_in.token_key, force).await
    }
}

/// Where a sign-in stands, as the OAuth engine reads it: an access token past its expiry with no
/// refresh token is not connected (nothing could use it), and a store it cannot read is neither.
pub fn status(store: &SecretStore, sign_in: &SignIn) -> cowork_oauth::Status {
    cowork_oauth::status(&TokenView(store), &sign_in.token_key, &sign_in.scopes)
        .unwrap_or(cowork_oauth::Status { state: cowork_oauth::State::NotConnected, account: None })
}

/// An OAuth failure as a caller sees it: under the name the OAuth engine gives it.
pub fn error(e: OAuthError) -> CtxError {
    CtxError::new(e.name(), e.to_string())
}

/// The secret store as the OAuth engine's token store (reserved `cowork.oauth.*` names).
struct Tokens(Arc<SecretStore>);

/// A borrowed view, for calls that do not outlive the request (and for reading a status).
struct TokenView<'a>(&'a SecretStore);

fn load(store: &SecretStore, key: &str) -> Result<Option<String>, StoreError> {
    store.get(key).map(|v| v.map(|v| v.to_string())).map_err(StoreError::from)
}

impl TokenStore for Tokens {
    fn load(&self, key: &str) -> Result<Option<String>, StoreError> {
        load(&self.0, key)
    }
    fn save(&self, key: &str, json: &str) -> Result<(), StoreError> {
        self.0.set_reserved(key, json).map_err(StoreError::from)
    }
    fn remove(&self, key: &str) -> Result<(), StoreError> {
        self.0.delete_reserved(key).map(|_| ()).map_err(StoreError::from)
    }
}

impl TokenStore for TokenView<'_> {
    fn load(&self, key: &str) -> Result<Option<String>, StoreError> {
        load(self.0, key)
    }
    fn save(&self, key: &str, json: &str) -> Result<(), StoreError> {
        self.0.set_reserved(key, json).map_err(StoreError::from)
    }
    fn remove(&self, key: &str) -> Result<(), StoreError> {
        self.0.delete_reserved(key).map(|_| ()).map_err(StoreError::from)
    }
}
