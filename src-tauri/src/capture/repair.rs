//! Recordings cut short: a `.part` left by a crash, a kill or a broken stream lacks its duration
//! and index, but its blocks are whole. Remuxing it (`matroskademux` → `webmmux`) makes a file any
//! player seeks in. The shell keeps a note per running recording under `<root>/capture/`, so the
//! next start finds the `.part` files it must repair wherever they were written.

use super::recorder::remux;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A running recording's note: its `.part` and where the finished file goes.
#[derive(Debug, Serialize, Deserialize)]
pub struct Note {
    pub part: PathBuf,
    pub file: PathBuf,
}

/// Where the notes are.
pub fn notes_dir(root: &Path) -> PathBuf {
    root.join("capture")
}

/// Writes the note of recording `session`.
pub fn begin(root: &Path, session: &str, note: &Note) -> std::io::Result<()> {
    let dir = notes_dir(root);
    std::fs::create_dir_all(&dir)?;
    let json = serde_json::to_vec(note).expect("a note serializes");
    std::fs::write(dir.join(format!("{session}.json")), json)
}

/// Removes the note of recording `session` (it ended: its file is final).
pub fn end(root: &Path, session: &str) {
    let note = notes_dir(root).join(format!("{session}.json"));
    if let Err(error) = std::fs::remove_file(&note) {
        tracing::warn!("failed to remove {}: {error}", note.display());
    }
}

/// Repairs the `.part` of every note left behind: the files repaired, and those that failed (why).
pub fn repair_left(root: &Path) -> (Vec<PathBuf>, Vec<String>) {
    let (mut repaired, mut failed) = (Vec::new(), Vec::new());
    let Ok(entries) = std::fs::read_dir(notes_dir(root)) else { return (repaired, failed) };
    for entry in entries.flatten() {
        let path = entry.path();
        let note: Option<Note> =
            std::fs::read(&path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok());
        match note {
            Some(note) if note.part.exists() => match remux(&note.part, &note.file) {
                Ok(()) => repaired.push(note.file),
                Err(error) => failed.push(format!("{}: {error}", note.part.display())),
            },
            // Nothing to repair (it was finished, or never written).
            _ => {}
        }
        let _ = std::fs::remove_file(&path);
    }
    (repaired, failed)
}
