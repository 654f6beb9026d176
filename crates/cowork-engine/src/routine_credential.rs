//! `ctx.credential`: the one connection a capability declares, as its own routines reach it —
//! its key's fields, its status, a token, what `fetch` sends (a sign-in's bearer only to the
//! provider's API hosts), starting and ending a sign-in. Every value read is masked from then on.

use crate::credentials::{self, Connection};
use crate::masks::Masks;
use crate::protocol::{
    self, Answer, Authorization, CredentialState, CtxError, ErrorName, SignInStarted,
};
use crate::secret_access::unavailable;
use crate::signin::{self, OAuth};
use crate::workspace::Workspace;
use cowork_core::registry::{Kind, RoutineEntry};
use cowork_oauth::OAuthError;
use cowork_secrets::SecretStore;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// An asynchronous `ctx.credential` answer in the making.
pub(crate) type Pending = Pin<Box<dyn Future<Output = Answer> + Send>>;

/// The connection of the capability a routine belongs to, with what reading it needs.
pub(crate) struct RoutineCredential {
    store: Arc<SecretStore>,
    connection: Connection,
    oauth: Arc<OAuth>,
    masks: Arc<Masks>,
}

impl RoutineCredential {
    /// The connection `entry`'s capability declares, or the error its routine gets instead.
    pub fn of(
        ws: &Workspace,
        entry: &RoutineEntry,
        masks: Arc<Masks>,
    ) -> Result<RoutineCredential, CtxError> {
        let cap = &entry.app_name;
        if entry.kind != Kind::Capability {
            return Err(CtxError::new(ErrorName::NotGranted, format!("{cap} is an app: an app's routines reach no credential — call a routine of the capability that declares it (\"uses\")")));
        }
        let Some(connection) = credentials::of_capability(&ws.registry(), cap) else {
            return Err(CtxError::new(ErrorName::NotConnected, format!("{cap} declares no \"credential\" in its cowork.json, so it has no connection to use")));
        };
        let store = ws.secrets().map_err(unavailable)?;
        Ok(RoutineCredential { store, connection, oauth: ws.shared().oauth().clone(), masks })
    }

    /// `ctx.credential.fields()`: the key's fields by name, or `NotConnected` saying where to
    /// connect.
    pub fn fields(&self) -> Answer {
        let connection = &self.connection;
        if connection.key.is_none() {
            return Err(CtxError::new(ErrorName::BadRequest, format!("{} signs in (OAuth) and has no key fields: use ctx.credential.fetch or token()", connection.name)).into());
        }
        let mut fields = serde_json::Map::new();
        for (field, secret) in connection.field_names() {
            let Some(value) = self.store.get(&secret)? else {
                return Err(not_connected(connection).into());
            };
            self.masks.add(&value);
            fields.insert(field, Value::String(value.to_string()));
        }
        Ok(Value::Object(fields))
    }

    /// `ctx.credential.status()`: connected or not, and as whom — never a token.
    pub fn state(&self) -> CredentialState {
        let status = credentials::status(&self.store, &self.connection);
        CredentialState {
            connected: status.state == credentials::ConnectionState::Connected,
            account: status.account,
        }
    }

    /// Whether requests go out with the sign-in: a connection that takes either uses the sign-in
    /// once there is one, else the key.
    fn uses_sign_in(&self) -> bool {
        let connection = &self.connection;
        let signed_in = connection.sign_in.as_ref().is_some_and(|s| {
            signin::status(&self.store, s).state != cowork_oauth::State::NotConnected
        });
        connection.sign_in.is_some() && (signed_in || connection.key.is_none())
    }

    /// A fresh access token of the sign-in, checked against `url` (what `fetch` calls) if given.
    async fn bearer(&self, url: Option<&str>, force: bool) -> Result<String, CtxError> {
        let connection = &self.connection;
        let sign_in = connection.sign_in.as_ref().expect("uses_sign_in implies a sign-in");
        let provider = self.oauth.provider(sign_in, &connection.name)?;
        if let Some(url) = url.filter(|url| !provider.is_api_host(url)) {
            return Err(CtxError::new(ErrorName::Forbidden, format!("ctx.credential.fetch sends the {} sign-in only to its API hosts ({}) over https, not to {url}; use plain fetch for other addresses", sign_in.provider, provider.api_hosts.join(", "))));
        }
        let token =
            self.oauth.access_token(&provider, &self.store, sign_in, force).await.map_err(|e| {
                match e {
                    OAuthError::NotConnected { .. } => not_connected(connection),
                    other => signin::error(other),
                }
            })?;
        self.masks.add(&token);
        Ok(token)
    }

    /// `ctx.credential.token()`: the sign-in's access token, else the key's first field.
    pub async fn token(self, force: bool) -> Answer {
        if self.uses_sign_in() {
            return Ok(Value::String(self.bearer(None, force).await?));
        }
        let connection = &self.connection;
        let (_, secret) =
            connection.field_names().into_iter().next().ok_or_else(|| not_connected(connection))?;
        let value = self.store.get(&secret)?.ok_or_else(|| not_connected(connection))?;
        self.masks.add(&value);
        Ok(Value::String(value.to_string()))
    }

    /// What `ctx.credential.fetch(url)` sends. A key sends nothing by itself (the routine puts
    /// its header in init.headers from fields()), but a request without the key it needs would
    /// only fail at the service: say where to connect it instead.
    pub async fn authorize(self, url: &str, force: bool) -> Answer {
        if self.uses_sign_in() {
            let token = self.bearer(Some(url), force).await?;
            return protocol::answer(Authorization {
                authorization: Some(format!("Bearer {token}")),
            });
        }
        if !credentials::key_connected(&self.store, &self.connection) {
            return Err(not_connected(&self.connection).into());
        }
        protocol::answer(Authorization { authorization: None })
    }

    /// `ctx.credential.start()`: the address the person signs in at.
    pub async fn start(self) -> Answer {
        // The address would come back to a listener that dies with this process when the run
        // ends: the person would sign in and land on an error page.
        if !self.oauth.is_long_lived() {
            return Err(CtxError::new(ErrorName::NoDaemon, format!("ctx.credential.start() needs the daemon, which keeps the sign-in's listener until the browser comes back: run `cowork start` and run the routine again, or connect from a terminal with `cowork credential connect {}`", self.connection.name)).into());
        }
        let pending =
            credentials::start_sign_in(&self.oauth, self.store.clone(), &self.connection).await?;
        protocol::answer(SignInStarted { auth_url: pending.auth_url })
    }

    /// `ctx.credential.disconnect()`.
    pub async fn disconnect(self) -> Answer {
        credentials::disconnect(&self.oauth, &self.store, &self.connection).await?;
        Ok(Value::Null)
    }
}

/// `NotConnected`, naming where the person connects it.
fn not_connected(connection: &Connection) -> CtxError {
    let name = &connection.name;
    let how = match &connection.key {
        Some(key) => format!(
            "`cowork credential connect {name} --field {}`",
            key.fields.first().map(String::as_str).unwrap_or("token")
        ),
        None => format!("`cowork credential connect {name}`"),
    };
    CtxError::new(ErrorName::NotConnected, format!("{name} is not connected: connect it in Manage Workspace › Components › Credentials, from the app's pane, or with {how}"))
}
