//! Everything signing in, the session and the hub calls can fail with: each variant has a name a
//! program branches on ([`AccountError::name`]) and, where we know the fix, a hint.

use cowork_core::error_name::ErrorName;
use cowork_wire::hub::client::ClientError;
use cowork_wire::hub::{HubErrorName, OAuthErrorCode};
use std::path::PathBuf;

/// What went wrong with this machine's Cowork account.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// No hub was ever named on this machine (`--hub` names it once).
    #[error("no hub is named on this machine")]
    NoHub,
    /// The `--hub` address is not an http(s) address.
    #[error("failed to use {url:?} as the hub's address: it is not an http(s) address")]
    BadHubAddress {
        /// The address as given.
        url: String,
    },
    /// Nobody is signed in on this machine.
    #[error("this machine is not signed in to Cowork")]
    NotSignedIn,
    /// The session ended on the hub (signed out elsewhere, revoked, a reused refresh token, or
    /// too long unused): this machine is signed out now.
    #[error("the session of {email} ended on the hub ({name}): this machine is signed out now")]
    SessionEnded {
        /// The account whose session ended.
        email: String,
        /// The hub's error name for why.
        name: HubErrorName,
    },
    /// The hub answered with a refusal, or did not answer.
    #[error(transparent)]
    Hub(#[from] ClientError),
    /// The person said no in the browser, or on the device page.
    #[error("the sign-in was refused in the browser")]
    Denied,
    /// The sign-in was not finished in time.
    #[error("the sign-in was not finished within {minutes} minutes")]
    TimedOut {
        /// How long it waited.
        minutes: u64,
    },
    /// The pasted address is not where a sign-in of this terminal ends.
    #[error("failed to read a sign-in from the pasted address {address:?}: {problem}")]
    BadPaste {
        /// The address as pasted.
        address: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// The browser came back to the loopback port without the sign-in this terminal started.
    #[error("the browser came back with another sign-in's state: start `cowork login` again")]
    StateMismatch,
    /// The sign-in's loopback listener could not open.
    #[error("failed to listen on 127.0.0.1 for the browser's return")]
    Listen(#[source] std::io::Error),
    /// The secret store, which keeps the session's tokens, did not open or write.
    #[error("failed to keep the session in the secret store")]
    Secrets(#[from] cowork_secrets::SecretError),
    /// A file under the Cowork root is not the JSON it should be (cut short, edited by hand).
    #[error("{} is damaged: {problem}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What the JSON reader said.
        problem: String,
    },
    /// A file under the Cowork root could not be read or written.
    #[error("failed to {action} {}", path.display())]
    File {
        /// What was being done: `read`, `write` or `lock`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// A terminal read (the password, the pasted address) failed.
    #[error("failed to read {what} from the terminal")]
    Prompt {
        /// What was being read (`the address` …).
        what: &'static str,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
}

impl AccountError {
    /// The error's name, as `--json` lines and the workbench show it: the hub's own name for a
    /// refusal (`NotAdmin`, `InvalidCredentials` …), else this crate's — Cowork's own where the
    /// word is one of [`ErrorName`]'s, else passed through as [`ErrorName::Other`].
    pub fn name(&self) -> ErrorName {
        match self {
            AccountError::NoHub => ErrorName::Other("NoHub".into()),
            AccountError::BadHubAddress { .. } => ErrorName::BadRequest,
            AccountError::NotSignedIn => hub_error_name(HubErrorName::NotSignedIn),
            AccountError::SessionEnded { name, .. } => hub_error_name(*name),
            AccountError::Hub(error) => client_error_name(error),
            AccountError::Denied => ErrorName::Other("AccessDenied".into()),
            AccountError::TimedOut { .. } => ErrorName::TimedOut,
            AccountError::BadPaste { .. } | AccountError::StateMismatch => ErrorName::BadRequest,
            AccountError::Listen(_) => ErrorName::Unavailable,
            AccountError::Secrets(_) => ErrorName::Unavailable,
            AccountError::File { .. }
            | AccountError::Damaged { .. }
            | AccountError::Prompt { .. } => ErrorName::Other("Failed".into()),
        }
    }

    /// The hub's error name, when the hub refused.
    pub fn hub_name(&self) -> Option<HubErrorName> {
        match self {
            AccountError::Hub(error) => error.name(),
            AccountError::SessionEnded { name, .. } => Some(*name),
            _ => None,
        }
    }

    /// What to do about it.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            AccountError::NoHub => "name your team's hub once: `cowork login --hub <url>`".into(),
            AccountError::BadHubAddress { .. } => {
                "give the hub's address, e.g. `cowork login --hub https://hub.example.com`".into()
            }
            AccountError::NotSignedIn => "sign in: `cowork login`".into(),
            AccountError::SessionEnded { .. } => "sign in again: `cowork login`".into(),
            AccountError::Hub(error) => return client_hint(error),
            AccountError::Denied | AccountError::TimedOut { .. } | AccountError::StateMismatch => {
                "start again: `cowork login`".into()
            }
            AccountError::BadPaste { .. } => {
                "paste the whole address from the browser's address bar once the hub says you are signed in".into()
            }
            AccountError::Listen(_) => {
                "sign in without a loopback port: `cowork login --device`".into()
            }
            AccountError::Secrets(error) => return error.hint(),
            AccountError::Damaged { .. } => {
                "sign in afresh: `cowork login --hub <url>` sets the damaged file aside (as .damaged) and writes a new one".into()
            }
            AccountError::File { .. } | AccountError::Prompt { .. } => return None,
        })
    }
}

/// The name of a failed hub call.
pub fn client_error_name(error: &ClientError) -> ErrorName {
    match error {
        ClientError::Hub { error, .. } => hub_error_name(error.name),
        ClientError::OAuth { error, .. } => match error.error {
            OAuthErrorCode::AccessDenied => ErrorName::Other("AccessDenied".into()),
            OAuthErrorCode::ExpiredToken => ErrorName::TimedOut,
            OAuthErrorCode::RateLimited => hub_error_name(HubErrorName::RateLimited),
            OAuthErrorCode::InvalidGrant => ErrorName::Other("InvalidGrant".into()),
            _ => ErrorName::BadRequest,
        },
        // Connected, then no answer in time: a hub that hangs, not one that is away.
        ClientError::Transport { source, .. } if source.is_timeout() => ErrorName::TimedOut,
        ClientError::Transport { .. } => ErrorName::Unreachable,
        ClientError::Decode { .. } => ErrorName::Other("BadAnswer".into()),
        ClientError::BadAddress(_) => ErrorName::BadRequest,
    }
}

/// A hub's error name in Cowork's vocabulary: the same variant where both have the word, else
/// the hub's word passed through.
pub fn hub_error_name(name: HubErrorName) -> ErrorName {
    match name {
        HubErrorName::BadRequest => ErrorName::BadRequest,
        HubErrorName::NotFound => ErrorName::NotFound,
        HubErrorName::TooLarge => ErrorName::TooLarge,
        HubErrorName::Unavailable => ErrorName::Unavailable,
        other => ErrorName::Other(other.as_str().to_owned()),
    }
}

/// What to do about a failed hub call: the hub's own hint first, else ours for its name.
pub fn client_hint(error: &ClientError) -> Option<String> {
    if let Some(hint) = error.hint() {
        return Some(hint.to_string());
    }
    let retry = match error {
        ClientError::Hub { retry_after, .. } | ClientError::OAuth { retry_after, .. } => {
            *retry_after
        }
        _ => None,
    };
    Some(match error {
        ClientError::Transport { source, .. } if source.is_timeout() => {
            "the hub did not answer in time: check that it is running and not overloaded, then try again".into()
        }
        ClientError::Transport { .. } => {
            "check the hub's address (`cowork status` shows it) and that it is running".into()
        }
        ClientError::Decode { .. } => {
            "the address answers, but not as a Cowork hub: check it with `cowork status`".into()
        }
        _ => match error.name() {
            Some(HubErrorName::InvalidCredentials) => {
                "check the email and the password (the hub does not say which was wrong)".into()
            }
            Some(HubErrorName::RateLimited) => match retry {
                Some(seconds) => format!("too many attempts: try again in {seconds} s"),
                None => "too many attempts: try again in a minute".into(),
            },
            Some(
                HubErrorName::NotSignedIn
                | HubErrorName::InvalidToken
                | HubErrorName::SessionExpired
                | HubErrorName::SessionRevoked,
            ) => "sign in again: `cowork login`".into(),
            Some(HubErrorName::NotMember) => {
                "join it first: `cowork team-server join <team-server>`".into()
            }
            Some(HubErrorName::NotAdmin) => {
                "ask one of its admins (`cowork team-server members <team-server>` lists them)"
                    .into()
            }
            Some(HubErrorName::NotOwner) => "only its owner may do this".into(),
            _ => match error.oauth_code() {
                Some(OAuthErrorCode::RateLimited) => match retry {
                    Some(seconds) => format!("too many attempts: try again in {seconds} s"),
                    None => "too many attempts: try again in a minute".into(),
                },
                Some(_) => "start again: `cowork login`".into(),
                None => return None,
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hub_that_takes_the_call_and_never_answers_is_timed_out_not_unreachable() {
        let hung = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/api/me", hung.local_addr().unwrap());
        let held = tokio::spawn(async move {
            let (_socket, _) = hung.accept().await.unwrap();
            std::future::pending::<()>().await
        });
        let client = reqwest::Client::builder()
            .timeout(std::time::Duration::from_millis(300))
            .build()
            .unwrap();
        let source = client.get(&url).send().await.unwrap_err();
        let error = ClientError::Transport { url, source };
        assert_eq!(client_error_name(&error), ErrorName::TimedOut);
        assert!(client_hint(&error).unwrap().starts_with("the hub did not answer in time"));
        held.abort();

        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/api/me", closed.local_addr().unwrap());
        drop(closed);
        let source = client.get(&url).send().await.unwrap_err();
        let error = ClientError::Transport { url, source };
        assert_eq!(client_error_name(&error), ErrorName::Unreachable, "nobody there");
    }
}
