//! Where conversations are kept: `<root>/workspaces/<key>/chat/<id>.json` (what the list shows)
//! and `<id>.jsonl` (the transcript, one event a line, appended as it happens so a crash of the
//! CLI — or of the daemon — loses nothing written before it). Kept in the Cowork root beside the
//! workspace's audit, not in the workspace folder: a transcript holds whatever the agent read, and
//! a workspace folder is often shared or synced.

use cowork_wire::chat::{ChatEvent, ConversationSummary};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A workspace's conversations.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The transcripts of `workspace`: `<root>/workspaces/<key>/chat/`.
    pub fn new(root: &cowork_core::paths::Root, workspace: &Path) -> Self {
        Store { dir: root.workspace_dir(workspace).join("chat") }
    }

    fn meta_file(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    fn transcript_file(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.jsonl"))
    }

    /// The workspace's choice of agent CLI (`claude-code`, `codex`), when one was made.
    pub fn cli(&self) -> Option<String> {
        let text = std::fs::read_to_string(self.dir.join("cli")).ok()?;
        Some(text.trim().to_string())
    }

    /// Remembers the workspace's choice of agent CLI.
    pub fn set_cli(&self, id: &str) -> std::io::Result<()> {
        cowork_core::fs_atomic::write(&self.dir.join("cli"), id.as_bytes(), true)
    }

    /// Where a session's `--mcp-config` goes (0600; removed when the CLI exits).
    pub fn mcp_config_file(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.mcp.json"))
    }

    /// Writes a conversation's summary (atomically, 0600).
    pub fn save(&self, summary: &ConversationSummary) -> std::io::Result<()> {
        let mut summary = summary.clone();
        summary.running = false;
        let bytes = serde_json::to_vec_pretty(&summary).expect("a summary serializes");
        cowork_core::fs_atomic::write(&self.meta_file(&summary.id), &bytes, true)
    }

    /// A conversation's summary, if it exists.
    pub fn summary(&self, id: &str) -> Option<ConversationSummary> {
        if !valid_id(id) {
            return None;
        }
        let text = std::fs::read_to_string(self.meta_file(id)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Every conversation, newest first.
    pub fn list(&self) -> Vec<ConversationSummary> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        let mut all: Vec<ConversationSummary> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let id = name.strip_suffix(".json")?;
                self.summary(id)
            })
            .collect();
        all.sort_by(|a, b| b.created.cmp(&a.created).then(b.id.cmp(&a.id)));
        all
    }

    /// Appends one event to the transcript.
    pub fn append(&self, event: &ChatEvent) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(event).expect("an event serializes");
        line.push(b'\n');
        let mut file =
            cowork_core::fs_atomic::open_append(&self.transcript_file(&event.conversation), true)?;
        file.write_all(&line)
    }

    /// The transcript so far (a torn last line, from a crash while writing it, is left out).
    pub fn transcript(&self, id: &str) -> Vec<ChatEvent> {
        if !valid_id(id) {
            return Vec::new();
        }
        let text = std::fs::read_to_string(self.transcript_file(id)).unwrap_or_default();
        text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
    }
}

/// A conversation id as the daemon makes them (so a request cannot name `../x`).
pub fn valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len()) && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}
