//! Connections: what capabilities declare in `credential`, and whether the person connected them.
//!
//! A key is named after its capability and stored field by field as `<capability>.<field>` in the
//! secret store (so the capability's own grant reaches it). A sign-in is named after its provider
//! (`google`), shared by every capability of that provider, and asks for the union of their scopes;
//! `ownClient` makes it the capability's own. A capability declaring both is one connection named
//! after it, of kind `both`. The connection's key or token never leaves the daemon except to the
//! capability's own routine.

use crate::protocol::{CtxError, ErrorName};
use crate::signin::{self, OAuth};
use cowork_core::manifest::Kind;
use cowork_core::registry::Registry;
use cowork_oauth::PendingSignIn;
use cowork_secrets::SecretStore;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

pub use crate::signin::SignIn;

/// The secret name a sign-in's tokens live under (Cowork's own, reserved prefix).
pub fn token_key(connection: &str) -> String {
    format!("cowork.oauth.{connection}")
}

/// A key part of a connection.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Key {
    /// The capability whose key it is (stored as `<capability>.<field>`).
    pub capability: String,
    /// The fields the person pastes (`credential.key.fields`).
    pub fields: Vec<String>,
    /// Where to get them (`credential.key.url`).
    pub url: Option<String>,
    /// One line on how (`credential.key.hint`).
    pub hint: Option<String>,
}

/// One connection the workspace's capabilities declare.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Connection {
    /// The connection's name: the provider for a shared sign-in (`google`), else the capability's.
    pub name: String,
    /// Its sign-in, when it takes one.
    pub sign_in: Option<SignIn>,
    /// Its key, when it takes one.
    pub key: Option<Key>,
    /// The capabilities that use it.
    pub used_by: Vec<String>,
}

/// What a connection takes: a sign-in (`oauth`), a `key`, or either (`both`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ConnectionKind {
    /// A sign-in only (`oauth`).
    Oauth,
    /// A pasted key only.
    Key,
    /// Either: a sign-in unless fields are given.
    Both,
}

impl ConnectionKind {
    /// The kind as a widget reads it (`cowork.credentials.get`): `oauth`, `key` or `both`.
    pub fn as_str(self) -> &'static str {
        match self {
            ConnectionKind::Oauth => "oauth",
            ConnectionKind::Key => "key",
            ConnectionKind::Both => "both",
        }
    }
}

/// Where a connection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConnectionState {
    /// Its routines can use it.
    Connected,
    /// Signed in, but without every scope its capabilities ask for.
    NeedsScopes,
    /// Nothing usable is stored.
    NotConnected,
}

impl ConnectionState {
    /// The state as a widget reads it: `connected`, `needs-scopes` or `not-connected`.
    pub fn as_str(self) -> &'static str {
        match self {
            ConnectionState::Connected => "connected",
            ConnectionState::NeedsScopes => "needs-scopes",
            ConnectionState::NotConnected => "not-connected",
        }
    }
}

impl Connection {
    /// What it takes: a sign-in, a key, or either.
    pub fn kind(&self) -> ConnectionKind {
        match (&self.sign_in, &self.key) {
            (Some(_), Some(_)) => ConnectionKind::Both,
            (Some(_), None) => ConnectionKind::Oauth,
            _ => ConnectionKind::Key,
        }
    }

    /// The secret names of the key's fields.
    pub fn field_names(&self) -> Vec<(String, String)> {
        self.key
            .iter()
            .flat_map(|k| {
                k.fields.iter().map(move |f| (f.clone(), format!("{}.{f}", k.capability)))
            })
            .collect()
    }
}

