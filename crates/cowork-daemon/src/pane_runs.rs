//! What a pane sees of the audit log (`cowork.routines.runs`): the runs of its own app, and the
//! runs of the capabilities its manifest `uses` that were not made for another app. The app comes
//! from the pane's token; a `params.app` naming any other app narrows to nothing, never widens.

use cowork_core::audit::{Query, Record};
use cowork_engine::Workspace;
use cowork_wire::daemon::runs::PaneRun;

/// How many runs one answer lists, newest first.
const LIMIT: usize = 50;

/// The newest runs `app`'s pane may see, of `routine` when it names one, of `only` (its own app or
/// one of its capabilities) when it names one.
pub(crate) fn visible(
    ws: &Workspace,
    app: &str,
    routine: Option<String>,
    only: Option<&str>,
) -> Result<Vec<Record>, cowork_core::audit::AuditError> {
    let registry = ws.registry();
    let uses: Vec<String> = registry
        .app_by_name(app)
        .map(|a| a.manifest.uses.keys().cloned().collect())
        .unwrap_or_default();
    let sees = |record: &Record| {
        let owner = record.context.app_id.as_deref().unwrap_or_default();
        let caller = record.context.caller.as_ref().and_then(|c| c.app.as_deref());
        let ours = owner == app
            || (uses.iter().any(|used| used == owner) && caller.is_none_or(|c| c == app));
        ours && only.is_none_or(|only| only == owner)
    };
    // The filter is ours, after the log's: read every run of the routine, keep the first LIMIT.
    let page = ws.audit().list(&Query { routine, limit: 1_000_000, ..Default::default() })?;
    Ok(page.runs.into_iter().filter(sees).take(LIMIT).collect())
}

/// A run as a pane's `routines.runs` lists it.
pub(crate) fn pane_run(record: Record) -> PaneRun {
    PaneRun {
        run_id: record.context.run_id,
        routine: record.capability,
        app: record.context.app_id,
        kind: record.context.kind,
        status: record.status,
        ts: record.ts,
        duration_ms: record.duration_ms,
        chain: record.context.caller.map(|c| c.chain),
    }
}
