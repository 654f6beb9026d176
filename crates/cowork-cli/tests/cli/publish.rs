//! `cowork publish` (page 05) against a real hub: a package written to a file when no team server
//! is named (and nothing on `--dry-run`); several `--team-server`s each answering on its own row,
//! one failing without stopping the others; the version the server assigns, or `--version`; card
//! fields kept on a republish; a member who is not an admin refused by name.

use crate::hub_support::*;
use crate::support::*;
use crate::team_servers::{with_bob, Two};
use serde_json::Value;

fn settings(env: &Env) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&path_str(&env.ws_path())), "[WS]");
    settings.add_filter(r"\d+ bytes", "[N] bytes");
    settings
}

/// A small workspace to publish: an app and a note.
fn crm(env: &Env) {
    env.app(
        "clients",
        "{\n  \"name\": \"clients\",\n  \"version\": \"1.0.0\",\n  \"entry\": \"clients.jsx\"\n}\n",
        &[("clients.jsx", "export default () => 'clients'\n")],
    );
    std::fs::write(env.file("README.md"), "# CRM\n").unwrap();
}

fn store_item(env: &Env, slug: &str, name: &str) -> Value {
    let store = env.json(&["team-server", "store", slug]);
    store["items"]
        .as_array()
        .and_then(|items| items.iter().find(|i| i["name"] == name).cloned())
        .unwrap_or_else(|| panic!("{name} is not in {slug}'s store: {store}"))
}

#[test]
fn publish_with_no_team_server_writes_the_package_and_a_dry_run_writes_nothing() {
    let env = Env::new(runtimes()[0]);
    crm(&env);
    let out_file = env.ws_path().join("crm.tar.gz");
    let dry = env.run(&["publish", "--name", "crm", "--out", &path_str(&out_file), "--dry-run"]);
    assert!(dry.status.success(), "{}", transcript(&dry));
    assert!(!out_file.exists(), "a dry run wrote the package");
    let out = env.run(&["publish", "--name", "crm", "--out", &path_str(&out_file)]);
    settings(&env).bind(|| {
        insta::assert_snapshot!("publish_dry_run", transcript(&dry));
        insta::assert_snapshot!("publish_to_a_file", transcript(&out));
    });
    // A gzipped tar: manifest.json, then every file under files/ (read with the system's tar).
    let listed = std::process::Command::new("tar").arg("-tzf").arg(&out_file).output().unwrap();
    assert!(listed.status.success(), "{}", transcript(&listed));
    let mut names: Vec<String> = stdout(&listed).lines().map(String::from).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "files/.cowork/apps/clients/clients.jsx",
            "files/.cowork/apps/clients/cowork.json",
            "files/README.md",
            "manifest.json"
        ]
    );
    // The owner's only (the workspace's files; the default place is the shared temp folder).
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&out_file).unwrap().permissions().mode() & 0o777, 0o600);
    // A folder as --out gets the package under its own name (it failed: "Is a directory").
    let folder = env.home.path().join("packages");
    std::fs::create_dir(&folder).unwrap();
    let into = env.run(&["publish", "--name", "crm", "--out", &path_str(&folder)]);
    assert!(into.status.success(), "{}", transcript(&into));
    let written: Vec<_> =
        std::fs::read_dir(&folder).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(
        written.len() == 1 && written[0].to_string_lossy().starts_with("cowork-crm-"),
        "{written:?}"
    );

    // Missing --items are reported, not packaged; one item makes a workspace-component.
    let one = env.json(&[
        "publish",
        "--items",
        ".cowork/apps/clients,nope",
        "--name",
        "crm",
        "--dry-run",
    ]);
    assert_eq!(one["missing"], serde_json::json!(["nope"]), "{one}");
    let component = env.json(&["publish", "--items", ".cowork/apps/clients", "--dry-run"]);
    assert_eq!(
        (component["type"].as_str(), component["name"].as_str()),
        (Some("workspace-component"), Some("clients")),
        "{component}"
    );
}

