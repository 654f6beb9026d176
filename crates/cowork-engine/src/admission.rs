//! Whether a run request may start at all: the refusals that come before anything runs (no such
//! routine, switched off, a cycle, too deep, another package's routine not reached through `uses`).

use crate::request::{RunFailure, RunRequest, MAX_DEPTH};
use cowork_core::error_name::ErrorName;
use cowork_core::registry::{Kind, Registry, RoutineEntry, SwitchedOff};

/// The routine `request` names, or why it may not run.
pub(crate) fn admit<'r>(
    registry: &'r Registry,
    request: &RunRequest,
) -> Result<&'r RoutineEntry, RunFailure> {
    let id = &request.routine;
    let Some(entry) = registry.routine(id) else {
        let why = registry
            .why_not_registered(id)
            .map(|why| format!(": its manifest entry was dropped ({why})"))
            .unwrap_or_default();
        return Err(RunFailure::refusal(
            ErrorName::NotFound,
            format!("no routine \"{id}\" in this workspace{why}"),
        ));
    };
    if let Some(why) = &registry.config.switches_unreadable {
        return Err(RunFailure::refusal(
            ErrorName::RoutineDisabled,
            format!("\"{id}\" may not run while the off-switches of .cowork/workspace.json cannot be read ({why}); fix the file (`cowork app list` names the problem)"),
        ));
    }
    if let Some(off) = registry.switched_off(id) {
        let message = match off {
            SwitchedOff::App(app) => format!("\"{id}\" belongs to {} ({}), which is switched off in .cowork/workspace.json#disabled.apps", app.manifest.name, app.dir),
            SwitchedOff::Routine => format!("the routine \"{id}\" is switched off in .cowork/workspace.json#disabled.routines"),
            SwitchedOff::File(file) => format!("the file of \"{id}\", {file}, is switched off in .cowork/workspace.json#disabled.apps"),
        };
        return Err(RunFailure::refusal(ErrorName::RoutineDisabled, message));
    }
    if let Some(message) = crate::secret_access::unrestricted_refusal(&registry.config, entry) {
        return Err(RunFailure::refusal(ErrorName::Forbidden, message));
    }
    if request.chain.contains(id) {
        let mut path = request.chain.clone();
        path.push(id.clone());
        return Err(RunFailure::refusal(
            ErrorName::RoutineCycle,
            format!("\"{id}\" is already running in this chain: {}", path.join(" → ")),
        ));
    }
    if request.chain.len() > MAX_DEPTH {
        return Err(RunFailure::refusal(
            ErrorName::RoutineDepth,
            format!("calls nest at most {MAX_DEPTH} deep ({} → {id})", request.chain.join(" → ")),
        ));
    }
    if let Some(caller) = &request.caller_app {
        check_uses(registry, caller, entry)?;
    }
    Ok(entry)
}

/// Under the capability model (an app declaring `kind` or `uses`), another package's routine is
/// reachable only through a capability named in `uses`, at a version that meets it.
fn check_uses(registry: &Registry, caller: &str, target: &RoutineEntry) -> Result<(), RunFailure> {
    if target.app_name == caller {
        return Ok(());
    }
    let Some(app) = registry.app_by_name(caller) else { return Ok(()) };
    let manifest = &app.manifest;
    if !manifest.kind_declared && !manifest.declares_uses {
        return Ok(());
    }
    if target.kind != Kind::Capability {
        return Err(RunFailure::refusal(ErrorName::Forbidden,
            format!("{caller} may not run \"{}\": it belongs to the app {}, and an app's routines are its own (only a capability's are shared)", target.id, target.app_name),
        ));
    }
    let Some(wanted) = manifest.uses.get(&target.app_name) else {
        return Err(RunFailure::refusal(ErrorName::Forbidden,
            format!(
                "{caller} may not run \"{}\": it belongs to the capability {}, which {}/cowork.json does not use — add \"uses\": {{\"{}\": \"{}\"}}",
                target.id, target.app_name, app.dir, target.app_name, target.app_version
            ),
        ));
    };
    if !cowork_core::manifest::satisfies(wanted, &target.app_version) {
        return Err(RunFailure::refusal(ErrorName::NotFound,
            format!("{caller} needs the capability {} {wanted} or a later {}.x, but this workspace has {}", target.app_name, wanted.split('.').next().unwrap_or(wanted), target.app_version),
        ));
    }
    Ok(())
}
