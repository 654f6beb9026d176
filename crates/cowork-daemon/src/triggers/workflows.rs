//! What Manage Workspace › Workflows and the Monitor show of the triggers: each routine with a
//! trigger (its state, next fire, last run, what changed since it was armed), the runs triggers
//! started, and the Active switch — behind the owner token, as the secret store is. An app is given
//! no way to arm anything: its pane's SDK has no such method, and this route needs the owner
//! token. Confirming a routine changed since armed is the same switch, on again, with the triggers
//! the owner was shown (`expected`).

use crate::error::{ApiError, Body};
use crate::state::AppState;
use crate::workbench::workspace;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::Json;
use cowork_core::audit::{CallerSource, Source};
use cowork_core::triggers::arming::{self, Arming, Digest, SwitchError};
use cowork_core::triggers::deployments::{self, Trigger};
use cowork_core::triggers::schedule::Schedule;
use cowork_wire::daemon::triggers::{
    FiredBy, LastRun, SwitchActive, Switched, TriggeredRoutine, TriggeredRun, Workflows,
};
use cowork_wire::daemon::WorkspaceQuery;

/// How many triggered runs the Monitor lists.
const RECENT: usize = 20;

/// What started `record`, if a trigger did.
fn trigger_of(record: &cowork_core::audit::Record) -> Option<FiredBy> {
    let caller = record.context.caller.as_ref().and_then(|c| c.source);
    match (record.context.source, caller) {
        (Source::Schedule, Some(CallerSource::CatchUp)) => Some(FiredBy::CatchUp),
        (Source::Schedule, _) => Some(FiredBy::Schedule),
        (Source::Webhook, _) => Some(FiredBy::Webhook),
        (Source::System, Some(CallerSource::Notification)) => Some(FiredBy::Notification),
        _ => None,
    }
}

/// `GET /api/deploy/workflows?workspace=`: the routines that have a trigger here.
pub async fn list(
    State(state): State<AppState>,
    Query(query): Query<WorkspaceQuery>,
) -> Result<Json<Workflows>, ApiError> {
    let ws = workspace(&state, query.workspace.as_deref())?;
    let registry = ws.registry();
    let armed = Arming::new(state.engine.root(), ws.root()).read().unwrap_or_default();
    let records = ws.audit().records().unwrap_or_default();
    let tz = jiff::tz::TimeZone::system();
    let workflows = deployments::of(&registry.config)
        .into_iter()
        .filter(|(_, d)| !d.local_triggers().is_empty())
        .map(|(id, d)| {
            let entry = registry.routine(&id);
            let routine_state = armed.state(&id, Some(&d), entry.is_none_or(|r| r.disabled));
            let next = d
                .local_schedule()
                .filter(|_| routine_state.is_active())
                .and_then(|cron| Schedule::parse(cron).ok())
                .and_then(|s| s.next_after(jiff::Timestamp::now(), &tz))
                .map(|t| t.to_zoned(tz.clone()).strftime("%Y-%m-%dT%H:%M:%S%:z").to_string());
            let last_run = records.iter().find(|r| r.capability == id).map(|r| LastRun {
                run_id: r.context.run_id.clone(),
                ts: r.ts.clone(),
                status: r.status,
                source: r.context.source,
            });
            let triggers = d
                .local_triggers()
                .iter()
                .map(|t| match t {
                    Trigger::Schedule(_) => "schedule".to_string(),
                    Trigger::Webhook => "webhook".into(),
                    Trigger::Notifications(_) => "notifications".into(),
                })
                .collect();
            TriggeredRoutine {
                app: entry.map(|e| e.app_name.clone()).unwrap_or_default(),
                triggers,
                schedule: d.local_schedule().map(str::to_owned),
                active: routine_state.is_active(),
                state: routine_state.to_string(),
                declared: Digest::of(&d),
                changed: armed.change(&id, &d).map(|change| change.to_string()),
                next,
                last_run,
                id,
            }
        })
        .collect();
    let recent = records
        .iter()
        .filter_map(|r| {
            Some(TriggeredRun {
                trigger: trigger_of(r)?,
                run_id: r.context.run_id.clone(),
                routine: r.capability.clone(),
                ts: r.ts.clone(),
                status: r.status,
                duration_ms: r.duration_ms,
                queued_ms: r.queued_ms,
            })
        })
        .take(RECENT)
        .collect();
    let running = state.engine.slots().0;
    Ok(Json(Workflows {
        armed: armed.armed,
        workflows,
        running,
        queued: state.engine.queued(),
        running_now: ws.running(),
        recent,
    }))
}

/// `POST /api/deploy/active`: the Active switch (Manage › Workflows, the Monitor).
pub async fn active(
    State(state): State<AppState>,
    Body(body): Body<SwitchActive>,
) -> Result<Json<Switched>, ApiError> {
    let ws = workspace(&state, body.workspace.as_deref())?;
    let root = state.engine.root();
    let expected = body.expected.as_ref();
    let switched = arming::switch_routine(root, ws.root(), &body.id, body.active, expected)
        .map_err(|e| match e {
            SwitchError::NotFound(_) => ApiError::named(
                StatusCode::NOT_FOUND,
                cowork_engine::ErrorName::NotFound,
                e.to_string(),
            ),
            SwitchError::NoTrigger(_) => {
                ApiError::own(StatusCode::BAD_REQUEST, "NoTrigger", e.to_string())
            }
            SwitchError::ChangedAgain { .. } => ApiError::own(
                StatusCode::CONFLICT,
                "ChangedAgain",
                format!("{e}: nothing was armed; look at them again and confirm"),
            ),
            SwitchError::Arming(e) => {
                ApiError::internal("the Active switch could not be saved", &e)
            }
        })?;
    Ok(Json(Switched {
        ok: true,
        id: body.id,
        active: switched.active,
        state: switched.state.to_string(),
    }))
}
