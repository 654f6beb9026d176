//! A routine's output costs the daemon a bounded amount, however much it prints: a run keeps the
//! end of its log (what its audit record shows) and a line longer than the cap keeps its start
//! and says how much was cut. It once kept every line to the end of the run, and a line with no
//! newline grew without limit: 800 MB printed took the daemon to 3.6 GB. How much memory a flood
//! costs now is measured in BENCHMARKS.md ("A routine's output"); these tests hold what a person
//! sees: the run finishes `ok`, its record keeps its last lines, and a cut line says so.

mod runtime;

use cowork_core::audit::LOG_TAIL_CHARS;
use cowork_core::paths::Root;
use cowork_engine::{Engine, EngineConfig, Event, RunRequest, Source};
use serde_json::json;

/// What a person sees of a run: its result, its audit record's log and the lines it streamed.
struct Seen {
    result: serde_json::Value,
    log: String,
    streamed: Vec<String>,
}

/// A fresh workspace whose app `output` has one routine, `output-run`, of `source`, its engine and
/// the two folders that hold them; `None` when there is no runtime.
fn one_routine(source: &str) -> Option<(std::sync::Arc<Engine>, [tempfile::TempDir; 2])> {
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let app = dir.path().join(".cowork/apps/output");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("cowork.json"),
        r#"{"name": "output", "version": "1.0.0", "routines": {"output-run": "run.ts"}}"#,
    )
    .unwrap();
    std::fs::write(app.join("run.ts"), source).unwrap();
    let config = EngineConfig { watch: false, ..EngineConfig::default() };
    let engine = Engine::new(Root::new(home.path()), config);
    runtime::available(&engine).then_some((engine, [dir, home]))
}

/// Runs `source` as a routine of a fresh workspace; `None` when there is no runtime.
async fn run(source: &str) -> Option<Seen> {
    let (engine, [dir, _home]) = one_routine(source)?;
    let mut events = engine.subscribe();
    let ws = engine.workspace(dir.path()).unwrap();
    let outcome = ws.run(RunRequest::new("output-run", json!({}), Source::Cli)).await;
    let ok = outcome.unwrap_or_else(|failure| panic!("the run fails: {failure:?}"));
    let record = ws.audit().find(&ok.run_id).unwrap().expect("the run is recorded");
    let mut streamed = Vec::new();
    // The run's lines come before its `run` event; a flood of short lines may outrun the
    // channel, whose receiver then skips what it lost.
    loop {
        match events.try_recv() {
            Ok(Event::Log { line, .. }) => streamed.push(line),
            Ok(_) | Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => {}
            Err(_) => break,
        }
    }
    Some(Seen { result: ok.result, log: record.log.unwrap_or_default(), streamed })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_routine_printing_64_mb_with_no_newline_finishes_and_its_line_says_it_was_cut() {
    const FLOOD: &str = r#"export default async () => {
  const write = (text) => new Promise((done) => process.stdout.write(text, done));
  await write("starting\n");
  const chunk = "y".repeat(1 << 20);
  for (let i = 0; i < 64; i++) await write(chunk);
  return "printed";
};
"#;
    let Some(seen) = run(FLOOD).await else { return };
    assert_eq!(seen.result, "printed");
    // The line is longer than the record's tail by itself: the record keeps its end.
    assert!(seen.log.chars().count() <= LOG_TAIL_CHARS, "{} characters", seen.log.len());
    assert!(
        seen.log.ends_with("yyyy … [63 MB cut]"),
        "the record's log ends {:?}",
        tail(&seen.log)
    );
    let cut: Vec<&String> = seen.streamed.iter().filter(|l| l.starts_with("yyyy")).collect();
    assert_eq!(cut.len(), 1, "the flood streams as one line");
    assert!(
        cut[0].len() < 64 * 1024,
        "the streamed line keeps its start only: {} bytes",
        cut[0].len()
    );
    assert!(cut[0].ends_with(" … [63 MB cut]"), "{:?}", tail(cut[0]));
    assert_eq!(seen.streamed.first().map(String::as_str), Some("starting"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_routine_logging_200_000_lines_finishes_and_its_record_keeps_the_last_ones() {
    const LINES: &str = r#"export default async (_args, ctx) => {
  const pad = "p".repeat(90);
  for (let i = 0; i < 200000; i++) ctx.log(`line ${i} ${pad}`);
  return "logged";
};
"#;
    let Some(seen) = run(LINES).await else { return };
    assert_eq!(seen.result, "logged");
    assert!(seen.log.chars().count() <= LOG_TAIL_CHARS, "{} characters", seen.log.len());
    let lines: Vec<&str> = seen.log.lines().collect();
    assert_eq!(lines.last().copied(), Some(format!("line 199999 {}", "p".repeat(90)).as_str()));
    // Whole lines, the newest ones, in order.
    let first: usize = lines[0].split(' ').nth(1).unwrap().parse().expect("a whole line first");
    assert_eq!(first + lines.len(), 200_000, "the last {} lines: {:?}", lines.len(), lines[0]);
    assert!(lines.len() > 15, "as many as fit in {LOG_TAIL_CHARS} characters: {}", lines.len());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_huge_logged_value_is_cut_to_its_start_and_says_how_much_went() {
    const HUGE: &str = r#"export default async (_args, ctx) => {
  console.log("z".repeat(8 << 20));
  ctx.log("after the value");
  return "logged";
};
"#;
    let Some(seen) = run(HUGE).await else { return };
    assert_eq!(seen.result, "logged");
    let cut = seen.streamed.iter().find(|l| l.starts_with("zzzz")).expect("the value's line");
    assert!(cut.len() < 64 * 1024, "its start only: {} bytes", cut.len());
    assert!(cut.ends_with("zzzz … [7 MB cut]"), "{:?}", tail(cut));
    assert_eq!(seen.log, "after the value", "a cut line longer than the tail is not in the record");
}

/// The last characters of `text`, to show in a failure.
fn tail(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars[chars.len().saturating_sub(60)..].iter().collect()
}

/// A routine that throws an 8 MB message fails with its own name, and what the caller, the
/// audit record and the event carry of the message is bounded as a line is, saying it was cut.
#[tokio::test(flavor = "multi_thread")]
async fn a_routine_throwing_an_8_mb_message_fails_by_name_with_the_message_cut() {
    const THROW: &str = r#"export default () => { const e = new Error("start " + "x".repeat(8 * 1024 * 1024)); e.name = "Overflowing"; throw e; };
"#;
    let Some((engine, [dir, _home])) = one_routine(THROW) else { return };
    let ws = engine.workspace(dir.path()).unwrap();
    let failure =
        ws.run(RunRequest::new("output-run", json!({}), Source::Cli)).await.expect_err("it throws");
    assert_eq!(failure.name.as_str(), "Overflowing");
    assert!(failure.message.starts_with("start xxx"), "{}", &failure.message[..40]);
    assert!(failure.message.len() < 17 * 1024, "{} bytes", failure.message.len());
    assert!(
        failure.message.ends_with(" MB cut]"),
        "{}",
        &failure.message[failure.message.len() - 40..]
    );
    let record = ws.audit().find(failure.run_id.as_deref().unwrap()).unwrap().unwrap();
    let recorded = record.error.expect("the record names the error");
    assert!(recorded.message.len() < 17 * 1024);
}
