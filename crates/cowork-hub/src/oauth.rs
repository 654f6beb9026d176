//! The hub as its own OAuth 2.0 provider for Cowork's public client (`client_id=cowork`):
//! authorization code with PKCE (S256 only) to a loopback redirect (RFC 8252: any port, any path on
//! 127.0.0.1, [::1] or localhost) or to the hub's own `/oauth/done` page (the address the person
//! pastes into the terminal); the device flow (RFC 8628); refresh with rotation; revocation
//! (RFC 7009). Codes live 10 minutes, are stored hashed and work once; replaying a used code signs
//! out the session it made (RFC 6749 §4.1.2).

use crate::accounts::{self, UserRow};
use crate::crypto;
use crate::db::{now_ms, Db};
use crate::error::HubErr;
use crate::sessions::{self, Method};
use crate::state::Hub;
use cowork_wire::hub::{
    DeviceAuthorization, DeviceRequest, OAuthErrorCode, TokenAnswer, TokenRequest, CLIENT_ID,
    GRANT_DEVICE_CODE, PASTE_REDIRECT_PATH,
};
use serde::Deserialize;
use sqlx::Row;

const CODE_TTL_MS: i64 = 10 * 60_000;

/// The query of `GET /oauth/authorize`.
#[derive(Deserialize, Clone, Debug, Default)]
pub struct AuthorizeParams {
    /// Must be `code`.
    #[serde(default)]
    pub response_type: String,
    /// The client asking: Cowork's own clients only.
    #[serde(default)]
    pub client_id: String,
    /// Where the code goes: a loopback address, or the hub's `/oauth/done` page.
    #[serde(default)]
    pub redirect_uri: String,
    /// The PKCE challenge.
    #[serde(default)]
    pub code_challenge: String,
    /// Must be `S256`.
    #[serde(default)]
    pub code_challenge_method: String,
    /// Handed back unchanged with the code, so the client knows its own sign-in.
    #[serde(default)]
    pub state: Option<String>,
}

/// Whether `uri` is a redirect this hub sends codes to: a loopback address (any port and path,
/// http only) or this hub's own paste page.
pub fn redirect_allowed(uri: &str, public_url: &str) -> bool {
    let Ok(url) = url::Url::parse(uri) else { return false };
    if url.fragment().is_some() {
        return false;
    }
    let loopback = url.scheme() == "http"
        && matches!(url.host(), Some(url::Host::Ipv4(ip)) if ip.is_loopback())
        || matches!(url.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback())
            && url.scheme() == "http"
        || url.scheme() == "http" && url.host_str() == Some("localhost");
    let paste = uri.split('?').next() == Some(&format!("{public_url}{PASTE_REDIRECT_PATH}"));
    loopback || paste
}

/// Check an authorization request before anything is shown. A bad client or redirect is answered
/// on the hub's page (never redirected to an unchecked address).
pub fn check_authorize(params: &AuthorizeParams, public_url: &str) -> Result<(), HubErr> {
    if params.client_id != CLIENT_ID {
        return Err(HubErr::bad_request(format!(
            "failed to start the sign-in: unknown client {:?}",
            params.client_id
        )));
    }
    if !redirect_allowed(&params.redirect_uri, public_url) {
        return Err(HubErr::bad_request(format!(
            "failed to start the sign-in: {:?} is not a loopback address or this hub's paste page",
            params.redirect_uri
        )));
    }
    if params.response_type != "code" {
        return Err(HubErr::bad_request("failed to start the sign-in: response_type must be code"));
    }
    if params.code_challenge_method != "S256"
        || params.code_challenge.len() < 43
        || params.code_challenge.len() > 128
    {
        return Err(HubErr::bad_request(
            "failed to start the sign-in: PKCE with code_challenge_method=S256 is required",
        ));
    }
    Ok(())
}

/// A code for `user` on an approved authorization request.
pub async fn issue_code(
    db: &Db,
    user: &UserRow,
    params: &AuthorizeParams,
) -> Result<String, HubErr> {
    let code = crypto::secret();
    let now = now_ms();
    sqlx::query("INSERT INTO auth_codes (code_hash, user_id, redirect_uri, challenge, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)")
        .bind(crypto::hash(&code))
        .bind(&user.id)
        .bind(&params.redirect_uri)
        .bind(&params.code_challenge)
        .bind(now)
        .bind(now + CODE_TTL_MS)
        .execute(db.pool())
        .await?;
    Ok(code)
}

/// `redirect_uri` with `params` added to its query.
pub fn redirect_with(redirect_uri: &str, params: &[(&str, &str)]) -> String {
    let mut url = url::Url::parse(redirect_uri).expect("checked by check_authorize");
    {
        let mut query = url.query_pairs_mut();
        for (k, v) in params {
            query.append_pair(k, v);
        }
    }
    url.to_string()
}

fn grant(message: &str) -> HubErr {
    HubErr::oauth(OAuthErrorCode::InvalidGrant, message)
}

