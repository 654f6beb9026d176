//! Run reports: each run of an app installed from a team server is reported to that team server
//! (page 03: "every runner reports its apps' runs to it on its own"), so its owners and admins
//! read them with `cowork routine runs --team-server <ts>`.
//!
//! A report carries what the audit line says of the run — never its input or result: the run id,
//! app and version, routine, this device, status, duration, start, a failure's name and message,
//! and a failed run's last lines with credential-looking strings cut
//! ([`cowork_core::audit::cut_credentials`], over the run's own masks).
//!
//! Which runs: those of an app whose install receipt names a store. The receipt is the install's
//! (issue 42 writes it, at [`receipt_path`]); this module reads only its `store` field (the team
//! server's slug) and `version`. A run is queued as one file under `<root>/reports/` the moment it
//! is audited (a write, no network: the engine's hook must not block), and [`flush`] sends the
//! queue — the daemon at each poll and after each queued run, the CLI after a run it made itself.
//! A report the hub refuses for good (the account left the team server) is dropped; one that
//! cannot be sent now waits for the next flush.

use crate::error::AccountError;
use crate::files::{now_millis, read, write};
use crate::session::Session;
use cowork_core::audit::{cut_credentials, Record, Status};
use cowork_core::paths::Root;
use cowork_wire::hub::client::ClientError;
use cowork_wire::hub::{HubErrorName, Millis, RunError, RunReport, RunStatus};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `<root>/reports/`: the reports not sent yet, one file each.
pub const REPORTS_DIR: &str = "reports";

/// The most reports kept waiting (a machine long offline): older ones are dropped.
const MAX_QUEUED: usize = 1000;

/// The install receipt of app folder `folder` (its name) in `workspace` (canonical):
/// `<root>/workspaces/<key>/installs/<folder>.json`.
pub fn receipt_path(root: &Root, workspace: &Path, folder: &str) -> PathBuf {
    root.workspace_dir(workspace).join("installs").join(format!("{folder}.json"))
}

/// The part of an install receipt the reporter reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallReceipt {
    /// The team server the app was installed from (its slug); none for a local app.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    /// The installed version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// One report waiting to be sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Queued {
    /// The team server it goes to.
    team_server: String,
    /// The account and hub it was made under: it is sent only with that account's session.
    uid: String,
    hub: String,
    report: RunReport,
}

/// Queues a report of `record` (a run of the app in `app_dir` of `workspace`) when that app was
/// installed from a team server and someone is signed in. Reads two small files and writes one;
/// never reaches the network. Whether a report was queued.
pub fn queue(
    session: &Session,
    workspace: &Path,
    app_dir: &str,
    record: &Record,
) -> Result<bool, AccountError> {
    let folder = app_dir.rsplit('/').next().unwrap_or(app_dir);
    let receipt: Option<InstallReceipt> = read(&receipt_path(session.root(), workspace, folder))?;
    let Some(team_server) = receipt.as_ref().and_then(|r| r.store.clone()) else {
        return Ok(false);
    };
    let Some(signed_in) = session.signed_in()? else { return Ok(false) };
    let report = RunReport {
        run_id: record.context.run_id.clone(),
        app: record.context.app_id.clone().unwrap_or_else(|| folder.to_string()),
        app_version: record.context.app_version.clone().or(receipt.and_then(|r| r.version)),
        routine: record.capability.clone(),
        device_id: session.device_id().to_string(),
        device: session.device_name().to_string(),
        status: match record.status {
            Status::Ok => RunStatus::Ok,
            Status::Error => RunStatus::Error,
            Status::Denied => RunStatus::Denied,
        },
        duration_ms: record.duration_ms,
        ts: parse_ts(&record.ts).unwrap_or_else(now_millis),
        error: record
            .error
            .as_ref()
            .map(|e| RunError { name: e.name.to_string(), message: cut_credentials(&e.message) }),
        // Only a failed run's lines travel.
        log_tail: (record.status == Status::Error)
            .then(|| record.log.as_deref().map(cut_credentials))
            .flatten(),
    };
    let queued = Queued { team_server, uid: signed_in.user.uid, hub: signed_in.hub, report };
    let dir = session.root().dir().join(REPORTS_DIR);
    let name = format!("{}-{}.json", now_millis(), safe(&queued.report.run_id));
    write(&dir.join(name), &queued)?;
    Ok(true)
}

/// What one flush did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flushed {
    /// Accepted by the hub, and removed from `reports/`.
    pub sent: usize,
    /// Refused for good (the account is no longer a member), or over the queue's bound: dropped.
    pub dropped: usize,
    /// Still waiting (the hub did not answer, nobody or another account is signed in).
    pub waiting: usize,
}

