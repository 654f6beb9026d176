//! Connections: what capabilities declare in `credential`, and whether the person connected them.
//!
//! A key is named after its capability and stored field by field as `<capability>.<field>` in the
//! secret store (so the capability's own grant reaches it). A sign-in is named after its provider
//! (`google`), shared by every capability of that provider, and asks for the union of their scopes;
//! `ownClient` makes it the capability's own. A capability declaring both is one connection named
//! after it, of kind `both`. The connection's key or token never leaves the daemon except to the
//! capability's own routine.

use cowork_core::manifest::Kind;
use cowork_core::registry::Registry;
use cowork_secrets::SecretStore;
use serde::Serialize;
use std::collections::BTreeMap;

/// The secret name a sign-in's tokens live under (Cowork's own, reserved prefix).
pub fn token_key(connection: &str) -> String {
    format!("cowork.oauth.{connection}")
}

/// A sign-in part of a connection.
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

/// A key part of a connection.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Key {
    pub capability: String,
    pub fields: Vec<String>,
    pub url: Option<String>,
    pub hint: Option<String>,
}

/// One connection the workspace's capabilities declare.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Connection {
    pub name: String,
    pub sign_in: Option<SignIn>,
    pub key: Option<Key>,
    /// The capabilities that use it.
    pub used_by: Vec<String>,
}

impl Connection {
    /// `oauth`, `key` or `both`.
    pub fn kind(&self) -> &'static str {
        match (&self.sign_in, &self.key) {
            (Some(_), Some(_)) => "both",
            (Some(_), None) => "oauth",
            _ => "key",
        }
    }

    /// The secret names of the key's fields.
    pub fn field_names(&self) -> Vec<(String, String)> {
        self.key.iter().flat_map(|k| k.fields.iter().map(move |f| (f.clone(), format!("{}.{f}", k.capability)))).collect()
    }
}

/// Every connection declared by the switched-on capabilities, by name.
pub fn declared(registry: &Registry) -> BTreeMap<String, Connection> {
    let mut out: BTreeMap<String, Connection> = BTreeMap::new();
    for app in registry.apps.iter().filter(|a| a.enabled && a.owns_name && a.manifest.kind == Kind::Capability) {
        let Some(credential) = &app.manifest.credential else { continue };
        let cap = app.manifest.name.clone();
        let sign_in = credential.oauth.as_ref().map(|o| {
            let owner = if o.own_client { cap.clone() } else { o.provider.clone() };
            SignIn { provider: o.provider.clone(), token_key: token_key(&owner), scopes: o.scopes.clone(), own_client: o.own_client }
        });
        if let Some(k) = &credential.key {
            let key = Key { capability: cap.clone(), fields: k.fields.clone(), url: k.url.clone(), hint: k.hint.clone() };
            out.insert(cap.clone(), Connection { name: cap.clone(), sign_in: sign_in.clone(), key: Some(key), used_by: vec![cap.clone()] });
        }
        if let Some(sign_in) = sign_in {
            // The shared sign-in gathers every capability's scopes; an own client is the capability's.
            let name = if sign_in.own_client { cap.clone() } else { sign_in.provider.clone() };
            let entry = out.entry(name.clone()).or_insert_with(|| Connection { name, sign_in: Some(SignIn { scopes: Vec::new(), ..sign_in.clone() }), key: None, used_by: Vec::new() });
            if let Some(shared) = entry.sign_in.as_mut() {
                for scope in &sign_in.scopes {
                    if !shared.scopes.contains(scope) {
                        shared.scopes.push(scope.clone());
                    }
                }
            }
            if !entry.used_by.contains(&cap) {
                entry.used_by.push(cap.clone());
            }
        }
    }
    out
}

/// The connection a capability's routines use: its own (key or both) or its provider's sign-in.
pub fn of_capability(registry: &Registry, capability: &str) -> Option<Connection> {
    let all = declared(registry);
    if let Some(own) = all.get(capability) {
        return Some(own.clone());
    }
    all.into_values().find(|c| c.sign_in.is_some() && c.used_by.iter().any(|u| u == capability))
}

/// What a widget or `cowork credential list` sees: never a key or a token.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub name: String,
    pub kind: &'static str,
    /// `connected`, `needs-scopes` or `not-connected`.
    pub state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account: Option<serde_json::Value>,
    pub missing_scopes: Vec<String>,
    pub used_by: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// Whether every field of the connection's key is stored.
pub fn key_connected(store: &SecretStore, connection: &Connection) -> bool {
    connection.key.is_some() && connection.field_names().iter().all(|(_, secret)| store.get(secret).ok().flatten().is_some())
}

/// The sign-in's stored tokens, as the OAuth engine keeps them (JSON), if any.
pub fn stored_sign_in(store: &SecretStore, sign_in: &SignIn) -> Option<serde_json::Value> {
    let text = store.get(&sign_in.token_key).ok().flatten()?;
    serde_json::from_str(&text).ok()
}

/// The state of one connection.
pub fn status(store: &SecretStore, connection: &Connection) -> Status {
    let mut state = "not-connected";
    let mut account = None;
    let mut missing = Vec::new();
    if let Some(sign_in) = &connection.sign_in {
        if let Some(tokens) = stored_sign_in(store, sign_in) {
            let granted: Vec<&str> = tokens["scopes"].as_array().into_iter().flatten().filter_map(|s| s.as_str()).collect();
            missing = sign_in.scopes.iter().filter(|s| !granted.contains(&s.as_str())).cloned().collect();
            state = if missing.is_empty() { "connected" } else { "needs-scopes" };
            account = tokens.get("account").cloned().filter(|a| !a.is_null());
        }
    }
    if state != "connected" && key_connected(store, connection) {
        state = "connected";
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
    #[error("no connection \"{0}\" in this workspace: connections are declared by capabilities (\"credential\" in their cowork.json)")]
    Unknown(String),
    #[error("\"{name}\" takes the fields {expected}; {problem}")]
    Fields { name: String, expected: String, problem: String },
    #[error("\"{0}\" is a sign-in, not a key: connect it without fields")]
    NotAKey(String),
    #[error(transparent)]
    Store(#[from] cowork_secrets::SecretError),
}

/// Saves a key's fields (every declared field, nothing else).
pub fn connect_key(store: &SecretStore, connection: &Connection, fields: &BTreeMap<String, String>) -> Result<(), CredentialError> {
    let Some(key) = &connection.key else { return Err(CredentialError::NotAKey(connection.name.clone())) };
    let expected = key.fields.join(", ");
    let fields_error = |problem: String| CredentialError::Fields { name: connection.name.clone(), expected: expected.clone(), problem };
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
