//! What Cowork adds to one routine run, on Bun and on Node, side by side: a trivial routine
//! (`export default () => 1`) run four ways, interleaved so that machine noise hits all alike —
//! * spares: `POST /api/routines/run` to a real `cowork start --headless` over HTTP, the daemon
//!   keeping warm spares (its default);
//! * cold: the same to a daemon whose `config.json` says `"spares": false`, so every run starts
//!   its runtime;
//! * engine: `Workspace::run` in this process (no HTTP, no spares);
//! * bare: the baseline, `bun bare.mjs one.mjs` / `node bare.mjs one.mjs` — the same runtime
//!   importing the same transpiled module, calling it and printing the result, without Cowork.
//!
//! Each prints the median of [`RUNS`] runs after 3 warm-ups; `ratio` is our median ÷ the bare median.
//! The runs through spares also print their p99, beside issue 45's goals ([`GOAL_P50`], [`GOAL_P99`]).
//! Each run starts on a settled machine ([`PAUSE`] after the one before): a daemon tops its spares
//! up after a run, and that start must not be billed to the next way's run.
//! Then a burst: [`BURST`] requests at once to each daemon (both with 128 slots, so none is refused),
//! [`BURSTS`] bursts each, in pairs whose first side alternates, [`BURST_PAUSE`] apart; it prints the
//! median and the worst of the bursts' wall times, and the median of the requests' own times; the
//! goal is a burst with spares never slower than one without: the median of the pairs' ratios
//! (each pair ran back to back, under one load) ≤ 1.00×, with the worst pair and the count of
//! pairs slower with spares beside it.
//!
//! `cargo bench -p cowork-engine --bench routines` (or `bench/run`). The daemon is the `cowork`
//! binary of the same target folder (`<target>/release/cowork`, next to this bench's `deps/`),
//! which this bench builds with `cargo build --release -p cowork-cli` when it is missing;
//! `COWORK_BIN=/path/to/cowork` picks another. Bun is found as the engine finds it (`COWORK_BUN`,
//! `PATH`, the set-up install); a runtime that is missing is skipped with a note.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cowork_core::paths::Root;
use cowork_engine::runtime::{Runtime, RuntimeKind};
use cowork_engine::{Engine, EngineConfig, RunRequest, Source, Workspace};
use cowork_transpile::{transpile, Flavor};
use serde_json::{json, Value};

const RUNS: usize = 100;
const WARM_UPS: usize = 3;
const ROUTINE: &str = "bench-one";
const SOURCE: &str = "export default () => 1\n";

/// The runner's job without Cowork: import the module, call its default export, print the result.
const BARE: &str = r#"const module = await import(process.argv[2]);
console.log(JSON.stringify(await module.default({}, {})));
"#;
/// Issue 45's goals for a trivial run through a spare: p50 and p99, in ms.
const GOAL_P50: f64 = 5.0;
const GOAL_P99: f64 = 10.0;
/// Requests in a burst (issue 45's), and bursts per daemon.
const BURST: usize = 50;
const BURSTS: usize = 10;
/// The quiet before each measured run, and before each burst.
const PAUSE: Duration = Duration::from_millis(50);
const BURST_PAUSE: Duration = Duration::from_millis(500);

/// A workspace with one app holding the trivial routine, and the bare baseline's two files.
struct Files {
    ws: tempfile::TempDir,
    bare_script: PathBuf,
    bare_module: PathBuf,
}

fn files() -> Files {
    let ws = tempfile::tempdir().expect("a temp workspace");
    let app = ws.path().join(".cowork/apps/bench");
    std::fs::create_dir_all(&app).expect("the app folder");
    let manifest =
        json!({ "name": "bench", "version": "1.0.0", "routines": { ROUTINE: "one.ts" } });
    std::fs::write(app.join("cowork.json"), manifest.to_string()).expect("the manifest");
    std::fs::write(app.join("one.ts"), SOURCE).expect("the routine");
    let bare = ws.path().join("bare");
    std::fs::create_dir_all(&bare).expect("the bare folder");
    let module = transpile(SOURCE, "one.ts", Flavor::Routine, &mut |_| Ok(None))
        .expect("the routine transpiles");
    let (bare_script, bare_module) = (bare.join("bare.mjs"), bare.join("one.mjs"));
    std::fs::write(&bare_script, BARE).expect("the bare script");
    std::fs::write(&bare_module, module.code).expect("the bare module");
    Files { ws, bare_script, bare_module }
}

