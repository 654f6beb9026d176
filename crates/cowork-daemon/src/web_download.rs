//! `"web": { "download": { "url", "sha256" } }` (page 12 "Web apps"): a web app's build kept out of
//! the app folder, fetched on the first open, checked against its sha256 BEFORE anything is
//! unpacked, and cached per sha256 under the Cowork root (`<root>/web-builds/<sha256>/`), so two
//! apps (or workspaces) pinning the same release share one copy and a new pin is a new folder.
//!
//! The zip is read here (stored and deflated entries, as release zips are; flate2 is already in
//! the tree for Bun's tarball): every entry's name is checked before a byte is written — one that
//! escapes the build folder (`..`), an absolute path, a backslash or a drive letter, and a symlink
//! are refused by name and nothing is kept. A zip whose files all sit in one top folder has it
//! stripped. The build is unpacked into a temporary folder beside the cache and renamed into
//! place, so a cached folder is always whole. No CRC check: the sha256 of the whole zip already
//! proves every byte is the one the app pinned.
//!
//! The address must be https — or http on this machine (a test server on loopback), as for
//! Bun's tarball (`bun::secure`): the pinned hash is what proves the file. The server's
//! certificate is checked against the built-in (webpki) roots — the system's store and
//! `SSL_CERT_FILE` are not read — plus, when [`EXTRA_CA_ENV`] names a PEM file, the authorities
//! in it: an explicit setting (a test server's authority, a company's TLS-inspecting proxy),
//! which `cowork doctor` reports whenever it is set.

use crate::error::{ApiError, Body};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use cowork_engine::ErrorName;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

/// The largest zip fetched, and the most its files may unpack to: a site, not a disk image.
const MAX_ZIP: u64 = 512 << 20;
const MAX_UNPACKED: u64 = 2 << 30;
const MAX_ENTRIES: usize = 100_000;

/// The variable naming a PEM file of certificate authorities trusted for web apps' downloads
/// besides the built-in roots.
pub const EXTRA_CA_ENV: &str = "COWORK_EXTRA_CA_CERTS";

/// The authorities [`EXTRA_CA_ENV`] names, read now: none when it is unset or empty, else its
/// path and certificates — or a named error (`BadConfig`) when the file cannot be read or holds
/// no certificate, never a silent fall back to the built-in roots alone.
pub fn extra_authorities(
) -> Result<Option<(PathBuf, Vec<reqwest::Certificate>)>, cowork_engine::CtxError> {
    match std::env::var_os(EXTRA_CA_ENV).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(path) => {
            let path = PathBuf::from(path);
            authorities_in(&path).map(|found| Some((path, found)))
        }
    }
}

/// The certificates of the PEM file at `path`.
fn authorities_in(path: &Path) -> Result<Vec<reqwest::Certificate>, cowork_engine::CtxError> {
    let unreadable = |why: String| {
        failed(
            ErrorName::BadConfig,
            format!("failed to read the certificate authorities {EXTRA_CA_ENV}={}: {why}", path.display()),
            "name a readable PEM file of CA certificates, or unset the variable to trust the built-in roots only",
        )
    };
    let pem = std::fs::read(path).map_err(|e| unreadable(e.to_string()))?;
    let found =
        reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| unreadable(e.to_string()))?;
    if found.is_empty() {
        return Err(unreadable("it holds no PEM certificate".into()));
    }
    Ok(found)
}

/// The folder of a cached build: `<root>/web-builds/<sha256>`.
pub(crate) fn build_dir(root: &Path, sha256: &str) -> PathBuf {
    root.join("web-builds").join(sha256.to_ascii_lowercase())
}

/// Where one build's fetch stands.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase", tag = "state")]
pub enum BuildState {
    /// Unpacked and cached: the page is served.
    Ready,
    /// Being fetched: bytes so far, and the length when the server said it.
    Fetching {
        /// Bytes received so far.
        received: u64,
        /// The zip's length, when the server sent `Content-Length`.
        total: Option<u64>,
    },
    /// Failed; opening the tab again tries again.
    Failed {
        /// Why, by name.
        error: cowork_engine::CtxError,
    },
}

/// Fetches under way or failed, by sha256.
static FETCHES: LazyLock<Mutex<HashMap<String, BuildState>>> = LazyLock::new(Default::default);

