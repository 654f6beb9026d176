//! The recorder against a real X display and a real PulseAudio: run under `tests/capture/rig`
//! (Xvfb + openbox + null sinks playing a 440 Hz tone at −9 dBFS as the system sound and an 880 Hz
//! tone at −15 dBFS as the mic). Without the rig each test says so and why, and passes nothing.
//!
//!   tests/capture/rig cargo test -p cowork-desktop capture:: -- --test-threads=1

use super::recorder::{part_of, RecordError, Recorder, Spec, Video, FRAME_BYTES};
use super::{repair, still, xerror};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Whether the rig is there; if not, prints why this test checked nothing.
fn rig(test: &str) -> bool {
    let reason = if std::env::var_os("DISPLAY").is_none() {
        Some("no X display (DISPLAY is not set)")
    } else if !Command::new("pactl").arg("info").output().is_ok_and(|o| o.status.success()) {
        Some("no PulseAudio server answers `pactl info`")
    } else if Command::new("ffprobe").arg("-version").output().is_err() {
        Some("ffprobe is missing (apt install ffmpeg)")
    } else {
        None
    };
    match reason {
        Some(reason) => {
            // Straight to stderr, past the test harness's capture: a skip must be seen.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: {reason}; run it under tests/capture/rig"
            );
            false
        }
        None => true,
    }
}

fn spec(dir: &Path, video: Option<Video>, system_audio: bool, mic: bool, live: bool) -> Spec {
    Spec { video, system_audio, mic, live, file: dir.join("Recordings/take.webm") }
}

/// Records `spec` for `seconds`: the final file and the live frames.
fn record_for(spec: &Spec, seconds: f64) -> (PathBuf, Vec<Vec<u8>>) {
    let (frames_tx, frames) = mpsc::channel();
    let (end_tx, end) = mpsc::channel();
    let on_audio: super::recorder::OnAudio = Box::new(move |frame| {
        let _ = frames_tx.send(frame);
    });
    let recorder = Recorder::start(
        spec,
        spec.live.then_some(on_audio),
        Box::new(move |outcome, reason| {
            let _ = end_tx.send((outcome, reason));
        }),
    )
    .expect("the recording starts");
    // Stopped once `seconds` are recorded (by the pipeline's clock: a loaded machine starts late).
    while recorder.elapsed() < Duration::from_secs_f64(seconds) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(recorder.stop_and_wait("the test", Duration::from_secs(10)), "the file is finalised");
    let (outcome, reason) = end.recv_timeout(Duration::from_secs(1)).expect("on_end was called");
    assert_eq!(reason, "the test");
    let file = outcome.expect("the recording ended well");
    (file, frames.try_iter().collect())
}

/// `ffprobe`'s duration (s) and codec names.
fn probe(file: &Path) -> (f64, Vec<String>) {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-show_entries", "format=duration:stream=codec_name", "-of", "json"])
        .arg(file)
        .output()
        .expect("ffprobe runs");
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("ffprobe answers JSON");
    let duration = json["format"]["duration"].as_str().and_then(|d| d.parse().ok()).unwrap_or(0.0);
    let codecs = json["streams"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["codec_name"].as_str().map(String::from))
        .collect();
    (duration, codecs)
}

/// The audio's mean volume in dBFS (RMS), by ffmpeg's volumedetect, skipping the first half second;
/// with `band`, of that pitch alone (Hz: a narrow band-pass first, one octave away is 23 dB down).
fn mean_volume(file: &Path, band: Option<u32>) -> f64 {
    let filter = match band {
        Some(hz) => format!("{},volumedetect", band_pass(hz)),
        None => "volumedetect".to_string(),
    };
    let out = ffmpeg_audio(file, &filter);
    let log = String::from_utf8_lossy(&out.stderr);
    log.lines()
        .find_map(|line| line.split("mean_volume: ").nth(1))
        .and_then(|v| v.trim_end_matches(" dB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no mean_volume in ffmpeg's output:\n{log}"))
}

