//! Periodic jobs — retention (expired sessions, codes, attempts; run reports older than 30 days;
//! audit lines older than a year) and the garbage collection of unreferenced blobs — taken from
//! the `jobs` table so that two replicas never run the same one at once: on Postgres the claim is
//! `SELECT … FOR UPDATE SKIP LOCKED` (a replica skips a row another is claiming) followed by a
//! lease (`locked_until`), so a replica that dies mid-job frees it when the lease runs out. On
//! SQLite (one process) the same statements run without the row-lock clause.

use crate::blobs::BlobStore;
use crate::db::{now_ms, Backend, Db};
use crate::error::HubErr;
use sqlx::Row;
use std::sync::Arc;
use std::time::Duration;

/// Delete run reports older than this.
pub const RUN_REPORT_DAYS: i64 = 30;
/// Delete audit lines older than this.
pub const AUDIT_DAYS: i64 = 365;
/// A blob no version references is kept this long (an upload in progress references it later).
pub const BLOB_GRACE_MS: i64 = 24 * 3_600_000;
const DAY_MS: i64 = 86_400_000;
const LEASE_MS: i64 = 10 * 60_000;

/// The jobs and how often each runs.
pub const JOBS: &[(&str, i64)] = &[("retention", 3_600_000), ("blob-gc", 6 * 3_600_000)];

/// Make sure every job has its row (idempotent; replicas may race).
pub async fn register(db: &Db) -> Result<(), HubErr> {
    for (name, every) in JOBS {
        sqlx::query("INSERT INTO jobs (name, every_ms, next_run_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING")
            .bind(*name)
            .bind(*every)
            .bind(now_ms())
            .execute(db.pool())
            .await?;
    }
    Ok(())
}

/// Claim one due job for `worker`, or none. Two workers never get the same job while its lease
/// holds.
pub async fn claim(db: &Db, worker: &str) -> Result<Option<String>, HubErr> {
    let now = now_ms();
    let mut tx = db.begin().await?;
    let select = match db.backend() {
        Backend::Postgres => "SELECT name FROM jobs WHERE next_run_at <= $1 AND (locked_until IS NULL OR locked_until < $1) ORDER BY next_run_at, name LIMIT 1 FOR UPDATE SKIP LOCKED",
        Backend::Sqlite => "SELECT name FROM jobs WHERE next_run_at <= $1 AND (locked_until IS NULL OR locked_until < $1) ORDER BY next_run_at, name LIMIT 1",
    };
    let Some(row) = sqlx::query(select).bind(now).fetch_optional(&mut *tx).await? else {
        tx.rollback().await?;
        return Ok(None);
    };
    let name: String = row.try_get(0)?;
    sqlx::query("UPDATE jobs SET locked_by = $1, locked_until = $2 WHERE name = $3")
        .bind(worker)
        .bind(now + LEASE_MS)
        .bind(&name)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Some(name))
}

/// Record a job's end and when it is due next (only by the worker that holds it).
pub async fn finish(db: &Db, name: &str, worker: &str, outcome: &str) -> Result<(), HubErr> {
    let now = now_ms();
    sqlx::query(
        "UPDATE jobs SET locked_by = NULL, locked_until = NULL, last_run_at = $1, last_outcome = $2, next_run_at = $1 + every_ms WHERE name = $3 AND locked_by = $4",
    )
    .bind(now)
    .bind(outcome)
    .bind(name)
    .bind(worker)
    .execute(db.pool())
    .await?;
    Ok(())
}

/// Run one job by name.
pub async fn run(db: &Db, blobs: &dyn BlobStore, name: &str) -> Result<String, HubErr> {
    match name {
        "retention" => retention(db).await,
        "blob-gc" => {
            blob_gc(db, blobs, now_ms() - BLOB_GRACE_MS).await.map(|n| format!("{n} blobs deleted"))
        }
        other => Err(HubErr::internal("failed to run a job", &format!("unknown job {other:?}"))),
    }
}

