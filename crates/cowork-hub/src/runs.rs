//! Run reports: a member's runner reports each run of an app installed from the team server —
//! never its input or result — and owners and admins read them. A failed run's last lines and
//! error message are cut of credential-looking strings here too (the runner cuts them first), with
//! the audit log's rule for names (`cowork_core::audit::is_credential_key`) and a few well-known
//! token shapes.

use crate::accounts::UserRow;
use crate::audit::{cursor, parse_cursor};
use crate::db::{new_id, now_ms, Db};
use crate::error::HubErr;
use crate::teams;
use cowork_wire::hub::{ReportedRun, RunError, RunPage, RunQuery, RunReport, RunStatus};
use regex::Regex;
use sqlx::Row;
use std::sync::OnceLock;

const REDACTED: &str = "[redacted]";

/// `text` with credential-looking strings replaced by `[redacted]`: the value after a
/// credential-named key (`password=…`, `"api_key": "…"`, `token: …`), a bearer or basic
/// authorization, and tokens of well-known shapes (JWTs, `sk-…`, `ghp_…`, `xox?-…`, AWS key ids,
/// the hub's own `hat_`/`hrt_`).
pub fn cut_credentials(text: &str) -> String {
    static KEYED: OnceLock<Regex> = OnceLock::new();
    static SHAPES: OnceLock<Regex> = OnceLock::new();
    let keyed = KEYED.get_or_init(|| {
        Regex::new(r#"(?i)(["']?)([A-Za-z0-9_.-]*(?:password|secret|api[_-]?key|token|authorization|cookie))(["']?\s*[:=]\s*)(["']?)(?:bearer\s+|basic\s+)?([^\s"',;&]+)"#)
            .expect("a valid pattern")
    });
    let shapes = SHAPES.get_or_init(|| {
        Regex::new(r"(?i)\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}|\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bxox[abprs]-[A-Za-z0-9-]{10,}|\bAKIA[0-9A-Z]{16}\b|\bh[ar]t_[0-9a-f]{32}_[A-Za-z0-9_-]+")
            .expect("a valid pattern")
    });
    let keyed_cut = keyed.replace_all(text, |caps: &regex::Captures<'_>| {
        if cowork_core::audit::is_credential_key(&caps[2]) {
            format!("{}{}{}{}{REDACTED}", &caps[1], &caps[2], &caps[3], &caps[4])
        } else {
            caps[0].to_string()
        }
    });
    shapes.replace_all(&keyed_cut, REDACTED).into_owned()
}

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
        .map(|t| last_chars(&cut_credentials(t), 2000));
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
    .bind(error.map(|e| last_chars(&cut_credentials(&e.message), 2000)))
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

#[cfg(test)]
mod tests {
    use super::cut_credentials;

    #[test]
    fn credential_looking_strings_are_cut() {
        let line = r#"POST with Authorization: Bearer abcdefgh12345678 and {"api_key": "k-123456", "user": "ana"} password=hunter22 sk-abcdefghijklmnopqrstu"#;
        let cut = cut_credentials(line);
        for secret in ["abcdefgh12345678", "k-123456", "hunter22", "sk-abcdefghijklmnopqrstu"] {
            assert!(!cut.contains(secret), "{secret} left in {cut}");
        }
        assert!(cut.contains(r#""user": "ana""#), "{cut}");
    }

    #[test]
    fn plain_lines_are_kept() {
        let line = "fetched 12 rows from inbox in 812 ms (tokens_used: 3)";
        assert_eq!(cut_credentials(line), line);
    }
}
