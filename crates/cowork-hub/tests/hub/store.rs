//! The store's lifecycle on both back ends: publish → list → versions → a verified download;
//! unchanged files publish nothing; versions move forward only; the newest 10 are kept;
//! unpublish and withdraw; only admins change it; a removed member reads nothing; store cards.

use crate::support::*;
use cowork_hub::blobs::sha256_hex;
use cowork_wire::hub::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_published_app_is_listed_and_installs_verified() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let Team { ana, bo, .. } = team(&hub, Visibility::Private).await;
        let files = [
            ("cowork.json", &br#"{"name":"gmail","version":"1.2.3"}"#[..]),
            ("mail-list.jsx", b"export default function MailList() { return null }\n"),
            ("routines/fetch.ts", b"export default async () => ({})\n"),
        ];
        let hashes: Vec<String> = files.iter().map(|(_, b)| sha256_hex(b)).collect();
        assert_eq!(
            ana.missing_blobs("team", &hashes).await.unwrap().missing.len(),
            3,
            "{backend:?}: a new store lacks them all"
        );
        let entries = upload(&ana, "team", &files).await;
        assert_eq!(ana.missing_blobs("team", &hashes).await.unwrap().missing, Vec::<String>::new());
        let mut publish = app(entries.clone(), Some("1.2.3"));
        publish.card = CardUpdate {
            title: Some("Gmail".into()),
            description: Some("Reads your mail.".into()),
            tags: Some(vec!["mail".into()]),
            icon: Some("mail".into()),
            ..CardUpdate::default()
        };
        publish.requires = Some(vec![Host::Web, Host::Desktop]);
        let published = ana.publish("team", "gmail", &publish).await.unwrap();
        assert_eq!(published.outcome, PublishOutcome::Published, "{backend:?}");
        assert_eq!(published.version.version.version, "1.2.3");
        assert_eq!(published.version.version.files, 3);

        // A member lists it, sees its one version, and installs it verified.
        let store = bo.store("team").await.unwrap();
        assert_eq!(store.items.len(), 1);
        let item = &store.items[0];
        assert_eq!(
            (item.name.as_str(), item.kind, item.version.as_str()),
            ("gmail", ItemKind::App, "1.2.3")
        );
        assert_eq!(item.title.as_deref(), Some("Gmail"));
        assert_eq!(item.tags, ["mail"]);
        assert_eq!(item.requires, [Host::Desktop, Host::Web]);
        assert_eq!(item.versions, 1);
        let versions = bo.store_item("team", "gmail").await.unwrap().versions;
        assert_eq!(versions.len(), 1);
        assert_eq!(versions[0].published_by, "ana@example.com");
        assert_eq!(versions[0].withdrawn_at, None);
        let (manifest, bytes) = install(&bo, "team", "gmail", None).await.expect("verified");
        assert_eq!(manifest.version, "1.2.3");
        assert_eq!(manifest.kind, ItemKind::App);
        let paths: Vec<&str> = manifest.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["cowork.json", "mail-list.jsx", "routines/fetch.ts"], "sorted by path");
        assert_eq!(bytes[1], files[1].1);
        install(&bo, "team", "gmail", Some("1.2.3")).await.expect("the same by its number");

        // Manifests in one call; what is not there is listed, not refused.
        let many = bo
            .manifests(
                "team",
                &ManifestRequest {
                    items: vec![
                        WantedManifest { name: "gmail".into(), version: None },
                        WantedManifest { name: "gmail".into(), version: Some("9.9.9".into()) },
                        WantedManifest { name: "nope".into(), version: None },
                    ],
                },
            )
            .await
            .unwrap();
        assert_eq!(many.manifests.len(), 1);
        assert_eq!(many.missing.len(), 2);
        assert_eq!(name(bo.manifest("team", "gmail", Some("9.9.9")).await), HubErrorName::NotFound);
        assert_eq!(name(bo.manifest("team", "gmail", Some("x.y")).await), HubErrorName::BadRequest);

        let audit = ana.audit("team", None, Some(1)).await.unwrap().entries;
        assert_eq!(audit[0].action, AuditAction::StorePublish);
        assert_eq!(audit[0].target.as_deref(), Some("gmail"));
        assert_eq!(audit[0].detail.as_deref(), Some("v1.2.3, 3 files"));
        assert_eq!(ana.team_server("team").await.unwrap().items, 1);
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_push_of_unchanged_files_publishes_nothing() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let Team { ana, bo, .. } = team(&hub, Visibility::Private).await;
        let entries = upload(&ana, "team", &[("cowork.json", b"{}"), ("w.jsx", b"x")]).await;
        ana.publish("team", "gmail", &app(entries.clone(), Some("1.0.0"))).await.unwrap();
        let cursor = bo.updates(None).await.unwrap().unwrap().cursor;
        let mut reordered = entries.clone();
        reordered.reverse();
        for version in [Some("1.0.0"), None] {
            let again =
                ana.publish("team", "gmail", &app(reordered.clone(), version)).await.unwrap();
            assert_eq!(again.outcome, PublishOutcome::UpToDate, "{backend:?} {version:?}");
            assert_eq!(again.version.version.version, "1.0.0");
        }
        assert_eq!(bo.store_item("team", "gmail").await.unwrap().versions.len(), 1);
        assert_eq!(bo.updates(Some(&cursor)).await.unwrap(), None, "{backend:?}: nothing moved");
        let audit = ana.audit("team", None, Some(5)).await.unwrap().entries;
        assert_eq!(
            audit.iter().filter(|e| e.action == AuditAction::StorePublish).count(),
            1,
            "one publish line"
        );

        // Unchanged files with a new card: no version, the card changes, and it is audited.
        let mut card_only = app(entries.clone(), None);
        card_only.card.title = Some("Mail".into());
        let again = ana.publish("team", "gmail", &card_only).await.unwrap();
        assert_eq!(again.outcome, PublishOutcome::UpToDate);
        assert_eq!(again.item.title.as_deref(), Some("Mail"));
        assert_eq!(
            ana.audit("team", None, Some(1)).await.unwrap().entries[0].action,
            AuditAction::StoreCard
        );
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn versions_only_move_forward() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let Team { ana, .. } = team(&hub, Visibility::Private).await;
        let first = upload(&ana, "team", &[("cowork.json", b"one")]).await;
        let second = upload(&ana, "team", &[("cowork.json", b"two")]).await;
        let third = upload(&ana, "team", &[("cowork.json", b"three")]).await;
        let fresh = ana.publish("team", "gmail", &app(first.clone(), None)).await.unwrap();
        assert_eq!(
            fresh.version.version.version, "1.0.0",
            "{backend:?}: a new item starts at 1.0.0"
        );
        ana.publish("team", "gmail", &app(first.clone(), Some("1.2.3"))).await.unwrap();
        assert_eq!(
            name(ana.publish("team", "gmail", &app(second.clone(), Some("1.2.3"))).await),
            HubErrorName::VersionTaken,
            "{backend:?}: changed files at a published version"
        );
        assert_eq!(
            name(ana.publish("team", "gmail", &app(first.clone(), Some("1.2.2"))).await),
            HubErrorName::VersionBehind,
            "{backend:?}: the store is newer"
        );
        assert_eq!(
            name(ana.publish("team", "gmail", &app(first.clone(), Some("1.0.0"))).await),
            HubErrorName::VersionBehind,
            "{backend:?}: an older version the store still keeps"
        );
        let bumped = ana.publish("team", "gmail", &app(second.clone(), None)).await.unwrap();
        assert_eq!(bumped.version.version.version, "1.2.4", "{backend:?}: the hub bumps the patch");
        ana.publish("team", "gmail", &app(third.clone(), Some("1.3.0-beta.1"))).await.unwrap();
        assert_eq!(
            name(ana.publish("team", "gmail", &app(second.clone(), Some("1.3.0-alpha"))).await),
            HubErrorName::VersionBehind,
            "{backend:?}: pre-releases order as semver says"
        );
        assert_eq!(
            name(ana.publish("team", "gmail", &app(second.clone(), Some("v2"))).await),
            HubErrorName::BadRequest
        );
        let mut template = app(second.clone(), None);
        template.kind = ItemKind::Template;
        template.subtype = Some(TemplateSubtype::App);
        assert_eq!(
            name(ana.publish("team", "gmail", &template).await),
            HubErrorName::Conflict,
            "{backend:?}: a name keeps its kind"
        );
        let versions: Vec<String> = ana
            .store_item("team", "gmail")
            .await
            .unwrap()
            .versions
            .into_iter()
            .map(|v| v.version)
            .collect();
        assert_eq!(
            versions,
            ["1.3.0-beta.1", "1.2.4", "1.2.3", "1.0.0"],
            "{backend:?}: newest first"
        );
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_keeps_the_newest_ten_versions() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let Team { ana, bo, .. } = team(&hub, Visibility::Private).await;
        let mut first_sha = String::new();
        for i in 0..12 {
            let body = format!("version {i}");
            let files =
                upload(&ana, "team", &[("cowork.json", b"{}"), ("v.txt", body.as_bytes())]).await;
            if i == 0 {
                first_sha = files[1].sha256.clone();
            }
            ana.publish("team", "gmail", &app(files, None)).await.unwrap();
        }
        let listed = bo.store_item("team", "gmail").await.unwrap();
        let versions: Vec<&str> = listed.versions.iter().map(|v| v.version.as_str()).collect();
        assert_eq!(versions.len(), 10, "{backend:?}");
        assert_eq!((versions[0], versions[9]), ("1.0.11", "1.0.2"));
        assert_eq!(listed.item.versions, 10);
        assert_eq!(name(bo.manifest("team", "gmail", Some("1.0.0")).await), HubErrorName::NotFound);
        install(&bo, "team", "gmail", Some("1.0.2")).await.expect("the oldest kept one installs");
        // The dropped versions' own blobs are collected; what kept versions share stays.
        let db = &hub.running.hub.db;
        let blobs = hub.running.hub.blobs.clone();
        cowork_hub::jobs::blob_gc(db, blobs.as_ref(), i64::MAX).await.unwrap();
        assert_eq!(blobs.read(&first_sha).await.unwrap(), None, "{backend:?}");
        assert_eq!(blobs.read(&sha256_hex(b"{}")).await.unwrap().as_deref(), Some(&b"{}"[..]));
        install(&bo, "team", "gmail", None).await.expect("the latest still installs after the GC");
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unpublish_takes_an_item_or_an_older_version_and_never_the_latest() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let Team { ana, carl, bo, .. } = team(&hub, Visibility::Private).await;
        let old = upload(&ana, "team", &[("cowork.json", b"old")]).await;
        let new = upload(&ana, "team", &[("cowork.json", b"new")]).await;
        ana.publish("team", "gmail", &app(old.clone(), Some("1.0.0"))).await.unwrap();
        ana.publish("team", "gmail", &app(new.clone(), Some("1.0.1"))).await.unwrap();
        assert_eq!(name(bo.withdraw("team", "gmail", "1.0.0").await), HubErrorName::NotAdmin);
        assert_eq!(
            name(carl.withdraw("team", "gmail", "1.0.1").await),
            HubErrorName::Conflict,
            "{backend:?}: never the latest"
        );
        assert_eq!(name(carl.withdraw("team", "gmail", "9.9.9").await), HubErrorName::NotFound);
        assert_eq!(
            name(carl.withdraw("team", "gmail", "latest").await),
            HubErrorName::BadRequest,
            "{backend:?}: a version is X.Y.Z, not a word"
        );
        carl.withdraw("team", "gmail", "1.0.0").await.unwrap();
        carl.withdraw("team", "gmail", "1.0.0").await.unwrap();
        // Still known, marked; a copy pinned to it can still be checked and repaired.
        let versions = bo.store_item("team", "gmail").await.unwrap().versions;
        assert!(
            versions[1].withdrawn_at.is_some() && versions[0].withdrawn_at.is_none(),
            "{backend:?}"
        );
        let pinned = bo.manifest("team", "gmail", Some("1.0.0")).await.unwrap();
        assert!(pinned.version.withdrawn_at.is_some());
        install(&bo, "team", "gmail", Some("1.0.0"))
            .await
            .expect("a withdrawn version still verifies");
        let audit = ana.audit("team", None, Some(2)).await.unwrap().entries;
        assert_eq!(
            (audit[0].action, audit[0].target.as_deref()),
            (AuditAction::StoreUnpublish, Some("gmail@1.0.0"))
        );
        assert_eq!(
            audit[1].action,
            AuditAction::StorePublish,
            "{backend:?}: withdrawn once, one line"
        );

        // The whole item: gone from the listing; its name, kind and last version stay its own.
        assert_eq!(name(bo.unpublish("team", "gmail").await), HubErrorName::NotAdmin);
        carl.unpublish("team", "gmail").await.unwrap();
        assert_eq!(bo.store("team").await.unwrap().items, vec![], "{backend:?}");
        assert_eq!(name(bo.store_item("team", "gmail").await), HubErrorName::NotFound);
        assert_eq!(name(bo.manifest("team", "gmail", None).await), HubErrorName::NotFound);
        assert_eq!(name(carl.unpublish("team", "gmail").await), HubErrorName::NotFound);
        assert_eq!(ana.team_server("team").await.unwrap().items, 0);
        let audit = ana.audit("team", None, Some(1)).await.unwrap().entries;
        assert_eq!(
            (audit[0].target.as_deref(), audit[0].detail.as_deref()),
            (Some("gmail"), Some("all versions"))
        );
        assert_eq!(
            name(ana.publish("team", "gmail", &app(old.clone(), Some("1.0.1"))).await),
            HubErrorName::VersionTaken,
            "{backend:?}: versions keep moving forward after an unpublish"
        );
        let back = ana.publish("team", "gmail", &app(old.clone(), None)).await.unwrap();
        assert_eq!(back.version.version.version, "1.0.2");
        assert_eq!(bo.store_item("team", "gmail").await.unwrap().versions.len(), 1);
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_admins_change_the_store_and_only_the_owner_rotates_its_key() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let Team { ana, carl, bo, eve } = team(&hub, Visibility::Private).await;
        let bytes = b"export default 1".to_vec();
        let sha = sha256_hex(&bytes);
        let entry = ManifestFile {
            path: "cowork.json".into(),
            size: bytes.len() as u64,
            sha256: sha.clone(),
        };
        assert_eq!(
            name(bo.missing_blobs("team", std::slice::from_ref(&sha)).await),
            HubErrorName::NotAdmin,
            "{backend:?}"
        );
        assert_eq!(name(bo.put_blob("team", &sha, bytes.clone()).await), HubErrorName::NotAdmin);
        carl.put_blob("team", &sha, bytes.clone()).await.unwrap();
        assert_eq!(
            name(bo.publish("team", "gmail", &app(vec![entry.clone()], None)).await),
            HubErrorName::NotAdmin,
            "{backend:?}: a member's push is refused by name"
        );
        assert_eq!(
            name(eve.publish("team", "gmail", &app(vec![entry.clone()], None)).await),
            HubErrorName::NotFound
        );
        carl.publish("team", "gmail", &app(vec![entry.clone()], None)).await.unwrap();
        assert_eq!(
            name(
                bo.update_card(
                    "team",
                    "gmail",
                    &CardUpdate { title: Some("x".into()), ..Default::default() }
                )
                .await
            ),
            HubErrorName::NotAdmin
        );
        assert_eq!(name(bo.rotate_store_key("team").await), HubErrorName::NotOwner);
        assert_eq!(
            name(carl.rotate_store_key("team").await),
            HubErrorName::NotOwner,
            "{backend:?}"
        );
        ana.rotate_store_key("team").await.unwrap();
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_member_reads_nothing_of_the_store() {
    for backend in Backend::BOTH {
        for visibility in [Visibility::Private, Visibility::Public] {
            let hub = hub(backend).await;
            let Team { ana, bo, .. } = team(&hub, visibility).await;
            let entries = upload(&ana, "team", &[("cowork.json", b"{}")]).await;
            ana.publish("team", "gmail", &app(entries.clone(), None)).await.unwrap();
            let mut course =
                app(upload(&ana, "team", &[("course.md", b"---\ntitle: T\n---\n")]).await, None);
            course.kind = ItemKind::Course;
            ana.publish("team", "onboarding", &course).await.unwrap();
            install(&bo, "team", "gmail", None).await.expect("a member installs");
            bo.subscribe("team", "onboarding").await.unwrap();
            ana.remove_member("team", "bo@example.com").await.unwrap();
            // A private server no longer exists for them; a public one is there, but closed.
            let refused = match visibility {
                Visibility::Private => HubErrorName::NotFound,
                Visibility::Public => HubErrorName::NotMember,
            };
            let sha = entries[0].sha256.clone();
            let wanted = ManifestRequest {
                items: vec![WantedManifest { name: "gmail".into(), version: None }],
            };
            assert_eq!(name(bo.store("team").await), refused, "{backend:?} {visibility:?}");
            assert_eq!(name(bo.store_item("team", "gmail").await), refused);
            assert_eq!(name(bo.manifest("team", "gmail", None).await), refused);
            assert_eq!(name(bo.manifests("team", &wanted).await), refused);
            assert_eq!(name(bo.get_blob("team", &sha).await), refused);
            assert_eq!(name(bo.store_keys("team").await), refused);
            assert_eq!(name(bo.course_progress("team", "onboarding").await), refused);
            assert_eq!(bo.subscriptions().await.unwrap().subscriptions, vec![], "{backend:?}");
            let updates = bo.updates(None).await.unwrap().unwrap();
            assert!(
                updates.team_servers.is_empty()
                    && updates.stores.is_empty()
                    && updates.subscriptions.is_empty()
            );
            hub.running.stop().await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_republish_keeps_the_card_fields_it_does_not_state() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let Team { ana, bo, .. } = team(&hub, Visibility::Private).await;
        let shot = upload(&ana, "team", &[("shot.png", b"\x89PNG a screenshot")]).await.remove(0);
        let files = upload(&ana, "team", &[("cowork.json", b"1")]).await;
        let mut first = app(files, None);
        first.card = CardUpdate {
            title: Some("Gmail".into()),
            description: Some("Reads mail.".into()),
            tags: Some(vec!["mail".into(), "google".into()]),
            screenshots: Some(vec![shot.sha256.clone()]),
            ..CardUpdate::default()
        };
        ana.publish("team", "gmail", &first).await.unwrap();
        let mut second = app(upload(&ana, "team", &[("cowork.json", b"2")]).await, None);
        second.card.description = Some("Reads and sorts mail.".into());
        let item = ana.publish("team", "gmail", &second).await.unwrap().item;
        assert_eq!(item.title.as_deref(), Some("Gmail"), "{backend:?}");
        assert_eq!(item.description.as_deref(), Some("Reads and sorts mail."));
        assert_eq!(item.tags, ["mail", "google"]);
        assert_eq!(item.screenshots, std::slice::from_ref(&shot.sha256));
        assert_eq!(bo.get_blob("team", &shot.sha256).await.unwrap(), b"\x89PNG a screenshot");
        let cleared = ana
            .update_card(
                "team",
                "gmail",
                &CardUpdate {
                    tags: Some(vec![]),
                    title: Some(String::new()),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!((cleared.tags.len(), cleared.title), (0, None), "{backend:?}: empty clears");
        assert_eq!(cleared.description.as_deref(), Some("Reads and sorts mail."));
        assert_eq!(
            ana.audit("team", None, Some(1)).await.unwrap().entries[0].action,
            AuditAction::StoreCard
        );
        // Pictures are this store's blobs, within their size.
        let unknown = CardUpdate {
            screenshots: Some(vec![sha256_hex(b"not uploaded")]),
            ..Default::default()
        };
        assert_eq!(
            name(ana.update_card("team", "gmail", &unknown).await),
            HubErrorName::MissingBlobs
        );
        let big = vec![7u8; 1024 * 1024 + 1];
        let big_sha = sha256_hex(&big);
        ana.put_blob("team", &big_sha, big).await.unwrap();
        let too_big = CardUpdate { banner: Some(big_sha), ..Default::default() };
        assert_eq!(name(ana.update_card("team", "gmail", &too_big).await), HubErrorName::TooLarge);
        let bad = CardUpdate { title: Some("two\nlines".into()), ..Default::default() };
        assert_eq!(name(ana.update_card("team", "gmail", &bad).await), HubErrorName::BadRequest);
        // The card's screenshot outlives the GC, though no version references it.
        let blobs = hub.running.hub.blobs.clone();
        cowork_hub::jobs::blob_gc(&hub.running.hub.db, blobs.as_ref(), i64::MAX).await.unwrap();
        assert!(blobs.read(&shot.sha256).await.unwrap().is_some(), "{backend:?}");
        hub.running.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publishes_that_break_a_rule_are_refused_by_name_and_a_dry_run_writes_nothing() {
    for backend in Backend::BOTH {
        let hub = hub(backend).await;
        let Team { ana, .. } = team(&hub, Visibility::Private).await;
        let entries = upload(&ana, "team", &[("cowork.json", b"{}")]).await;
        let with = |path: &str| {
            let mut files = entries.clone();
            files[0].path = path.into();
            app(files, None)
        };
        for bad in ["../escape.js", "/abs.js", "a//b.js", "c:\\x.js"] {
            assert_eq!(
                name(ana.publish("team", "gmail", &with(bad)).await),
                HubErrorName::BadRequest,
                "{backend:?} {bad}"
            );
        }
        let mut twice = app(vec![entries[0].clone(), entries[0].clone()], None);
        assert_eq!(name(ana.publish("team", "gmail", &twice).await), HubErrorName::BadRequest);
        twice.files.clear();
        assert_eq!(
            name(ana.publish("team", "gmail", &twice).await),
            HubErrorName::BadRequest,
            "no file"
        );
        assert_eq!(
            name(ana.publish("team", "Gmail", &app(entries.clone(), None)).await),
            HubErrorName::BadRequest
        );
        assert_eq!(
            name(ana.publish("team", "apps", &app(entries.clone(), None)).await),
            HubErrorName::BadRequest
        );
        let mut wrong_size = entries.clone();
        wrong_size[0].size += 1;
        assert_eq!(
            name(ana.publish("team", "gmail", &app(wrong_size, None)).await),
            HubErrorName::BadRequest
        );
        let not_uploaded =
            ManifestFile { path: "x.js".into(), size: 3, sha256: sha256_hex(b"abc") };
        assert_eq!(
            name(ana.publish("team", "gmail", &app(vec![not_uploaded.clone()], None)).await),
            HubErrorName::MissingBlobs,
            "{backend:?}"
        );
        let mut template = app(entries.clone(), None);
        template.kind = ItemKind::Template;
        assert_eq!(
            name(ana.publish("team", "crud", &template).await),
            HubErrorName::BadRequest,
            "a template needs a subtype"
        );
        let mut subtyped = app(entries.clone(), None);
        subtyped.subtype = Some(TemplateSubtype::App);
        assert_eq!(
            name(ana.publish("team", "gmail", &subtyped).await),
            HubErrorName::BadRequest,
            "only a template has one"
        );
        template.subtype = Some(TemplateSubtype::App);
        let crud = ana.publish("team", "crud", &template).await.unwrap();
        assert_eq!(
            (crud.item.kind, crud.item.subtype),
            (ItemKind::Template, Some(TemplateSubtype::App))
        );
        let mut course = app(
            vec![ManifestFile {
                path: "big.png".into(),
                size: 26 * 1024 * 1024,
                sha256: sha256_hex(b"x"),
            }],
            None,
        );
        course.kind = ItemKind::Course;
        assert_eq!(
            name(ana.publish("team", "onboarding", &course).await),
            HubErrorName::TooLarge,
            "a course ≤ 25 MB"
        );

        // A dry run answers what would happen (blobs need not be uploaded) and writes nothing.
        let mut dry = app(vec![not_uploaded], Some("2.0.0"));
        dry.dry_run = true;
        let answer = ana.publish("team", "gmail", &dry).await.unwrap();
        assert_eq!(
            (answer.outcome, answer.version.version.version.as_str()),
            (PublishOutcome::Published, "2.0.0")
        );
        let names: Vec<String> =
            ana.store("team").await.unwrap().items.into_iter().map(|i| i.name).collect();
        assert_eq!(names, ["crud"], "{backend:?}: nothing of the dry run stays");
        assert_eq!(
            ana.audit("team", None, Some(1)).await.unwrap().entries[0].target.as_deref(),
            Some("crud")
        );
        hub.running.stop().await;
    }
}
