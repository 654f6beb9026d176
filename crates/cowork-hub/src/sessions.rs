//! Sessions: what a sign-in makes (password, browser, device), and the tokens it hands out.
//!
//! A token is `hat_<session>_<secret>` (access, short-lived) or `hrt_<session>_<secret>` (refresh).
//! Only SHA-256 of each secret is stored, on the session's row, and compared in constant time after
//! the row is found by its id. A refresh rotates both: the conditional update that swaps the hashes
//! succeeds for one caller only, and the old refresh hash goes to `refresh_used`, so presenting it
//! again — a stolen copy, or a second process racing the first — signs the whole session out.

use crate::accounts::{self, UserRow};
use crate::crypto;
use crate::db::{new_id, now_ms};
use crate::error::HubErr;
use crate::state::Hub;
use cowork_wire::hub::{HubErrorName, OAuthErrorCode, SessionInfo, TokenAnswer};
use sqlx::Row;

const ACCESS: &str = "hat_";
const REFRESH: &str = "hrt_";

/// How a session signed in (the sessions page shows it).
#[derive(Clone, Copy, Debug)]
pub enum Method {
    /// An email and a password.
    Password,
    /// The browser, with PKCE (loopback or paste).
    Browser,
    /// The device flow (RFC 8628).
    Device,
}

impl Method {
    fn as_str(self) -> &'static str {
        match self {
            Method::Password => "password",
            Method::Browser => "browser",
            Method::Device => "device",
        }
    }
}

/// The account and session an access token stands for.
#[derive(Clone, Debug)]
pub struct Caller {
    /// The account.
    pub user: UserRow,
    /// The session the token belongs to.
    pub session_id: String,
    /// The machine the session signed in from, as it named itself.
    pub device_id: Option<String>,
}

fn split<'a>(token: &'a str, prefix: &str) -> Option<(&'a str, &'a str)> {
    let rest = token.strip_prefix(prefix)?;
    let (session, secret) = rest.split_once('_')?;
    (session.len() == 32 && session.bytes().all(|b| b.is_ascii_hexdigit()) && !secret.is_empty())
        .then_some((session, secret))
}

fn clip(text: Option<&str>, max: usize) -> Option<String> {
    text.map(|t| t.trim().chars().filter(|c| !c.is_control()).take(max).collect::<String>())
        .filter(|t| !t.is_empty())
}

/// A new session for `user`, and its first tokens.
pub async fn create(
    hub: &Hub,
    user: &UserRow,
    method: Method,
    device_id: Option<&str>,
    device_name: Option<&str>,
) -> Result<TokenAnswer, HubErr> {
    let id = new_id();
    let (access, refresh) = (crypto::secret(), crypto::secret());
    let now = now_ms();
    let device_id = clip(device_id, 64);
    sqlx::query(
        "INSERT INTO sessions (id, user_id, method, device_id, device_name, created_at, last_seen_at, refresh_hash, access_hash, access_expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8, $9)",
    )
    .bind(&id)
    .bind(&user.id)
    .bind(method.as_str())
    .bind(device_id.clone())
    .bind(clip(device_name, 100))
    .bind(now)
    .bind(crypto::hash(&refresh))
    .bind(crypto::hash(&access))
    .bind(now + access_ttl_ms(hub))
    .execute(hub.db.pool())
    .await?;
    answer(hub, user, &id, device_id, &access, &refresh).await
}

fn access_ttl_ms(hub: &Hub) -> i64 {
    i64::try_from(hub.config.access_ttl.as_millis()).unwrap_or(i64::MAX / 2)
}

