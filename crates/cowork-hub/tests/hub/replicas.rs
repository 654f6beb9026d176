//! Two replicas on one Postgres (and one object store): concurrent joins, approvals and group edits
//! never lose an update or duplicate a row; a periodic job is claimed by one replica only.

use crate::support::*;
use cowork_hub::test_support::start;
use cowork_wire::hub::client::HubClient;
use cowork_wire::hub::verify;
use cowork_wire::hub::*;
use sqlx::Row;

async fn two_replicas() -> (TestHub, TestHub) {
    let a = hub(Backend::Postgres).await;
    let (database, blobs) =
        (a.running.hub.config.database.clone(), a.running.hub.config.blobs.clone());
    let b = start(Backend::Postgres, move |c| {
        c.database = database;
        c.blobs = blobs;
    })
    .await;
    (a, b)
}

fn on(replica: &TestHub, token: &str) -> HubClient {
    replica.client().with_token(token.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_joins_and_approvals_on_two_replicas_keep_one_row_each() {
    let (a, b) = two_replicas().await;
    let (owner, owner_tokens) = account(&a, "owner@example.com").await;
    owner
        .create_team_server(&NewTeamServer {
            name: "Open".into(),
            description: None,
            visibility: Visibility::Public,
            requires_approval: false,
            org: None,
            open_to_groups: vec![],
        })
        .await
        .unwrap();
    owner
        .create_team_server(&NewTeamServer {
            name: "Gated".into(),
            description: None,
            visibility: Visibility::Public,
            requires_approval: true,
            org: None,
            open_to_groups: vec![],
        })
        .await
        .unwrap();
    let mut tokens = Vec::new();
    for i in 0..12 {
        tokens.push(account(&a, &format!("u{i}@example.com")).await.1.access_token);
    }
    // Every user joins twice, once through each replica, all at once.
    let mut joins = tokio::task::JoinSet::new();
    for token in &tokens {
        for replica in [&a, &b] {
            let client = on(replica, token);
            joins.spawn(
                async move { client.join("open", &Join::default()).await.map(|j| j.status) },
            );
            let client = on(replica, token);
            joins.spawn(
                async move { client.join("gated", &Join::default()).await.map(|j| j.status) },
            );
        }
    }
    while let Some(joined) = joins.join_next().await {
        joined.unwrap().unwrap();
    }
    assert_eq!(
        owner.members("open").await.unwrap().members.len(),
        13,
        "no member twice, none lost"
    );
    assert_eq!(owner.requests("gated").await.unwrap().requests.len(), 12);
    let audit = owner.audit("open", None, Some(200)).await.unwrap().entries;
    assert_eq!(
        audit.iter().filter(|e| e.action == AuditAction::MemberJoin).count(),
        12,
        "one audit line per join"
    );
    // Two admins approve the same requests at the same moment through different replicas.
    let mut approvals = tokio::task::JoinSet::new();
    for i in 0..12 {
        for replica in [&a, &b] {
            let client = on(replica, &owner_tokens.access_token);
            let email = format!("u{i}@example.com");
            approvals.spawn(async move { client.approve("gated", &email).await.is_ok() });
        }
    }
    let mut approved = 0;
    while let Some(ok) = approvals.join_next().await {
        approved += usize::from(ok.unwrap());
    }
    assert_eq!(approved, 12, "each request settled exactly once");
    assert_eq!(owner.members("gated").await.unwrap().members.len(), 13);
    let audit = owner.audit("gated", None, Some(200)).await.unwrap().entries;
    assert_eq!(audit.iter().filter(|e| e.action == AuditAction::MemberApprove).count(), 12);
    a.running.stop().await;
    b.running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_group_edits_on_two_replicas_lose_no_member() {
    let (a, b) = two_replicas().await;
    let (owner, owner_tokens) = account(&a, "owner@example.com").await;
    owner.create_org(&NewOrg { name: "Acme".into(), slug: Some("acme".into()) }).await.unwrap();
    let emails: Vec<String> = (0..8).map(|i| format!("m{i}@example.com")).collect();
    for email in &emails {
        account(&a, email).await;
        owner
            .add_org_member("acme", &OrgMemberAdd { email: email.clone(), role: Role::Member })
            .await
            .unwrap();
    }
    owner.create_group("acme", &NewGroup { name: "team".into(), members: vec![] }).await.unwrap();
    // Each writer adds one member the way the CLI does: read, apply, save with If-Match; on a
    // 412 read again and re-apply.
    let mut writers = tokio::task::JoinSet::new();
    for (i, email) in emails.iter().enumerate() {
        let client = on(if i % 2 == 0 { &a } else { &b }, &owner_tokens.access_token);
        let email = email.clone();
        writers.spawn(async move {
            let mut conflicts = 0;
            loop {
                let group = client.group("acme", "team").await.unwrap();
                let mut members = group.members.clone();
                members.push(email.clone());
                match client.set_group("acme", "team", &GroupSet { members }, &group.etag).await {
                    Ok(_) => return conflicts,
                    Err(e) if e.name() == Some(HubErrorName::PreconditionFailed) => conflicts += 1,
                    Err(e) => panic!("{e}"),
                }
                assert!(conflicts < 50, "a writer never got through");
            }
        });
    }
    let mut conflicts = 0;
    while let Some(done) = writers.join_next().await {
        conflicts += done.unwrap();
    }
    let mut members = owner.group("acme", "team").await.unwrap().members;
    members.sort();
    let mut expected = emails.clone();
    expected.sort();
    assert_eq!(members, expected, "every edit landed ({conflicts} were re-applied)");
    a.running.stop().await;
    b.running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_periodic_job_is_claimed_by_one_replica_at_a_time() {
    let (a, b) = two_replicas().await;
    let (db_a, db_b) = (a.running.hub.db.clone(), b.running.hub.db.clone());
    cowork_hub::jobs::register(&db_a).await.unwrap();
    cowork_hub::jobs::register(&db_b).await.unwrap();
    let mut claims = tokio::task::JoinSet::new();
    for i in 0..8 {
        let db = if i % 2 == 0 { db_a.clone() } else { db_b.clone() };
        claims.spawn(
            async move { cowork_hub::jobs::claim(&db, &format!("worker-{i}")).await.unwrap() },
        );
    }
    let mut claimed = Vec::new();
    while let Some(job) = claims.join_next().await {
        claimed.extend(job.unwrap());
    }
    claimed.sort();
    assert_eq!(claimed, ["blob-gc", "retention"], "each due job once, whichever replica asked");
    let row = sqlx::query("SELECT locked_by FROM jobs WHERE name = 'retention'")
        .fetch_one(db_a.pool())
        .await
        .unwrap();
    let holder: String = row.try_get(0).unwrap();
    let outcome =
        cowork_hub::jobs::run(&db_a, a.running.hub.blobs.as_ref(), "retention").await.unwrap();
    cowork_hub::jobs::finish(&db_a, "retention", &holder, &outcome).await.unwrap();
    assert_eq!(
        cowork_hub::jobs::claim(&db_b, "late").await.unwrap(),
        None,
        "not due again until its period has passed"
    );
    a.running.stop().await;
    b.running.stop().await;
}

const ROTATIONS: usize = 4;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_publishes_rotations_and_member_changes_on_two_replicas_keep_the_store_whole() {
    let (a, b) = two_replicas().await;
    let Team { ana, .. } = team(&a, Visibility::Private).await;
    let ana_token = sign_in(&a, "ana@example.com").await.1.access_token;
    for i in 0..6 {
        account(&a, &format!("m{i}@example.com")).await;
    }
    // A team server older than the store has no key: two replicas asked at once make one.
    let db = a.running.hub.db.clone();
    sqlx::query("DELETE FROM store_keys").execute(db.pool()).await.unwrap();
    let mut asks = tokio::task::JoinSet::new();
    for replica in [&a, &b, &a, &b] {
        let client = on(replica, &ana_token);
        asks.spawn(async move { client.store_keys("team").await.unwrap() });
    }
    let mut kids = std::collections::BTreeSet::new();
    while let Some(keys) = asks.join_next().await {
        kids.extend(keys.unwrap().keys.into_iter().map(|k| k.kid));
    }
    assert_eq!(kids.len(), 1, "one first key, whoever made it");
    let pinned = kids.into_iter().next().unwrap();

    // Publishes without a version through both replicas, key rotations and member changes, all
    // at once: each publish takes the next version, none fails, and nothing deadlocks.
    let mut contents = Vec::new();
    for i in 0..8 {
        contents.push(
            upload(&ana, "team", &[("cowork.json", format!("{{\"n\":{i}}}").as_bytes())]).await,
        );
    }
    let mut work = tokio::task::JoinSet::new();
    for (i, files) in contents.into_iter().enumerate() {
        let client = on(if i % 2 == 0 { &a } else { &b }, &ana_token);
        work.spawn(async move {
            client
                .publish("team", "gmail", &app(files, None))
                .await
                .map(|p| p.version.version.version)
        });
    }
    // Rotations in a row: a publish that waited on one finds the key it waited for retired.
    for i in 0..ROTATIONS {
        let client = on(if i % 2 == 0 { &b } else { &a }, &ana_token);
        work.spawn(
            async move { client.rotate_store_key("team").await.map(|_| "rotated".to_string()) },
        );
    }
    for i in 0..6 {
        let client = on(if i % 2 == 0 { &b } else { &a }, &ana_token);
        work.spawn(async move {
            let email = format!("m{i}@example.com");
            client
                .add_member("team", &MemberAdd { email, admin: false })
                .await
                .map(|_| "added".to_string())
        });
    }
    let mut versions = Vec::new();
    while let Some(done) = work.join_next().await {
        let done = done.unwrap().unwrap_or_else(|e| panic!("a concurrent change failed: {e}"));
        if done.starts_with("1.") {
            versions.push(done);
        }
    }
    versions.sort_by_key(|v| Version::parse(v).unwrap().patch);
    let expected: Vec<String> = (0..8).map(|i| format!("1.0.{i}")).collect();
    assert_eq!(versions, expected, "each publish took its own next version");
    let keys = ana.store_keys("team").await.unwrap();
    assert_eq!(keys.keys.len(), 1 + ROTATIONS);
    let current =
        verify::key_chain("team", &pinned, &keys).expect("one chain through every rotation");
    for version in ana.store_item("team", "gmail").await.unwrap().versions {
        let found = ana.manifest("team", "gmail", Some(&version.version)).await.unwrap();
        verify::manifest(&found.signed, current, "team", "gmail", Some(&version.version))
            .unwrap_or_else(|e| panic!("{}: {e}", version.version));
    }
    assert_eq!(ana.members("team").await.unwrap().members.len(), 3 + 6);
    a.running.stop().await;
    b.running.stop().await;
}
