//! What a routine's output costs the memory of the process that runs it — the daemon, which
//! embeds this engine — measured as QA found the problem: a routine printing 800 MB to stdout
//! with no newline, and one calling `ctx.log` 300,000 times with 1 KB lines.
//!
//! Each measurement is a fresh process (this bench re-run with `COWORK_BENCH_OUTPUT=<load>`): it
//! starts an engine, runs a trivial routine once (so the runtime, the staged modules and the
//! audit log are there), reads its VmHWM and VmRSS, runs the load, then reads them again. It
//! prints the peak's growth (VmHWM after − before) and what the process still holds once the run
//! is over (VmRSS after − before), the median of [`ROUNDS`].
//!
//! `COWORK_BENCH_BASELINE=<another build of this bench>` (main's, say: copy this file into a
//! checkout of main and build it there) runs the baseline's rounds alternating with this build's
//! (A B A B …, so machine noise hits both alike) and prints them side by side with ratios.
//!
//! `cargo bench -p cowork-engine --bench run_output --profile dev` (memory, not speed: a debug
//! build holds the same data, and the release profile's fat LTO takes 25 minutes to build here).

use cowork_core::paths::Root;
use cowork_engine::{Engine, EngineConfig, RunRequest, Source};
use serde_json::json;
use std::process::Command;
use std::time::Instant;

const ROUNDS: usize = 3;

/// The loads, by name: what the routine does.
const LOADS: [(&str, &str); 2] = [
    (
        "stdout 800 MB, no newline",
        r#"export default async () => {
  const chunk = "y".repeat(1 << 20);
  for (let i = 0; i < 800; i++) await new Promise((done) => process.stdout.write(chunk, done));
  return "printed";
};
"#,
    ),
    (
        "ctx.log 300,000 x 1 KB",
        r#"export default async (_args, ctx) => {
  const pad = "p".repeat(1000);
  for (let i = 0; i < 300000; i++) ctx.log(`${i} ${pad}`);
  return "logged";
};
"#,
    ),
];

fn main() {
    if let Ok(load) = std::env::var("COWORK_BENCH_OUTPUT") {
        return measure(&load);
    }
    let this = std::env::current_exe().expect("the bench's own path");
    let baseline = std::env::var_os("COWORK_BENCH_BASELINE");
    println!("{ROUNDS} rounds per load, each a fresh process; MB = MiB; `uptime`: {}", uptime());
    for (load, _) in LOADS {
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            if let Some(baseline) = &baseline {
                theirs.push(round(baseline.as_ref(), load));
            }
            ours.push(round(&this, load));
        }
        let ours = Figures::median(&ours);
        println!("{load}");
        println!("  this build: {ours}");
        if !theirs.is_empty() {
            let theirs = Figures::median(&theirs);
            println!("  baseline:   {theirs}");
            println!(
                "  ratio (this ÷ baseline): peak growth {:.4}×, held after {:.4}×",
                ours.peak_growth / theirs.peak_growth.max(0.1),
                ours.held / theirs.held.max(0.1),
            );
        }
    }
}

/// One round of `load` in a fresh process of `bench`.
fn round(bench: &std::path::Path, load: &str) -> Figures {
    let out = Command::new(bench)
        .env("COWORK_BENCH_OUTPUT", load)
        .output()
        .unwrap_or_else(|e| panic!("failed to run {}: {e}", bench.display()));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find_map(|l| l.strip_prefix("figures ")).unwrap_or_else(|| {
        panic!(
            "{} printed no figures: {text}{}",
            bench.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let figures: Vec<f64> = line.split(' ').map(|n| n.parse().expect("a number")).collect();
    Figures { peak_growth: figures[0], held: figures[1], peak: figures[2], seconds: figures[3] }
}

/// The child's side: start an engine, run a trivial routine, then `load`, and print the figures.
fn measure(load: &str) {
    let (_, source) = LOADS.iter().find(|(name, _)| *name == load).expect("a known load");
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let app = dir.path().join(".cowork/apps/output");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("cowork.json"),
        r#"{"name": "output", "version": "1.0.0", "routines": {"output-warm": "warm.ts", "output-load": "load.ts"}}"#,
    )
    .unwrap();
    std::fs::write(app.join("warm.ts"), "export default () => 1\n").unwrap();
    std::fs::write(app.join("load.ts"), source).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let config = EngineConfig { watch: false, ..EngineConfig::default() };
        let engine = Engine::new(Root::new(home.path()), config);
        // Somebody is listening, as the workbench is: the run's lines are sent as events.
        let mut events = engine.subscribe();
        tokio::spawn(async move {
            while !matches!(
                events.recv().await,
                Err(tokio::sync::broadcast::error::RecvError::Closed)
            ) {}
        });
        let ws = engine.workspace(dir.path()).unwrap();
        ws.run(RunRequest::new("output-warm", json!({}), Source::Cli))
            .await
            .expect("the warm-up runs");
        let before = status();
        let started = Instant::now();
        let mut request = RunRequest::new("output-load", json!({}), Source::Cli);
        request.timeout_ms = Some(300_000);
        ws.run(request).await.unwrap_or_else(|failure| panic!("the load fails: {failure:?}"));
        let seconds = started.elapsed().as_secs_f64();
        let after = status();
        println!(
            "figures {:.1} {:.1} {:.1} {seconds:.2}",
            after.0 - before.0,
            after.1 - before.1,
            after.0
        );
    });
}

/// VmHWM and VmRSS of this process, in MiB.
fn status() -> (f64, f64) {
    let text = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
    let field = |name: &str| -> f64 {
        let line = text.lines().find(|l| l.starts_with(name)).expect("the field is there");
        let kb: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kb / 1024.0
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn uptime() -> String {
    std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim().to_string()
}

/// One round's figures, in MiB (and the load's wall time).
#[derive(Clone, Copy)]
struct Figures {
    peak_growth: f64,
    held: f64,
    peak: f64,
    seconds: f64,
}

impl Figures {
    fn median(rounds: &[Figures]) -> Figures {
        let mid = |f: fn(&Figures) -> f64| {
            let mut all: Vec<f64> = rounds.iter().map(f).collect();
            all.sort_by(f64::total_cmp);
            all[all.len() / 2]
        };
        Figures {
            peak_growth: mid(|f| f.peak_growth),
            held: mid(|f| f.held),
            peak: mid(|f| f.peak),
            seconds: mid(|f| f.seconds),
        }
    }
}

impl std::fmt::Display for Figures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "peak +{:.1} MB (VmHWM {:.1} MB), held after the run +{:.1} MB, load {:.2} s",
            self.peak_growth, self.peak, self.held, self.seconds
        )
    }
}
