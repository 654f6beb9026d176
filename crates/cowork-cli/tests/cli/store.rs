//! The store's lifecycle end to end (page 02): two Cowork roots ("machines") signed in to a real
//! hub on both back ends — Ana pushes, Bob installs, Ana pushes again and Bob's clean copy takes
//! it, Bob's edited copy is never overwritten until he chooses, a pin, a withdrawal, a removal that
//! keeps what Bob added, and unpublish (admins only).

use crate::hub_support::*;
use crate::support::*;
use crate::team_servers::{error_name, with_bob, Two};
use serde_json::Value;
use std::path::PathBuf;

/// Ana (owner of `acme-apps`) and Bob (a member), each on a machine of their own, Bob's
/// workspace ready for apps.
fn two(backend: Backend) -> Two {
    let two = with_bob(backend);
    std::fs::create_dir_all(two.bob.file(".cowork/apps")).unwrap();
    two
}

fn manifest(version: &str) -> String {
    format!("{{\n  \"name\": \"gmail\",\n  \"version\": \"{version}\",\n  \"entry\": \"gmail.jsx\"\n}}\n")
}

/// Ana's gmail app at 1.0.0.
fn gmail(env: &Env) {
    env.app(
        "gmail",
        &manifest("1.0.0"),
        &[
            ("gmail.jsx", "export default () => 'inbox'\n"),
            ("lib/format.ts", "export const x = 1;\n"),
        ],
    );
}

fn ok(out: &std::process::Output) -> String {
    assert!(out.status.success(), "{}", transcript(out));
    stdout(out)
}

