//! The ways this machine signs in to a hub (the hub is its own identity provider, OAuth 2.0):
//!
//! - [`BrowserSignIn`]: on a desktop, the browser opens the hub's sign-in page and comes back to
//!   a loopback port (`http://127.0.0.1:<port>/callback`, authorization code + PKCE S256, a
//!   random `state`; RFC 8252).
//! - [`DeviceSignIn`]: on a server (no display, or `--device`), the device flow (RFC 8628): the
//!   terminal prints an address and a code to type on any device, and polls until approved.
//! - [`PasteSignIn`]: where nothing can be polled, the browser ends on the hub's own page
//!   ([`PASTE_REDIRECT_PATH`]) and the person pastes that address into the terminal, which takes
//!   the code from it (same PKCE and `state` checks).
//! - [`password`]: an email and a password, no browser.
//!
//! Each ends in [`Session::keep_sign_in`]. Nothing here opens a browser or reads a terminal:
//! the caller (the CLI, the daemon for the workbench's Sign in) does.

use crate::error::AccountError;
use crate::files::{Method, SignedIn};
use crate::session::Session;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use cowork_wire::hub::client::ClientError;
use cowork_wire::hub::{
    DeviceAuthorization, DeviceRequest, OAuthErrorCode, PasswordSignIn, TokenAnswer, TokenRequest,
    CLIENT_ID, GRANT_DEVICE_CODE, PASTE_REDIRECT_PATH,
};
use rand::RngCore;
use sha2::{Digest, Sha256};
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The one path the loopback listener answers.
pub const CALLBACK_PATH: &str = "/callback";

/// How long a browser sign-in waits for the browser to come back.
pub const BROWSER_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// PKCE (RFC 7636, S256) and `state` for one authorization request.
struct Pkce {
    verifier: String,
    state: String,
}

impl Pkce {
    fn new() -> Pkce {
        Pkce { verifier: random(64), state: random(32) }
    }

    fn challenge(&self) -> String {
        URL_SAFE_NO_PAD.encode(Sha256::digest(self.verifier.as_bytes()))
    }

    /// `<hub>/oauth/authorize?…` for `redirect_uri`.
    fn authorize_url(&self, hub: &str, redirect_uri: &str) -> String {
        let mut url =
            url::Url::parse(&format!("{hub}/oauth/authorize")).expect("a hub address is a URL");
        url.query_pairs_mut()
            .append_pair("response_type", "code")
            .append_pair("client_id", CLIENT_ID)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("code_challenge", &self.challenge())
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", &self.state);
        url.to_string()
    }

    /// Exchanges `code` for the session's tokens.
    async fn exchange(
        &self,
        session: &Session,
        hub: &str,
        code: &str,
        redirect_uri: &str,
    ) -> Result<TokenAnswer, AccountError> {
        let request = TokenRequest {
            grant_type: "authorization_code".into(),
            client_id: Some(CLIENT_ID.into()),
            code: Some(code.into()),
            redirect_uri: Some(redirect_uri.into()),
            code_verifier: Some(self.verifier.clone()),
            device_id: Some(session.device_id().into()),
            device_name: Some(session.device_name().into()),
            ..TokenRequest::default()
        };
        Ok(session.anonymous(hub)?.token(&request).await?)
    }
}

/// `bytes` random bytes, base64url.
fn random(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buffer);
    URL_SAFE_NO_PAD.encode(buffer)
}

/// A browser sign-in waiting for the browser to come back to this machine.
pub struct BrowserSignIn {
    /// The hub's authorization address: open it in the person's browser.
    pub url: String,
    hub: String,
    redirect_uri: String,
    pkce: Pkce,
    listener: TcpListener,
}

impl BrowserSignIn {
    /// Opens the loopback listener (127.0.0.1, a port the OS picks) and builds the address.
    pub async fn start(hub: &str) -> Result<BrowserSignIn, AccountError> {
        // RFC 8252 §8.3: the IP literal, not `localhost`, which may resolve to another family.
        let listener =
            TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.map_err(AccountError::Listen)?;
        let port = listener.local_addr().map_err(AccountError::Listen)?.port();
        let redirect_uri = format!("http://127.0.0.1:{port}{CALLBACK_PATH}");
        let pkce = Pkce::new();
        let url = pkce.authorize_url(hub, &redirect_uri);
        Ok(BrowserSignIn { url, hub: hub.to_string(), redirect_uri, pkce, listener })
    }