#[test]
fn publish_to_several_team_servers_each_answering_on_its_own() {
    for backend in Backend::BOTH {
        let Two { hub: _hub, ana, bob } = with_bob(backend);
        let two = ana.json(&["team-server", "create", "Acme two"]);
        assert_eq!(two["slug"], "acme-two", "{backend:?}: {two}");
        crm(&ana);

        // Two team servers take it; one Ana does not belong to fails on its own row: exit 1.
        let out = ana.run(&[
            "publish",
            "--name",
            "crm",
            "--type",
            "workspace",
            "--team-server",
            "acme-apps",
            "--team-server",
            "nowhere",
            "--team-server",
            "acme-two",
            "--title",
            "CRM",
            "--tags",
            "sales,clients",
        ]);
        assert_eq!(out.status.code(), Some(1), "{backend:?}: {}", transcript(&out));
        if backend == Backend::Sqlite {
            settings(&ana).bind(|| insta::assert_snapshot!("publish_to_three", transcript(&out)));
        }
        assert_eq!(store_item(&ana, "acme-two", "crm")["version"], "1.0.0");

        // The same files: up to date. A changed file: the server's next version. A dry run says
        // what it would do and publishes nothing.
        let again = ana.run(&["publish", "--name", "crm", "--team-server", "acme-apps"]);
        assert!(
            stdout(&again).ends_with("acme-apps: up to date crm v1.0.0\n"),
            "{}",
            transcript(&again)
        );
        std::fs::write(ana.file("README.md"), "# CRM, better\n").unwrap();
        let dry = ana.run(&["publish", "--name", "crm", "--team-server", "acme-apps", "--dry-run"]);
        assert!(
            stdout(&dry).ends_with("acme-apps: would publish crm v1.0.1\n"),
            "{}",
            transcript(&dry)
        );
        assert_eq!(store_item(&ana, "acme-apps", "crm")["version"], "1.0.0");
        let next = ana.json(&[
            "publish",
            "--name",
            "crm",
            "--team-server",
            "acme-apps",
            "--description",
            "Our clients",
        ]);
        assert_eq!(next["teamServers"][0]["version"], "1.0.1", "{backend:?}: {next}");
        // The card keeps what the republish did not state.
        let item = store_item(&ana, "acme-apps", "crm");
        assert_eq!(
            (&item["title"], &item["description"], &item["tags"]),
            (&"CRM".into(), &"Our clients".into(), &serde_json::json!(["sales", "clients"])),
            "{item}"
        );

        // --version pins one.
        std::fs::write(ana.file("README.md"), "# CRM 2\n").unwrap();
        let pinned = ana.json(&[
            "publish",
            "--name",
            "crm",
            "--team-server",
            "acme-apps",
            "--version",
            "2.0.0",
        ]);
        assert_eq!(pinned["teamServers"][0]["version"], "2.0.0", "{backend:?}: {pinned}");

        // Bob is a member, not an admin: refused by name, nothing published.
        crm(&bob);
        let refused =
            bob.run(&["publish", "--name", "crm", "--team-server", "acme-apps", "--json"]);
        assert_eq!(refused.status.code(), Some(1), "{}", transcript(&refused));
        let line: Value = serde_json::from_str(stdout(&refused).trim()).unwrap();
        assert_eq!(line["teamServers"][0]["error"]["name"], "NotAdmin", "{line}");
    }
}

