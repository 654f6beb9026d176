//! Concurrency slots, and the line a triggered run waits in for one.
//!
//! At most `max` routines run at once across every workspace of an engine. A call someone is
//! waiting on — the owner's CLI, a widget, an agent, a routine's `ctx.routines.run` — is refused
//! at once when every slot is busy (page 03: `TooManyRoutines`, "at once, never waited out"): its
//! caller is there to hear it and decide. A run a trigger started has nobody to hear a refusal,
//! so it waits in line instead ([`SlotWait`]): a schedule's fire or a notification's run until a
//! slot frees, ahead of webhook calls; a webhook call behind at most `queue` others and for at
//! most [`WEBHOOK_WAIT`], past which its caller is told to come back ([`RETRY_AFTER`]).
//!
//! A freed slot is handed to the first in line rather than given back, so a call that arrives
//! while runs wait never takes a slot from under them.
//!
//! Agents' runs (through the MCP door, and the runs they nest) hold at most half the slots
//! ([`Slots::agents_max`]): an agent — even one allowed only reads — that keeps slow calls going
//! cannot take every slot, so the owner's terminal and widget runs, triggers and other
//! workspaces still get one. Past its share an agent's call is refused `TooManyRoutines` at once,
//! as its calls are when every slot is busy.

use parking_lot::Mutex;
use std::collections::VecDeque;
use std::time::Duration;
use tokio::sync::oneshot;

/// Webhook calls that may wait for a slot at once when nothing else is configured
/// (`cowork start --queue`).
pub const DEFAULT_QUEUE: usize = 64;
/// The longest a webhook call waits for a slot; then it is answered 429.
pub const WEBHOOK_WAIT: Duration = Duration::from_secs(30);
/// What a refused webhook call's `Retry-After` says.
pub const RETRY_AFTER: Duration = Duration::from_secs(5);

/// How a run waits for a concurrency slot when every one is busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SlotWait {
    /// Refused at once with `TooManyRoutines`: the owner's, an app's, an agent's call and a nested
    /// run (waiting there could hold its caller's slot while every other waits too).
    #[default]
    Never,
    /// A webhook call: waits behind at most the queue's bound of other calls, for at most
    /// [`WEBHOOK_WAIT`]; past either it is refused `TooManyRoutines` and the hook answers 429.
    Webhook,
    /// A schedule's fire or a notification's run: waits until a slot frees, ahead of webhook
    /// calls, and is never refused for want of one. What starts them is bounded already (one fire
    /// per schedule and minute, 6 notifications a minute per app).
    Trigger,
}

/// Why a run got no slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoSlot {
    /// Every slot is busy and the run does not wait.
    Busy,
    /// Every slot is busy and the webhook line is full.
    LineFull,
    /// A webhook call waited [`WEBHOOK_WAIT`] and no slot freed.
    WaitedOut,
    /// An agent's call while agents' runs hold their share of the slots.
    AgentsFull,
}

/// The slots of an engine and the runs waiting for one.
pub(crate) struct Slots {
    max: usize,
    /// The most agents' runs may hold at once: half of `max`, at least one.
    agents_max: usize,
    queue: usize,
    /// [`WEBHOOK_WAIT`]; shorter in tests.
    webhook_wait: Duration,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    used: usize,
    /// Slots agents' runs hold (counted in `used` too).
    agents: usize,
    /// Schedules' and notifications' runs, first come first served.
    triggers: VecDeque<Waiter>,
    /// Webhook calls, served once no trigger waits.
    webhooks: VecDeque<Waiter>,
    next_id: u64,
}

struct Waiter {
    id: u64,
    handed: oneshot::Sender<()>,
}

impl State {
    /// Takes waiter `id` out of line; false when it is no longer there (a slot was handed to it).
    fn leave(&mut self, id: u64) -> bool {
        for line in [&mut self.triggers, &mut self.webhooks] {
            if let Some(at) = line.iter().position(|w| w.id == id) {
                line.remove(at);
                return true;
            }
        }
        false
    }
}

/// A held slot, handed on (or given back) when dropped; `agent` when an agent's run holds it.
pub(crate) struct Slot<'a> {
    slots: &'a Slots,
    agent: bool,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.slots.release(self.agent);
    }
}

/// Where a run stands once it asked for a slot.
pub(crate) enum Place<'a> {
    /// It holds one.
    Now(Slot<'a>),
    /// It waits in line.
    InLine(Waiting<'a>),
}

/// A place in line; leaving it (a caller that went away) hands on a slot it was given meanwhile.
pub(crate) struct Waiting<'a> {
    slots: &'a Slots,
    id: u64,
    wait: SlotWait,
    handed: oneshot::Receiver<()>,
    settled: bool,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        let left = self.slots.state.lock().leave(self.id);
        if !left {
            // Handed a slot as the caller went away: it passes to the next in line.
            self.slots.release(false);
        }
    }
}

