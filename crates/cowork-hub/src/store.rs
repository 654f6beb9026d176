//! A team server's store as issue 41 leaves it: the items' listing (filled by issue 42's publish)
//! and the content-addressed blobs versions will reference. A blob is checked against its SHA-256
//! before anything is written, recorded in `blobs` (what the GC looks at) and audited.

use crate::accounts::UserRow;
use crate::audit;
use crate::blobs::{check_sha, sha256_hex, BlobStore, Fetch};
use crate::db::{now_ms, Db};
use crate::error::HubErr;
use crate::teams;
use cowork_wire::hub::{AuditAction, BlobStored, HubErrorName, StoreItem};
use sqlx::Row;

/// The largest blob the hub takes (one file of an app).
pub const MAX_BLOB: usize = 64 * 1024 * 1024;

/// What the store publishes, the latest version of each item (members).
pub async fn items(db: &Db, user: &UserRow, slug: &str) -> Result<Vec<StoreItem>, HubErr> {
    let access = teams::access(db, slug, user).await?;
    access.require_member()?;
    let rows = sqlx::query(
        "SELECT name, kind, latest_version, title, description, tags, updated_at FROM store_items WHERE team_server_id = $1 ORDER BY name",
    )
    .bind(&access.ts.id)
    .fetch_all(db.pool())
    .await?;
    rows.iter()
        .map(|row| {
            let tags: Option<String> = row.try_get("tags")?;
            Ok(StoreItem {
                name: row.try_get("name")?,
                kind: row.try_get("kind")?,
                version: row.try_get("latest_version")?,
                title: row.try_get("title")?,
                description: row.try_get("description")?,
                tags: tags.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default(),
                updated_at: row.try_get("updated_at")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(HubErr::from)
}

/// Store a blob (admins), checked against its hash.
pub async fn put_blob(
    db: &Db,
    blobs: &dyn BlobStore,
    user: &UserRow,
    slug: &str,
    sha256: &str,
    bytes: Vec<u8>,
) -> Result<BlobStored, HubErr> {
    let access = teams::access(db, slug, user).await?;
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
    let existed = blobs.put(sha256, bytes).await?;
    let mut tx = db.begin().await?;
    sqlx::query("INSERT INTO blobs (sha256, size, created_at) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING")
        .bind(sha256)
        .bind(i64::try_from(size).unwrap_or(i64::MAX))
        .bind(now_ms())
        .execute(&mut *tx)
        .await?;
    audit::record(&mut tx, &access.ts.id, Some(user), AuditAction::StoreBlob, Some(sha256), None)
        .await?;
    tx.commit().await?;
    Ok(BlobStored { sha256: sha256.to_string(), size: u64::try_from(size).unwrap_or(0), existed })
}

/// How a member gets a blob: its bytes, or a presigned address.
pub async fn get_blob(
    db: &Db,
    blobs: &dyn BlobStore,
    user: &UserRow,
    slug: &str,
    sha256: &str,
) -> Result<Fetch, HubErr> {
    let access = teams::access(db, slug, user).await?;
    access.require_member()?;
    check_sha(sha256)?;
    let known = sqlx::query("SELECT 1 FROM blobs WHERE sha256 = $1")
        .bind(sha256)
        .fetch_optional(db.pool())
        .await?
        .is_some();
    let missing =
        || HubErr::new(HubErrorName::NotFound, format!("failed to find the blob {sha256}"));
    if !known {
        return Err(missing());
    }
    blobs.fetch(sha256).await?.ok_or_else(missing)
}