/// `POST /api/web-apps/build`'s body.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BuildOf {
    /// The workspace's folder.
    pub workspace: String,
    /// The web app's name.
    pub app: String,
}

/// `POST /api/web-apps/build` (owner): where the web app's build stands — `ready` (no download,
/// a copy in `web/`, or cached), else the fetch it starts (once) and its progress. The workbench
/// polls it while the tab shows the progress.
pub async fn build(
    State(state): State<AppState>,
    Body(body): Body<BuildOf>,
) -> Result<Json<BuildState>, ApiError> {
    let ws = state.engine.workspace(Path::new(&body.workspace))?;
    let registry = ws.registry();
    let app = registry.app_by_name(&body.app).filter(|a| a.enabled && a.manifest.is_web_app());
    let Some(app) = app else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!(
                "failed to open the web app \"{}\": no switched-on web app has that name",
                body.app
            ),
        ));
    };
    let Some(web) = app.manifest.web.clone() else { return Ok(Json(BuildState::Ready)) };
    let Some(download) = web.download else { return Ok(Json(BuildState::Ready)) };
    let index = web.index.unwrap_or_default();
    let root = state.engine.root().dir().to_path_buf();
    if app.path.join("web").join(&index).is_file() || build_dir(&root, &download.sha256).is_dir() {
        return Ok(Json(BuildState::Ready));
    }
    let sha = download.sha256.to_ascii_lowercase();
    let mut fetches = FETCHES.lock();
    match fetches.get(&sha) {
        Some(fetching @ BuildState::Fetching { .. }) => return Ok(Json(fetching.clone())),
        // A failed fetch answers its error once; asking again starts over.
        Some(failed @ BuildState::Failed { .. }) => {
            let failed = failed.clone();
            fetches.remove(&sha);
            return Ok(Json(failed));
        }
        _ => {}
    }
    let started = BuildState::Fetching { received: 0, total: None };
    fetches.insert(sha.clone(), started.clone());
    drop(fetches);
    let url = download.url.clone();
    tokio::spawn(async move {
        let outcome = match extra_authorities() {
            Ok(extra) => {
                let trusted = extra.map(|(_, found)| found).unwrap_or_default();
                fetch_and_unpack(&url, &sha, &root, &trusted).await
            }
            Err(error) => Err(error),
        };
        let mut fetches = FETCHES.lock();
        match outcome {
            Ok(()) => fetches.remove(&sha),
            Err(error) => fetches.insert(sha, BuildState::Failed { error }),
        };
    });
    Ok(Json(started))
}

fn failed(name: ErrorName, message: String, hint: &str) -> cowork_engine::CtxError {
    cowork_engine::CtxError::new(name, message).with_hint(hint)
}

fn progress(sha: &str, received: u64, total: Option<u64>) {
    FETCHES.lock().insert(sha.to_owned(), BuildState::Fetching { received, total });
}