#[test]
fn team_server_install_takes_a_workspace_untracked_and_a_component_tracked() {
    let Two { hub: _hub, ana, bob } = with_bob(Backend::Sqlite);
    crm(&ana);
    let ok = |out: std::process::Output| {
        assert!(out.status.success(), "{}", transcript(&out));
        stdout(&out)
    };
    ok(ana.run(&["publish", "--name", "crm", "--team-server", "acme-apps"]));
    let component =
        ok(ana.run(&["publish", "--items", ".cowork/apps/clients", "--team-server", "acme-apps"]));
    assert!(component.ends_with("acme-apps: published clients v1.0.0\n"), "{component}");

    // A workspace: its files into --dir (made when missing), untracked.
    let into = bob.ws_path().join("crm-copy");
    let out = ok(bob.run(&["team-server", "install", "acme-apps/crm", "--dir", &path_str(&into)]));
    assert!(out.contains("Installed the workspace acme-apps/crm@1.0.0"), "{out}");
    assert_eq!(std::fs::read_to_string(into.join("README.md")).unwrap(), "# CRM\n");
    assert!(into.join(".cowork/apps/clients/clients.jsx").is_file());
    // Again: a file is there, nothing is written.
    std::fs::write(into.join("README.md"), "# mine\n").unwrap();
    let again =
        bob.run(&["team-server", "install", "acme-apps/crm", "--dir", &path_str(&into), "--json"]);
    assert_eq!(again.status.code(), Some(1), "{}", transcript(&again));
    assert_eq!(crate::team_servers::error_name(&again), "AlreadyExists");
    assert_eq!(std::fs::read_to_string(into.join("README.md")).unwrap(), "# mine\n");

    // A workspace-component: into .cowork/apps/<name>/, followed like an app install.
    std::fs::create_dir_all(bob.file(".cowork/apps")).unwrap();
    let out = ok(bob.run(&["team-server", "install", "acme-apps/clients"]));
    assert_eq!(
        out,
        "Installed acme-apps/clients@1.0.0 in .cowork/apps/clients/ (follows the store).\n"
    );
    let listed = bob.json(&["app", "list"]);
    assert_eq!(listed["sources"][".cowork/apps/clients"], "acme-apps@1.0.0 (auto)", "{listed}");
}

