//! Bun, the routine runtime, installed by Cowork itself on first need: the npm registry's
//! `@oven/bun-linux-x64` package, its tarball fetched over https and checked against the sha512
//! pinned here ([`INTEGRITY_LINUX_X64`]) before anything is unpacked — never against what the
//! registry says, which comes from the same answer as the tarball — then its `bin/bun` put where
//! the engine looks for it (`cowork_engine::runtime::installed_bun`). The CLI (`cowork install`,
//! `cowork setup`) and the workbench (`POST /api/runtime/install`) both call [`install`] and draw
//! its progress.

use base64::Engine as _;
use sha2::{Digest, Sha512};
use std::io::Read;
use std::path::{Path, PathBuf};

// The pins below are also what `scripts/install-deps` installs for development, which reads them
// from these lines: keep each on one line, in this shape.

/// The Bun version Cowork installs.
pub const VERSION: &str = "1.4.5";
/// The npm `integrity` of `@oven/bun-linux-x64` [`VERSION`]'s tarball: the sha512 it must have.
pub const INTEGRITY_LINUX_X64: &str = "sha512-IWX9BELoGHAUtMonkeSaNaZwXzRk+oDw6Mk+HBFXd3KHYIBNBsIGRupMZPcgNoDbJpLu6gAJjIoIVPZtt1aJ1g==";
/// The same of `@oven/bun-linux-aarch64` (only `scripts/install-deps` installs it).
pub const INTEGRITY_LINUX_AARCH64: &str = "sha512-4BXmsSKnjOrlGWqZV4x/oWa7AVoR+B6lCXddMzOAXBIm3t50eslg9wb66gmtW1AamEQ1l1CDvmmruysEhqOWMg==";
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
    Fetch {
        /// The address asked.
        url: String,
        /// What the registry or the connection said.
        why: String,
    },
    /// The package's metadata lacks a tarball, or names one that is not on https.
    #[error("failed to read {url}: {why}")]
    Metadata {
        /// The metadata's address.
        url: String,
        /// What it lacks.
        why: String,
    },
    /// The tarball is not the one pinned for this version: nothing was unpacked.
    #[error("failed to install Bun: the download of {url} does not match its integrity ({expected}, pinned for Bun {version}); nothing was installed")]
    Integrity {
        /// The tarball's address.
        url: String,
        /// The integrity pinned for it.
        expected: String,
        /// The Bun version pinned.
        version: &'static str,
    },
    /// Unpacking or placing the binary failed.
    #[error("failed to install Bun into {path}: {why}")]
    Write {
        /// Where Bun was being put.
        path: PathBuf,
        /// What the system said.
        why: String,
    },
}

impl InstallError {
    /// The fix, for the person.
    pub fn hint(&self) -> &'static str {
        match self {
            InstallError::Platform(_) => "install Bun yourself and set COWORK_BUN to it, or install Node 20+",
            InstallError::Fetch { .. } | InstallError::Metadata { .. } => "check the connection to the npm registry (or set COWORK_NPM_REGISTRY to a mirror), then run `cowork install` again",
            InstallError::Integrity { .. } => "run `cowork install` again; if it fails the same way, the registry (COWORK_NPM_REGISTRY) or a proxy serves a different file than npm's: install Bun yourself and set COWORK_BUN to it, or tell us",
            InstallError::Write { .. } => "free some space or fix the folder's permissions, then run `cowork install` again",
        }
    }
}

/// Where an install is: bytes downloaded of the total (when the registry said it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Bytes downloaded so far.
    pub done: u64,
    /// The download's size, when the registry said it.
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

    // Only the tarball's address is taken from the registry: its integrity is ours.
    let url = format!("{registry}/{}/{VERSION}", PACKAGE.replace('/', "%2f"));
    let metadata: serde_json::Value = fetch(&client, &url)
        .await?
        .json()
        .await
        .map_err(|e| InstallError::Metadata { url: url.clone(), why: e.to_string() })?;
    let Some(tarball) = metadata["dist"]["tarball"].as_str().map(str::to_string) else {
        return Err(InstallError::Metadata { url, why: "no dist.tarball".into() });
    };
    if !secure(&tarball) {
        return Err(InstallError::Metadata {
            url,
            why: format!("its dist.tarball {tarball} is not an https address"),
        });
    }
    let expected = INTEGRITY_LINUX_X64;

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
        return Err(InstallError::Integrity {
            url: tarball,
            expected: expected.into(),
            version: VERSION,
        });
    }
    let target_owned = target.to_path_buf();
    tokio::task::spawn_blocking(move || unpack(&bytes, &target_owned))
        .await
        .map_err(|e| InstallError::Write { path: target.to_path_buf(), why: e.to_string() })??;
    Ok(target.to_path_buf())
}

/// Whether the tarball at `url` is fetched over https — or from this machine (a mirror on
/// loopback, as the tests run), where there is no network to tamper with it on the way. The pinned
/// sha512 is what proves the file; this keeps who serves it from being anybody on the path.
pub(crate) fn secure(url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(url) else { return false };
    let host = url.host_str().unwrap_or_default();
    let loopback = host == "localhost"
        || host
            .trim_matches(['[', ']'])
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    url.scheme() == "https" || (url.scheme() == "http" && loopback)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tarball_comes_over_https_or_from_this_machine() {
        assert!(secure("https://registry.npmjs.org/@oven/bun-linux-x64/-/bun-linux-x64-1.4.5.tgz"));
        assert!(secure("http://127.0.0.1:4873/bun.tgz"), "a mirror on loopback");
        assert!(secure("http://localhost:4873/bun.tgz"));
        assert!(secure("http://[::1]:4873/bun.tgz"));
        assert!(!secure("http://registry.npmjs.org/bun.tgz"));
        assert!(!secure("http://127.0.0.1.example.com/bun.tgz"));
        assert!(!secure("ftp://127.0.0.1/bun.tgz"));
        assert!(!secure("bun.tgz"));
    }

    /// `scripts/install-deps` reads the version and the integrities from these lines with sed: a
    /// pin written otherwise would leave it installing without a check.
    #[test]
    fn the_pins_keep_the_shape_install_deps_reads() {
        let source = include_str!("bun.rs");
        for (name, value) in [
            ("VERSION", VERSION),
            ("INTEGRITY_LINUX_X64", INTEGRITY_LINUX_X64),
            ("INTEGRITY_LINUX_AARCH64", INTEGRITY_LINUX_AARCH64),
        ] {
            let line = format!("pub const {name}: &str = \"{value}\";");
            assert!(source.lines().any(|l| l == line), "no line `{line}`");
        }
        let script = include_str!("../../../scripts/install-deps");
        for name in ["VERSION", "INTEGRITY_LINUX_X64", "INTEGRITY_LINUX_AARCH64"] {
            assert!(script.contains(&format!("bun_pin {name}")), "install-deps reads no {name}");
        }
    }
}