/// The level of one pitch (dBFS RMS) in each fifth of a second after the first half second, but
/// the first and the last two: where two sounds start and end a few milliseconds apart, and where
/// the recording's end cuts the last short.
fn levels_of_pitch(file: &Path, hz: u32) -> Vec<f64> {
    let filter = format!(
        "{},asetnsamples=n=9600:p=0,astats=metadata=1:reset=1,\
         ametadata=print:key=lavfi.astats.Overall.RMS_level:file=-",
        band_pass(hz)
    );
    let out = ffmpeg_audio(file, &filter);
    let mut levels: Vec<f64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.split("RMS_level=").nth(1)?.trim().parse().ok())
        .collect();
    levels.truncate(levels.len().saturating_sub(2));
    levels.into_iter().skip(1).collect()
}

fn band_pass(hz: u32) -> String {
    format!("bandpass=f={hz}:width_type=q:w=10")
}

/// ffmpeg's run of `filter` over the audio of `file`, from half a second in.
fn ffmpeg_audio(file: &Path, filter: &str) -> std::process::Output {
    Command::new("ffmpeg")
        .args(["-hide_banner", "-ss", "0.5", "-i"])
        .arg(file)
        .args(["-vn", "-af", filter, "-f", "null", "-"])
        .output()
        .expect("ffmpeg runs")
}

/// Runs `f` while threads spin on every core, five times over, as a loaded machine has them.
fn with_busy_cores<T>(f: impl FnOnce() -> T) -> T {
    let stop = Arc::new(AtomicBool::new(false));
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let spinners: Vec<_> = (0..cores * 5)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        })
        .collect();
    let result = f();
    stop.store(true, Ordering::Relaxed);
    spinners.into_iter().for_each(|s| s.join().unwrap());
    result
}

fn rms_dbfs(frames: &[Vec<u8>]) -> f64 {
    let samples: Vec<f64> = frames
        .iter()
        .flat_map(|f| {
            f.chunks_exact(2).map(|b| f64::from(i16::from_le_bytes([b[0], b[1]])) / 32768.0)
        })
        .collect();
    let mean = samples.iter().map(|s| s * s).sum::<f64>() / samples.len() as f64;
    10.0 * mean.log10()
}

#[test]
fn a_three_second_screen_recording_is_vp8_and_opus_of_three_seconds_with_the_system_sound() {
    if !rig("a_three_second_screen_recording…") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = record_for(&spec(dir.path(), Some(Video::Screen), true, false, false), 3.0);
    assert!(!part_of(&file).exists(), "the .part was renamed");
    let (duration, codecs) = probe(&file);
    assert!((duration - 3.0).abs() <= 0.2, "duration {duration} s");
    assert_eq!(codecs, ["vp8", "opus"], "{file:?}");
    let volume = mean_volume(&file, None);
    assert!((volume - -9.0).abs() <= 1.5, "the system sound at {volume} dBFS, not −9");
}

#[test]
fn the_mic_is_recorded_at_its_level_and_sound_only_has_no_video() {
    if !rig("the_mic_is_recorded…") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = record_for(&spec(dir.path(), None, false, true, false), 2.0);
    let (duration, codecs) = probe(&file);
    assert_eq!(codecs, ["opus"]);
    assert!((duration - 2.0).abs() <= 0.2, "duration {duration} s");
    let volume = mean_volume(&file, None);
    assert!((volume - -15.0).abs() <= 1.5, "the mic at {volume} dBFS, not −15");
}

