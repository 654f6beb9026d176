//! The hub's side of issue 42's numbers, on both back ends (SQLite + folder, Postgres +
//! SeaweedFS — the tests' servers), served in this process over loopback HTTP:
//!
//! - "which of these do you have" for a 2,000-file app whose blobs the store holds: one call.
//! - publishing a 50-file app whose blobs are uploaded (a new version each time).
//! - a 2,000-file version's signed manifest, read.
//! - the hub's part of installing a 50-file app (target ≤ 300 ms p50 end to end, measured by the
//!   client's bench): the key chain, the manifest, and the 50 blobs, 8 at a time, each checked —
//!   what a member's Cowork asks the hub, without writing files.
//! - an update of a 200-file app where one file changed: how many blobs the push uploads and the
//!   update downloads (one each).
//!
//! Medians and maxima of `RUNS` runs (default 20). `cargo bench -p cowork-hub --bench store`.

use cowork_hub::test_support::{self, Backend};
use cowork_wire::hub::client::HubClient;
use cowork_wire::hub::verify;
use cowork_wire::hub::*;
use std::time::{Duration, Instant};

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn summary(mut times: Vec<Duration>) -> String {
    times.sort();
    format!("median {:.2} ms, max {:.2} ms", ms(times[times.len() / 2]), ms(*times.last().unwrap()))
}

async fn account(hub: &test_support::TestHub, email: &str) -> HubClient {
    hub.signed_in(email, "bench password").await
}

/// `count` files of about `size` bytes, the `salt` making them differ between apps.
fn files(count: usize, size: usize, salt: &str) -> Vec<(String, Vec<u8>)> {
    (0..count)
        .map(|i| {
            let line = format!("// {salt} file {i}\n");
            let body = line.repeat(size / line.len() + 1);
            (format!("src/file-{i:04}.tsx"), body.into_bytes())
        })
        .collect()
}

fn entries(files: &[(String, Vec<u8>)]) -> Vec<ManifestFile> {
    files
        .iter()
        .map(|(path, bytes)| ManifestFile {
            path: path.clone(),
            size: bytes.len() as u64,
            sha256: verify::sha256_hex(bytes),
        })
        .collect()
}

/// Upload what the store lacks of `files`; answers how many were uploaded.
async fn push_blobs(client: &HubClient, files: &[(String, Vec<u8>)]) -> usize {
    let hashes: Vec<String> = entries(files).into_iter().map(|e| e.sha256).collect();
    let missing = client.missing_blobs("bench", &hashes).await.unwrap().missing;
    for (sha, (_, bytes)) in hashes.iter().zip(files) {
        if missing.contains(sha) {
            client.put_blob("bench", sha, bytes.clone()).await.unwrap();
        }
    }
    missing.len()
}

fn publish(files: Vec<ManifestFile>) -> Publish {
    Publish {
        kind: ItemKind::App,
        subtype: None,
        version: None,
        files,
        card: CardUpdate::default(),
        requires: None,
        dry_run: false,
    }
}

/// What a member's Cowork asks the hub to install `name`: keys, manifest, every blob (8 at a
/// time), each checked. Answers how many blobs came.
async fn install(member: &HubClient, name: &str) -> usize {
    let keys = member.store_keys("bench").await.unwrap();
    let key = verify::key_chain("bench", &keys.keys[0].kid, &keys).unwrap().clone();
    let found = member.manifest("bench", name, None).await.unwrap();
    let manifest = verify::manifest(&found.signed, &key, "bench", name, None).unwrap();
    let mut tasks = tokio::task::JoinSet::new();
    let mut count = 0;
    for entry in manifest.files {
        if tasks.len() >= 8 {
            tasks.join_next().await.unwrap().unwrap();
        }
        let member = member.clone();
        tasks.spawn(async move {
            let bytes = member.get_blob("bench", &entry.sha256).await.unwrap();
            verify::file(&entry, &bytes).unwrap();
        });
        count += 1;
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    count
}

async fn run(label: &str, hub: &test_support::TestHub, runs: usize) {
    let admin = account(hub, "admin@example.com").await;
    let member = account(hub, "member@example.com").await;
    admin.create_team_server(&test_support::private_team_server("Bench")).await.unwrap();
    admin
        .add_member("bench", &MemberAdd { email: "member@example.com".into(), admin: false })
        .await
        .unwrap();

    // A 2,000-file app (2 KB files): "which do you have" once it is held, and its manifest.
    let big = files(2_000, 2_048, "big");
    push_blobs(&admin, &big).await;
    admin.publish("bench", "big", &publish(entries(&big))).await.unwrap();
    let hashes: Vec<String> = entries(&big).into_iter().map(|e| e.sha256).collect();
    let mut asks = Vec::new();
    let mut manifests = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        assert!(admin.missing_blobs("bench", &hashes).await.unwrap().missing.is_empty());
        asks.push(t.elapsed());
        let t = Instant::now();
        member.manifest("bench", "big", None).await.unwrap();
        manifests.push(t.elapsed());
    }
    println!("{label}: which of 2,000 blobs the store lacks (one call): {}", summary(asks));
    println!("{label}: a 2,000-file version's signed manifest: {}", summary(manifests));

    // A 50-file app (4 KB files): publish (blobs uploaded first, not timed) and install.
    let mut publishes = Vec::new();
    for run in 0..runs {
        let mut app = files(50, 4_096, "app");
        app[0].1.extend_from_slice(format!("// run {run}\n").as_bytes());
        push_blobs(&admin, &app).await;
        let t = Instant::now();
        let published = admin.publish("bench", "app", &publish(entries(&app))).await.unwrap();
        publishes.push(t.elapsed());
        assert_eq!(published.outcome, PublishOutcome::Published);
    }
    println!("{label}: publishing a 50-file app, blobs uploaded: {}", summary(publishes));
    let mut installs = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        assert_eq!(install(&member, "app").await, 50);
        installs.push(t.elapsed());
    }
    println!(
        "{label}: the hub's part of installing a 50-file app (keys, manifest, 50 blobs 8 at a time, checked): {}   (target ≤ 300 ms p50 end to end)",
        summary(installs)
    );

    // A 200-file app where one file changed: one blob up, one blob down.
    let mut app = files(200, 4_096, "two-hundred");
    push_blobs(&admin, &app).await;
    admin.publish("bench", "two-hundred", &publish(entries(&app))).await.unwrap();
    let before = member.manifest("bench", "two-hundred", None).await.unwrap();
    let before: Manifest = serde_json::from_str(&before.signed.manifest).unwrap();
    app[17].1.extend_from_slice(b"// one line more\n");
    let uploaded = push_blobs(&admin, &app).await;
    admin.publish("bench", "two-hundred", &publish(entries(&app))).await.unwrap();
    let after = member.manifest("bench", "two-hundred", None).await.unwrap();
    let after: Manifest = serde_json::from_str(&after.signed.manifest).unwrap();
    let changed = after.files.iter().filter(|f| !before.files.contains(f)).count();
    println!(
        "{label}: a 200-file app with one file changed: the push uploads {uploaded} blob, the update downloads {changed} blob"
    );
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let runs = std::env::var("RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(20);
    for backend in Backend::BOTH {
        let label = match backend {
            Backend::Sqlite => "SQLite + folder",
            Backend::Postgres => "Postgres + SeaweedFS",
        };
        let hub = test_support::start(backend, |_| {}).await;
        run(label, &hub, runs).await;
        hub.running.stop().await;
    }
}
