//! Agent logins against the workspaces of the disk and the Cowork root: a token opens only the
//! workspaces its owner made it in or let it into, a workspace that holds the root runs nothing,
//! and the logins file keeps every change when the daemon and the CLI write it at once.

use crate::agents::{create, workspace, Door};
use crate::support::*;
use cowork_core::agents::Logins;
use cowork_core::paths::Root;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Another workspace on the same disk, with a capability whose read and SKILL.md an agent would
/// want, that the login was never made in.
fn other_workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join(".cowork/apps/notes");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("cowork.json"),
        r#"{ "name": "notes", "version": "1.0.0", "kind": "capability", "routines": {
            "notes-read": { "file": "read.ts", "readOnly": true, "description": "Reads the notes" } } }"#,
    )
    .unwrap();
    std::fs::write(app.join("read.ts"), "export default () => 'the private notes';\n").unwrap();
    std::fs::write(app.join("SKILL.md"), "---\nname: notes\ndescription: d\n---\nB's own guide.\n")
        .unwrap();
    let path = dir.path().canonicalize().unwrap();
    (dir, path)
}

/// `agent list --json`: the workspaces of the login `name`.
fn workspaces_of(env: &Env, name: &str) -> Value {
    let list = env.json(&["agent", "list"]);
    list.as_array().unwrap().iter().find(|l| l["name"] == name).unwrap()["workspaces"].clone()
}

