//! The store's workbench routes (`/api/store/…`) against a real hub in the test process, on both
//! back ends (SQLite + a folder, Postgres + SeaweedFS): Bob's
//! daemon installs what Ana publishes to `acme-apps`, lists it with its source, version, pin,
//! "update available" and edits, takes the four choices, pins, removes; browses the store's
//! cards; scaffolds the built-in template; keeps course progress. And the refusals: a name that
//! would lead outside the workspace, a token that is not the owner's. Also the workspace's own
//! courses and lessons (Manage Workspace › Components) and course subscriptions from a store card.

use super::*;
use cowork_hub::test_support::{self, Backend, TestHub};
use cowork_wire::hub::client::HubClient;
use cowork_wire::hub::{CardUpdate, ItemKind, ManifestFile, MemberAdd, Publish};
use sha2::Digest;

const PASSWORD: &str = "correct horse battery";

/// Publishes `files` as `name` (of `kind`) to `slug` as Ana.
async fn publish(ana: &HubClient, slug: &str, name: &str, kind: ItemKind, files: &[(&str, &str)]) {
    let mut manifest = Vec::new();
    for (path, text) in files {
        let sha256 = hex::encode(sha2::Sha256::digest(text.as_bytes()));
        ana.put_blob(slug, &sha256, text.as_bytes().to_vec()).await.unwrap();
        manifest.push(ManifestFile { path: path.to_string(), size: text.len() as u64, sha256 });
    }
    let card = CardUpdate {
        title: Some(format!("The {name}")),
        description: Some("What it does".into()),
        tags: Some(vec!["mail".into()]),
        ..Default::default()
    };
    let publish = Publish {
        kind,
        subtype: None,
        version: None,
        files: manifest,
        card,
        requires: None,
        dry_run: false,
    };
    ana.publish(slug, name, &publish).await.unwrap_or_else(|e| panic!("publish {name}: {e}"));
}

fn gmail(version: &str, body: &str) -> Vec<(&'static str, String)> {
    vec![
        (
            "cowork.json",
            format!(r#"{{"name": "gmail", "version": "{version}", "entry": "gmail.jsx"}}"#),
        ),
        ("gmail.jsx", body.to_string()),
    ]
}

async fn publish_gmail(ana: &HubClient, version: &str, body: &str) {
    let files = gmail(version, body);
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    publish(ana, "acme-apps", "gmail", ItemKind::App, &files).await;
}

/// A hub on `backend` where Ana owns `acme-apps` and Bob is a member; Bob's daemon signed in as Bob (as
/// `cowork login` leaves it), and Bob's empty workspace.
async fn acme(backend: Backend) -> (TestHub, HubClient, Daemon, tempfile::TempDir) {
    let hub = test_support::start(backend, |_| {}).await;
    let ana = hub.signed_in("ana@example.com", PASSWORD).await;
    drop(hub.signed_in("bob@example.com", PASSWORD).await);
    let created = ana.create_team_server(&test_support::private_team_server("Acme apps")).await;
    assert_eq!(created.unwrap().slug, "acme-apps");
    let add = MemberAdd { email: "bob@example.com".into(), admin: false };
    ana.add_member("acme-apps", &add).await.unwrap();
    let daemon = daemon();
    let root = cowork_core::paths::Root::new(daemon._home.path());
    cowork_secrets::init_key_file(&root).unwrap();
    let session = daemon.state.account.session();
    cowork_account::login::password(session, &hub.url, "bob@example.com", PASSWORD).await.unwrap();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(workspace.path().join(".cowork/apps")).unwrap();
    (hub, ana, daemon, workspace)
}

impl Daemon {
    async fn store_get(&self, path: &str) -> (StatusCode, Value) {
        self.ask(get(path, &[("host", HOST), OWNER])).await
    }

    async fn store_post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.ask(post(path, &body.to_string())).await
    }
}

