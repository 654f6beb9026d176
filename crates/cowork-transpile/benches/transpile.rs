//! Microseconds per file for a ~190-line widget and a routine, fresh each time (no cache), and the
//! widget against its baseline: esbuild's `transformSync` on the same file, doing the same job
//! (types stripped, JSX to the automatic runtime, CommonJS).
//! A plain timing loop, no framework: `cargo bench -p cowork-transpile` (or `bench/run`).
//!
//! The baseline runs `node bench/esbuild-transform.mjs` when `bench/node_modules` exists; install
//! it with `npm ci --prefix bench`.

use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use cowork_transpile::{transpile, Flavor};

const WIDGET: &str = include_str!("../tests/fixtures/widget.tsx");
const ROUTINE: &str = include_str!("../tests/fixtures/routine.ts");
/// Iterations the esbuild script times (after its own warm-up).
const ESBUILD_RUNS: &str = "500";

/// Runs `once` until a second has passed (after a warm-up) and returns the mean per call.
fn measure(mut once: impl FnMut()) -> Duration {
    for _ in 0..20 {
        once();
    }
    let start = Instant::now();
    let mut runs = 0u32;
    while start.elapsed() < Duration::from_secs(1) {
        once();
        runs += 1;
    }
    start.elapsed() / runs
}

/// esbuild's µs per file for `widget`, or why it was not measured.
fn esbuild_micros(widget: &Path) -> Result<(f64, String), String> {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench");
    if !bench.join("node_modules/esbuild").is_dir() {
        return Err("not installed: run `npm ci --prefix bench` (or bench/run)".into());
    }
    let out = Command::new("node")
        .arg(bench.join("esbuild-transform.mjs"))
        .args([widget.as_os_str(), ESBUILD_RUNS.as_ref()])
        .output()
        .map_err(|e| format!("failed to start node: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "esbuild-transform.mjs failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("unreadable esbuild report: {e}"))?;
    let micros = report["usPerFile"].as_f64().ok_or("the esbuild report has no usPerFile")?;
    Ok((micros, report["esbuild"].as_str().unwrap_or("?").to_string()))
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this without it: do nothing then.
    if !std::env::args().any(|arg| arg == "--bench") {
        return;
    }
    let mut widget_micros = 0.0;
    for (name, source, file, flavor) in [
        ("widget", WIDGET, "widget.tsx", Flavor::Widget),
        ("routine", ROUTINE, "routine.ts", Flavor::Routine),
    ] {
        let per_file = measure(|| {
            let output = transpile(black_box(source), file, flavor, &mut |_| Ok(None))
                .expect("the fixtures transpile");
            black_box(output);
        });
        let micros = per_file.as_secs_f64() * 1e6;
        if flavor == Flavor::Widget {
            widget_micros = micros;
        }
        let lines = source.lines().count();
        println!("{name:8} {lines:4} lines  {micros:8.1} µs/file");
    }
    let widget = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/widget.tsx");
    match esbuild_micros(&widget) {
        Ok((esbuild, version)) => println!(
            "widget   oxc {widget_micros:.1} µs  esbuild {version} transformSync {esbuild:.1} µs  ratio {:.2}×",
            widget_micros / esbuild
        ),
        Err(why) => println!("widget   esbuild baseline skipped: {why}"),
    }
}
