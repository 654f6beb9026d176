//! Routine confinement, each boundary proven with a real routine: what a routine process can
//! reach on the machine, what a command it runs inherits, and whose consent a command runs under.

use crate::support::*;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Stdio;

const PROBE: &str = r#"{ "name": "probe", "version": "0.1.0", "kind": "app",
  "routines": { "probe-reach": "reach.ts" } }"#;

/// Tries each path and says what happened: "read", "listed", "wrote" or the error code.
const REACH: &str = r#"import fs from "node:fs";
import os from "node:os";
import path from "node:path";
const attempt = (f: () => unknown, ok: string) => { try { f(); return ok; } catch (e: any) { return e.code ?? e.name; } };
export default async (args: any, ctx: any) => {
  const temp = path.join(os.tmpdir(), "probe.txt");
  return {
    daemonEnviron: attempt(() => fs.readFileSync(`/proc/${process.ppid}/environ`), "read"),
    ownStatus: attempt(() => fs.readFileSync("/proc/self/status"), "read"),
    rootListing: attempt(() => fs.readdirSync(args.root), "listed"),
    rootFile: attempt(() => fs.readFileSync(path.join(args.root, "planted.txt")), "read"),
    otherWorkspace: attempt(() => fs.readFileSync(args.other), "read"),
    ownWorkspace: attempt(() => fs.writeFileSync(path.join(ctx.workspaceRoot, "mine.txt"), "x"), "wrote"),
    data: attempt(() => ctx.data.write("probe.json", { ok: 1 }), "wrote"),
    temp: attempt(() => fs.writeFileSync(temp, "x"), "wrote"),
    system: attempt(() => fs.readFileSync("/etc/hosts"), "read"),
  };
};
"#;

#[test]
fn a_routine_cannot_reach_the_cowork_root_other_workspaces_or_the_daemons_proc_entry() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        // Where the kernel cannot confine, doctor and status must say so instead.
        let doctor = stdout(&env.run(&["doctor"]));
        let status = stdout(&env.run(&["status"]));
        if !doctor.contains("routines are confined (Landlock ABI ") {
            assert!(doctor.contains("warn confine  routines are not confined: "), "{doctor}");
            assert!(status.contains("confine: routines are not confined: "), "{status}");
            return;
        }
        assert!(status.contains("confine: routines are confined (Landlock ABI "), "{status}");
        env.app("probe", PROBE, &[("reach.ts", REACH)]);
        std::fs::write(env.home.path().join("planted.txt"), "the owner's").unwrap();
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join("notes.md"), "another workspace's").unwrap();
        let result = env.ok(
            "probe-reach",
            json!({ "root": env.home.path(), "other": other.path().join("notes.md") }),
        );
        let denied = Value::from("EACCES");
        assert_eq!(result["daemonEnviron"], denied, "{runtime}: {result}");
        assert_eq!(result["rootListing"], denied, "{runtime}: {result}");
        assert_eq!(result["rootFile"], denied, "{runtime}: {result}");
        assert_eq!(result["otherWorkspace"], denied, "{runtime}: {result}");
        for (what, outcome) in [
            ("ownStatus", "read"),
            ("ownWorkspace", "wrote"),
            ("data", "wrote"),
            ("temp", "wrote"),
            ("system", "read"),
        ] {
            assert_eq!(result[what], Value::from(outcome), "{runtime} {what}: {result}");
        }
    }
}

