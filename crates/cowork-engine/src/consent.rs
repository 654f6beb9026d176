//! Asking the person before a routine runs a command: `ctx.command.run` and `ctx.consent.request`.
//!
//! A value the owner approved ahead of time for the asking app (`cowork consent allow <value> --app
//! <app>`) passes at once. Otherwise, when
//! a window is listening (the desktop shell subscribes to `GET /api/consent/requests`), the request
//! goes to it and the routine waits for the answer; where nothing can ask (headless), the request is
//! refused at once with the exact `cowork consent allow …` line to run.

use cowork_core::consent::Approvals;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, oneshot};

/// How long a granted ticket stays valid (a widget hands it to `stream.open`).
const TICKET_TTL: Duration = Duration::from_secs(600);

pub use cowork_wire::daemon::consent::{
    ClosedBecause, ConsentClosed, ConsentEvent, ConsentReply, ConsentRequest,
};

/// What a routine (`ctx.consent.request`, `ctx.command.run`) or a widget asks consent for.
pub struct Question {
    /// The app (or capability) asking.
    pub app: String,
    /// The routine that asks; `None` when a widget asks.
    pub routine: Option<String>,
    /// The stable label the approval is remembered under.
    pub value: String,
    /// The question's heading.
    pub title: Option<String>,
    /// More about it.
    pub description: Option<String>,
    /// The command that will run, when it is a command (`ctx.command.run`).
    pub command: Option<String>,
}

/// The answer to a [`Question`]: `reply` is what the asker's promise resolves with; `allow_line`
/// is the `cowork consent allow …` line when it was refused because no window can ask (headless).
pub struct Decision {
    /// What the asker's promise resolves with.
    pub reply: ConsentReply,
    /// The `cowork consent allow …` line, when it was refused because no window can ask.
    pub allow_line: Option<String>,
}

/// Checks that `value` can be approved with `cowork consent allow '<value>'`: one line of text.
pub fn one_line(value: &str) -> Result<(), &'static str> {
    match value.contains(['\n', '\r']) {
        true => {
            Err("a consent value is one line of text: the label `cowork consent allow` approves")
        }
        false => Ok(()),
    }
}

/// The workspace a question is asked in, as deciding it needs it: the approvals given there, its
/// folder (as the windows show it and the `cowork consent allow` line names it), and the title of
/// the app that asks.
pub struct AskedIn<'a> {
    /// The approvals given in this workspace.
    pub approvals: Approvals,
    /// The workspace's folder.
    pub workspace: &'a Path,
    /// The title of the app that asks.
    pub app_title: String,
}

impl ConsentBroker {
    /// Decides `question`: approved ahead of time passes at once; with no window to ask it is
    /// refused at once with the line that approves it; else the listening windows are asked and
    /// the first answer (by `deadline`, else no) counts — remembered when the person said
    /// "always".
    pub async fn decide(
        &self,
        asked_in: AskedIn<'_>,
        question: Question,
        deadline: Instant,
    ) -> Decision {
        let AskedIn { approvals, workspace, app_title } = asked_in;
        let value = question.value;
        if approvals.is_allowed(&question.app, &value) {
            return Decision {
                reply: ConsentReply::granted(self.ticket(&value)),
                allow_line: None,
            };
        }
        if !self.can_ask() {
            let line = cowork_core::consent::allow_command(&question.app, &value, workspace);
            let message = format!(
                "no window can ask for consent here; approve it ahead of time with: {line}"
            );
            return Decision { reply: ConsentReply::refused(message), allow_line: Some(line) };
        }
        let app = question.app;
        let request = ConsentRequest {
            id: hex::encode(rand::random::<[u8; 8]>()),
            workspace: workspace.display().to_string(),
            app: app.clone(),
            app_title,
            routine: question.routine,
            value: value.clone(),
            title: question.title,
            description: question.description,
            command: question.command,
        };
        let answer = self.ask(request, deadline).await;
        if answer.granted && answer.remember {
            if let Err(error) = approvals.allow(&app, &value) {
                tracing::warn!(%error, "could not remember a consent");
            }
        }
        let reply = if answer.granted {
            ConsentReply::granted(self.ticket(&value))
        } else {
            ConsentReply::refused("the person did not allow it")
        };
        Decision { reply, allow_line: None }
    }
}