async fn answer(
    hub: &Hub,
    user: &UserRow,
    session: &str,
    device_id: Option<String>,
    access: &str,
    refresh: &str,
) -> Result<TokenAnswer, HubErr> {
    let ttl = i64::try_from(hub.config.id_token_ttl.as_millis()).unwrap_or(600_000);
    let (id_token, _) = hub.keys.id_token(&hub.public_url, &user.user(), session, ttl);
    Ok(TokenAnswer {
        access_token: format!("{ACCESS}{session}_{access}"),
        token_type: "Bearer".into(),
        expires_in: hub.config.access_ttl.as_secs(),
        refresh_token: format!("{REFRESH}{session}_{refresh}"),
        id_token: Some(id_token),
        session_id: session.to_string(),
        me: accounts::me(&hub.db, user, session, device_id).await?,
    })
}

struct SessionRow {
    user_id: String,
    device_id: Option<String>,
    revoked: bool,
    refresh_hash: String,
    access_hash: String,
    access_expires_at: i64,
}

async fn load(hub: &Hub, id: &str) -> Result<Option<SessionRow>, HubErr> {
    let row = sqlx::query(
        "SELECT user_id, device_id, revoked_at, refresh_hash, access_hash, access_expires_at FROM sessions WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(hub.db.pool())
    .await?;
    let Some(row) = row else { return Ok(None) };
    Ok(Some(SessionRow {
        user_id: row.try_get("user_id")?,
        device_id: row.try_get("device_id")?,
        revoked: row.try_get::<Option<i64>, _>("revoked_at")?.is_some(),
        refresh_hash: row.try_get("refresh_hash")?,
        access_hash: row.try_get("access_hash")?,
        access_expires_at: row.try_get("access_expires_at")?,
    }))
}

fn invalid_token() -> HubErr {
    HubErr::new(
        HubErrorName::InvalidToken,
        "failed to accept the token: it is not one this hub gave out",
    )
    .hint("sign in again (cowork login)")
}

fn revoked() -> HubErr {
    HubErr::new(
        HubErrorName::SessionRevoked,
        "failed to accept the token: its session was signed out",
    )
    .hint("sign in again (cowork login)")
}

/// The caller an access token stands for.
pub async fn authenticate(hub: &Hub, token: &str) -> Result<Caller, HubErr> {
    let (session, secret) = split(token, ACCESS).ok_or_else(invalid_token)?;
    let row = load(hub, session).await?.ok_or_else(invalid_token)?;
    if !crypto::same(&crypto::hash(secret), &row.access_hash) {
        return Err(invalid_token());
    }
    if row.revoked {
        return Err(revoked());
    }
    if row.access_expires_at <= now_ms() {
        return Err(HubErr::new(
            HubErrorName::SessionExpired,
            "failed to accept the token: its time ran out",
        )
        .hint("refresh it with the refresh token (POST /oauth/token grant_type=refresh_token)"));
    }
    let user = accounts::by_id(&hub.db, &row.user_id).await?.ok_or_else(invalid_token)?;
    Ok(Caller { user, session_id: session.to_string(), device_id: row.device_id })
}

/// Rotate a session's tokens. A rotated refresh token presented again revokes the session.
pub async fn refresh(hub: &Hub, token: &str) -> Result<TokenAnswer, HubErr> {
    let grant = |message: &str| HubErr::oauth(OAuthErrorCode::InvalidGrant, message);
    let (session, secret) =
        split(token, REFRESH).ok_or_else(|| grant("not a refresh token of this hub"))?;
    let row = load(hub, session).await?.ok_or_else(|| grant("not a refresh token of this hub"))?;
    let presented = crypto::hash(secret);
    if row.revoked {
        return Err(grant("the session was signed out; sign in again"));
    }
    if !crypto::same(&presented, &row.refresh_hash) {
        let reused = sqlx::query("SELECT session_id FROM refresh_used WHERE hash = $1")
            .bind(&presented)
            .fetch_optional(hub.db.pool())
            .await?
            .map(|r| r.try_get::<String, _>(0))
            .transpose()?;
        if reused.as_deref() == Some(session) {
            revoke_session(hub, session).await?;
            tracing::warn!(session, "a rotated refresh token was presented again: session revoked");
            return Err(grant(
                "the refresh token was already used; the session is signed out for safety",
            ));
        }
        return Err(grant("not a refresh token of this hub"));
    }
    let (access, refresh) = (crypto::secret(), crypto::secret());
    let now = now_ms();
    let mut tx = hub.db.begin().await?;
    let swapped = sqlx::query(
        "UPDATE sessions SET refresh_hash = $1, access_hash = $2, access_expires_at = $3, last_seen_at = $4 \
         WHERE id = $5 AND refresh_hash = $6 AND revoked_at IS NULL",
    )
    .bind(crypto::hash(&refresh))
    .bind(crypto::hash(&access))
    .bind(now + access_ttl_ms(hub))
    .bind(now)
    .bind(session)
    .bind(&presented)
    .execute(&mut *tx)
    .await?;
    if swapped.rows_affected() != 1 {
        // Another refresh with the same token won the race: that is a reuse.
        tx.rollback().await?;
        revoke_session(hub, session).await?;
        return Err(grant(
            "the refresh token was already used; the session is signed out for safety",
        ));
    }
    sqlx::query("INSERT INTO refresh_used (hash, session_id, used_at) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING")
        .bind(&presented)
        .bind(session)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    let user = accounts::by_id(&hub.db, &row.user_id)
        .await?
        .ok_or_else(|| grant("the account is gone"))?;
    answer(hub, &user, session, row.device_id, &access, &refresh).await
}

/// Sign a session out.
pub async fn revoke_session(hub: &Hub, session: &str) -> Result<bool, HubErr> {
    let done =
        sqlx::query("UPDATE sessions SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
            .bind(now_ms())
            .bind(session)
            .execute(hub.db.pool())
            .await?;
    Ok(done.rows_affected() == 1)
}

/// RFC 7009: end the session of a refresh or access token that matches. Unknown tokens are no
/// error (the RFC's rule: the client's job is done either way).
pub async fn revoke_token(hub: &Hub, token: &str) -> Result<(), HubErr> {
    let parts = split(token, REFRESH)
        .map(|p| (p, true))
        .or_else(|| split(token, ACCESS).map(|p| (p, false)));
    let Some(((session, secret), is_refresh)) = parts else { return Ok(()) };
    let Some(row) = load(hub, session).await? else { return Ok(()) };
    let stored = if is_refresh { &row.refresh_hash } else { &row.access_hash };
    if crypto::same(&crypto::hash(secret), stored) {
        revoke_session(hub, session).await?;
    }
    Ok(())
}

/// The account's sessions that are still signed in, newest first.
pub async fn list(hub: &Hub, user_id: &str, current: &str) -> Result<Vec<SessionInfo>, HubErr> {
    let rows = sqlx::query(
        "SELECT id, device_id, device_name, method, created_at, last_seen_at FROM sessions \
         WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id",
    )
    .bind(user_id)
    .fetch_all(hub.db.pool())
    .await?;
    rows.iter()
        .map(|row| {
            let id: String = row.try_get("id")?;
            Ok(SessionInfo {
                current: id == current,
                id,
                device_id: row.try_get("device_id")?,
                device_name: row.try_get("device_name")?,
                method: row.try_get("method")?,
                created_at: row.try_get("created_at")?,
                last_seen_at: row.try_get("last_seen_at")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(HubErr::from)
}

/// Sign out one of `user_id`'s sessions (not someone else's: that is `NotFound`).
pub async fn revoke_own(hub: &Hub, user_id: &str, session: &str) -> Result<(), HubErr> {
    let done = sqlx::query(
        "UPDATE sessions SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL",
    )
    .bind(now_ms())
    .bind(session)
    .bind(user_id)
    .execute(hub.db.pool())
    .await?;
    if done.rows_affected() == 1 {
        Ok(())
    } else {
        Err(HubErr::not_found(format!(
            "failed to find a signed-in session {session:?} of this account"
        ))
        .hint("it may have ended already: `cowork status` shows this machine's session"))
    }
}
