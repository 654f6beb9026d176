//! Notification triggers: every notification an app raises (muted apps included) starts the
//! routines whose deployment lists that app (or `*`) and whose owner switched them on — with the
//! notification as args, `{app, appTitle, title, body?, tag?, urgent, at}`. The run's source is
//! `system`, tagged `notification` in `context.caller.source`; what that run (or a routine it
//! calls) notifies reaches the person but starts nothing (the engine never raises it here).
//! A rate-limited notification starts nothing either: the hub's 6-a-minute bound is the trigger's.

use crate::state::AppState;
use cowork_core::triggers::arming::Arming;
use cowork_core::triggers::deployments;
use cowork_engine::notifications::Raised;
use cowork_engine::{CallerSource, RunRequest, SlotWait, Source};
use tokio::sync::broadcast::error::RecvError;

/// The routines `raised` starts, by id: armed as they are declared, switched on, listening to its
/// app.
pub fn routines_for(state: &AppState, raised: &Raised) -> Vec<String> {
    let Ok(ws) = state.engine.workspace(&raised.workspace) else { return Vec::new() };
    let registry = ws.registry();
    let Ok(armed) = Arming::new(state.engine.root(), ws.root()).read() else { return Vec::new() };
    deployments::of(&registry.config)
        .into_iter()
        .filter(|(_, d)| d.listens_to(&raised.notification.app))
        .filter(|(id, d)| armed.fires(id, d))
        .filter(|(id, _)| registry.routine(id).is_some_and(|r| !r.disabled))
        .map(|(id, _)| id)
        .collect()
}

/// Starts the notification triggers until the daemon stops.
pub fn spawn(state: AppState) {
    let mut raised = state.engine.subscribe_raised();
    let mut stopping = state.stopping.clone();
    tokio::spawn(async move {
        loop {
            let next = tokio::select! {
                next = raised.recv() => next,
                _ = stopping.wait_for(|stopping| *stopping) => return,
            };
            let raised = match next {
                Ok(raised) => raised,
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(
                        missed,
                        "notification triggers fell behind; some notifications started nothing"
                    );
                    continue;
                }
                Err(RecvError::Closed) => return,
            };
            let Ok(ws) = state.engine.workspace(&raised.workspace) else { continue };
            let args =
                serde_json::to_value(&raised.notification).expect("a notification serializes");
            for id in routines_for(&state, &raised) {
                let mut request = RunRequest::new(id, args.clone(), Source::System);
                request.caller_source = Some(CallerSource::Notification);
                // Queued while every slot is busy, never refused for it; the engine audits
                // any other refusal, since nobody waits on this run's answer.
                request.slot_wait = SlotWait::Trigger;
                let ws = ws.clone();
                tokio::spawn(async move { ws.run(request).await });
            }
        }
    });
}