    /// Waits (at most `timeout`) for the browser's return, exchanges its code and keeps the
    /// session. A return with another `state` is answered with an error page and waited past.
    pub async fn finish(
        self,
        session: &Session,
        timeout: Duration,
    ) -> Result<SignedIn, AccountError> {
        let deadline = Instant::now() + timeout;
        let code = loop {
            let accepted = tokio::time::timeout_at(deadline.into(), self.listener.accept()).await;
            let Ok(accepted) = accepted else {
                return Err(AccountError::TimedOut { minutes: timeout.as_secs().div_ceil(60) });
            };
            let Ok((mut stream, _)) = accepted else { continue };
            let Some(target) = read_target(&mut stream).await else { continue };
            match callback(&target, &self.pkce.state) {
                Callback::Code(code) => {
                    respond(
                        &mut stream,
                        200,
                        "Signed in to Cowork. You can close this tab and go back to the terminal.",
                    )
                    .await;
                    break code;
                }
                Callback::Denied => {
                    respond(&mut stream, 200, "The sign-in was refused. You can close this tab.")
                        .await;
                    return Err(AccountError::Denied);
                }
                Callback::WrongState => {
                    respond(&mut stream, 400, "This is not the sign-in this terminal started: start `cowork login` again.").await;
                }
                Callback::NotOurs => respond(&mut stream, 404, "Not found.").await,
            }
        };
        let answer = self.pkce.exchange(session, &self.hub, &code, &self.redirect_uri).await?;
        session.keep_sign_in(&self.hub, answer, Method::Browser).await
    }
}

/// What came back to the loopback port.
enum Callback {
    Code(String),
    Denied,
    WrongState,
    NotOurs,
}

fn callback(target: &str, state: &str) -> Callback {
    let Ok(url) = url::Url::parse(&format!("http://127.0.0.1{target}")) else {
        return Callback::NotOurs;
    };
    if url.path() != CALLBACK_PATH {
        return Callback::NotOurs;
    }
    let param =
        |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    if param("state").as_deref() != Some(state) {
        return Callback::WrongState;
    }
    match (param("code"), param("error")) {
        (Some(code), None) => Callback::Code(code),
        _ => Callback::Denied,
    }
}

/// The request target of one HTTP request (its first line's second word).
async fn read_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 1024];
    let read = async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
            let n = stream.read(&mut buffer).await.ok()?;
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buffer[..n]);
        }
        Some(())
    };
    tokio::time::timeout(Duration::from_secs(10), read).await.ok()??;
    let text = String::from_utf8_lossy(&head);
    let line = text.lines().next()?;
    let mut words = line.split(' ');
    (words.next()? == "GET").then_some(())?;
    words.next().map(str::to_owned)
}

async fn respond(stream: &mut tokio::net::TcpStream, status: u16, text: &str) {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        _ => "Not Found",
    };
    let body = format!(
        "<!doctype html><meta charset=utf-8><title>Cowork</title><body style=\"font-family:sans-serif;margin:3em\"><p>{text}</p>"
    );
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// A sign-in that ends on the hub's own page, whose address the person pastes back.
pub struct PasteSignIn {
    /// The hub's authorization address: open it in any browser.
    pub url: String,
    hub: String,
    redirect_uri: String,
    pkce: Pkce,
}

impl PasteSignIn {
    pub fn start(hub: &str) -> PasteSignIn {
        let redirect_uri = format!("{hub}{PASTE_REDIRECT_PATH}");
        let pkce = Pkce::new();
        let url = pkce.authorize_url(hub, &redirect_uri);
        PasteSignIn { url, hub: hub.to_string(), redirect_uri, pkce }
    }

    /// Takes the code out of the address the browser ended on, exchanges it and keeps the session.
    pub async fn finish(self, session: &Session, pasted: &str) -> Result<SignedIn, AccountError> {
        let pasted = pasted.trim();
        let bad = |problem| AccountError::BadPaste { address: pasted.to_string(), problem };
        let url = url::Url::parse(pasted).map_err(|_| bad("it is not an address"))?;
        let expected = url::Url::parse(&self.redirect_uri).expect("a hub address is a URL");
        if url.origin() != expected.origin() || url.path() != expected.path() {
            return Err(bad("it is not the hub's sign-in end page"));
        }
        let param =
            |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
        if param("error").is_some() {
            return Err(AccountError::Denied);
        }
        if param("state").as_deref() != Some(self.pkce.state.as_str()) {
            return Err(bad("it belongs to another sign-in"));
        }
        let code = param("code").ok_or_else(|| bad("it holds no code"))?;
        let answer = self.pkce.exchange(session, &self.hub, &code, &self.redirect_uri).await?;
        session.keep_sign_in(&self.hub, answer, Method::Paste).await
    }
}

/// A device-flow sign-in (RFC 8628) waiting for its code to be approved.
pub struct DeviceSignIn {
    /// What to print: the address, the code, and the address with the code in it.
    pub authorization: DeviceAuthorization,
    hub: String,
}

impl DeviceSignIn {
    /// Asks the hub for a device code.
    pub async fn start(session: &Session, hub: &str) -> Result<DeviceSignIn, AccountError> {
        let request = DeviceRequest {
            client_id: CLIENT_ID.into(),
            device_id: Some(session.device_id().into()),
            device_name: Some(session.device_name().into()),
        };
        let authorization = session.anonymous(hub)?.device_authorization(&request).await?;
        Ok(DeviceSignIn { authorization, hub: hub.to_string() })
    }

