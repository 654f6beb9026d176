//! The clean check of a 2,000-file installed app, warm (issue 42: ≤ 100 ms): what auto-update,
//! Manage Workspace's edited count and every update run before touching an app, in the release
//! build a person runs. `cargo bench -p cowork-store --bench clean` (`RUNS=n`, default 20).
//!
//! The app is laid out as the CLI's store bench publishes it (`lib/mNN/fNNNN.ts`, 40 folders,
//! small files) and given the receipt an install writes (every file's size and SHA-256). Beside
//! the check's own time it prints its parts, each timed alone, so a slow figure names its cause:
//! the folder walk (files the person added), one `stat` per installed file, and the hash cache's
//! read and parse.

use cowork_core::paths::Root;
use cowork_store::clean;
use cowork_store::pack::{self, Scope};
use cowork_store::receipt::{Origin, Receipt, Receipts};
use cowork_wire::hub::ItemKind;
use std::time::{Duration, Instant};

const FILES: usize = 2000;
const FOLDER: &str = "twothousand";

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// The median, minimum and maximum of `times` (`RUNS` of them).
fn spread(mut times: Vec<Duration>) -> (Duration, Duration, Duration) {
    times.sort();
    (times[times.len() / 2], times[0], *times.last().unwrap())
}

fn timed(runs: usize, mut what: impl FnMut()) -> Vec<Duration> {
    (0..runs)
        .map(|_| {
            let started = Instant::now();
            what();
            started.elapsed()
        })
        .collect()
}

fn main() {
    let runs: usize = std::env::var("RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(20);
    let home = tempfile::tempdir().expect("a temporary Cowork root");
    let ws = tempfile::tempdir().expect("a temporary workspace");
    let workspace = ws.path().canonicalize().unwrap();
    let dir = format!(".cowork/apps/{FOLDER}");
    let app = workspace.join(&dir);
    for i in 0..FILES - 2 {
        let path = app.join(format!("lib/m{:02}/f{i:04}.ts", i % 40));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("export const v{i} = {i};\n")).unwrap();
    }
    std::fs::write(app.join(format!("{FOLDER}.jsx")), "export default () => 'hi'\n").unwrap();
    std::fs::write(
        app.join("cowork.json"),
        format!(
            "{{\"name\": \"{FOLDER}\", \"version\": \"1.0.0\", \"entry\": \"{FOLDER}.jsx\"}}\n"
        ),
    )
    .unwrap();

    let listing = pack::pack(&app, Scope::default()).expect("the app packs");
    assert_eq!(listing.files.len(), FILES);
    let receipt = Receipt {
        store: Some("acme-apps".into()),
        version: Some("1.0.0".into()),
        hub: None,
        name: FOLDER.into(),
        kind: ItemKind::App,
        pinned: false,
        workspace: workspace.clone(),
        dir,
        files: listing.files,
        signed: None,
        verified: true,
        dismissed: None,
        origin: Origin::Install,
        git: None,
        installed_at: 0,
    };
    let receipts = Receipts::new(&Root::new(home.path()), &workspace);
    receipts.write(FOLDER, &receipt).unwrap();
    let check = || {
        let found = clean::check(&receipts, FOLDER, &receipt).expect("the check runs");
        assert!(found.clean() && found.added.is_empty(), "{found:?}");
    };

    // The cache trusts no stat from the second before it was written (racy clean): a check right
    // after the files were written hashes them again, as it would after a person's edit. The
    // files of an installed app are older than that; let these be too.
    std::thread::sleep(Duration::from_millis(1100));
    let started = Instant::now();
    check();
    let cold = started.elapsed();
    let cache = receipts.hashes_path(FOLDER);
    assert!(cache.is_file(), "the first check caches the hashes");

    let (p50, min, max) = spread(timed(runs, check));
    let (walk, _, _) = spread(timed(runs, || {
        pack::walk(&app, Scope::default()).unwrap();
    }));
    let (stats, _, _) = spread(timed(runs, || {
        for file in &receipt.files {
            std::fs::symlink_metadata(app.join(&file.path)).unwrap();
        }
    }));
    let (read, _, _) = spread(timed(runs, || {
        let bytes = std::fs::read(&cache).unwrap();
        serde_json::from_slice::<serde_json::Value>(&bytes).unwrap();
    }));

    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    println!("the clean check, {profile} build, {FILES} files, {runs} runs");
    println!("| measure | figure | goal |");
    println!("| --- | --- | --- |");
    println!(
        "| clean check of a {FILES}-file app, warm, p50 (`clean::check`) | {} (min {}, max {}; cold, every file hashed: {}) | ≤ 100 ms |",
        ms(p50),
        ms(min),
        ms(max),
        ms(cold)
    );
    println!(
        "| its parts alone, p50: the walk / a stat per file / the hash cache read and parsed ({} KB) | {} / {} / {} | |",
        std::fs::metadata(&cache).unwrap().len() / 1024,
        ms(walk),
        ms(stats),
        ms(read)
    );
}
