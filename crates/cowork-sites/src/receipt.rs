//! The install receipt: what `cowork app install <url>` wrote, so `cowork app remove` deletes
//! exactly that and nothing the person made or changed since.
//!
//! It lives OUTSIDE the app folder, under the Cowork root beside the workspace's audit log
//! (`<root>/workspaces/<key>/sites/<folder>.json`): the folder travels when the app is copied or
//! pushed, and a receipt in it would claim files on another machine.

use cowork_core::fs_atomic;
use cowork_core::paths::Root;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

/// What one install wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Receipt {
    /// The app folder, workspace-relative (`.cowork/apps/whatsapp`).
    pub dir: String,
    /// The installed `web.url`: a `cowork.json` that points elsewhere is no longer this install.
    pub url: String,
    /// The address the person gave.
    pub requested: String,
    /// The site's manifest `id`, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest_id: Option<String>,
    /// When (RFC 3339, UTC).
    pub installed_at: String,
    /// Each file written, folder-relative, with the sha256 of what was written.
    pub files: BTreeMap<String, String>,
}

/// The receipt file of app folder `folder` (its name) in `workspace` (canonical).
pub fn path(root: &Root, workspace: &Path, folder: &str) -> PathBuf {
    root.workspace_dir(workspace).join("sites").join(format!("{folder}.json"))
}

/// The sha256 of `bytes`, in hex.
pub fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

impl Receipt {
    /// Writes the receipt atomically (0600: it lists the person's apps and addresses).
    pub fn write(&self, path: &Path) -> io::Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a receipt serializes");
        fs_atomic::write(path, format!("{text}\n").as_bytes(), true)
    }

    /// Reads a receipt; `Ok(None)` when there is none.
    pub fn read(path: &Path) -> io::Result<Option<Receipt>> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}
