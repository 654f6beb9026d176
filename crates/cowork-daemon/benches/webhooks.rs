//! A webhook against `POST /api/routines/run`: what the trigger path adds to one run, and how many
//! no-op runs a second the webhook path sustains.
//!
//! * latency: a no-op routine (`export default () => 1`) called through its webhook
//!   (`POST /hooks/<key>/<id>`, no owner token, arming and hook checks) and through the owner's
//!   `POST /api/routines/run`, interleaved, median of 30 after 3 warm-ups each; the ratio is
//!   webhook ÷ run route;
//! * throughput: 400 webhook calls from 8 concurrent clients (daemon started with `--slots 16`).
//!
//! `cargo bench -p cowork-daemon --bench webhooks`, or in a debug build
//! `cargo test -p cowork-daemon --bench webhooks -- --bench`. The daemon is `COWORK_BIN`, else the
//! `cowork` binary of the same target folder (built by `cargo build -p cowork-cli` beforehand).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const RUNS: usize = 30;
const WARM_UPS: usize = 3;
const CALLS: usize = 400;
const CLIENTS: usize = 8;
const ROUTINE: &str = "bench-one";

fn cowork_binary() -> PathBuf {
    if let Some(bin) = std::env::var_os("COWORK_BIN") {
        return bin.into();
    }
    let exe = std::env::current_exe().expect("the bench's own path");
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .expect("<target>/<profile>/deps/<bench>")
        .join("cowork");
    assert!(
        bin.is_file(),
        "no {}: build it (cargo build [--release] -p cowork-cli) or set COWORK_BIN",
        bin.display()
    );
    bin
}

struct Daemon {
    child: Child,
    port: u16,
    token: String,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn cowork(bin: &Path, home: &Path, args: &[&str]) -> Value {
    let out = Command::new(bin).args(args).env("COWORK_HOME", home).output().expect("cowork runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
}

fn start(bin: &Path, home: &Path) -> Daemon {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let child = Command::new(bin)
        .args(["start", "--headless", "--port", &port.to_string(), "--slots", "16"])
        .env("COWORK_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the daemon starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !(home.join("daemon.json").is_file()
        && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok())
    {
        assert!(Instant::now() < deadline, "the daemon did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let token = std::fs::read_to_string(home.join("daemon.token"))
        .expect("the owner token")
        .trim()
        .to_owned();
    Daemon { child, port, token }
}

fn median_ms(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1e3
}

async fn post(request: reqwest::RequestBuilder) -> Duration {
    let start = Instant::now();
    let answer: Value =
        request.send().await.expect("the daemon answers").json().await.expect("JSON");
    let took = start.elapsed();
    assert_eq!(answer["result"], json!(1), "{answer}");
    took
}

fn main() {
    if !std::env::args().any(|arg| arg == "--bench") {
        return;
    }
    let bin = cowork_binary();
    let ws = tempfile::tempdir().expect("a temp workspace");
    let home = tempfile::tempdir().expect("a temp Cowork root");
    let app = ws.path().join(".cowork/apps/bench");
    std::fs::create_dir_all(&app).expect("the app folder");
    let manifest =
        json!({ "name": "bench", "version": "1.0.0", "routines": { ROUTINE: "one.ts" } });
    std::fs::write(app.join("cowork.json"), manifest.to_string()).expect("the manifest");
    std::fs::write(app.join("one.ts"), "export default () => 1\n").expect("the routine");
    let workspace = ws.path().canonicalize().expect("the workspace");
    let ws_flag = workspace.to_str().expect("a UTF-8 path");
    let daemon = start(&bin, home.path());
    cowork(&bin, home.path(), &["deploy", "add", ROUTINE, "--webhook", "--workspace", ws_flag]);
    cowork(&bin, home.path(), &["routine", "active", ROUTINE, "on", "--workspace", ws_flag]);
    let hooks = cowork(&bin, home.path(), &["deploy", "hooks", "--json", "--workspace", ws_flag]);
    let hook = hooks["hooks"][0]["url"].as_str().expect("the hook URL").to_owned();
    let run_url = format!("http://127.0.0.1:{}/api/routines/run", daemon.port);

    let tokio = tokio::runtime::Runtime::new().expect("a tokio runtime");
    tokio.block_on(async {
        let http = reqwest::Client::new();
        let (mut via_hook, mut via_run) = (Vec::new(), Vec::new());
        for round in 0..WARM_UPS + RUNS {
            let hook_took = post(http.post(&hook).body("{}")).await;
            let body = json!({ "workspace": workspace, "id": ROUTINE, "args": {} });
            let run_took = post(http.post(&run_url).bearer_auth(&daemon.token).json(&body)).await;
            if round >= WARM_UPS {
                via_hook.push(hook_took);
                via_run.push(run_took);
            }
        }
        let (hook_ms, run_ms) = (median_ms(via_hook), median_ms(via_run));
        println!("webhook → result {hook_ms:6.1} ms   POST /api/routines/run {run_ms:6.1} ms   ratio {:.2}×   (median of {RUNS} after {WARM_UPS} warm-ups)", hook_ms / run_ms);

        let start = Instant::now();
        let mut clients = Vec::new();
        for client in 0..CLIENTS {
            let (http, hook) = (http.clone(), hook.clone());
            clients.push(tokio::spawn(async move {
                for n in (client..CALLS).step_by(CLIENTS) {
                    // Distinct args: identical calls in flight would share one run.
                    let response = http.post(&hook).body(format!(r#"{{"n":{n}}}"#)).send().await.expect("an answer");
                    assert_eq!(response.status().as_u16(), 200);
                }
            }));
        }
        for client in clients {
            client.await.expect("a client");
        }
        let seconds = start.elapsed().as_secs_f64();
        println!("no-op webhook throughput {:6.1} runs/s   ({CALLS} calls, {CLIENTS} clients, --slots 16)", CALLS as f64 / seconds);
    });
}