#[test]
fn a_command_a_routine_runs_cannot_forge_its_result_or_see_its_run_token() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        env.app(
            "forger",
            r#"{ "name": "forger", "version": "0.1.0", "kind": "app", "routines": { "forger-run": "run.ts" } }"#,
            &[(
                "run.ts",
                r#"export default async (_a: any, ctx: any) => {
  const { stdout } = await ctx.command.run(
    `for fd in 3 4 5; do (echo '{"op":"done","result":"forged"}' >&$fd) 2>/dev/null && echo "fd $fd open" || echo "fd $fd closed"; done; echo "token \${COWORK_RUN_TOKEN:-unset}"`,
    { value: "forge" });
  return { real: true, said: stdout.trim().split("\n") };
};
"#,
            )],
        );
        assert!(env.run(&["consent", "allow", "forge", "--app", "forger"]).status.success());
        let result = env.ok("forger-run", json!({}));
        assert_eq!(
            result,
            json!({ "real": true, "said": ["fd 3 closed", "fd 4 closed", "fd 5 closed", "token unset"] }),
            "{runtime}"
        );
    }
}

#[test]
fn an_approval_given_to_one_app_does_not_let_another_run_under_the_same_label() {
    let env = Env::new(runtimes()[0]);
    for app in ["files", "intruder"] {
        env.app(
            app,
            &format!(r#"{{ "name": "{app}", "version": "0.1.0", "routines": {{ "{app}-run": "run.ts" }} }}"#),
            &[("run.ts", "export default async (args: any, ctx: any) => (await ctx.command.run(args.cmd, { value: \"list files\" })).stdout;\n")],
        );
    }
    assert!(env.run(&["consent", "allow", "list files", "--app", "files"]).status.success());
    assert_eq!(env.ok("files-run", json!({ "cmd": "echo listed" })), "listed\n");
    assert_eq!(env.fails("intruder-run", json!({ "cmd": "id > pwned.txt" })), "Denied");
    assert!(!env.file("pwned.txt").exists(), "the other app's command did not run");
    assert_eq!(stdout(&env.run(&["consent", "list"])), "files  list files\n");
}

const OLD_STYLE: &str =
    r#"{ "name": "legacy", "version": "0.1.0", "routines": { "legacy-run": "run.ts" } }"#;

#[test]
fn a_package_declaring_neither_kind_nor_uses_is_marked_and_a_workspace_can_refuse_it() {
    let env = Env::new(runtimes()[0]);
    env.app("legacy", OLD_STYLE, &[("run.ts", "export default () => 'ran';\n")]);
    env.app("modern", PROBE, &[("reach.ts", "export default () => 'ran';\n")]);
    let mark = "legacy: unrestricted (declares neither kind nor uses)";
    let listed = stdout(&env.run(&["app", "list"]));
    assert!(listed.contains(&format!("Reaching every secret:\n  {mark}\n")), "{listed}");
    assert!(!listed.contains("probe: unrestricted"), "{listed}");
    assert_eq!(env.json(&["app", "list"])["unrestricted"], json!(["legacy"]));
    let doctor = stdout(&env.run(&["doctor"]));
    assert!(
        doctor.contains("warn package  legacy (.cowork/apps/legacy) is unrestricted (declares neither kind nor uses)"),
        "{doctor}"
    );
    assert_eq!(env.ok("legacy-run", json!({})), "ran", "allowed unless the workspace says no");

    env.workspace_json(r#"{ "unrestrictedPackages": false }"#);
    let refused = env.routine("legacy-run", "{}");
    assert_eq!(refused["error"]["name"], "Forbidden", "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("legacy (.cowork/apps/legacy) is unrestricted (declares neither kind nor uses), and .cowork/workspace.json sets \"unrestrictedPackages\": false; hint: declare \"kind\""), "{message}");
    assert_eq!(env.ok("probe-reach", json!({})), "ran", "a package with a kind still runs");
}

#[test]
fn of_a_tool_folder_in_the_home_a_routine_reads_only_what_its_programs_load() {
    let env = Env::new(runtimes()[0]);
    // Where the kernel cannot confine, there is nothing to narrow: doctor says so (checked in the
    // test above too), and the rest applies to Landlock only.
    let doctor = stdout(&env.run(&["doctor"]));
    if !doctor.contains("routines are confined (Landlock ABI ") {
        assert!(doctor.contains("warn confine  routines are not confined: "), "{doctor}");
        return;
    }
    const READ: &str = r#"import fs from "node:fs";
const attempt = (file: string) => { try { fs.readFileSync(file); return "read"; } catch (e: any) { return e.code; } };
export default (args: any) => Object.fromEntries(Object.entries(args).map(([k, f]) => [k, attempt(f as string)]));
"#;
    env.app(
        "probe",
        r#"{ "name": "probe", "version": "0.1.0", "kind": "app", "routines": { "probe-read": "read.ts" } }"#,
        &[("read.ts", READ)],
    );
    // A home with a tool installed the way cargo and pip install them: `~/.tool/bin` on PATH.
    let home = tempfile::tempdir().unwrap();
    let tool = home.path().join(".tool");
    for dir in ["bin", "lib"] {
        std::fs::create_dir_all(tool.join(dir)).unwrap();
    }
    std::fs::write(tool.join("lib/helper.js"), "a library").unwrap();
    std::fs::write(tool.join("credentials.toml"), "token = \"publish-key\"").unwrap();
    let path = format!("{}:{}", tool.join("bin").display(), std::env::var("PATH").unwrap());
    let args = json!({
        "library": tool.join("lib/helper.js"),
        "credentials": tool.join("credentials.toml"),
    });
    let mut run = env.cmd(&["routine", "run", "probe-read", "--args", &args.to_string(), "--json"]);
    // Bun where the real home has it (the stand-in home has none).
    let bun = std::env::var_os("HOME").map(|h| {
        PathBuf::from(h).join(".cowork-studio/runtime/node_modules/@oven/bun-linux-x64/bin/bun")
    });
    if let Some(bun) = bun.filter(|b| b.is_file()) {
        run.env("COWORK_BUN", bun);
    }
    let out = run.env("HOME", home.path()).env("PATH", path).output().unwrap();
    let outcome: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        outcome["result"],
        json!({ "library": "read", "credentials": "EACCES" }),
        "{outcome} {}",
        stderr(&out)
    );
}

