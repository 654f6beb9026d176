//! The asynchronous half of `ctx.credential`: what `fetch` sends, `token()`, `start()` and
//! `disconnect()` — for a key (which sends nothing by itself) and for a sign-in (a bearer, checked
//! against the provider's API hosts, refreshed when expired or after a 401).

use crate::credentials::{self, Connection};
use crate::run::{not_connected, unavailable, Answer, Masks};
use cowork_secrets::SecretStore;
use serde_json::{json, Value};

/// The OAuth engine's settings (`<root>/oauth.json` overrides the provider presets).
#[derive(Default)]
pub struct OAuthConfig;

/// Answers one asynchronous credential request of a capability's routine.
pub(crate) async fn answer(_oauth: &OAuthConfig, store: &SecretStore, connection: &Connection, op: &str, _args: &Value, masks: &Masks) -> Answer {
    let signed_in = connection.sign_in.as_ref().is_some_and(|s| credentials::stored_sign_in(store, s).is_some());
    if connection.sign_in.is_some() && (signed_in || connection.key.is_none()) {
        return Err(("Unavailable".into(), format!("{}: sign-ins are not part of this build yet", connection.name), None));
    }
    match op {
        // A key sends nothing by itself: the routine puts its header in init.headers from fields().
        "credential.authorize" => Ok(json!({})),
        "credential.token" => {
            let (_, secret) = connection.field_names().into_iter().next().ok_or_else(|| not_connected(connection))?;
            let value = store.get(&secret).map_err(unavailable)?.ok_or_else(|| not_connected(connection))?;
            masks.add(&value);
            Ok(Value::String(value.to_string()))
        }
        "credential.start" => Err(("BadRequest".into(), format!("{} is a key, not a sign-in: the person pastes it (cowork.credentials.connect with fields)", connection.name), None)),
        "credential.disconnect" => credentials::forget(store, connection).map(|_| Value::Null).map_err(|e| ("Unavailable".into(), e.to_string(), None)),
        other => Err(("BadRequest".into(), format!("unknown ctx request \"{other}\""), None)),
    }
}
