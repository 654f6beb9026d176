//! What a sign-in leaves in the [`TokenStore`], and what [`status`] reads from it.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::{OAuthError, StoreError, TokenStore};

/// An access token is refreshed once it has less than this left, so a request that starts with
/// it does not fail half-way.
pub(crate) const REFRESH_MARGIN_SECONDS: u64 = 60;

/// The signed-in account, for display only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    /// The account's email address.
    pub email: String,
}

/// The stored JSON, one per store key:
/// `{"accessToken", "refreshToken"?, "expiresAt" (Unix seconds), "scopes": [granted],
/// "account"?: {"email"}}`.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Tokens {
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    pub expires_at: u64,
    pub scopes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<Account>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("access_token", &"…")
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "…"))
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .field("account", &self.account)
            .finish()
    }
}

impl Tokens {
    pub fn load(store: &dyn TokenStore, key: &str) -> Result<Option<Self>, OAuthError> {
        let failed =
            |source: StoreError| OAuthError::Store { action: "read", key: key.into(), source };
        match store.load(key).map_err(failed)? {
            None => Ok(None),
            Some(json) => serde_json::from_str(&json).map(Some).map_err(|error| {
                // Only where it broke: serde's own message may quote a value, and it could be
                // a token.
                failed(StoreError::from(format!(
                    "not a stored sign-in ({:?} error at line {}, column {})",
                    error.classify(),
                    error.line(),
                    error.column()
                )))
            }),
        }
    }

    pub fn save(&self, store: &dyn TokenStore, key: &str) -> Result<(), OAuthError> {
        let json = serde_json::to_string(self).expect("strings and numbers always serialize");
        store.save(key, &json).map_err(|source| OAuthError::Store {
            action: "save",
            key: key.into(),
            source,
        })
    }

    pub fn remove(store: &dyn TokenStore, key: &str) -> Result<(), OAuthError> {
        store.remove(key).map_err(|source| OAuthError::Store {
            action: "remove",
            key: key.into(),
            source,
        })
    }

    /// More than [`REFRESH_MARGIN_SECONDS`] left.
    pub fn is_fresh(&self) -> bool {
        self.expires_at > now() + REFRESH_MARGIN_SECONDS
    }

    /// Usable now or after a refresh.
    fn is_usable(&self) -> bool {
        self.refresh_token.is_some() || self.expires_at > now()
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("the clock is after 1970").as_secs()
}

/// Where a connection stands for what one capability needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "state")]
pub enum State {
    /// Signed in with every scope asked about.
    Connected,
    /// Signed in, but without these scopes: connecting again asks for them.
    NeedsScopes {
        /// The scopes asked about that were not granted, in the order asked.
        missing: Vec<String>,
    },
    /// No usable sign-in.
    NotConnected,
}

/// What [`status`] answers: never a token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Status {
    /// Connected, or what is missing.
    #[serde(flatten)]
    pub state: State,
    /// Who is signed in, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account: Option<Account>,
}