/// Lists what the routine's own descriptors lead to.
const DESCRIPTORS: &str = r#"import fs from "node:fs";
export default () => fs.readdirSync("/proc/self/fd").map((fd) => { try { return fs.readlinkSync(`/proc/self/fd/${fd}`); } catch (e: any) { return e.code; } });
"#;

#[test]
fn a_routine_gets_no_descriptor_its_daemon_inherited() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        env.app(
            "probe",
            r#"{ "name": "probe", "version": "0.1.0", "kind": "app", "routines": { "probe-fds": "fds.ts" } }"#,
            &[("fds.ts", DESCRIPTORS)],
        );
        // A file outside every grant, open on fds 7 and 9 of the daemon's without close-on-exec,
        // as a shell, a service manager or a library beside it (the desktop app's GTK and
        // WebKit) leaves descriptors: Landlock checks opening, so an open one would be readable.
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("inherited-secret.txt");
        std::fs::write(&secret, "not the routine's").unwrap();
        let setup = "exec 7<\"$1\" 9<>\"$1\"";
        let _daemon = super::daemon_after(&env, free_port(), setup, &[&path_str(&secret)]);
        let held = env.ok("probe-fds", json!({}));
        let held: Vec<&str> = held.as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert!(!held.is_empty(), "{runtime}: the routine listed its descriptors");
        assert!(
            !held.iter().any(|target| target.contains("inherited-secret")),
            "{runtime}: the routine holds the daemon's inherited descriptors: {held:?}"
        );
    }
}

/// Reads a file of the machine's `/dev/shm` and writes one of its own there.
const SHARED_MEMORY: &str = r#"import fs from "node:fs";
const attempt = (f: () => unknown) => { try { return f(); } catch (e: any) { return e.code ?? e.name; } };
export default (args: any) => ({
  planted: attempt(() => fs.readFileSync(`/dev/shm/${args.planted}`, "utf8")),
  listed: attempt(() => fs.readdirSync("/dev/shm").includes(args.planted)),
  own: attempt(() => { fs.writeFileSync(`/dev/shm/${args.own}`, "the workspace's"); return "wrote"; }),
  again: attempt(() => fs.readFileSync(`/dev/shm/${args.own}`, "utf8")),
});
"#;

