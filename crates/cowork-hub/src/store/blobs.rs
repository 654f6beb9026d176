//! The blobs a team server's store holds (`blob_refs`): uploaded by its admins — checked against
//! their SHA-256 before anything is written —, asked about in batches before a push ("which of
//! these do you lack"), and served to its members only. The bytes live once in the hub's
//! [`BlobStore`](crate::blobs::BlobStore), whichever team servers hold them; a team server never
//! learns of, nor serves, a blob its own admins did not upload.

use crate::accounts::UserRow;
use crate::blobs::{check_sha, sha256_hex, Fetch};
use crate::db::{now_ms, Db, Tx};
use crate::error::HubErr;
use crate::state::Hub;
use crate::teams;
use cowork_wire::hub::{BlobStored, HubErrorName, MissingBlobs, MAX_BLOB_QUERY};
use sqlx::Row;
use std::collections::{BTreeSet, HashMap};

/// The largest blob the hub takes (one file of an app).
pub const MAX_BLOB: usize = 64 * 1024 * 1024;

/// How many hashes one `IN (…)` list holds (well under SQLite's and Postgres' bind limits).
const CHUNK: usize = 500;

/// Store a blob (admins), checked against its hash, and hold it for the team server.
pub async fn put(
    hub: &Hub,
    user: &UserRow,
    slug: &str,
    sha256: &str,
    bytes: Vec<u8>,
) -> Result<BlobStored, HubErr> {
    let access = teams::access(&hub.db, slug, user).await?;
    access.require_admin()?;
    check_sha(sha256)?;
    let actual = sha256_hex(&bytes);
    if actual != sha256 {
        return Err(HubErr::bad_request(format!(
            "failed to store the blob {sha256}: its bytes hash to {actual}"
        ))
        .hint("send the bytes whose SHA-256 the address names"));
    }
    let size = bytes.len();
    let existed = hub.blobs.put(sha256, bytes).await?;
    let now = now_ms();
    let mut tx = hub.db.begin().await?;
    sqlx::query("INSERT INTO blobs (sha256, size, created_at) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING")
        .bind(sha256)
        .bind(i64::try_from(size).unwrap_or(i64::MAX))
        .bind(now)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO blob_refs (team_server_id, sha256, held_at) VALUES ($1, $2, $3) \
         ON CONFLICT (team_server_id, sha256) DO UPDATE SET held_at = excluded.held_at",
    )
    .bind(&access.ts.id)
    .bind(sha256)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(BlobStored { sha256: sha256.to_string(), size: u64::try_from(size).unwrap_or(0), existed })
}

/// How a member gets a blob the team server holds: its bytes, or a presigned address.
pub async fn get(hub: &Hub, user: &UserRow, slug: &str, sha256: &str) -> Result<Fetch, HubErr> {
    let access = teams::access(&hub.db, slug, user).await?;
    access.require_member()?;
    check_sha(sha256)?;
    let held = sqlx::query("SELECT 1 FROM blob_refs WHERE team_server_id = $1 AND sha256 = $2")
        .bind(&access.ts.id)
        .bind(sha256)
        .fetch_optional(hub.db.pool())
        .await?
        .is_some();
    let missing = || {
        HubErr::new(
            HubErrorName::NotFound,
            format!("failed to find the blob {sha256} in the store of {slug:?}"),
        )
    };
    if !held {
        return Err(missing());
    }
    hub.blobs.fetch(sha256).await?.ok_or_else(missing)
}

/// `POST blobs/missing` (admins): those of `hashes` the team server does not hold. Those it holds
/// are marked held now, so the blob GC keeps them through the push that follows.
pub async fn missing(
    db: &Db,
    user: &UserRow,
    slug: &str,
    hashes: &[String],
) -> Result<MissingBlobs, HubErr> {
    let access = teams::access(db, slug, user).await?;
    access.require_admin()?;
    if hashes.len() > MAX_BLOB_QUERY {
        return Err(HubErr::new(
            HubErrorName::TooLarge,
            format!("failed to look up {} blobs at once: at most {MAX_BLOB_QUERY}", hashes.len()),
        )
        .hint("ask in several calls"));
    }
    for sha in hashes {
        check_sha(sha)?;
    }
    let wanted: Vec<&str> =
        hashes.iter().map(String::as_str).collect::<BTreeSet<_>>().into_iter().collect();
    let mut tx = db.begin().await?;
    let held = held(&mut tx, &access.ts.id, &wanted, true).await?;
    tx.commit().await?;
    let missing = wanted.into_iter().filter(|s| !held.contains_key(*s)).map(str::to_owned);
    Ok(MissingBlobs { missing: missing.collect() })
}

/// Those of `hashes` the team server holds, with their sizes; `refresh` marks them held now (a
/// write: the rows stay locked until `tx` ends, so a publish, which needs only to read them, does
/// not refresh).
pub async fn held(
    tx: &mut Tx,
    ts_id: &str,
    hashes: &[&str],
    refresh: bool,
) -> Result<HashMap<String, i64>, HubErr> {
    let mut held = HashMap::with_capacity(hashes.len());
    for chunk in hashes.chunks(CHUNK) {
        let list = |first: usize| -> String {
            (0..chunk.len()).map(|i| format!("${}", i + first)).collect::<Vec<_>>().join(", ")
        };
        if refresh {
            let sql = format!(
                "UPDATE blob_refs SET held_at = $1 WHERE team_server_id = $2 AND sha256 IN ({})",
                list(3)
            );
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(now_ms()).bind(ts_id);
            for sha in chunk {
                query = query.bind(*sha);
            }
            query.execute(&mut **tx).await?;
        }
        let sql = format!(
            "SELECT r.sha256, b.size FROM blob_refs r JOIN blobs b ON b.sha256 = r.sha256 \
             WHERE r.team_server_id = $1 AND r.sha256 IN ({})",
            list(2)
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(ts_id);
        for sha in chunk {
            query = query.bind(*sha);
        }
        for row in query.fetch_all(&mut **tx).await? {
            held.insert(row.try_get::<String, _>(0)?, row.try_get::<i64, _>(1)?);
        }
    }
    Ok(held)
}
