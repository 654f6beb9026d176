//! The table of open panes' tokens, and how long a token lives. A pane token is recorded under the
//! workbench page session that asked for it (the `x-cowork-session` header the page sends with
//! `POST /api/panes` and `GET /api/events`), and ends with that session: when the page's event
//! stream closes and no stream of the session comes back within [`SESSION_GRACE`] (a closed tab, a
//! crashed window), or at `POST /api/session/end`. As a backstop for a page that sent no session,
//! a token unused for [`PANE_IDLE`] is refused, and the table never holds more than [`MAX_PANES`]:
//! the least recently used goes first.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a session's panes outlive its last event stream: longer than the workbench's longest
/// reconnect backoff (30 s), so a dropped connection that comes back keeps its panes.
pub const SESSION_GRACE: Duration = Duration::from_secs(90);
/// How long an unused pane token stays good: a pane left open overnight asks again on next use.
pub const PANE_IDLE: Duration = Duration::from_secs(12 * 60 * 60);
/// The most pane tokens held at once: a page opening panes in a loop cannot grow the table.
pub const MAX_PANES: usize = 512;
/// The longest session id accepted: it is the page's random label, not free text.
const MAX_SESSION_LEN: usize = 64;

/// One open pane.
#[derive(Debug, Clone)]
pub struct Pane {
    pub id: String,
    pub workspace: PathBuf,
    /// The app's manifest name.
    pub app: String,
}

struct Entry {
    pane: Pane,
    session: Option<String>,
    used: Instant,
}

#[derive(Default)]
struct Table {
    panes: HashMap<String, Entry>,
    /// Open event streams per session.
    streams: HashMap<String, usize>,
}

/// Open panes by token.
pub struct Panes {
    table: Mutex<Table>,
    grace: Duration,
    idle: Duration,
    /// Bumped whenever panes close, so a call waiting on its pane (a consent question) hears it.
    closes: tokio::sync::watch::Sender<u64>,
}

impl Default for Panes {
    fn default() -> Self {
        Panes::with(SESSION_GRACE, PANE_IDLE)
    }
}

/// A workbench page session's label, from its `x-cowork-session` header (none when the caller,
/// like the CLI, sends none or sends something that is not a short label).
pub fn session_of(headers: &axum::http::HeaderMap) -> Option<String> {
    let label = headers.get("x-cowork-session")?.to_str().ok()?;
    let fits = !label.is_empty()
        && label.len() <= MAX_SESSION_LEN
        && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    fits.then(|| label.to_string())
}

impl Panes {
    fn with(grace: Duration, idle: Duration) -> Self {
        let closes = tokio::sync::watch::channel(0).0;
        Panes { table: Mutex::default(), grace, idle, closes }
    }

    /// A new pane token for `app`, recorded under `session`.
    pub(crate) fn open(
        &self,
        session: Option<String>,
        workspace: PathBuf,
        app: String,
    ) -> (String, Pane) {
        let token = format!("cwp_{}", hex::encode(rand::random::<[u8; 24]>()));
        let pane = Pane { id: hex::encode(rand::random::<[u8; 6]>()), workspace, app };
        let now = Instant::now();
        let mut table = self.table.lock();
        table.panes.retain(|_, entry| now.duration_since(entry.used) < self.idle);
        if table.panes.len() >= MAX_PANES {
            let oldest = table.panes.iter().min_by_key(|(_, e)| e.used).map(|(t, _)| t.clone());
            table.panes.remove(&oldest.expect("a full table has an entry"));
        }
        table.panes.insert(token.clone(), Entry { pane: pane.clone(), session, used: now });
        (token, pane)
    }

    /// The open pane this token names (none once the pane was closed, its session ended or it
    /// sat unused for the idle limit); a use keeps it alive.
    pub(crate) fn find(&self, token: &str) -> Option<Pane> {
        let mut table = self.table.lock();
        let now = Instant::now();
        let entry = table.panes.get_mut(token)?;
        if now.duration_since(entry.used) >= self.idle {
            table.panes.remove(token);
            return None;
        }
        entry.used = now;
        Some(entry.pane.clone())
    }

    /// Forgets a pane: its token is refused from now on. Panes are closed by their own token's
    /// call, so the pane id (which the token maps to) is what names it here.
    pub(crate) fn close(&self, id: &str) {
        self.table.lock().panes.retain(|_, entry| entry.pane.id != id);
        self.closes.send_modify(|closes| *closes += 1);
    }

    /// Ends a session: every pane token it opened is refused from now on.
    pub(crate) fn end_session(&self, session: &str) {
        self.table.lock().panes.retain(|_, entry| entry.session.as_deref() != Some(session));
        self.closes.send_modify(|closes| *closes += 1);
    }

    /// Resolves once pane `id` is closed (`pane.close`, or its page's session ended): what a call
    /// that waits for the person on the pane's behalf stops waiting at.
    pub(crate) async fn closed(&self, id: &str) {
        let mut closes = self.closes.subscribe();
        while self.table.lock().panes.values().any(|entry| entry.pane.id == id) {
            if closes.changed().await.is_err() {
                return;
            }
        }
    }

