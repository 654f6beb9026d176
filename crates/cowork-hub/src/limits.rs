//! Rate limits on sign-in, kept in the database so every replica counts the same attempts: one
//! row per key (`account:<email>`, `address:<ip>`) with the start of its window and the failures
//! in it. Checked before the password is looked at; a failure is counted after.

use crate::db::{now_ms, Db};
use crate::error::HubErr;
use sqlx::Row;
use std::time::Duration;

fn window_ms(window: Duration) -> i64 {
    i64::try_from(window.as_millis()).unwrap_or(i64::MAX)
}

/// Refuse with `RateLimited` (and the seconds to wait) when `key` has `limit` failures in the
/// current window.
pub async fn check(
    db: &Db,
    key: &str,
    limit: i64,
    window: Duration,
    what: &str,
) -> Result<(), HubErr> {
    let row = sqlx::query("SELECT window_start, count FROM login_attempts WHERE key = $1")
        .bind(key)
        .fetch_optional(db.pool())
        .await?;
    let Some(row) = row else { return Ok(()) };
    let start: i64 = row.try_get("window_start")?;
    let count: i64 = row.try_get("count")?;
    let ends = start + window_ms(window);
    let now = now_ms();
    if count >= limit && ends > now {
        let seconds = u64::try_from((ends - now + 999) / 1000).unwrap_or(1);
        tracing::warn!(key, count, "sign-in rate limited");
        return Err(HubErr::rate_limited(what, seconds));
    }
    Ok(())
}

/// Count one failure for `key` (a new window when the last one ended).
pub async fn hit(db: &Db, key: &str, window: Duration) -> Result<(), HubErr> {
    let now = now_ms();
    sqlx::query(
        "INSERT INTO login_attempts (key, window_start, count) VALUES ($1, $2, 1) \
         ON CONFLICT (key) DO UPDATE SET \
           count = CASE WHEN login_attempts.window_start < $3 THEN 1 ELSE login_attempts.count + 1 END, \
           window_start = CASE WHEN login_attempts.window_start < $3 THEN $2 ELSE login_attempts.window_start END",
    )
    .bind(key)
    .bind(now)
    .bind(now - window_ms(window))
    .execute(db.pool())
    .await?;
    Ok(())
}

/// Forget `key`'s failures (a successful sign-in).
pub async fn clear(db: &Db, key: &str) -> Result<(), HubErr> {
    sqlx::query("DELETE FROM login_attempts WHERE key = $1").bind(key).execute(db.pool()).await?;
    Ok(())
}
