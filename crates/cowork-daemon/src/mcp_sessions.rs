//! The initialize era's sessions (`Mcp-Session-Id`): which agent opened each, on which workspace,
//! at which negotiated protocol version, through which client. A session is also the task its
//! calls are recorded under unless a call names one or `start_task` started another. Bounded: idle sessions end after 12 hours, and each agent login keeps at
//! most 1,024 (its least recently used goes first) — per login, so one agent opening sessions
//! never ends another's.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const IDLE: Duration = Duration::from_secs(12 * 60 * 60);
const MOST: usize = 1024;

/// One session.
#[derive(Debug, Clone)]
pub struct Session {
    pub agent_id: String,
    pub workspace: PathBuf,
    pub version: String,
    /// The client it speaks through, as `initialize`'s `clientInfo` named it (`claude-code` …).
    pub client: Option<String>,
    /// The task `start_task` started last in this session.
    pub task: Option<String>,
    last_used: Instant,
}

/// The open sessions.
#[derive(Default)]
pub struct Sessions {
    open: Mutex<HashMap<String, Session>>,
}

impl Sessions {
    /// Opens a session and returns its id (128 random bits, hex: visible ASCII as required).
    pub fn open(
        &self,
        agent_id: &str,
        workspace: PathBuf,
        version: &str,
        client: Option<String>,
    ) -> String {
        let id = hex::encode(rand::random::<[u8; 16]>());
        let mut open = self.open.lock();
        let now = Instant::now();
        open.retain(|_, s| now.duration_since(s.last_used) < IDLE);
        let own = open.iter().filter(|(_, s)| s.agent_id == agent_id);
        if own.clone().count() >= MOST {
            if let Some(oldest) = own.min_by_key(|(_, s)| s.last_used).map(|(k, _)| k.clone()) {
                open.remove(&oldest);
            }
        }
        let session = Session {
            agent_id: agent_id.to_string(),
            workspace,
            version: version.to_string(),
            client,
            task: None,
            last_used: now,
        };
        open.insert(id.clone(), session);
        id
    }

    /// The session `id` of `agent_id` (another agent's session id is as unknown as a made-up one).
    pub fn find(&self, id: &str, agent_id: &str) -> Option<Session> {
        let mut open = self.open.lock();
        let session = open.get_mut(id).filter(|s| s.agent_id == agent_id)?;
        if session.last_used.elapsed() >= IDLE {
            open.remove(id);
            return None;
        }
        session.last_used = Instant::now();
        Some(session.clone())
    }

    /// Makes `task` the task of `agent_id`'s session `id` from now on.
    pub fn start_task(&self, id: &str, agent_id: &str, task: &str) {
        if let Some(session) = self.open.lock().get_mut(id).filter(|s| s.agent_id == agent_id) {
            session.task = Some(task.to_string());
        }
    }

    /// Ends `agent_id`'s session `id`; false when there was none.
    pub fn end(&self, id: &str, agent_id: &str) -> bool {
        let mut open = self.open.lock();
        if open.get(id).is_some_and(|s| s.agent_id == agent_id) {
            open.remove(id);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_opening_sessions_ends_only_its_own_oldest_never_another_agents() {
        let sessions = Sessions::default();
        let open = |agent: &str| sessions.open(agent, PathBuf::from("/ws"), "2025-11-25", None);
        let claude = open("claude");
        let first = open("codex");
        let rest: Vec<String> = (0..MOST + 5).map(|_| open("codex")).collect();
        assert!(sessions.find(&claude, "claude").is_some(), "codex's sessions leave claude's");
        assert!(sessions.find(&first, "codex").is_none(), "codex's own oldest went first");
        let kept = rest.iter().filter(|id| sessions.find(id, "codex").is_some()).count();
        assert_eq!(kept, MOST, "at most {MOST} per login");
    }
}
