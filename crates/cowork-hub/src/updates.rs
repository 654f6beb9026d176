//! `/updates?since=<cursor>`: one poll per machine for every team server its account belongs to.
//!
//! The cursor is the highest revision among the account's own row (stamped when its memberships
//! change: joined, added, removed, left, a server deleted, a group closed) and the rows of the team
//! servers it belongs to (stamped on every change of their members, store or courses). Every change
//! takes a new, higher revision from one counter, in commit order (`db::next_rev`), so "nothing
//! changed" is one indexed `MAX` compared with the cursor — the same cost on SQLite and Postgres —
//! and the answer is then `304 Not Modified`.
//!
//! A changed answer also carries, for each team server whose store moved past the cursor sent,
//! the latest version of every item (`stores`), and the account's course subscriptions: a new
//! version — a course's too — reaches a client within one poll, without a call per store.

use crate::accounts::UserRow;
use crate::db::Db;
use crate::error::HubErr;
use cowork_wire::hub::{
    ItemHead, ItemKind, Role, StoreHeads, SubscriptionRef, TeamServerState, Updates,
};
use sqlx::Row;

/// The account's current cursor.
pub async fn cursor(db: &Db, user: &UserRow) -> Result<String, HubErr> {
    let row = sqlx::query(
        "SELECT MAX(r) FROM (SELECT rev AS r FROM users WHERE id = $1 \
         UNION ALL SELECT t.rev AS r FROM members m JOIN team_servers t ON t.id = m.team_server_id WHERE m.user_id = $1) revs",
    )
    .bind(&user.id)
    .fetch_one(db.pool())
    .await?;
    Ok(format!("r{}", row.try_get::<Option<i64>, _>(0)?.unwrap_or(0)))
}

/// `None` when the cursor is still `since`; else every team server of the account.
pub async fn poll(db: &Db, user: &UserRow, since: Option<&str>) -> Result<Option<Updates>, HubErr> {
    let cursor = cursor(db, user).await?;
    if since == Some(cursor.as_str()) {
        return Ok(None);
    }
    let rows = sqlx::query(
        "SELECT t.slug, t.name, m.role, t.rev, t.store_rev FROM members m JOIN team_servers t ON t.id = m.team_server_id \
         WHERE m.user_id = $1 ORDER BY t.slug",
    )
    .bind(&user.id)
    .fetch_all(db.pool())
    .await?;
    let team_servers = rows
        .iter()
        .map(|row| {
            Ok(TeamServerState {
                slug: row.try_get("slug")?,
                name: row.try_get("name")?,
                role: Role::parse(&row.try_get::<String, _>("role")?).unwrap_or(Role::Member),
                rev: row.try_get("rev")?,
                store_rev: row.try_get("store_rev")?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    // The cursor is `r<revision>`; anything else (none, a hub's older format) sends every store.
    let since_rev =
        since.and_then(|s| s.strip_prefix('r')).and_then(|r| r.parse::<i64>().ok()).unwrap_or(-1);
    let mut stores: Vec<StoreHeads> = team_servers
        .iter()
        .filter(|t| t.store_rev > since_rev)
        .map(|t| StoreHeads { slug: t.slug.clone(), items: Vec::new() })
        .collect();
    if !stores.is_empty() {
        let rows = sqlx::query(
            "SELECT t.slug, i.name, i.kind, i.latest_version FROM members m JOIN team_servers t ON t.id = m.team_server_id \
             JOIN store_items i ON i.team_server_id = t.id \
             WHERE m.user_id = $1 AND t.store_rev > $2 AND i.unpublished_at IS NULL ORDER BY t.slug, i.name",
        )
        .bind(&user.id)
        .bind(since_rev)
        .fetch_all(db.pool())
        .await?;
        for row in rows {
            let slug: String = row.try_get("slug")?;
            let kind: String = row.try_get("kind")?;
            let (Some(store), Some(kind)) =
                (stores.iter_mut().find(|s| s.slug == slug), ItemKind::parse(&kind))
            else {
                continue;
            };
            store.items.push(ItemHead {
                name: row.try_get("name")?,
                kind,
                version: row.try_get("latest_version")?,
            });
        }
    }
    let subscriptions = sqlx::query(
        "SELECT t.slug, s.course FROM course_subscriptions s JOIN team_servers t ON t.id = s.team_server_id \
         JOIN members m ON m.team_server_id = s.team_server_id AND m.user_id = s.user_id \
         WHERE s.user_id = $1 ORDER BY t.slug, s.course",
    )
    .bind(&user.id)
    .fetch_all(db.pool())
    .await?
    .iter()
    .map(|row| Ok(SubscriptionRef { team_server: row.try_get("slug")?, course: row.try_get("course")? }))
    .collect::<Result<Vec<_>, sqlx::Error>>()?;
    Ok(Some(Updates { cursor, team_servers, stores, subscriptions }))
}