/// `POST /oauth/token`.
pub async fn token(hub: &Hub, request: &TokenRequest) -> Result<TokenAnswer, HubErr> {
    if request.client_id.as_deref().is_some_and(|c| c != CLIENT_ID) {
        return Err(HubErr::oauth(OAuthErrorCode::InvalidClient, "unknown client_id"));
    }
    match request.grant_type.as_str() {
        "authorization_code" => authorization_code(hub, request).await,
        "refresh_token" => {
            let token = request.refresh_token.as_deref().ok_or_else(|| {
                HubErr::oauth(OAuthErrorCode::InvalidRequest, "refresh_token is missing")
            })?;
            sessions::refresh(hub, token).await
        }
        GRANT_DEVICE_CODE => device_token(hub, request).await,
        other => Err(HubErr::oauth(
            OAuthErrorCode::UnsupportedGrantType,
            format!("grant_type {other:?} is not supported"),
        )),
    }
}

async fn authorization_code(hub: &Hub, request: &TokenRequest) -> Result<TokenAnswer, HubErr> {
    let missing =
        |what: &str| HubErr::oauth(OAuthErrorCode::InvalidRequest, format!("{what} is missing"));
    let code = request.code.as_deref().ok_or_else(|| missing("code"))?;
    let verifier = request.code_verifier.as_deref().ok_or_else(|| missing("code_verifier"))?;
    let redirect_uri = request.redirect_uri.as_deref().ok_or_else(|| missing("redirect_uri"))?;
    let hash = crypto::hash(code);
    let row = sqlx::query("SELECT user_id, redirect_uri, challenge, expires_at, session_id FROM auth_codes WHERE code_hash = $1")
        .bind(&hash)
        .fetch_optional(hub.db.pool())
        .await?
        .ok_or_else(|| grant("the code is unknown or expired"))?;
    if let Some(session) = row.try_get::<Option<String>, _>("session_id")? {
        sessions::revoke_session(hub, &session).await?;
        return Err(grant("the code was already used; the session it made is signed out"));
    }
    if row.try_get::<i64, _>("expires_at")? <= now_ms() {
        return Err(grant("the code expired; sign in again"));
    }
    if row.try_get::<String, _>("redirect_uri")? != redirect_uri {
        return Err(grant("redirect_uri does not match the authorization request"));
    }
    if !crypto::same(&crypto::s256(verifier), &row.try_get::<String, _>("challenge")?) {
        return Err(grant("code_verifier does not match the code_challenge"));
    }
    let user_id: String = row.try_get("user_id")?;
    let user =
        accounts::by_id(&hub.db, &user_id).await?.ok_or_else(|| grant("the account is gone"))?;
    let answer = sessions::create(
        hub,
        &user,
        Method::Browser,
        request.device_id.as_deref(),
        request.device_name.as_deref(),
    )
    .await?;
    claim_once(
        hub,
        "UPDATE auth_codes SET session_id = $1 WHERE code_hash = $2 AND session_id IS NULL",
        &hash,
        answer,
        "the code was already used",
    )
    .await
}

/// Record the session a code made, unless another exchange of the same code got there first:
/// then neither keeps a session (the one just made is signed out).
async fn claim_once(
    hub: &Hub,
    sql: &'static str,
    hash: &str,
    answer: TokenAnswer,
    used: &str,
) -> Result<TokenAnswer, HubErr> {
    let claimed =
        sqlx::query(sql).bind(&answer.session_id).bind(hash).execute(hub.db.pool()).await?;
    if claimed.rows_affected() != 1 {
        sessions::revoke_session(hub, &answer.session_id).await?;
        return Err(grant(used));
    }
    Ok(answer)
}