/// Fetches `url` (its certificate checked against the built-in roots and `trusted`), checks it
/// is `sha`, and unpacks it into the cache.
pub(crate) async fn fetch_and_unpack(
    url: &str,
    sha: &str,
    root: &Path,
    trusted: &[reqwest::Certificate],
) -> Result<(), cowork_engine::CtxError> {
    let fetch_failed = |why: String| {
        failed(
            ErrorName::Unreachable,
            format!("failed to fetch the web app's build {url}: {why}"),
            "check the address and the network; opening the tab again tries again (a server \
             whose certificate is from an authority of your own needs it in COWORK_EXTRA_CA_CERTS)",
        )
    };
    // reqwest's message names only the request: the cause (a refused connection, a certificate
    // from an unknown authority) is in its sources.
    let fetch_failed_by = |error: reqwest::Error| {
        let mut why = error.to_string();
        let mut source = std::error::Error::source(&error);
        while let Some(cause) = source {
            why.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        fetch_failed(why)
    };
    if !crate::bun::secure(url) {
        return Err(failed(
            ErrorName::BadConfig,
            format!("failed to fetch the web app's build {url}: not an https address"),
            "\"web.download.url\" must be https",
        ));
    }
    let client = trusted
        .iter()
        .fold(reqwest::Client::builder(), |builder, authority| {
            builder.add_root_certificate(authority.clone())
        })
        .connect_timeout(std::time::Duration::from_secs(15))
        .build()
        .map_err(fetch_failed_by)?;
    let mut response = client.get(url).send().await.map_err(fetch_failed_by)?;
    if !response.status().is_success() {
        return Err(fetch_failed(format!("HTTP {}", response.status())));
    }
    let total = response.content_length();
    let mut zip = Vec::with_capacity(total.unwrap_or(0).min(MAX_ZIP) as usize);
    let mut hasher = Sha256::new();
    while let Some(chunk) = response.chunk().await.map_err(fetch_failed_by)? {
        hasher.update(&chunk);
        zip.extend_from_slice(&chunk);
        if zip.len() as u64 > MAX_ZIP {
            return Err(failed(
                ErrorName::TooLarge,
                format!(
                    "failed to fetch the web app's build {url}: more than {} MB",
                    MAX_ZIP >> 20
                ),
                "a web app's build is a static site",
            ));
        }
        progress(sha, zip.len() as u64, total);
    }
    let actual = hex::encode(hasher.finalize());
    if actual != sha {
        return Err(failed(
            ErrorName::Other("WrongHash".into()),
            format!("failed to unpack the web app's build {url}: its sha256 is {actual}, not the pinned {sha}; nothing was unpacked"),
            "if the release was replaced on purpose, put its sha256 in \"web.download.sha256\"",
        ));
    }
    let target = build_dir(root, sha);
    tokio::task::spawn_blocking(move || unpack_into(&zip, &target))
        .await
        .map_err(|e| fetch_failed(e.to_string()))?
}

fn bad_zip(message: String) -> cowork_engine::CtxError {
    failed(
        ErrorName::Other("BadZip".into()),
        format!("failed to unpack the web app's build: {message}; nothing was unpacked"),
        "a build's zip holds plain files inside one folder (no symlinks, no absolute or .. paths)",
    )
}

/// One file of the zip: where it is, how it is stored, where it goes.
struct Entry {
    name: String,
    method: u16,
    compressed: u64,
    size: u64,
    local: u64,
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}
fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

/// The entries of `zip`'s central directory, each name checked; refused by name otherwise.
fn entries(zip: &[u8]) -> Result<Vec<Entry>, cowork_engine::CtxError> {
    let truncated = || bad_zip("it is not a zip (no end of central directory)".into());
    let search_from = zip.len().saturating_sub(22 + 65_535);
    let end = (search_from..zip.len().saturating_sub(21))
        .rev()
        .find(|&at| u32_at(zip, at) == Some(0x0605_4b50))
        .ok_or_else(truncated)?;
    let count = u16_at(zip, end + 10).ok_or_else(truncated)? as usize;
    let mut at = u32_at(zip, end + 16).ok_or_else(truncated)? as usize;
    if count == 0xFFFF || at == 0xFFFF_FFFF_usize || count > MAX_ENTRIES {
        return Err(bad_zip("ZIP64 or more than 100,000 entries".into()));
    }
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        if u32_at(zip, at) != Some(0x0201_4b50) {
            return Err(truncated());
        }
        let field = |offset| u16_at(zip, at + offset).ok_or_else(truncated);
        let long = |offset| u32_at(zip, at + offset).ok_or_else(truncated);
        let (made_by, method) = (field(4)?, field(10)?);
        let (compressed, size) = (long(20)? as u64, long(24)? as u64);
        let (name_len, extra_len, comment_len) = (field(28)? as usize, field(30)?, field(32)?);
        let (attributes, local) = (long(38)?, long(42)? as u64);
        let raw = zip.get(at + 46..at + 46 + name_len).ok_or_else(truncated)?;
        let name = String::from_utf8_lossy(raw).into_owned();
        check_name(&name)?;
        let unix_mode = (made_by >> 8 == 3).then_some(attributes >> 16);
        if unix_mode.is_some_and(|mode| mode & 0o170000 == 0o120000) {
            return Err(bad_zip(format!("the entry \"{name}\" is a symlink")));
        }
        if !name.ends_with('/') && method != 0 && method != 8 {
            return Err(bad_zip(format!("the entry \"{name}\" uses compression method {method} (only stored and deflated are read)")));
        }
        out.push(Entry { name, method, compressed, size, local });
        at += 46 + name_len + extra_len as usize + comment_len as usize;
    }
    Ok(out)
}

