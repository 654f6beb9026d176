//! Trust in what a store hands out, on both back ends: each team server's own key, a rotation
//! signed by the old key, blobs checked on upload and held per team server, a blob tampered in the
//! object store served as is and caught by the client's check — and what `/updates` and courses
//! carry.

use crate::support::*;
use cowork_hub::blobs::sha256_hex;
use cowork_hub::test_support::tamper_blob;
use cowork_wire::hub::verify::{self, VerifyError};
use cowork_wire::hub::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_key_is_signed_by_the_old_one_and_re_signs_the_store() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let Team { ana, bo, .. } = team(&hub, Visibility::Private).await;
        // The team server has its key from its creation: what a member pins when it joins.
        let joined = bo.store_keys("team").await.unwrap();
        assert_eq!(joined.keys.len(), 1, "{backend:?}");
        assert_eq!(joined.keys[0].endorsement, None);
        let pinned = joined.keys[0].kid.clone();
        ana.create_team_server(&private_team_server("Other")).await.unwrap();
        assert_ne!(
            ana.store_keys("other").await.unwrap().keys[0].kid,
            pinned,
            "a key per team server"
        );

        let files = upload(&ana, "team", &[("cowork.json", b"{}")]).await;
        ana.publish("team", "gmail", &app(files, None)).await.unwrap();
        let before = bo.manifest("team", "gmail", None).await.unwrap();
        verify::manifest(&before.signed, &joined.keys[0], "team", "gmail", None)
            .expect("signed by the first key");

        let rotated = ana.rotate_store_key("team").await.unwrap();
        assert_eq!(rotated.keys.len(), 2);
        assert_eq!(bo.store_keys("team").await.unwrap(), rotated, "{backend:?}");
        let current =
            verify::key_chain("team", &pinned, &rotated).expect("the old key signed the new one");
        assert_eq!(current.kid, rotated.keys[1].kid);
        assert_eq!(current.endorsement.as_ref().unwrap().previous_kid, pinned);
        // Every kept version is signed again with the new key; the old signature is not it.
        let after = bo.manifest("team", "gmail", None).await.unwrap();
        assert_eq!(after.signed.kid, current.kid, "{backend:?}");
        verify::manifest(&after.signed, current, "team", "gmail", None).expect("re-signed");
        assert!(matches!(
            verify::manifest(&before.signed, current, "team", "gmail", None),
            Err(VerifyError::BadSignature { .. })
        ));
        install(&bo, "team", "gmail", None).await.expect("installs through the chain");
        let next = upload(&ana, "team", &[("cowork.json", b"{\"v\":2}")]).await;
        let published = ana.publish("team", "gmail", &app(next, None)).await.unwrap();
        assert_eq!(published.version.signed.kid, current.kid, "new versions use the new key");
        let audit = ana.audit("team", None, Some(2)).await.unwrap().entries;
        assert_eq!(audit[1].action, AuditAction::StoreKeyRotate);
        assert_eq!(audit[1].target.as_deref(), Some(current.kid.as_str()));

        // What a client must refuse: a key nobody endorsed, a forged endorsement, another team
        // server's chain, a key it never pinned.
        let mut unsigned = rotated.clone();
        unsigned.keys[1].endorsement = None;
        assert!(matches!(
            verify::key_chain("team", &pinned, &unsigned),
            Err(VerifyError::KeyNotEndorsed { .. })
        ));
        let mut forged = rotated.clone();
        let endorsement = forged.keys[1].endorsement.as_mut().unwrap();
        endorsement.signature = before.signed.signature.clone();
        assert!(matches!(
            verify::key_chain("team", &pinned, &forged),
            Err(VerifyError::KeyNotEndorsed { .. })
        ));
        let mut swapped = rotated.clone();
        swapped.keys[1].public_key =
            ana.store_keys("other").await.unwrap().keys[0].public_key.clone();
        assert!(verify::key_chain("team", &pinned, &swapped).is_err(), "{backend:?}");
        assert!(matches!(
            verify::key_chain("other", &pinned, &rotated),
            Err(VerifyError::KeyNotEndorsed { .. })
        ));
        assert!(matches!(
            verify::key_chain("team", "0123456789abcdef", &rotated),
            Err(VerifyError::UnknownKey { .. })
        ));
        // A manifest of one item does not pass for another's, nor for another version.
        assert!(matches!(
            verify::manifest(&after.signed, current, "team", "other-app", None),
            Err(VerifyError::BadManifest { .. })
        ));
        assert!(matches!(
            verify::manifest(&after.signed, current, "team", "gmail", Some("9.9.9")),
            Err(VerifyError::BadManifest { .. })
        ));
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blob_tampered_in_the_object_store_is_served_as_is_and_fails_the_clients_check() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let Team { ana, bo, .. } = team(&hub, Visibility::Private).await;
        let widget = b"export default function Mail() { return null }\n";
        let files = upload(&ana, "team", &[("cowork.json", b"{}"), ("mail.jsx", widget)]).await;
        ana.publish("team", "gmail", &app(files.clone(), None)).await.unwrap();
        install(&bo, "team", "gmail", None).await.expect("intact");
        let sha = files[1].sha256.clone();

        // Same length, other bytes: the hash gives it away.
        let mut evil = widget.to_vec();
        evil[..6].copy_from_slice(b"throw ");
        tamper_blob(&hub, &sha, evil.clone()).await;
        assert_eq!(bo.get_blob("team", &sha).await.unwrap(), evil, "{backend:?}: served as it is");
        match install(&bo, "team", "gmail", None).await {
            Err(VerifyError::HashMismatch { path, expected, actual }) => {
                assert_eq!((path.as_str(), expected.as_str()), ("mail.jsx", sha.as_str()));
                assert_eq!(actual, sha256_hex(&evil));
            }
            other => panic!("{backend:?}: expected a hash mismatch, got {other:?}"),
        }
        // Another length: the size gives it away first.
        tamper_blob(&hub, &sha, b"short".to_vec()).await;
        assert!(matches!(
            install(&bo, "team", "gmail", None).await,
            Err(VerifyError::SizeMismatch { .. })
        ));
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blobs_are_checked_on_upload_and_held_per_team_server() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let Team { ana, bo, eve, .. } = team(&hub, Visibility::Private).await;
        eve.create_team_server(&private_team_server("Elsewhere")).await.unwrap();
        let bytes = b"a private file".to_vec();
        let sha = sha256_hex(&bytes);
        assert_eq!(
            name(ana.put_blob("team", &sha, b"other bytes".to_vec()).await),
            HubErrorName::BadRequest,
            "{backend:?}: refused when the bytes do not hash to the name"
        );
        assert_eq!(
            name(ana.put_blob("team", "not-a-hash", bytes.clone()).await),
            HubErrorName::BadRequest
        );
        ana.put_blob("team", &sha, bytes.clone()).await.unwrap();
        // Another team server neither sees it nor may reference it without uploading it.
        assert_eq!(
            eve.missing_blobs("elsewhere", std::slice::from_ref(&sha)).await.unwrap().missing,
            std::slice::from_ref(&sha)
        );
        assert_eq!(
            name(eve.get_blob("elsewhere", &sha).await),
            HubErrorName::NotFound,
            "{backend:?}"
        );
        let entry =
            ManifestFile { path: "f.txt".into(), size: bytes.len() as u64, sha256: sha.clone() };
        assert_eq!(
            name(eve.publish("elsewhere", "copycat", &app(vec![entry.clone()], None)).await),
            HubErrorName::MissingBlobs
        );
        let stored = eve.put_blob("elsewhere", &sha, bytes.clone()).await.unwrap();
        assert!(stored.existed, "{backend:?}: the bytes are stored once");
        eve.publish("elsewhere", "copycat", &app(vec![entry], None)).await.unwrap();
        assert_eq!(bo.get_blob("team", &sha).await.unwrap(), bytes);
        assert_eq!(
            name(ana.missing_blobs("team", &["XYZ".into()]).await),
            HubErrorName::BadRequest,
            "a malformed hash is named"
        );
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_carry_store_changes_within_one_poll_and_stay_cheap_otherwise() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let Team { ana, bo, .. } = team(&hub, Visibility::Private).await;
        ana.create_team_server(&private_team_server("Quiet")).await.unwrap();
        ana.add_member("quiet", &MemberAdd { email: "bo@example.com".into(), admin: false })
            .await
            .unwrap();
        let first = bo.updates(None).await.unwrap().unwrap();
        let slugs: Vec<&str> = first.stores.iter().map(|s| s.slug.as_str()).collect();
        assert_eq!(slugs, ["quiet", "team"], "{backend:?}: a first poll has every store");
        assert!(first.stores.iter().all(|s| s.items.is_empty()));
        let files = upload(&ana, "team", &[("cowork.json", b"{}")]).await;
        ana.publish("team", "gmail", &app(files, None)).await.unwrap();
        let changed =
            bo.updates(Some(&first.cursor)).await.unwrap().expect("a publish moves the cursor");
        assert_eq!(changed.stores.len(), 1, "{backend:?}: only the store that changed");
        assert_eq!(changed.stores[0].slug, "team");
        assert_eq!(
            changed.stores[0].items,
            [ItemHead { name: "gmail".into(), kind: ItemKind::App, version: "1.0.0".into() }]
        );
        assert_eq!(bo.updates(Some(&changed.cursor)).await.unwrap(), None, "then 304 again");
        ana.unpublish("team", "gmail").await.unwrap();
        let emptied = bo.updates(Some(&changed.cursor)).await.unwrap().unwrap();
        assert_eq!(
            emptied.stores,
            [StoreHeads { slug: "team".into(), items: vec![] }],
            "{backend:?}"
        );
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn course_subscriptions_and_progress_resume_when_a_course_comes_back() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let Team { ana, bo, .. } = team(&hub, Visibility::Private).await;
        let course_md =
            b"---\ntitle: Sales Onboarding\nlessons: welcome, first-call\n---\nThe first week.\n";
        let files = upload(
            &ana,
            "team",
            &[
                ("course.md", course_md),
                ("01-welcome/lesson.md", b"---\ntitle: Welcome\n---\nHi.\n"),
                ("02-first-call/lesson.md", b"---\ntitle: Your first call\n---\nCall.\n"),
            ],
        )
        .await;
        let mut course = app(files.clone(), None);
        course.kind = ItemKind::Course;
        course.card.title = Some("Sales Onboarding".into());
        ana.publish("team", "onboarding", &course).await.unwrap();
        let cursor = bo.updates(None).await.unwrap().unwrap().cursor;
        assert_eq!(
            name(bo.subscribe("team", "gmail").await),
            HubErrorName::NotFound,
            "{backend:?}"
        );
        let subscription = bo.subscribe("team", "onboarding").await.unwrap();
        assert_eq!(subscription.version.as_deref(), Some("1.0.0"));
        assert_eq!(subscription.title.as_deref(), Some("Sales Onboarding"));
        let moved = bo.updates(Some(&cursor)).await.unwrap().expect("another machine hears of it");
        assert_eq!(
            moved.subscriptions,
            [SubscriptionRef { team_server: "team".into(), course: "onboarding".into() }]
        );
        assert_eq!(
            name(ana.set_lesson("team", "onboarding", "welcome", true).await),
            HubErrorName::Conflict
        );
        let progress = bo.set_lesson("team", "onboarding", "welcome", true).await.unwrap();
        assert_eq!(progress.lessons.len(), 1);
        bo.set_lesson("team", "onboarding", "first-call", true).await.unwrap();
        bo.set_lesson("team", "onboarding", "first-call", false).await.unwrap();
        assert_eq!(
            name(bo.set_lesson("team", "onboarding", "../x", true).await),
            HubErrorName::BadRequest
        );

        // Unpublished, the subscription stays (no version); published again, all resumes.
        ana.unpublish("team", "onboarding").await.unwrap();
        let waiting = bo.subscriptions().await.unwrap().subscriptions;
        assert_eq!((waiting.len(), waiting[0].version.clone()), (1, None), "{backend:?}");
        let mut again = app(files, None);
        again.kind = ItemKind::Course;
        ana.publish("team", "onboarding", &again).await.unwrap();
        let back = bo.subscriptions().await.unwrap().subscriptions;
        assert_eq!(back[0].version.as_deref(), Some("1.0.1"), "{backend:?}");
        assert_eq!(back[0].lessons_done, 1);
        let progress = bo.course_progress("team", "onboarding").await.unwrap();
        assert!(progress.subscribed);
        assert_eq!(
            progress.lessons.iter().map(|l| l.lesson.as_str()).collect::<Vec<_>>(),
            ["welcome"]
        );
        bo.unsubscribe("team", "onboarding").await.unwrap();
        assert_eq!(name(bo.unsubscribe("team", "onboarding").await), HubErrorName::NotFound);
        assert!(!bo.course_progress("team", "onboarding").await.unwrap().subscribed);
        hub.running.stop().await;
    }
}