#[test]
fn a_routine_gets_a_dev_shm_of_its_workspaces_own() {
    for runtime in runtimes() {
        let env = Env::new(runtime);
        let doctor = stdout(&env.run(&["doctor"]));
        if !doctor.contains("routines are confined (Landlock ABI ") {
            return;
        }
        env.app(
            "probe",
            r#"{ "name": "probe", "version": "0.1.0", "kind": "app", "routines": { "probe-shm": "shm.ts" } }"#,
            &[("shm.ts", SHARED_MEMORY)],
        );
        // What another workspace's routine (or any program) left in the machine's /dev/shm.
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
        let planted = format!("cowork-test-planted-{}", nanos.as_nanos());
        let own = format!("cowork-test-own-{}", nanos.as_nanos());
        let planted_file = std::path::Path::new("/dev/shm").join(&planted);
        std::fs::write(&planted_file, "another workspace's").unwrap();
        let result = env.ok("probe-shm", json!({ "planted": planted, "own": own }));
        std::fs::remove_file(&planted_file).unwrap();
        assert_ne!(result["planted"], "another workspace's", "{runtime}: {result}");
        assert_ne!(result["listed"], true, "{runtime}: {result}");
        let in_machines = std::path::Path::new("/dev/shm").join(&own);
        assert!(!in_machines.exists(), "{runtime}: written to the machine's /dev/shm");
        let key = cowork_core::paths::workspace_key(&env.ws_path());
        let folder = std::path::Path::new("/dev/shm").join(format!("cowork-routines-{key}"));
        if result["own"] == "wrote" {
            // Its own /dev/shm is its workspace's folder in the machine's, kept for its next runs.
            assert_eq!(result["again"], "the workspace's", "{runtime}: {result}");
            let kept = folder.join(&own);
            assert_eq!(std::fs::read_to_string(&kept).unwrap(), "the workspace's", "{runtime}");
        } else {
            refused_namespaces(&result, runtime);
        }

        // Where the system refuses this user namespaces (here: none left to create, in a user
        // namespace of the test's own), the routine still never reaches the machine's /dev/shm.
        std::fs::write(&planted_file, "another workspace's").unwrap();
        let args = json!({ "planted": planted, "own": own }).to_string();
        let refused = std::process::Command::new("unshare")
            .args([
                "-Ur",
                "sh",
                "-c",
                "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" \"$@\"",
            ])
            .arg(env!("CARGO_BIN_EXE_cowork"))
            .args(["routine", "run", "probe-shm", "--args", &args, "--json"])
            .current_dir(env.ws.path())
            .env("COWORK_HOME", env.home.path())
            .env("COWORK_RUNTIME", runtime)
            .stdin(Stdio::null())
            .output();
        std::fs::remove_file(&planted_file).unwrap();
        let _ = std::fs::remove_dir_all(folder);
        // unshare(1) itself failing (no such program, no namespace for the test) prints nothing.
        let Some(refused) = refused.ok().filter(|out| !out.stdout.is_empty()) else {
            eprintln!("skipped the refused case: no unshare(1) or no user namespace for the test");
            continue;
        };
        let outcome: Value = serde_json::from_slice(&refused.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", transcript(&refused)));
        refused_namespaces(&outcome["result"], runtime);
    }
}

/// What a routine reaches of `/dev/shm` when the system refused it namespaces: nothing.
fn refused_namespaces(result: &Value, runtime: &str) {
    for what in ["planted", "listed", "own"] {
        assert_eq!(result[what], "EACCES", "{runtime} {what}: {result}");
    }
}