impl<'a> Waiting<'a> {
    /// Waits for the slot: until one is handed over, or, for a webhook call, [`WEBHOOK_WAIT`].
    pub(crate) async fn slot(mut self) -> Result<Slot<'a>, NoSlot> {
        let given = match self.wait {
            SlotWait::Webhook => tokio::time::timeout(self.slots.webhook_wait, &mut self.handed)
                .await
                .ok()
                .map(|handed| handed.is_ok()),
            _ => Some((&mut self.handed).await.is_ok()),
        };
        self.settled = true;
        // Only triggers wait in line, never an agent's call: the slot is not the agents'.
        let slots = self.slots;
        let held = move || Slot { slots, agent: false };
        match given {
            Some(true) => Ok(held()),
            // The sender is dropped unsent only with the engine; nothing waits on that.
            Some(false) => Err(NoSlot::WaitedOut),
            // Out of time, unless a slot was handed over in the same instant.
            None if self.slots.state.lock().leave(self.id) => Err(NoSlot::WaitedOut),
            None => Ok(held()),
        }
    }
}

impl Slots {
    /// `max` slots (at least 1), half of them (at least one) the most agents' runs hold; at most
    /// `queue` webhook calls wait.
    pub(crate) fn new(max: usize, queue: usize) -> Slots {
        let max = max.max(1);
        let agents_max = (max / 2).max(1);
        Slots { max, agents_max, queue, webhook_wait: WEBHOOK_WAIT, state: Mutex::default() }
    }

    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// The most slots agents' runs may hold at once.
    pub(crate) fn agents_max(&self) -> usize {
        self.agents_max
    }

    /// The webhook line's bound.
    pub(crate) fn queue(&self) -> usize {
        self.queue
    }

    /// Slots in use.
    pub(crate) fn used(&self) -> usize {
        self.state.lock().used
    }

    /// Runs waiting for a slot.
    pub(crate) fn waiting(&self) -> usize {
        let state = self.state.lock();
        state.triggers.len() + state.webhooks.len()
    }

