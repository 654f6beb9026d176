//! Blobs (folder and S3: content-addressed, presigned downloads), their garbage collection, and
//! `migrate` from an embedded hub into Postgres + S3.

use crate::support::*;
use cowork_hub::blobs::sha256_hex;
use cowork_wire::hub::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blobs_are_checked_against_their_hash_and_members_download_them() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let (ana, _) = account(&hub, "ana@example.com").await;
        let (bo, _) = account(&hub, "bo@example.com").await;
        let (eve, _) = account(&hub, "eve@example.com").await;
        ana.create_team_server(&NewTeamServer {
            name: "Team".into(),
            description: None,
            visibility: Visibility::Private,
            requires_approval: false,
            org: None,
            open_to_groups: vec![],
        })
        .await
        .unwrap();
        ana.add_member("team", &MemberAdd { email: "bo@example.com".into(), admin: false })
            .await
            .unwrap();
        let bytes = b"export default function Widget() { return null }\n".to_vec();
        let sha = sha256_hex(&bytes);
        assert_eq!(
            name(ana.put_blob("team", &sha256_hex(b"other"), bytes.clone()).await),
            HubErrorName::BadRequest,
            "{backend:?}"
        );
        assert_eq!(name(bo.put_blob("team", &sha, bytes.clone()).await), HubErrorName::NotAdmin);
        let stored = ana.put_blob("team", &sha, bytes.clone()).await.unwrap();
        assert!(!stored.existed);
        assert!(
            ana.put_blob("team", &sha, bytes.clone()).await.unwrap().existed,
            "{backend:?}: content-addressed"
        );
        // On S3 this follows the hub's redirect to a presigned URL.
        assert_eq!(bo.get_blob("team", &sha).await.unwrap(), bytes, "{backend:?}");
        if backend == Backend::Postgres {
            let raw = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap()
                .get(format!("{}/api/team-servers/team/blobs/{sha}", hub.url))
                .bearer_auth(sign_in(&hub, "bo@example.com").await.1.access_token)
                .send()
                .await
                .unwrap();
            assert!(raw.status().is_redirection());
            assert!(raw.headers()["location"].to_str().unwrap().contains("X-Amz-Signature="));
        }
        assert_eq!(name(eve.get_blob("team", &sha).await), HubErrorName::NotFound);
        assert_eq!(
            name(bo.get_blob("team", &sha256_hex(b"missing")).await),
            HubErrorName::NotFound
        );
        // GC: unreferenced and older than the cut-off goes; a blob a version references stays.
        let kept = b"kept".to_vec();
        let kept_sha = sha256_hex(&kept);
        ana.put_blob("team", &kept_sha, kept.clone()).await.unwrap();
        ana.publish(
            "team",
            "keeper",
            &Publish {
                kind: ItemKind::App,
                subtype: None,
                version: None,
                files: vec![ManifestFile {
                    path: "cowork.json".into(),
                    size: 4,
                    sha256: kept_sha.clone(),
                }],
                card: CardUpdate::default(),
                requires: None,
                dry_run: false,
            },
        )
        .await
        .unwrap();
        let db = &hub.running.hub.db;
        let blobs = hub.running.hub.blobs.clone();
        assert_eq!(
            cowork_hub::jobs::blob_gc(db, blobs.as_ref(), 0).await.unwrap(),
            0,
            "{backend:?}: nothing older than the epoch"
        );
        assert_eq!(cowork_hub::jobs::blob_gc(db, blobs.as_ref(), i64::MAX).await.unwrap(), 1);
        assert_eq!(
            blobs.read(&sha).await.unwrap(),
            None,
            "{backend:?}: the unreferenced blob is gone"
        );
        assert_eq!(blobs.read(&kept_sha).await.unwrap(), Some(kept));
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrate_copies_an_embedded_hub_into_postgres_and_s3_and_can_run_again() {
    let embedded = hub(Backend::Sqlite).await;
    let (ana, ana_tokens) = account(&embedded, "ana@example.com").await;
    account(&embedded, "bo@example.com").await;
    ana.create_team_server(&NewTeamServer {
        name: "Team".into(),
        description: None,
        visibility: Visibility::Public,
        requires_approval: true,
        org: None,
        open_to_groups: vec![],
    })
    .await
    .unwrap();
    ana.add_member("team", &MemberAdd { email: "bo@example.com".into(), admin: false })
        .await
        .unwrap();
    let bytes = b"a blob".to_vec();
    let sha = sha256_hex(&bytes);
    ana.put_blob("team", &sha, bytes.clone()).await.unwrap();
    let file =
        ManifestFile { path: "cowork.json".into(), size: bytes.len() as u64, sha256: sha.clone() };
    ana.publish("team", "gmail", &app(vec![file], Some("1.0.0"))).await.unwrap();
    let pinned = ana.store_keys("team").await.unwrap().keys[0].kid.clone();
    let cursor = ana.updates(None).await.unwrap().unwrap().cursor;
    let data = embedded.dir.path().to_path_buf();
    embedded.running.stop().await;

    let database = cowork_hub::test_support::new_database().await;
    let s3 = cowork_hub::test_support::new_s3_url();
    let first = cowork_hub::migrate::run(&data, &database, &s3).await.unwrap();
    assert!(first.rows_copied > 5, "{first}");
    assert_eq!((first.rows_present, first.blobs_copied, first.blobs_present), (0, 1, 0), "{first}");
    let again = cowork_hub::migrate::run(&data, &database, &s3).await.unwrap();
    assert_eq!((again.rows_copied, again.blobs_copied), (0, 0), "idempotent: {again}");
    assert_eq!((again.rows_present, again.blobs_present), (first.rows_copied, 1));

    // The same accounts, sessions, servers and blobs, now on Postgres + S3.
    let scaled = cowork_hub::test_support::start(Backend::Postgres, |c| {
        c.database = database.clone();
        c.blobs = cowork_hub::BlobsConfig::S3(s3.clone());
    })
    .await;
    let ana = scaled.client().with_token(ana_tokens.access_token);
    assert_eq!(
        ana.me().await.unwrap().user.email,
        "ana@example.com",
        "a session survives the move"
    );
    assert_eq!(ana.updates(Some(&cursor)).await.unwrap(), None, "and so does its updates cursor");
    let (bo, _) = sign_in(&scaled, "bo@example.com").await;
    assert_eq!(bo.get_blob("team", &sha).await.unwrap(), bytes);
    // The store too: its item, its signed version and its key, so pinned clients still verify.
    let (manifest, files) =
        install(&bo, "team", "gmail", None).await.expect("verified after the move");
    assert_eq!((manifest.version.as_str(), files[0].as_slice()), ("1.0.0", bytes.as_slice()));
    assert_eq!(bo.store_keys("team").await.unwrap().keys[0].kid, pinned);
    assert_eq!(ana.members("team").await.unwrap().members.len(), 2);
    scaled.running.stop().await;
}
