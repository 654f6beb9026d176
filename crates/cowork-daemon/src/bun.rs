//! Bun, the routine runtime, installed by Cowork itself on first need: the npm registry's
//! `@oven/bun-linux-x64` package, its tarball checked against the registry's `integrity`
//! (sha512) before anything is unpacked, then its `bin/bun` put where the engine looks for it
//! (`cowork_engine::runtime::installed_bun`). The CLI (`cowork install`, `cowork setup`) and the
//! workbench (`POST /api/runtime/install`) both call [`install`] and draw its progress.

use base64::Engine as _;
use sha2::{Digest, Sha512};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The Bun version Cowork installs (the one scripts/install-deps pins for development).
pub const VERSION: &str = "1.4.5";
/// The npm package per platform: only Linux on x86-64 has a place the engine looks in.
const PACKAGE: &str = "@oven/bun-linux-x64";
/// The registry: `$COWORK_NPM_REGISTRY` (a mirror, or a test's), else npm's own.
const REGISTRY_ENV: &str = "COWORK_NPM_REGISTRY";
const REGISTRY: &str = "https://registry.npmjs.org";

/// Why Bun could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// This platform has no Bun package the engine would find.
    #[error("failed to install Bun: Cowork installs it only on Linux x86-64 (this is {0})")]
    Platform(String),
    /// The registry did not answer, or answered with an error.
    #[error("failed to fetch {url}: {why}")]
    Fetch { url: String, why: String },
    /// The package's metadata lacks a tarball or a sha512 integrity.
    #[error("failed to read {url}: {why}")]
    Metadata { url: String, why: String },
    /// The tarball is not what the registry's integrity says: nothing was unpacked.
    #[error("failed to install Bun: the download of {url} does not match its integrity ({expected}); nothing was installed")]
    Integrity { url: String, expected: String },
    /// Unpacking or placing the binary failed.
    #[error("failed to install Bun into {path}: {why}")]
    Write { path: PathBuf, why: String },
}

impl InstallError {
    /// The fix, for the person.
    pub fn hint(&self) -> &'static str {
        match self {
            InstallError::Platform(_) => "install Bun yourself and set COWORK_BUN to it, or install Node 20+",
            InstallError::Fetch { .. } | InstallError::Metadata { .. } => "check the connection to the npm registry (or set COWORK_NPM_REGISTRY to a mirror), then run `cowork install` again",
            InstallError::Integrity { .. } => "run `cowork install` again; if it fails the same way, the registry or a proxy serves a different file: tell us",
            InstallError::Write { .. } => "free some space or fix the folder's permissions, then run `cowork install` again",
        }
    }
}

/// Where an install is: bytes downloaded of the total (when the registry said it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub done: u64,
    pub total: Option<u64>,
}

/// Downloads, checks and installs Bun [`VERSION`] at `target` (the engine's `installed_bun()`),
/// calling `progress` as bytes arrive. Returns `target`.
pub async fn install(
    target: &Path,
    mut progress: impl FnMut(Progress),
) -> Result<PathBuf, InstallError> {
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        return Err(InstallError::Platform(format!(
            "{} {}",
            std::env::consts::OS,
            std::env::consts::ARCH
        )));
    }
    let registry = std::env::var(REGISTRY_ENV).ok().filter(|r| !r.is_empty());
    let registry = registry.as_deref().unwrap_or(REGISTRY).trim_end_matches('/');
    let client = reqwest::Client::builder()
        .connect_timeout(std::time::Duration::from_secs(15))
        .build()
        .map_err(|e| InstallError::Fetch { url: registry.into(), why: e.to_string() })?;

    let url = format!("{registry}/{}/{VERSION}", PACKAGE.replace('/', "%2f"));
    let metadata: serde_json::Value = fetch(&client, &url)
        .await?
        .json()
        .await
        .map_err(|e| InstallError::Metadata { url: url.clone(), why: e.to_string() })?;
    let (tarball, expected) =
        match (metadata["dist"]["tarball"].as_str(), metadata["dist"]["integrity"].as_str()) {
            (Some(tarball), Some(integrity)) if integrity.starts_with("sha512-") => {
                (tarball.to_string(), integrity.to_string())
            }
            _ => {
                return Err(InstallError::Metadata {
                    url,
                    why: "no dist.tarball with a sha512 dist.integrity".into(),
                })
            }
        };

    let mut response = fetch(&client, &tarball).await?;
    let total = response.content_length();
    let mut bytes = Vec::with_capacity(total.unwrap_or(0) as usize);
    progress(Progress { done: 0, total });
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| InstallError::Fetch { url: tarball.clone(), why: e.to_string() })?
    {
        bytes.extend_from_slice(&chunk);
        progress(Progress { done: bytes.len() as u64, total });
    }
    let actual = format!(
        "sha512-{}",
        base64::engine::general_purpose::STANDARD.encode(Sha512::digest(&bytes))
    );
    if actual != expected {
        return Err(InstallError::Integrity { url: tarball, expected });
    }
    let target_owned = target.to_path_buf();
    tokio::task::spawn_blocking(move || unpack(&bytes, &target_owned))
        .await
        .map_err(|e| InstallError::Write { path: target.to_path_buf(), why: e.to_string() })??;
    Ok(target.to_path_buf())
}

async fn fetch(client: &reqwest::Client, url: &str) -> Result<reqwest::Response, InstallError> {
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|e| InstallError::Fetch { url: url.into(), why: e.to_string() })?;
    if !response.status().is_success() {
        return Err(InstallError::Fetch {
            url: url.into(),
            why: format!("HTTP {}", response.status()),
        });
    }
    Ok(response)
}

/// Takes `package/bin/bun` out of the checked tarball and puts it at `target`, executable,
/// through a temporary file beside it: a half-written binary is never where the engine looks.
fn unpack(tgz: &[u8], target: &Path) -> Result<(), InstallError> {
    let write = |why: String| InstallError::Write { path: target.to_path_buf(), why };
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(tgz));
    let mut binary = None;
    for entry in archive.entries().map_err(|e| write(e.to_string()))? {
        let mut entry = entry.map_err(|e| write(e.to_string()))?;
        if entry.path().map_err(|e| write(e.to_string()))?.as_ref() == Path::new("package/bin/bun")
        {
            let mut bytes = Vec::new();
            entry.read_to_end(&mut bytes).map_err(|e| write(e.to_string()))?;
            binary = Some(bytes);
            break;
        }
    }
    let binary = binary.ok_or_else(|| write("the package holds no package/bin/bun".into()))?;
    cowork_core::fs_atomic::write(target, &binary, false).map_err(|e| write(e.to_string()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(target, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| write(e.to_string()))?;
    }
    Ok(())
}
