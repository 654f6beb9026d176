//! `cowork team-server install <team-server>/<item>[@X.Y.Z] [--dir <path>]` (page 05): any item
//! of a store by its kind — an app or workspace-component into `.cowork/apps/<name>/` (as
//! `cowork app install`), a workspace written into the folder untracked, a template scaffolded
//! under its own name (as `cowork template install`). A course is subscribed on the hub, which
//! the caller does (it needs the hub's session, not a store).

use crate::audit::{Action, Line};
use crate::error::{Result, StoreError};
use crate::fetch;
use crate::install::{self, InstallOptions, Installed};
use crate::pack;
use crate::place::Place;
use crate::remote::Remote;
use crate::resolve::resolve;
use crate::template::{self, Scaffold, Scaffolded};
use cowork_wire::hub::ItemKind;
use serde_json::json;

/// What installing an item did.
#[derive(Debug, Clone)]
pub enum ItemInstalled {
    /// An app or workspace-component, tracked like any install.
    Component(Installed),
    /// A workspace's files, written into the folder (untracked: it never updates).
    Workspace {
        /// The workspace's name in the store.
        name: String,
        /// The version written.
        version: String,
        /// The files written, relative to the folder.
        files: Vec<String>,
        /// It verified against the team server's pinned key.
        verified: bool,
    },
    /// A template, scaffolded under its own name.
    Template(Scaffolded),
}

/// Installs `name` (of kind `kind`, as the store lists it) from `remote` into `place`.
pub async fn install<R: Remote>(
    place: &Place,
    remote: &R,
    name: &str,
    kind: ItemKind,
    options: &InstallOptions,
) -> Result<ItemInstalled> {
    match kind {
        ItemKind::App | ItemKind::WorkspaceComponent => {
            Ok(ItemInstalled::Component(install::install(place, remote, name, options).await?))
        }
        ItemKind::Template => {
            let scaffold = Scaffold {
                component: name.to_string(),
                host: None,
                allow_unverified: options.allow_unverified,
            };
            Ok(ItemInstalled::Template(template::scaffold(place, remote, name, &scaffold).await?))
        }
        ItemKind::Workspace => {
            let line = Line::start(&place.root, &place.workspace, Action::Install, &place.actor);
            let input = json!({
                "item": format!("{}/{name}", remote.slug()),
                "version": options.version,
                "allowUnverified": options.allow_unverified,
            });
            let result = workspace(place, remote, name, options).await;
            let version = match &result {
                Ok(ItemInstalled::Workspace { version, .. }) => Some(version.as_str()),
                _ => options.version.as_deref(),
            };
            let error = result.as_ref().err().map(|e| (e.name(), e.to_string()));
            line.finish(name, version, None, input, error);
            result
        }
        ItemKind::Course => Err(StoreError::BadSpec {
            spec: format!("{}/{name}", remote.slug()),
            why: "it is a course: subscribe to it on its team server".into(),
        }),
    }
}

/// A workspace's files into `place.workspace`: nothing is written if any of them exists.
async fn workspace<R: Remote>(
    place: &Place,
    remote: &R,
    name: &str,
    options: &InstallOptions,
) -> Result<ItemInstalled> {
    let resolved =
        resolve(place, remote, name, options.version.as_deref(), options.allow_unverified).await?;
    let files = &resolved.manifest.files;
    let mut targets = Vec::with_capacity(files.len());
    for file in files {
        let target = pack::safe_join(&place.workspace, &file.path)?;
        if target.exists() {
            return Err(StoreError::Exists { path: target });
        }
        targets.push(target);
    }
    fetch::ensure(remote, &place.cache, &resolved.label(remote.slug()), files).await?;
    for (file, target) in files.iter().zip(&targets) {
        place.cache.copy_to(file, target)?;
    }
    Ok(ItemInstalled::Workspace {
        name: name.to_string(),
        version: resolved.manifest.version.clone(),
        files: files.iter().map(|f| f.path.clone()).collect(),
        verified: resolved.verified,
    })
}
