//! `remove`: deletes exactly the files an install wrote, as its receipt lists them, then the folder
//! when nothing else is left in it, then the receipt.
//!
//! What the person changed is theirs and stays: a `cowork.json` that no longer points at the
//! installed address (the folder is another app now), any file whose content changed, and an
//! unchanged file a kept `cowork.json` still uses (its icon). Each kept file says why.

use crate::install::ICON_FILE;
use crate::receipt::{self, Receipt};
use cowork_core::discovery::APPS_DIR;
use cowork_core::manifest::MANIFEST_FILE;
use cowork_core::paths::Root;
use serde_json::Value;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Why `remove` failed. [`RemoveError::hint`] says what to do.
#[derive(Debug, thiserror::Error)]
pub enum RemoveError {
    /// No app folder, folder name or manifest name matches.
    #[error("no app \"{app}\" in {}", workspace.display())]
    NotFound {
        /// What was asked for.
        app: String,
        /// The workspace.
        workspace: PathBuf,
    },
    /// The app has no install receipt: it was made here, or copied in.
    #[error("{dir} was not installed from a web address on this computer")]
    NotInstalled {
        /// The app folder, workspace-relative.
        dir: String,
    },
    /// The receipt could not be read.
    #[error("failed to read the install receipt {}", path.display())]
    Receipt {
        /// The receipt file.
        path: PathBuf,
        /// The OS or JSON error.
        #[source]
        source: io::Error,
    },
    /// A file could not be read or deleted.
    #[error("failed to remove {}", path.display())]
    Delete {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
}

impl RemoveError {
    /// What the person can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            RemoveError::NotFound { .. } => Some("name its folder (.cowork/apps/whatsapp), the folder's basename, or the manifest name; `cowork app list` shows them".to_owned()),
            RemoveError::NotInstalled { dir } => Some(format!("a local app is yours: delete its folder ({dir}) yourself")),
            RemoveError::Receipt { .. } | RemoveError::Delete { .. } => None,
        }
    }
}

/// Why a file the install wrote was kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeptWhy {
    /// Its content is not what the install wrote.
    Changed,
    /// `cowork.json` no longer points at the installed address.
    PointsElsewhere {
        /// The installed address.
        installed: String,
        /// Its `web.url` now, if any.
        now: Option<String>,
    },
    /// Unchanged, but the kept `cowork.json` uses it.
    UsedByKeptManifest,
}

impl fmt::Display for KeptWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeptWhy::Changed => write!(f, "it changed since the install"),
            KeptWhy::PointsElsewhere { installed, now: Some(now) } => {
                write!(f, "it no longer points at {installed} (it points at {now})")
            }
            KeptWhy::PointsElsewhere { installed, now: None } => {
                write!(f, "it no longer points at {installed}")
            }
            KeptWhy::UsedByKeptManifest => write!(f, "the kept cowork.json uses it"),
        }
    }
}

/// A file the install wrote that stays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// Folder-relative.
    pub file: String,
    /// Why.
    pub why: KeptWhy,
}

/// What `remove` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    /// The app folder, workspace-relative.
    pub dir: String,
    /// Files deleted, folder-relative.
    pub deleted: Vec<String>,
    /// Files kept, with why.
    pub kept: Vec<Kept>,
    /// Files the install wrote that were already gone.
    pub missing: Vec<String>,
    /// Whether the folder was deleted (it was empty then).
    pub folder_removed: bool,
    /// Whether the folder still holds files the install did not write.
    pub other_files: bool,
}

