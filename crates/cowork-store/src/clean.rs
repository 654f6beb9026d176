//! The clean check: is every file of an installed app still exactly as installed?
//!
//! A clean app auto-updates; an edited one never is overwritten. Hashing every file at every
//! check would cost seconds for a large app, so each file's SHA-256 is cached with what the file
//! system says of it (size, modification and change times, inode): a file whose stat is the
//! cached one is not read again. A file changed within a second before its hash was cached is
//! hashed again next time (git's "racy clean" case: a write in the same tick as the check would
//! otherwise leave the stat unchanged). The cache is `installs/<folder>.hashes.json` beside the
//! receipt; losing it costs one full hash.

use crate::error::{Result, StoreError};
use crate::pack::{self, Scope};
use crate::receipt::{Receipt, Receipts};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// What a clean check found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// Installed files whose content changed.
    pub changed: Vec<String>,
    /// Installed files that are gone.
    pub missing: Vec<String>,
    /// Files the person added (never touched by an update).
    pub added: Vec<String>,
}

impl Check {
    /// Every installed file is as installed (added files do not count).
    pub fn clean(&self) -> bool {
        self.changed.is_empty() && self.missing.is_empty()
    }

    /// The edited paths, changed then missing.
    pub fn edited(&self) -> Vec<String> {
        self.changed.iter().chain(&self.missing).cloned().collect()
    }
}

/// A file's stat as the cache keys it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cache {
    /// When the hashes were taken (ns since the epoch).
    checked_at_ns: i128,
    files: BTreeMap<String, (Stamp, String)>,
}

/// How long before a cache was written a file's change must be for its cached hash to count.
const RACY_NS: i128 = 1_000_000_000;

fn stamp(meta: &std::fs::Metadata) -> Stamp {
    let nanos = |t: std::io::Result<std::time::SystemTime>| -> i128 {
        t.ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_nanos() as i128)
            .unwrap_or(0)
    };
    #[cfg(unix)]
    let (ctime_ns, ino) = {
        use std::os::unix::fs::MetadataExt;
        (meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128, meta.ino())
    };
    #[cfg(not(unix))]
    let (ctime_ns, ino) = (nanos(meta.created()), 0);
    Stamp { size: meta.len(), mtime_ns: nanos(meta.modified()), ctime_ns, ino }
}

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

/// The SHA-256 of each installed file of `receipt` as it is on disk now (`None`: gone or not a
/// file), through the cache.
fn current_hashes(
    receipts: &Receipts,
    folder: &str,
    app_dir: &Path,
    receipt: &Receipt,
) -> Result<BTreeMap<String, Option<String>>> {
    let cache_file = receipts.hashes_path(folder);
    let mut cache: Cache = std::fs::read(&cache_file)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    let started = now_ns();
    let mut dirty = false;
    let mut out = BTreeMap::new();
    for file in &receipt.files {
        let path = pack::safe_join(app_dir, &file.path)?;
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_file() => meta,
            Ok(_) => {
                out.insert(file.path.clone(), None);
                continue;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                out.insert(file.path.clone(), None);
                continue;
            }
            Err(e) => return Err(StoreError::io("read", &path, e)),
        };
        let now = stamp(&meta);
        let cached = cache.files.get(&file.path).filter(|(was, _)| {
            *was == now
                && now.mtime_ns < cache.checked_at_ns - RACY_NS
                && now.ctime_ns < cache.checked_at_ns - RACY_NS
        });
        let sha = match cached {
            Some((_, sha)) => sha.clone(),
            // Another size is another content: no need to read it.
            None if now.size != file.size => {
                cache.files.remove(&file.path);
                dirty = true;
                format!("size:{}", now.size)
            }
            None => {
                let (_, sha) = pack::hash_file(&path)?;
                cache.files.insert(file.path.clone(), (now, sha.clone()));
                dirty = true;
                sha
            }
        };
        out.insert(file.path.clone(), Some(sha));
    }
    let before = cache.files.len();
    cache.files.retain(|path, _| out.contains_key(path));
    if dirty || before != cache.files.len() {
        cache.checked_at_ns = started;
        let text = serde_json::to_vec(&cache).expect("the hash cache serializes");
        // A cache that cannot be written costs a hash next time, nothing more.
        if let Err(error) = cowork_core::fs_atomic::write(&cache_file, &text, true) {
            tracing::debug!(%error, "the clean check's hash cache was not written");
        }
    }
    Ok(out)
}

/// Checks the app folder `folder` against its receipt.
pub fn check(receipts: &Receipts, folder: &str, receipt: &Receipt) -> Result<Check> {
    let app_dir = receipts.workspace().join(&receipt.dir);
    let mut result = Check::default();
    if !app_dir.is_dir() {
        result.missing = receipt.files.iter().map(|f| f.path.clone()).collect();
        return Ok(result);
    }
    let hashes = current_hashes(receipts, folder, &app_dir, receipt)?;
    for file in &receipt.files {
        match hashes.get(&file.path).cloned().flatten() {
            None => result.missing.push(file.path.clone()),
            Some(sha) if sha != file.sha256 => result.changed.push(file.path.clone()),
            Some(_) => {}
        }
    }
    let (present, _) = pack::walk(&app_dir, Scope::default())?;
    result.added =
        present.into_iter().map(|(p, _)| p).filter(|p| receipt.file(p).is_none()).collect();
    Ok(result)
}