async fn retention(db: &Db) -> Result<String, HubErr> {
    let now = now_ms();
    let mut deleted = 0;
    for (sql, before) in [
        ("DELETE FROM run_reports WHERE received_at < $1", now - RUN_REPORT_DAYS * DAY_MS),
        ("DELETE FROM audit WHERE ts < $1", now - AUDIT_DAYS * DAY_MS),
        ("DELETE FROM auth_codes WHERE expires_at < $1", now),
        ("DELETE FROM device_codes WHERE expires_at < $1", now),
        ("DELETE FROM setup_codes WHERE expires_at < $1", now),
        ("DELETE FROM web_sessions WHERE expires_at < $1", now),
        ("DELETE FROM login_attempts WHERE window_start < $1", now - DAY_MS),
        ("DELETE FROM sessions WHERE revoked_at < $1", now - 30 * DAY_MS),
    ] {
        deleted += sqlx::query(sql).bind(before).execute(db.pool()).await?.rows_affected();
    }
    Ok(format!("{deleted} rows deleted"))
}

/// Collect blobs: first each team server lets go of the blobs it holds (`blob_refs`) that none
/// of its versions or store cards references and that no push touched since `before`; then the
/// blobs no team server holds or references and stored before `before` are deleted. Answers how
/// many blobs were deleted.
pub async fn blob_gc(db: &Db, blobs: &dyn BlobStore, before: i64) -> Result<usize, HubErr> {
    sqlx::query(
        "DELETE FROM blob_refs WHERE held_at < $1 \
         AND NOT EXISTS (SELECT 1 FROM version_blobs v WHERE v.team_server_id = blob_refs.team_server_id AND v.sha256 = blob_refs.sha256) \
         AND NOT EXISTS (SELECT 1 FROM card_blobs c WHERE c.team_server_id = blob_refs.team_server_id AND c.sha256 = blob_refs.sha256)",
    )
    .bind(before)
    .execute(db.pool())
    .await?;
    const UNREFERENCED: &str =
        "NOT EXISTS (SELECT 1 FROM version_blobs v WHERE v.sha256 = b.sha256) \
         AND NOT EXISTS (SELECT 1 FROM blob_refs r WHERE r.sha256 = b.sha256) \
         AND NOT EXISTS (SELECT 1 FROM card_blobs c WHERE c.sha256 = b.sha256)";
    let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT sha256 FROM blobs b WHERE b.created_at < $1 AND {UNREFERENCED}"
    )))
    .bind(before)
    .fetch_all(db.pool())
    .await?;
    let mut count = 0;
    for row in rows {
        let sha: String = row.try_get(0)?;
        // Forget the row first, checked again (an upload may have held it since): a blob whose
        // row is gone is stored whole again by its next upload.
        let forgotten = sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM blobs WHERE sha256 = $1 AND created_at < $2 AND sha256 IN (SELECT b.sha256 FROM blobs b WHERE b.sha256 = $1 AND {UNREFERENCED})"
        )))
        .bind(&sha)
        .bind(before)
        .execute(db.pool())
        .await?;
        if forgotten.rows_affected() == 1 {
            blobs.delete(&sha).await?;
            count += 1;
        }
    }
    Ok(count)
}

/// The loop a hub process runs: every `tick`, claim and run what is due.
pub async fn worker(db: Db, blobs: Arc<dyn BlobStore>, tick: Duration) {
    let worker = format!("{}-{}", std::process::id(), crate::db::new_id());
    if let Err(error) = register(&db).await {
        tracing::warn!(%error, "failed to register the periodic jobs");
    }
    loop {
        while let Ok(Some(name)) = claim(&db, &worker).await {
            let outcome = match run(&db, blobs.as_ref(), &name).await {
                Ok(outcome) => outcome,
                Err(error) => format!("failed: {error}"),
            };
            tracing::info!(job = %name, %outcome, "periodic job");
            if let Err(error) = finish(&db, &name, &worker, &outcome).await {
                tracing::warn!(%error, job = %name, "failed to record a job's end");
            }
        }
        tokio::time::sleep(tick).await;
    }
}