/// Removes the site app `app` (its folder, the folder's name, or its manifest name) installed in
/// `workspace` (canonical), as the receipt under `root` lists it.
pub fn remove(root: &Root, workspace: &Path, app: &str) -> Result<Removed, RemoveError> {
    let (folder, receipt_path, receipt) = find(root, workspace, app)?;
    // The folder from its name, not from the receipt's text: a receipt never points elsewhere.
    let rel_dir = format!("{APPS_DIR}/{folder}");
    let dir = workspace.join(&rel_dir);
    let mut deleted = Vec::new();
    let mut kept = Vec::new();
    let mut missing = Vec::new();
    let mut manifest_icon = None;
    for (file, hash) in receipt
        .files
        .iter()
        .filter(|(file, _)| !file.contains(['/', '\\']) && !file.starts_with('.'))
    {
        let path = dir.join(file);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                missing.push(file.clone());
                continue;
            }
            Err(source) => return Err(RemoveError::Delete { path, source }),
        };
        let why = if file == MANIFEST_FILE {
            let now: Option<Value> = serde_json::from_slice(&bytes).ok();
            let points_at = now
                .as_ref()
                .and_then(|m| m.pointer("/web/url"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            manifest_icon =
                now.as_ref().and_then(|m| m.get("icon")).and_then(Value::as_str).map(str::to_owned);
            if points_at.as_deref() != Some(receipt.url.as_str()) {
                Some(KeptWhy::PointsElsewhere { installed: receipt.url.clone(), now: points_at })
            } else {
                (receipt::sha256(&bytes) != *hash).then_some(KeptWhy::Changed)
            }
        } else {
            (receipt::sha256(&bytes) != *hash).then_some(KeptWhy::Changed)
        };
        match why {
            Some(why) => kept.push(Kept { file: file.clone(), why }),
            None => deleted.push(file.clone()),
        }
    }
    // A kept manifest still showing the installed icon keeps it: deleting it would break the app
    // the person chose to keep.
    let manifest_kept = kept.iter().any(|k| k.file == MANIFEST_FILE);
    if manifest_kept && manifest_icon.as_deref() == Some(ICON_FILE) {
        if let Some(at) = deleted.iter().position(|f| f == ICON_FILE) {
            deleted.remove(at);
            kept.push(Kept { file: ICON_FILE.to_owned(), why: KeptWhy::UsedByKeptManifest });
        }
    }
    // cowork.json first: a watching daemon then sees the app go, not an app losing its icon.
    deleted.sort_by_key(|f| f != MANIFEST_FILE);
    for file in &deleted {
        let path = dir.join(file);
        std::fs::remove_file(&path).map_err(|source| RemoveError::Delete { path, source })?;
    }
    let folder_removed = std::fs::remove_dir(&dir).is_ok();
    let other_files = !folder_removed
        && std::fs::read_dir(&dir).is_ok_and(|entries| {
            entries.flatten().any(|e| !kept.iter().any(|k| e.file_name() == k.file.as_str()))
        });
    match std::fs::remove_file(&receipt_path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(source) => return Err(RemoveError::Delete { path: receipt_path, source }),
    }
    Ok(Removed { dir: rel_dir, deleted, kept, missing, folder_removed, other_files })
}

/// The folder name, receipt path and receipt of the app `spec` names.
fn find(
    root: &Root,
    workspace: &Path,
    spec: &str,
) -> Result<(String, PathBuf, Receipt), RemoveError> {
    let spec = spec.trim_end_matches('/');
    // `.cowork/apps/x`, `./.cowork/apps/x`, `/ws/.cowork/apps/x` or `x`.
    let folder = spec.rsplit_once(&format!("{APPS_DIR}/")).map_or(spec, |(_, f)| f);
    let by_folder = |folder: &str| -> Result<Option<(PathBuf, Receipt)>, RemoveError> {
        if folder.is_empty() || folder.contains(['/', '\\']) || folder.starts_with('.') {
            return Ok(None);
        }
        let path = receipt::path(root, workspace, folder);
        let receipt = Receipt::read(&path)
            .map_err(|source| RemoveError::Receipt { path: path.clone(), source })?;
        Ok(receipt.map(|r| (path, r)))
    };
    if let Some((path, receipt)) = by_folder(folder)? {
        return Ok((folder.to_owned(), path, receipt));
    }
    // A manifest name: the folder that owns it.
    let registry = cowork_core::registry::load(workspace);
    if let Some(app) = registry.resolve_app(spec) {
        return match by_folder(&app.folder)? {
            Some((path, receipt)) => Ok((app.folder.clone(), path, receipt)),
            None => Err(RemoveError::NotInstalled { dir: app.dir.clone() }),
        };
    }
    if !folder.is_empty() && workspace.join(APPS_DIR).join(folder).is_dir() {
        return Err(RemoveError::NotInstalled { dir: format!("{APPS_DIR}/{folder}") });
    }
    Err(RemoveError::NotFound { app: spec.to_owned(), workspace: workspace.to_owned() })
}