/// The door's refusal of a workspace the login does not serve: 403, naming the line that lets
/// the agent in.
fn assert_refused(status: u16, body: &Value, ws: &Path) {
    assert_eq!(status, 403, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    let add = format!("cowork agent workspaces add claude --workspace {}", path_str(ws));
    assert!(message.contains("the agent claude is not allowed in"), "{message}");
    assert!(message.ends_with(&add), "{message}");
}

#[test]
fn an_agents_token_opens_only_the_workspaces_it_was_made_in_or_let_into() {
    let env = workspace();
    let token = create(&env, "claude");
    let (_keep, other) = other_workspace();
    let daemon = env.daemon(&[]);

    // Its own workspace: served.
    Door::new(&daemon, &env, &token).initialize("2025-06-18");

    // Another workspace, asked for in both eras: refused before the folder is touched.
    let door = Door::at(&daemon, &other, &token);
    let (status, _, body) = door.post(
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } }),
        &[],
    );
    assert_refused(status, &body, &other);
    let read =
        json!({ "name": "read", "arguments": { "capability": "notes", "tool": "notes-read" } });
    let (status, body) = door.stateless("tools/call", read.clone(), &[]);
    assert_refused(status, &body, &other);
    assert!(
        !body.to_string().contains("the private notes")
            && !body.to_string().contains("B's own guide")
    );
    for written in [".claude", ".cowork/local"] {
        assert!(
            !other.join(written).exists(),
            "the door wrote {written} into a workspace it does not serve"
        );
    }
    assert!(
        !Root::new(env.home.path()).workspace_dir(&other).exists(),
        "nothing of it is recorded under the root either"
    );

    // A link inside its own workspace is where it points; a folder that is not there is refused
    // alike (the door tells nothing about the disk).
    std::os::unix::fs::symlink(&other, env.file("link")).unwrap();
    let (status, body) =
        Door::at(&daemon, &env.file("link"), &token).stateless("tools/list", json!({}), &[]);
    assert_refused(status, &body, &other);
    let missing = env.ws_path().join("missing");
    let (status, body) =
        Door::at(&daemon, &missing, &token).stateless("tools/list", json!({}), &[]);
    assert_refused(status, &body, &missing);

    // The owner lets it in: the rule of the reference holds there (reads on).
    let add = env.run(&["agent", "workspaces", "add", "claude", "--workspace", &path_str(&other)]);
    assert!(add.status.success(), "{}", stderr(&add));
    assert_eq!(workspaces_of(&env, "claude"), json!([path_str(&env.ws_path()), path_str(&other)]));
    let (session, init) = door.initialize("2025-06-18");
    assert!(init["instructions"].as_str().unwrap().contains("B's own guide."), "{init}");
    let (_, read) = door.call(&session, "tools/call", read);
    assert_eq!(read["result"]["content"][0]["text"], "the private notes", "{read}");

    // And out again: the open session ends with its next request.
    let out =
        env.run(&["agent", "workspaces", "remove", "claude", "--workspace", &path_str(&other)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (status, body) = door.call(&session, "tools/list", json!({}));
    assert_refused(status, &body, &other);
    assert_eq!(workspaces_of(&env, "claude"), json!([path_str(&env.ws_path())]));

    // Out of it, the owner's other commands there say it is not let in, and how.
    let add = format!("cowork agent workspaces add claude --workspace {}", path_str(&other));
    let grant = env.run(&[
        "agent",
        "grant",
        "notes/notes-read",
        "deny",
        "--agent",
        "claude",
        "--workspace",
        &path_str(&other),
    ]);
    assert!(
        stdout(&grant).ends_with(&format!("claude is not let into this workspace yet: {add}\n")),
        "{}",
        stdout(&grant)
    );
    let renewed = stdout(&env.run(&["agent", "token", "claude", "--workspace", &path_str(&other)]));
    assert!(renewed.ends_with(&format!("so these lines open nothing until: {add}\n")), "{renewed}");

    // Only a Cowork workspace can be added.
    let plain = tempfile::tempdir().unwrap();
    let refused =
        env.run(&["agent", "workspaces", "add", "claude", "--workspace", &path_str(plain.path())]);
    assert_eq!(refused.status.code(), Some(3), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("is not a Cowork workspace (it has no .cowork folder)"));
}

#[test]
fn a_login_from_before_workspaces_were_kept_opens_none_until_its_owner_lets_it_in() {
    let env = workspace();
    let token = create(&env, "claude");
    // agents.json as the version before wrote it: no workspaces.
    let file = env.home.path().join("agents.json");
    let mut logins: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    logins["agents"][0].as_object_mut().unwrap().remove("workspaces");
    std::fs::write(&file, logins.to_string()).unwrap();
    let daemon = env.daemon(&[]);

    let door = Door::new(&daemon, &env, &token);
    let (status, body) = door.stateless("tools/list", json!({}), &[]);
    assert_refused(status, &body, &env.ws_path());
    let listed = stdout(&env.run(&["agent", "list"]));
    assert!(listed.contains(" none\n"), "{listed}");
    assert!(listed.contains("A login with no workspace opens none: `cowork agent workspaces add <name> [--workspace <dir>]`"), "{listed}");

    // The line the refusal gave, run in the workspace.
    let added = env.run(&["agent", "workspaces", "add", "claude"]);
    assert_eq!(
        stdout(&added),
        format!("claude may now work in {}: reads are on for it, grant anything else with `cowork agent grant <cap>/<routine> allow --agent claude`.\n", path_str(&env.ws_path()))
    );
    let (status, tools) = door.stateless("tools/list", json!({}), &[]);
    assert_eq!((status, tools["result"]["tools"][2]["name"].clone()), (200, json!("read")));
}

/// Reads the Cowork root's files and writes one into it.
const INTRUDER: &str = r#"import fs from "node:fs";
import path from "node:path";
const attempt = (f: () => unknown, ok: string) => { try { f(); return ok; } catch (e: any) { return e.code ?? e.name; } };
export default (args: any) => ({
  logins: attempt(() => fs.readFileSync(path.join(args.root, "agents.json")), "read"),
  planted: attempt(() => fs.writeFileSync(path.join(args.root, "planted.txt"), "x"), "wrote"),
});
"#;

/// Writes the app whose routine tries the root into the workspace `ws`.
fn intruder(ws: &Path) {
    let app = ws.join(".cowork/apps/probe");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("cowork.json"),
        r#"{ "name": "probe", "version": "0.1.0", "kind": "app", "routines": { "probe-root": "root.ts" } }"#,
    )
    .unwrap();
    std::fs::write(app.join("root.ts"), INTRUDER).unwrap();
}