    /// A free slot now, or a place in line as `wait` allows; for an agent's run (`agent`), only
    /// while agents' runs hold less than their share.
    pub(crate) fn join(&self, wait: SlotWait, agent: bool) -> Result<Place<'_>, NoSlot> {
        let mut state = self.state.lock();
        if agent && state.agents >= self.agents_max {
            return Err(NoSlot::AgentsFull);
        }
        // A run waits only while every slot is busy: a freed one goes to it directly.
        if state.used < self.max {
            state.used += 1;
            state.agents += usize::from(agent);
            return Ok(Place::Now(Slot { slots: self, agent }));
        }
        let full = state.webhooks.len() >= self.queue;
        let id = state.next_id;
        let line = match wait {
            SlotWait::Never => return Err(NoSlot::Busy),
            SlotWait::Webhook if full => return Err(NoSlot::LineFull),
            SlotWait::Webhook => &mut state.webhooks,
            SlotWait::Trigger => &mut state.triggers,
        };
        let (handed_tx, handed) = oneshot::channel();
        line.push_back(Waiter { id, handed: handed_tx });
        state.next_id += 1;
        Ok(Place::InLine(Waiting { slots: self, id, wait, handed, settled: false }))
    }

    /// A slot is done: the first in line gets it (schedules and notifications before webhooks),
    /// else it is free.
    fn release(&self, agent: bool) {
        let mut state = self.state.lock();
        // Whoever it is handed to, it is no longer the agents'.
        state.agents -= usize::from(agent);
        loop {
            let next = match state.triggers.pop_front() {
                Some(waiter) => Some(waiter),
                None => state.webhooks.pop_front(),
            };
            let Some(waiter) = next else { break };
            // A waiter leaves the line before it stops listening, so this fails only for one
            // that went away in the same instant: the slot goes to the next.
            if waiter.handed.send(()).is_ok() {
                return;
            }
        }
        state.used -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Spawns a waiter that records `name` in `order` once it holds a slot, then holds it until
    /// told to let go.
    fn waiter(
        slots: &Arc<Slots>,
        wait: SlotWait,
        name: &'static str,
        order: &Arc<Mutex<Vec<&'static str>>>,
    ) -> (tokio::task::JoinHandle<Result<(), NoSlot>>, oneshot::Sender<()>) {
        let (done, release) = oneshot::channel::<()>();
        let (slots, order) = (slots.clone(), order.clone());
        let task = tokio::spawn(async move {
            let slot = acquire(&slots, wait).await?;
            order.lock().push(name);
            let _ = release.await;
            drop(slot);
            Ok(())
        });
        (task, done)
    }

    async fn acquire(slots: &Slots, wait: SlotWait) -> Result<Slot<'_>, NoSlot> {
        match slots.join(wait, false)? {
            Place::Now(slot) => Ok(slot),
            Place::InLine(waiting) => waiting.slot().await,
        }
    }

    async fn settle() {
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test]
    async fn a_call_is_refused_at_once_while_a_trigger_waits_and_gets_the_freed_slot_first() {
        let slots = Arc::new(Slots::new(1, 2));
        let order = Arc::new(Mutex::new(Vec::new()));
        let held = acquire(&slots, SlotWait::Never).await.expect("a free slot");
        assert_eq!(acquire(&slots, SlotWait::Never).await.err(), Some(NoSlot::Busy));

        let (hook, hook_done) = waiter(&slots, SlotWait::Webhook, "webhook", &order);
        settle().await;
        let (trigger, trigger_done) = waiter(&slots, SlotWait::Trigger, "notification", &order);
        settle().await;
        assert_eq!(slots.waiting(), 2);

        drop(held);
        settle().await;
        // The notification came later but goes first; a call from the owner still finds none free.
        assert_eq!(*order.lock(), ["notification"]);
        assert_eq!(acquire(&slots, SlotWait::Never).await.err(), Some(NoSlot::Busy));
        trigger_done.send(()).unwrap();
        trigger.await.unwrap().unwrap();
        settle().await;
        assert_eq!(*order.lock(), ["notification", "webhook"]);
        hook_done.send(()).unwrap();
        hook.await.unwrap().unwrap();
        assert_eq!((slots.used(), slots.waiting()), (0, 0));
    }

    #[tokio::test]
    async fn webhook_calls_past_the_line_are_refused_and_a_waiting_one_gives_up_after_the_wait() {
        let wait = Duration::from_millis(50);
        let slots = Arc::new(Slots { webhook_wait: wait, ..Slots::new(1, 2) });
        let order = Arc::new(Mutex::new(Vec::new()));
        let _held = acquire(&slots, SlotWait::Never).await.unwrap();
        let (first, _) = waiter(&slots, SlotWait::Webhook, "first", &order);
        let (second, _) = waiter(&slots, SlotWait::Webhook, "second", &order);
        settle().await;
        assert_eq!(acquire(&slots, SlotWait::Webhook).await.err(), Some(NoSlot::LineFull));
        // Schedules and notifications are not bounded by the webhook line.
        let (trigger, _) = waiter(&slots, SlotWait::Trigger, "schedule", &order);
        settle().await;
        assert_eq!(slots.waiting(), 3);

        assert_eq!(first.await.unwrap(), Err(NoSlot::WaitedOut));
        assert_eq!(second.await.unwrap(), Err(NoSlot::WaitedOut));
        settle().await;
        assert_eq!(slots.waiting(), 1, "the schedule's run still waits");
        assert!(!trigger.is_finished());
        assert!(order.lock().is_empty());
    }

    #[tokio::test]
    async fn a_waiter_that_goes_away_passes_its_slot_on() {
        let slots = Arc::new(Slots::new(1, 4));
        let order = Arc::new(Mutex::new(Vec::new()));
        let held = acquire(&slots, SlotWait::Never).await.unwrap();
        let (gone, _) = waiter(&slots, SlotWait::Trigger, "gone", &order);
        let (next, next_done) = waiter(&slots, SlotWait::Webhook, "next", &order);
        settle().await;
        gone.abort();
        settle().await;
        assert_eq!(slots.waiting(), 1);
        drop(held);
        settle().await;
        assert_eq!(*order.lock(), ["next"]);
        next_done.send(()).unwrap();
        next.await.unwrap().unwrap();
        assert_eq!((slots.used(), slots.waiting()), (0, 0));
    }

    #[tokio::test]
    async fn agents_runs_hold_at_most_half_the_slots_and_the_owners_still_get_one() {
        let slots = Slots::new(8, 4);
        assert_eq!(slots.agents_max(), 4);
        let agent = || match slots.join(SlotWait::Never, true) {
            Ok(Place::Now(slot)) => Ok(slot),
            Ok(Place::InLine(_)) => panic!("an agent's call never waits"),
            Err(why) => Err(why),
        };
        let held: Vec<Slot<'_>> =
            (0..4).map(|_| agent().unwrap_or_else(|why| panic!("{why:?}"))).collect();
        assert_eq!(agent().err(), Some(NoSlot::AgentsFull), "a fifth, with 4 slots free");
        let mine = acquire(&slots, SlotWait::Never).await.expect("the owner's run gets a slot");
        assert_eq!(slots.used(), 5);
        drop(held);
        assert_eq!(slots.used(), 1);
        let again = agent().unwrap_or_else(|why| panic!("its share freed: {why:?}"));
        drop((again, mine));
        assert_eq!(slots.used(), 0);
        assert_eq!(Slots::new(1, 0).agents_max(), 1, "one slot: an agent may still run");
    }
}
