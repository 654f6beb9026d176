//! Where a start goes, for `bench/desktop`: with `COWORK_START_TRACE=<file>` set, each step of
//! the start appends `<unix ms> <step>` to that file (the bench reads it beside the page's own
//! timings). Unset, a step costs one environment lookup.

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

/// Appends `step` with the wall-clock time (milliseconds, fractional) to the trace file, if any.
pub fn mark(step: &str) {
    let Some(file) = std::env::var_os("COWORK_START_TRACE").filter(|f| !f.is_empty()) else {
        return;
    };
    let ms = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs_f64() * 1e3;
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .and_then(|mut out| writeln!(out, "{ms:.1} {step}"));
    if let Err(error) = written {
        tracing::warn!("failed to write the start trace to {}: {error}", file.to_string_lossy());
    }
}