#[test]
fn a_workspace_that_holds_the_cowork_root_runs_no_routine_and_doctor_says_why() {
    let env = Env::new(runtimes()[0]);
    intruder(&env.ws_path());
    // The root inside the workspace (a workspace at $HOME, the root ~/.cowork-studio), then a
    // workspace inside the root.
    let holds = env.ws_path().join(".cowork-studio");
    let outer = tempfile::tempdir().unwrap();
    let inside = outer.path().canonicalize().unwrap().join("ws");
    intruder(&inside);
    for (root, ws, why) in [
        (holds.clone(), env.ws_path(), "holds the Cowork root"),
        (outer.path().canonicalize().unwrap(), inside.clone(), "is inside the Cowork root"),
    ] {
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("agents.json"), r#"{ "agents": [] }"#).unwrap();
        let args = json!({ "root": root }).to_string();
        let out = env
            .cmd(&[
                "routine",
                "run",
                "probe-root",
                "--args",
                &args,
                "--json",
                "--workspace",
                &path_str(&ws),
            ])
            .env("COWORK_HOME", &root)
            .output()
            .unwrap();
        let outcome: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {} {}", stdout(&out), stderr(&out)));
        assert_eq!(outcome["ok"], false, "the routine ran: {outcome}");
        assert_eq!(outcome["error"]["name"], "HoldsRoot", "{outcome}");
        let message = outcome["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("the workspace {} {why} {}", path_str(&ws), path_str(&root))),
            "{message}"
        );
        assert!(!root.join("planted.txt").exists(), "a routine wrote into the root");

        let doctor =
            env.cmd(&["doctor"]).current_dir(&ws).env("COWORK_HOME", &root).output().unwrap();
        let report = stdout(&doctor);
        assert!(
            report.contains(&format!("FAIL workspace the workspace {} {why}", path_str(&ws))),
            "{report}"
        );
    }
    // Beside the root, the same routine runs (confined, it cannot reach the root: see
    // `a_routine_cannot_reach_the_cowork_root_…`).
    env.ok("probe-root", json!({ "root": env.home.path() }));
}

#[test]
fn a_last_seen_written_beside_a_token_or_a_revoke_never_undoes_them() {
    let home = tempfile::tempdir().unwrap();
    let root = Root::new(home.path());
    let logins = Logins::new(&root);
    let made: Vec<_> =
        (0..40).map(|i| logins.create(&format!("agent-{i}"), Path::new("/w")).unwrap()).collect();
    let start = std::sync::Barrier::new(2);
    let renewed = std::thread::scope(|scope| {
        // The daemon's side: each login's first call through the door records it seen.
        scope.spawn(|| {
            let logins = Logins::new(&root);
            start.wait();
            for (login, _) in &made {
                logins.seen(&login.id).unwrap();
            }
        });
        // The owner's side at the same time: every other login revoked, the rest given new tokens.
        let owner = scope.spawn(|| {
            let logins = Logins::new(&root);
            start.wait();
            let mut renewed = Vec::new();
            for (i, (login, _)) in made.iter().enumerate() {
                if i % 2 == 0 {
                    logins.revoke(&login.name).unwrap();
                } else {
                    renewed.push(logins.new_token(&login.name).unwrap().1);
                }
            }
            renewed
        });
        owner.join().unwrap()
    });
    for (i, (login, token)) in made.iter().enumerate() {
        assert!(logins.authenticate(token).is_none(), "{}'s ended token works again", login.name);
        assert_eq!(logins.get(&login.name).unwrap().revoked, i % 2 == 0, "{}", login.name);
    }
    for token in &renewed {
        assert!(logins.authenticate(token).is_some(), "a new token was lost");
    }
}
