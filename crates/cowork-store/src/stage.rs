//! Putting a version in place so that a `kill -9` at any moment leaves the old version or the new
//! one, never a mix.
//!
//! The new version is built whole in a staging folder beside the app (`.cowork/apps/.<folder>.
//! stage-<random>`, a dot-folder discovery never registers), then swapped in with one rename: on
//! Linux the two folders are exchanged atomically (`renameat2(RENAME_EXCHANGE)`); elsewhere the
//! app is renamed aside and the stage into its place, and a crash between the two is undone by
//! recovery. A journal (`installs/<folder>.pending.json`, written before the swap) names the stage
//! and the receipt the new version gets; the receipt is written after the swap. Whoever next takes
//! the app's lock ([`recover`]) finishes or undoes what a killed process left: it looks at which
//! version the app folder holds — the journal's new files, by content — and either writes the new
//! receipt or drops the stage.

use crate::cache::BlobCache;
use crate::error::{Result, StoreError};
use crate::pack;
use crate::receipt::{Receipt, Receipts};
use cowork_core::fs_atomic;
use cowork_wire::hub::ManifestFile;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What a journal says is under way.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Journal {
    /// The stage's folder name, in the app's parent folder.
    pub stage: String,
    /// The receipt the app gets once the new version is in place.
    pub receipt: Receipt,
    /// Files the person added, carried into the new version (workspace-relative to the app).
    #[serde(default)]
    pub carried: Vec<String>,
}

fn journal_path(receipts: &Receipts, folder: &str) -> PathBuf {
    receipts.dir().join(format!("{folder}.pending.json"))
}

/// A version being built beside its app folder.
#[derive(Debug)]
pub struct Stage {
    /// The app's parent folder (`.cowork/apps`).
    parent: PathBuf,
    /// The app folder's name.
    folder: String,
    /// The stage's folder name.
    name: String,
    kept: bool,
}

impl Stage {
    /// An empty stage for `folder` in `parent`.
    pub fn new(parent: &Path, folder: &str) -> Result<Stage> {
        std::fs::create_dir_all(parent).map_err(|e| StoreError::io("create", parent, e))?;
        let name = format!(".{folder}.stage-{}", hex::encode(rand::random::<[u8; 6]>()));
        let path = parent.join(&name);
        std::fs::create_dir(&path).map_err(|e| StoreError::io("create", &path, e))?;
        Ok(Stage { parent: parent.to_path_buf(), folder: folder.to_string(), name, kept: false })
    }

    /// The staging folder, beside the app folder.
    pub fn path(&self) -> PathBuf {
        self.parent.join(&self.name)
    }

    /// Copies every file of `files` out of the blob cache into the stage.
    pub fn fill(&self, cache: &BlobCache, files: &[ManifestFile]) -> Result<()> {
        let root = self.path();
        for file in files {
            let to = pack::safe_join(&root, &file.path)?;
            cache.copy_to(file, &to)?;
        }
        Ok(())
    }

    /// Copies a file from the app folder as it is now (a file the person added) into the stage.
    pub fn carry(&self, app_dir: &Path, rel: &str) -> Result<()> {
        let from = pack::safe_join(app_dir, rel)?;
        let to = pack::safe_join(&self.path(), rel)?;
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| StoreError::io("create", parent, e))?;
        }
        std::fs::copy(&from, &to).map_err(|e| StoreError::io("copy", &from, e))?;
        Ok(())
    }

    /// Swaps the stage in as app folder `folder`, with its new receipt, under the app's lock (the
    /// caller holds it). A new app (no folder yet) is renamed into place, refused when something
    /// took the name meanwhile.
    pub fn commit(
        mut self,
        receipts: &Receipts,
        receipt: Receipt,
        carried: Vec<String>,
    ) -> Result<()> {
        let journal = Journal { stage: self.name.clone(), receipt, carried };
        write_journal(receipts, &self.folder, &journal)?;
        self.kept = true;
        let app = self.parent.join(&self.folder);
        let stage = self.path();
        if app.exists() {
            exchange(&stage, &app)?;
        } else if let Err(error) = rename_new(&stage, &app) {
            self.kept = false;
            let _ = std::fs::remove_file(journal_path(receipts, &self.folder));
            return Err(error);
        }
        finish(receipts, &self.folder, &self.parent, &journal)
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_dir_all(self.path());
        }
    }
}

fn write_journal(receipts: &Receipts, folder: &str, journal: &Journal) -> Result<()> {
    let path = journal_path(receipts, folder);
    let text = serde_json::to_vec_pretty(journal).expect("a journal serializes");
    fs_atomic::write(&path, &text, true).map_err(|e| StoreError::io("write", &path, e))
}