#[test]
fn the_system_sound_and_the_mic_are_mixed_into_one_track() {
    if !rig("the_system_sound_and_the_mic_are_mixed…") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // On a busy machine: one of the two sounds then reaches the mixer late, and a mixer that does
    // not wait for it mixes silence in its place (CI lost 2 dB of the mic that way, and with more
    // load whole seconds of it).
    let (file, _) = with_busy_cores(|| record_for(&spec(dir.path(), None, true, true, false), 2.0));
    let (_, codecs) = probe(&file);
    assert_eq!(codecs, ["opus"]);
    // Each at its level: the system sound's 440 Hz at −9 dBFS, the mic's 880 Hz at −15.
    let system = mean_volume(&file, Some(440));
    assert!((system - -9.0).abs() <= 1.5, "the system sound at {system} dBFS, not −9");
    let mic = mean_volume(&file, Some(880));
    assert!((mic - -15.0).abs() <= 1.5, "the mic at {mic} dBFS, not −15");
    // And all along: no stretch of the voice lost.
    let levels = levels_of_pitch(&file, 880);
    assert!(levels.len() >= 4, "{} fifths of a second of the mic", levels.len());
    assert!(
        levels.iter().all(|level| (level - -15.0).abs() <= 1.5),
        "the mic, each fifth of a second (dBFS): {levels:?}"
    );
}

#[test]
fn live_frames_are_640_bytes_about_50_a_second_at_the_level_heard() {
    if !rig("live_frames…") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (_, frames) = record_for(&spec(dir.path(), None, true, false, true), 2.0);
    assert!(frames.iter().all(|f| f.len() == FRAME_BYTES), "every frame is 20 ms of 16 kHz mono");
    assert!((85..=110).contains(&frames.len()), "{} frames in 2 s", frames.len());
    let level = rms_dbfs(&frames[10..]);
    assert!((level - -9.0).abs() <= 1.5, "live sound at {level} dBFS, not −9");
}

#[test]
fn a_window_recording_survives_the_window_closing_and_keeps_what_was_recorded() {
    if !rig("a_window_recording_survives…") {
        return;
    }
    xerror::install();
    let mut window = Command::new("xmessage")
        .args(["-geometry", "320x200+40+40", "-name", "recorded", "the window being recorded"])
        .spawn()
        .expect("xmessage starts (x11-utils)");
    let start = Instant::now();
    let xid = loop {
        match still::front_window_id() {
            Ok(xid) => break xid,
            Err(_) if start.elapsed() < Duration::from_secs(5) => {
                std::thread::sleep(Duration::from_millis(100))
            }
            Err(error) => panic!("the window never showed: {error} (is openbox running?)"),
        }
    };
    xerror::recording(xid);
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(dir.path(), Some(Video::Window(xid)), true, false, false);
    let (end_tx, end) = mpsc::channel();
    let recorder = Recorder::start(
        &spec,
        None,
        Box::new(move |outcome, reason| {
            let _ = end_tx.send((outcome, reason));
        }),
    )
    .expect("the recording starts");
    std::thread::sleep(Duration::from_secs(1));
    window.kill().unwrap();
    window.wait().unwrap();
    std::thread::sleep(Duration::from_secs(1));
    assert!(end.try_recv().is_err(), "the sound goes on after the window closed");
    assert!(recorder.stop_and_wait("the test", Duration::from_secs(10)));
    let (outcome, _) = end.recv_timeout(Duration::from_secs(1)).unwrap();
    let file = outcome.expect("what was recorded is kept");
    let (duration, codecs) = probe(&file);
    assert!(codecs.contains(&"vp8".to_string()), "{codecs:?}");
    assert!(duration >= 1.8, "duration {duration} s");
}

/// Run by [`a_killed_recording_is_repaired_at_the_next_start`] in a child process it kills.
#[test]
#[ignore = "a child of a_killed_recording_is_repaired_at_the_next_start"]
fn child_records_until_killed() {
    let file =
        PathBuf::from(std::env::var("COWORK_CAPTURE_CHILD_FILE").expect("run by its parent test"));
    let spec =
        Spec { video: Some(Video::Screen), system_audio: true, mic: false, live: false, file };
    let _recorder = Recorder::start(&spec, None, Box::new(|_, _| {})).unwrap();
    std::thread::sleep(Duration::from_secs(60));
}

