//! Asking the person before a routine runs a command: `ctx.command.run` and `ctx.consent.request`.
//!
//! A value the owner approved ahead of time (`cowork consent allow`) passes at once. Otherwise, when
//! a window is listening (the desktop shell subscribes to `GET /api/consent/requests`), the request
//! goes to it and the routine waits for the answer; where nothing can ask (headless), the request is
//! refused at once with the exact `cowork consent allow …` line to run.

use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, oneshot};

/// How long a granted ticket stays valid (a widget hands it to `stream.open`).
const TICKET_TTL: Duration = Duration::from_secs(600);

/// A question for the person, as the window shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsentRequest {
    pub id: String,
    pub workspace: String,
    pub app: String,
    pub app_title: String,
    pub routine: String,
    /// The stable label the approval is remembered under.
    pub value: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The command that will run, when it is a command.
    pub command: Option<String>,
}

/// What the person (or the approvals file) said.
#[derive(Debug, Clone, Copy)]
pub struct Answer {
    pub granted: bool,
    /// Approve the value for the future too.
    pub remember: bool,
}

/// Listeners, questions in flight and granted tickets.
pub struct ConsentBroker {
    listeners: AtomicUsize,
    requests: broadcast::Sender<ConsentRequest>,
    pending: Mutex<HashMap<String, oneshot::Sender<Answer>>>,
    tickets: Mutex<HashMap<String, (String, Instant)>>,
}

/// Counts a window listening for questions while it lives.
pub struct Listener<'a> {
    broker: &'a ConsentBroker,
    pub requests: broadcast::Receiver<ConsentRequest>,
}

impl Drop for Listener<'_> {
    fn drop(&mut self) {
        self.broker.listeners.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Default for ConsentBroker {
    fn default() -> Self {
        ConsentBroker { listeners: AtomicUsize::new(0), requests: broadcast::channel(64).0, pending: Mutex::new(HashMap::new()), tickets: Mutex::new(HashMap::new()) }
    }
}

impl ConsentBroker {
    /// A window starts listening for questions.
    pub fn listen(&self) -> Listener<'_> {
        self.listeners.fetch_add(1, Ordering::SeqCst);
        Listener { broker: self, requests: self.requests.subscribe() }
    }

    /// Whether any window can ask the person now.
    pub fn can_ask(&self) -> bool {
        self.listeners.load(Ordering::SeqCst) > 0
    }

    /// Asks the listening windows and waits (until `deadline`) for the first answer.
    pub async fn ask(&self, request: ConsentRequest, deadline: Instant) -> Answer {
        let (tx, rx) = oneshot::channel();
        let id = request.id.clone();
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), tx);
        let _ = self.requests.send(request);
        let answer = tokio::time::timeout_at(deadline.into(), rx).await.ok().and_then(Result::ok);
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
        answer.unwrap_or(Answer { granted: false, remember: false })
    }

    /// A window's answer to question `id`; false when nobody is waiting for it any more.
    pub fn answer(&self, id: &str, answer: Answer) -> bool {
        let waiting = self.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
        waiting.is_some_and(|tx| tx.send(answer).is_ok())
    }

    /// A ticket proving `value` was granted, valid for ten minutes.
    pub fn ticket(&self, value: &str) -> String {
        let ticket = hex::encode(rand::random::<[u8; 16]>());
        let mut tickets = self.tickets.lock().unwrap_or_else(|e| e.into_inner());
        tickets.retain(|_, (_, issued)| issued.elapsed() < TICKET_TTL);
        tickets.insert(ticket.clone(), (value.to_string(), Instant::now()));
        ticket
    }

    /// The value a ticket was granted for, once (a ticket cannot be replayed).
    pub fn redeem(&self, ticket: &str) -> Option<String> {
        let mut tickets = self.tickets.lock().unwrap_or_else(|e| e.into_inner());
        tickets.remove(ticket).filter(|(_, issued)| issued.elapsed() < TICKET_TTL).map(|(value, _)| value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(id: &str) -> ConsentRequest {
        ConsentRequest { id: id.into(), workspace: "/w".into(), app: "a".into(), app_title: "A".into(), routine: "a-run".into(), value: "ls".into(), title: None, description: None, command: Some("ls".into()) }
    }

    #[tokio::test]
    async fn a_listening_window_answers() {
        let broker = std::sync::Arc::new(ConsentBroker::default());
        assert!(!broker.can_ask());
        let mut listener = broker.listen();
        assert!(broker.can_ask());
        let asking = tokio::spawn({
            let broker = broker.clone();
            async move { broker.ask(request("q1"), Instant::now() + Duration::from_secs(5)).await }
        });
        let question = listener.requests.recv().await.unwrap();
        assert_eq!(question.id, "q1");
        assert!(broker.answer("q1", Answer { granted: true, remember: false }));
        assert!(asking.await.unwrap().granted);
        assert!(!broker.answer("q1", Answer { granted: true, remember: false }), "answered once");
        drop(listener);
        assert!(!broker.can_ask());
    }

    #[tokio::test]
    async fn no_answer_in_time_is_a_no() {
        let broker = ConsentBroker::default();
        let _listener = broker.listen();
        assert!(!broker.ask(request("q2"), Instant::now() + Duration::from_millis(50)).await.granted);
    }

    #[test]
    fn tickets_redeem_once() {
        let broker = ConsentBroker::default();
        let ticket = broker.ticket("tail -f log");
        assert_eq!(broker.redeem(&ticket).as_deref(), Some("tail -f log"));
        assert_eq!(broker.redeem(&ticket), None);
    }
}