/// Where the connection stored under `key` stands for a capability that needs `needed_scopes`.
///
/// Reads the store only. An access token past its expiry with no refresh token counts as not
/// connected: nothing could use it.
pub fn status(
    store: &dyn TokenStore,
    key: &str,
    needed_scopes: &[String],
) -> Result<Status, OAuthError> {
    let Some(tokens) = Tokens::load(store, key)?.filter(Tokens::is_usable) else {
        return Ok(Status { state: State::NotConnected, account: None });
    };
    let missing: Vec<String> =
        needed_scopes.iter().filter(|scope| !tokens.scopes.contains(scope)).cloned().collect();
    Ok(Status {
        state: if missing.is_empty() { State::Connected } else { State::NeedsScopes { missing } },
        account: tokens.account,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;

    fn stored(refresh_token: Option<&str>, expires_at: u64) -> Tokens {
        Tokens {
            access_token: "at-secret".into(),
            refresh_token: refresh_token.map(Into::into),
            expires_at,
            scopes: vec!["openid".into(), "calendar.read".into()],
            account: Some(Account { email: "ada@example.com".into() }),
        }
    }

    #[test]
    fn status_compares_granted_scopes_with_needed_ones() {
        let store = MemoryStore::default();
        let needs = |scopes: &[&str]| {
            let scopes: Vec<String> = scopes.iter().map(|s| (*s).to_owned()).collect();
            status(&store, "k", &scopes).unwrap()
        };
        assert_eq!(needs(&["calendar.read"]).state, State::NotConnected);
        stored(Some("rt"), now() + 3600).save(&store, "k").unwrap();
        let connected = needs(&["calendar.read"]);
        assert_eq!(connected.state, State::Connected);
        assert_eq!(connected.account.unwrap().email, "ada@example.com");
        assert_eq!(
            needs(&["mail.send", "calendar.read", "mail.read"]).state,
            State::NeedsScopes { missing: vec!["mail.send".into(), "mail.read".into()] }
        );
    }

    #[test]
    fn an_expired_token_without_refresh_token_is_not_connected() {
        let store = MemoryStore::default();
        stored(None, now() - 1).save(&store, "k").unwrap();
        assert_eq!(status(&store, "k", &[]).unwrap().state, State::NotConnected);
        stored(Some("rt"), now() - 1).save(&store, "k").unwrap();
        assert_eq!(status(&store, "k", &[]).unwrap().state, State::Connected);
    }

    #[test]
    fn stored_json_has_the_documented_shape_and_debug_hides_tokens() {
        let tokens = stored(Some("rt-secret"), 1_700_000_000);
        let json: serde_json::Value = serde_json::to_value(&tokens).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "accessToken": "at-secret", "refreshToken": "rt-secret", "expiresAt": 1_700_000_000,
                "scopes": ["openid", "calendar.read"], "account": {"email": "ada@example.com"}
            })
        );
        let debug = format!("{tokens:?}");
        assert!(!debug.contains("secret"), "{debug}");
    }

    #[test]
    fn status_serializes_for_the_sdk() {
        let status = Status {
            state: State::NeedsScopes { missing: vec!["mail.send".into()] },
            account: None,
        };
        assert_eq!(
            serde_json::to_value(status).unwrap(),
            serde_json::json!({"state": "needs-scopes", "missing": ["mail.send"]})
        );
    }

    #[test]
    fn a_broken_entry_is_a_store_error_that_quotes_no_token() {
        let store = MemoryStore::default();
        store.save("k", r#"{"accessToken": "at", "expiresAt": "rt-secret"}"#).unwrap();
        let error = Tokens::load(&store, "k").unwrap_err().to_string();
        assert!(error.starts_with("failed to read the stored sign-in `k`"), "{error}");
        assert!(!error.contains("at-secret"), "{error}");
    }

    /// A store that cannot write, failing the way a locked keychain does.
    struct Locked;

    impl TokenStore for Locked {
        fn load(&self, _: &str) -> Result<Option<String>, StoreError> {
            Ok(None)
        }
        fn save(&self, _: &str, _: &str) -> Result<(), StoreError> {
            Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "the keychain is locked")
                .into())
        }
        fn remove(&self, _: &str) -> Result<(), StoreError> {
            Ok(())
        }
    }

    #[test]
    fn a_failing_store_keeps_its_own_error_in_the_chain() {
        let error = stored(None, now() + 3600).save(&Locked, "k").unwrap_err();
        assert_eq!(
            error.to_string(),
            "failed to save the stored sign-in `k`: the keychain is locked"
        );
        let cause = std::error::Error::source(&error).expect("the store's error is the cause");
        let io = cause.downcast_ref::<std::io::Error>().expect("kept whole, not flattened");
        assert_eq!(io.kind(), std::io::ErrorKind::PermissionDenied);
    }
}