    /// Polls at the hub's interval (slower after `slow_down`) until the code is approved,
    /// refused or expired; keeps the session.
    pub async fn finish(self, session: &Session) -> Result<SignedIn, AccountError> {
        let client = session.anonymous(&self.hub)?;
        let deadline = Instant::now() + Duration::from_secs(self.authorization.expires_in);
        let mut interval = Duration::from_secs(self.authorization.interval.max(1));
        let request = TokenRequest {
            grant_type: GRANT_DEVICE_CODE.into(),
            client_id: Some(CLIENT_ID.into()),
            device_code: Some(self.authorization.device_code.clone()),
            device_id: Some(session.device_id().into()),
            device_name: Some(session.device_name().into()),
            ..TokenRequest::default()
        };
        loop {
            if Instant::now() + interval > deadline {
                return Err(AccountError::TimedOut {
                    minutes: self.authorization.expires_in.div_ceil(60),
                });
            }
            tokio::time::sleep(interval).await;
            match client.token(&request).await {
                Ok(answer) => return session.keep_sign_in(&self.hub, answer, Method::Device).await,
                Err(ClientError::OAuth { error, .. }) => match error.error {
                    OAuthErrorCode::AuthorizationPending => {}
                    OAuthErrorCode::SlowDown => interval += Duration::from_secs(5),
                    OAuthErrorCode::AccessDenied => return Err(AccountError::Denied),
                    OAuthErrorCode::ExpiredToken => {
                        return Err(AccountError::TimedOut {
                            minutes: self.authorization.expires_in.div_ceil(60),
                        })
                    }
                    _ => {
                        return Err(
                            ClientError::OAuth { status: 400, error, retry_after: None }.into()
                        )
                    }
                },
                Err(error) => return Err(error.into()),
            }
        }
    }
}

/// Signs in with an email and a password.
pub async fn password(
    session: &Session,
    hub: &str,
    email: &str,
    password: &str,
) -> Result<SignedIn, AccountError> {
    let request = PasswordSignIn {
        email: email.to_string(),
        password: password.to_string(),
        device_id: Some(session.device_id().into()),
        device_name: Some(session.device_name().into()),
    };
    let answer = session.anonymous(hub)?.sign_in_password(&request).await?;
    session.keep_sign_in(hub, answer, Method::Password).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pkce_challenge_is_the_rfc_7636_example() {
        // RFC 7636 Appendix B.
        let pkce = Pkce {
            verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk".into(),
            state: "s".into(),
        };
        assert_eq!(pkce.challenge(), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    }

    #[test]
    fn the_authorize_address_carries_the_challenge_and_the_exact_redirect() {
        let pkce = Pkce::new();
        let url = url::Url::parse(
            &pkce.authorize_url("http://127.0.0.1:8480", "http://127.0.0.1:5000/callback"),
        )
        .unwrap();
        assert_eq!(url.path(), "/oauth/authorize");
        let pairs: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
        assert_eq!(pairs["client_id"], CLIENT_ID);
        assert_eq!(pairs["redirect_uri"], "http://127.0.0.1:5000/callback");
        assert_eq!(pairs["code_challenge_method"], "S256");
        assert_eq!(pairs["code_challenge"], pkce.challenge());
        assert_eq!(pairs["state"], pkce.state);
        assert!(pkce.verifier.len() >= 43, "RFC 7636: 43 to 128 characters");
    }

    #[test]
    fn a_callback_with_another_state_is_not_taken() {
        assert!(
            matches!(callback("/callback?code=c&state=s1", "s1"), Callback::Code(c) if c == "c")
        );
        assert!(matches!(callback("/callback?code=c&state=s2", "s1"), Callback::WrongState));
        assert!(matches!(callback("/callback?code=c", "s1"), Callback::WrongState));
        assert!(matches!(
            callback("/callback?error=access_denied&state=s1", "s1"),
            Callback::Denied
        ));
        assert!(matches!(callback("/favicon.ico", "s1"), Callback::NotOurs));
    }

    #[tokio::test]
    async fn a_pasted_address_must_be_the_hubs_end_page_with_this_state() {
        let dir = tempfile::tempdir().unwrap();
        let session = Session::new(&cowork_core::paths::Root::new(dir.path()));
        let hub = "http://127.0.0.1:9";
        for (pasted, problem) in [
            ("not an address", "it is not an address"),
            (
                "http://evil.example/oauth/done?code=c&state=s",
                "it is not the hub's sign-in end page",
            ),
            ("http://127.0.0.1:9/oauth/done?code=c&state=other", "it belongs to another sign-in"),
        ] {
            let sign_in = PasteSignIn::start(hub);
            let error = sign_in.finish(&session, pasted).await.unwrap_err();
            assert!(
                matches!(error, AccountError::BadPaste { problem: p, .. } if p == problem),
                "{pasted}: {error}"
            );
        }
        let sign_in = PasteSignIn::start(hub);
        let state = sign_in.pkce.state.clone();
        let error = sign_in
            .finish(&session, &format!("{hub}/oauth/done?error=access_denied&state={state}"))
            .await
            .unwrap_err();
        assert!(matches!(error, AccountError::Denied), "{error}");
    }
}