    /// How many workbench pages follow the daemon's events now (a session with a stream open):
    /// the windows an `open` request can reach.
    pub(crate) fn windows(&self) -> usize {
        self.table.lock().streams.len()
    }

    /// Marks an event stream of `session` open; dropping the answer marks it closed, and the
    /// session ends [`SESSION_GRACE`] later unless another of its streams opened meanwhile.
    pub(crate) fn follow(self: &Arc<Self>, session: String) -> Following {
        *self.table.lock().streams.entry(session.clone()).or_default() += 1;
        Following { panes: self.clone(), session }
    }
}

/// An open event stream of a session (see [`Panes::follow`]).
pub(crate) struct Following {
    panes: Arc<Panes>,
    session: String,
}

impl Drop for Following {
    fn drop(&mut self) {
        let Following { panes, session } = self;
        let mut table = panes.table.lock();
        let open = table.streams.get_mut(session.as_str()).expect("a followed session is counted");
        *open -= 1;
        if *open > 0 {
            return;
        }
        table.streams.remove(session.as_str());
        drop(table);
        let (panes, session) = (panes.clone(), session.clone());
        // Outside a runtime (the daemon is gone) there is nothing left to protect.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                tokio::time::sleep(panes.grace).await;
                if !panes.table.lock().streams.contains_key(&session) {
                    panes.end_session(&session);
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panes(grace: Duration, idle: Duration) -> Arc<Panes> {
        Arc::new(Panes::with(grace, idle))
    }

    fn open(panes: &Panes, session: Option<&str>) -> String {
        panes.open(session.map(String::from), "/w".into(), "notes".into()).0
    }

    #[tokio::test]
    async fn pane_tokens_end_when_their_sessions_event_stream_closes_for_good() {
        let panes = panes(Duration::from_millis(50), PANE_IDLE);
        let stream = panes.follow("page-a".into());
        let mine = open(&panes, Some("page-a"));
        let other = open(&panes, Some("page-b"));
        drop(stream);
        assert!(panes.find(&mine).is_some(), "a dropped stream gets its grace to come back");
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert!(panes.find(&mine).is_none(), "the session ended with its stream");
        assert!(panes.find(&other).is_some(), "another page's panes live on");
    }

    #[tokio::test]
    async fn a_stream_that_comes_back_keeps_the_sessions_panes() {
        let panes = panes(Duration::from_millis(50), PANE_IDLE);
        let token = open(&panes, Some("page-a"));
        drop(panes.follow("page-a".into()));
        let back = panes.follow("page-a".into());
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert!(panes.find(&token).is_some());
        drop(back);
    }

    #[tokio::test]
    async fn a_wait_on_a_pane_ends_when_it_closes_or_its_session_ends() {
        let panes = panes(SESSION_GRACE, PANE_IDLE);
        let closing = panes.find(&open(&panes, Some("page-a"))).unwrap().id;
        let ending = panes.find(&open(&panes, Some("page-b"))).unwrap().id;
        let waits = tokio::spawn({
            let (panes, closing) = (panes.clone(), closing.clone());
            async move { tokio::join!(panes.closed(&closing), panes.closed(&ending)) }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waits.is_finished(), "both panes are open");
        panes.close(&closing);
        panes.end_session("page-b");
        tokio::time::timeout(Duration::from_secs(1), waits).await.unwrap().unwrap();
    }

    #[test]
    fn an_ended_session_refuses_its_pane_tokens() {
        let panes = panes(SESSION_GRACE, PANE_IDLE);
        let token = open(&panes, Some("page-a"));
        panes.end_session("page-a");
        assert!(panes.find(&token).is_none());
    }

    #[test]
    fn an_idle_pane_token_expires() {
        let panes = panes(SESSION_GRACE, Duration::from_millis(20));
        let token = open(&panes, None);
        std::thread::sleep(Duration::from_millis(40));
        assert!(panes.find(&token).is_none());
    }

    #[test]
    fn the_table_holds_at_most_max_panes_dropping_the_least_recently_used() {
        let panes = panes(SESSION_GRACE, PANE_IDLE);
        let first = open(&panes, None);
        std::thread::sleep(Duration::from_millis(2));
        let second = open(&panes, None);
        std::thread::sleep(Duration::from_millis(2));
        assert!(panes.find(&first).is_some(), "a use makes `first` the most recent");
        for _ in 2..MAX_PANES {
            open(&panes, None);
        }
        let newest = open(&panes, None);
        assert_eq!(panes.table.lock().panes.len(), MAX_PANES);
        assert!(panes.find(&second).is_none(), "the least recently used went");
        assert!(panes.find(&first).is_some() && panes.find(&newest).is_some());
    }

    #[test]
    fn only_a_short_label_names_a_session() {
        let mut headers = axum::http::HeaderMap::new();
        assert_eq!(session_of(&headers), None);
        headers.insert("x-cowork-session", "3f2a-9b_c".parse().unwrap());
        assert_eq!(session_of(&headers).as_deref(), Some("3f2a-9b_c"));
        headers.insert("x-cowork-session", "a b".parse().unwrap());
        assert_eq!(session_of(&headers), None);
    }
}
