//! The hub's numbers (issue 41), on both back ends — SQLite + folder, Postgres + SeaweedFS (the
//! test harness's servers) — served in this process over loopback HTTP:
//!
//! - `/updates` for a machine in 5 team servers, nothing changed (304): an open-loop load of
//!   `RATE` requests per second for `SECONDS` seconds from a small generator here (each request
//!   sent on schedule, whether or not the last one answered, so a slow answer cannot hide the
//!   queue it causes); p50 / p99 / max. Target: p99 ≤ 10 ms at 500 req/s.
//! - 10,000 members in a team server: `members` (the whole list, as JSON) — median and max of 20.
//!   Target ≤ 50 ms.
//! - a join request round trip in that server: ask to join (requires approval), then an admin
//!   approves — median and max of 50 each, and the sum. Target ≤ 20 ms.
//! - the idle memory of the embedded `cowork-hub` binary: RSS 2 s after its start, and after the
//!   `/updates` load above. Target ≤ 30 MB.
//!
//! `cargo bench -p cowork-hub --bench hub` (`RATE=n SECONDS=n` to change the load); words after
//! `--` keep only the parts they name: `memory`, `updates`, `members` (with the join round trip),
//! e.g. `cargo bench -p cowork-hub --bench hub -- members`.

use cowork_hub::test_support::{self, Backend};
use cowork_wire::hub::client::HubClient;
use cowork_wire::hub::*;
use std::time::{Duration, Instant};

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

async fn account(hub: &test_support::TestHub, email: &str) -> HubClient {
    hub.signed_in(email, "bench password").await
}

async fn updates_load(
    hub: &test_support::TestHub,
    rate: u64,
    seconds: u64,
) -> (Vec<Duration>, usize) {
    let owner = account(hub, "owner@example.com").await;
    let machine = account(hub, "machine@example.com").await;
    for i in 0..5 {
        let ts = owner
            .create_team_server(&test_support::private_team_server(&format!("Team {i}")))
            .await
            .unwrap();
        owner
            .add_member(&ts.slug, &MemberAdd { email: "machine@example.com".into(), admin: false })
            .await
            .unwrap();
    }
    let cursor = machine.updates(None).await.unwrap().unwrap().cursor;
    assert_eq!(machine.updates(Some(&cursor)).await.unwrap(), None);
    let total = rate * seconds;
    let interval = Duration::from_secs_f64(1.0 / rate as f64);
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..total {
        let due = start + interval * u32::try_from(i).unwrap();
        tokio::time::sleep_until(due.into()).await;
        let machine = machine.clone();
        let cursor = cursor.clone();
        tasks.spawn(async move {
            let sent = Instant::now();
            let answer = machine.updates(Some(&cursor)).await;
            (sent.elapsed(), answer.is_ok_and(|a| a.is_none()))
        });
    }
    let mut latencies = Vec::new();
    let mut failed = 0;
    while let Some(done) = tasks.join_next().await {
        let (latency, ok) = done.unwrap();
        latencies.push(latency);
        failed += usize::from(!ok);
    }
    latencies.sort();
    (latencies, failed)
}