/// Page 11's files: a course listing two lessons, one with a picture.
fn onboarding(env: &Env, lessons: &str) {
    let files = [
        (
            ".cowork/courses/onboarding/course.md",
            format!("---\ntitle: Sales Onboarding\nlevel: Beginner\nlessons: {lessons}\n---\nEverything a new rep needs.\n"),
        ),
        (
            ".cowork/lessons/welcome/lesson.md",
            "---\ntitle: Welcome\nminutes: 3\n---\nHello.\n\n![Home](home.png)\n".to_string(),
        ),
        (".cowork/lessons/welcome/home.png", "png".to_string()),
        (
            ".cowork/lessons/first-call/lesson.md",
            "---\ntitle: Your first call\nvideo: https://www.youtube.com/watch?v=M7lc1UVf-VE\n---\n## Before\nRead the notes.\n".to_string(),
        ),
    ];
    for (rel, text) in files {
        let path = env.file(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

#[test]
fn a_course_is_checked_published_and_subscribed() {
    let Two { hub: _hub, ana, bob } = with_bob(Backend::Sqlite);
    // A lesson the line lists that is not there: the dry run names the file.
    onboarding(&ana, "welcome, first-call, missing");
    let bad = ana.run(&["publish", ".cowork/courses/onboarding", "--dry-run"]);
    assert_eq!(bad.status.code(), Some(1), "{}", transcript(&bad));
    assert!(
        stderr(&bad).contains(".cowork/lessons/missing/lesson.md: the lesson \"missing\""),
        "{}",
        transcript(&bad)
    );

    onboarding(&ana, "welcome, first-call");
    let dry = ana.run(&["publish", ".cowork/courses/onboarding", "--dry-run"]);
    let out = ana.run(&["publish", ".cowork/courses/onboarding", "--team-server", "acme-apps"]);
    settings(&ana).bind(|| {
        insta::assert_snapshot!("publish_course_bad", transcript(&bad));
        insta::assert_snapshot!("publish_course_dry_run", transcript(&dry));
        insta::assert_snapshot!("publish_course", transcript(&out));
    });
    assert!(out.status.success());
    let item = store_item(&ana, "acme-apps", "onboarding");
    assert_eq!((&item["kind"], &item["title"]), (&"course".into(), &"Sales Onboarding".into()));

    // A course is subscribed, never installed — nor pinned (a version was ignored).
    let pinned = bob.run(&["team-server", "install", "acme-apps/onboarding@9.9.9", "--json"]);
    assert_eq!(pinned.status.code(), Some(2), "{}", transcript(&pinned));
    assert!(
        stderr(&pinned).contains("a course is followed as it changes, never pinned"),
        "{}",
        transcript(&pinned)
    );
    let subscribed = bob.run(&["team-server", "install", "acme-apps/onboarding"]);
    assert_eq!(
        stdout(&subscribed),
        "Subscribed to the course acme-apps/onboarding: it is in the Academy.\n",
        "{}",
        transcript(&subscribed)
    );
}

#[test]
fn team_server_install_writes_a_workspace_template_untracked_where_nothing_is() {
    let Two { hub: _hub, ana, bob } = with_bob(Backend::Sqlite);
    crm(&ana);
    let out = ana.run(&[
        "publish",
        "--name",
        "crm-starter",
        "--type",
        "template",
        "--subtype",
        "workspace",
        "--team-server",
        "acme-apps",
    ]);
    assert!(out.status.success(), "{}", transcript(&out));
    let item = store_item(&ana, "acme-apps", "crm-starter");
    assert_eq!((&item["kind"], &item["subtype"]), (&"template".into(), &"workspace".into()));

    // Into a new folder (made for it): the template's files as published, renamed nothing.
    let into = bob.ws_path().join("starter");
    let out =
        bob.json(&["team-server", "install", "acme-apps/crm-starter", "--dir", &path_str(&into)]);
    assert_eq!((&out["ok"], &out["type"]), (&true.into(), &"template".into()), "{out}");
    assert_eq!(std::fs::read_to_string(into.join("README.md")).unwrap(), "# CRM\n");
    assert_eq!(
        std::fs::read_to_string(into.join(".cowork/apps/clients/clients.jsx")).unwrap(),
        "export default () => 'clients'\n"
    );
    // Untracked: the app in it is local, no install receipt follows the store.
    let listed = bob.cmd(&["app", "list", "--json"]).current_dir(&into).output().unwrap();
    let listed: Value = serde_json::from_str(stdout(&listed).trim()).unwrap();
    assert_eq!(listed["sources"][".cowork/apps/clients"], "local", "{listed}");

    // Again over it: one of its paths is there, so nothing at all is written.
    std::fs::remove_file(into.join(".cowork/apps/clients/clients.jsx")).unwrap();
    std::fs::write(into.join("README.md"), "# mine\n").unwrap();
    let again = bob.run(&[
        "team-server",
        "install",
        "acme-apps/crm-starter",
        "--dir",
        &path_str(&into),
        "--json",
    ]);
    assert_eq!(again.status.code(), Some(1), "{}", transcript(&again));
    assert_eq!(crate::team_servers::error_name(&again), "AlreadyExists");
    assert_eq!(std::fs::read_to_string(into.join("README.md")).unwrap(), "# mine\n");
    assert!(!into.join(".cowork/apps/clients/clients.jsx").exists(), "nothing was written");
}

#[test]
fn team_server_install_of_a_course_subscribes_once_and_names_one_that_is_not_there() {
    let Two { hub, ana, bob } = with_bob(Backend::Sqlite);
    onboarding(&ana, "welcome, first-call");
    let out = ana.run(&["publish", ".cowork/courses/onboarding", "--team-server", "acme-apps"]);
    assert!(out.status.success(), "{}", transcript(&out));

    let subscribed = bob.json(&["team-server", "install", "acme-apps/onboarding"]);
    assert_eq!(
        (&subscribed["type"], &subscribed["subscribed"], &subscribed["teamServer"]),
        (&"course".into(), &true.into(), &"acme-apps".into()),
        "{subscribed}"
    );
    // Nothing lands in the workspace: a course is read from the store in the Academy.
    assert!(!bob.file(".cowork/courses").exists());
    // Twice is still one subscription, and the hub keeps it for Bob's account.
    let again = bob.run(&["team-server", "install", "acme-apps/onboarding"]);
    assert!(again.status.success(), "{}", transcript(&again));
    let bob_hub = hub.client("bob@example.com");
    let list = hub.block_on(bob_hub.subscriptions()).unwrap();
    let courses: Vec<(&str, &str, Option<&str>)> = list
        .subscriptions
        .iter()
        .map(|s| (s.team_server.as_str(), s.course.as_str(), s.title.as_deref()))
        .collect();
    assert_eq!(courses, [("acme-apps", "onboarding", Some("Sales Onboarding"))]);

    let missing = bob.run(&["team-server", "install", "acme-apps/nope", "--json"]);
    assert_eq!(missing.status.code(), Some(3), "{}", transcript(&missing));
    assert_eq!(crate::team_servers::error_name(&missing), "NotFound");
}
