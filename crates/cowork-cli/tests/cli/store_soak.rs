//! The store's kill soak (issue 42, "Trust"): an install or update is staged beside the app and
//! swapped in by one rename, so a `kill -9` at any moment leaves the old version or the new one,
//! never a mix — and the next operation finishes or undoes what the killed one left.
//!
//! Bob's copy of a 60-file app goes back and forth between v1.0.0 and v1.0.1 (`app update` up,
//! `app install …@1.0.0` down, both through the same stage and swap); each of 200 rounds kills
//! the CLI after a delay spread over a whole operation's length, checks that the folder is
//! exactly one version, then runs the operation again and checks it completes (files, receipt,
//! no stage left). Run time: 400 CLI runs against a loopback SQLite hub, about 1–2 minutes on a
//! busy 2-core machine in a debug build (the blobs are cached after the first round, so what is
//! timed is mostly process start, the hub's manifest and the stage/swap).

use crate::hub_support::*;
use crate::support::*;
use crate::team_servers::{with_bob, Two};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

const ROUNDS: usize = 200;
const FILES: usize = 60;

type Tree = BTreeMap<String, String>;

/// The app at `version`: every file changes between the two, one is only in v1, one only in v2.
fn version_files(version: &str) -> Tree {
    let mut files = Tree::new();
    files.insert(
        "cowork.json".into(),
        format!("{{\n  \"name\": \"mail\",\n  \"version\": \"{version}\",\n  \"entry\": \"mail.jsx\"\n}}\n"),
    );
    files.insert("mail.jsx".into(), format!("export default () => '{version}'\n"));
    for i in 0..FILES {
        files.insert(format!("lib/part{i:02}.ts"), format!("export const v = '{version} {i}';\n"));
    }
    let own = if version == "1.0.0" { "only-v1.txt" } else { "only-v2.txt" };
    files.insert(own.into(), format!("{version}\n"));
    files
}

fn write_tree(dir: &Path, tree: &Tree) {
    if dir.exists() {
        std::fs::remove_dir_all(dir).unwrap();
    }
    for (rel, text) in tree {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

fn read_tree(dir: &Path) -> Tree {
    fn walk(root: &Path, dir: &Path, into: &mut Tree) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, into);
            } else {
                let rel = path.strip_prefix(root).unwrap().display().to_string();
                into.insert(rel, std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    let mut tree = Tree::new();
    walk(dir, dir, &mut tree);
    tree
}

fn receipt_version(bob: &Env) -> String {
    let root = cowork_core::paths::Root::new(bob.home.path());
    let path = cowork_account::reports::receipt_path(&root, &bob.ws_path(), "mail");
    let receipt: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    receipt["version"].as_str().unwrap().to_string()
}

#[test]
fn a_kill_9_at_any_moment_of_an_update_leaves_one_version_and_the_next_one_completes() {
    let Two { hub: _hub, ana, bob } = with_bob(Backend::Sqlite);
    let (v1, v2) = (version_files("1.0.0"), version_files("1.0.1"));
    let ana_app = ana.file(".cowork/apps/mail");
    write_tree(&ana_app, &v1);
    let out = ana.run(&["push", ".cowork/apps/mail", "--to", "acme-apps"]);
    assert!(out.status.success(), "{}", transcript(&out));
    write_tree(&ana_app, &v2);
    let out = ana.run(&["push", ".cowork/apps/mail"]);
    assert!(stdout(&out).contains("published v1.0.1"), "{}", transcript(&out));

    std::fs::create_dir_all(bob.file(".cowork/apps")).unwrap();
    let app = bob.file(".cowork/apps/mail");
    let down = ["app", "install", "acme-apps/mail@1.0.0"];
    let up = ["app", "update", "mail"];
    let started = Instant::now();
    let out = bob.run(&down);
    assert!(out.status.success(), "{}", transcript(&out));
    // A whole operation's length, measured on a warm cache (the delays are spread over it).
    let timed = Instant::now();
    assert!(bob.run(&up).status.success());
    assert!(bob.run(&down).status.success());
    let whole = timed.elapsed() / 2;
    assert_eq!(read_tree(&app), v1);

    let mut outcomes = [0usize; 2];
    for round in 0..ROUNDS {
        let (args, before, after, version) =
            if round % 2 == 0 { (&up, &v1, &v2, "1.0.1") } else { (&down, &v2, &v1, "1.0.0") };
        // Varied moments: a stride through 0..=110% of an operation (coprime to 100).
        let delay = whole.mul_f64(((round * 37) % 111) as f64 / 100.0);
        let mut child = bob
            .cmd(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();

        let seen = read_tree(&app);
        assert!(
            seen == *before || seen == *after,
            "round {round} (killed after {delay:?}): a mix of versions in {}: {:?}",
            app.display(),
            seen.iter().filter(|(k, v)| before.get(*k) != Some(v)).collect::<Vec<_>>()
        );
        outcomes[usize::from(seen == *after)] += 1;

        // The next operation finishes or undoes what was left, then takes the version.
        let out = bob.run(args);
        assert!(out.status.success(), "round {round}: {}", transcript(&out));
        assert_eq!(read_tree(&app), *after, "round {round}");
        assert_eq!(receipt_version(&bob), version, "round {round}");
        let left: Vec<String> = std::fs::read_dir(bob.file(".cowork/apps"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "mail")
            .collect();
        assert!(left.is_empty(), "round {round}: left beside the app: {left:?}");
    }
    // Both kinds of moment were hit: killed before the swap and after it.
    assert!(outcomes[0] > 0 && outcomes[1] > 0, "outcomes (old, new): {outcomes:?}");
    println!(
        "{ROUNDS} kills in {:?} (an operation ~{whole:?}); old {} / new {}",
        started.elapsed(),
        outcomes[0],
        outcomes[1]
    );
}