/// After the swap: files the person wrote in the old folder meanwhile are carried over, the
/// receipt written, the journal removed, then the old version (now at the stage's name) deleted.
fn finish(receipts: &Receipts, folder: &str, parent: &Path, journal: &Journal) -> Result<()> {
    let app = parent.join(folder);
    let old = parent.join(&journal.stage);
    for rel in &journal.carried {
        let (Ok(from), Ok(to)) = (pack::safe_join(&old, rel), pack::safe_join(&app, rel)) else {
            continue;
        };
        let differs = match (std::fs::read(&from), std::fs::read(&to)) {
            (Ok(a), Ok(b)) => a != b,
            (Ok(_), Err(_)) => true,
            _ => false,
        };
        if differs {
            if let Some(dir) = to.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            std::fs::copy(&from, &to).map_err(|e| StoreError::io("copy", &from, e))?;
        }
    }
    receipts.write(folder, &journal.receipt)?;
    let _ = std::fs::remove_file(receipts.hashes_path(folder));
    let path = journal_path(receipts, folder);
    std::fs::remove_file(&path).map_err(|e| StoreError::io("remove", &path, e))?;
    for old in [aside_path(&old), old] {
        if old.exists() {
            std::fs::remove_dir_all(&old).map_err(|e| StoreError::io("remove", &old, e))?;
        }
    }
    Ok(())
}

/// Exchanges two folders in one step where the system can; elsewhere `app` goes aside first.
fn exchange(stage: &Path, app: &Path) -> Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        match renameat_with(CWD, stage, CWD, app, RenameFlags::EXCHANGE) {
            Ok(()) => return Ok(()),
            // A file system without RENAME_EXCHANGE (some network ones): the two renames below.
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {}
            Err(e) => return Err(StoreError::io("swap in", app, e.into())),
        }
    }
    // Two renames: the app to the stage's name with a `.old` mark, then the stage into place.
    // Recovery puts `.old` back when a crash came between them.
    let aside = aside_path(stage);
    std::fs::rename(app, &aside).map_err(|e| StoreError::io("move aside", app, e))?;
    std::fs::rename(stage, app).map_err(|e| StoreError::io("swap in", app, e))?;
    std::fs::rename(&aside, stage).map_err(|e| StoreError::io("move", &aside, e))
}

fn aside_path(stage: &Path) -> PathBuf {
    let mut name = stage.file_name().unwrap_or_default().to_os_string();
    name.push(".old");
    stage.with_file_name(name)
}

/// Renames a stage to a name nothing holds (never over an existing folder, even an empty one).
pub fn rename_new(stage: &Path, to: &Path) -> Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        return match renameat_with(CWD, stage, CWD, to, RenameFlags::NOREPLACE) {
            Ok(()) => Ok(()),
            Err(rustix::io::Errno::EXIST | rustix::io::Errno::NOTEMPTY) => {
                Err(StoreError::Exists { path: to.to_path_buf() })
            }
            Err(e) => Err(StoreError::io("move into place", to, e.into())),
        };
    }
    #[allow(unreachable_code)]
    {
        if to.exists() {
            return Err(StoreError::Exists { path: to.to_path_buf() });
        }
        std::fs::rename(stage, to).map_err(|e| StoreError::io("move into place", to, e))
    }
}

/// Finishes or undoes what a killed install or update of `folder` left, and deletes stages no
/// journal names. The caller holds the app's lock.
pub fn recover(receipts: &Receipts, parent: &Path, folder: &str) -> Result<Recovered> {
    let path = journal_path(receipts, folder);
    let journal: Option<Journal> = match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).ok(),
        Err(_) => None,
    };
    let mut recovered = Recovered::Nothing;
    if let Some(journal) = &journal {
        let app = parent.join(folder);
        let stage = parent.join(&journal.stage);
        let aside = aside_path(&stage);
        // Two renames, crashed between them: the old version goes back first.
        if !app.exists() && aside.exists() {
            std::fs::rename(&aside, &app).map_err(|e| StoreError::io("move back", &aside, e))?;
        }
        if holds(&app, &journal.receipt, &journal.carried) {
            finish(receipts, folder, parent, journal)?;
            recovered = Recovered::Finished;
        } else {
            let _ = std::fs::remove_file(&path);
            recovered = Recovered::Undone;
        }
    } else if path.exists() {
        let _ = std::fs::remove_file(&path);
    }
    // Stages a kill left before their journal was written.
    let prefix = format!(".{folder}.stage-");
    if let Ok(entries) = std::fs::read_dir(parent) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(&prefix) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    Ok(recovered)
}

/// What [`recover`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovered {
    /// No operation had been killed: nothing to do.
    Nothing,
    /// The new version was in place: its receipt was written.
    Finished,
    /// The swap had not happened: the stage was dropped, the old version stays.
    Undone,
}

/// Whether `dir` holds every file of `receipt` with its content (but the person's files carried
/// over, which an update never touches even where the new version has a file of that name).
fn holds(dir: &Path, receipt: &Receipt, carried: &[String]) -> bool {
    receipt.files.iter().filter(|f| !carried.contains(&f.path)).all(|file| {
        let Ok(path) = pack::safe_join(dir, &file.path) else { return false };
        std::fs::metadata(&path).is_ok_and(|m| m.len() == file.size)
            && pack::hash_file(&path).is_ok_and(|(_, sha)| sha == file.sha256)
    })
}
