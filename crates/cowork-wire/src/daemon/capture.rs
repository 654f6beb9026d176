//! `cowork.capture` on the wire: a pane's `capture.record` / `shot` / `stop` params and answers,
//! the order the daemon sends down the desktop channel, the shell's answer
//! (`POST /api/desktop/capture/answer`) and what a recording sends later
//! (`POST /api/desktop/capture/event`). The daemon checks the rules; the shell asks and records.

use super::ErrorName;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::path::PathBuf;

/// What `video` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Video {
    /// The whole screen.
    Screen,
    /// One window, the one in front when the person allows.
    Window,
}

/// `capture.record({video, audio, live, file})`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordParams {
    /// `"screen"` (the default), `"window"`, or `false` for sound only.
    #[serde(default = "screen", deserialize_with = "video_or_false", serialize_with = "or_false")]
    pub video: Option<Video>,
    /// The sound to record: the computer's, the microphone's, or both.
    #[serde(default)]
    pub audio: AudioParams,
    /// Hand the sound to the pane while recording (`capture.onAudio`), as well as to the file.
    #[serde(default)]
    pub live: bool,
    /// The workspace-relative file to record to; none = `Recordings/<date>-<app>.<ext>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

fn screen() -> Option<Video> {
    Some(Video::Screen)
}

/// `"screen"`, `"window"`, or `false`.
fn video_or_false<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Video>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Given {
        Kind(Video),
        Off(bool),
    }
    match Given::deserialize(deserializer)? {
        Given::Kind(video) => Ok(Some(video)),
        Given::Off(false) => Ok(None),
        Given::Off(true) => {
            Err(serde::de::Error::custom("video is \"screen\", \"window\" or false (sound only)"))
        }
    }
}

fn or_false<S: Serializer>(video: &Option<Video>, serializer: S) -> Result<S::Ok, S::Error> {
    match video {
        Some(video) => video.serialize(serializer),
        None => serializer.serialize_bool(false),
    }
}

/// `audio: {system, mic}`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AudioParams {
    /// Record what the computer plays.
    #[serde(default)]
    pub system: bool,
    /// Record the microphone.
    #[serde(default)]
    pub mic: bool,
}

/// `capture.shot({source, file, image})`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShotParams {
    /// The whole screen (the default) or one window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Video>,
    /// The workspace-relative file to save to; none = under `Recordings/`, unless only `image` is asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Hand the picture back as base64 PNG.
    #[serde(default)]
    pub image: bool,
}

/// `capture.stop({id})`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopParams {
    /// The recording's session id, as `capture.record` answered it.
    pub id: String,
}

/// A recording, as `capture.record` and `capture.current` answer it: its session id and the
/// workspace-relative file it goes to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recording {
    /// The session id that names the recording (`capture.stop`, events).
    pub id: String,
    /// The workspace-relative file the recording goes to.
    pub file: String,
}

/// What `capture.shot` answers: where the still was saved and/or the picture itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Still {
    /// Workspace-relative, when it was saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Base64 PNG, when it was asked for (`image: true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_base64: Option<String>,
}

/// What the shell is asked to do, after its dialog says yes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Order {
    /// Record to `file` (written as `<file>.part` until it is finalised).
    #[serde(rename_all = "camelCase")]
    Record {
        /// The screen, one window, or none (sound only).
        video: Option<Video>,
        /// Record what the computer plays.
        system_audio: bool,
        /// Record the microphone.
        mic: bool,
        /// Send the sound to the pane while recording, too.
        live: bool,
        /// The file to record to, absolute.
        file: PathBuf,
    },
    /// One still, saved to `file` and/or handed back (`image`).
    #[serde(rename_all = "camelCase")]
    Shot {
        /// The whole screen or one window.
        source: Video,
        /// The file to save it to, absolute; none = not saved.
        file: Option<PathBuf>,
        /// Hand the picture back as base64 PNG.
        image: bool,
    },
}

/// One capture request sent down the desktop channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureRequest {
    /// Answer with this id.
    pub id: String,
    /// The workspace the asking pane belongs to.
    pub workspace: String,
    /// The app whose pane asks.
    pub app: String,
    /// The app's title, as the dialog shows it.
    pub app_title: String,
    /// What to do once the person says yes.
    pub order: Order,
}

/// The shell's answer to a [`CaptureRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum Outcome {
    /// Recording: `session` names it from now on.
    Started {
        /// The recording's session id.
        session: String,
    },
    /// The still was taken: saved at the order's file, and/or as base64 PNG.
    #[serde(rename_all = "camelCase")]
    Shot {
        /// The picture as base64 PNG, when the order asked for it.
        image_base64: Option<String>,
    },
    /// Refused or failed, by name (`Denied`, `Unsupported`, `DiskFull`, `Unavailable`…).
    Failed {
        /// What kept it from happening.
        name: ErrorName,
        /// What happened, in words.
        message: String,
    },
}

/// `POST /api/desktop/capture/answer`'s body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureAnswer {
    /// The [`CaptureRequest`]'s id this answers.
    pub id: String,
    /// Started, taken, or refused.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// `POST /api/desktop/capture/event`'s body: live audio of a session, or its end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum SessionEvent {
    /// Frames of 20 ms (640 bytes of 16 kHz mono S16LE each), base64, in order.
    Audio {
        /// The recording's session id.
        session: String,
        /// The frames, base64, in order.
        frames: Vec<String>,
    },
    /// The file is final (or what could be kept of it); `reason` says why it stopped, in words;
    /// `error` names what stopped it when it was not asked to (`DiskFull`, `Unavailable`).
    Stopped {
        /// The recording's session id.
        session: String,
        /// Why it stopped, in words.
        reason: String,
        /// What stopped it when it was not asked to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ErrorName>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sound_only_is_video_false_both_ways() {
        let params: RecordParams =
            serde_json::from_str(r#"{"video": false, "audio": {"mic": true}}"#).unwrap();
        assert_eq!(params.video, None);
        let text = serde_json::to_string(&params).unwrap();
        assert_eq!(serde_json::from_str::<RecordParams>(&text).unwrap(), params);
        let default: RecordParams = serde_json::from_str("{}").unwrap();
        assert_eq!(default.video, Some(Video::Screen));
        assert!(serde_json::from_str::<RecordParams>(r#"{"video": true}"#).is_err());
    }
}
