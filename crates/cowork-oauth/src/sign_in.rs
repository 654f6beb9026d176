//! One sign-in: the authorization URL, the loopback listener the browser comes back to, and the
//! code exchange.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::future::IntoFuture;
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::RngCore;
use reqwest::Url;
use serde::Serialize;
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::endpoint::{token_request, userinfo_email, Previous};
use crate::key_locks::KeyLocks;
use crate::tokens::Account;
use crate::{OAuthError, Provider, TokenStore};

/// The one path the listener answers (RFC 8252 §7.3: the port varies, the path is exact).
pub const CALLBACK_PATH: &str = "/oauth/callback";

/// How long the browser's last page may take to be sent once the sign-in is decided.
const PAGE_GRACE: Duration = Duration::from_secs(5);

/// Random bytes in the PKCE verifier: 64 give an 86-character verifier (RFC 7636 §4.1 allows
/// 43–128) with 512 bits of entropy.
const VERIFIER_BYTES: usize = 64;

/// Random bytes in `state`.
const STATE_BYTES: usize = 32;

/// A finished sign-in: never a token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Connection {
    /// The connection's name (`google`, or the capability for `ownClient`).
    pub name: String,
    /// Who signed in, when the provider said.
    pub account: Option<Account>,
    /// The scopes the provider granted.
    pub scopes: Vec<String>,
}

/// A sign-in waiting for the browser.
///
/// Open [`auth_url`](Self::auth_url) in the person's browser. The sign-in runs on its own task:
/// dropping this value does not stop it (it ends with the provider's answer or the timeout), so
/// a caller may hand out the URL and forget the rest.
#[derive(Debug)]
pub struct PendingSignIn {
    /// The provider's authorization URL to open in a browser.
    pub auth_url: String,
    /// `http://127.0.0.1:<port>/oauth/callback`, where the listener waits.
    pub redirect_uri: String,
    task: JoinHandle<Result<Connection, OAuthError>>,
}

impl PendingSignIn {
    /// Waits until the sign-in ends: connected (tokens stored), [`OAuthError::Denied`],
    /// [`OAuthError::TimedOut`], or another error from the provider or the store.
    pub async fn wait(self) -> Result<Connection, OAuthError> {
        match self.task.await {
            Ok(outcome) => outcome,
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(_) => Err(OAuthError::Listen(std::io::Error::other(
                "the sign-in was cancelled: the runtime is shutting down",
            ))),
        }
    }
}

/// What one sign-in needs besides the provider.
pub(crate) struct Context {
    pub http: reqwest::Client,
    pub locks: Arc<KeyLocks>,
    pub timeout: Duration,
    pub store: Arc<dyn TokenStore>,
    pub key: String,
}

/// Opens the listener, builds the authorization URL and starts waiting; see
/// [`Connections::start`](crate::Connections::start).
pub(crate) async fn start(
    context: Context,
    provider: &Provider,
    scopes: &[String],
) -> Result<PendingSignIn, OAuthError> {
    let client_id = provider.registered_client_id()?;
    // RFC 8252 §8.3: the loopback IP literal, not `localhost`, which may resolve elsewhere or to
    // another address family than the one we listen on.
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.map_err(OAuthError::Listen)?;
    let port = listener.local_addr().map_err(OAuthError::Listen)?.port();
    let redirect_uri = format!("http://127.0.0.1:{port}{CALLBACK_PATH}");

    let verifier = random_token(VERIFIER_BYTES);
    let state = random_token(STATE_BYTES);
    let requested = union(&provider.extra_scopes, scopes);
    let challenge = pkce_challenge(&verifier);
    let mut params: Vec<(&str, &str)> = vec![
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", &redirect_uri),
        ("state", &state),
        ("code_challenge", &challenge),
        ("code_challenge_method", "S256"),
    ];
    let scope = requested.join(" ");
    if !scope.is_empty() {
        params.push(("scope", &scope));
    }
    params
        .extend(provider.extra_params.iter().map(|(name, value)| (name.as_str(), value.as_str())));
    let auth_url = Url::parse_with_params(&provider.authorization_endpoint, &params)
        .map_err(|error| OAuthError::BadConfig {
            location: "oauth.json".into(),
            message: format!(
                "the authorization endpoint `{}` of {} is not a URL: {error}",
                provider.authorization_endpoint, provider.connection
            ),
        })?
        .to_string();

    let (outcome, decided) = oneshot::channel();
    let timeout = context.timeout;
    let flow = Arc::new(Flow {
        context,
        provider: provider.clone(),
        state,
        verifier,
        redirect_uri: redirect_uri.clone(),
        requested,
        outcome: Mutex::new(Some(outcome)),
    });
    let router = Router::new().route(CALLBACK_PATH, get(callback)).with_state(flow);
    let task = tokio::spawn(serve(listener, router, decided, timeout, provider.connection.clone()));
    Ok(PendingSignIn { auth_url, redirect_uri, task })
}

