//! `cowork app remove <app>` of an app installed from a store (or a git component): the files
//! still exactly as installed are deleted; edited ones and files the person added are kept (and
//! said); the folder goes when nothing is left in it; then the receipt.

use crate::audit::{Action, Line};
use crate::error::{Result, StoreError};
use crate::pack;
use crate::place::Place;
use serde::Serialize;
use serde_json::json;

/// What a removal did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Removed {
    /// The app's folder.
    pub dir: String,
    /// Deleted: still as installed.
    pub deleted: Vec<String>,
    /// Installed files that changed since: kept.
    pub edited: Vec<String>,
    /// Files the person added: kept.
    pub added: Vec<String>,
    /// Installed files already gone.
    pub missing: Vec<String>,
    /// The folder is gone (nothing of the person's was in it).
    pub folder_removed: bool,
}

/// Removes the installed app folder `folder`.
pub fn remove(place: &Place, folder: &str) -> Result<Removed> {
    let line = Line::start(&place.root, &place.workspace, Action::Remove, &place.actor);
    let receipt = place.receipts.read(folder).ok().flatten();
    let result = remove_inner(place, folder);
    let (name, version) = match &receipt {
        Some(r) => (r.name.clone(), r.version.clone()),
        None => (folder.to_string(), None),
    };
    let input = json!({ "app": Place::dir_of(folder) });
    line.finish_app(&name, version.as_deref(), input, &result);
    result
}

fn remove_inner(place: &Place, folder: &str) -> Result<Removed> {
    let _held = place.hold(folder)?;
    let dir = Place::dir_of(folder);
    let receipt = place
        .receipts
        .read(folder)?
        .ok_or_else(|| StoreError::NotInstalled { dir: dir.clone() })?;
    let check = crate::clean::check(&place.receipts, folder, &receipt)?;
    let app_dir = place.workspace.join(&receipt.dir);
    let mut removed = Removed { dir, ..Removed::default() };
    for file in &receipt.files {
        if check.missing.contains(&file.path) {
            removed.missing.push(file.path.clone());
        } else if check.changed.contains(&file.path) {
            removed.edited.push(file.path.clone());
        } else {
            let path = pack::safe_join(&app_dir, &file.path)?;
            match std::fs::remove_file(&path) {
                Ok(()) => removed.deleted.push(file.path.clone()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    removed.missing.push(file.path.clone())
                }
                Err(e) => return Err(StoreError::io("remove", &path, e)),
            }
        }
    }
    removed.added = check.added;
    // Empty folders the deletions left, deepest first; the app folder last.
    prune_empty(&app_dir);
    removed.folder_removed = !app_dir.exists();
    place.receipts.remove(folder)?;
    Ok(removed)
}

/// Deletes `dir`'s empty folders, then `dir` itself when empty.
fn prune_empty(dir: &std::path::Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                prune_empty(&entry.path());
            }
        }
    }
    let _ = std::fs::remove_dir(dir);
}
