//! How a run request becomes a run (`Workspace::run`): refusals first (no such routine, switched
//! off, too deep, a cycle, the workspace holding the Cowork root), then an identical call in flight
//! is shared, then a concurrency slot (a triggered run waits in line for one), then a fresh process
//! (`run.rs`), then one audit line. It sits above both `workspace.rs` (the tables it uses) and
//! `run.rs` (the process), and hands `run.rs` the way back for nested runs (`StartNested`), so
//! neither imports it.

use crate::admission;
use crate::event::Event;
use crate::inflight::{inflight_key, Claim};
use crate::masks::Masks;
use crate::request::{new_run_id, RunFailure, RunRequest, RunResult, RunSuccess, TimeLimit};
use crate::run::{self, FromLaunch, StartNested};
use crate::running::RunningRun;
use crate::slots::{NoSlot, Place, SlotWait, RETRY_AFTER, WEBHOOK_WAIT};
use crate::workspace::Workspace;
use cowork_core::audit::{self, Outcome, Record, RecordedError, Source, Status};
use cowork_core::error_name::ErrorName;
use cowork_core::registry::RoutineEntry;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;
use time::OffsetDateTime;

impl Workspace {
    /// Runs a routine: refusals at once, a widget's identical calls in flight shared, one audit
    /// line per run.
    ///
    /// A run a trigger started (`request.slot_wait`) waits for a slot instead of being refused
    /// one, and any refusal of it is an audit line too: nobody else would hear of it.
    pub async fn run(self: &Arc<Self>, request: RunRequest) -> RunResult {
        self.reload_if_switches_changed();
        let mut registry = self.registry();
        if registry.routine(&request.routine).is_none() {
            // An app written a moment ago: the watcher reloads only after its quiet period, and
            // a run asked for at once (`cowork routine list` already shows it) must not miss it.
            self.reload();
            registry = self.registry();
        }
        let admitted = match self.overlap() {
            Some(why) => Err(RunFailure::refusal(ErrorName::HoldsRoot, why.to_owned())),
            None => admission::admit(&registry, &request),
        };
        let entry = match admitted {
            Ok(entry) => entry.clone(),
            Err(refusal) => {
                if request.slot_wait != SlotWait::Never {
                    self.refused(
                        registry.routine(&request.routine),
                        &request,
                        &new_run_id(),
                        &refusal,
                    );
                }
                return Err(refusal);
            }
        };
        // Only a widget's call shares a run in flight (`cowork.routines.run`, page 04): the
        // CLI, an agent, a webhook, a schedule and a nested `ctx.routines.run` each ask for a
        // run of their own, with its own audit line naming who asked.
        if request.source != audit::Source::App || !request.chain.is_empty() {
            let masks = Arc::new(Masks::default());
            if let Some(caller) = request.caller_masks() {
                masks.pass_on_to(caller);
            }
            return self.run_admitted(&entry, &request, &masks).await;
        }
        let key = inflight_key(&entry.id, request.caller_app.as_deref(), &request.args);
        let mut joined_a_refusal = false;
        let (sender, masks) = loop {
            let (mut answer, masks) = match self.inflight().claim(&key) {
                Claim::Run(sender, masks) => break (sender, masks),
                Claim::Join(answer, masks) => (answer, masks),
            };
            // A caller sharing the run masks what the run reads, as if it had run it.
            if let Some(caller) = request.caller_masks() {
                masks.pass_on_to(caller);
            }
            let joined = match answer.wait_for(Option::is_some).await {
                Ok(result) => result.clone(),
                Err(_) => None,
            };
            if let Some(result) = joined {
                // The run it shared was refused a slot, and this one may wait for one: it asks
                // once itself (the run that refused has finished its entry).
                let refused_a_slot = matches!(&result, Err(f) if f.run_id.is_none() && f.name == ErrorName::TooManyRoutines);
                if !refused_a_slot || request.slot_wait == SlotWait::Never || joined_a_refusal {
                    return result;
                }
                joined_a_refusal = true;
                continue;
            }
            // The run it joined was dropped before it answered: clear its entry and start one.
            self.inflight().clear_dropped(&key, &answer);
        };
        if let Some(caller) = request.caller_masks() {
            masks.pass_on_to(caller);
        }
        let result = self.run_admitted(&entry, &request, &masks).await;
        self.inflight().finish(&key);
        sender.send_replace(Some(result.clone()));
        result
    }

    /// The refusal of a run that got no slot: what is busy, and when to try again.
    fn no_slot(&self, why: NoSlot) -> RunFailure {
        let slots = self.shared().slots();
        let running = match slots.max() {
            1 => "1 routine is running already".to_string(),
            max => format!("{max} routines are running already"),
        };
        let retry = RETRY_AFTER.as_secs();
        let message = match why {
            NoSlot::Busy => format!("{running}, the most at once; try again when one finishes"),
            NoSlot::LineFull => format!(
                "{running}, the most at once, and {} webhook calls wait for a slot, the most that may; try again in {retry} s",
                slots.queue()
            ),
            NoSlot::WaitedOut => format!(
                "{running}, the most at once, and none finished within the {} s this call may wait; try again in {retry} s",
                WEBHOOK_WAIT.as_secs()
            ),
            NoSlot::AgentsFull => format!(
                "agents' runs hold {} of the {} routine slots, their share (the rest is kept for the workspace owner's own runs); try again when one finishes",
                slots.agents_max(),
                slots.max()
            ),
        };
        RunFailure::refusal(ErrorName::TooManyRoutines, message)
    }

