//! The store's client-side numbers (issue 42, "Tests and numbers"), taken as a person takes them:
//! the `cowork` binary against a loopback hub, two Cowork roots. Ignored: speed is measured, never
//! asserted; run it with
//! `cargo test --workspace --test cli -- --ignored --nocapture store_bench` (BENCHMARKS.md).
//! `RUNS=n` sets the install runs (default 9).

use crate::hub_support::*;
use crate::support::*;
use crate::team_servers::{with_bob, Two};
use serde_json::Value;
use std::time::{Duration, Instant};

/// An app `name` at 1.0.0 of `files` small files (plus cowork.json and the entry) on `env`.
fn app_of(env: &Env, name: &str, files: usize) {
    let manifest = format!(
        "{{\n  \"name\": \"{name}\",\n  \"version\": \"1.0.0\",\n  \"entry\": \"{name}.jsx\"\n}}\n"
    );
    let bodies: Vec<(String, String)> = (0..files.saturating_sub(2))
        .map(|i| (format!("lib/m{:02}/f{i:04}.ts", i % 40), format!("export const v{i} = {i};\n")))
        .collect();
    let mut list: Vec<(&str, &str)> =
        bodies.iter().map(|(p, b)| (p.as_str(), b.as_str())).collect();
    let entry = format!("{name}.jsx");
    list.push((&entry, "export default () => 'hi'\n"));
    env.app(name, &manifest, &list);
}

fn ok_json(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "{}", transcript(out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", transcript(out)))
}

fn p50(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

#[test]
#[ignore = "a benchmark: run with --ignored --nocapture store_bench"]
fn store_bench() {
    let runs: usize = std::env::var("RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(9);
    let Two { hub: _hub, ana, bob } = with_bob(Backend::Sqlite);
    std::fs::create_dir_all(bob.file(".cowork/apps")).unwrap();
    let blobs = cowork_core::paths::Root::new(bob.home.path()).dir().join("store/blobs");

    // Installing a 50-file app, cold blob cache each run (process start to files on disk).
    app_of(&ana, "fifty", 50);
    let out = ana.run(&["push", ".cowork/apps/fifty", "--to", "acme-apps"]);
    assert!(out.status.success(), "{}", transcript(&out));
    let mut installs = Vec::new();
    let mut moved = 0;
    for _ in 0..runs {
        let _ = std::fs::remove_dir_all(&blobs);
        let started = Instant::now();
        let installed = ok_json(&bob.run(&["app", "install", "acme-apps/fifty", "--json"]));
        installs.push(started.elapsed());
        moved = installed["blobs"].as_u64().unwrap();
        let out = bob.run(&["app", "remove", "fifty"]);
        assert!(out.status.success(), "{}", transcript(&out));
    }

    // An update of a 200-file app where one file changed: the blobs it moves.
    app_of(&ana, "twohundred", 200);
    let out = ana.run(&["push", ".cowork/apps/twohundred", "--to", "acme-apps"]);
    assert!(out.status.success(), "{}", transcript(&out));
    ok_json(&bob.run(&["app", "install", "acme-apps/twohundred", "--json"]));
    std::fs::write(ana.file(".cowork/apps/twohundred/lib/m07/f0007.ts"), "export const v7 = 8;\n")
        .unwrap();
    assert!(ana.run(&["push"]).status.success());
    let started = Instant::now();
    let updated = ok_json(&bob.run(&["app", "update", "twohundred", "--json"]));
    let update_took = started.elapsed();
    let update_blobs = updated["apps"][0]["blobs"].as_u64().unwrap_or_else(|| panic!("{updated}"));

    // The clean check of a 2,000-file app, warm (its hashes cached by size, mtime and inode).
    app_of(&ana, "twothousand", 2000);
    let out = ana.run(&["push", ".cowork/apps/twothousand", "--to", "acme-apps"]);
    assert!(out.status.success(), "{}", transcript(&out));
    ok_json(&bob.run(&["app", "install", "acme-apps/twothousand", "--json"]));
    let root = cowork_core::paths::Root::new(bob.home.path());
    let receipts = cowork_store::receipt::Receipts::new(&root, &bob.ws_path());
    let receipt = receipts.read("twothousand").unwrap().unwrap();
    let started = Instant::now();
    assert!(cowork_store::clean::check(&receipts, "twothousand", &receipt).unwrap().clean());
    let cold = started.elapsed();
    let checks: Vec<Duration> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            assert!(cowork_store::clean::check(&receipts, "twothousand", &receipt)
                .unwrap()
                .clean());
            started.elapsed()
        })
        .collect();

    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    println!("store, client side ({profile} build, {runs} runs, loopback hub on SQLite + folder)");
    println!("| measure | figure | goal |");
    println!("| --- | --- | --- |");
    println!(
        "| install a 50-file app, cold blob cache, p50 (`cowork app install`) | {} ({moved} blobs; min {}, max {}) | ≤ 300 ms |",
        ms(p50(installs.clone())),
        ms(*installs.iter().min().unwrap()),
        ms(*installs.iter().max().unwrap())
    );
    println!(
        "| update a 200-file app, one file changed (`cowork app update`) | {update_blobs} blobs moved, {} | one blob (+ cowork.json, whose version the push bumps) |",
        ms(update_took)
    );
    println!(
        "| clean check of a 2,000-file app, warm, p50 (`clean::check`) | {} (cold first: {}) | ≤ 100 ms |",
        ms(p50(checks)),
        ms(cold)
    );
}