/// Sends the queued reports, oldest first. Another process flushing at the same time is left to
/// it (this one returns at once).
pub async fn flush(session: &Session) -> Result<Flushed, AccountError> {
    let dir = session.root().dir().join(REPORTS_DIR);
    let mut names: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Flushed::default()),
        Err(source) => return Err(AccountError::File { action: "read", path: dir, source }),
    };
    // `reports/.flush.lock`: one sender at a time.
    let lock = dir.join(".flush");
    let locked = cowork_core::fs_atomic::try_lock(&lock).map_err(|source| AccountError::File {
        action: "lock",
        path: lock,
        source,
    })?;
    let Some(_lock) = locked else {
        return Ok(Flushed { waiting: names.len(), ..Flushed::default() });
    };
    names.sort();
    let mut flushed = Flushed::default();
    let overflow = names.len().saturating_sub(MAX_QUEUED);
    for path in names.drain(..overflow) {
        let _ = std::fs::remove_file(path);
        flushed.dropped += 1;
    }
    let signed_in = session.signed_in()?;
    let mut reachable = true;
    for path in names {
        let queued: Option<Queued> = read(&path).ok().flatten();
        let Some(queued) = queued else {
            let _ = std::fs::remove_file(&path);
            flushed.dropped += 1;
            continue;
        };
        // Another account's (or hub's) report waits for that account to sign in again: it is
        // never sent with this one's session, nor thrown away because someone else signed in.
        let ours =
            signed_in.as_ref().is_some_and(|s| s.user.uid == queued.uid && s.hub == queued.hub);
        if !ours || !reachable {
            flushed.waiting += 1;
            continue;
        }
        let sent = session
            .call(|client| {
                let (slug, report) = (queued.team_server.clone(), queued.report.clone());
                async move { client.report_run(&slug, &report).await }
            })
            .await;
        match sent {
            Ok(()) => {
                let _ = std::fs::remove_file(&path);
                flushed.sent += 1;
            }
            Err(AccountError::Hub(ClientError::Hub { error, .. }))
                if matches!(
                    error.name,
                    HubErrorName::NotMember
                        | HubErrorName::NotFound
                        | HubErrorName::BadRequest
                        | HubErrorName::AlreadyExists
                ) =>
            {
                tracing::info!(team_server = %queued.team_server, name = %error.name, "a run report was refused: dropped");
                let _ = std::fs::remove_file(&path);
                flushed.dropped += 1;
            }
            Err(error) => {
                tracing::debug!(%error, "run reports wait for the next flush");
                reachable = false;
                flushed.waiting += 1;
            }
        }
    }
    Ok(flushed)
}

/// A run id as a file name's part.
fn safe(id: &str) -> String {
    id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').take(64).collect()
}

/// An audit line's `ts` in milliseconds since the epoch.
fn parse_ts(ts: &str) -> Option<Millis> {
    let at =
        time::OffsetDateTime::parse(ts, &time::format_description::well_known::Rfc3339).ok()?;
    Some((at.unix_timestamp_nanos() / 1_000_000) as Millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn another_accounts_report_waits_for_it_and_is_not_dropped_when_someone_else_signs_in() {
        let dir = tempfile::tempdir().unwrap();
        let root = cowork_core::paths::Root::new(dir.path());
        let session = Session::new(&root);
        let hub = "http://127.0.0.1:9";
        let signed_in = |uid: &str| {
            let me = cowork_wire::hub::Me {
                user: cowork_wire::hub::User {
                    uid: uid.into(),
                    email: format!("{uid}@example.com"),
                    display_name: uid.into(),
                },
                organization: None,
                manages: Vec::new(),
                hub_admin: false,
                session_id: format!("session-{uid}"),
                device_id: None,
            };
            crate::files::SignedIn::new(hub, me, crate::files::Method::Password, now_millis())
        };
        // Bob's run, queued while the hub was away.
        let report = RunReport {
            run_id: "r1".into(),
            app: "notes".into(),
            app_version: None,
            routine: "notes-list".into(),
            device_id: "d".into(),
            device: "vm".into(),
            status: RunStatus::Ok,
            duration_ms: 1,
            ts: now_millis(),
            error: None,
            log_tail: None,
        };
        let queued =
            Queued { team_server: "acme".into(), uid: "bob".into(), hub: hub.into(), report };
        write(&root.dir().join(REPORTS_DIR).join("1-r1.json"), &queued).unwrap();
        // Hank signs in on this machine: Bob's report is not his to send, nor to throw away.
        let mut file = session.files().account().unwrap();
        file.signed_in = Some(signed_in("hank"));
        session.files().write_account(&file).unwrap();
        let flushed = flush(&session).await.unwrap();
        assert_eq!((flushed.sent, flushed.dropped, flushed.waiting), (0, 0, 1));
        assert!(root.dir().join(REPORTS_DIR).join("1-r1.json").exists());
    }

    #[test]
    fn an_audit_timestamp_reads_as_milliseconds() {
        assert_eq!(parse_ts("1970-01-01T00:00:01.500Z"), Some(1500));
        assert_eq!(parse_ts("yesterday"), None);
    }

    #[test]
    fn a_receipt_with_fields_of_a_later_version_still_reads() {
        let receipt: InstallReceipt = serde_json::from_str(
            r#"{"store": "acme", "version": "1.2.0", "files": {"a": "b"}, "pinned": true}"#,
        )
        .unwrap();
        assert_eq!(receipt.store.as_deref(), Some("acme"));
    }
}
