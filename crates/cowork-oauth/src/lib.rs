//! OAuth sign-in for capabilities: a person signs in once per provider, and routines get fresh
//! access tokens without ever seeing a refresh token.
//!
//! A capability's cowork.json declares `"credential": {"oauth": {"provider": "google", "scopes":
//! […]}}`. Every capability naming a provider shares ONE sign-in, stored under
//! `cowork.oauth.<provider>` ([`store_key`]) and asking for the union of their scopes; one with
//! `"ownClient": true` signs in through its own client (from `oauth.json`'s `ownClients`) under
//! `cowork.oauth.<capability>`. This crate runs those sign-ins against the `google` and
//! `microsoft` presets, or any provider `<root>/oauth.json` points them at ([`Config`]).
//!
//! The flow:
//! 1. [`Connections::start`] opens a listener on `127.0.0.1:<ephemeral port>` and returns the
//!    provider's authorization URL (code flow, PKCE S256, a random `state`).
//! 2. The person signs in and consents in their browser; the provider redirects to
//!    `http://127.0.0.1:<port>/oauth/callback`.
//! 3. The listener checks `state`, exchanges the code with the PKCE verifier, stores
//!    `{accessToken, refreshToken?, expiresAt, scopes, account?}` through the caller's
//!    [`TokenStore`], shows "You can close this tab", and [`PendingSignIn::wait`] returns.
//! 4. [`Connections::access_token`] hands out the access token, refreshing it (one refresh per
//!    key at a time, rotated refresh tokens saved) near expiry or after a 401;
//!    [`status`] says whether a capability's scopes are granted; [`Connections::disconnect`]
//!    revokes and forgets.
//!
//! Security properties:
//! * **PKCE** (RFC 7636, S256) with an 86-character verifier from a CSPRNG: an intercepted code
//!   is useless without it.
//! * **`state`**: 256 random bits; a callback without it is refused with an error page and the
//!   listener keeps waiting for the real one. An RFC 9207 `iss` naming another issuer is refused.
//! * **Loopback only** (RFC 8252 §7.3, §8.3): the listener binds `127.0.0.1` (never `0.0.0.0`,
//!   never `localhost`) on a port the OS picks, answers only the exact path `/oauth/callback`,
//!   accepts one deciding callback, and closes after it or after 10 minutes.
//! * **Tokens only through the [`TokenStore`]**: nothing is written to disk by this crate, no
//!   public type carries a token except the string [`Connections::access_token`] returns,
//!   `Debug` output redacts tokens and secrets, and the crate never logs. Endpoints must be
//!   https (http only on loopback, for a local test provider).
//! * The account email shown to the person comes from the id token's payload, decoded WITHOUT
//!   checking its signature: it is for display only, and the token came straight from the
//!   token endpoint over TLS.
//!
//! ```
//! use cowork_oauth::{status, store_key, Config, MemoryStore, State};
//!
//! // `<root>/oauth.json` may point a preset anywhere (here a local test provider).
//! let config = Config::from_value(
//!     serde_json::json!({"providers": {"google": {
//!         "authorizationEndpoint": "http://127.0.0.1:4000/auth",
//!         "tokenEndpoint": "http://127.0.0.1:4000/token",
//!         "clientId": "cowork-test"
//!     }}}),
//!     "oauth.json",
//! )?;
//! let google = config.provider("google")?;
//! assert!(google.is_api_host("https://www.googleapis.com/calendar/v3/calendars"));
//! assert!(!google.is_api_host("https://example.com/"));
//!
//! let store = MemoryStore::default(); // a real caller passes its secret store
//! let needed = ["https://www.googleapis.com/auth/calendar.readonly".to_owned()];
//! let now = status(&store, &store_key("google"), &needed)?;
//! assert_eq!(now.state, State::NotConnected);
//! # Ok::<(), cowork_oauth::OAuthError>(())
//! ```

mod config;
mod connections;
mod endpoint;
mod error;
mod key_locks;
#[cfg(any(test, feature = "test-support"))]
mod memory_store;
mod sign_in;
mod tokens;

pub use config::{
    Config, Provider, GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET, MICROSOFT_CLIENT_ID, PRESETS,
};
pub use connections::{Connections, Revocation, SIGN_IN_TIMEOUT};
pub use error::OAuthError;
#[cfg(any(test, feature = "test-support"))]
pub use memory_store::MemoryStore;
pub use sign_in::{Connection, PendingSignIn, CALLBACK_PATH};
pub use tokens::{status, Account, State, Status};

/// What a [`TokenStore`] failed with: the store's own error, kept whole (not flattened to its
/// message) so that its causes stay in the chain [`OAuthError::Store`] carries.
pub type StoreError = Box<dyn std::error::Error + Send + Sync>;

/// Where a connection's tokens live: the caller's secret store, behind this trait, so this crate
/// never depends on (or bypasses) it. Each value is the JSON documented in the crate root;
/// errors are the store's own.
pub trait TokenStore: Send + Sync {
    /// The JSON saved under `key`, or `None`.
    fn load(&self, key: &str) -> Result<Option<String>, StoreError>;
    /// Replaces what is saved under `key`.
    fn save(&self, key: &str, json: &str) -> Result<(), StoreError>;
    /// Forgets `key`; removing a missing key is not an error.
    fn remove(&self, key: &str) -> Result<(), StoreError>;
}

/// The store key of a connection: `cowork.oauth.<connection>`, the connection being a provider
/// (`google`) or, for `ownClient`, a capability.
pub fn store_key(connection: &str) -> String {
    format!("cowork.oauth.{connection}")
}