/// Run by [`the_errors_name_what_is_missing`] without a display, or without an audio server.
#[test]
#[ignore = "a child of the_errors_name_what_is_missing"]
fn child_reports_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(dir.path(), Some(Video::Screen), true, false, false);
    let error = Recorder::start(&spec, None, Box::new(|_, _| {})).err().expect("it cannot start");
    println!("{}: {error}", error.name());
    let expected = std::env::var("COWORK_CAPTURE_EXPECT").unwrap();
    match expected.as_str() {
        "display" => assert!(matches!(error, RecordError::NoDisplay), "{error}"),
        _ => assert!(matches!(error, RecordError::NoAudioServer(_)), "{error}"),
    }
    assert!(!part_of(&spec.file).exists(), "nothing is left behind");
}

fn child(test: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args(["--ignored", "--exact", &format!("capture::tests::{test}"), "--nocapture"]);
    command
}

#[test]
fn a_killed_recording_is_repaired_at_the_next_start() {
    if !rig("a_killed_recording_is_repaired…") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let file = root.path().join("Recordings/killed.webm");
    let part = part_of(&file);
    let mut recording = child("child_records_until_killed")
        .env("COWORK_CAPTURE_CHILD_FILE", &file)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    repair::begin(root.path(), "r1", &repair::Note { part: part.clone(), file: file.clone() })
        .unwrap();
    let start = Instant::now();
    while !part.metadata().is_ok_and(|m| m.len() > 0) && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(2));
    recording.kill().unwrap(); // SIGKILL
    recording.wait().unwrap();
    assert!(part.exists() && !file.exists(), "a killed recording leaves its .part");
    let (repaired, failed) = repair::repair_left(root.path());
    assert_eq!((repaired, failed), (vec![file.clone()], Vec::<String>::new()));
    assert!(!part.exists(), "the .part is gone once repaired");
    let (duration, codecs) = probe(&file);
    assert_eq!(codecs, ["vp8", "opus"]);
    assert!(duration >= 1.0, "the repaired file knows its duration: {duration} s");
    assert_eq!(repair::repair_left(root.path()).0, Vec::<PathBuf>::new(), "repaired once");
}

#[test]
fn the_errors_name_what_is_missing() {
    if !rig("the_errors_name_what_is_missing") {
        return;
    }
    let no_display = child("child_reports_what_is_missing")
        .env_remove("DISPLAY")
        .env("COWORK_CAPTURE_EXPECT", "display")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&no_display.stdout);
    assert!(no_display.status.success(), "{said}");
    assert!(said.contains("Unsupported: no display to record: DISPLAY is not set"), "{said}");
    let no_sound = child("child_reports_what_is_missing")
        .env("PULSE_SERVER", "unix:/nonexistent/pulse")
        .env("COWORK_CAPTURE_EXPECT", "sound")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&no_sound.stdout);
    assert!(no_sound.status.success(), "{said}");
    assert!(said.contains("Unavailable: no audio server answered"), "{said}");
    assert!(said.contains("apt install pulseaudio"), "{said}");
}

/// Cowork's side of bench/capture: records the screen and the system sound for
/// `COWORK_CAPTURE_BENCH_SECS` to `COWORK_CAPTURE_BENCH_FILE`.
#[test]
#[ignore = "the benchmark's recording (bench/capture)"]
fn bench_records_for_a_while() {
    let seconds: f64 =
        std::env::var("COWORK_CAPTURE_BENCH_SECS").map_or(60.0, |s| s.parse().unwrap());
    let file =
        PathBuf::from(std::env::var("COWORK_CAPTURE_BENCH_FILE").expect("run by bench/capture"));
    let spec =
        Spec { video: Some(Video::Screen), system_audio: true, mic: false, live: false, file };
    record_for(&spec, seconds);
}
