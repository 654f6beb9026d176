//! Packing a folder: the files that travel (see [`crate::ignore`]), each with its size and
//! SHA-256 — a version's manifest before the team server signs it, and what an install receipt
//! and the clean check compare against.

use crate::error::{Result, StoreError};
use crate::ignore::{self, GitIgnore, Why};
use cowork_wire::hub::{is_safe_path, ManifestFile};
use sha2::{Digest, Sha256};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest file that travels (the hub's blob limit).
pub const MAX_FILE: u64 = 64 * 1024 * 1024;
/// The most files one item holds.
pub const MAX_FILES: usize = 10_000;
/// The most bytes one item holds.
pub const MAX_TOTAL: u64 = 512 * 1024 * 1024;

/// What was left out of a folder, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Folder-relative; a folder ends with `/`.
    pub path: String,
    /// Why it was left out.
    pub why: Why,
}

/// A folder's travelling files, sorted by path.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// The files that travel, with sizes and hashes.
    pub files: Vec<ManifestFile>,
    /// What was left out, and why.
    pub skipped: Vec<Skipped>,
}

impl Listing {
    /// The total size.
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}

/// What [`walk`] leaves out besides the fixed rules.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scope {
    /// The folder is a whole workspace: its `.cowork/data`, `.cowork/local` and
    /// `workspace.json` stay here.
    pub workspace: bool,
}

/// What [`walk`] finds: the travelling files' paths with their sizes, and what it left out.
pub type Walked = (Vec<(String, u64)>, Vec<Skipped>);

/// The paths (folder-relative, sorted) of the files under `dir` that travel, with their sizes,
/// not hashed: what the clean check walks (cheap), and what [`pack`] hashes.
pub fn walk(dir: &Path, scope: Scope) -> Result<Walked> {
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let mut ignores: Vec<(String, GitIgnore)> = Vec::new();
    walk_into(dir, "", scope, &mut ignores, &mut files, &mut skipped)?;
    files.sort();
    Ok((files, skipped))
}

fn walk_into(
    dir: &Path,
    rel: &str,
    scope: Scope,
    ignores: &mut Vec<(String, GitIgnore)>,
    files: &mut Vec<(String, u64)>,
    skipped: &mut Vec<Skipped>,
) -> Result<()> {
    let here = if rel.is_empty() { dir.to_path_buf() } else { dir.join(rel) };
    let entries = fs::read_dir(&here).map_err(|e| StoreError::io("read", &here, e))?;
    let pushed = match fs::read_to_string(here.join(".gitignore")) {
        Ok(text) => {
            ignores.push((rel.to_string(), GitIgnore::parse(&text)));
            true
        }
        Err(_) => false,
    };
    let mut names: Vec<(String, fs::FileType, u64)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io("read", &here, e))?;
        let Ok(name) = entry.file_name().into_string() else {
            // A name that is not UTF-8 cannot travel as a manifest path.
            skipped.push(Skipped {
                path: format!("{rel}{}", entry.file_name().to_string_lossy()),
                why: Why::Tooling,
            });
            continue;
        };
        let kind = entry.file_type().map_err(|e| StoreError::io("read", entry.path(), e))?;
        let size = if kind.is_file() { entry.metadata().map(|m| m.len()).unwrap_or(0) } else { 0 };
        names.push((name, kind, size));
    }
    names.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind, size) in names {
        let path = format!("{rel}{name}");
        if kind.is_symlink() {
            skipped.push(Skipped { path, why: Why::Symlink });
            continue;
        }
        let is_dir = kind.is_dir();
        if scope.workspace && ignore::WORKSPACE_NEVER.contains(&path.as_str()) {
            skipped.push(Skipped { path: shown(path, is_dir), why: Why::MachineLocal });
            continue;
        }
        if let Some(why) = ignore::never(&name, is_dir) {
            skipped.push(Skipped { path: shown(path, is_dir), why });
            continue;
        }
        if git_ignored(ignores, &path, is_dir) {
            skipped.push(Skipped { path: shown(path, is_dir), why: Why::GitIgnored });
            continue;
        }
        if is_dir {
            walk_into(dir, &format!("{path}/"), scope, ignores, files, skipped)?;
        } else if kind.is_file() {
            files.push((path, size));
        }
    }
    if pushed {
        ignores.pop();
    }
    Ok(())
}

fn shown(path: String, is_dir: bool) -> String {
    if is_dir {
        format!("{path}/")
    } else {
        path
    }
}

/// Whether the `.gitignore`s above `path` (innermost last, and deciding) leave it out.
fn git_ignored(ignores: &[(String, GitIgnore)], path: &str, is_dir: bool) -> bool {
    ignores
        .iter()
        .rev()
        .find_map(|(base, rules)| {
            let rel = path.strip_prefix(base.as_str())?;
            rules.decides(rel, is_dir)
        })
        .unwrap_or(false)
}