/// A zip entry's name must stay inside the build: relative, forward slashes, no `..`.
fn check_name(name: &str) -> Result<(), cowork_engine::CtxError> {
    let absolute = name.starts_with('/')
        || name.as_bytes().get(1) == Some(&b':')
        || name.contains('\\')
        || name.contains('\0');
    if absolute {
        return Err(bad_zip(format!("the entry \"{name}\" is an absolute path")));
    }
    if name.split('/').any(|part| part == "..") {
        return Err(bad_zip(format!("the entry \"{name}\" escapes the build folder")));
    }
    Ok(())
}

/// The one top folder every entry sits in, to strip — when there is exactly one.
fn top_folder(entries: &[Entry]) -> Option<String> {
    let first = entries.first()?.name.split('/').next()?.to_owned();
    let all_inside = entries.iter().all(|e| {
        e.name == format!("{first}/") || e.name.strip_prefix(&format!("{first}/")).is_some()
    });
    all_inside.then_some(first)
}

/// Unpacks `zip` into `target` (through a temporary folder beside it, renamed into place).
pub(crate) fn unpack_into(zip: &[u8], target: &Path) -> Result<(), cowork_engine::CtxError> {
    let entries = entries(zip)?;
    let strip = top_folder(&entries);
    let parent = target.parent().unwrap_or(target);
    let write_failed = |e: std::io::Error| {
        failed(
            ErrorName::DiskFull,
            format!("failed to unpack the web app's build into {}: {e}", parent.display()),
            "check the disk's free space and the Cowork folder's permissions",
        )
    };
    std::fs::create_dir_all(parent).map_err(write_failed)?;
    let temp = parent.join(format!(".unpack-{}", hex::encode(rand::random::<[u8; 8]>())));
    let unpacked = unpack_entries(zip, &entries, strip.as_deref(), &temp).and_then(|()| {
        match std::fs::rename(&temp, target) {
            Ok(()) => Ok(()),
            // Another fetch of the same build finished first: it is the same bytes.
            Err(_) if target.is_dir() => Ok(()),
            Err(e) => Err(write_failed(e)),
        }
    });
    let _ = std::fs::remove_dir_all(&temp);
    unpacked
}

