//! A recording: GStreamer records the screen (or one window) and the sound to `<file>.part` —
//! VP8 and Opus in WebM — and renames it to `file` once finalised.
//!
//! ```text
//! ximagesrc ─ videoconvert ─ vp8enc ───────────────────────────┐
//! pulsesrc (@DEFAULT_MONITOR@) ─┐                               ├ webmmux ─ filesink <file>.part
//! pulsesrc (the default mic) ───┴ audiomixer ─ tee ─ opusenc ──┘
//!                                               └─ 16 kHz mono S16LE ─ appsink (live frames)
//! ```
//!
//! The mixer is there only with both sounds, the tee only with live frames. VP8 is encoded on one
//! thread: libvpx's VP8 threads wait for each other's rows by spinning, which on a busy machine
//! cost several times the encoding itself (BENCHMARKS.md, "Capture").
//!
//! Stopping sends end-of-stream into every branch and waits for it at the muxer, so the file is
//! whole; the bus is watched on a thread of its own (never the GTK main loop). A recorded window
//! that closes makes `ximagesrc` fail: its branch is ended there and the sound goes on until stopped,
//! so what was recorded is kept. The file is written unbuffered, so a killed app leaves a `.part`
//! that [`super::repair`] remuxes at the next start.

use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;
use parking_lot::Mutex;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// One live audio frame: 20 ms of 16 kHz mono S16LE.
pub const FRAME_BYTES: usize = 640;
/// Frames per second of screen video.
pub const FRAME_RATE: u32 = 30;
/// The video bitrate (bits/s): plenty for screen content at 720p.
pub const VIDEO_BITRATE: u32 = 2_000_000;
/// The Opus bitrate (bits/s).
pub const AUDIO_BITRATE: u32 = 96_000;

/// What to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Video {
    Screen,
    /// An X window, by id.
    Window(u64),
}

/// A recording's settings.
#[derive(Debug, Clone)]
pub struct Spec {
    pub video: Option<Video>,
    pub system_audio: bool,
    pub mic: bool,
    pub live: bool,
    /// The final file; `<file>.part` while recording.
    pub file: PathBuf,
}

/// Why a recording could not start (or broke).
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("no display to record: DISPLAY is not set (Cowork Studio records an X11 session)")]
    NoDisplay,
    #[error("no audio server answered: {0} (install and start PulseAudio — `apt install pulseaudio` — or PipeWire's pipewire-pulse)")]
    NoAudioServer(String),
    #[error("GStreamer's {element} is missing (install {package})")]
    MissingElement { element: &'static str, package: &'static str },
    #[error("failed to start GStreamer: {0}")]
    Init(String),
    #[error("failed to create {}: {source}", dir.display())]
    Folder { dir: PathBuf, source: std::io::Error },
    #[error("the recording failed: {0}")]
    Pipeline(String),
}

impl RecordError {
    /// The name a pane's promise rejects with.
    pub fn name(&self) -> cowork_core::error_name::ErrorName {
        use cowork_core::error_name::ErrorName;
        match self {
            RecordError::NoDisplay => ErrorName::Unsupported,
            _ => ErrorName::Unavailable,
        }
    }
}

/// Called once, from the bus thread, when the recording is over: the final file (or why not).
pub type OnEnd = Box<dyn FnOnce(Result<PathBuf, String>, String) + Send>;
/// Called with each live frame, in order.
pub type OnAudio = Box<dyn FnMut(Vec<u8>) + Send>;

/// A running recording.
pub struct Recorder {
    pipeline: gst::Pipeline,
    reason: Arc<Mutex<Option<String>>>,
    ended: Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
}

/// The `.part` file a recording of `file` is written to.
pub fn part_of(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}

/// GStreamer, once, with the elements a recording needs.
pub fn init() -> Result<(), RecordError> {
    gst::init().map_err(|e| RecordError::Init(e.to_string()))?;
    for (element, package) in [
        ("ximagesrc", "gstreamer1.0-plugins-good"),
        ("vp8enc", "gstreamer1.0-plugins-good"),
        ("webmmux", "gstreamer1.0-plugins-good"),
        ("pulsesrc", "gstreamer1.0-pulseaudio"),
        ("opusenc", "gstreamer1.0-plugins-base"),
        ("audiomixer", "gstreamer1.0-plugins-base"),
        ("matroskademux", "gstreamer1.0-plugins-good"),
        ("opusparse", "gstreamer1.0-plugins-bad"),
    ] {
        if gst::ElementFactory::find(element).is_none() {
            return Err(RecordError::MissingElement { element, package });
        }
    }
    Ok(())
}