/// `POST /oauth/device`: a device code and the user code the person types on the hub's page.
pub async fn device_start(
    hub: &Hub,
    request: &DeviceRequest,
) -> Result<DeviceAuthorization, HubErr> {
    if request.client_id != CLIENT_ID {
        return Err(HubErr::oauth(OAuthErrorCode::InvalidClient, "unknown client_id"));
    }
    let device_code = crypto::secret();
    let now = now_ms();
    let interval = hub.config.device_interval;
    for _ in 0..5 {
        let user_code = crypto::user_code();
        let inserted = sqlx::query(
            "INSERT INTO device_codes (device_hash, user_code, device_id, device_name, created_at, expires_at, poll_interval) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(crypto::hash(&device_code))
        .bind(&user_code)
        .bind(request.device_id.clone())
        .bind(request.device_name.clone())
        .bind(now)
        .bind(now + CODE_TTL_MS)
        .bind(i64::try_from(interval).unwrap_or(5))
        .execute(hub.db.pool())
        .await;
        match inserted {
            Err(error) if crate::error::is_unique_violation(&error) => continue,
            other => {
                other?;
            }
        }
        let verification_uri = format!("{}/device", hub.public_url);
        return Ok(DeviceAuthorization {
            verification_uri_complete: format!("{verification_uri}?user_code={user_code}"),
            verification_uri,
            device_code,
            user_code,
            expires_in: u64::try_from(CODE_TTL_MS / 1000).unwrap_or(600),
            interval,
        });
    }
    Err(HubErr::internal("failed to mint a free user code", &"five collisions"))
}

async fn device_token(hub: &Hub, request: &TokenRequest) -> Result<TokenAnswer, HubErr> {
    let code = request
        .device_code
        .as_deref()
        .ok_or_else(|| HubErr::oauth(OAuthErrorCode::InvalidRequest, "device_code is missing"))?;
    let hash = crypto::hash(code);
    let now = now_ms();
    let row = sqlx::query("SELECT device_id, device_name, expires_at, user_id, denied, last_poll_at, poll_interval, session_id FROM device_codes WHERE device_hash = $1")
        .bind(&hash)
        .fetch_optional(hub.db.pool())
        .await?
        .ok_or_else(|| grant("the device code is unknown"))?;
    if row.try_get::<Option<String>, _>("session_id")?.is_some() {
        return Err(grant("the device code was already used"));
    }
    if row.try_get::<i64, _>("expires_at")? <= now {
        return Err(HubErr::oauth(OAuthErrorCode::ExpiredToken, "the code expired; start again"));
    }
    if row.try_get::<i64, _>("denied")? != 0 {
        return Err(HubErr::oauth(
            OAuthErrorCode::AccessDenied,
            "the sign-in was refused on the hub's page",
        ));
    }
    let last_poll: i64 = row.try_get("last_poll_at")?;
    let interval_ms = row.try_get::<i64, _>("poll_interval")? * 1000;
    sqlx::query("UPDATE device_codes SET last_poll_at = $1 WHERE device_hash = $2")
        .bind(now)
        .bind(&hash)
        .execute(hub.db.pool())
        .await?;
    let Some(user_id) = row.try_get::<Option<String>, _>("user_id")? else {
        if last_poll > 0 && now - last_poll < interval_ms {
            return Err(HubErr::oauth(
                OAuthErrorCode::SlowDown,
                "polled faster than the interval; wait 5 s more between polls",
            ));
        }
        return Err(HubErr::oauth(OAuthErrorCode::AuthorizationPending, "not approved yet"));
    };
    let user =
        accounts::by_id(&hub.db, &user_id).await?.ok_or_else(|| grant("the account is gone"))?;
    let device_id: Option<String> = row.try_get("device_id")?;
    let device_name: Option<String> = row.try_get("device_name")?;
    let answer = sessions::create(
        hub,
        &user,
        Method::Device,
        request.device_id.as_deref().or(device_id.as_deref()),
        request.device_name.as_deref().or(device_name.as_deref()),
    )
    .await?;
    claim_once(
        hub,
        "UPDATE device_codes SET session_id = $1 WHERE device_hash = $2 AND session_id IS NULL",
        &hash,
        answer,
        "the device code was already used",
    )
    .await
}

/// Approve or refuse a device's sign-in (the person, signed in on the hub's page). Answers the
/// device's name, or `NotFound` for a code that is unknown, used or expired.
pub async fn device_settle(
    db: &Db,
    user: &UserRow,
    user_code: &str,
    approve: bool,
) -> Result<Option<String>, HubErr> {
    let code = crypto::normalize_user_code(user_code);
    let sql = if approve {
        "UPDATE device_codes SET user_id = $1 WHERE user_code = $2 AND user_id IS NULL AND denied = 0 AND expires_at > $3 RETURNING device_name"
    } else {
        "UPDATE device_codes SET denied = 1 WHERE user_code = $2 AND user_id IS NULL AND denied = 0 AND expires_at > $3 AND $1 <> '' RETURNING device_name"
    };
    let row = sqlx::query(sql)
        .bind(&user.id)
        .bind(&code)
        .bind(now_ms())
        .fetch_optional(db.pool())
        .await?;
    match row {
        Some(row) => Ok(row.try_get::<Option<String>, _>(0)?),
        None => Err(HubErr::not_found(format!(
            "failed to find the code {code:?}: it is wrong, used or expired"
        ))
        .hint("check the code your terminal shows, or start the sign-in again")),
    }
}

#[cfg(test)]
mod tests {
    use super::redirect_allowed;

    #[test]
    fn codes_go_to_loopback_or_the_paste_page_only() {
        let hub = "https://hub.example.com";
        assert!(redirect_allowed("http://127.0.0.1:53123/callback", hub));
        assert!(redirect_allowed("http://[::1]:8080/cb", hub));
        assert!(redirect_allowed("http://localhost:1234/", hub));
        assert!(redirect_allowed("https://hub.example.com/oauth/done", hub));
        assert!(!redirect_allowed("https://evil.example.com/oauth/done", hub));
        assert!(!redirect_allowed("http://127.0.0.2.evil.com/cb", hub));
        assert!(!redirect_allowed("https://127.0.0.1/cb", hub));
        assert!(!redirect_allowed("http://127.0.0.1:1/cb#x", hub));
    }
}
