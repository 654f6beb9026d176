//! Automatic updates in the daemon (page 02, "Auto-update"), two machines and a real hub on both
//! back ends: Ana pushes, Bob installs, Ana pushes again and Bob's daemon updates his clean copy
//! by itself (audited `cowork.app.update`, source `system`); a pinned copy stays; Bob's edited
//! copy is never overwritten and a Cowork notification names it with the four choices; once Ana
//! removes him from the team server, Bob's copies of its apps stop receiving.
//!
//! Bob's daemon is asked to look with `POST /api/account/changed` (what `cowork login` and
//! `cowork push` send; the hub's store news reaches it the same way through the updates poll),
//! then the test waits for what a person would see: files on disk, the bell.

use crate::hub_support::*;
use crate::support::*;
use crate::team_servers::{with_bob, Two};
use serde_json::{json, Value};
use std::time::Duration;

/// How long a daemon pass may take on a busy 2-core machine (it usually takes well under 1 s).
const PATIENCE: Duration = Duration::from_secs(60);

fn app(env: &Env, name: &str, text: &str) {
    env.app(
        name,
        &format!(
            "{{\n  \"name\": \"{name}\",\n  \"version\": \"1.0.0\",\n  \"entry\": \"{name}.jsx\"\n}}\n"
        ),
        &[(&format!("{name}.jsx"), text)],
    );
}

fn write(env: &Env, rel: &str, text: &str) {
    std::fs::write(env.file(rel), text).unwrap();
}

fn read(env: &Env, rel: &str) -> String {
    std::fs::read_to_string(env.file(rel)).unwrap_or_default()
}

fn ok(out: &std::process::Output) {
    assert!(out.status.success(), "{}", transcript(out));
}

#[test]
fn the_daemon_updates_clean_copies_leaves_edited_and_pinned_ones_and_stops_for_a_removed_member() {
    for backend in Backend::BOTH {
        let Two { hub, ana, bob } = with_bob(backend);
        std::fs::create_dir_all(bob.file(".cowork/apps")).unwrap();
        // A second team server Bob stays in: what it sends shows that a pass ran.
        let two = ana.json(&["team-server", "create", "Acme two"]);
        assert_eq!(two["slug"], "acme-two", "{backend:?}: {two}");
        ok(&ana.run(&["team-server", "members", "add", "acme-two", "bob@example.com"]));
        app(&ana, "gmail", "export default () => 'v1'\n");
        app(&ana, "notes", "export default () => 'notes v1'\n");
        app(&ana, "cal", "export default () => 'cal v1'\n");
        for (dir, to) in [("gmail", "acme-apps"), ("notes", "acme-apps"), ("cal", "acme-two")] {
            ok(&ana.run(&["push", &format!(".cowork/apps/{dir}"), "--to", to]));
        }
        ok(&bob.run(&["app", "install", "acme-apps/gmail"]));
        ok(&bob.run(&["app", "install", "acme-apps/notes@1.0.0"]));
        ok(&bob.run(&["app", "install", "acme-two/cal"]));

        let daemon = bob.daemon(&[]);
        let http = Http { port: daemon.port };
        let look = || {
            let (status, body) =
                http.json("POST", "/api/account/changed", &bob.owner_token(), Some(&json!({})));
            assert_eq!(status, 200, "{backend:?}: {body}");
            body
        };
        let bell = || -> Vec<Value> {
            let path = format!("/api/workbench?workspace={}", path_str(&bob.ws_path()));
            let (_, body) = http.json("GET", &path, &bob.owner_token(), None);
            body["notifications"].as_array().cloned().unwrap_or_default()
        };

        // Ana pushes new versions: Bob's clean, unpinned gmail follows by itself.
        write(&ana, ".cowork/apps/gmail/gmail.jsx", "export default () => 'v2'\n");
        write(&ana, ".cowork/apps/notes/notes.jsx", "export default () => 'notes v2'\n");
        ok(&ana.run(&["push", ".cowork/apps/gmail"]));
        ok(&ana.run(&["push", ".cowork/apps/notes"]));
        look();
        // The audit line is the update's last step: once it is there, so are the files.
        let update_line = || {
            bob.audit_lines()
                .iter()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .find(|l| l["capability"] == "cowork.app.update")
        };
        assert!(
            eventually(PATIENCE, || update_line().is_some()),
            "{backend:?}: Bob's clean gmail was not updated: {:?}",
            bob.audit_lines()
        );
        assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'v2'\n");
        let line = update_line().unwrap();
        assert_eq!(line["context"]["source"], "system", "{line}");
        assert_eq!(line["context"]["appVersion"], "1.0.1", "{line}");
        assert_eq!(line["status"], "ok", "{line}");
        assert!(bell().is_empty(), "{backend:?}: a clean update says nothing");

        // Bob edits gmail; Ana's next version never overwrites it, and a notification names it.
        write(&bob, ".cowork/apps/gmail/gmail.jsx", "export default () => 'mine'\n");
        write(&ana, ".cowork/apps/gmail/gmail.jsx", "export default () => 'v3'\n");
        ok(&ana.run(&["push", ".cowork/apps/gmail"]));
        look();
        assert!(eventually(PATIENCE, || !bell().is_empty()), "{backend:?}: no notification");
        let notice = bell().remove(0);
        assert_eq!(notice["app"], "cowork", "{notice}");
        assert_eq!(
            notice["title"], "gmail v1.0.2 is out, but you edited .cowork/apps/gmail",
            "{notice}"
        );
        let body = notice["body"].as_str().unwrap();
        assert!(
            body.contains(
                "cowork app update .cowork/apps/gmail --replace | --keep-both | --ai-merge | --skip"
            ),
            "{body}"
        );
        assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'mine'\n");
        // The pinned notes stayed at 1.0.0 through every pass.
        assert_eq!(
            read(&bob, ".cowork/apps/notes/notes.jsx"),
            "export default () => 'notes v1'\n",
            "{backend:?}: a pin held"
        );
        // Another pass names nothing twice.
        look();
        write(&ana, ".cowork/apps/cal/cal.jsx", "export default () => 'cal v2'\n");
        ok(&ana.run(&["push", ".cowork/apps/cal"]));
        look();
        assert!(eventually(PATIENCE, || read(&bob, ".cowork/apps/cal/cal.jsx")
            == "export default () => 'cal v2'\n"));
        assert_eq!(bell().len(), 1, "{backend:?}: {:?}", bell());

        // Bob takes the store's gmail by hand (clean again), then Ana removes him from acme-apps
        // and pushes gmail and cal: only cal (acme-two) still reaches him.
        ok(&bob.run(&["app", "update", ".cowork/apps/gmail", "--replace"]));
        assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'v3'\n");
        ok(&ana.run(&["team-server", "members", "remove", "acme-apps", "bob@example.com"]));
        write(&ana, ".cowork/apps/gmail/gmail.jsx", "export default () => 'v4'\n");
        write(&ana, ".cowork/apps/cal/cal.jsx", "export default () => 'cal v3'\n");
        ok(&ana.run(&["push", ".cowork/apps/gmail"]));
        ok(&ana.run(&["push", ".cowork/apps/cal"]));
        let after = look();
        assert_eq!(after["teamServers"][0]["slug"], "acme-two", "{backend:?}: {after}");
        assert!(eventually(PATIENCE, || read(&bob, ".cowork/apps/cal/cal.jsx")
            == "export default () => 'cal v3'\n"));
        assert_eq!(
            read(&bob, ".cowork/apps/gmail/gmail.jsx"),
            "export default () => 'v3'\n",
            "{backend:?}: a removed member stops receiving"
        );
        drop(daemon);
        drop(hub);
    }
}

