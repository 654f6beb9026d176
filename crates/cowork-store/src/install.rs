//! `cowork app install <ts>/<app>[@X.Y.Z]` (and `team-server install` of a component): the
//! version verified, its files fetched into the blob cache (only those not there yet), staged
//! beside the app and moved into place, then the receipt. A version named pins it.

use crate::audit::{Action, Line};
use crate::error::{Result, StoreError};
use crate::fetch::{self, Fetched};
use crate::place::Place;
use crate::receipt::Origin;
use crate::remote::Remote;
use crate::resolve::{resolve, Resolved};
use crate::stage::Stage;
use crate::update::{self, Choice, Outcome};
use cowork_wire::hub::ItemKind;
use serde_json::json;

/// How to install.
#[derive(Debug, Clone, Default)]
pub struct InstallOptions {
    /// A version the store keeps: installed and pinned.
    pub version: Option<String>,
    /// Install content that does not verify (only when the person explicitly asks).
    pub allow_unverified: bool,
}

/// What an install did.
#[derive(Debug, Clone)]
pub struct Installed {
    /// `.cowork/apps/<folder>`.
    pub dir: String,
    /// The app's name in its store.
    pub name: String,
    /// The version installed.
    pub version: String,
    /// Pinned: installed `@X.Y.Z`, so automatic updates leave it.
    pub pinned: bool,
    /// It verified against the team server's pinned key.
    pub verified: bool,
    /// The blobs downloaded for it.
    pub fetched: Fetched,
    /// How many files it has.
    pub files: usize,
    /// It was installed already: this is what taking that version did.
    pub already: Option<Outcome>,
}

/// Installs `name` from `remote` into `place`'s `.cowork/apps/<name>/`.
pub async fn install<R: Remote>(
    place: &Place,
    remote: &R,
    name: &str,
    options: &InstallOptions,
) -> Result<Installed> {
    let line = Line::start(&place.root, &place.workspace, Action::Install, &place.actor);
    let input = json!({
        "item": format!("{}/{name}", remote.slug()),
        "version": options.version,
        "allowUnverified": options.allow_unverified,
    });
    let result = install_inner(place, remote, name, options).await;
    let (app, version) = match &result {
        Ok(done) => (done.name.as_str(), Some(done.version.as_str())),
        Err(_) => (name, options.version.as_deref()),
    };
    line.finish_app(app, version, input, &result);
    result
}

async fn install_inner<R: Remote>(
    place: &Place,
    remote: &R,
    name: &str,
    options: &InstallOptions,
) -> Result<Installed> {
    let resolved =
        resolve(place, remote, name, options.version.as_deref(), options.allow_unverified).await?;
    if !matches!(resolved.manifest.kind, ItemKind::App | ItemKind::WorkspaceComponent) {
        return Err(StoreError::BadSpec {
            spec: format!("{}/{name}", remote.slug()),
            why: format!(
                "it is {} ({} takes it)",
                resolved.manifest.kind.with_article(),
                resolved.manifest.kind.installed_by()
            ),
        });
    }
    let folder = name.to_string();
    let held = place.hold(&folder)?;
    let app_dir = place.apps_dir().join(&folder);
    if let Some(receipt) = place.receipts.read(&folder)? {
        if app_dir.exists()
            && receipt.store.as_deref() == Some(remote.slug())
            && receipt.name == name
        {
            // Installed already: take the version asked for (pinned if named) as an update would.
            let pinned = options.version.is_some();
            let outcome = update::apply(
                place,
                remote,
                &folder,
                receipt,
                resolved.clone(),
                Choice::Named,
                pinned,
            )
            .await?;
            drop(held);
            return Ok(Installed {
                dir: Place::dir_of(&folder),
                name: name.to_string(),
                version: resolved.manifest.version.clone(),
                pinned,
                verified: resolved.verified,
                fetched: {
                    let (blobs, bytes) = outcome.downloaded();
                    Fetched { blobs: blobs as usize, bytes }
                },
                files: resolved.manifest.files.len(),
                already: Some(outcome),
            });
        }
    }
    if app_dir.exists() {
        return Err(StoreError::Exists { path: app_dir });
    }
    let fetched = fetch::ensure(
        remote,
        &place.cache,
        &resolved.label(remote.slug()),
        &resolved.manifest.files,
    )
    .await?;
    name_is_free(place, &resolved, &format!("{}/{name}", remote.slug()), &folder)?;
    let receipt =
        resolved.receipt(place, remote, &folder, options.version.is_some(), Origin::Install);
    let stage = Stage::new(&place.apps_dir(), &folder)?;
    stage.fill(&place.cache, &resolved.manifest.files)?;
    stage.commit(&place.receipts, receipt, Vec::new())?;
    drop(held);
    Ok(Installed {
        dir: Place::dir_of(&folder),
        name: name.to_string(),
        version: resolved.manifest.version.clone(),
        pinned: options.version.is_some(),
        verified: resolved.verified,
        fetched,
        files: resolved.manifest.files.len(),
        already: None,
    })
}

/// Refuses an app whose manifest name another app of the workspace owns: the new folder would
/// register nothing ("broken (name taken)"), or — sorting first — take the name, and with it what
/// the person's routines answer to. Read from the fetched `cowork.json`, before anything is written.
fn name_is_free(place: &Place, resolved: &Resolved, item: &str, folder: &str) -> Result<()> {
    let manifest = resolved.manifest.files.iter().find(|f| f.path == "cowork.json");
    let name = manifest
        .and_then(|file| place.cache.read(&file.sha256))
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|json| json["name"].as_str().map(str::to_owned));
    let Some(name) = name else { return Ok(()) };
    let registry = cowork_core::registry::load(&place.workspace);
    match registry.app_by_name(&name) {
        Some(owner) if owner.dir != Place::dir_of(folder) => {
            Err(StoreError::NameTaken { item: item.to_owned(), name, dir: owner.dir.clone() })
        }
        _ => Ok(()),
    }
}
