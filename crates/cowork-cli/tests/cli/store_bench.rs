//! The store's client-side numbers (issue 42, "Tests and numbers"), taken as a person takes them:
//! the `cowork` binary against a loopback hub, two Cowork roots (Ana publishes, Bob installs).
//! Ignored: speed is measured, never asserted. Run it with
//! `cargo test --workspace --test cli -- --ignored --nocapture store_bench` (BENCHMARKS.md).
//! `RUNS=n` sets the install runs (default 9).
//!
//! `COWORK_BIN=<a cowork binary>` (a release build: `cargo build --release -p cowork-cli`) runs
//! both sides on that binary — the hub as `cowork hub serve` on SQLite + a folder in a process of
//! its own, every command of Ana and Bob — so no part of the figure is this test's debug build.
//! Without it: this build's `cowork`, the hub in the test process.
//!
//! The clean check's figure is `cargo bench -p cowork-store --bench clean`.

use crate::hub_support::*;
use crate::support::*;
use crate::team_servers::{with_bob, with_bob_on, Two};
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    match std::env::var_os("COWORK_BIN") {
        Some(bin) => {
            let bin = PathBuf::from(bin);
            let what = format!("{} (CLI and hub, `cowork hub serve`)", bin.display());
            bench(with_bob_on(HubProcess::start(&bin), &bin), &what)
        }
        None => {
            bench(with_bob(Backend::Sqlite), "this test build's `cowork`, hub in the test process")
        }
    }
}

fn bench<H: AnyHub>(two: Two<H>, what: &str) {
    let runs: usize = std::env::var("RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(9);
    let Two { hub: _hub, ana, bob } = two;
    std::fs::create_dir_all(bob.file(".cowork/apps")).unwrap();
    let blobs = cowork_core::paths::Root::new(bob.home.path()).dir().join("store/blobs");

    // Installing a 50-file app, cold blob cache each run (process start to files on disk).
    ana.app_of_files("fifty", 50);
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

    // An update of a 200-file app where one file changed: the blobs it moves (the file, and
    // cowork.json carrying the version the push bumped; `store::an_update_where_one_file_changed…`
    // pins that count).
    ana.app_of_files("twohundred", 200);
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

    println!("store, client side: {what}; {runs} runs, loopback hub on SQLite + folder");
    println!("| measure | figure | goal |");
    println!("| --- | --- | --- |");
    println!(
        "| install a 50-file app, cold blob cache, p50 (`cowork app install`) | {} ({moved} blobs; min {}, max {}) | ≤ 300 ms |",
        ms(p50(installs.clone())),
        ms(*installs.iter().min().unwrap()),
        ms(*installs.iter().max().unwrap())
    );
    println!(
        "| update a 200-file app, one file changed (`cowork app update`) | {update_blobs} blobs moved, {} | the file, and cowork.json carrying the new version |",
        ms(update_took)
    );
}
