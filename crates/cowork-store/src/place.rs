//! One workspace on this machine, as every lifecycle operation needs it: its receipts, the blob
//! cache and the trusted keys of the Cowork root, and who acts (for the audit lines).

use crate::audit::Actor;
use crate::cache::BlobCache;
use crate::error::{Result, StoreError};
use crate::receipt::Receipts;
use crate::stage::{self, Recovered};
use crate::trust::Trust;
use cowork_core::discovery::APPS_DIR;
use cowork_core::paths::Root;
use std::path::{Path, PathBuf};

/// A workspace and the Cowork root it is handled from.
#[derive(Debug, Clone)]
pub struct Place {
    /// The Cowork root: receipts, the blob cache and the pinned keys are under it.
    pub root: Root,
    /// Canonical.
    pub workspace: PathBuf,
    /// The workspace's install receipts.
    pub receipts: Receipts,
    /// The blobs already downloaded on this machine.
    pub cache: BlobCache,
    /// The store keys this machine pinned.
    pub trust: Trust,
    /// Who acts, for the audit lines.
    pub actor: Actor,
}

/// An app folder held for one operation: its lock, and what a killed operation left recovered.
#[derive(Debug)]
pub struct Held {
    _lock: std::fs::File,
    /// What a killed operation had left, put back or cleared.
    pub recovered: Recovered,
}

impl Place {
    /// `workspace` must be canonical.
    pub fn new(root: &Root, workspace: &Path, actor: Actor) -> Place {
        Place {
            root: root.clone(),
            workspace: workspace.to_path_buf(),
            receipts: Receipts::new(root, workspace),
            cache: BlobCache::new(root),
            trust: Trust::new(root),
            actor,
        }
    }

    /// `<workspace>/.cowork/apps`.
    pub fn apps_dir(&self) -> PathBuf {
        self.workspace.join(APPS_DIR)
    }

    /// `.cowork/apps/<folder>`, workspace-relative.
    pub fn dir_of(folder: &str) -> String {
        format!("{APPS_DIR}/{folder}")
    }

    /// Takes app folder `folder`'s lock (waiting for another process's operation on it) and
    /// finishes or undoes what a killed one left.
    pub fn hold(&self, folder: &str) -> Result<Held> {
        if let Some(why) = cowork_core::discovery::folder_name_rejection(folder) {
            return Err(StoreError::BadSpec { spec: folder.to_string(), why: why.to_string() });
        }
        let lock = self.receipts.lock(folder)?;
        let recovered = stage::recover(&self.receipts, &self.apps_dir(), folder)?;
        if recovered != Recovered::Nothing {
            tracing::info!(folder, ?recovered, "an interrupted install or update was recovered");
        }
        Ok(Held { _lock: lock, recovered })
    }

    /// Recovers every app folder with an interrupted operation (at the start of a pass).
    pub fn recover_all(&self) -> Result<()> {
        let Ok(entries) = std::fs::read_dir(self.receipts.dir()) else { return Ok(()) };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(folder) = name.strip_suffix(".pending.json") {
                drop(self.hold(folder)?);
            }
        }
        Ok(())
    }
}
