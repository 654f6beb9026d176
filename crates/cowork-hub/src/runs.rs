//! Run reports: a member's runner reports each run of an app installed from the team server —
//! never its input or result — and owners and admins read them. A failed run's last lines and
//! error message are cut of credential-looking strings here too (the runner cuts them first), with
//! the same function (`cowork_core::audit::cut_credentials`).

use crate::accounts::UserRow;
use crate::audit::{cursor, parse_cursor};
use crate::db::{new_id, now_ms, Db};
use crate::error::HubErr;
use crate::teams;
use cowork_wire::hub::{ReportedRun, RunError, RunPage, RunQuery, RunReport, RunStatus};
use sqlx::Row;

fn last_chars(text: &str, max: usize) -> String {
    let count = text.chars().count();
    text.chars().skip(count.saturating_sub(max)).collect()
}

fn check(what: &str, value: &str, max: usize) -> Result<(), HubErr> {
    if value.is_empty() || value.chars().count() > max {
        return Err(HubErr::bad_request(format!(
            "failed to accept the run report: {what} needs 1 to {max} characters"
        )));
    }
    Ok(())
}

/// Store one report (a member's). A run reported twice is kept once.
pub async fn report(db: &Db, user: &UserRow, slug: &str, report: &RunReport) -> Result<(), HubErr> {
    let access = teams::access(db, slug, user).await?;
    access.require_member()?;
    check("runId", &report.run_id, 100)?;
    check("app", &report.app, 100)?;
    check("routine", &report.routine, 200)?;
    check("deviceId", &report.device_id, 64)?;
    check("device", &report.device, 200)?;
    let failed = report.status != RunStatus::Ok;
    let log_tail = report
        .log_tail
        .as_deref()
        .filter(|_| failed)
        .map(|t| last_chars(&cowork_core::audit::cut_credentials(t), 2000));
    let error = report.error.as_ref().filter(|_| failed);
    sqlx::query(
        "INSERT INTO run_reports (id, team_server_id, run_id, user_id, app, app_version, routine, device_id, device, status, duration_ms, ts, error_name, error_message, log_tail, received_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT (team_server_id, run_id) DO NOTHING",
    )
    .bind(new_id())
    .bind(&access.ts.id)
    .bind(&report.run_id)
    .bind(&user.id)
    .bind(&report.app)
    .bind(report.app_version.clone())
    .bind(&report.routine)
    .bind(&report.device_id)
    .bind(&report.device)
    .bind(report.status.as_str())
    .bind(i64::try_from(report.duration_ms).unwrap_or(i64::MAX))
    .bind(report.ts)
    .bind(error.map(|e| last_chars(&e.name, 100)))
    .bind(error.map(|e| last_chars(&cowork_core::audit::cut_credentials(&e.message), 2000)))
    .bind(log_tail)
    .bind(now_ms())
    .execute(db.pool())
    .await?;
    Ok(())
}

/// A page of reports (owners and admins), newest first.
pub async fn page(
    db: &Db,
    user: &UserRow,
    slug: &str,
    query: &RunQuery,
) -> Result<RunPage, HubErr> {
    let access = teams::access(db, slug, user).await?;
    access.require_admin()?;
    let limit = i64::from(query.limit.unwrap_or(50).clamp(1, 200));
    let (before_ts, before_id) = parse_cursor(query.before.as_deref())?;
    let rows = sqlx::query(
        "SELECT r.*, u.email FROM run_reports r JOIN users u ON u.id = r.user_id WHERE r.team_server_id = $1 \
         AND ($2 = '' OR r.app = $2) AND ($3 = '' OR r.device_id = $3 OR r.device = $3) AND ($4 = '' OR r.status = $4) \
         AND (r.received_at < $5 OR (r.received_at = $5 AND r.id < $6)) \
         ORDER BY r.received_at DESC, r.id DESC LIMIT $7",
    )
    .bind(&access.ts.id)
    .bind(query.app.clone().unwrap_or_default())
    .bind(query.device.clone().unwrap_or_default())
    .bind(query.status.map(|s| s.as_str().to_string()).unwrap_or_default())
    .bind(before_ts)
    .bind(before_id)
    .bind(limit + 1)
    .fetch_all(db.pool())
    .await?;
    let mut runs = Vec::new();
    let mut keys = Vec::new();
    for row in &rows {
        let error_name: Option<String> = row.try_get("error_name")?;
        let error_message: Option<String> = row.try_get("error_message")?;
        let received_at: i64 = row.try_get("received_at")?;
        keys.push(cursor(received_at, &row.try_get::<String, _>("id")?));
        runs.push(ReportedRun {
            report: RunReport {
                run_id: row.try_get("run_id")?,
                app: row.try_get("app")?,
                app_version: row.try_get("app_version")?,
                routine: row.try_get("routine")?,
                device_id: row.try_get("device_id")?,
                device: row.try_get("device")?,
                status: RunStatus::parse(&row.try_get::<String, _>("status")?)
                    .unwrap_or(RunStatus::Error),
                duration_ms: u64::try_from(row.try_get::<i64, _>("duration_ms")?).unwrap_or(0),
                ts: row.try_get("ts")?,
                error: error_name
                    .map(|name| RunError { name, message: error_message.unwrap_or_default() }),
                log_tail: row.try_get("log_tail")?,
            },
            user: row.try_get("email")?,
            received_at,
        });
    }
    let next = if runs.len() > usize::try_from(limit).unwrap_or(50) {
        runs.pop();
        keys.get(runs.len().wrapping_sub(1)).cloned()
    } else {
        None
    };
    Ok(RunPage { runs, next })
}