/// The pipeline for `spec`, in gst-launch syntax.
pub fn describe(spec: &Spec, part: &Path) -> String {
    let location = part.display().to_string().replace('"', "\\\"");
    let mut out =
        format!("webmmux name=mux ! filesink buffer-mode=unbuffered location=\"{location}\" ");
    if let Some(video) = &spec.video {
        let xid = match video {
            Video::Screen => String::new(),
            Video::Window(xid) => format!(" xid={xid}"),
        };
        out += &format!(
            "ximagesrc name=video use-damage=false show-pointer=true{xid} ! \
             video/x-raw,framerate={FRAME_RATE}/1 ! queue ! videoconvert ! \
             vp8enc deadline=1 cpu-used=16 threads=1 end-usage=cbr \
             target-bitrate={VIDEO_BITRATE} keyframe-max-dist=300 ! queue ! mux. "
        );
    }
    let sources: Vec<&str> = [(spec.system_audio, "device=@DEFAULT_MONITOR@"), (spec.mic, "")]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, device)| device)
        .collect();
    // 40 ms a buffer, not pulsesrc's 10: a quarter of the wake-ups, and 40 % less CPU for the sound.
    let source = |i: usize, device: &str| {
        format!(
            "pulsesrc name=sound{i} {device} latency-time=40000 ! audioconvert ! audioresample ! \
             audio/x-raw,rate=48000,channels=2"
        )
    };
    let sound = match sources.as_slice() {
        [] => return out,
        [device] => source(0, device),
        several => {
            for (i, device) in several.iter().enumerate() {
                out += &format!("{} ! queue ! mix. ", source(i, device));
            }
            // A live mixer mixes silence for a sound whose buffers are late and drops them when
            // they come: on a busy machine that lost seconds of the voice. Waiting 200 ms keeps
            // both whole beside five spinning threads a core (capture tests, BENCHMARKS.md
            // "Capture"); the live frames come that much later, the file is the same.
            "audiomixer name=mix latency=200000000".to_string()
        }
    };
    let encode = format!("queue ! audioresample ! opusenc bitrate={AUDIO_BITRATE} ! queue ! mux. ");
    if spec.live {
        out += &format!(
            "{sound} ! audioconvert ! tee name=sound \
             sound. ! {encode}\
             sound. ! queue ! audioresample ! audioconvert ! \
             audio/x-raw,format=S16LE,rate=16000,channels=1 ! \
             appsink name=live sync=false max-buffers=500 drop=false "
        );
    } else {
        out += &format!("{sound} ! {encode}");
    }
    out
}

impl Recorder {
    /// Starts recording `spec`; `on_end` is called once it is over, from the bus thread.
    pub fn start(
        spec: &Spec,
        on_audio: Option<OnAudio>,
        on_end: OnEnd,
    ) -> Result<Recorder, RecordError> {
        if spec.video.is_some() && std::env::var_os("DISPLAY").is_none() {
            return Err(RecordError::NoDisplay);
        }
        init()?;
        let part = part_of(&spec.file);
        if let Some(dir) = spec.file.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|source| RecordError::Folder { dir: dir.to_path_buf(), source })?;
        }
        let pipeline = gst::parse::launch(&describe(spec, &part))
            .map_err(|e| RecordError::Pipeline(e.to_string()))?
            .downcast::<gst::Pipeline>()
            .expect("a description with several elements parses to a pipeline");
        if let (Some(mut on_audio), Some(sink)) = (on_audio, pipeline.by_name("live")) {
            let sink = sink.downcast::<gst_app::AppSink>().expect("`live` is an appsink");
            let mut pending = Vec::with_capacity(FRAME_BYTES * 4);
            sink.set_callbacks(
                gst_app::AppSinkCallbacks::builder()
                    .new_sample(move |sink| {
                        let sample = sink.pull_sample().map_err(|_| gst::FlowError::Eos)?;
                        if let Some(buffer) = sample.buffer() {
                            let map = buffer.map_readable().map_err(|_| gst::FlowError::Error)?;
                            pending.extend_from_slice(&map);
                            while pending.len() >= FRAME_BYTES {
                                on_audio(pending.drain(..FRAME_BYTES).collect());
                            }
                        }
                        Ok(gst::FlowSuccess::Ok)
                    })
                    .build(),
            );
        }
        let recorder = Recorder {
            pipeline,
            reason: Arc::default(),
            ended: Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new())),
        };
        let bus = recorder.pipeline.bus().expect("a pipeline has a bus");
        if recorder.pipeline.set_state(gst::State::Playing).is_err() {
            let error = first_error(&bus).unwrap_or_else(|| "it would not start".into());
            let _ = recorder.pipeline.set_state(gst::State::Null);
            let _ = std::fs::remove_file(&part);
            return Err(classify(error));
        }
        // A source that cannot open (no audio server) fails while going to Playing.
        let (change, _, _) = recorder.pipeline.state(gst::ClockTime::from_seconds(5));
        if change.is_err() {
            let error = first_error(&bus).unwrap_or_else(|| "it would not start".into());
            let _ = recorder.pipeline.set_state(gst::State::Null);
            let _ = std::fs::remove_file(&part);
            return Err(classify(error));
        }
        let watch = Watch {
            pipeline: recorder.pipeline.clone(),
            reason: recorder.reason.clone(),
            ended: recorder.ended.clone(),
            part,
            file: spec.file.clone(),
        };
        std::thread::Builder::new()
            .name("capture-bus".into())
            .spawn(move || watch.run(bus, on_end))
            .map_err(|e| RecordError::Pipeline(e.to_string()))?;
        Ok(recorder)
    }

    /// How much has been recorded: the pipeline's running time (the tests stop on it).
    #[cfg(test)]
    pub fn elapsed(&self) -> Duration {
        self.pipeline
            .current_running_time()
            .map_or(Duration::ZERO, |time| Duration::from_nanos(time.nseconds()))
    }

    /// Ends the recording (`reason` in words): end-of-stream into every branch; the file is final
    /// when `on_end` is called. A second call does nothing.
    pub fn stop(&self, reason: &str) {
        {
            let mut held = self.reason.lock();
            if held.is_some() {
                return;
            }
            *held = Some(reason.to_string());
        }
        end_stream(&self.pipeline);
    }

    /// [`stop`](Self::stop), then waits up to `wait` for the file to be final; true when it is.
    pub fn stop_and_wait(&self, reason: &str, wait: Duration) -> bool {
        self.stop(reason);
        let (done, ended) = &*self.ended;
        let guard = done.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (guard, _) = ended
            .wait_timeout_while(guard, wait, |done| !*done)
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *guard
    }
}

