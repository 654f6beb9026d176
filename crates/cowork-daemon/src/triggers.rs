//! Triggers: what starts a routine on its own — schedules, webhooks and notifications — once the
//! owner armed them (`cowork_core::triggers`, where what they are and when they fire is decided).
//! This module fires them: the tick loop of the schedules, the webhook router, the listener of
//! raised notifications, and the Workflows view's routes. Each fired run is an ordinary run
//! (slots, timeouts, masking, its audit line) with its `source`: `schedule`, `webhook`, or
//! `system` for a notification (tagged `notification` in `context.caller.source`). It waits for a
//! slot when every one is busy (`cowork_engine::slots`), and the engine audits any refusal of it.

pub mod notifications;
pub mod webhook;
pub mod workflows;

use crate::state::AppState;
use cowork_core::paths::Root;
use cowork_core::triggers::arming;
use cowork_core::triggers::scheduler::{self, Fire, LastFires};
use cowork_engine::{CallerSource, Engine, RunRequest, SlotWait, Source};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// How often the scheduler looks.
pub const TICK: Duration = Duration::from_secs(10);

/// Runs the scheduler until the daemon stops: every [`TICK`], the schedules due are fired in
/// local time (the system's time zone, read again each time: a laptop that travels follows its
/// clock).
pub fn spawn_scheduler(state: AppState) {
    let mut stopping = state.stopping.clone();
    tokio::spawn(async move {
        loop {
            let engine = state.engine.clone();
            let fires = tokio::task::spawn_blocking(move || {
                let tz = jiff::tz::TimeZone::system();
                tick(&engine, jiff::Timestamp::now(), &tz)
            })
            .await
            .unwrap_or_default();
            for (workspace, fire) in fires {
                fire_schedule(&state, workspace, fire);
            }
            tokio::select! {
                () = tokio::time::sleep(TICK) => {}
                _ = stopping.wait_for(|stopping| *stopping) => return,
            }
        }
    });
}

/// One look at every armed workspace: the fires due at `now`, each workspace's last fires written
/// before they are returned. A workspace's schedules come from the engine's registry of it, which
/// its watcher keeps fresh; one the engine cannot open (moved, deleted) has none.
fn tick(engine: &Engine, now: jiff::Timestamp, tz: &jiff::tz::TimeZone) -> Vec<(PathBuf, Fire)> {
    let root: &Root = engine.root();
    let mut all = Vec::new();
    for (workspace, armed) in arming::armed_workspaces(root) {
        let registry = engine.workspace(&workspace).ok().map(|ws| ws.registry());
        let armed_schedules = registry
            .map(|registry| scheduler::armed_schedules(&registry, &armed))
            .unwrap_or_default();
        let mut schedules = BTreeMap::new();
        for (id, schedule) in armed_schedules {
            match schedule {
                Ok(schedule) => {
                    schedules.insert(id, schedule);
                }
                Err(error) => {
                    tracing::warn!(%error, routine = %id, workspace = %workspace.display(), "schedule skipped");
                }
            }
        }
        let mut last = LastFires::read(root, &workspace);
        let before = last.clone();
        let fires = scheduler::due(&schedules, &mut last, now, tz);
        if last != before {
            if let Err(error) = last.write(root, &workspace) {
                // Not recorded: firing could fire the same minute again after a restart.
                tracing::error!(%error, workspace = %workspace.display(), "schedules not fired: their last fire could not be saved");
                continue;
            }
        }
        all.extend(fires.into_iter().map(|fire| (workspace.clone(), fire)));
    }
    all
}

fn fire_schedule(state: &AppState, workspace: PathBuf, fire: Fire) {
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
        request.caller_source = Some(CallerSource::CatchUp);
    }
    tokio::spawn(async move { ws.run(request).await });
}
