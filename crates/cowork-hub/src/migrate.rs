//! `migrate`: copy an embedded hub (SQLite + blob folder) into Postgres + an object store, for the
//! day one machine is not enough. Every table in `migrations::TABLES`, parents first, each row
//! inserted with `ON CONFLICT DO NOTHING`, then every blob put with `If-None-Match: *`: running it
//! again copies only what is new, and never overwrites what the target already holds. The change
//! counter is moved forward to the source's, so clients' update cursors stay valid. Short-lived
//! rows (sign-in codes, browser sessions, attempt counters) are not copied.

use crate::blobs::BlobStore;
use crate::db::Db;
use crate::error::HubErr;
use crate::migrations::{Col, TABLES};
use sqlx::{AssertSqlSafe, Row};
use std::path::Path;

/// What a migration did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    /// Rows copied into the target.
    pub rows_copied: u64,
    /// Rows the target held already (a run started again).
    pub rows_present: u64,
    /// Blobs copied into the target.
    pub blobs_copied: u64,
    /// Blobs the target held already.
    pub blobs_present: u64,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "copied {} rows ({} already there) and {} blobs ({} already there)",
            self.rows_copied, self.rows_present, self.blobs_copied, self.blobs_present
        )
    }
}

/// Copy the embedded hub in `from` into the database and blob store named.
pub async fn run(from: &Path, to_database: &str, to_blobs: &str) -> Result<Report, HubErr> {
    if !from.join("hub.db").is_file() {
        return Err(HubErr::config(
            format!("failed to migrate from {}: there is no hub.db in it", from.display()),
            "pass --from the folder the embedded hub ran with (its --data)",
        ));
    }
    if !to_database.starts_with("postgres") {
        return Err(HubErr::config(
            format!("failed to migrate to {to_database:?}: not a postgres:// URL"),
            "pass --to-database postgres://…",
        ));
    }
    let source = Db::open_embedded(from).await?;
    let target = Db::open(to_database).await?;
    let source_blobs = crate::blobs::Folder::open(from.join("blobs"))?;
    let target_blobs = crate::open_blobs(&crate::BlobsConfig::S3(to_blobs.to_string()))?;
    let report = copy(&source, &source_blobs, &target, target_blobs.as_ref()).await;
    source.close().await;
    target.close().await;
    report
}

/// The copy itself, between any two opened hubs.
pub async fn copy(
    source: &Db,
    source_blobs: &dyn BlobStore,
    target: &Db,
    target_blobs: &dyn BlobStore,
) -> Result<Report, HubErr> {
    let mut report = Report::default();
    for (table, columns) in TABLES {
        let names: Vec<&str> = columns
            .iter()
            .map(|c| match c {
                Col::Text(n) | Col::Int(n) | Col::Bytes(n) => *n,
            })
            .collect();
        let select = format!("SELECT {} FROM {table}", names.join(", "));
        let placeholders: Vec<String> = (1..=names.len()).map(|i| format!("${i}")).collect();
        let insert = format!(
            "INSERT INTO {table} ({}) VALUES ({}) ON CONFLICT DO NOTHING",
            names.join(", "),
            placeholders.join(", ")
        );
        let rows = sqlx::query(AssertSqlSafe(select)).fetch_all(source.pool()).await?;
        for row in rows {
            let mut query = sqlx::query(AssertSqlSafe(insert.clone()));
            for (i, column) in columns.iter().enumerate() {
                query = match column {
                    Col::Text(_) => query.bind(row.try_get::<Option<String>, _>(i)?),
                    Col::Int(_) => query.bind(row.try_get::<Option<i64>, _>(i)?),
                    Col::Bytes(_) => query.bind(row.try_get::<Option<Vec<u8>>, _>(i)?),
                };
            }
            if query.execute(target.pool()).await?.rows_affected() == 1 {
                report.rows_copied += 1;
            } else {
                report.rows_present += 1;
            }
        }
    }
    let rev: i64 = sqlx::query("SELECT value FROM counters WHERE name = 'rev'")
        .fetch_one(source.pool())
        .await?
        .try_get(0)?;
    sqlx::query("UPDATE counters SET value = $1 WHERE name = 'rev' AND value < $1")
        .bind(rev)
        .execute(target.pool())
        .await?;
    for sha in source_blobs.list().await? {
        let Some(bytes) = source_blobs.read(&sha).await? else { continue };
        if crate::blobs::sha256_hex(&bytes) != sha {
            return Err(HubErr::config(
                format!("failed to copy the blob {sha}: its bytes do not match its name"),
                "the source's blob folder is damaged; restore that blob from a backup",
            ));
        }
        if target_blobs.put(&sha, bytes).await? {
            report.blobs_present += 1;
        } else {
            report.blobs_copied += 1;
        }
    }
    Ok(report)
}
