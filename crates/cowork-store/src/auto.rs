//! The automatic update pass (page 02, "Auto-update"): every few minutes, at start, after a
//! sign-in and after a push, each installed app whose store has a newer version is updated —
//! only when it is clean, the new version verifies, and it is not pinned. An edited app is never
//! overwritten: the pass reports it ([`Pass::edited`]) so Manage Workspace can count it and a
//! toast name it. `COWORK_NO_AUTO_UPDATE=1` stops it ([`disabled`]).
//!
//! The workspaces a pass looks at are those with install receipts under the Cowork root (each
//! receipt names its workspace), so a headless daemon with no window open updates them too.

use crate::audit::Actor;
use crate::error::Result;
use crate::hub::HubRemote;
use crate::place::Place;
use crate::receipt::Receipts;
use crate::update::{self, Choice, Outcome};
use cowork_account::Session;
use cowork_core::paths::Root;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The kill switch.
pub const NO_AUTO_UPDATE_ENV: &str = "COWORK_NO_AUTO_UPDATE";

/// Whether automatic updates are switched off (`COWORK_NO_AUTO_UPDATE=1`).
pub fn disabled() -> bool {
    std::env::var(NO_AUTO_UPDATE_ENV).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// One app the pass looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Looked {
    /// The workspace the app is in.
    pub workspace: PathBuf,
    /// `.cowork/apps/<folder>`.
    pub dir: String,
    /// The app's name in its store.
    pub name: String,
    /// The team server it follows.
    pub store: String,
    /// What the pass did with it.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// An app the pass could not look at, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Failed {
    /// The workspace the app is in.
    pub workspace: PathBuf,
    /// `.cowork/apps/<folder>`.
    pub dir: String,
    /// The error's name (`Unverified`, `TamperedBlob`, `Unreachable` …) and message.
    pub name: String,
    /// What failed, in words.
    pub message: String,
}

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pass {
    /// Apps brought to their store's latest version.
    pub updated: Vec<Looked>,
    /// Edited apps with a newer version: left alone, waiting for a choice.
    pub edited: Vec<Looked>,
    /// Apps the pass could not look at.
    pub failed: Vec<Failed>,
}

/// The workspaces with install receipts under `root`, and their receipts' folders.
pub fn installed(root: &Root) -> Vec<(PathBuf, Vec<String>)> {
    let mut found: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    let Ok(keys) = std::fs::read_dir(root.workspaces_dir()) else { return Vec::new() };
    for key in keys.flatten() {
        let Ok(entries) = std::fs::read_dir(key.path().join("installs")) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(folder) = name.strip_suffix(".json").filter(|f| !f.contains('.')) else {
                continue;
            };
            let Ok(bytes) = std::fs::read(entry.path()) else { continue };
            let Ok(receipt) = serde_json::from_slice::<crate::receipt::Receipt>(&bytes) else {
                continue;
            };
            // A receipt filed under another workspace's key (a moved folder) is not this one's.
            if Receipts::new(root, &receipt.workspace).dir() != key.path().join("installs") {
                continue;
            }
            found.entry(receipt.workspace.clone()).or_default().push(folder.to_string());
        }
    }
    found.into_iter().collect()
}

/// One pass over every installed app of `root` that follows a team server of the signed-in
/// account. `only` limits it to one team server (a store that just changed).
pub async fn pass(root: &Root, session: &Arc<Session>, only: Option<&str>) -> Result<Pass> {
    let mut pass = Pass::default();
    if disabled() {
        return Ok(pass);
    }
    let Some(signed_in) = session.signed_in()? else { return Ok(pass) };
    let known: Vec<String> =
        cowork_account::updates::known(session)?.into_iter().map(|t| t.slug).collect();
    let actor = Actor::of(root, cowork_core::audit::Source::System, None);
    for (workspace, folders) in installed(root) {
        if !workspace.is_dir() {
            continue;
        }
        let place = Place::new(root, &workspace, actor.clone());
        if let Err(error) = place.recover_all() {
            tracing::warn!(%error, workspace = %workspace.display(), "an interrupted update could not be recovered");
        }
        for folder in folders {
            let Some(receipt) = place.receipts.read(&folder).ok().flatten() else { continue };
            let Some(store) = receipt.store.clone() else { continue };
            // Only the signed-in hub's team servers this account still belongs to: a removed
            // member stops receiving.
            if receipt.hub.as_deref() != Some(signed_in.hub.as_str()) || !known.contains(&store) {
                continue;
            }
            if only.is_some_and(|o| o != store.as_str()) || receipt.pinned {
                continue;
            }
            let remote = HubRemote::new(session.clone(), &store)?;
            // No closure borrowing these is held across the await below: it would make this
            // future not provably `Send` (the daemon runs it on a blocking thread regardless).
            let updated = update::update(&place, &remote, &folder, Choice::Auto, false).await;
            let looked = Looked {
                workspace: workspace.clone(),
                dir: receipt.dir.clone(),
                name: receipt.name.clone(),
                store: store.clone(),
                outcome: Outcome::UpToDate { version: String::new() },
            };
            match updated {
                Ok(outcome @ Outcome::Updated { .. }) => {
                    pass.updated.push(Looked { outcome, ..looked })
                }
                Ok(outcome @ Outcome::Edited { .. }) => {
                    pass.edited.push(Looked { outcome, ..looked })
                }
                Ok(_) => {}
                Err(error) => {
                    tracing::info!(%error, app = %receipt.dir, "not updated automatically");
                    pass.failed.push(Failed {
                        workspace: workspace.clone(),
                        dir: receipt.dir.clone(),
                        name: error.name().to_string(),
                        message: error.to_string(),
                    });
                }
            }
        }
    }
    Ok(pass)
}