/// The `cowork` binary the daemon runs (see the crate doc).
fn cowork_binary() -> PathBuf {
    if let Some(bin) = std::env::var_os("COWORK_BIN") {
        return bin.into();
    }
    let exe = std::env::current_exe().expect("the bench's own path");
    let bin =
        exe.parent().and_then(Path::parent).expect("<target>/release/deps/<bench>").join("cowork");
    if !bin.is_file() {
        eprintln!("building {} (cargo build --release -p cowork-cli)", bin.display());
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--release", "-p", "cowork-cli"])
            .status()
            .expect("cargo starts");
        assert!(status.success() && bin.is_file(), "could not build {}; build it with `cargo build --release -p cowork-cli` or set COWORK_BIN", bin.display());
    }
    bin
}

/// A `cowork start --headless` on a free port with its own temporary Cowork root; killed on drop.
struct Daemon {
    child: Child,
    url: String,
    token: String,
    _home: tempfile::TempDir,
}

impl Daemon {
    fn start(bin: &Path, runtime: &str, spares: bool) -> Daemon {
        let home = tempfile::tempdir().expect("a temp Cowork root");
        if !spares {
            std::fs::write(home.path().join("config.json"), r#"{"spares": false}"#)
                .expect("the daemon's config.json");
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let log =
            std::fs::File::create(home.path().join("bench-daemon.log")).expect("the daemon log");
        let child = Command::new(bin)
            .args(["start", "--headless", "--slots", "128", "--port", &port.to_string()])
            .env("COWORK_HOME", home.path())
            .env("COWORK_RUNTIME", runtime)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("failed to start {}: {e}", bin.display()));
        let deadline = Instant::now() + Duration::from_secs(20);
        while !(home.path().join("daemon.json").is_file()
            && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok())
        {
            assert!(
                Instant::now() < deadline,
                "the daemon did not start: {}",
                std::fs::read_to_string(home.path().join("bench-daemon.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let token =
            std::fs::read_to_string(home.path().join("daemon.token")).expect("the owner token");
        Daemon {
            child,
            url: format!("http://127.0.0.1:{port}/api/routines/run"),
            token: token.trim().into(),
            _home: home,
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One runtime's four ways to run the routine.
struct Contender {
    runtime: Runtime,
    engine: Arc<Engine>,
    spares: Daemon,
    cold: Daemon,
    _root: tempfile::TempDir,
}

#[derive(Clone, Copy)]
enum Way {
    Spares,
    Cold,
    Engine,
    Bare,
}

/// One `POST /api/routines/run` of the routine with `args`; its result.
async fn post(daemon: &Daemon, files: &Files, http: &reqwest::Client, args: Value) -> Value {
    let body = json!({ "workspace": files.ws.path(), "id": ROUTINE, "args": args });
    let response = http
        .post(&daemon.url)
        .bearer_auth(&daemon.token)
        .json(&body)
        .send()
        .await
        .expect("the daemon answers");
    let answer: Value = response.json().await.expect("a JSON answer");
    answer["result"].clone()
}

/// Runs the routine once `way` and returns how long it took to its result.
async fn once(
    way: Way,
    who: &Contender,
    ws: &Arc<Workspace>,
    files: &Files,
    http: &reqwest::Client,
) -> Duration {
    let start = Instant::now();
    let result = match way {
        Way::Spares => post(&who.spares, files, http, json!({})).await,
        Way::Cold => post(&who.cold, files, http, json!({})).await,
        Way::Engine => {
            ws.run(RunRequest::new(ROUTINE, json!({}), Source::Cli))
                .await
                .expect("the routine runs")
                .result
        }
        Way::Bare => {
            let (program, mut args) =
                cowork_engine::runtime::command(&who.runtime, &files.bare_script);
            args.push(OsString::from(&files.bare_module));
            let out = tokio::process::Command::new(program)
                .args(args)
                .output()
                .await
                .expect("the runtime starts");
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
                panic!("bare run: {e}: {}", String::from_utf8_lossy(&out.stderr))
            })
        }
    };
    let took = start.elapsed();
    assert_eq!(result, json!(1), "the routine returns 1");
    took
}

fn median_ms(times: Vec<Duration>) -> f64 {
    percentile_ms(times, 50)
}

/// The `p`th percentile (nearest rank) of `times`, in ms.
fn percentile_ms(mut times: Vec<Duration>, p: usize) -> f64 {
    times.sort();
    let rank = (times.len() * p).div_ceil(100).max(1);
    times[rank - 1].as_secs_f64() * 1e3
}

fn verdict(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "NOT met"
    }
}

async fn compare(who: &Contender, files: &Files) {
    let ws = who.engine.workspace(files.ws.path()).expect("the workspace opens");
    let http = reqwest::Client::new();
    let ways = [Way::Spares, Way::Cold, Way::Engine, Way::Bare];
    let mut times: [Vec<Duration>; 4] = Default::default();
    for round in 0..WARM_UPS + RUNS {
        for (i, way) in ways.iter().enumerate() {
            tokio::time::sleep(PAUSE).await;
            let took = once(*way, who, &ws, files, &http).await;
            if round >= WARM_UPS {
                times[i].push(took);
            }
        }
    }
    let spares_p99 = percentile_ms(times[0].clone(), 99);
    let [spares, cold, engine, bare] = times.map(median_ms);
    let name = format!("{:?}", who.runtime.kind).to_lowercase();
    println!(
        "{name:5} goal  spares p50 {spares:5.1} ms (≤ {GOAL_P50} ms: {})  p99 {spares_p99:5.1} ms (≤ {GOAL_P99} ms: {})",
        verdict(spares <= GOAL_P50),
        verdict(spares_p99 <= GOAL_P99),
    );
    println!(
        "{name:5} daemon+spares {spares:6.1} ms  daemon cold {cold:6.1} ms  engine cold {engine:6.1} ms  bare {name} {bare:6.1} ms  ratio spares {:.2}×  cold {:.2}×  engine {:.2}×   ({} {})",
        spares / bare,
        cold / bare,
        engine / bare,
        who.runtime.version,
        who.runtime.path.display()
    );
}

/// [`BURST`] requests at once to `daemon`: the wall time of the whole burst and the median of the
/// requests' own times.
async fn burst(daemon: &Daemon, files: &Files, http: &reqwest::Client) -> (Duration, Duration) {
    let start = Instant::now();
    // Each with its own arguments: identical calls in flight would share one run.
    let requests = (0..BURST).map(|n| async move {
        let asked = Instant::now();
        let result = post(daemon, files, http, json!({ "n": n })).await;
        assert_eq!(result, json!(1), "every request in the burst runs the routine");
        asked.elapsed()
    });
    let times = futures_util::future::join_all(requests).await;
    let wall = start.elapsed();
    let mut sorted = times;
    sorted.sort();
    (wall, sorted[sorted.len() / 2])
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this without it: do nothing then.
    if !std::env::args().any(|arg| arg == "--bench") {
        return;
    }
    let files = files();
    let bin = cowork_binary();
    let mut contenders = Vec::new();
    for kind in [RuntimeKind::Bun, RuntimeKind::Node] {
        let name = format!("{kind:?}").to_lowercase();
        // The engine picks its runtime once, in Engine::new, from COWORK_RUNTIME; setting it here,
        // before any other thread exists, is how the tests force one too.
        std::env::set_var("COWORK_RUNTIME", &name);
        let root = tempfile::tempdir().expect("a temp Cowork root");
        let engine = Engine::new(Root::new(root.path()), EngineConfig::default());
        let runtime = match engine.runtime() {
            Ok(runtime) => runtime.clone(),
            Err(error) => {
                println!("{name:5} skipped: {error}");
                continue;
            }
        };
        contenders.push(Contender {
            runtime,
            engine,
            spares: Daemon::start(&bin, &name, true),
            cold: Daemon::start(&bin, &name, false),
            _root: root,
        });
    }
    std::env::remove_var("COWORK_RUNTIME");
    println!("routine `export default () => 1`: median of {RUNS} runs after {WARM_UPS} warm-ups; ratio = median ÷ bare median; load {}", load());
    if std::env::var_os("NODE_EXTRA_CA_CERTS").is_some() {
        // Both ways pay it, but its tens of milliseconds of noise can hide Cowork's own share.
        println!("note: NODE_EXTRA_CA_CERTS is set, and Node reads that bundle at every start; unset it to see Cowork's share on Node");
    }
    let tokio = tokio::runtime::Runtime::new().expect("a tokio runtime");
    for who in &contenders {
        tokio.block_on(compare(who, &files));
    }
    println!("burst: {BURST} requests at once, {BURSTS} bursts per daemon, in pairs whose first side alternates; median and worst; load {}", load());
    for who in &contenders {
        tokio.block_on(bursts(who, &files));
    }
    println!("load at the end {}", load());
}

/// The machine's load averages (`/proc/loadavg`): the figures mean little without them.
fn load() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

async fn bursts(who: &Contender, files: &Files) {
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for pair in 0..BURSTS {
        for spares_side in [pair % 2 == 0, pair % 2 == 1] {
            tokio::time::sleep(BURST_PAUSE).await;
            // A client of its own per burst: a connection pooled by the burst before, idle since,
            // may be closed by the daemon just as it is reused ("IncompleteMessage").
            let http = reqwest::Client::new();
            match spares_side {
                true => with.push(burst(&who.spares, files, &http).await),
                false => without.push(burst(&who.cold, files, &http).await),
            }
        }
    }
    // Each pair ran back to back, so its ratio compares two bursts under the same load; the
    // worst burst of each side alone compares two moments of the machine (a build starting on
    // the other core made one side's worst 1.27× the other's in an earlier run, and the next
    // run's 0.90×), so the verdict is on the pairs: their median ratio, and how many of them
    // were slower with spares.
    let ratios: Vec<f64> = with
        .iter()
        .zip(&without)
        .map(|((with, _), (without, _))| with.as_secs_f64() / without.as_secs_f64())
        .collect();
    let slower = ratios.iter().filter(|r| **r > 1.0).count();
    let mut sorted = ratios.clone();
    sorted.sort_by(f64::total_cmp);
    let median_ratio = (sorted[(sorted.len() - 1) / 2] + sorted[sorted.len() / 2]) / 2.0;
    let worst_ratio = sorted[sorted.len() - 1];
    // The median and the worst of the bursts' wall times, and the median request.
    let summary = |bursts: Vec<(Duration, Duration)>| {
        let (walls, each): (Vec<_>, Vec<_>) = bursts.into_iter().unzip();
        let worst = walls.iter().max().expect("bursts ran").as_secs_f64() * 1e3;
        (median_ms(walls), worst, median_ms(each))
    };
    let (with_wall, with_worst, with_each) = summary(with);
    let (cold_wall, cold_worst, cold_each) = summary(without);
    let name = format!("{:?}", who.runtime.kind).to_lowercase();
    println!(
        "{name:5} burst with spares {with_wall:6.0} ms (worst {with_worst:6.0}, a request {with_each:5.0})  cold {cold_wall:6.0} ms (worst {cold_worst:6.0}, a request {cold_each:5.0})  pairs' median ratio {median_ratio:.2}× (goal ≤ 1.00×: {}; worst pair {worst_ratio:.2}×, {slower} of {BURSTS} pairs slower with spares)",
        verdict(median_ratio <= 1.0),
    );
}