fn read(env: &Env, rel: &str) -> String {
    std::fs::read_to_string(env.file(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The install receipt of `folder` on `env`'s machine.
fn receipt(env: &Env, folder: &str) -> Option<Value> {
    let root = cowork_core::paths::Root::new(env.home.path());
    let path: PathBuf = cowork_account::reports::receipt_path(&root, &env.ws_path(), folder);
    std::fs::read(path).ok().map(|b| serde_json::from_slice(&b).unwrap())
}

#[test]
fn push_install_update_pin_remove_and_unpublish_between_two_machines() {
    for backend in Backend::BOTH {
        let Two { hub: _hub, ana, bob } = two(backend);
        gmail(&ana);

        // Ana publishes; pushing the same files again uploads nothing.
        let out = ana.run(&["push", ".cowork/apps/gmail", "--to", "acme-apps"]);
        assert_eq!(ok(&out), ".cowork/apps/gmail: published v1.0.0 → acme-apps\n", "{backend:?}");
        let out = ana.run(&["push", ".cowork/apps/gmail"]);
        assert_eq!(ok(&out), ".cowork/apps/gmail: up to date v1.0.0 → acme-apps\n", "{backend:?}");

        // Bob installs it: the same files, a receipt naming the store and version.
        let installed = bob.json(&["app", "install", "acme-apps/gmail"]);
        assert_eq!(installed["version"], "1.0.0", "{backend:?}: {installed}");
        assert_eq!(
            (installed["pinned"].clone(), installed["verified"].clone()),
            (false.into(), true.into())
        );
        assert_eq!(installed["blobs"], 3);
        assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'inbox'\n");
        assert_eq!(read(&bob, ".cowork/apps/gmail/lib/format.ts"), "export const x = 1;\n");
        let listed = bob.json(&["app", "list"]);
        assert_eq!(listed["sources"][".cowork/apps/gmail"], "acme-apps@1.0.0 (auto)", "{listed}");
        let ana_listed = ana.json(&["app", "list"]);
        assert_eq!(ana_listed["sources"][".cowork/apps/gmail"], "acme-apps@1.0.0 (auto)");
        let r = receipt(&bob, "gmail").expect("an install receipt");
        assert_eq!(
            (r["store"].as_str(), r["version"].as_str()),
            (Some("acme-apps"), Some("1.0.0"))
        );

        // Ana changes a file and pushes (to the store her copy now follows): the patch is bumped
        // and written back to her cowork.json.
        std::fs::write(
            ana.file(".cowork/apps/gmail/gmail.jsx"),
            "export default () => 'inbox v2'\n",
        )
        .unwrap();
        let out = ana.run(&["push", ".cowork/apps/gmail"]);
        assert_eq!(
            ok(&out),
            ".cowork/apps/gmail: bumped v1.0.0 → v1.0.1 → acme-apps\n",
            "{backend:?}"
        );
        assert!(read(&ana, ".cowork/apps/gmail/cowork.json").contains("\"version\": \"1.0.1\""));

        // Bob's clean copy takes it: only the changed files travel (gmail.jsx, cowork.json).
        let out = bob.run(&["app", "update"]);
        assert_eq!(
            ok(&out),
            ".cowork/apps/gmail: updated v1.0.0 → v1.0.1 (2 files downloaded)\n",
            "{backend:?}"
        );
        assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'inbox v2'\n");

        // Bob edits his copy; Ana's next version never overwrites it.
        std::fs::write(bob.file(".cowork/apps/gmail/gmail.jsx"), "export default () => 'mine'\n")
            .unwrap();
        std::fs::write(
            ana.file(".cowork/apps/gmail/gmail.jsx"),
            "export default () => 'inbox v3'\n",
        )
        .unwrap();
        ok(&ana.run(&["push"]));
        let out = bob.run(&["app", "update"]);
        assert!(
            ok(&out).contains("v1.0.2 is out, but you edited gmail.jsx"),
            "{backend:?}: {}",
            transcript(&out)
        );
        let out = bob.run(&["app", "update", "gmail", "--json"]);
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        assert_eq!(error_name(&out), "Edited");
        assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'mine'\n");

        // Keep both: his copy stays; the new version lands whole beside it, switched off.
        let out = bob.run(&["app", "update", "gmail", "--keep-both"]);
        assert_eq!(
            ok(&out),
            ".cowork/apps/gmail: kept yours; v1.0.2 is in .cowork/apps/gmail-v1-0-2/, switched off\n",
            "{backend:?}"
        );
        assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'mine'\n");
        assert_eq!(
            read(&bob, ".cowork/apps/gmail-v1-0-2/gmail.jsx"),
            "export default () => 'inbox v3'\n"
        );
        assert!(read(&bob, ".cowork/workspace.json").contains(".cowork/apps/gmail-v1-0-2"));
        // The dismissed version is not asked again by a plain update.
        let out = bob.run(&["app", "update"]);
        assert!(
            ok(&out).contains(".cowork/apps/gmail: v1.0.2 was dismissed\n"),
            "{}",
            transcript(&out)
        );

        // Replace: the store wins; a file Bob added is never touched.
        std::fs::write(bob.file(".cowork/apps/gmail/notes.md"), "my notes\n").unwrap();
        let out = bob.run(&["app", "update", "gmail", "--replace"]);
        assert!(
            ok(&out).starts_with(".cowork/apps/gmail: updated v1.0.1 → v1.0.2"),
            "{}",
            transcript(&out)
        );
        assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'inbox v3'\n");
        assert_eq!(read(&bob, ".cowork/apps/gmail/notes.md"), "my notes\n");

        // A version named pins it: a plain update leaves it, and it survives its withdrawal.
        let pinned = bob.json(&["app", "install", "acme-apps/gmail@1.0.1"]);
        assert_eq!(
            (pinned["version"].as_str(), pinned["pinned"].as_bool()),
            (Some("1.0.1"), Some(true)),
            "{pinned}"
        );
        // `app list` says a newer version is out, for a pinned app too (page 05).
        let listed = ok(&bob.run(&["app", "list"]));
        assert!(listed.contains("acme-apps@1.0.1 (pinned), v1.0.2 out"), "{backend:?}: {listed}");
        let newer = bob.json(&["app", "list"])["newer"].clone();
        assert_eq!(newer, serde_json::json!({ ".cowork/apps/gmail": "1.0.2" }));
        std::fs::write(
            ana.file(".cowork/apps/gmail/gmail.jsx"),
            "export default () => 'inbox v4'\n",
        )
        .unwrap();
        ok(&ana.run(&["push"]));
        let out = bob.run(&["app", "update"]);
        assert!(
            ok(&out).contains("pinned at v1.0.1 (v1.0.3 is out"),
            "{backend:?}: {}",
            transcript(&out)
        );
        let out = ana.run(&["app", "unpublish", "acme-apps/gmail@1.0.1", "--yes"]);
        assert_eq!(ok(&out), "Withdrew acme-apps/gmail@1.0.1: installed copies keep working.\n");
        let out = bob.run(&["app", "versions", "acme-apps/gmail"]);
        let listed = ok(&out);
        assert!(listed.contains("withdrawn"), "{listed}");
        assert!(
            listed.contains(".cowork/apps/gmail is at 1.0.1, which acme-apps no longer offers: it keeps working."),
            "{listed}"
        );
        assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'inbox v2'\n");
        // Withdrawn is not installable any more; the latest can never be withdrawn.
        let out = ana.run(&["app", "unpublish", "acme-apps/gmail@1.0.3", "--yes", "--json"]);
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        assert_eq!(error_name(&out), "Conflict");

        // Remove: what is as installed goes, what Bob added stays (and is said).
        let out = bob.run(&["app", "remove", "gmail"]);
        let said = ok(&out);
        assert!(said.contains("Kept .cowork/apps/gmail/notes.md: you added it."), "{said}");
        assert!(!bob.file(".cowork/apps/gmail/gmail.jsx").exists());
        assert!(!bob.file(".cowork/apps/gmail/cowork.json").exists());
        assert_eq!(read(&bob, ".cowork/apps/gmail/notes.md"), "my notes\n");
        assert!(receipt(&bob, "gmail").is_none(), "the receipt goes with it");

        // Unpublish: admins only; then the store publishes nothing.
        let out = bob.run(&["app", "unpublish", "acme-apps/gmail", "--yes", "--json"]);
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        assert_eq!(error_name(&out), "NotAdmin");
        let out = ana.run(&["app", "unpublish", "acme-apps/gmail"]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "without --yes nothing is deleted: {}",
            transcript(&out)
        );
        ok(&ana.run(&["app", "unpublish", "acme-apps/gmail", "--yes"]));
        assert_eq!(
            ok(&ana.run(&["team-server", "store", "acme-apps"])),
            "acme-apps publishes nothing yet.\n"
        );

        // Every lifecycle action left its audit line, on each machine.
        let actions = |env: &Env| -> Vec<String> {
            env.audit_lines()
                .iter()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .filter_map(|l| l["capability"].as_str().map(str::to_owned))
                .filter(|c| c.starts_with("cowork.app."))
                .collect()
        };
        let ana_did = actions(&ana);
        assert!(ana_did.iter().filter(|c| *c == "cowork.app.push").count() >= 4, "{ana_did:?}");
        let bob_did = actions(&bob);
        for capability in ["cowork.app.install", "cowork.app.update", "cowork.app.remove"] {
            assert!(
                bob_did.iter().any(|c| c == capability),
                "{backend:?}: {capability} in {bob_did:?}"
            );
        }
    }
}

#[test]
fn an_update_where_one_of_200_files_changed_moves_that_file_and_cowork_json_only() {
    // Page 02: changed files at a published version bump the patch, written back to cowork.json,
    // so a new version's cowork.json is a new blob too — two blobs, and every other file comes
    // from Bob's cache (issue 42's "an update moves one blob", counted with its manifest).
    let Two { hub: _hub, ana, bob } = two(Backend::Sqlite);
    ana.app_of_files("twohundred", 200);
    ok(&ana.run(&["push", ".cowork/apps/twohundred", "--to", "acme-apps"]));
    let installed = bob.json(&["app", "install", "acme-apps/twohundred"]);
    assert_eq!(installed["blobs"], 200, "{installed}");
    std::fs::write(ana.file(".cowork/apps/twohundred/lib/m07/f0007.ts"), "export const v7 = 8;\n")
        .unwrap();
    assert_eq!(
        ok(&ana.run(&["push"])),
        ".cowork/apps/twohundred: bumped v1.0.0 → v1.0.1 → acme-apps\n"
    );

    let updated = bob.json(&["app", "update", "twohundred"]);
    assert_eq!(updated["apps"][0]["blobs"], 2, "{updated}");
    let cache = cowork_core::paths::Root::new(bob.home.path()).dir().join("store/blobs");
    let cached: usize = std::fs::read_dir(&cache)
        .unwrap()
        .map(|d| std::fs::read_dir(d.unwrap().path()).unwrap().count())
        .sum();
    assert_eq!(cached, 202, "the 200 installed blobs, the changed file and the new cowork.json");
    assert_eq!(read(&bob, ".cowork/apps/twohundred/lib/m07/f0007.ts"), "export const v7 = 8;\n");
    assert!(read(&bob, ".cowork/apps/twohundred/cowork.json").contains("\"version\": \"1.0.1\""));
}

#[test]
fn push_chooses_to_then_the_receipt_then_publish_to_and_remembers_only_a_known_team_server() {
    let Two { hub: _hub, ana, bob: _ } = two(Backend::Sqlite);
    gmail(&ana);
    // No target: refused, naming the team servers Ana has.
    let out = ana.run(&["push", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(line["error"]["name"], "NoTeamServer", "{line}");
    assert!(line["error"]["hint"].as_str().unwrap().contains("acme-apps"), "{line}");
    // An unknown team server is never remembered.
    let out = ana.run(&["push", "--to", "nope", "--remember", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert_eq!(error_name(&out), "NotMember");
    assert!(!ana.file(".cowork/workspace.json").exists());
    // --dry-run writes nothing, not even what --remember would.
    let out = ana.run(&["push", "--to", "acme-apps", "--remember", "--dry-run"]);
    assert_eq!(ok(&out), ".cowork/apps/gmail: would publish v1.0.0 → acme-apps\n");
    assert!(!ana.file(".cowork/workspace.json").exists());
    assert!(receipt(&ana, "gmail").is_none(), "a dry run tracks nothing");
    // Remembered: the workspace's publishTo is the target from then on.
    ok(&ana.run(&["push", "--to", "acme-apps", "--remember"]));
    assert!(read(&ana, ".cowork/workspace.json").contains("\"publishTo\": \"acme-apps\""));
}

#[test]
fn a_tampered_blob_is_refused_by_name_and_nothing_is_written() {
    let Two { hub, ana, bob } = two(Backend::Sqlite);
    gmail(&ana);
    ok(&ana.run(&["push", "--to", "acme-apps"]));
    let sha = cowork_wire::hub::verify::sha256_hex(b"export const x = 1;\n");
    hub.block_on(cowork_hub::test_support::tamper_blob(&hub.hub, &sha, b"steal()\n".to_vec()));
    let out = bob.run(&["app", "install", "acme-apps/gmail", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert_eq!(error_name(&out), "TamperedBlob");
    assert!(!bob.file(".cowork/apps/gmail").exists(), "nothing was written");
    assert!(receipt(&bob, "gmail").is_none());
}

#[test]
fn the_built_in_templates_are_listed_with_no_hub_and_a_wrong_name_points_there() {
    let env = Env::new(runtimes()[0]);
    let out = env.run(&["team-server", "store", "cowork"]);
    let listed = ok(&out);
    assert!(listed.starts_with("NAME "), "{listed}");
    let row = listed.lines().find(|l| l.starts_with("app-sidebar-workbench ")).expect(&listed);
    assert!(row.contains(" template ") && row.contains(" - "), "no date for a built-in: {row}");
    let out = env.run(&["template", "install", "cowork/sidebar", "--name", "clients"]);
    assert_eq!(out.status.code(), Some(3), "{}", transcript(&out));
    assert!(
        stderr(&out).contains("`cowork team-server store cowork`: the built-in templates"),
        "{}",
        stderr(&out)
    );
    // A --name that is not a component's name: the flag is named, not the template.
    let out = env.run(&["template", "install", "cowork/app-sidebar-workbench", "--name", "Bad"]);
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    assert_eq!(
        stderr(&out),
        "error: failed to use \"Bad\" as --name: a component's name is lowercase letters, digits and dashes (^[a-z0-9][a-z0-9-]{0,62}$), not a name .cowork keeps\n"
    );
}

/// The "done when", on both hub back ends: a new user (machine A) runs page 10's first
/// step from the built-in store, publishes the result to a local hub, a second account (machine B)
/// installs it, A changes a file and pushes, and B's daemon updates B's clean copy by itself.
#[test]
fn page_10s_first_step_a_built_in_template_scaffolded_pushed_installed_and_auto_updated() {
    for backend in Backend::BOTH {
        let Two { hub, ana, bob } = two(backend);
        std::fs::create_dir_all(ana.file(".cowork/apps")).unwrap();
        // No hub needed for the built-in store.
        let out =
            ana.run(&["template", "install", "cowork/app-sidebar-workbench", "--name", "clients"]);
        assert!(
            ok(&out).starts_with("Wrote .cowork/apps/clients/ from cowork/app-sidebar-workbench ("),
            "{backend:?}: {}",
            transcript(&out)
        );
        let manifest: Value =
            serde_json::from_str(&read(&ana, ".cowork/apps/clients/cowork.json")).unwrap();
        assert_eq!(manifest["name"], "clients", "{manifest}");
        let entry = format!(".cowork/apps/clients/{}", manifest["entry"].as_str().unwrap());
        // A second scaffold of the same name writes nothing.
        let before = read(&ana, ".cowork/apps/clients/cowork.json");
        let out = ana.run(&[
            "template",
            "install",
            "cowork/app-sidebar-workbench",
            "--name",
            "clients",
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        assert_eq!(error_name(&out), "AlreadyExists");
        assert_eq!(read(&ana, ".cowork/apps/clients/cowork.json"), before);

        // Published to a local hub and installed as a second account: the same files.
        let out = ana.run(&["push", ".cowork/apps/clients", "--to", "acme-apps"]);
        let version = manifest["version"].as_str().unwrap().to_string();
        assert_eq!(ok(&out), format!(".cowork/apps/clients: published v{version} → acme-apps\n"));
        ok(&bob.run(&["app", "install", "acme-apps/clients"]));
        assert_eq!(read(&bob, ".cowork/apps/clients/cowork.json"), before);
        assert_eq!(read(&bob, &entry), read(&ana, &entry), "{backend:?}");

        // Bob's daemon runs; Ana edits the entry, adds a file and pushes (the patch is bumped).
        let daemon = bob.daemon(&[]);
        let edited = format!("{}\n// Our clients, by region.\n", read(&ana, &entry));
        std::fs::write(ana.file(&entry), &edited).unwrap();
        std::fs::write(ana.file(".cowork/apps/clients/NOTES.md"), "# Clients\n\nOur clients.\n")
            .unwrap();
        let out = ana.run(&["push"]);
        assert!(ok(&out).starts_with(".cowork/apps/clients: bumped v"), "{}", transcript(&out));
        let pushed: Value =
            serde_json::from_str(&read(&ana, ".cowork/apps/clients/cowork.json")).unwrap();
        let bumped = pushed["version"].as_str().unwrap().to_string();
        assert_ne!(bumped, version);

        // Bob's daemon hears of it (here asked at once, as its updates poll would every few
        // minutes) and updates the clean copy; its audit line is the update's last step.
        let http = Http { port: daemon.port };
        let (status, body) = http.json(
            "POST",
            "/api/account/changed",
            &bob.owner_token(),
            Some(&serde_json::json!({})),
        );
        assert_eq!(status, 200, "{backend:?}: {body}");
        let updated = || {
            bob.audit_lines()
                .iter()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .find(|l| l["capability"] == "cowork.app.update")
        };
        assert!(
            eventually(std::time::Duration::from_secs(60), || updated().is_some()),
            "{backend:?}: Bob's clean copy was not updated: {:?}",
            bob.audit_lines()
        );
        let line = updated().unwrap();
        assert_eq!(
            (line["context"]["source"].as_str(), line["context"]["appVersion"].as_str()),
            (Some("system"), Some(bumped.as_str())),
            "{line}"
        );
        assert_eq!(read(&bob, &entry), edited, "{backend:?}");
        assert_eq!(read(&bob, ".cowork/apps/clients/NOTES.md"), "# Clients\n\nOur clients.\n");
        let listed = bob.json(&["app", "list"]);
        assert_eq!(
            listed["sources"][".cowork/apps/clients"],
            format!("acme-apps@{bumped} (auto)"),
            "{backend:?}: {listed}"
        );
        drop(daemon);
        drop(hub);
    }
}

/// tests/standin playing `plan` as the model: its URL and its process (killed on drop).
struct Standin {
    url: String,
    child: std::process::Child,
}

impl Standin {
    fn start(plan: Value) -> Standin {
        use std::io::{BufRead, Write};
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/standin");
        assert!(
            dir.join("node_modules/@anthropic-ai/claude-code").is_dir(),
            "the pinned Claude Code is not installed: run `npm ci --prefix tests/standin`"
        );
        let mut child = std::process::Command::new("node")
            .arg(dir.join("standin.mjs"))
            .args(["-", "--quiet"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("node runs the stand-in");
        child.stdin.take().unwrap().write_all(plan.to_string().as_bytes()).unwrap();
        let mut url = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut url).unwrap();
        Standin { url: url.trim().to_string(), child }
    }

    /// `cowork app update <app> --ai-merge` on `env`, `claude` being the pinned CLI against this.
    fn ai_merge(&self, env: &Env, app: &str) -> std::process::Output {
        let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/standin/bin");
        let home = tempfile::tempdir().unwrap();
        let path = std::env::join_paths(
            std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
        )
        .unwrap();
        env.cmd(&["app", "update", app, "--ai-merge"])
            .env("PATH", path)
            .env("STANDIN_URL", &self.url)
            .env("STANDIN_HOME", home.path())
            .output()
            .unwrap()
    }

    /// Every check of the plan held and every turn was asked for.
    fn done(&self, hub: &Hub) {
        let url = format!("{}/_standin/requests", self.url);
        let seen: Value = hub.block_on(async { reqwest::get(url).await?.json().await }).unwrap();
        assert_eq!(seen["failures"], serde_json::json!([]), "the stand-in's checks");
        assert_eq!(seen["turnsLeft"], 0, "turns the model was never asked for");
    }
}

impl Drop for Standin {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Ana's gmail pushed to acme-apps at 1.0.0 and installed on Bob's machine.
fn gmail_installed() -> Two {
    let two = two(Backend::Sqlite);
    gmail(&two.ana);
    ok(&two.ana.run(&["push", ".cowork/apps/gmail", "--to", "acme-apps"]));
    ok(&two.bob.run(&["app", "install", "acme-apps/gmail"]));
    two
}

/// `cowork app update gmail --ai-merge` on `env` with no `claude` on the PATH.
fn no_claude_merge(env: &Env) -> std::process::Output {
    env.cmd(&["app", "update", "gmail", "--ai-merge"]).env("PATH", "/nonexistent").output().unwrap()
}

/// Ana pushes a new version of gmail changing only lib/format.ts (to `x = <n>`).
fn ana_pushes(ana: &Env, n: u32) {
    std::fs::write(
        ana.file(".cowork/apps/gmail/lib/format.ts"),
        format!("export const x = {n};\n"),
    )
    .unwrap();
    ok(&ana.run(&["push"]));
}

#[test]
fn ai_merge_lands_claudes_merge_and_keeps_both_when_claude_is_missing_fails_or_declines() {
    let Two { hub, ana, bob } = gmail_installed();
    std::fs::write(bob.file(".cowork/apps/gmail/gmail.jsx"), "export default () => 'mine'\n")
        .unwrap();
    let mine = || read(&bob, ".cowork/apps/gmail/gmail.jsx");

    // No `claude` on the PATH: both are kept, his copy untouched.
    ana_pushes(&ana, 2);
    let out = no_claude_merge(&bob);
    assert_eq!(
        ok(&out),
        ".cowork/apps/gmail: Claude could not merge (the `claude` CLI is not installed): kept \
         yours; v1.0.1 is in .cowork/apps/gmail-v1-0-1/, switched off\n"
    );
    assert_eq!(mine(), "export default () => 'mine'\n");
    assert_eq!(read(&bob, ".cowork/apps/gmail-v1-0-1/lib/format.ts"), "export const x = 2;\n");

    // The model fails (an overloaded API, no retry): both are kept.
    ana_pushes(&ana, 3);
    let standin = Standin::start(serde_json::json!({ "turns": [
        { "error": { "status": 529, "type": "overloaded_error", "message": "Overloaded", "retry": false } }
    ]}));
    let out = standin.ai_merge(&bob, "gmail");
    let said = ok(&out);
    assert!(
        said.starts_with(".cowork/apps/gmail: Claude could not merge (claude ended with"),
        "{said}"
    );
    assert!(said.ends_with("kept yours; v1.0.2 is in .cowork/apps/gmail-v1-0-2/, switched off\n"));
    assert_eq!(mine(), "export default () => 'mine'\n");
    standin.done(&hub);
    drop(standin);

    // The model declines and edits nothing: taking merged/ (= the new version) would drop his
    // edit, so both are kept, with what Claude said.
    ana_pushes(&ana, 4);
    let standin = Standin::start(serde_json::json!({ "turns": [
        { "text": "I cannot merge these safely: both sides rewrote the inbox." }
    ]}));
    let out = standin.ai_merge(&bob, "gmail");
    assert_eq!(
        ok(&out),
        ".cowork/apps/gmail: Claude could not merge (claude changed nothing: I cannot merge these \
         safely: both sides rewrote the inbox.): kept yours; v1.0.3 is in \
         .cowork/apps/gmail-v1-0-3/, switched off\n"
    );
    assert_eq!(mine(), "export default () => 'mine'\n");
    assert_eq!(receipt(&bob, "gmail").unwrap()["version"], "1.0.0");
    standin.done(&hub);
    drop(standin);

    // The model merges: its merged/ lands as the app at the new version — his edit (as Claude
    // wrote it) and Ana's new lib/format.ts together.
    ana_pushes(&ana, 5);
    let standin = Standin::start(serde_json::json!({ "turns": [
        { "expect": { "userText": ["base/ is version 1.0.0", "they changed: gmail.jsx", "new version 1.0.4"] },
          "tool": { "name": "Read", "input": { "file_path": "merged/gmail.jsx" } } },
        { "expect": { "toolResult": "inbox" },
          "tool": { "name": "Write", "input": { "file_path": "merged/gmail.jsx", "content": "export default () => 'mine, merged'\n" } } },
        { "expect": { "toolResult": "updated successfully" }, "text": "Merged: your inbox text over the new version." }
    ]}));
    let out = standin.ai_merge(&bob, "gmail");
    assert_eq!(ok(&out), ".cowork/apps/gmail: merged your changes into v1.0.4 (from v1.0.0)\n");
    standin.done(&hub);
    assert_eq!(mine(), "export default () => 'mine, merged'\n");
    assert_eq!(read(&bob, ".cowork/apps/gmail/lib/format.ts"), "export const x = 5;\n");
    let r = receipt(&bob, "gmail").unwrap();
    assert_eq!((r["version"].as_str(), r["pinned"].as_bool()), (Some("1.0.4"), Some(false)));
    // Merged is still edited against the store's 1.0.4: an automatic pass would leave it.
    assert!(bob.json(&["app", "list"])["sources"][".cowork/apps/gmail"]
        .as_str()
        .unwrap()
        .starts_with("acme-apps@1.0.4"));
}

#[test]
fn ai_merge_keeps_a_deleted_file_deleted_unless_the_new_version_changed_it() {
    let Two { hub, ana, bob } = gmail_installed();
    let format = ".cowork/apps/gmail/lib/format.ts";

    // Bob only deleted lib/format.ts, which Ana's 1.0.1 leaves as it was: the deletion is the
    // whole merge (no Claude needed: there is none on the PATH), and it stays deleted.
    std::fs::remove_file(bob.file(format)).unwrap();
    std::fs::write(ana.file(".cowork/apps/gmail/gmail.jsx"), "export default () => 'v2'\n")
        .unwrap();
    ok(&ana.run(&["push"]));
    let out = no_claude_merge(&bob);
    assert_eq!(ok(&out), ".cowork/apps/gmail: merged your changes into v1.0.1 (from v1.0.0)\n");
    assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'v2'\n");
    assert!(!bob.file(format).exists(), "his deletion was kept");
    assert_eq!(receipt(&bob, "gmail").unwrap()["version"], "1.0.1");

    // Ana changes lib/format.ts: the new version's change is news, so it comes back.
    ana_pushes(&ana, 2);
    let out = no_claude_merge(&bob);
    assert_eq!(ok(&out), ".cowork/apps/gmail: merged your changes into v1.0.2 (from v1.0.1)\n");
    assert_eq!(read(&bob, format), "export const x = 2;\n");

    // An edit and a deletion together: Claude merges the edit (told of the deletion), and the
    // file the new version did not change stays deleted.
    std::fs::write(bob.file(".cowork/apps/gmail/gmail.jsx"), "export default () => 'mine'\n")
        .unwrap();
    std::fs::remove_file(bob.file(format)).unwrap();
    std::fs::write(ana.file(".cowork/apps/gmail/README.md"), "# Gmail\n").unwrap();
    ok(&ana.run(&["push"]));
    let standin = Standin::start(serde_json::json!({ "turns": [
        { "expect": { "userText": ["they changed: gmail.jsx", "they deleted: lib/format.ts", "new version 1.0.3"] },
          "tool": { "name": "Write", "input": { "file_path": "merged/gmail.jsx", "content": "export default () => 'mine, merged'\n" } } },
        { "expect": { "toolResult": "updated successfully" }, "text": "Merged." }
    ]}));
    let out = standin.ai_merge(&bob, "gmail");
    assert_eq!(ok(&out), ".cowork/apps/gmail: merged your changes into v1.0.3 (from v1.0.2)\n");
    standin.done(&hub);
    assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'mine, merged'\n");
    assert_eq!(read(&bob, ".cowork/apps/gmail/README.md"), "# Gmail\n");
    assert!(!bob.file(format).exists(), "his deletion was kept through Claude's merge");
}

#[test]
fn a_broken_course_is_among_the_workspaces_problems_naming_its_file() {
    let env = Env::new("node");
    env.app("notes", "{\"name\": \"notes\", \"version\": \"1.0.0\"}\n", &[]);
    std::fs::create_dir_all(env.file(".cowork/courses/onboarding")).unwrap();
    std::fs::write(
        env.file(".cowork/courses/onboarding/course.md"),
        "---\ntitle: Onboarding\nlessons: welcome\n---\nThe first week.\n",
    )
    .unwrap();
    let out = env.run(&["app", "list"]);
    let text = ok(&out);
    assert!(
        text.contains(
            "Problems:\n  .cowork/lessons/welcome/lesson.md: the lesson \"welcome\" on the `lessons:` line has no lesson.md"
        ),
        "{text}"
    );
    let listed = env.json(&["app", "list"]);
    assert_eq!(listed["problems"][0]["file"], ".cowork/lessons/welcome/lesson.md", "{listed}");
    // Manage Workspace's list: the workbench summary's workspace problems.
    let daemon = env.daemon(&[]);
    let path = format!("/api/workbench?workspace={}", path_str(&env.ws_path()));
    let (status, summary) = Http { port: daemon.port }.json("GET", &path, &env.owner_token(), None);
    assert_eq!(status, 200, "{summary}");
    assert_eq!(summary["problems"][0]["file"], ".cowork/lessons/welcome/lesson.md", "{summary}");
    drop(daemon);

    // Written, the lesson is no problem any more.
    std::fs::create_dir_all(env.file(".cowork/lessons/welcome")).unwrap();
    std::fs::write(
        env.file(".cowork/lessons/welcome/lesson.md"),
        "---\ntitle: Welcome\n---\nHi.\n",
    )
    .unwrap();
    assert_eq!(env.json(&["app", "list"])["problems"], serde_json::json!([]));
}

#[test]
fn a_cards_screenshot_is_served_as_its_image_checked_and_hostile_names_are_refused() {
    let Two { hub: _hub, ana, bob } = two(Backend::Sqlite);
    let mut png = Vec::new();
    image::RgbImage::new(2, 2)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    ana.app(
        "gmail",
        "{\"name\": \"gmail\", \"version\": \"1.0.0\", \"entry\": \"gmail.jsx\", \"screenshots\": [\"shot.png\", \"shot.svg\"]}\n",
        &[("gmail.jsx", "export default () => 'inbox'\n"), ("shot.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>")],
    );
    std::fs::write(ana.file(".cowork/apps/gmail/shot.png"), &png).unwrap();
    ok(&ana.run(&["push", ".cowork/apps/gmail", "--to", "acme-apps"]));

    let daemon = bob.daemon(&[]);
    let token = bob.owner_token();
    // The status, the head (lowercase) and the body as bytes (an image is no UTF-8).
    let get = |query: &str| -> (u16, String, Vec<u8>) {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", daemon.port)).unwrap();
        write!(
            stream,
            "GET /api/store/screenshot?{query} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\
             Authorization: Bearer {token}\r\nConnection: close\r\n\r\n",
            daemon.port
        )
        .unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).unwrap();
        let split = response.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&response[..split]).to_ascii_lowercase();
        (head[9..12].parse().unwrap(), head, response[split + 4..].to_vec())
    };
    let text = |body: &[u8]| String::from_utf8_lossy(body).into_owned();
    let (status, head, body) = get("teamServer=acme-apps&name=gmail&n=0");
    assert_eq!(status, 200, "{head}");
    assert!(head.contains("content-type: image/png"), "{head}");
    assert!(head.contains("x-content-type-options: nosniff"), "{head}");
    assert_eq!(body, png);

    // An SVG can carry script: never served as an image of the workbench.
    let (status, _, body) = get("teamServer=acme-apps&name=gmail&n=1");
    assert_eq!(status, 415, "{}", text(&body));
    // No third screenshot; hostile names are refused by name, before any hub call.
    assert_eq!(get("teamServer=acme-apps&name=gmail&n=2").0, 404);
    let (status, _, body) = get("teamServer=acme-apps&name=..%2F..%2Fetc&n=0");
    let body = text(&body);
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("BadRequest") && body.contains("is not an item name"), "{body}");
    let (status, _, body) = get("teamServer=..%2Fx&name=gmail&n=0");
    assert!((400..500).contains(&status), "{status}: {}", text(&body));

    // `publish --screenshot`: the desktop app's last capture of the workspace becomes the card's
    // first screenshot while it has none.
    std::fs::write(ana.file("README.md"), "# CRM\n").unwrap();
    let publish = |kind: &[&str]| {
        let mut args =
            vec!["publish", "--name", "crm", "--team-server", "acme-apps", "--screenshot"];
        args.extend_from_slice(kind);
        ana.run(&args)
    };
    let workspace: &[&str] = &["--type", "workspace"];
    // No last capture yet: refused by name, with what to do.
    let out = publish(workspace);
    assert_eq!(out.status.code(), Some(3), "{}", transcript(&out));
    assert!(transcript(&out).contains("has no last capture"), "{}", transcript(&out));
    assert!(
        transcript(&out).contains(
            "open the workspace in the desktop app, then leave it, or publish without --screenshot"
        ),
        "{}",
        transcript(&out)
    );
    let capture = cowork_core::paths::Root::new(ana.home.path()).last_capture_file(&ana.ws_path());
    std::fs::create_dir_all(capture.parent().unwrap()).unwrap();
    // It is still checked as an image.
    std::fs::write(&capture, "<svg/>").unwrap();
    let out = publish(workspace);
    assert_ne!(out.status.code(), Some(0), "{}", transcript(&out));
    assert!(
        transcript(&out).contains("it is not a PNG, JPEG, GIF or WebP image"),
        "{}",
        transcript(&out)
    );
    // Only a workspace or a workspace template has one.
    std::fs::write(&capture, &png).unwrap();
    let out = publish(&["--type", "template", "--subtype", "app"]);
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    assert!(
        transcript(&out).contains("only a workspace or a workspace template has a last capture"),
        "{}",
        transcript(&out)
    );
    ok(&publish(workspace));
    let (status, head, body) = get("teamServer=acme-apps&name=crm&n=0");
    assert_eq!((status, body.as_slice()), (200, png.as_slice()), "{head}");
    // A republish keeps the screenshot the card has.
    let mut other = Vec::new();
    image::RgbImage::new(3, 1)
        .write_to(&mut std::io::Cursor::new(&mut other), image::ImageFormat::Png)
        .unwrap();
    std::fs::write(ana.file("README.md"), "# CRM, better\n").unwrap();
    std::fs::write(&capture, &other).unwrap();
    ok(&publish(workspace));
    assert_eq!(get("teamServer=acme-apps&name=crm&n=0").2, png);
}

/// The team server an app came from is deleted: the app stays as installed, `app update` of
/// everything says so and succeeds, `app update <app>` names why it cannot, and `app remove`
/// still works.
#[test]
fn an_app_whose_team_server_is_gone_stays_as_installed_and_updates_say_why() {
    let Two { hub: _hub, ana, bob } = gmail_installed();
    ok(&ana.run(&["team-server", "delete", "acme-apps", "--yes"]));
    let list = ok(&bob.run(&["app", "list"]));
    assert!(list.contains(" acme-apps@1.0.0 (auto), team server gone "), "{list}");
    assert_eq!(
        bob.json(&["app", "list"])["gone"],
        serde_json::json!({".cowork/apps/gmail": "acme-apps"})
    );

    let out = bob.run(&["app", "update"]);
    assert_eq!(
        ok(&out),
        ".cowork/apps/gmail: kept as installed: the team server acme-apps is gone, or you are no longer one of its members\n",
    );
    let line = bob.json(&["app", "update"]);
    assert_eq!(line["ok"], true, "{line}");
    assert_eq!(line["apps"][0]["outcome"], "orphaned", "{line}");
    assert_eq!(line["apps"][0]["teamServer"], "acme-apps", "{line}");

    let out = bob.run(&["app", "update", "gmail", "--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", transcript(&out));
    let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(line["error"]["name"], "NotFound", "{line}");
    assert_eq!(
        line["error"]["message"],
        "failed to update gmail: the team server acme-apps is gone, or you are no longer one of its members",
    );
    assert!(line["error"]["hint"].as_str().unwrap().contains("cowork app remove gmail"), "{line}");
    assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'inbox'\n");

    ok(&bob.run(&["app", "remove", "gmail"]));
    assert!(!bob.file(".cowork/apps/gmail").exists());

    // Removed from a team server that still exists: the same.
    let Two { hub: _hub, ana, bob } = gmail_installed();
    ok(&ana.run(&["team-server", "members", "remove", "acme-apps", "bob@example.com"]));
    assert_eq!(bob.json(&["app", "update"])["apps"][0]["outcome"], "orphaned");
}
