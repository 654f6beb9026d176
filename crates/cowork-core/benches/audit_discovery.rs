//! Two costs every run and every daemon start pay, each printed beside its yardstick:
//! * audit lines/s: 20,000 realistic records through `AuditLog::append`, against the same bytes
//!   written with plain `write_all` to one append-only file (ratio = our time ÷ baseline time);
//! * discovery: `registry::load` of a workspace with 200 generated apps of 5 routines each.
//!
//! A plain timing loop, no framework: `cargo bench -p cowork-core --bench audit_discovery` (or
//! `bench/run`). See BENCHMARKS.md.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use cowork_core::audit::{AuditLog, Context, Outcome, Record, RecordedError, Source, Status};
use cowork_core::registry;
use serde_json::{json, Value};
use time::OffsetDateTime;

const AUDIT_LINES: usize = 20_000;
const APPS: usize = 200;
const ROUTINES_PER_APP: usize = 5;
const LOADS: usize = 20;

/// A run as the engine records it: every tenth fails with a log tail, some carry credentials to
/// redact, inputs vary in size.
fn record(i: usize, started: OffsetDateTime) -> Record {
    let app = ["notes", "tasks", "standup", "digest", "gmail"][i % 5];
    let input = json!({
        "query": format!("project {i}"),
        "limit": i % 50,
        "filters": { "tags": ["work", "later"], "since": "2026-09-01" },
        "apiKey": if i.is_multiple_of(7) { Value::from("sk-live-0123456789") } else { Value::Null },
        "body": "x".repeat(i % 400),
    });
    let result = json!({ "items": i % 13, "path": format!(".cowork/data/{app}/{i}.json") });
    let log: Vec<String> =
        (0..i % 4).map(|n| format!("step {n}: fetched {} rows", n * 17)).collect();
    let (status, error) = if i.is_multiple_of(10) {
        (
            Status::Error,
            Some(RecordedError {
                name: cowork_core::error_name::ErrorName::Timeout,
                message: format!("{app}-sync did not finish within 30 s and was stopped"),
            }),
        )
    } else {
        (Status::Ok, None)
    };
    let context = Context {
        run_id: format!(
            "{:032x}",
            (i as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834)
        ),
        user_id: None,
        organization_id: None,
        device_id: "4f1c2a9e0b7d4e55a1c3d2e6f7089a1b".into(),
        workspace: "/home/ana/work/acme".into(),
        source: [Source::Cli, Source::App, Source::Mcp][i % 3],
        principal: None,
        agent: (i % 3 == 2).then(|| "claude-code".into()),
        task_id: None,
        app_id: Some(app.into()),
        app_version: Some("1.2.0".into()),
        kind: Some(cowork_core::manifest::Kind::App),
        caller: None,
    };
    let ts = started + Duration::from_millis(i as u64);
    let outcome = Outcome {
        status,
        error,
        result: Some(&result),
        log_lines: &log,
        unchanged: i % 5 == 4,
        mask: None,
    };
    Record::finish(ts, &format!("{app}-list"), &input, (i % 900) as u64, context, outcome)
}

fn audit() {
    let started = OffsetDateTime::now_utc().replace_time(time::macros::time!(08:00));
    let records: Vec<Record> = (0..AUDIT_LINES).map(|i| record(i, started)).collect();
    let lines: Vec<Vec<u8>> = records
        .iter()
        .map(|r| {
            let mut line = serde_json::to_vec(r).expect("records serialize");
            line.push(b'\n');
            line
        })
        .collect();
    let bytes: usize = lines.iter().map(Vec::len).sum();

    let dir = tempfile::tempdir().expect("a temp dir");
    let log = AuditLog::new(dir.path().join("audit"));
    let start = Instant::now();
    for record in &records {
        log.append(record).expect("the audit log appends");
    }
    let ours = start.elapsed();

    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.path().join("plain.jsonl"))
        .expect("a plain file");
    let start = Instant::now();
    for line in &lines {
        file.write_all(line).expect("plain writes");
    }
    let plain = start.elapsed();

    let written: u64 = fs::read_dir(log.dir())
        .expect("the audit dir")
        .map(|e| e.expect("an entry").metadata().expect("metadata").len())
        .sum();
    assert_eq!(written as usize, bytes, "the audit log wrote exactly the serialized lines");
    let per_s = |d: Duration| AUDIT_LINES as f64 / d.as_secs_f64();
    println!(
        "audit      {AUDIT_LINES} lines  {:.1} MB  AuditLog::append {:.0} lines/s  plain write_all {:.0} lines/s  ratio {:.2}×",
        bytes as f64 / 1e6,
        per_s(ours),
        per_s(plain),
        ours.as_secs_f64() / plain.as_secs_f64()
    );
}

