//! Which runtime runs routines (`COWORK_BUN`, Bun on PATH, the installed Bun, Node ≥ 20, none), as
//! `cowork doctor` reports it, with small fake `bun`/`node` executables that only print a version.

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A folder of fake executables and a home whose `~/.cowork-studio` has no installed Bun.
struct Machine {
    env: Env,
    bin: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Machine {
    fn new() -> Machine {
        Machine {
            env: Env::new("bun"),
            bin: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    /// `name` printing `version` to `--version`, in `dir`.
    fn fake(dir: &Path, name: &str, version: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\necho {version}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn on_path(&self, name: &str, version: &str) -> PathBuf {
        Machine::fake(self.bin.path(), name, version)
    }

    /// Where the README's set-up command installs Bun, under this machine's home.
    fn installed_bun(&self, version: &str) -> PathBuf {
        Machine::fake(
            &self.home.path().join(".cowork-studio/runtime/node_modules/@oven/bun-linux-x64/bin"),
            "bun",
            version,
        )
    }

    /// `cowork <args>` with only the fake executables on PATH and no runtime forced.
    fn run(&self, args: &[&str], vars: &[(&str, &Path)]) -> Output {
        let mut cmd = self.env.cmd(args);
        cmd.env_remove("COWORK_RUNTIME")
            .env_remove("COWORK_BUN")
            .env("PATH", self.bin.path())
            .env("HOME", self.home.path());
        cmd.envs(vars.iter().copied()).output().unwrap()
    }

    /// Doctor's runtime line.
    fn doctor_runtime(&self, vars: &[(&str, &Path)]) -> (Option<i32>, String) {
        let out = self.run(&["doctor"], vars);
        let line = stdout(&out)
            .lines()
            .find(|l| l.get(5..).is_some_and(|topic| topic.starts_with("runtime ")))
            .unwrap_or_else(|| panic!("{}", stdout(&out)))
            .to_string();
        (out.status.code(), line)
    }
}

#[test]
fn bun_is_looked_for_in_cowork_bun_then_path_then_the_installed_copy() {
    let machine = Machine::new();
    let chosen = Machine::fake(&machine.bin.path().join("elsewhere"), "bun", "1.3.0");
    let on_path = machine.on_path("bun", "1.2.0");
    let installed = machine.installed_bun("1.1.0");
    machine.on_path("node", "v22.1.0");
    let line = |vars: &[(&str, &Path)]| machine.doctor_runtime(vars).1;
    assert_eq!(
        line(&[("COWORK_BUN", &chosen)]),
        format!("ok   runtime  bun 1.3.0 ({}, found in COWORK_BUN)", chosen.display())
    );
    assert_eq!(
        line(&[]),
        format!("ok   runtime  bun 1.2.0 ({}, found in PATH)", on_path.display())
    );
    std::fs::remove_file(&on_path).unwrap();
    assert_eq!(
        line(&[]),
        format!("ok   runtime  bun 1.1.0 ({}, found in installed)", installed.display())
    );
}

#[test]
fn node_20_or_later_runs_routines_when_there_is_no_bun() {
    let machine = Machine::new();
    let node = machine.on_path("node", "v20.11.1");
    assert_eq!(
        machine.doctor_runtime(&[]),
        (Some(0), format!("ok   runtime  node v20.11.1 ({}, found in PATH)", node.display()))
    );
}

#[test]
fn an_older_node_or_none_at_all_is_no_runtime() {
    let machine = Machine::new();
    let installed =
        machine.home.path().join(".cowork-studio/runtime/node_modules/@oven/bun-linux-x64/bin/bun");
    let hint = "run `cowork install` (Bun from the npm registry into the Cowork root, and start at login), or install Node 20+";
    let none = format!("no JavaScript runtime found to run routines (looked for Bun in $COWORK_BUN, PATH and {}, and Node ≥ 20 on PATH)", installed.display());
    assert_eq!(machine.doctor_runtime(&[]), (Some(1), format!("FAIL runtime  {none}; {hint}")));

    let node = machine.on_path("node", "v18.19.0");
    assert_eq!(
        machine.doctor_runtime(&[]),
        (
            Some(1),
            format!(
                "FAIL runtime  {none}; Node v18.19.0 at {} is older than 20; {hint}",
                node.display()
            )
        )
    );

    machine.env.app(
        "notes",
        r#"{ "name": "notes", "version": "1.0.0", "routines": { "notes-hello": "hello.ts" } }"#,
        &[("hello.ts", "export default () => 1;\n")],
    );
    let out = machine.run(&["routine", "run", "notes-hello", "--json"], &[]);
    let outcome: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(outcome["error"]["name"], "NoRuntime", "{outcome}");
    assert!(outcome["error"]["message"].as_str().unwrap().ends_with(hint), "{outcome}");
}

#[test]
fn runtime_variables_that_cannot_be_honoured_are_named() {
    let machine = Machine::new();
    let bun = machine.on_path("bun", "1.2.0");
    let node = machine.on_path("node", "v18.19.0");
    let missing = machine.bin.path().join("nowhere/bun");

    // A COWORK_BUN that does not run is passed over, and doctor says so.
    let out = machine.run(&["doctor"], &[("COWORK_BUN", &missing)]);
    let text = stdout(&out);
    assert!(
        text.contains(&format!("ok   runtime  bun 1.2.0 ({}, found in PATH)", bun.display())),
        "{text}"
    );
    assert!(text.contains(&format!("warn runtime  COWORK_BUN={} does not run (`--version` failed), so it is passed over: fix or unset it", missing.display())), "{text}");

    // A forced runtime that is unknown or too old refuses: in doctor and for a run.
    machine.env.app(
        "notes",
        r#"{ "name": "notes", "version": "1.0.0", "routines": { "notes-hello": "hello.ts" } }"#,
        &[("hello.ts", "export default () => 1;\n")],
    );
    for (value, line) in [
        ("deno", "COWORK_RUNTIME=deno is not a runtime Cowork runs routines on (bun or node); set COWORK_RUNTIME to bun or node, or unset it to use whichever is installed".to_string()),
        ("node", format!("COWORK_RUNTIME=node but Node v18.19.0 at {} is older than 20; install Node 20+, or unset COWORK_RUNTIME to run routines on Bun", node.display())),
    ] {
        let forced: &[(&str, &Path)] = &[("COWORK_RUNTIME", Path::new(value))];
        assert_eq!(machine.doctor_runtime(forced), (Some(1), format!("FAIL runtime  {line}")), "{value}");
        let out = machine.run(&["routine", "run", "notes-hello", "--json"], forced);
        let outcome: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!((outcome["error"]["name"].as_str(), outcome["error"]["message"].as_str()), (Some("NoRuntime"), Some(line.as_str())), "{value}");
    }
}
