//! The asynchronous half of `ctx.credential` and of connecting: what `fetch` sends, `token()`,
//! `start()` and `disconnect()` — for a key (which sends nothing by itself) and for a sign-in (a
//! bearer for the provider's API hosts only, refreshed when expired and once after a 401).
//!
//! Sign-ins run through `cowork-oauth` with the provider presets, overridden by `<root>/oauth.json`
//! (how tests point them at a local OpenID provider); tokens live in the secret store under the
//! reserved `cowork.oauth.<connection>` names.

use crate::credentials::{self, Connection, SignIn};
use crate::run::{not_connected, unavailable, Answer, CtxError, Masks};
use cowork_oauth::{
    Config, Connections, OAuthError, PendingSignIn, Provider, StoreError, TokenStore,
};
use cowork_secrets::SecretStore;
use serde_json::{json, Value};
use std::sync::Arc;

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

    fn provider(&self, sign_in: &SignIn, capability: &str) -> Result<Provider, CtxError> {
        let config =
            self.config.as_ref().map_err(|e| ("BadConfig".to_string(), e.clone(), None))?;
        let provider = if sign_in.own_client {
            config.own_client(capability, &sign_in.provider)
        } else {
            config.provider(&sign_in.provider)
        };
        provider.map_err(error)
    }

    /// Starts a sign-in for `connection` (the union of its scopes); the sign-in finishes in the
    /// browser, on its own, after this returns.
    pub async fn start(
        &self,
        store: Arc<SecretStore>,
        connection: &Connection,
    ) -> Result<PendingSignIn, CtxError> {
        let sign_in = connection.sign_in.as_ref().ok_or_else(|| {
            (
                "BadRequest".to_string(),
                format!("{} is a key, not a sign-in: the person pastes it", connection.name),
                None,
            )
        })?;
        let provider = self.provider(sign_in, &connection.name)?;
        let tokens: Arc<dyn TokenStore> = Arc::new(Tokens(store));
        self.connections
            .start(&provider, &sign_in.scopes, tokens, &sign_in.token_key)
            .await
            .map_err(error)
    }

    /// Revokes the sign-in at the provider (best effort) and forgets it and any key fields.
    pub async fn disconnect(
        &self,
        store: &SecretStore,
        connection: &Connection,
    ) -> Result<(), CtxError> {
        if let Some(sign_in) = &connection.sign_in {
            let provider = self.provider(sign_in, &connection.name)?;
            if let Err(e) =
                self.connections.disconnect(&provider, &TokenView(store), &sign_in.token_key).await
            {
                tracing::warn!(error = %e, "revoking a sign-in failed; its tokens are forgotten anyway");
            }
        }
        credentials::forget(store, connection)
            .map(|_| ())
            .map_err(|e| ("Unavailable".into(), e.to_string(), None))
    }
}

/// The secret store as the OAuth engine's token store (reserved `cowork.oauth.*` names).
struct Tokens(Arc<SecretStore>);

/// A borrowed view, for calls that do not outlive the request (and for reading a status).
pub(crate) struct TokenView<'a>(pub &'a SecretStore);

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

fn error(e: OAuthError) -> CtxError {
    (e.name().to_string(), e.to_string(), None)
}

/// Answers one asynchronous credential request of a capability's routine.
pub(crate) async fn answer(
    oauth: &OAuth,
    store: &Arc<SecretStore>,
    connection: &Connection,
    op: &str,
    args: &Value,
    masks: &Masks,
) -> Answer {
    let signed_in = connection.sign_in.as_ref().is_some_and(|s| {
        credentials::sign_in_status(store, s).state != cowork_oauth::State::NotConnected
    });
    // A connection that takes either uses the sign-in once there is one, else the key.
    let use_sign_in = connection.sign_in.is_some() && (signed_in || connection.key.is_none());
    match op {
        // The address would come back to a listener that dies with this process when the run
        // ends: the person would sign in and land on an error page.
        "credential.start" if !oauth.long_lived => Err((
            "NoDaemon".into(),
            format!("ctx.credential.start() needs the daemon, which keeps the sign-in's listener until the browser comes back: run `cowork start` and run the routine again, or connect from a terminal with `cowork credential connect {}`", connection.name),
            None,
        )),
        "credential.start" => oauth.start(store.clone(), connection).await.map(|pending| json!({ "authUrl": pending.auth_url })),
        "credential.disconnect" => oauth.disconnect(store, connection).await.map(|()| Value::Null),
        "credential.authorize" | "credential.token" if use_sign_in => {
            let sign_in = connection.sign_in.as_ref().expect("use_sign_in implies a sign-in");
            let provider = oauth.provider(sign_in, &connection.name)?;
            if op == "credential.authorize" {
                let url = args["url"].as_str().unwrap_or_default();
                if !provider.is_api_host(url) {
                    return Err(("Forbidden".into(), format!("ctx.credential.fetch sends the {} sign-in only to its API hosts ({}) over https, not to {url}; use plain fetch for other addresses", sign_in.provider, provider.api_hosts.join(", ")), None));
                }
            }
            let token = oauth.connections.access_token(&provider, &TokenView(store), &sign_in.token_key, args["force"] == json!(true)).await.map_err(|e| match e {
                OAuthError::NotConnected { .. } => not_connected(connection),
                other => error(other),
            })?;
            masks.add(&token);
            Ok(if op == "credential.token" { Value::String(token) } else { json!({ "authorization": format!("Bearer {token}") }) })
        }
        // A key sends nothing by itself (the routine puts its header in init.headers from
        // fields()), but a request without the key it needs would only fail at the service:
        // say where to connect it instead.
        "credential.authorize" if credentials::key_connected(store, connection) => Ok(json!({})),
        "credential.authorize" => Err(not_connected(connection)),
        "credential.token" => {
            let (_, secret) = connection.field_names().into_iter().next().ok_or_else(|| not_connected(connection))?;
            let value = store.get(&secret).map_err(unavailable)?.ok_or_else(|| not_connected(connection))?;
            masks.add(&value);
            Ok(Value::String(value.to_string()))
        }
        other => Err(("BadRequest".into(), format!("unknown ctx request \"{other}\""), None)),
    }
}
