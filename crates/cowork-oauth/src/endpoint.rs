//! Requests to the provider's token, revocation and userinfo endpoints.

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;
use serde::Deserialize;

use crate::tokens::{now, Account, Tokens};
use crate::{OAuthError, Provider};

/// Providers that omit `expires_in` (RFC 6749 §5.1 makes it optional) get this many seconds; a
/// 401 forces a refresh anyway.
const DEFAULT_EXPIRES_IN: u64 = 3600;

/// A provider's error body or an unexpected answer is quoted up to this many characters.
const QUOTED_BODY_CHARS: usize = 200;

/// A successful token endpoint answer (RFC 6749 §5.1).
#[derive(Deserialize)]
pub(crate) struct TokenResponse {
    access_token: String,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    expires_in: Option<u64>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    id_token: Option<String>,
}

impl TokenResponse {
    /// What to store. Keys the answer leaves out keep `previous`'s values: a refresh answer often
    /// has no new refresh token (no rotation) and no `scope` (unchanged, RFC 6749 §5.1).
    pub fn into_tokens(self, previous: Previous<'_>) -> Tokens {
        let email = self.id_token.as_deref().and_then(id_token_email);
        Tokens {
            access_token: self.access_token,
            refresh_token: self.refresh_token.or_else(|| previous.refresh_token.cloned()),
            expires_at: now() + self.expires_in.unwrap_or(DEFAULT_EXPIRES_IN),
            scopes: match self.scope {
                Some(scope) => scope.split_whitespace().map(Into::into).collect(),
                None => previous.scopes.to_vec(),
            },
            account: email.map(|email| Account { email }).or_else(|| previous.account.cloned()),
        }
    }
}

/// What a token answer falls back on for the keys it leaves out.
pub(crate) struct Previous<'a> {
    pub refresh_token: Option<&'a String>,
    pub scopes: &'a [String],
    pub account: Option<&'a Account>,
}