    /// The same as [`Workspace::run`], boxed so that a run can start nested runs.
    pub(crate) fn run_boxed(
        self: Arc<Self>,
        request: RunRequest,
    ) -> Pin<Box<dyn Future<Output = RunResult> + Send>> {
        Box::pin(async move { self.run(request).await })
    }

    async fn run_admitted(
        self: &Arc<Self>,
        entry: &RoutineEntry,
        request: &RunRequest,
        masks: &Arc<Masks>,
    ) -> RunResult {
        let run_id = new_run_id();
        let queued_at = OffsetDateTime::now_utc();
        let listing = |queued: bool, at: OffsetDateTime| RunningRun {
            run_id: run_id.clone(),
            routine: entry.id.clone(),
            app: entry.app_name.clone(),
            started: audit::format_ts(at),
            source: request.source,
            principal: request.principal.clone(),
            agent: request.agent.clone(),
            task: request.task.clone(),
            queued,
            queued_ms: None,
        };
        let refuse = |why: NoSlot| {
            let failure = self.no_slot(why);
            if request.slot_wait != SlotWait::Never {
                self.refused(Some(entry), request, &run_id, &failure);
            }
            failure
        };
        // An agent's call, and what it nests, counts against the agents' share of the slots.
        let agent = request.source == Source::Mcp;
        let place = self.shared().slots().join(request.slot_wait, agent).map_err(refuse)?;
        let (_slot, queued, listed) = match place {
            Place::Now(slot) => (slot, None, None),
            Place::InLine(waiting) => {
                // Listed while it waits, so Monitor and Executions show the delay as it grows.
                let listed = self.running_runs().enter(listing(true, queued_at));
                self.emit(Event::RunQueued {
                    workspace: self.display(),
                    run_id: run_id.clone(),
                    routine: entry.id.clone(),
                });
                let since = Instant::now();
                match waiting.slot().await {
                    Ok(slot) => (slot, Some(since.elapsed().as_millis() as u64), Some(listed)),
                    Err(why) => {
                        // Off the list before the `run` event that says so.
                        drop(listed);
                        return Err(refuse(why));
                    }
                }
            }
        };
        let started = Instant::now();
        let started_at = OffsetDateTime::now_utc();
        let limit = TimeLimit::of(entry, request, started);
        let _listed = match listed {
            Some(listed) => {
                listed.start(audit::format_ts(started_at), queued.unwrap_or_default());
                listed
            }
            None => self.running_runs().enter(listing(false, started_at)),
        };
        self.emit(Event::RunStarted {
            workspace: self.display(),
            run_id: run_id.clone(),
            routine: entry.id.clone(),
        });
        let nested: StartNested = {
            let ws = self.clone();
            Arc::new(move |request| ws.clone().run_boxed(request))
        };
        // Who the run is for, read once: `ctx.identity` and the audit line agree, and a sign-out
        // while it runs changes neither.
        let identity = self.identity();
        let launch = FromLaunch { identity: &identity, start_nested: nested };
        let finished = run::execute(self, entry, request, &run_id, &limit, masks, launch).await;
        let duration_ms = started.elapsed().as_millis() as u64;
        let (status, error) = match &finished.outcome {
            Ok(_) => (Status::Ok, None),
            Err(f) => (
                Status::Error,
                Some(RecordedError { name: f.name.clone(), message: f.message.clone() }),
            ),
        };
        let result_value = finished.outcome.as_ref().ok().map(|(v, _)| v.clone());
        let mask = |text: &str| masks.apply(text);
        let mut record = Record::finish(
            started_at,
            &entry.id,
            &request.args,
            duration_ms,
            self.context(Some(entry), request, &run_id, &identity),
            Outcome {
                status,
                error,
                result: result_value.as_ref(),
                log_lines: &finished.log,
                unchanged: finished.unchanged,
                mask: Some(&mask),
            },
        );
        record.queued_ms = queued;
        // The run happened either way; its caller must hear that no record of it was kept.
        let audit_lost = self.audit().append(&record).err().map(|error| {
            tracing::error!(%error, "audit line lost");
            format!("this run was not recorded in the audit log ({error}); `cowork routine runs` will not list it")
        });
        self.finished(Some(entry), &record);
        self.emit(Event::Run {
            workspace: self.display(),
            run_id: run_id.clone(),
            routine: entry.id.clone(),
            status,
            duration_ms,
            error: record.error.clone(),
        });
        match finished.outcome {
            Ok((result, mut warnings)) => {
                warnings.extend(audit_lost);
                Ok(RunSuccess { run_id, result, warnings })
            }
            Err(mut failure) => {
                failure.run_id = Some(run_id);
                if let Some(lost) = audit_lost {
                    failure.message = format!("{} (also: {lost})", failure.message);
                }
                Err(failure)
            }
        }
    }
}
