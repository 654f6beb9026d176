//! Which JavaScript runtime runs routines: Bun when found, else Node ≥ 20.
//!
//! Bun is looked for in `$COWORK_BUN`, then on `PATH`, then where the set-up command installs it
//! from npm (`<platform root>/runtime/node_modules/@oven/bun-linux-x64/bin/bun`). `COWORK_RUNTIME=node`
//! (or `bun`) forces one, which is how the tests run every case on both; a forced runtime that is
//! missing or too old, or any other value, is an error naming the variable — never a quiet fallback.

use std::path::{Path, PathBuf};
use std::process::Command;

// `cowork status` shows the runtime the daemon found: its shape is cowork-wire's.
pub use cowork_wire::daemon::status::{Runtime, RuntimeKind};

/// No runtime could run routines.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RuntimeError {
    /// Neither Bun nor a recent enough Node was found.
    #[error("no JavaScript runtime found to run routines (looked for Bun in $COWORK_BUN, PATH and {installed}, and Node ≥ 20 on PATH){node_note}")]
    NotFound {
        /// Where `cowork install` puts Bun.
        installed: String,
        /// What was wrong with a Node that was found, when one was.
        node_note: String,
    },
    /// `COWORK_RUNTIME` names something Cowork does not run routines on.
    #[error("COWORK_RUNTIME={0} is not a runtime Cowork runs routines on (bun or node)")]
    Unknown(String),
    /// `COWORK_RUNTIME` forces a runtime that is not there, or too old.
    #[error("COWORK_RUNTIME={kind} but {why}")]
    Forced {
        /// The runtime forced.
        kind: RuntimeKind,
        /// Why it cannot be used.
        why: String,
    },
}

/// The variable that forces a runtime.
const RUNTIME_ENV: &str = "COWORK_RUNTIME";
/// The variable that names the Bun binary.
const BUN_ENV: &str = "COWORK_BUN";

impl RuntimeError {
    /// What the person can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            RuntimeError::NotFound { .. } => "run `cowork install` (Bun from the npm registry into the Cowork root, and start at login), or install Node 20+",
            RuntimeError::Unknown(_) => "set COWORK_RUNTIME to bun or node, or unset it to use whichever is installed",
            RuntimeError::Forced { kind: RuntimeKind::Node, .. } => "install Node 20+, or unset COWORK_RUNTIME to run routines on Bun",
            RuntimeError::Forced { kind: RuntimeKind::Bun, .. } => "run `cowork install` (Bun from the npm registry into the Cowork root), or unset COWORK_RUNTIME to run routines on Node 20+",
        }
    }
}

/// Finds the runtime routines run on.
pub fn find() -> Result<Runtime, RuntimeError> {
    let forced = std::env::var(RUNTIME_ENV).ok().filter(|v| !v.is_empty());
    match forced.as_deref() {
        Some("node") => {
            return find_node().map_err(|why| RuntimeError::Forced {
                kind: RuntimeKind::Node,
                why: why.unwrap_or_else(|| "there is no node on PATH".into()),
            })
        }
        Some("bun") => {
            return find_bun().ok_or_else(|| RuntimeError::Forced {
                kind: RuntimeKind::Bun,
                why: format!("no Bun runs from $COWORK_BUN, PATH or {}", installed_bun().display()),
            })
        }
        Some(other) => return Err(RuntimeError::Unknown(other.to_owned())),
        None => {}
    }
    if let Some(bun) = find_bun() {
        return Ok(bun);
    }
    find_node().map_err(|why| RuntimeError::NotFound {
        installed: installed_bun().display().to_string(),
        node_note: why.map(|why| format!("; {why}")).unwrap_or_default(),
    })
}

/// What is wrong with the runtime variables although a runtime was found: a `COWORK_BUN` that
/// does not run is passed over for the next Bun, which `cowork doctor` must say.
pub fn warnings() -> Vec<String> {
    let mut found = Vec::new();
    if let Some(path) = std::env::var_os(BUN_ENV).filter(|v| !v.is_empty()).map(PathBuf::from) {
        if version_of(&path).is_none() {
            found.push(format!("{BUN_ENV}={} does not run (`--version` failed), so it is passed over: fix or unset it", path.display()));
        }
    }
    found
}

/// Where the set-up command installs Bun.
pub fn installed_bun() -> PathBuf {
    cowork_core::paths::platform_root().join("runtime/node_modules/@oven/bun-linux-x64/bin/bun")
}

fn find_bun() -> Option<Runtime> {
    let candidates: [(Option<PathBuf>, &'static str); 3] = [
        (std::env::var_os(BUN_ENV).filter(|v| !v.is_empty()).map(PathBuf::from), BUN_ENV),
        (on_path("bun"), "PATH"),
        (Some(installed_bun()), "installed"),
    ];
    candidates.into_iter().find_map(|(path, found_in)| {
        let path = path?;
        let version = version_of(&path)?;
        Some(Runtime { kind: RuntimeKind::Bun, path, version, found_in: found_in.into() })
    })
}

/// Node ≥ 20 on PATH; `Err(None)` when there is no node, `Err(Some(why))` when it cannot be used.
fn find_node() -> Result<Runtime, Option<String>> {
    let Some(path) = on_path("node") else { return Err(None) };
    let version = version_of(&path).ok_or_else(|| {
        Some(format!("node at {} does not run (`--version` failed)", path.display()))
    })?;
    let major: u32 =
        version.trim_start_matches('v').split('.').next().and_then(|m| m.parse().ok()).unwrap_or(0);
    if major < 20 {
        return Err(Some(format!("Node {version} at {} is older than 20", path.display())));
    }
    Ok(Runtime { kind: RuntimeKind::Node, path, version, found_in: "PATH".into() })
}

fn version_of(path: &Path) -> Option<String> {
    let out = Command::new(path).arg("--version").output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The argv that runs `script` on `runtime` (Bun never installs packages on its own: no network at
/// run time).
pub fn command(runtime: &Runtime, script: &Path) -> (PathBuf, Vec<std::ffi::OsString>) {
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    if runtime.kind == RuntimeKind::Bun {
        args.push("--no-install".into());
    }
    args.push(script.as_os_str().to_owned());
    (runtime.path.clone(), args)
}