/// What the person (or the approvals file) said.
#[derive(Debug, Clone, Copy)]
pub struct Answer {
    /// Whether it was allowed.
    pub granted: bool,
    /// Approve the value for the future too.
    pub remember: bool,
}

/// Listeners, questions in flight and granted tickets.
pub struct ConsentBroker {
    listeners: AtomicUsize,
    events: broadcast::Sender<ConsentEvent>,
    pending: Mutex<HashMap<String, oneshot::Sender<Answer>>>,
    tickets: Mutex<HashMap<String, (String, Instant)>>,
}

/// A question in flight: when its asker stops waiting unanswered, it is withdrawn.
struct Asked<'a> {
    broker: &'a ConsentBroker,
    id: String,
}

impl Drop for Asked<'_> {
    fn drop(&mut self) {
        if self.broker.pending.lock().remove(&self.id).is_some() {
            self.broker.closed(&self.id, ClosedBecause::Withdrawn);
        }
    }
}

/// Counts a window listening for questions while it lives.
pub struct Listener<'a> {
    broker: &'a ConsentBroker,
    /// The questions asked while this window listens, and each one's close.
    pub events: broadcast::Receiver<ConsentEvent>,
}

impl Drop for Listener<'_> {
    fn drop(&mut self) {
        self.broker.listeners.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Default for ConsentBroker {
    fn default() -> Self {
        ConsentBroker {
            listeners: AtomicUsize::new(0),
            events: broadcast::channel(64).0,
            pending: Mutex::new(HashMap::new()),
            tickets: Mutex::new(HashMap::new()),
        }
    }
}

impl ConsentBroker {
    /// A window starts listening for questions.
    pub fn listen(&self) -> Listener<'_> {
        self.listeners.fetch_add(1, Ordering::SeqCst);
        Listener { broker: self, events: self.events.subscribe() }
    }

    /// Whether any window can ask the person now.
    pub fn can_ask(&self) -> bool {
        self.listeners.load(Ordering::SeqCst) > 0
    }

    /// Asks the listening windows and waits (until `deadline`) for the first answer. However the
    /// wait ends — answered, the deadline, or the asker gone (its view closed, its run ended,
    /// dropping this future) — every window is told the question closed.
    pub async fn ask(&self, request: ConsentRequest, deadline: Instant) -> Answer {
        let (tx, rx) = oneshot::channel();
        let asked = Asked { broker: self, id: request.id.clone() };
        self.pending.lock().insert(asked.id.clone(), tx);
        let _ = self.events.send(ConsentEvent::Asked(request));
        let answer = tokio::time::timeout_at(deadline.into(), rx).await.ok().and_then(Result::ok);
        drop(asked);
        answer.unwrap_or(Answer { granted: false, remember: false })
    }

    /// A window's answer to question `id`; false when nobody is waiting for it any more. The
    /// other windows are told it was answered.
    pub fn answer(&self, id: &str, answer: Answer) -> bool {
        let Some(waiting) = self.pending.lock().remove(id) else { return false };
        self.closed(id, ClosedBecause::Answered);
        waiting.send(answer).is_ok()
    }

    fn closed(&self, id: &str, closed: ClosedBecause) {
        let _ =
            self.events.send(ConsentEvent::Closed(ConsentClosed { id: id.to_string(), closed }));
    }

    /// A ticket proving `value` was granted, valid for ten minutes.
    pub fn ticket(&self, value: &str) -> String {
        let ticket = hex::encode(rand::random::<[u8; 16]>());
        let mut tickets = self.tickets.lock();
        tickets.retain(|_, (_, issued)| issued.elapsed() < TICKET_TTL);
        tickets.insert(ticket.clone(), (value.to_string(), Instant::now()));
        ticket
    }

    /// The value a ticket was granted for, once (a ticket cannot be replayed).
    pub fn redeem(&self, ticket: &str) -> Option<String> {
        let mut tickets = self.tickets.lock();
        tickets
            .remove(ticket)
            .filter(|(_, issued)| issued.elapsed() < TICKET_TTL)
            .map(|(value, _)| value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(id: &str) -> ConsentRequest {
        ConsentRequest {
            id: id.into(),
            workspace: "/w".into(),
            app: "a".into(),
            app_title: "A".into(),
            routine: Some("a-run".into()),
            value: "ls".into(),
            title: None,
            description: None,
            command: Some("ls".into()),
        }
    }

    /// The next event a window hears.
    async fn heard(listener: &mut Listener<'_>) -> ConsentEvent {
        listener.events.recv().await.unwrap()
    }

    fn closed(id: &str, closed: ClosedBecause) -> ConsentEvent {
        ConsentEvent::Closed(ConsentClosed { id: id.into(), closed })
    }

    #[tokio::test]
    async fn a_listening_window_answers_and_every_window_hears_it_closed() {
        let broker = std::sync::Arc::new(ConsentBroker::default());
        assert!(!broker.can_ask());
        let mut listener = broker.listen();
        let mut other = broker.listen();
        assert!(broker.can_ask());
        let asking = tokio::spawn({
            let broker = broker.clone();
            async move { broker.ask(request("q1"), Instant::now() + Duration::from_secs(5)).await }
        });
        assert_eq!(heard(&mut listener).await, ConsentEvent::Asked(request("q1")));
        assert_eq!(heard(&mut other).await, ConsentEvent::Asked(request("q1")));
        assert!(broker.answer("q1", Answer { granted: true, remember: false }));
        assert!(asking.await.unwrap().granted);
        assert!(!broker.answer("q1", Answer { granted: true, remember: false }), "answered once");
        for window in [&mut listener, &mut other] {
            assert_eq!(heard(window).await, closed("q1", ClosedBecause::Answered));
        }
        assert!(other.events.try_recv().is_err(), "closed once, not withdrawn too");
        drop((listener, other));
        assert!(!broker.can_ask());
    }

    #[tokio::test]
    async fn no_answer_in_time_is_a_no_and_withdraws_the_question() {
        let broker = ConsentBroker::default();
        let mut listener = broker.listen();
        assert!(
            !broker.ask(request("q2"), Instant::now() + Duration::from_millis(50)).await.granted
        );
        assert_eq!(heard(&mut listener).await, ConsentEvent::Asked(request("q2")));
        assert_eq!(heard(&mut listener).await, closed("q2", ClosedBecause::Withdrawn));
    }

    #[tokio::test]
    async fn an_asker_that_goes_away_withdraws_its_question() {
        let broker = std::sync::Arc::new(ConsentBroker::default());
        let mut listener = broker.listen();
        let asking = tokio::spawn({
            let broker = broker.clone();
            async move { broker.ask(request("q3"), Instant::now() + Duration::from_secs(60)).await }
        });
        assert_eq!(heard(&mut listener).await, ConsentEvent::Asked(request("q3")));
        asking.abort();
        assert_eq!(heard(&mut listener).await, closed("q3", ClosedBecause::Withdrawn));
        assert!(!broker.answer("q3", Answer { granted: true, remember: false }));
    }

    #[test]
    fn tickets_redeem_once() {
        let broker = ConsentBroker::default();
        let ticket = broker.ticket("tail -f log");
        assert_eq!(broker.redeem(&ticket).as_deref(), Some("tail -f log"));
        assert_eq!(broker.redeem(&ticket), None);
    }
}