#[test]
fn no_auto_update_stops_the_daemons_updates_and_doctor_says_so() {
    let Two { hub, ana, bob } = with_bob(Backend::Sqlite);
    std::fs::create_dir_all(bob.file(".cowork/apps")).unwrap();
    app(&ana, "gmail", "export default () => 'v1'\n");
    ok(&ana.run(&["push", ".cowork/apps/gmail", "--to", "acme-apps"]));
    ok(&bob.run(&["app", "install", "acme-apps/gmail"]));
    let doctor = stdout(&bob.run(&["doctor"]));
    assert!(doctor.contains("ok   updates  automatic app updates are on"), "{doctor}");
    let off = bob.cmd(&["doctor"]).env("COWORK_NO_AUTO_UPDATE", "1").output().unwrap();
    assert!(
        stdout(&off)
            .contains("warn updates  automatic app updates are off (COWORK_NO_AUTO_UPDATE=1)"),
        "{}",
        transcript(&off)
    );

    let mut daemon = bob.daemon_with(
        &[],
        &[
            ("COWORK_NO_AUTO_UPDATE", std::path::Path::new("1")),
            ("COWORK_LOG", std::path::Path::new("info")),
        ],
    );
    let log = Lines::of(&mut daemon.child);
    write(&ana, ".cowork/apps/gmail/gmail.jsx", "export default () => 'v2'\n");
    ok(&ana.run(&["push", ".cowork/apps/gmail"]));
    let http = Http { port: daemon.port };
    let (status, _) =
        http.json("POST", "/api/account/changed", &bob.owner_token(), Some(&json!({})));
    assert_eq!(status, 200);
    drop(daemon);
    // The loop never started (nothing to wait for when nothing may happen): its log says so.
    let log = log.rest();
    assert!(log.contains("automatic app updates are off (COWORK_NO_AUTO_UPDATE=1)"), "{log}");
    assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'v1'\n");
    // By hand the update still works.
    ok(&bob.run(&["app", "update", ".cowork/apps/gmail"]));
    assert_eq!(read(&bob, ".cowork/apps/gmail/gmail.jsx"), "export default () => 'v2'\n");
    drop(hub);
}
