//! Triggers: what starts a routine on its own — schedules, webhooks and notifications — once the
//! owner armed them (`cowork_core::arming`). Each fired run is an ordinary run (slots, timeouts,
//! masking, its audit line) with its `source`: `schedule`, `webhook`, or `system` for a
//! notification (tagged `notification` in `context.caller.source`). It waits for a slot when every
//! one is busy (`cowork_engine::slots`), and the engine audits any refusal of it.

pub mod notifications;
pub mod schedule;
pub mod scheduler;
pub mod webhook;
pub mod workflows;

use crate::state::AppState;
use cowork_engine::{RunRequest, SlotWait, Source};
use std::path::PathBuf;

/// Runs the scheduler until the daemon stops: every [`scheduler::TICK`], the schedules due are
/// fired in local time (the system's time zone, read again each time: a laptop that travels
/// follows its clock).
pub fn spawn_scheduler(state: AppState) {
    let mut stopping = state.stopping.clone();
    tokio::spawn(async move {
        loop {
            let root = state.engine.root().clone();
            let fires = tokio::task::spawn_blocking(move || {
                let tz = jiff::tz::TimeZone::system();
                scheduler::tick(&root, jiff::Timestamp::now(), &tz)
            })
            .await
            .unwrap_or_default();
            for (workspace, fire) in fires {
                fire_schedule(&state, workspace, fire);
            }
            tokio::select! {
                () = tokio::time::sleep(scheduler::TICK) => {}
                _ = stopping.wait_for(|stopping| *stopping) => return,
            }
        }
    });
}

fn fire_schedule(state: &AppState, workspace: PathBuf, fire: scheduler::Fire) {
    let ws = match state.engine.workspace(&workspace) {
        Ok(ws) => ws,
        Err(error) => {
            tracing::warn!(%error, routine = %fire.id, "a scheduled run could not start");
            return;
        }
    };
    let mut request = RunRequest::new(fire.id, serde_json::json!({}), Source::Schedule);
    request.slot_wait = SlotWait::Trigger;
    if fire.catch_up {
        request.caller_source = Some("catch-up".into());
    }
    tokio::spawn(async move { ws.run(request).await });
}

/// The path of routine `id`'s webhook in `workspace` (absolute, canonical) on the daemon's port:
/// `/hooks/<workspace key>/<id>` — the key is the workspace's folder name under the Cowork root.
pub fn hook_path(workspace: &std::path::Path, id: &str) -> String {
    format!("/hooks/{}/{id}", cowork_core::paths::workspace_key(workspace))
}
