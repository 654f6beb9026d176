//! The install receipt: what an install (or a push, which tracks the folder from then on) put in
//! an app folder — which store and version, every file with its size and SHA-256, whether it is
//! pinned, the signed manifest it was verified against — so the clean check, updates, `remove`
//! and run reports know the app as installed.
//!
//! It lives OUTSIDE the app folder, under the Cowork root (`<root>/workspaces/<key>/installs/
//! <folder>.json`, [`cowork_account::reports::receipt_path`]): the folder travels when it is
//! pushed or copied, and a receipt inside it would claim files on another machine. The run
//! reporter reads its `store` and `version` fields; their names are part of that contract.

use crate::error::{Result, StoreError};
use cowork_core::fs_atomic;
use cowork_core::paths::Root;
use cowork_wire::hub::{ItemKind, ManifestFile, Millis, SignedManifest};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How the folder came to be tracked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// `cowork app install` (or `team-server install` of a component).
    Install,
    /// `cowork push`: the author's own folder, tracked like an install from then on.
    Push,
    /// `cowork component install <git url>`: never attested, never updated from a store.
    Git,
}

/// Where a git component came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GitSource {
    /// The repository's address.
    pub url: String,
    /// The commit installed.
    pub commit: String,
    /// The folder of the repository that holds the app, when not its root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// One install receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Receipt {
    /// The team server the app follows (its slug); `None` for a git component.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    /// The installed version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The hub the team server is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hub: Option<String>,
    /// The item's name in its store (the manifest `name`).
    pub name: String,
    /// What the item is.
    pub kind: ItemKind,
    /// Pinned (installed `@X.Y.Z`, or a Keep-both copy): auto-update leaves it.
    #[serde(default)]
    pub pinned: bool,
    /// The workspace (canonical) and the folder, workspace-relative (`.cowork/apps/gmail`).
    pub workspace: PathBuf,
    /// The app's folder, workspace-relative (`.cowork/apps/gmail`).
    pub dir: String,
    /// Every file as installed, sorted by path.
    pub files: Vec<ManifestFile>,
    /// The signed manifest the files were verified against (`None`: not verified).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed: Option<SignedManifest>,
    /// Whether the install verified (`--allow-unverified` installs are not).
    #[serde(default)]
    pub verified: bool,
    /// A newer version the person dismissed (Skip, Keep both): not applied, not asked again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dismissed: Option<String>,
    /// How it came: from a store, or from a git repository.
    pub origin: Origin,
    /// Where a git component came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitSource>,
    /// When it was installed.
    pub installed_at: Millis,
}

/// The receipts of one workspace.
#[derive(Debug, Clone)]
pub struct Receipts {
    dir: PathBuf,
    workspace: PathBuf,
}

impl Receipts {
    /// The receipts of `workspace` (canonical) under `root`.
    pub fn new(root: &Root, workspace: &Path) -> Receipts {
        let dir = cowork_account::reports::receipt_path(root, workspace, "x")
            .parent()
            .expect("a receipt path has a folder")
            .to_path_buf();
        Receipts { dir, workspace: workspace.to_path_buf() }
    }

    /// `<root>/workspaces/<key>/installs/`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The workspace the receipts are of (canonical).
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// The receipt file of app folder `folder`.
    pub fn path(&self, folder: &str) -> PathBuf {
        self.dir.join(format!("{folder}.json"))
    }

    /// `installs/<folder>.hashes.json`: the clean check's hashes, cached by size, mtime and inode.
    pub fn hashes_path(&self, folder: &str) -> PathBuf {
        self.dir.join(format!("{folder}.hashes.json"))
    }

    /// The receipt of `folder`; `None` when it has none (a local app).
    pub fn read(&self, folder: &str) -> Result<Option<Receipt>> {
        let path = self.path(folder);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
                StoreError::io(
                    "read",
                    &path,
                    std::io::Error::new(std::io::ErrorKind::InvalidData, e),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::io("read", &path, e)),
        }
    }

    /// Writes `folder`'s receipt atomically (0600: it lists the person's apps).
    pub fn write(&self, folder: &str, receipt: &Receipt) -> Result<()> {
        let path = self.path(folder);
        let mut text = serde_json::to_string_pretty(receipt).expect("a receipt serializes");
        text.push('\n');
        fs_atomic::write(&path, text.as_bytes(), true)
            .map_err(|e| StoreError::io("write", &path, e))
    }

    /// Deletes `folder`'s receipt (and its hash cache).
    pub fn remove(&self, folder: &str) -> Result<()> {
        for path in [self.path(folder), self.hashes_path(folder)] {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(StoreError::io("remove", &path, e)),
            }
        }
        Ok(())
    }

    /// The folders that have a receipt, sorted (a folder's name has no dot: the hash caches and
    /// journals beside the receipts have one).
    pub fn folders(&self) -> Result<Vec<String>> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io("read", &self.dir, e)),
        };
        let mut folders: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter_map(|name| name.strip_suffix(".json").map(str::to_owned))
            .filter(|name| !name.starts_with('.') && !name.contains('.'))
            .collect();
        folders.sort();
        Ok(folders)
    }

    /// Takes the lock of app folder `folder`: one install, update or removal of it at a time,
    /// across processes (the CLI and the daemon's auto-update).
    pub fn lock(&self, folder: &str) -> Result<std::fs::File> {
        let path = self.dir.join(format!(".{folder}"));
        fs_atomic::lock(&path).map_err(|e| StoreError::io("lock", &path, e))
    }
}

impl Receipt {
    /// The receipt's files by path.
    pub fn file(&self, path: &str) -> Option<&ManifestFile> {
        self.files.binary_search_by(|f| f.path.as_str().cmp(path)).ok().map(|i| &self.files[i])
    }
}