fn unpack_entries(
    zip: &[u8],
    entries: &[Entry],
    strip: Option<&str>,
    temp: &Path,
) -> Result<(), cowork_engine::CtxError> {
    let io = |e: std::io::Error| bad_zip(format!("it could not be written ({e})"));
    std::fs::create_dir_all(temp).map_err(io)?;
    let mut unpacked: u64 = 0;
    for entry in entries {
        let name = match strip {
            Some(top) => {
                entry.name.strip_prefix(top).unwrap_or(&entry.name).trim_start_matches('/')
            }
            None => entry.name.as_str(),
        };
        let relative = Path::new(name);
        if name.is_empty() || !relative.components().all(|c| matches!(c, Component::Normal(_))) {
            continue;
        }
        let path = temp.join(relative);
        if entry.name.ends_with('/') {
            std::fs::create_dir_all(&path).map_err(io)?;
            continue;
        }
        let truncated = || bad_zip(format!("the entry \"{}\" is cut short", entry.name));
        let local = entry.local as usize;
        if u32_at(zip, local) != Some(0x0403_4b50) {
            return Err(truncated());
        }
        let start = local
            + 30
            + u16_at(zip, local + 26).ok_or_else(truncated)? as usize
            + u16_at(zip, local + 28).ok_or_else(truncated)? as usize;
        let data = zip.get(start..start + entry.compressed as usize).ok_or_else(truncated)?;
        unpacked += entry.size;
        if unpacked > MAX_UNPACKED {
            return Err(bad_zip(format!("it unpacks to more than {} MB", MAX_UNPACKED >> 20)));
        }
        let mut bytes = Vec::with_capacity(entry.size as usize);
        let read = match entry.method {
            0 => {
                bytes.extend_from_slice(data);
                Ok(data.len())
            }
            _ => {
                flate2::read::DeflateDecoder::new(data).take(entry.size + 1).read_to_end(&mut bytes)
            }
        };
        if read.is_err() || bytes.len() as u64 != entry.size {
            return Err(bad_zip(format!(
                "the entry \"{}\" does not inflate to its size",
                entry.name
            )));
        }
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(io)?;
        }
        std::fs::write(&path, bytes).map_err(io)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_leading_out_are_refused_by_name() {
        for (name, says) in [
            ("../evil.js", "escapes the build folder"),
            ("site/../../evil.js", "escapes the build folder"),
            ("/etc/passwd", "is an absolute path"),
            ("C:/evil.js", "is an absolute path"),
            ("site\\evil.js", "is an absolute path"),
        ] {
            let error = check_name(name).unwrap_err();
            assert!(
                error.message.contains(&format!("\"{name}\" {says}")),
                "{name}: {}",
                error.message
            );
            assert_eq!(error.name.as_str(), "BadZip");
        }
        assert!(check_name("site/index.html").is_ok());
    }

    /// A zip made by Python's zipfile (a second, independent zip writer): `files` as (name,
    /// text), `links` as (name, target) symlink entries.
    fn zip_of(files: &[(&str, &str)], links: &[(&str, &str)]) -> Vec<u8> {
        let out = tempfile::NamedTempFile::new().unwrap();
        let script = r#"
import json, sys, zipfile
files, links = json.loads(sys.argv[2]), json.loads(sys.argv[3])
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for name, text in files:
        z.writestr(name, text)
    for name, target in links:
        info = zipfile.ZipInfo(name)
        info.create_system = 3
        info.external_attr = 0o120777 << 16
        z.writestr(info, target)
"#;
        let run = std::process::Command::new("python3")
            .args(["-c", script, out.path().to_str().unwrap()])
            .arg(serde_json::json!(files).to_string())
            .arg(serde_json::json!(links).to_string())
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        std::fs::read(out.path()).unwrap()
    }

    /// An http server on loopback answering every request with `body`; the zip's address.
    async fn serving(body: Vec<u8>) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let body = body.clone();
                tokio::spawn(async move {
                    let mut request = vec![0u8; 4096];
                    let _ = socket.read(&mut request).await;
                    let length = body.len();
                    let head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-length: {length}\r\nconnection: close\r\n\r\n"
                    );
                    let _ = socket.write_all(head.as_bytes()).await;
                    let _ = socket.write_all(&body).await;
                });
            }
        });
        format!("http://{address}/site.zip")
    }

    const PAGE: &str = "<!doctype html><title>Site</title>";

    #[tokio::test]
    async fn a_build_is_checked_unpacked_without_its_top_folder_and_cached_per_sha256() {
        let root = tempfile::tempdir().unwrap();
        let zip = zip_of(&[("site-1.0/index.html", PAGE), ("site-1.0/js/app.js", "1")], &[]);
        let sha = hex::encode(Sha256::digest(&zip));
        fetch_and_unpack(&serving(zip).await, &sha, root.path(), &[]).await.unwrap();
        let build = build_dir(root.path(), &sha);
        assert_eq!(std::fs::read_to_string(build.join("index.html")).unwrap(), PAGE);
        assert_eq!(std::fs::read_to_string(build.join("js/app.js")).unwrap(), "1");
        let kept: Vec<_> = std::fs::read_dir(root.path().join("web-builds")).unwrap().collect();
        assert_eq!(kept.len(), 1, "the build's folder only, no temporary one");
    }

    #[tokio::test]
    async fn a_wrong_hash_or_an_entry_leading_out_is_a_named_error_and_nothing_is_unpacked() {
        let good = zip_of(&[("index.html", PAGE)], &[]);
        let cases = [
            (good, Some("0".repeat(64)), "WrongHash", "its sha256 is"),
            (
                zip_of(&[("index.html", PAGE), ("../evil.js", "x")], &[]),
                None,
                "BadZip",
                "\"../evil.js\" escapes the build folder",
            ),
            (
                zip_of(&[("/etc/evil.js", "x")], &[]),
                None,
                "BadZip",
                "\"/etc/evil.js\" is an absolute path",
            ),
            (
                zip_of(&[("index.html", PAGE)], &[("link.js", "/etc/passwd")]),
                None,
                "BadZip",
                "\"link.js\" is a symlink",
            ),
        ];
        for (zip, pinned, name, says) in cases {
            let root = tempfile::tempdir().unwrap();
            let sha = pinned.unwrap_or_else(|| hex::encode(Sha256::digest(&zip)));
            let error =
                fetch_and_unpack(&serving(zip).await, &sha, root.path(), &[]).await.unwrap_err();
            assert_eq!(error.name.as_str(), name, "{}", error.message);
            assert!(error.message.contains(says), "{}", error.message);
            assert!(error.message.contains("nothing was unpacked"), "{}", error.message);
            let kept: Vec<_> = std::fs::read_dir(root.path().join("web-builds"))
                .map(|d| d.flatten().map(|e| e.path()).collect())
                .unwrap_or_default();
            assert!(kept.is_empty(), "{name}: nothing unpacked or left behind: {kept:?}");
        }
    }

    /// A certificate authority and, signed by it, a certificate for 127.0.0.1, made now
    /// (scripts/test-authority, openssl): the authority's PEM file, the leaf and its key.
    fn test_authority(dir: &Path) -> (PathBuf, Vec<u8>, Vec<u8>) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/test-authority");
        let run = std::process::Command::new(script).arg(dir).output().expect("bash runs");
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
        (dir.join("ca.pem"), read("leaf.pem"), read("leaf.key"))
    }

    /// An https server on 127.0.0.1 with `leaf`, answering every request with `body`; its address.
    async fn serving_tls(body: Vec<u8>, leaf: &[u8], key: &[u8]) -> String {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from_pem_slice(leaf).unwrap()],
                PrivateKeyDer::from_pem_slice(key).unwrap(),
            )
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, body) = (acceptor.clone(), body.clone());
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else { return };
                    let mut request = vec![0u8; 4096];
                    let _ = tls.read(&mut request).await;
                    let head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = tls.write_all(head.as_bytes()).await;
                    let _ = tls.write_all(&body).await;
                    let _ = tls.shutdown().await;
                });
            }
        });
        format!("https://{address}/site.zip")
    }

    #[tokio::test]
    async fn an_https_build_is_fetched_when_its_authority_is_trusted_by_the_extra_setting() {
        let dir = tempfile::tempdir().unwrap();
        let (authority, leaf, key) = test_authority(dir.path());
        let zip = zip_of(&[("index.html", PAGE)], &[]);
        let sha = hex::encode(Sha256::digest(&zip));
        let url = serving_tls(zip, &leaf, &key).await;

        // The built-in roots alone do not know the test authority: refused, and the hint says
        // where an authority of one's own goes.
        let root = tempfile::tempdir().unwrap();
        let error = fetch_and_unpack(&url, &sha, root.path(), &[]).await.unwrap_err();
        assert_eq!(error.name.as_str(), "Unreachable", "{}", error.message);
        assert!(error.message.to_lowercase().contains("certificate"), "{}", error.message);
        assert!(error.hint.as_deref().unwrap_or_default().contains(EXTRA_CA_ENV), "{error:?}");
        assert!(!build_dir(root.path(), &sha).exists());

        let trusted = authorities_in(&authority).unwrap();
        fetch_and_unpack(&url, &sha, root.path(), &trusted).await.unwrap();
        let page = build_dir(root.path(), &sha).join("index.html");
        assert_eq!(std::fs::read_to_string(page).unwrap(), PAGE);
    }

    #[test]
    fn extra_authorities_that_cannot_be_read_are_a_named_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        for (path, says) in [(&missing, "No such file"), (&empty, "holds no PEM certificate")] {
            let error = authorities_in(path).unwrap_err();
            assert_eq!(error.name.as_str(), "BadConfig");
            let quoted = format!(
                "failed to read the certificate authorities COWORK_EXTRA_CA_CERTS={}: ",
                path.display()
            );
            assert!(error.message.starts_with(&quoted), "{}", error.message);
            assert!(error.message.contains(says), "{}", error.message);
        }
    }

    #[tokio::test]
    async fn only_https_or_this_machine_is_fetched() {
        let root = tempfile::tempdir().unwrap();
        let error =
            fetch_and_unpack("http://example.com/site.zip", &"0".repeat(64), root.path(), &[])
                .await
                .unwrap_err();
        assert_eq!(error.name.as_str(), "BadConfig");
        assert!(error.message.contains("not an https address"), "{}", error.message);
    }
}
