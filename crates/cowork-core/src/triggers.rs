//! Triggers: what makes a routine run on its own — a schedule, a webhook, the notifications of
//! some apps — as domain code the daemon and the CLI share. The daemon fires them (its tick loop,
//! its webhook router, its notification listener); everything here is data and pure functions:
//!
//! * [`deployments`]: what `.cowork/workspace.json#deployments` declares for each routine — its
//!   triggers, and where it is deployed (`cowork deploy add` writes it; checked in).
//! * [`arming`]: the owner's consent that they fire on this machine (`triggers.json` under the
//!   Cowork root): the workspace's switch, and each routine's Active switch with the digest of what
//!   it armed.
//! * [`schedule`]: a 5-field cron expression and when it falls due, in a time zone.
//! * [`scheduler`]: which armed schedules are due at a given `now`, and the last fire of each.
//!
//! [`hook_path`] is where a routine's webhook answers.

pub mod arming;
pub mod deployments;
pub mod schedule;
pub mod scheduler;

use std::path::Path;

/// The path of routine `id`'s webhook in `workspace` (absolute, canonical) on the daemon's port:
/// `/hooks/<workspace key>/<id>` — the key is the workspace's folder name under the Cowork root.
pub fn hook_path(workspace: &Path, id: &str) -> String {
    format!("/hooks/{}/{id}", crate::paths::workspace_key(workspace))
}
