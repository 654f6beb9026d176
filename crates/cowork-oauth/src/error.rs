//! The one error type of the crate.

use cowork_core::error_name::ErrorName;
use std::time::Duration;

/// Why a sign-in, a token or a disconnect failed.
///
/// The first five variants are the names routines see (`e.name`, see [`OAuthError::name`]); each
/// message says what the person can do about it. No message ever holds a token: what a provider
/// says is quoted, what we send is not.
#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    /// No usable sign-in is stored for the connection: nobody connected it, it was disconnected,
    /// or the provider no longer accepts it (revoked, or a reused refresh token made it revoke the
    /// whole grant). The stored tokens, if any, were removed.
    #[error(
        "{connection} is not connected: {reason}. Connect it in Manage Workspace › Components › \
         Credentials, or run `cowork credential connect {connection}`"
    )]
    NotConnected {
        /// The connection's name: the provider (`google`) or, for `ownClient`, the capability.
        connection: String,
        /// Why, in a few words (`nobody has signed in yet`).
        reason: String,
    },

    /// The person said no on the provider's consent page (`error=access_denied`).
    #[error(
        "the sign-in to {connection} was declined on the provider's page; connect again and allow \
         access to use it"
    )]
    Denied {
        /// The connection's name.
        connection: String,
    },

    /// The browser never came back to the loopback listener in time.
    #[error(
        "the sign-in to {connection} was not finished within {}; start it again and finish it in \
         the browser",
        describe(*after)
    )]
    TimedOut {
        /// The connection's name.
        connection: String,
        /// How long the listener waited.
        after: Duration,
    },

    /// The provider answered with an OAuth error: from its token or revocation endpoint (with the
    /// HTTP status), or through the redirect back to us (`status` is `None`).
    #[error(
        "the provider refused the request: {error}{}{}",
        description.as_ref().map(|d| format!(" ({d})")).unwrap_or_default(),
        status.map(|s| format!(", HTTP {s}")).unwrap_or_default()
    )]
    ProviderError {
        /// The HTTP status of the provider's answer, when it came over HTTP.
        status: Option<u16>,
        /// The OAuth error code (`invalid_grant`, `invalid_client` …).
        error: String,
        /// The provider's `error_description`, when it gave one.
        description: Option<String>,
    },

    /// `oauth.json` (or the preset it completes) cannot be used as written.
    #[error("bad OAuth configuration in {location}: {message}")]
    BadConfig {
        /// The file (or `built-in presets`) and the key that is wrong.
        location: String,
        /// What is wrong and how to fix it.
        message: String,
    },

    /// An endpoint could not be reached, or answered something that is not OAuth.
    #[error("failed to reach {url}: {source}")]
    Unreachable {
        /// The endpoint (never carries a token: tokens travel in bodies and headers).
        url: String,
        /// What reqwest saw.
        #[source]
        source: reqwest::Error,
    },

    /// The caller's [`TokenStore`](crate::TokenStore) failed.
    #[error("failed to {action} the stored sign-in `{key}`: {source}")]
    Store {
        /// `read`, `save` or `remove`.
        action: &'static str,
        /// The store key.
        key: String,
        /// The store's own error, or why what it holds is not a stored sign-in.
        #[source]
        source: crate::StoreError,
    },

    /// The loopback listener for the provider's answer could not be opened, or stopped.
    #[error("failed to listen for the provider's answer on 127.0.0.1: {0}")]
    Listen(#[source] std::io::Error),
}

impl OAuthError {
    /// The name a routine's error carries (`e.name`): the variant's name, except that a token
    /// store or listener that failed is `Unavailable` (nothing the provider or the person did).
    pub fn name(&self) -> ErrorName {
        match self {
            Self::NotConnected { .. } => ErrorName::NotConnected,
            Self::Denied { .. } => ErrorName::Denied,
            Self::TimedOut { .. } => ErrorName::TimedOut,
            Self::ProviderError { .. } => ErrorName::ProviderError,
            Self::BadConfig { .. } => ErrorName::BadConfig,
            Self::Unreachable { .. } => ErrorName::Unreachable,
            Self::Store { .. } | Self::Listen(_) => ErrorName::Unavailable,
        }
    }
}

/// `10 minutes`, `1 minute`, `90 seconds`, `300 milliseconds`.
fn describe(duration: Duration) -> String {
    match duration.as_secs() {
        0 => format!("{} milliseconds", duration.as_millis()),
        1 => "1 second".to_owned(),
        60 => "1 minute".to_owned(),
        seconds if seconds % 60 == 0 => format!("{} minutes", seconds / 60),
        seconds => format!("{seconds} seconds"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_to_do() {
        let error = OAuthError::NotConnected {
            connection: "google".into(),
            reason: "nobody has signed in yet".into(),
        };
        assert_eq!(
            error.to_string(),
            "google is not connected: nobody has signed in yet. Connect it in Manage Workspace › \
             Components › Credentials, or run `cowork credential connect google`"
        );
        let error =
            OAuthError::TimedOut { connection: "google".into(), after: Duration::from_secs(600) };
        assert!(error.to_string().contains("within 10 minutes;"), "{error}");
        let error = OAuthError::ProviderError {
            status: Some(400),
            error: "invalid_grant".into(),
            description: Some("grant request is invalid".into()),
        };
        assert_eq!(
            error.to_string(),
            "the provider refused the request: invalid_grant (grant request is invalid), HTTP 400"
        );
        assert_eq!(error.name(), ErrorName::ProviderError);
    }

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(describe(Duration::from_secs(60)), "1 minute");
        assert_eq!(describe(Duration::from_secs(1)), "1 second");
        assert_eq!(describe(Duration::from_millis(300)), "300 milliseconds");
        assert_eq!(describe(Duration::from_secs(90)), "90 seconds");
    }
}