#[derive(Deserialize)]
struct ErrorBody {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

/// POSTs `grant` to the token endpoint with the client's credentials (`client_secret_post`).
pub(crate) async fn token_request(
    http: &reqwest::Client,
    provider: &Provider,
    grant: &[(&str, &str)],
) -> Result<TokenResponse, OAuthError> {
    let url = &provider.token_endpoint;
    let response = post_form(http, provider, url, grant).await?;
    if !response.status().is_success() {
        return Err(provider_error(response).await);
    }
    let answer: TokenResponse = response
        .json()
        .await
        .map_err(|source| OAuthError::Unreachable { url: url.clone(), source })?;
    // RFC 6749 §7.1: a client must not use a token whose type it does not understand.
    match answer.token_type.as_deref() {
        Some(kind) if !kind.eq_ignore_ascii_case("bearer") => Err(OAuthError::ProviderError {
            status: None,
            error: "unsupported_token_type".into(),
            description: Some(format!("the provider issued a `{kind}` token, not a bearer token")),
        }),
        _ => Ok(answer),
    }
}

/// RFC 7009 revocation of `token` (`refresh_token` or `access_token`, as `hint` says).
pub(crate) async fn revoke(
    http: &reqwest::Client,
    provider: &Provider,
    url: &str,
    token: &str,
    hint: &str,
) -> Result<(), OAuthError> {
    let response =
        post_form(http, provider, url, &[("token", token), ("token_type_hint", hint)]).await?;
    if response.status().is_success() {
        Ok(())
    } else {
        Err(provider_error(response).await)
    }
}

/// The account's email from OpenID userinfo (for providers whose id token has none).
pub(crate) async fn userinfo_email(
    http: &reqwest::Client,
    url: &str,
    access_token: &str,
) -> Result<Option<String>, OAuthError> {
    let unreachable = |source| OAuthError::Unreachable { url: url.into(), source };
    let response = http.get(url).bearer_auth(access_token).send().await.map_err(unreachable)?;
    if !response.status().is_success() {
        return Err(provider_error(response).await);
    }
    let claims: serde_json::Value = response.json().await.map_err(unreachable)?;
    Ok(email_claim(&claims))
}

async fn post_form(
    http: &reqwest::Client,
    provider: &Provider,
    url: &str,
    params: &[(&str, &str)],
) -> Result<reqwest::Response, OAuthError> {
    let mut form: Vec<(&str, &str)> = params.to_vec();
    form.push(("client_id", &provider.client_id));
    if let Some(secret) = &provider.client_secret {
        form.push(("client_secret", secret));
    }
    http.post(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .form(&form)
        .send()
        .await
        .map_err(|source| OAuthError::Unreachable { url: url.into(), source })
}

/// An unsuccessful answer as [`OAuthError::ProviderError`], quoting the OAuth error body or, when
/// there is none, the start of what came back.
async fn provider_error(response: reqwest::Response) -> OAuthError {
    let status = Some(response.status().as_u16());
    let body = match response.text().await {
        Ok(body) => body,
        Err(error) => format!("(unreadable: {error})"),
    };
    match serde_json::from_str::<ErrorBody>(&body) {
        Ok(ErrorBody { error, error_description }) => {
            OAuthError::ProviderError { status, error, description: error_description }
        }
        Err(_) => OAuthError::ProviderError {
            status,
            error: "unexpected_response".into(),
            description: Some(body.chars().take(QUOTED_BODY_CHARS).collect()),
        },
    }
}

/// The email in an id token's claims, for DISPLAY ONLY: the token came straight from the token
/// endpoint over TLS, and nothing here trusts it for access, so its signature is not checked.
pub(crate) fn id_token_email(id_token: &str) -> Option<String> {
    // Some issuers pad their base64url; RFC 7515 says they should not, so accept both.
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let payload = id_token.split('.').nth(1)?;
    let claims: serde_json::Value = serde_json::from_slice(&LENIENT.decode(payload).ok()?).ok()?;
    email_claim(&claims)
}

/// `email`, else Microsoft's `preferred_username` when it is an address.
fn email_claim(claims: &serde_json::Value) -> Option<String> {
    let claim = |name: &str| claims.get(name).and_then(|value| value.as_str());
    claim("email")
        .or_else(|| claim("preferred_username").filter(|name| name.contains('@')))
        .map(Into::into)
}

#[cfg(test)]
mod tests {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    use super::*;

    fn jwt(claims: serde_json::Value) -> String {
        let part = |value: &serde_json::Value| URL_SAFE_NO_PAD.encode(value.to_string());
        format!("{}.{}.signature", part(&serde_json::json!({"alg": "RS256"})), part(&claims))
    }

    #[test]
    fn id_token_email_reads_the_payload() {
        let token = jwt(serde_json::json!({"sub": "1", "email": "ada@example.com"}));
        assert_eq!(id_token_email(&token).as_deref(), Some("ada@example.com"));
        let microsoft = jwt(serde_json::json!({"preferred_username": "ada@contoso.com"}));
        assert_eq!(id_token_email(&microsoft).as_deref(), Some("ada@contoso.com"));
        let no_address = jwt(serde_json::json!({"preferred_username": "ada"}));
        assert_eq!(id_token_email(&no_address), None);
        assert_eq!(id_token_email("not-a-jwt"), None);
        assert_eq!(id_token_email("a.!!!.c"), None);
    }

    #[test]
    fn answers_keep_what_they_leave_out() {
        let previous_account = Account { email: "ada@example.com".into() };
        let refresh = "rt-1".to_owned();
        let previous = Previous {
            refresh_token: Some(&refresh),
            scopes: &["openid".into(), "calendar.read".into()],
            account: Some(&previous_account),
        };
        let answer: TokenResponse =
            serde_json::from_str(r#"{"access_token": "at-2", "expires_in": 30}"#).unwrap();
        let tokens = answer.into_tokens(previous);
        assert_eq!(tokens.refresh_token.as_deref(), Some("rt-1"));
        assert_eq!(tokens.scopes, ["openid", "calendar.read"]);
        assert_eq!(tokens.account, Some(previous_account));
        assert!(tokens.expires_at <= now() + 30);
        let rotated: TokenResponse = serde_json::from_str(
            r#"{"access_token": "at-3", "refresh_token": "rt-2", "scope": "openid mail.read"}"#,
        )
        .unwrap();
        let tokens =
            rotated.into_tokens(Previous { refresh_token: None, scopes: &[], account: None });
        assert_eq!(tokens.refresh_token.as_deref(), Some("rt-2"));
        assert_eq!(tokens.scopes, ["openid", "mail.read"]);
        assert!(tokens.expires_at >= now() + DEFAULT_EXPIRES_IN - 1);
    }
}
