//! A team server's audit log: one row per membership and store action, written in the same
//! transaction as the action, read by the owner newest first.

use crate::accounts::UserRow;
use crate::db::{new_id, now_ms, Db, Tx};
use crate::error::HubErr;
use cowork_wire::hub::{AuditAction, AuditEntry, AuditPage};
use sqlx::Row;

/// Append one line to `ts_id`'s audit log.
pub async fn record(
    tx: &mut Tx,
    ts_id: &str,
    actor: Option<&UserRow>,
    action: AuditAction,
    target: Option<&str>,
    detail: Option<&str>,
) -> Result<(), HubErr> {
    sqlx::query(
        "INSERT INTO audit (id, team_server_id, ts, actor_id, actor_email, action, target, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(new_id())
    .bind(ts_id)
    .bind(now_ms())
    .bind(actor.map(|a| a.id.clone()))
    .bind(actor.map(|a| a.email.clone()))
    .bind(action.as_str())
    .bind(target.map(str::to_owned))
    .bind(detail.map(str::to_owned))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// A page of `ts_id`'s log, newest first; `before` is the last page's `next`. Who may read it is
/// the caller's check (`teams::audit`: the owner only).
pub async fn page(
    db: &Db,
    ts_id: &str,
    before: Option<&str>,
    limit: Option<u32>,
) -> Result<AuditPage, HubErr> {
    let limit = i64::from(limit.unwrap_or(50).clamp(1, 200));
    let (before_ts, before_id) = parse_cursor(before)?;
    let rows = sqlx::query(
        "SELECT id, ts, actor_email, action, target, detail FROM audit WHERE team_server_id = $1 \
         AND (ts < $2 OR (ts = $2 AND id < $3)) ORDER BY ts DESC, id DESC LIMIT $4",
    )
    .bind(ts_id)
    .bind(before_ts)
    .bind(before_id)
    .bind(limit + 1)
    .fetch_all(db.pool())
    .await?;
    let mut entries = rows
        .iter()
        .map(|row| {
            Ok(AuditEntry {
                id: row.try_get("id")?,
                ts: row.try_get("ts")?,
                actor: row.try_get("actor_email")?,
                action: AuditAction::parse(&row.try_get::<String, _>("action")?),
                target: row.try_get("target")?,
                detail: row.try_get("detail")?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    let next = if entries.len() > usize::try_from(limit).unwrap_or(50) {
        entries.pop();
        entries.last().map(|e| cursor(e.ts, &e.id))
    } else {
        None
    };
    Ok(AuditPage { entries, next })
}

/// A page cursor: `<ms>.<id>`.
pub fn cursor(ts: i64, id: &str) -> String {
    format!("{ts}.{id}")
}

/// A cursor back to its parts; none means "from the newest".
pub fn parse_cursor(cursor: Option<&str>) -> Result<(i64, String), HubErr> {
    match cursor {
        None => Ok((i64::MAX, String::new())),
        Some(text) => text
            .split_once('.')
            .and_then(|(ts, id)| Some((ts.parse().ok()?, id.to_string())))
            .ok_or_else(|| {
                HubErr::bad_request(format!("failed to read the cursor {text:?}"))
                    .hint("pass the `next` of the last page as it was")
            }),
    }
}