/// Serves the callback until the sign-in is decided or `timeout` passes, then lets the last page
/// reach the browser and closes the port.
async fn serve(
    listener: TcpListener,
    router: Router,
    decided: oneshot::Receiver<Result<Connection, OAuthError>>,
    timeout: Duration,
    connection: String,
) -> Result<Connection, OAuthError> {
    let (stop, stopped) = oneshot::channel::<()>();
    let mut server = tokio::spawn(
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                // Sent or dropped, either way the sign-in is over.
                let _ = stopped.await;
            })
            .into_future(),
    );
    let outcome = tokio::select! {
        decided = decided => decided.unwrap_or_else(|_| Err(OAuthError::Listen(
            std::io::Error::other("the listener stopped before the provider answered"),
        ))),
        () = tokio::time::sleep(timeout) => Err(OAuthError::TimedOut { connection, after: timeout }),
    };
    // The server may have ended already; then there is nothing left to stop.
    let _ = stop.send(());
    if tokio::time::timeout(PAGE_GRACE, &mut server).await.is_err() {
        // A browser holding its connection open must not keep the port.
        server.abort();
    }
    outcome
}

struct Flow {
    context: Context,
    provider: Provider,
    state: String,
    verifier: String,
    redirect_uri: String,
    requested: Vec<String>,
    /// Taken by the one callback that decides the sign-in.
    outcome: Mutex<Option<oneshot::Sender<Result<Connection, OAuthError>>>>,
}

async fn callback(
    State(flow): State<Arc<Flow>>,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    // A callback without our state is not the provider answering this sign-in (a stale tab, or a
    // page trying to plant its own code): refuse it and keep waiting for the real one.
    if params.get("state") != Some(&flow.state) {
        return page(
            StatusCode::BAD_REQUEST,
            "This is not the sign-in Cowork is waiting for",
            "The link does not match the sign-in in progress. Start the sign-in again from Cowork.",
        );
    }
    let taken = flow.outcome.lock().take();
    let Some(outcome) = taken else {
        return page(
            StatusCode::CONFLICT,
            "This sign-in is already finished",
            "You can close this tab.",
        );
    };
    let connection = &flow.provider.connection;
    let result = flow.finish(&params).await;
    let response = match &result {
        Ok(Connection { account: Some(account), .. }) => page(
            StatusCode::OK,
            "Signed in",
            &format!(
                "Cowork is connected to {connection} as {}. You can close this tab.",
                account.email
            ),
        ),
        Ok(_) => page(
            StatusCode::OK,
            "Signed in",
            &format!("Cowork is connected to {connection}. You can close this tab."),
        ),
        Err(error) => page(
            StatusCode::BAD_REQUEST,
            "Sign-in failed",
            &format!("{error}. You can close this tab."),
        ),
    };
    // The receiver is gone only if the sign-in timed out meanwhile; the page still says what
    // happened.
    let _ = outcome.send(result);
    response
}