/// End-of-stream into each source (the video's, if it already failed, downstream of it).
fn end_stream(pipeline: &gst::Pipeline) {
    for source in pipeline.iterate_sources().into_iter().flatten() {
        if !source.send_event(gst::event::Eos::new()) {
            // A source whose task stopped (a window that closed) no longer handles events.
            if let Some(peer) = source.static_pad("src").and_then(|pad| pad.peer()) {
                peer.send_event(gst::event::Eos::new());
            }
        }
    }
}

/// The first error message waiting on `bus`.
fn first_error(bus: &gst::Bus) -> Option<String> {
    let message =
        bus.timed_pop_filtered(gst::ClockTime::from_mseconds(500), &[gst::MessageType::Error])?;
    match message.view() {
        gst::MessageView::Error(error) => Some(format!(
            "{}: {}",
            error.src().map(|s| s.name().to_string()).unwrap_or_default(),
            error.error()
        )),
        _ => None,
    }
}

fn classify(error: String) -> RecordError {
    if error.starts_with("sound") {
        RecordError::NoAudioServer(error)
    } else if error.starts_with("video") && std::env::var_os("DISPLAY").is_some() {
        RecordError::Pipeline(error)
    } else if error.starts_with("video") {
        RecordError::NoDisplay
    } else {
        RecordError::Pipeline(error)
    }
}

/// The bus thread's share of a recording.
struct Watch {
    pipeline: gst::Pipeline,
    reason: Arc<Mutex<Option<String>>>,
    ended: Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
    part: PathBuf,
    file: PathBuf,
}

impl Watch {
    fn run(self, bus: gst::Bus, on_end: OnEnd) {
        let mut failure = None;
        for message in bus.iter_timed(gst::ClockTime::NONE) {
            match message.view() {
                gst::MessageView::Eos(_) => break,
                gst::MessageView::Error(error) => {
                    let from = error.src().map(|s| s.name().to_string()).unwrap_or_default();
                    if from == "video" && self.reason.lock().is_none() {
                        // The recorded window went away: end the video there, keep the sound going
                        // while there is any; with none, the recording is over.
                        tracing::info!(
                            "the recorded window is gone ({}): its video ends here",
                            error.error()
                        );
                        if let Some(peer) = self
                            .pipeline
                            .by_name("video")
                            .and_then(|video| video.static_pad("src"))
                            .and_then(|pad| pad.peer())
                        {
                            peer.send_event(gst::event::Eos::new());
                        }
                        if self.pipeline.by_name("sound0").is_none() {
                            *self.reason.lock() = Some("the recorded window closed".into());
                        }
                        continue;
                    }
                    failure = Some(format!("{from}: {} ({:?})", error.error(), error.debug()));
                    break;
                }
                _ => {}
            }
        }
        let _ = self.pipeline.set_state(gst::State::Null);
        let reason = self.reason.lock().clone().unwrap_or_else(|| "it failed".into());
        let outcome = match failure {
            // A broken stream still keeps what was written: remux it whole.
            Some(failure) => match remux(&self.part, &self.file) {
                Ok(()) => {
                    tracing::warn!("the recording broke ({failure}); kept what was recorded");
                    Ok(self.file.clone())
                }
                Err(error) => Err(format!("{failure}; {error}")),
            },
            None => {
                std::fs::rename(&self.part, &self.file).map(|()| self.file.clone()).map_err(|e| {
                    format!(
                        "failed to rename {} to {}: {e}",
                        self.part.display(),
                        self.file.display()
                    )
                })
            }
        };
        let (done, ended) = &*self.ended;
        on_end(outcome, reason);
        *done.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = true;
        ended.notify_all();
    }
}

/// Remuxes `part` into `file` (through `<file>.remux`, renamed when whole) and removes `part`: a
/// `.part` whose stream broke, or one a crash left ([`super::repair`]). Its blocks are whole but
/// it lacks its duration and index; remuxed (`matroskademux` → `webmmux`) it is a file any player
/// seeks in.
pub fn remux(part: &Path, file: &Path) -> Result<(), String> {
    init().map_err(|e| e.to_string())?;
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