/// Every connection declared by the switched-on capabilities, by name.
///
/// A shared sign-in (`cowork.oauth.<provider>`) holds one set of tokens for every capability of
/// that provider, so whoever starts it — the provider's row, or a capability that takes a sign-in
/// or a key (`both`) — asks for the union of all their scopes: a narrower sign-in would replace
/// the tokens the others use. A `both` capability is one row, named after it; the provider gets a
/// row of its own only when a sign-in-only capability uses it.
pub fn declared(registry: &Registry) -> BTreeMap<String, Connection> {
    let capabilities: Vec<(&str, &cowork_core::manifest::Credential)> = registry
        .apps
        .iter()
        .filter(|a| a.enabled && a.owns_name && a.manifest.kind == Kind::Capability)
        .filter_map(|a| Some((a.manifest.name.as_str(), a.manifest.credential.as_ref()?)))
        .collect();
    let mut shared: BTreeMap<&str, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for (cap, credential) in &capabilities {
        let Some(oauth) = credential.oauth.as_ref().filter(|o| !o.own_client) else { continue };
        let (scopes, users) = shared.entry(oauth.provider.as_str()).or_default();
        for scope in &oauth.scopes {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
        users.push(cap.to_string());
    }
    let mut out: BTreeMap<String, Connection> = BTreeMap::new();
    for (cap, credential) in &capabilities {
        let cap = cap.to_string();
        let sign_in = credential.oauth.as_ref().map(|o| match o.own_client {
            true => SignIn {
                provider: o.provider.clone(),
                token_key: token_key(&cap),
                scopes: o.scopes.clone(),
                own_client: true,
            },
            false => SignIn {
                provider: o.provider.clone(),
                token_key: token_key(&o.provider),
                scopes: shared[o.provider.as_str()].0.clone(),
                own_client: false,
            },
        });
        if let Some(k) = &credential.key {
            let key = Key {
                capability: cap.clone(),
                fields: k.fields.clone(),
                url: k.url.clone(),
                hint: k.hint.clone(),
            };
            out.insert(
                cap.clone(),
                Connection { name: cap.clone(), sign_in, key: Some(key), used_by: vec![cap] },
            );
        } else if let Some(sign_in) = sign_in {
            let name = if sign_in.own_client { cap } else { sign_in.provider.clone() };
            let used_by = if sign_in.own_client {
                vec![name.clone()]
            } else {
                shared[sign_in.provider.as_str()].1.clone()
            };
            out.insert(
                name.clone(),
                Connection { name, sign_in: Some(sign_in), key: None, used_by },
            );
        }
    }
    out
}

/// The connection a capability's routines use: its own (key or both) or its provider's sign-in —
/// only ever one that names it in `used_by`, so a capability never reaches a connection that
/// merely has its name.
pub fn of_capability(registry: &Registry, capability: &str) -> Option<Connection> {
    let all = declared(registry);
    let uses = |c: &Connection| c.used_by.iter().any(|u| u == capability);
    if let Some(own) = all.get(capability).filter(|c| uses(c)) {
        return Some(own.clone());
    }
    all.into_values().find(|c| c.sign_in.is_some() && uses(c))
}

/// What a widget or `cowork credential list` sees: never a key or a token.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// The connection's name.
    pub name: String,
    /// `oauth`, `key` or `both`.
    pub kind: ConnectionKind,
    /// `connected`, `needs-scopes` or `not-connected`.
    pub state: ConnectionState,
    /// The signed-in account as the provider gave it (`{ email }`), when signed in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account: Option<serde_json::Value>,
    /// The scopes its capabilities need that the sign-in does not hold.
    pub missing_scopes: Vec<String>,
    /// The capabilities that use it.
    pub used_by: Vec<String>,
    /// A key's fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<String>>,
    /// Where to get the key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// One line on how.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// Whether every field of the connection's key is stored.
pub fn key_connected(store: &SecretStore, connection: &Connection) -> bool {
    connection.key.is_some()
        && connection
            .field_names()
            .iter()
            .all(|(_, secret)| store.get(secret).ok().flatten().is_some())
}

/// Whether each switched-on capability that declares a connection has it connected — what makes
/// its routines unavailable to agents whatever is granted (page 01). A capability that declares
/// none is absent (nothing to connect). No store (`None`: it could not be opened) connects
/// nothing: fail closed.
pub fn connected(store: Option<&SecretStore>, registry: &Registry) -> BTreeMap<String, bool> {
    let mut out = BTreeMap::new();
    for connection in declared(registry).values() {
        let state = store.map(|s| status(s, connection).state);
        for capability in &connection.used_by {
            out.insert(capability.clone(), state == Some(ConnectionState::Connected));
        }
    }
    out
}

/// The state of one connection.
pub fn status(store: &SecretStore, connection: &Connection) -> Status {
    let mut state = ConnectionState::NotConnected;
    let mut account = None;
    let mut missing = Vec::new();
    if let Some(sign_in) = &connection.sign_in {
        let signed_in = signin::status(store, sign_in);
        account = signed_in.account.map(|a| serde_json::json!(a));
        match signed_in.state {
            cowork_oauth::State::Connected => state = ConnectionState::Connected,
            cowork_oauth::State::NeedsScopes { missing: needed } => {
                (state, missing) = (ConnectionState::NeedsScopes, needed)
            }
            cowork_oauth::State::NotConnected => {}
        }
    }
    if state != ConnectionState::Connected && key_connected(store, connection) {
        state = ConnectionState::Connected;
        missing.clear();
    }
    let key = connection.key.as_ref();
    Status {
        name: connection.name.clone(),
        kind: connection.kind(),
        state,
        account,
        missing_scopes: missing,
        used_by: connection.used_by.clone(),
        fields: key.map(|k| k.fields.clone()),
        url: key.and_then(|k| k.url.clone()),
        hint: key.and_then(|k| k.hint.clone()),
    }
}

/// Why a connection cannot be made or read, for the CLI and the daemon.
#[derive(Debug, thiserror::Error)]
pub enum CredentialError {
    /// No connection by that name in the workspace.
    #[error("no connection \"{0}\" in this workspace: connections are declared by capabilities (\"credential\" in their cowork.json)")]
    Unknown(String),
    /// Key fields that are not the ones the connection declares.
    #[error("\"{name}\" takes the fields {expected}; {problem}")]
    Fields {
        /// The connection, by name.
        name: String,
        /// The fields it takes.
        expected: String,
        /// What was wrong with those given.
        problem: String,
    },
    /// Fields given for a connection that only signs in.
    #[error("\"{0}\" is a sign-in, not a key: connect it without fields")]
    NotAKey(String),
    /// The secret store failed.
    #[error(transparent)]
    Store(#[from] cowork_secrets::SecretError),
}

/// Saves a key's fields (every declared field, nothing else).
pub fn connect_key(
    store: &SecretStore,
    connection: &Connection,
    fields: &BTreeMap<String, String>,
) -> Result<(), CredentialError> {
    let Some(key) = &connection.key else {
        return Err(CredentialError::NotAKey(connection.name.clone()));
    };
    let expected = key.fields.join(", ");
    let fields_error = |problem: String| CredentialError::Fields {
        name: connection.name.clone(),
        expected: expected.clone(),
        problem,
    };
    if let Some(extra) = fields.keys().find(|f| !key.fields.contains(f)) {
        return Err(fields_error(format!("\"{extra}\" is not one of them")));
    }
    if let Some(missing) = key.fields.iter().find(|f| fields.get(*f).is_none_or(|v| v.is_empty())) {
        return Err(fields_error(format!("\"{missing}\" is missing")));
    }
    for (field, secret) in connection.field_names() {
        store.set(&secret, &fields[&field])?;
    }
    Ok(())
}

/// Forgets a connection's key fields and its sign-in tokens (the sign-in is revoked by the caller).
pub fn forget(store: &SecretStore, connection: &Connection) -> Result<bool, CredentialError> {
    let mut removed = false;
    for (_, secret) in connection.field_names() {
        removed |= store.delete(&secret)?;
    }
    if let Some(sign_in) = &connection.sign_in {
        removed |= store.delete_reserved(&sign_in.token_key)?;
    }
    Ok(removed)
}

/// What connecting did: where the connection stands now, and — for a sign-in — the address the
/// browser opens (the sign-in then finishes on its own).
#[derive(Debug, Clone)]
pub struct Connected {
    /// Where the connection stands now.
    pub status: Status,
    /// For a sign-in: the address the browser opens.
    pub auth_url: Option<String>,
}

/// Why a connection was not connected. `E` is the caller's own refusal to start a sign-in.
#[derive(Debug)]
pub enum ConnectError<E> {
    /// The fields are not the key's, or the connection is no key.
    Fields(CredentialError),
    /// The caller may not start a sign-in from where it was asked (`may_sign_in` said no).
    NotHere(E),
    /// The sign-in could not start (its provider, its configuration).
    SignIn(CtxError),
}

/// Connects `connection` in `store`: saves its key's `fields`, or — with none — starts a sign-in
/// through `oauth`, once `may_sign_in` agrees (a sign-in opens a browser on this computer and
/// comes back to it). The one way the daemon's route and a pane's `cowork.credentials.connect`
/// connect.
pub async fn connect<E>(
    oauth: &OAuth,
    store: Arc<SecretStore>,
    connection: &Connection,
    fields: Option<BTreeMap<String, String>>,
    may_sign_in: impl FnOnce() -> Result<(), E>,
) -> Result<Connected, ConnectError<E>> {
    let auth_url = match fields {
        Some(fields) => {
            connect_key(&store, connection, &fields).map_err(ConnectError::Fields)?;
            None
        }
        None => {
            may_sign_in().map_err(ConnectError::NotHere)?;
            let pending = start_sign_in(oauth, store.clone(), connection)
                .await
                .map_err(ConnectError::SignIn)?;
            Some(pending.auth_url)
        }
    };
    Ok(Connected { status: status(&store, connection), auth_url })
}

/// Starts the sign-in of `connection` (the union of its scopes).
pub async fn start_sign_in(
    oauth: &OAuth,
    store: Arc<SecretStore>,
    connection: &Connection,
) -> Result<PendingSignIn, CtxError> {
    let Some(sign_in) = &connection.sign_in else {
        return Err(CtxError::new(
            ErrorName::BadRequest,
            format!("{} is a key, not a sign-in: the person pastes it", connection.name),
        ));
    };
    oauth.start(store, sign_in, &connection.name).await
}

/// Revokes the connection's sign-in at the provider (best effort) and forgets it and any key
/// fields.
pub async fn disconnect(
    oauth: &OAuth,
    store: &SecretStore,
    connection: &Connection,
) -> Result<(), CtxError> {
    if let Some(sign_in) = &connection.sign_in {
        oauth.revoke(store, sign_in, &connection.name).await?;
    }
    forget(store, connection)
        .map(|_| ())
        .map_err(|e| CtxError::new(ErrorName::Unavailable, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cowork_core::paths::Root;

    /// A workspace whose capabilities declare these credentials (name → `credential` JSON).
    fn registry(capabilities: &[(&str, &str)]) -> (tempfile::TempDir, Registry) {
        let ws = tempfile::tempdir().unwrap();
        for (name, credential) in capabilities {
            let dir = ws.path().join(".cowork/apps").join(name);
            std::fs::create_dir_all(&dir).unwrap();
            let manifest = format!(
                r#"{{"name": "{name}", "version": "1.0.0", "kind": "capability", "credential": {credential}}}"#
            );
            std::fs::write(dir.join("cowork.json"), manifest).unwrap();
        }
        let registry = cowork_core::registry::load(ws.path());
        assert!(
            registry.problems.is_empty() && registry.apps.iter().all(|a| a.problems.is_empty()),
            "{:?}",
            registry.apps.iter().map(|a| &a.problems).collect::<Vec<_>>()
        );
        (ws, registry)
    }

    const MAIL_BOTH: &str = r#"{"oauth": {"provider": "google", "scopes": ["mail.read"]}, "key": {"fields": ["token"]}}"#;

    #[test]
    fn a_capability_taking_a_sign_in_or_a_key_is_one_row() {
        let (_ws, registry) = registry(&[("mail", MAIL_BOTH)]);
        let all = declared(&registry);
        assert_eq!(all.keys().collect::<Vec<_>>(), ["mail"]);
        assert_eq!(all["mail"].kind(), ConnectionKind::Both);
        assert_eq!(all["mail"].sign_in.as_ref().unwrap().token_key, "cowork.oauth.google");
    }

    #[test]
    fn every_shared_sign_in_asks_for_the_union_of_its_capabilities_scopes() {
        let (_ws, registry) = registry(&[
            ("mail", MAIL_BOTH),
            ("gcal", r#"{"oauth": {"provider": "google", "scopes": ["calendar.read"]}}"#),
            ("own", r#"{"oauth": {"provider": "google", "scopes": ["drive"], "ownClient": true}}"#),
        ]);
        let all = declared(&registry);
        assert_eq!(all.keys().collect::<Vec<_>>(), ["google", "mail", "own"]);
        let union = ["calendar.read", "mail.read"];
        let mut google = all["google"].sign_in.as_ref().unwrap().scopes.clone();
        google.sort();
        assert_eq!(google, union);
        let mut mail = all["mail"].sign_in.as_ref().unwrap().scopes.clone();
        mail.sort();
        assert_eq!(
            mail, union,
            "starting the shared sign-in from the `both` row asks for everything it holds"
        );
        assert_eq!(
            all["google"].used_by,
            ["gcal", "mail"],
            "disconnecting google reaches mail's sign-in too"
        );
        assert_eq!(
            all["own"].sign_in.as_ref().unwrap().scopes,
            ["drive"],
            "an own client is the capability's alone"
        );
        assert_eq!(all["own"].sign_in.as_ref().unwrap().token_key, "cowork.oauth.own");
    }

    #[test]
    fn a_key_capability_named_after_a_provider_never_takes_over_its_sign_in() {
        for folder in ["agoogle", "zgoogle"] {
            let ws = tempfile::tempdir().unwrap();
            let write = |folder: &str, manifest: &str| {
                let dir = ws.path().join(".cowork/apps").join(folder);
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join("cowork.json"), manifest).unwrap();
            };
            write(
                folder,
                r#"{"name": "google", "version": "1.0.0", "kind": "capability", "credential": {"key": {"fields": ["token"]}}}"#,
            );
            write(
                "beta",
                r#"{"name": "beta", "version": "1.0.0", "kind": "capability", "credential": {"oauth": {"provider": "google", "scopes": ["mail.read"]}}}"#,
            );
            let registry = cowork_core::registry::load(ws.path());
            let all = declared(&registry);
            assert_eq!(
                all.keys().collect::<Vec<_>>(),
                ["google"],
                "{folder}: one connection named google"
            );
            assert_eq!(
                (all["google"].kind(), &all["google"].used_by),
                (ConnectionKind::Oauth, &vec!["beta".to_string()]),
                "{folder}: the shared sign-in keeps its name"
            );
            assert_eq!(
                of_capability(&registry, "beta").map(|c| c.name).as_deref(),
                Some("google"),
                "{folder}"
            );
            assert_eq!(
                of_capability(&registry, "google"),
                None,
                "{folder}: the key-only capability gets no one's sign-in"
            );
        }
    }

    #[test]
    fn an_expired_sign_in_without_a_refresh_token_is_not_connected() {
        let home = tempfile::tempdir().unwrap();
        let root = Root::new(home.path());
        cowork_secrets::init_key_file(&root).unwrap();
        let store = SecretStore::open(&root, "local").unwrap();
        let (_ws, registry) = registry(&[(
            "gcal",
            r#"{"oauth": {"provider": "google", "scopes": ["calendar.read"]}}"#,
        )]);
        let google = declared(&registry).remove("google").unwrap();
        let tokens = |expires_at: u64, refresh: Option<&str>| {
            serde_json::json!({"accessToken": "at-1234", "refreshToken": refresh, "expiresAt": expires_at, "scopes": ["calendar.read"], "account": {"email": "ana@example.com"}}).to_string()
        };
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();

        store.set_reserved("cowork.oauth.google", &tokens(now - 60, None)).unwrap();
        let expired = status(&store, &google);
        assert_eq!((expired.state, expired.account), (ConnectionState::NotConnected, None));
        store.set_reserved("cowork.oauth.google", &tokens(now - 60, Some("rt-5678"))).unwrap();
        assert_eq!(
            status(&store, &google).state,
            ConnectionState::Connected,
            "a refresh token makes it usable"
        );
        store.set_reserved("cowork.oauth.google", &tokens(now + 3600, None)).unwrap();
        let fresh = status(&store, &google);
        assert_eq!(
            (fresh.state, fresh.account),
            (ConnectionState::Connected, Some(serde_json::json!({"email": "ana@example.com"})))
        );
    }
}