impl Flow {
    /// The provider's answer, turned into stored tokens.
    async fn finish(&self, params: &HashMap<String, String>) -> Result<Connection, OAuthError> {
        let provider = &self.provider;
        // RFC 9207: an answer naming another issuer came from a provider we did not ask.
        if let (Some(expected), Some(issuer)) = (&provider.issuer, params.get("iss")) {
            if expected != issuer {
                return Err(OAuthError::ProviderError {
                    status: None,
                    error: "invalid_issuer".into(),
                    description: Some(format!(
                        "the answer came from `{issuer}`, not from `{expected}`"
                    )),
                });
            }
        }
        if let Some(error) = params.get("error") {
            return Err(if error == "access_denied" {
                OAuthError::Denied { connection: provider.connection.clone() }
            } else {
                OAuthError::ProviderError {
                    status: None,
                    error: error.clone(),
                    description: params.get("error_description").cloned(),
                }
            });
        }
        let code = params.get("code").ok_or_else(|| OAuthError::ProviderError {
            status: None,
            error: "invalid_request".into(),
            description: Some("the provider's answer had neither a code nor an error".into()),
        })?;
        let Context { http, locks, store, key, .. } = &self.context;
        let answer = token_request(
            http,
            provider,
            &[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", &self.redirect_uri),
                ("code_verifier", &self.verifier),
            ],
        )
        .await?;
        // RFC 6749 §5.1: an answer without `scope` granted what was asked.
        let mut tokens = answer.into_tokens(Previous {
            refresh_token: None,
            scopes: &self.requested,
            account: None,
        });
        if tokens.account.is_none() {
            if let Some(url) = &provider.userinfo_endpoint {
                tokens.account = userinfo_email(http, url, &tokens.access_token)
                    .await?
                    .map(|email| Account { email });
            }
        }
        // Under the key's lock, so a refresh in flight cannot overwrite the new sign-in.
        let lock = locks.for_key(key);
        let mut last_write = lock.lock().await;
        tokens.save(store.as_ref(), key)?;
        *last_write = Some(Instant::now());
        Ok(Connection {
            name: provider.connection.clone(),
            account: tokens.account,
            scopes: tokens.scopes,
        })
    }
}

/// A small page for the browser tab the provider sent back to us.
fn page(status: StatusCode, title: &str, message: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>{title}</title>\
         <body style=\"font: 16px/1.5 system-ui, sans-serif; max-width: 34rem; margin: 4rem auto\">\
         <h1 style=\"font-size: 1.3rem\">{title}</h1><p>{message}</p></body></html>",
        title = escape_html(title),
        message = escape_html(message),
    );
    (
        status,
        [
            (header::CACHE_CONTROL, "no-store"),
            // The address holds the code: never pass it on.
            (header::REFERRER_POLICY, "no-referrer"),
            (header::CONTENT_SECURITY_POLICY, "default-src 'none'; style-src 'unsafe-inline'"),
        ],
        Html(html),
    )
        .into_response()
}

fn escape_html(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// `bytes` from the thread's CSPRNG (rand's ChaCha-based generator, seeded by the OS) as
/// base64url without padding: only RFC 3986 unreserved characters.
fn random_token(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buffer);
    URL_SAFE_NO_PAD.encode(buffer)
}

/// RFC 7636 §4.2 S256: BASE64URL(SHA256(verifier)).
fn pkce_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// `first` then `second`, each scope once, in order.
fn union(first: &[String], second: &[String]) -> Vec<String> {
    let mut all: Vec<String> = Vec::with_capacity(first.len() + second.len());
    for scope in first.iter().chain(second) {
        if !all.contains(scope) {
            all.push(scope.clone());
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_matches_rfc_7636_appendix_b() {
        assert_eq!(
            pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn verifiers_are_long_unreserved_and_fresh() {
        let verifier = random_token(VERIFIER_BYTES);
        assert!((43..=128).contains(&verifier.len()), "{}", verifier.len());
        assert!(verifier.chars().all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c)));
        assert_ne!(verifier, random_token(VERIFIER_BYTES));
    }

    #[test]
    fn scopes_union_keeps_order_without_repeats() {
        let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            union(&strings(&["openid", "email"]), &strings(&["a", "email", "b", "a"])),
            ["openid", "email", "a", "b"]
        );
    }

    #[test]
    fn pages_escape_what_the_provider_wrote() {
        assert_eq!(
            escape_html(r#"<script>"x" & 'y'</script>"#),
            "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;"
        );
    }
}