/// Writes app `n`: five routines in both manifest forms, with the tool keys, input schemas,
/// timeouts, widgets, file routes, footer items and capabilities varying from app to app.
fn write_app(apps: &Path, n: usize) {
    let name = format!("app-{n:03}");
    let dir = apps.join(&name);
    fs::create_dir_all(&dir).expect("an app folder");
    let mut routines = serde_json::Map::new();
    for r in 0..ROUTINES_PER_APP {
        let id = format!("{name}-r{r}");
        let file = format!("r{r}.ts");
        fs::write(dir.join(&file), "export default async (args, ctx) => ({ ok: true, args });\n")
            .expect("a routine file");
        let entry = match (n + r) % 4 {
            0 => json!(file),
            1 => {
                json!({ "file": file, "readOnly": true, "description": format!("Lists the {name} items matching a query.") })
            }
            2 => json!({
                "file": file,
                "destructive": true,
                "timeout": 120,
                "description": "Deletes one item by id; it cannot be undone.",
                "input": { "type": "object", "properties": { "id": { "type": "string", "description": "The item id" } }, "required": ["id"] }
            }),
            _ => json!({
                "file": file,
                "description": "Saves an item and returns it.",
                "input": {
                    "type": "object",
                    "properties": {
                        "title": { "type": "string", "minLength": 1, "maxLength": 200 },
                        "due": { "type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}$" },
                        "priority": { "type": "string", "enum": ["low", "normal", "high"] }
                    },
                    "required": ["title"],
                    "additionalProperties": false
                }
            }),
        };
        routines.insert(id, entry);
    }
    let icon = ["note", "checklist", "watch", "mail"][n % 4];
    let mut manifest = json!({
        "name": name,
        "version": format!("1.{}.0", n % 7),
        "title": format!("App {n}"),
        "description": format!("Generated app {n} for the discovery benchmark."),
        "icon": icon,
        "color": "#0F9D58",
        "routines": routines,
        "tags": ["bench", format!("group-{}", n % 10)],
    });
    if n % 5 == 1 {
        // A capability has no widget, file routes or footer item.
        manifest["kind"] = json!("capability");
    } else {
        if n.is_multiple_of(3) {
            fs::write(dir.join("panel.jsx"), "export default () => null;\n").expect("a widget");
            manifest["entry"] = json!("panel.jsx");
            manifest["display"] = json!("sidebar");
            manifest["fileRouting"] = json!({ format!("**/*.{name}.json"): "panel.jsx" });
        }
        if n % 8 == 2 {
            manifest["statusBar"] = json!({ "routine": format!("{name}-r0"), "interval": 60 });
        }
    }
    fs::write(dir.join("cowork.json"), serde_json::to_vec_pretty(&manifest).expect("JSON"))
        .expect("a manifest");
}

fn discovery() {
    let ws = tempfile::tempdir().expect("a temp workspace");
    let apps = ws.path().join(".cowork/apps");
    (0..APPS).for_each(|n| write_app(&apps, n));
    let loaded = registry::load(ws.path());
    let problems: Vec<String> = loaded.all_problems().map(|p| p.to_string()).collect();
    assert!(problems.is_empty(), "the generated apps are valid: {problems:#?}");
    assert_eq!((loaded.apps.len(), loaded.routines.len()), (APPS, APPS * ROUTINES_PER_APP));

    let mut times: Vec<Duration> = (0..LOADS)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(registry::load(ws.path()));
            start.elapsed()
        })
        .collect();
    times.sort();
    let median = times[LOADS / 2].as_secs_f64() * 1e3;
    println!(
        "discovery  {APPS} apps × {ROUTINES_PER_APP} routines  {median:.1} ms per load  {:.1} µs per app  (median of {LOADS})",
        median * 1e3 / APPS as f64
    );
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this without it: do nothing then.
    if !std::env::args().any(|arg| arg == "--bench") {
        return;
    }
    audit();
    discovery();
}
