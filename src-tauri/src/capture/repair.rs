//! Recordings cut short: a `.part` left by a crash, a kill or a broken stream lacks its duration
//! and index, but its blocks are whole. Remuxing it (`matroskademux` → `webmmux`) makes a file any
//! player seeks in. The shell keeps a note per running recording under `<root>/capture/`, so the
//! next start finds the `.part` files it must repair wherever they were written.

use gstreamer as gst;
use gstreamer::prelude::*;
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

/// Remuxes `part` into `file` (through `<file>.remux`, renamed when whole) and removes `part`.
pub fn remux(part: &Path, file: &Path) -> Result<(), String> {
    super::recorder::init().map_err(|e| e.to_string())?;
    let mut temp = file.as_os_str().to_owned();
    temp.push(".remux");
    let temp = PathBuf::from(temp);
    let pipeline = gst::Pipeline::new();
    let make = |factory: &str| {
        gst::ElementFactory::make(factory).build().map_err(|e| format!("{factory}: {e}"))
    };
    let source = gst::ElementFactory::make("filesrc")
        .property("location", part.to_str().ok_or("the path is not UTF-8")?)
        .build()
        .map_err(|e| e.to_string())?;
    let demux = make("matroskademux")?;
    let mux =
        gst::ElementFactory::make("webmmux").name("mux").build().map_err(|e| e.to_string())?;
    let sink = gst::ElementFactory::make("filesink")
        .property("location", temp.to_str().ok_or("the path is not UTF-8")?)
        .build()
        .map_err(|e| e.to_string())?;
    pipeline.add_many([&source, &demux, &mux, &sink]).map_err(|e| e.to_string())?;
    source.link(&demux).map_err(|e| e.to_string())?;
    mux.link(&sink).map_err(|e| e.to_string())?;
    let weak = pipeline.downgrade();
    demux.connect_pad_added(move |_, pad| {
        let Some(pipeline) = weak.upgrade() else { return };
        let audio = pad.name().starts_with("audio");
        let chain: Vec<&str> = if audio { vec!["queue", "opusparse"] } else { vec!["queue"] };
        let elements: Vec<gst::Element> = chain
            .iter()
            .filter_map(|factory| gst::ElementFactory::make(factory).build().ok())
            .collect();
        if elements.len() != chain.len() || pipeline.add_many(&elements).is_err() {
            return;
        }
        let _ = gst::Element::link_many(&elements);
        let Some(mux) = pipeline.by_name("mux") else { return };
        let template = if audio { "audio_%u" } else { "video_%u" };
        let linked = elements.last().is_some_and(|last| {
            mux.request_pad_simple(template)
                .and_then(|mux_pad| last.static_pad("src").map(|src| src.link(&mux_pad).is_ok()))
                .unwrap_or(false)
        });
        let first = elements.first().and_then(|e| e.static_pad("sink"));
        if linked && first.is_some_and(|sink| pad.link(&sink).is_ok()) {
            for element in &elements {
                let _ = element.sync_state_with_parent();
            }
        }
    });
    pipeline.set_state(gst::State::Playing).map_err(|e| e.to_string())?;
    let bus = pipeline.bus().expect("a pipeline has a bus");
    let mut outcome = Err("the remux did not finish in 5 minutes".to_string());
    for message in bus.iter_timed(gst::ClockTime::from_seconds(300)) {
        match message.view() {
            gst::MessageView::Eos(_) => {
                outcome = Ok(());
                break;
            }
            gst::MessageView::Error(error) => {
                outcome = Err(format!("failed to remux {}: {}", part.display(), error.error()));
                break;
            }
            _ => {}
        }
    }
    let _ = pipeline.set_state(gst::State::Null);
    match outcome {
        Ok(()) => {
            std::fs::rename(&temp, file)
                .map_err(|e| format!("failed to rename {}: {e}", temp.display()))?;
            std::fs::remove_file(part)
                .map_err(|e| format!("failed to remove {}: {e}", part.display()))
        }
        Err(error) => {
            let _ = std::fs::remove_file(&temp);
            Err(error)
        }
    }
}
