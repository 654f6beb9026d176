//! The input of a send or an ack, checked before any transaction starts: names, sizes, leases,
//! subjects, and the files to attach, read.

use super::{ANYONE, OWNER};
use crate::error::{QueueError, Result};
use crate::files::{self, Attachment};
use crate::model::*;
use std::path::Path;

pub(super) fn check_batch(field: &str, len: usize) -> Result<()> {
    if len == 0 || len > MAX_BATCH {
        return Err(QueueError::bad(field, format!("{len} is not within 1..={MAX_BATCH}")));
    }
    Ok(())
}

/// A task to send, checked, its files read.
pub(super) struct Checked<'a> {
    pub(super) options: &'a SendOptions,
    pub(super) body: &'a str,
    pub(super) subject: String,
    pub(super) from: &'a str,
    pub(super) to: &'a str,
    pub(super) delay_ms: i64,
    pub(super) meta: Option<String>,
    pub(super) attachments: Vec<Attachment>,
}

pub(super) fn checked_task<'a>(
    workspace: &Path,
    body: &'a str,
    options: &'a SendOptions,
) -> Result<Checked<'a>> {
    check_body("body", body)?;
    let to = options.to.as_deref().unwrap_or(ANYONE);
    check_name("to", to)?;
    let from = options.sender.as_deref().unwrap_or(OWNER);
    check_name("as", from)?;
    let subject = subject_of(options.subject.as_deref(), body)?;
    if let Some(reference) = &options.reference {
        if reference.is_empty() || reference.len() > 200 {
            return Err(QueueError::bad("ref", "a ref is 1 to 200 characters"));
        }
    }
    let delay = options.delay_s.unwrap_or(0);
    check_seconds("delay", delay, MAX_SECONDS)?;
    let meta = match &options.meta {
        None => None,
        Some(value) if value.is_object() => Some(value.to_string()),
        Some(_) => return Err(QueueError::bad("meta", "must be a JSON object")),
    };
    let attachments = files::load(workspace, "files", &options.files)?;
    Ok(Checked {
        options,
        body,
        subject,
        from,
        to,
        delay_ms: (delay as i64) * 1000,
        meta,
        attachments,
    })
}

/// `ack`'s options checked; the files to attach, read.
pub(super) fn checked_ack(workspace: &Path, options: &AckOptions) -> Result<Vec<Attachment>> {
    if let Some(result) = &options.result {
        check_body("result", result)?;
    }
    if let Some(to) = &options.to {
        check_name("to", to)?;
    }
    files::load(workspace, "files", &options.files)
}

pub(super) fn check_receiver(options: &ReceiveOptions) -> Result<Option<&str>> {
    match options.receiver.as_deref() {
        Some(name) => {
            check_name("as", name)?;
            Ok(Some(name))
        }
        None if options.mine => Err(QueueError::bad("mine", "--mine needs --as <name>")),
        None => Ok(None),
    }
}

pub(super) fn check_lease(lease: u64) -> Result<()> {
    if lease == 0 {
        return Err(QueueError::bad("lease", "a lease is at least 1 s"));
    }
    check_seconds("lease", lease, MAX_SECONDS)
}

/// The subject given, else the body's first non-empty line, cut to 200 characters.
fn subject_of(given: Option<&str>, body: &str) -> Result<String> {
    let subject = match given {
        Some(subject) => {
            if subject.contains('\n') {
                return Err(QueueError::bad("subject", "a subject is one line"));
            }
            subject.trim().to_string()
        }
        None => body.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default().to_string(),
    };
    if subject.is_empty() {
        return Err(QueueError::bad("body", "a task needs a body or a --subject"));
    }
    Ok(subject.chars().take(200).collect())
}