async fn big_team(hub: &test_support::TestHub) -> (Vec<Duration>, Vec<Duration>, Vec<Duration>) {
    let owner = account(hub, "big-owner@example.com").await;
    owner
        .create_team_server(&NewTeamServer {
            name: "Big".into(),
            description: None,
            visibility: Visibility::Public,
            requires_approval: true,
            org: None,
            open_to_groups: vec![],
        })
        .await
        .unwrap();
    let db = &hub.running.hub.db;
    let ts_id: String = sqlx::Row::try_get(
        &sqlx::query("SELECT id FROM team_servers WHERE slug = 'big'")
            .fetch_one(db.pool())
            .await
            .unwrap(),
        0,
    )
    .unwrap();
    // 9,999 more members, straight into the tables (no password hashing: they never sign in).
    let mut tx = db.begin().await.unwrap();
    for i in 0..9_999 {
        let id = format!("{i:032x}");
        sqlx::query("INSERT INTO users (id, email, display_name, password_hash, hub_admin, created_at, rev) VALUES ($1, $2, $3, NULL, 0, 0, 0)")
            .bind(&id)
            .bind(format!("member{i:05}@example.com"))
            .bind(format!("Member {i}"))
            .execute(&mut *tx)
            .await
            .unwrap();
        sqlx::query("INSERT INTO members (team_server_id, user_id, role, joined_at) VALUES ($1, $2, 'member', 0)")
            .bind(&ts_id)
            .bind(&id)
            .execute(&mut *tx)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();
    assert_eq!(owner.members("big").await.unwrap().members.len(), 10_000);
    let mut members = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        owner.members("big").await.unwrap();
        members.push(t.elapsed());
    }
    let mut asks = Vec::new();
    let mut approvals = Vec::new();
    for i in 0..50 {
        let email = format!("joiner{i}@example.com");
        let joiner = account(hub, &email).await;
        let t = Instant::now();
        assert_eq!(
            joiner.join("big", &Join { note: Some("bench".into()) }).await.unwrap().status,
            JoinStatus::Requested
        );
        asks.push(t.elapsed());
        let t = Instant::now();
        owner.approve("big", &email).await.unwrap();
        approvals.push(t.elapsed());
    }
    members.sort();
    asks.sort();
    approvals.sort();
    (members, asks, approvals)
}

fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

async fn idle_memory() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cowork-hub"))
        .args(["serve", "--data"])
        .arg(dir.path())
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !http.get(format!("{url}/health")).send().await.is_ok_and(|r| r.status().is_success()) {
        assert!(Instant::now() < deadline, "the hub did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle = rss_kb(child.id());
    for _ in 0..500 {
        let _ = http.get(format!("{url}/.well-known/jwks.json")).send().await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = rss_kb(child.id());
    let _ = child.kill();
    let _ = child.wait();
    println!("idle memory (embedded cowork-hub, RSS): {:.1} MB at rest, {:.1} MB after 500 requests   (target ≤ 30 MB)", idle as f64 / 1024.0, after as f64 / 1024.0);
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let rate = env_number("RATE", 500);
    let seconds = env_number("SECONDS", 10);
    let words: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let wanted = |part: &str| words.is_empty() || words.iter().any(|w| part.contains(w.as_str()));
    if wanted("memory") {
        idle_memory().await;
    }
    for backend in Backend::BOTH {
        let label = match backend {
            Backend::Sqlite => "SQLite + folder",
            Backend::Postgres => "Postgres + SeaweedFS",
        };
        let hub = test_support::start(backend, |c| c.limits.per_address = 1_000_000).await;
        if wanted("updates") {
            updates(&hub, label, rate, seconds).await;
        }
        if wanted("members") {
            members(&hub, label).await;
        }
        hub.running.stop().await;
    }
}

async fn updates(hub: &test_support::TestHub, label: &str, rate: u64, seconds: u64) {
    let (latencies, failed) = updates_load(hub, rate, seconds).await;
    println!(
        "{label}: /updates (5 team servers, 304) at {rate} req/s for {seconds} s: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, {failed} failed of {}   (target p99 ≤ 10 ms)",
        ms(percentile(&latencies, 0.5)),
        ms(percentile(&latencies, 0.99)),
        ms(*latencies.last().unwrap()),
        latencies.len()
    );
}

async fn members(hub: &test_support::TestHub, label: &str) {
    let (members, asks, approvals) = big_team(hub).await;
    println!(
        "{label}: members of a 10,000-member team server: median {:.1} ms, max {:.1} ms   (target ≤ 50 ms)",
        ms(percentile(&members, 0.5)),
        ms(*members.last().unwrap())
    );
    println!(
        "{label}: a join request round trip there: ask {:.2} ms + approve {:.2} ms = {:.2} ms median (max {:.2} + {:.2})   (target ≤ 20 ms)",
        ms(percentile(&asks, 0.5)),
        ms(percentile(&approvals, 0.5)),
        ms(percentile(&asks, 0.5) + percentile(&approvals, 0.5)),
        ms(*asks.last().unwrap()),
        ms(*approvals.last().unwrap())
    );
}