fn ws(workspace: &tempfile::TempDir) -> String {
    workspace.path().display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn manage_workspace_installs_lists_updates_with_a_choice_pins_and_removes() {
    // On both hub back ends: each store call goes through the hub and its object store.
    for backend in Backend::BOTH {
        let (_hub, ana, daemon, workspace) = acme(backend).await;
        let w = ws(&workspace);
        publish_gmail(&ana, "1.0.0", "export default () => 'inbox'\n").await;

        let (status, installed) = daemon
            .store_post("/api/store/install", json!({ "workspace": w, "item": "acme-apps/gmail" }))
            .await;
        assert_eq!(status, StatusCode::OK, "{installed}");
        assert_eq!(installed["dir"], ".cowork/apps/gmail");
        assert_eq!(
            (installed["version"].as_str(), installed["pinned"].as_bool()),
            (Some("1.0.0"), Some(false))
        );
        assert_eq!(installed["verified"], true);
        let jsx = workspace.path().join(".cowork/apps/gmail/gmail.jsx");
        assert_eq!(std::fs::read_to_string(&jsx).unwrap(), "export default () => 'inbox'\n");

        let apps = format!("/api/store/apps?workspace={w}");
        let (status, listed) = daemon.store_get(&apps).await;
        assert_eq!(status, StatusCode::OK, "{listed}");
        let app = &listed["apps"][0];
        assert_eq!(app["source"], "acme-apps@1.0.0", "{listed}");
        assert_eq!(
            (app["teamServer"].as_str(), app["version"].as_str()),
            (Some("acme-apps"), Some("1.0.0"))
        );
        assert_eq!(
            (app["updateAvailable"].as_bool(), app["pinned"].as_bool()),
            (Some(false), Some(false))
        );
        assert_eq!(
            (listed["edited"].as_u64(), listed["unreachable"].clone()),
            (Some(0), json!([]))
        );

        // Ana publishes 1.0.1; Bob edited his copy meanwhile: "update available", and the icon counts it.
        publish_gmail(&ana, "1.0.1", "export default () => 'inbox v2'\n").await;
        std::fs::write(&jsx, "export default () => 'mine'\n").unwrap();
        let (_, listed) = daemon.store_get(&apps).await;
        let app = &listed["apps"][0];
        assert_eq!(
            (app["updateAvailable"].as_bool(), app["latest"].as_str()),
            (Some(true), Some("1.0.1")),
            "{listed}"
        );
        assert_eq!(
            (app["edited"].clone(), listed["edited"].as_u64()),
            (json!(["gmail.jsx"]), Some(1))
        );

        // An update of an edited app needs a choice, named as the CLI names it; nothing changes.
        let update = |choice: Value| json!({ "workspace": w, "app": "gmail", "choice": choice });
        let (status, refused) = daemon.store_post("/api/store/update", update(Value::Null)).await;
        assert_eq!(status, StatusCode::CONFLICT, "{refused}");
        assert_eq!(refused["error"]["name"], "Edited", "{refused}");
        assert!(refused["error"]["hint"].as_str().unwrap().contains("--keep-both"), "{refused}");
        assert_eq!(std::fs::read_to_string(&jsx).unwrap(), "export default () => 'mine'\n");

        // Keep both: the new version whole beside it, switched off; Bob's stays.
        let (status, kept) =
            daemon.store_post("/api/store/update", update(json!("keep-both"))).await;
        assert_eq!(status, StatusCode::OK, "{kept}");
        assert_eq!(
            (kept["outcome"].as_str(), kept["copy"].as_str()),
            (Some("keptBoth"), Some(".cowork/apps/gmail-v1-0-1")),
            "{kept}"
        );
        let copy = workspace.path().join(".cowork/apps/gmail-v1-0-1/gmail.jsx");
        assert_eq!(std::fs::read_to_string(copy).unwrap(), "export default () => 'inbox v2'\n");
        assert_eq!(std::fs::read_to_string(&jsx).unwrap(), "export default () => 'mine'\n");

        // Pin, then unpin: the receipt says so, and the list shows it.
        let pin =
            |pinned: bool| json!({ "workspace": w, "app": ".cowork/apps/gmail", "pinned": pinned });
        let (status, pinned) = daemon.store_post("/api/store/pin", pin(true)).await;
        assert_eq!(status, StatusCode::OK, "{pinned}");
        assert_eq!(
            pinned,
            json!({ "dir": ".cowork/apps/gmail", "version": "1.0.0", "pinned": true })
        );
        let (_, listed) = daemon.store_get(&apps).await;
        let gmail = listed["apps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["dir"] == ".cowork/apps/gmail")
            .unwrap();
        assert_eq!(gmail["pinned"], true, "{listed}");
        let (_, unpinned) = daemon.store_post("/api/store/pin", pin(false)).await;
        assert_eq!(unpinned["pinned"], false);

        // Replace: the store wins.
        let (status, replaced) =
            daemon.store_post("/api/store/update", update(json!("replace"))).await;
        assert_eq!(status, StatusCode::OK, "{replaced}");
        assert_eq!(
            (replaced["outcome"].as_str(), replaced["to"].as_str()),
            (Some("updated"), Some("1.0.1")),
            "{replaced}"
        );
        assert_eq!(std::fs::read_to_string(&jsx).unwrap(), "export default () => 'inbox v2'\n");

        // Remove: what Bob added is kept.
        std::fs::write(workspace.path().join(".cowork/apps/gmail/notes.md"), "mine\n").unwrap();
        let (status, removed) =
            daemon.store_post("/api/store/remove", json!({ "workspace": w, "app": "gmail" })).await;
        assert_eq!(status, StatusCode::OK, "{removed}");
        assert_eq!(
            (removed["added"].clone(), removed["folderRemoved"].as_bool()),
            (json!(["notes.md"]), Some(false)),
            "{removed}"
        );
        assert!(!jsx.exists());

        // A local app is the person's own: not the store's to update, pin or remove.
        let (status, local) = daemon
            .store_post(
                "/api/store/pin",
                json!({ "workspace": w, "app": "gmail-v1-0-1-x", "pinned": true }),
            )
            .await;
        assert_eq!(
            (status, local["error"]["name"].as_str()),
            (StatusCode::CONFLICT, Some("NotInstalled")),
            "{local}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_team_servers_page_browses_cards_and_versions_and_create_scaffolds_a_template() {
    // On both hub back ends: each store call goes through the hub and its object store.
    for backend in Backend::BOTH {
        let (_hub, ana, daemon, workspace) = acme(backend).await;
        let w = ws(&workspace);
        publish_gmail(&ana, "1.0.0", "export default () => 'inbox'\n").await;
        publish_gmail(&ana, "1.0.1", "export default () => 'inbox v2'\n").await;
        daemon
            .store_post(
                "/api/store/install",
                json!({ "workspace": w, "item": "acme-apps/gmail@1.0.0" }),
            )
            .await;

        let (status, cards) =
            daemon.store_get(&format!("/api/store/items?teamServer=acme-apps&workspace={w}")).await;
        assert_eq!(status, StatusCode::OK, "{cards}");
        let card = &cards["cards"][0];
        assert_eq!(
            (card["name"].as_str(), card["title"].as_str(), card["version"].as_str()),
            (Some("gmail"), Some("The gmail"), Some("1.0.1")),
            "{cards}"
        );
        assert_eq!(
            (card["description"].as_str(), card["tags"].clone()),
            (Some("What it does"), json!(["mail"]))
        );
        assert_eq!(
            card["installed"],
            json!({ "dir": ".cowork/apps/gmail", "version": "1.0.0", "pinned": true }),
            "a version named pins"
        );
        let (status, versions) =
            daemon.store_get("/api/store/versions?teamServer=acme-apps&name=gmail").await;
        assert_eq!(status, StatusCode::OK, "{versions}");
        let listed: Vec<&str> = versions["versions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["version"].as_str().unwrap())
            .collect();
        assert_eq!(listed, ["1.0.1", "1.0.0"], "newest first");
        let (status, missing) =
            daemon.store_get("/api/store/versions?teamServer=acme-apps&name=nope").await;
        assert_eq!(
            (status, missing["error"]["name"].as_str()),
            (StatusCode::NOT_FOUND, Some("NotFound")),
            "{missing}"
        );

        // The Create menu: the built-in templates (no network needed for them), scaffolded once.
        let (status, templates) = daemon.store_get("/api/store/templates").await;
        assert_eq!(status, StatusCode::OK, "{templates}");
        assert!(
            templates["templates"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["store"] == "cowork" && t["name"] == "app-sidebar-workbench"),
            "{templates}"
        );
        let scaffold = json!({ "workspace": w, "template": "cowork/app-sidebar-workbench", "name": "clients" });
        let (status, done) =
            daemon.store_post("/api/store/templates/scaffold", scaffold.clone()).await;
        assert_eq!(status, StatusCode::OK, "{done}");
        assert_eq!(
            (done["dir"].as_str(), done["subtype"].as_str()),
            (Some(".cowork/apps/clients"), Some("app"))
        );
        let manifest = workspace.path().join(".cowork/apps/clients/cowork.json");
        let written = std::fs::read_to_string(&manifest).unwrap();
        assert!(written.contains("\"clients\""), "{written}");
        // Again: a target exists, nothing is written.
        std::fs::write(&manifest, "edited\n").unwrap();
        let (status, again) = daemon.store_post("/api/store/templates/scaffold", scaffold).await;
        assert_eq!(
            (status, again["error"]["name"].as_str()),
            (StatusCode::CONFLICT, Some("AlreadyExists")),
            "{again}"
        );
        assert_eq!(std::fs::read_to_string(&manifest).unwrap(), "edited\n");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_that_lead_outside_the_workspace_and_foreign_tokens_are_refused() {
    // On both hub back ends: each store call goes through the hub and its object store.
    for backend in Backend::BOTH {
        let (_hub, ana, daemon, workspace) = acme(backend).await;
        let w = ws(&workspace);
        publish_gmail(&ana, "1.0.0", "export default () => 'inbox'\n").await;
        // Something outside the workspace's apps that a path-escaping name would reach.
        let outside = workspace.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("keep.txt"), "keep\n").unwrap();

        for item in
            ["acme-apps/../outside", "acme-apps/..", "../acme-apps/gmail", "acme-apps/gmail@latest"]
        {
            let (status, body) = daemon
                .store_post("/api/store/install", json!({ "workspace": w, "item": item }))
                .await;
            assert_eq!(
                (status, body["error"]["name"].as_str()),
                (StatusCode::BAD_REQUEST, Some("BadRequest")),
                "{item}: {body}"
            );
        }
        for app in ["../../outside", "../outside", ".", "..", "/etc"] {
            for path in ["/api/store/remove", "/api/store/update", "/api/store/pin"] {
                let body = json!({ "workspace": w, "app": app, "pinned": true });
                let (status, answer) = daemon.store_post(path, body).await;
                assert_eq!(
                    (status, answer["error"]["name"].as_str()),
                    (StatusCode::CONFLICT, Some("NotInstalled")),
                    "{path} {app}: {answer}"
                );
            }
        }
        let scaffold = json!({ "workspace": w, "template": "cowork/app-sidebar-workbench", "name": "../outside" });
        let (status, body) = daemon.store_post("/api/store/templates/scaffold", scaffold).await;
        assert_eq!(
            (status, body["error"]["name"].as_str()),
            (StatusCode::BAD_REQUEST, Some("BadRequest")),
            "{body}"
        );
        assert_eq!(std::fs::read_to_string(outside.join("keep.txt")).unwrap(), "keep\n");

        // Only the owner: no token, another token, a pane's token are refused before anything runs.
        let install = json!({ "workspace": w, "item": "acme-apps/gmail" }).to_string();
        for token in [None, Some("Bearer wrong"), Some("Bearer owner-toke")] {
            let mut request = Request::post("/api/store/install")
                .header("host", HOST)
                .header("content-type", "application/json");
            if let Some(token) = token {
                request = request.header("authorization", token);
            }
            let (status, body) =
                daemon.ask(request.body(Body::from(install.clone())).unwrap()).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{token:?}: {body}");
            let (status, _) =
                daemon.ask(get(&format!("/api/store/apps?workspace={w}"), &[("host", HOST)])).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED);
        }
        assert!(!workspace.path().join(".cowork/apps/gmail").exists(), "nothing was installed");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_academy_lists_subscribed_courses_and_keeps_progress() {
    // On both hub back ends: each store call goes through the hub and its object store.
    for backend in Backend::BOTH {
        let (hub, ana, daemon, workspace) = acme(backend).await;
        let w = ws(&workspace);
        let course = "---\ntitle: Getting started\nlessons: [welcome, apps]\n---\nLearn Cowork.\n";
        let files = [
            ("course.md", course),
            ("01-welcome/lesson.md", "---\ntitle: Welcome\nvideo: https://youtu.be/abc\n---\nHi\n"),
            ("02-apps/lesson.md", "---\ntitle: Apps\n---\nApps\n"),
        ];
        publish(&ana, "acme-apps", "getting-started", ItemKind::Course, &files).await;
        let bob = hub.client().with_token(
            hub.client()
                .sign_in_password(&cowork_wire::hub::PasswordSignIn {
                    email: "bob@example.com".into(),
                    password: PASSWORD.into(),
                    device_id: None,
                    device_name: None,
                })
                .await
                .unwrap()
                .access_token,
        );
        bob.subscribe("acme-apps", "getting-started").await.unwrap();

        let (status, courses) = daemon.store_get("/api/store/courses").await;
        assert_eq!(status, StatusCode::OK, "{courses}");
        assert_eq!(
            (
                courses["subscriptions"][0]["course"].as_str(),
                courses["subscriptions"][0]["teamServer"].as_str()
            ),
            (Some("getting-started"), Some("acme-apps")),
            "{courses}"
        );

        // The course as the Academy shows it: lessons in their published order, the video with each.
        let (status, view) = daemon
            .store_get(&format!(
                "/api/store/course?teamServer=acme-apps&course=getting-started&workspace={w}"
            ))
            .await;
        assert_eq!(status, StatusCode::OK, "{view}");
        assert_eq!(
            (view["title"].as_str(), view["version"].as_str()),
            (Some("Getting started"), Some("1.0.0")),
            "{view}"
        );
        let lessons: Vec<(&str, &str)> = view["lessons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (l["id"].as_str().unwrap(), l["title"].as_str().unwrap()))
            .collect();
        assert_eq!(lessons, [("welcome", "Welcome"), ("apps", "Apps")]);
        assert_eq!(view["lessons"][0]["video"], "https://youtu.be/abc", "{view}");
        assert_eq!(view["lessons"][1]["body"], "Apps");
        let (status, refused) = daemon
            .store_get(&format!("/api/store/course?teamServer=acme-apps&course=nope&workspace={w}"))
            .await;
        assert_eq!(
            (status, refused["error"]["name"].as_str()),
            (StatusCode::NOT_FOUND, Some("NotFound")),
            "{refused}"
        );

        let done = json!({ "teamServer": "acme-apps", "course": "getting-started", "lesson": "welcome", "done": true });
        let (status, progress) = daemon.store_post("/api/store/progress", done).await;
        assert_eq!(status, StatusCode::OK, "{progress}");
        let (_, progress) = daemon
            .store_get("/api/store/progress?teamServer=acme-apps&course=getting-started")
            .await;
        assert_eq!(progress["lessons"][0]["lesson"], "welcome", "kept by the hub: {progress}");
        let (_, courses) = daemon.store_get("/api/store/courses").await;
        assert_eq!(courses["subscriptions"][0]["lessonsDone"], 1, "{courses}");
    }
}

fn write(workspace: &tempfile::TempDir, rel: &str, text: &str) {
    let path = workspace.path().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn manage_workspace_lists_the_workspaces_courses_and_lessons_with_their_problems() {
    // On both hub back ends: each store call goes through the hub and its object store.
    for backend in Backend::BOTH {
        let (_hub, _ana, daemon, workspace) = acme(backend).await;
        let w = ws(&workspace);
        write(&workspace, ".cowork/courses/onboarding/course.md", "---\ntitle: Sales Onboarding\nlevel: Beginner\nlessons: welcome, first-steps\n---\nEverything a new rep needs.\n");
        write(
            &workspace,
            ".cowork/lessons/welcome/lesson.md",
            "---\ntitle: Welcome\nminutes: 5\nvideo: https://youtu.be/abc\n---\nHi\n",
        );
        write(
            &workspace,
            ".cowork/lessons/first-steps/lesson.md",
            "---\ntitle: First steps\n---\nGo\n",
        );
        // A broken course: a folder name that is not a store name, a lesson that is not there.
        write(
            &workspace,
            ".cowork/courses/Bad <b>Name/course.md",
            "---\ntitle: Broken\nlessons: welcome, missing\n---\n",
        );
        write(&workspace, ".cowork/lessons/draft/lesson.md", "---\ntitle: A draft\n---\n");
        // A course folder that is a link to somewhere else is not read.
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(outside.path().join("secret")).unwrap();
        std::fs::write(outside.path().join("secret/course.md"), "---\ntitle: Secret\n---\n")
            .unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            outside.path().join("secret"),
            workspace.path().join(".cowork/courses/linked"),
        )
        .unwrap();

        let path = format!("/api/store/workspace-courses?workspace={w}");
        let (status, listed) = daemon.store_get(&path).await;
        assert_eq!(status, StatusCode::OK, "{listed}");
        let names: Vec<&str> = listed["courses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Bad <b>Name", "onboarding"], "{listed}");
        let good = &listed["courses"][1];
        assert_eq!(
            (good["title"].as_str(), good["level"].as_str(), good["path"].as_str()),
            (
                Some("Sales Onboarding"),
                Some("Beginner"),
                Some(".cowork/courses/onboarding/course.md")
            )
        );
        assert_eq!(good["problems"], json!([]), "{good}");
        assert_eq!(
            good["lessons"],
            json!([
                { "id": "welcome", "path": ".cowork/lessons/welcome/lesson.md", "title": "Welcome", "minutes": 5, "video": "https://youtu.be/abc" },
                { "id": "first-steps", "path": ".cowork/lessons/first-steps/lesson.md", "title": "First steps", "minutes": null, "video": null },
            ])
        );
        let bad = &listed["courses"][0];
        assert_eq!(bad["title"], "Broken");
        let problems: Vec<(&str, &str)> = bad["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["file"].as_str().unwrap(), p["message"].as_str().unwrap()))
            .collect();
        assert_eq!(
            problems,
            [
                (
                    ".cowork/courses/Bad <b>Name",
                    "the folder name is the course's store name: lowercase letters, digits and -"
                ),
                (
                    ".cowork/lessons/missing/lesson.md",
                    "the lesson \"missing\" on the `lessons:` line has no lesson.md"
                ),
            ],
            "{bad}"
        );
        // A lesson no course lists is listed on its own.
        assert_eq!(listed["lessons"][0]["id"], "draft", "{listed}");
        assert_eq!(listed["lessons"][0]["title"], "A draft");
        assert_eq!(listed["lessons"].as_array().unwrap().len(), 1, "{listed}");

        // Only the owner.
        let (status, _) = daemon.ask(get(&path, &[("host", HOST)])).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_card_subscribes_to_a_course_and_unsubscribes() {
    // On both hub back ends: each store call goes through the hub and its object store.
    for backend in Backend::BOTH {
        let (_hub, ana, daemon, _workspace) = acme(backend).await;
        let files = [
            ("course.md", "---\ntitle: Getting started\nlessons: [welcome]\n---\nLearn.\n"),
            ("01-welcome/lesson.md", "---\ntitle: Welcome\n---\nHi\n"),
        ];
        publish(&ana, "acme-apps", "getting-started", ItemKind::Course, &files).await;
        let subscribe = |subscribed: bool| json!({ "teamServer": "acme-apps", "course": "getting-started", "subscribed": subscribed });
        let (status, list) = daemon.store_post("/api/store/subscription", subscribe(true)).await;
        assert_eq!(status, StatusCode::OK, "{list}");
        assert_eq!(list["subscriptions"][0]["course"], "getting-started", "{list}");
        let (_, courses) = daemon.store_get("/api/store/courses").await;
        assert_eq!(
            courses["subscriptions"][0]["teamServer"], "acme-apps",
            "the Academy: {courses}"
        );
        let (status, list) = daemon.store_post("/api/store/subscription", subscribe(false)).await;
        assert_eq!(status, StatusCode::OK, "{list}");
        assert_eq!(list["subscriptions"], json!([]), "{list}");

        let nope = json!({ "teamServer": "acme-apps", "course": "nope", "subscribed": true });
        let (status, body) = daemon.store_post("/api/store/subscription", nope).await;
        assert_eq!(
            (status, body["error"]["name"].as_str()),
            (StatusCode::NOT_FOUND, Some("NotFound")),
            "{body}"
        );
        for course in ["../getting-started", "a/b", ""] {
            let hostile =
                json!({ "teamServer": "acme-apps", "course": course, "subscribed": true });
            let (status, body) = daemon.store_post("/api/store/subscription", hostile).await;
            assert_eq!(
                (status, body["error"]["name"].as_str()),
                (StatusCode::BAD_REQUEST, Some("BadRequest")),
                "{course}: {body}"
            );
        }
    }
}