/// Packs `dir`: every travelling file with its SHA-256, checked against the limits.
pub fn pack(dir: &Path, scope: Scope) -> Result<Listing> {
    let (paths, skipped) = walk(dir, scope)?;
    let what = || dir.display().to_string();
    if paths.len() > MAX_FILES {
        return Err(StoreError::TooLarge {
            what: what(),
            why: format!("{} files (at most {MAX_FILES})", paths.len()),
        });
    }
    let mut files = Vec::with_capacity(paths.len());
    let mut total = 0u64;
    for (path, _) in paths {
        let full = dir.join(&path);
        let (size, sha256) = hash_file(&full)?;
        if size > MAX_FILE {
            return Err(StoreError::TooLarge {
                what: what(),
                why: format!("{path} is {size} bytes (a file is at most {MAX_FILE})"),
            });
        }
        total += size;
        files.push(ManifestFile { path, size, sha256 });
    }
    if total > MAX_TOTAL {
        return Err(StoreError::TooLarge {
            what: what(),
            why: format!("{total} bytes in all (at most {MAX_TOTAL})"),
        });
    }
    Ok(Listing { files, skipped })
}

/// The size and SHA-256 (hex) of a file, read once.
pub fn hash_file(path: &Path) -> Result<(u64, String)> {
    let mut file = fs::File::open(path).map_err(|e| StoreError::io("read", path, e))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        let n = file.read(&mut buffer).map_err(|e| StoreError::io("read", path, e))?;
        if n == 0 {
            break;
        }
        size += n as u64;
        hasher.update(&buffer[..n]);
    }
    Ok((size, hex::encode(hasher.finalize())))
}

/// `rel` (a manifest path) under `dir`, refused unless it stays inside ([`is_safe_path`]: a
/// signed manifest could still name `../../.bashrc`).
pub fn safe_join(dir: &Path, rel: &str) -> Result<PathBuf> {
    if !is_safe_path(rel) {
        return Err(StoreError::Unverified {
            what: format!("the path {rel:?}"),
            why: "a manifest path must stay inside its folder".into(),
        });
    }
    Ok(dir.join(rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn a_folder_packs_its_files_but_never_secrets_tooling_or_ignored_ones() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, "cowork.json", "{}");
        write(d, "list.ts", "export default 1");
        write(d, "assets/icon.svg", "<svg/>");
        write(d, ".env", "TOKEN=x");
        write(d, "node_modules/x/index.js", "");
        write(d, ".gitignore", "cache/\n*.log\n");
        write(d, "cache/big.bin", "x");
        write(d, "debug.log", "x");
        write(d, "sub/.gitignore", "local.json\n");
        write(d, "sub/local.json", "{}");
        write(d, "sub/kept.json", "{}");
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc/passwd", d.join("passwd")).unwrap();
        let listing = pack(d, Scope::default()).unwrap();
        let paths: Vec<&str> = listing.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                ".gitignore",
                "assets/icon.svg",
                "cowork.json",
                "list.ts",
                "sub/.gitignore",
                "sub/kept.json"
            ]
        );
        let skipped: Vec<String> =
            listing.skipped.iter().map(|s| format!("{} ({})", s.path, s.why)).collect();
        assert!(skipped.contains(&".env (secrets never travel)".to_string()), "{skipped:?}");
        assert!(skipped.contains(&"cache/ (.gitignore)".to_string()), "{skipped:?}");
        assert!(skipped.contains(&"sub/local.json (.gitignore)".to_string()), "{skipped:?}");
        #[cfg(unix)]
        assert!(skipped.contains(&"passwd (a symlink (never followed))".to_string()));
        let cowork = listing.files.iter().find(|f| f.path == "cowork.json").unwrap();
        assert_eq!(cowork.size, 2);
        assert_eq!(cowork.sha256, cowork_wire::hub::verify::sha256_hex(b"{}"));
    }

    #[test]
    fn a_workspace_keeps_its_machine_local_state() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, ".cowork/workspace.json", "{}");
        write(d, ".cowork/data/notes/a.json", "{}");
        write(d, ".cowork/local/queues.db", "");
        write(d, ".cowork/apps/notes/cowork.json", "{}");
        write(d, "README.md", "hi");
        let listing = pack(d, Scope { workspace: true }).unwrap();
        let paths: Vec<&str> = listing.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, [".cowork/apps/notes/cowork.json", "README.md"]);
    }

    #[test]
    fn manifest_paths_never_leave_their_folder() {
        let dir = Path::new("/w/app");
        assert_eq!(safe_join(dir, "a/b.ts").unwrap(), Path::new("/w/app/a/b.ts"));
        for bad in ["../x", "a/../../x", "/etc/passwd", "a//b", "./a", "a\\b", "C:x", ""] {
            assert!(safe_join(dir, bad).is_err(), "{bad}");
        }
    }
}
