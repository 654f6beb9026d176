//! Widgets' streams (`cowork.stream.open`): the bodies a pane's workbench sends the daemon — to
//! start one (`POST /api/streams`, whose answer is the stream) and to write to, resize and close
//! it (`POST /api/sdk/stream.write|resize|close`), and to acknowledge its output
//! (`POST /api/sdk/stream.ack`).

use serde::{Deserialize, Serialize};

/// `POST /api/streams`: the process to start and the consent for it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StreamOpen {
    /// The program and its arguments; the consent is for these words joined by spaces.
    pub argv: Vec<String>,
    /// A ticket from `consent.request` for this argv; none when it is approved ahead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub consent: Option<String>,
    /// The terminal's columns (80 unless told).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub cols: Option<u16>,
    /// The terminal's rows (24 unless told).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub rows: Option<u16>,
}

/// `stream.write`: input for the stream's process, as typed.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StreamWrite {
    /// The stream (the `x-cowork-stream` header of its answer).
    pub id: String,
    /// The input, at most 64 KiB.
    pub data: String,
}

/// `stream.resize`: the terminal's new size.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StreamResize {
    /// The stream.
    pub id: String,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
}

/// `stream.close`: kills the stream's process and all it started.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StreamClose {
    /// The stream.
    pub id: String,
}

/// The most output (bytes of frames' payloads) the daemon sends beyond what was acknowledged.
pub const WINDOW: u64 = 4 << 20;

/// `stream.ack`: output of the stream the pane has taken (the workbench's relay, once the pane
/// acknowledged it). The daemon sends at most [`WINDOW`] of output beyond what was acknowledged,
/// then stops reading the process's terminal until more is: a browser's `fetch` takes a body in
/// as fast as it comes whether or not the page reads it, so only this bounds what a flood (`yes`)
/// piles up in the page.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StreamAck {
    /// The stream.
    pub id: String,
    /// Bytes of output (frames' payloads) taken since the last acknowledgement.
    pub bytes: u64,
}

/// `ui/src/workbench/wire/streams.ts`, the workbench's copy of these types: checked in, and this
/// test fails when it is stale, with the command that refreshes it.
#[cfg(all(test, feature = "typescript"))]
mod typescript {
    use super::*;
    use ts_rs::{Config, TS};

    const FILE: &str = "ui/src/workbench/wire/streams.ts";
    const REFRESH: &str =
        "COWORK_WRITE_TS=1 cargo test -p cowork-wire --features typescript --lib streams";

    fn render() -> String {
        let cfg = Config::new().with_large_int("number");
        let decls = [
            StreamOpen::decl(&cfg),
            StreamWrite::decl(&cfg),
            StreamResize::decl(&cfg),
            StreamClose::decl(&cfg),
            StreamAck::decl(&cfg),
        ];
        let header = format!(
            "// Generated from crates/cowork-wire/src/streams.rs: do not edit. Refresh:\n// {REFRESH}\n"
        );
        crate::typescript_file::join(&header, decls)
    }

    #[test]
    fn the_checked_in_stream_types_are_fresh() {
        crate::typescript_file::check(env!("CARGO_MANIFEST_DIR"), FILE, &render(), REFRESH);
    }
}
