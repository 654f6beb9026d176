//! Which JavaScript runtime runs routines: Bun when found, else Node ≥ 20.
//!
//! Bun is looked for in `$COWORK_BUN`, then on `PATH`, then where the set-up command installs it
//! from npm (`<platform root>/runtime/node_modules/@oven/bun-linux-x64/bin/bun`). `COWORK_RUNTIME=node`
//! (or `bun`) forces one, which is how the tests run every case on both.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Bun or Node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RuntimeKind {
    Bun,
    Node,
}

impl std::fmt::Display for RuntimeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RuntimeKind::Bun => "bun",
            RuntimeKind::Node => "node",
        })
    }
}

/// A runtime found on this machine.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Runtime {
    pub kind: RuntimeKind,
    pub path: PathBuf,
    pub version: String,
    /// Where it was found: `COWORK_BUN`, `PATH` or `installed`.
    pub found_in: &'static str,
}

/// No runtime could run routines.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RuntimeError {
    /// Neither Bun nor a recent enough Node was found.
    #[error("no JavaScript runtime found to run routines (looked for Bun in $COWORK_BUN, PATH and {installed}, and Node ≥ 20 on PATH){node_note}")]
    NotFound { installed: String, node_note: String },
    /// `COWORK_RUNTIME` names a runtime that is not there.
    #[error("COWORK_RUNTIME={0} but that runtime was not found")]
    Forced(String),
}

impl RuntimeError {
    /// What the person can do about it.
    pub fn hint(&self) -> &'static str {
        "install Bun with `npm install --prefix ~/.cowork-studio/runtime @oven/bun-linux-x64` (or run the README's set-up command), or install Node 20+"
    }
}

/// Finds the runtime routines run on.
pub fn find() -> Result<Runtime, RuntimeError> {
    let forced = std::env::var("COWORK_RUNTIME").ok().filter(|v| !v.is_empty());
    match forced.as_deref() {
        Some("node") => return find_node().map_err(|_| RuntimeError::Forced("node".into())),
        Some("bun") => return find_bun().ok_or_else(|| RuntimeError::Forced("bun".into())),
        _ => {}
    }
    if let Some(bun) = find_bun() {
        return Ok(bun);
    }
    find_node().map_err(|node_note| RuntimeError::NotFound { installed: installed_bun().display().to_string(), node_note })
}

/// Where the set-up command installs Bun.
pub fn installed_bun() -> PathBuf {
    cowork_core::paths::platform_root().join("runtime/node_modules/@oven/bun-linux-x64/bin/bun")
}

fn find_bun() -> Option<Runtime> {
    let candidates: [(Option<PathBuf>, &'static str); 3] = [
        (std::env::var_os("COWORK_BUN").map(PathBuf::from), "COWORK_BUN"),
        (on_path("bun"), "PATH"),
        (Some(installed_bun()), "installed"),
    ];
    candidates.into_iter().find_map(|(path, found_in)| {
        let path = path?;
        let version = version_of(&path)?;
        Some(Runtime { kind: RuntimeKind::Bun, path, version, found_in })
    })
}

fn find_node() -> Result<Runtime, String> {
    let Some(path) = on_path("node") else { return Err(String::new()) };
    let version = version_of(&path).ok_or_else(String::new)?;
    let major: u32 = version.trim_start_matches('v').split('.').next().and_then(|m| m.parse().ok()).unwrap_or(0);
    if major < 20 {
        return Err(format!("; Node {version} at {} is older than 20", path.display()));
    }
    Ok(Runtime { kind: RuntimeKind::Node, path, version, found_in: "PATH" })
}

fn version_of(path: &Path) -> Option<String> {
    let out = Command::new(path).arg("--version").output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(name)).find(|p| p.is_file())
}

impl Runtime {
    /// The argv that runs `script` (Bun never installs packages on its own: no network at run time).
    pub fn command(&self, script: &Path) -> (PathBuf, Vec<std::ffi::OsString>) {
        let mut args: Vec<std::ffi::OsString> = Vec::new();
        if self.kind == RuntimeKind::Bun {
            args.push("--no-install".into());
        }
        args.push(script.as_os_str().to_owned());
        (self.path.clone(), args)
    }
}
