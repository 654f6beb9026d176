//! `cowork push`: publish an app folder's `cowork.json` version to a team server's store.
//!
//! - Unchanged files → "up to date" (nothing uploaded).
//! - Changed files at a version the store already has → the patch is bumped (`1.2.3` → `1.2.4`)
//!   and written back to `cowork.json` once the store took it.
//! - A store newer than this copy → refused: update first. Versions only move forward.
//! - Only the blobs the store lacks are uploaded ("which of these do you have").
//! - Afterwards the folder is tracked like an install (a receipt naming the store), so a
//!   collaborator's later push reaches it as an update while it is not edited.

use crate::audit::{Action, Line};
use crate::error::{Result, StoreError};
use crate::pack::{self, Listing, Scope};
use crate::place::Place;
use crate::receipt::{Origin, Receipt};
use crate::remote::{Remote, Signer};
use cowork_core::manifest::Requirement;
use cowork_wire::hub::{
    CardUpdate, Host, HubErrorName, ItemKind, ManifestFile, Publish, PublishOutcome, Version,
};
use serde::Serialize;
use serde_json::json;
use std::path::Path;

/// What one app's push did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "result")]
pub enum Pushed {
    /// A new version (its `cowork.json` version).
    Published {
        /// The version published.
        version: String,
    },
    /// Changed files at a published version: the patch was bumped.
    Bumped {
        /// The version the files were at.
        from: String,
        /// The version published (written back to `cowork.json`).
        to: String,
    },
    /// The files are the store's latest: nothing published.
    UpToDate {
        /// The store's latest version.
        version: String,
    },
}

impl Pushed {
    /// The row `cowork push` prints; `dry_run` says what it would do (as `publish --dry-run`).
    pub fn row(&self, dry_run: bool) -> String {
        match (self, dry_run) {
            (Pushed::Published { version }, false) => format!("published v{version}"),
            (Pushed::Published { version }, true) => format!("would publish v{version}"),
            (Pushed::Bumped { from, to }, false) => format!("bumped v{from} → v{to}"),
            (Pushed::Bumped { from, to }, true) => format!("would bump v{from} → v{to}"),
            (Pushed::UpToDate { version }, _) => format!("up to date v{version}"),
        }
    }

    /// The version the store has now.
    pub fn version(&self) -> &str {
        match self {
            Pushed::Published { version } | Pushed::UpToDate { version } => version,
            Pushed::Bumped { to, .. } => to,
        }
    }
}

/// How to push.
#[derive(Debug, Clone, Copy, Default)]
pub struct PushOptions {
    /// Say what would happen; upload and write nothing.
    pub dry_run: bool,
}

/// The team server an app is pushed to: `--to` > the install receipt's store > `publishTo` > an
/// error listing the account's team servers (`known`).
pub fn choose_target(
    dir: &str,
    to: Option<&str>,
    receipt_store: Option<&str>,
    publish_to: Option<&str>,
    known: &[String],
) -> Result<String> {
    to.or(receipt_store)
        .or(publish_to)
        .map(str::to_owned)
        .ok_or_else(|| StoreError::NoTarget { dir: dir.to_string(), known: known.to_vec() })
}

/// The app folder at `app_dir` (workspace-relative `.cowork/apps/<folder>` of `place`, whose
/// receipt it tracks), pushed to `remote`.
pub async fn push<R: Remote>(
    place: &Place,
    remote: &R,
    app_dir: &Path,
    options: PushOptions,
) -> Result<Pushed> {
    let folder = app_dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let line = (!options.dry_run)
        .then(|| Line::start(&place.root, &place.workspace, Action::Push, &place.actor));
    let result = push_inner(place, remote, app_dir, &folder, options).await;
    if let Some(line) = line {
        let input = json!({ "app": Place::dir_of(&folder), "teamServer": remote.slug() });
        let name = app_name(app_dir).unwrap_or_else(|| folder.clone());
        match &result {
            Ok(pushed) => line.finish(
                &name,
                Some(pushed.version()),
                Some(cowork_core::manifest::Kind::App),
                input,
                None,
            ),
            Err(error) => line.finish(
                &name,
                None,
                Some(cowork_core::manifest::Kind::App),
                input,
                Some((error.name(), error.to_string())),
            ),
        }
    }
    result
}

fn app_name(app_dir: &Path) -> Option<String> {
    let text = std::fs::read(app_dir.join("cowork.json")).ok()?;
    let value: serde_json::Value = serde_json::from_slice(&text).ok()?;
    value["name"].as_str().map(str::to_owned)
}

async fn push_inner<R: Remote>(
    place: &Place,
    remote: &R,
    app_dir: &Path,
    folder: &str,
    options: PushOptions,
) -> Result<Pushed> {
    let label = format!("{}/cowork.json", Place::dir_of(folder));
    // A folder installed as another kind of item (a workspace-component) is that item's, not an
    // app of its manifest's name: pushing it would publish a second item and move the folder's
    // receipt over to it, so the component's own new versions would never reach it again.
    if let Some(receipt) = place.receipts.read(folder)?.filter(|r| r.store.is_some()) {
        if receipt.kind != ItemKind::App {
            let (dir, store) = (Place::dir_of(folder), receipt.store.unwrap_or_default());
            return Err(StoreError::Invalid {
                what: dir.clone(),
                why: format!(
                    "it was installed as the {} {store}/{}, and `cowork push` publishes apps: publish its new version with `cowork publish --items {dir} --name {} --team-server {store}`",
                    receipt.kind, receipt.name, receipt.name
                ),
            });
        }
    }
    let validated =
        cowork_core::manifest::load(app_dir, &label).map_err(|problems| StoreError::Invalid {
            what: Place::dir_of(folder),
            why: problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "),
        })?;
    let manifest = validated.manifest;
    let name = manifest.name.clone();
    let local = Version::parse(&manifest.version).ok_or_else(|| StoreError::Invalid {
        what: label.clone(),
        why: format!("its version {:?} is not X.Y.Z", manifest.version),
    })?;
    let _held = place.hold(folder)?;
    let mut listing = pack::pack(app_dir, Scope::default())?;
    let item = match remote.item(&name).await {
        Ok(item) => Some(item),
        Err(error) if error.is_not_found() => None,
        Err(error) => return Err(error),
    };
    if let Some(item) = &item {
        if item.item.kind != ItemKind::App {
            return Err(StoreError::Invalid {
                what: format!("{}/{name}", remote.slug()),
                why: format!("the store's {name} is a {}, not an app", item.item.kind),
            });
        }
    }
    let latest = item.as_ref().and_then(|i| Version::parse(&i.item.version));
    let (version, bumped_from) = match &latest {
        Some(latest) if latest.newer_than(&local) => {
            return Err(StoreError::UpdateFirst {
                name,
                local: local.to_string(),
                store: latest.to_string(),
            })
        }
        Some(latest) if latest.precedence(&local) == std::cmp::Ordering::Equal => {
            let theirs = remote.manifest(&name, Some(&latest.to_string())).await?;
            let theirs: cowork_wire::hub::Manifest = serde_json::from_str(&theirs.signed.manifest)
                .map_err(|e| StoreError::Unverified {
                    what: format!("{}/{name}", remote.slug()),
                    why: format!("its manifest does not parse: {e}"),
                })?;
            if theirs.files == listing.files {
                if !options.dry_run {
                    track(place, remote, folder, &name, &listing.files, &local.to_string()).await?;
                }
                return Ok(Pushed::UpToDate { version: local.to_string() });
            }
            (local.next_patch(), Some(local.clone()))
        }
        _ => (local.clone(), None),
    };
    // The bumped version travels in the cowork.json that is published.
    let bumped_text = match &bumped_from {
        Some(_) => {
            let path = app_dir.join("cowork.json");
            let text =
                std::fs::read_to_string(&path).map_err(|e| StoreError::io("read", &path, e))?;
            let text = with_version(&text, &version.to_string());
            replace_entry(&mut listing, "cowork.json", text.as_bytes());
            Some(text)
        }
        None => None,
    };
    let pushed = match &bumped_from {
        Some(from) => Pushed::Bumped { from: from.to_string(), to: version.to_string() },
        None => Pushed::Published { version: version.to_string() },
    };
    if options.dry_run {
        return Ok(pushed);
    }
    // Only what the store lacks travels.
    let hashes: Vec<String> = listing.files.iter().map(|f| f.sha256.clone()).collect();
    let missing = remote.missing(&hashes).await?;
    for sha in &missing {
        let file =
            listing.files.iter().find(|f| &f.sha256 == sha).expect("asked about our own files");
        let bytes = match (&bumped_text, file.path.as_str()) {
            (Some(text), "cowork.json") => text.clone().into_bytes(),
            _ => {
                let path = pack::safe_join(app_dir, &file.path)?;
                std::fs::read(&path).map_err(|e| StoreError::io("read", &path, e))?
            }
        };
        if cowork_wire::hub::verify::sha256_hex(&bytes) != *sha {
            return Err(StoreError::Invalid {
                what: Place::dir_of(folder),
                why: format!("{} changed while it was pushed: push again", file.path),
            });
        }
        remote.put_blob(sha, bytes).await?;
    }
    let publish = Publish {
        kind: ItemKind::App,
        subtype: None,
        version: Some(version.to_string()),
        files: listing.files.clone(),
        card: card(&manifest, &listing),
        requires: Some(
            manifest
                .requires
                .iter()
                .map(|r| match r {
                    Requirement::Web => Host::Web,
                    Requirement::Desktop => Host::Desktop,
                })
                .collect(),
        ),
        dry_run: false,
    };
    let published = remote.publish(&name, &publish).await.map_err(|error| match &error {
        StoreError::Account(account)
            if matches!(
                account.hub_name(),
                Some(HubErrorName::VersionBehind | HubErrorName::VersionTaken)
            ) =>
        {
            StoreError::UpdateFirst {
                name: name.clone(),
                local: version.to_string(),
                store: "a newer version".into(),
            }
        }
        _ => error,
    })?;
    if let Some(text) = &bumped_text {
        let path = app_dir.join("cowork.json");
        cowork_core::fs_atomic::write_inside(&place.workspace, &path, text.as_bytes(), false)
            .map_err(|e| StoreError::io("write", &path, e))?;
    }
    let published_version = published.version.version.version.clone();
    track(place, remote, folder, &name, &listing.files, &published_version).await?;
    Ok(match (published.outcome, pushed) {
        (PublishOutcome::UpToDate, _) => Pushed::UpToDate { version: published_version },
        (PublishOutcome::Published, pushed) => pushed,
    })
}

/// The store card a push states: the manifest's title, description, tags, icon, banner and
/// screenshots (images as the blobs of their files, which travel with the version).
fn card(manifest: &cowork_core::manifest::Manifest, listing: &Listing) -> CardUpdate {
    let sha_of =
        |path: &str| listing.files.iter().find(|f| f.path == path).map(|f| f.sha256.clone());
    CardUpdate {
        title: Some(if manifest.title.is_empty() {
            manifest.name.clone()
        } else {
            manifest.title.clone()
        }),
        description: Some(manifest.description.clone().unwrap_or_default()),
        tags: Some(manifest.tags.clone()),
        icon: manifest.icon.as_deref().map(|icon| match manifest.icon_file() {
            Some(file) => sha_of(file).unwrap_or_default(),
            None => icon.trim_start_matches("$(").trim_end_matches(')').to_string(),
        }),
        banner: manifest.banner.as_deref().map(|b| sha_of(b).unwrap_or_default()),
        screenshots: manifest
            .screenshots
            .as_ref()
            .map(|shots| shots.iter().filter_map(|s| sha_of(s)).collect()),
    }
}

/// `text` (a cowork.json) with its top-level `version` set to `version`, the rest of the text as
/// the person wrote it where it can be.
pub fn with_version(text: &str, version: &str) -> String {
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(text) else {
        return text.to_string();
    };
    if let Some(old) = value["version"].as_str().map(str::to_owned) {
        let needle = format!("\"{old}\"");
        // The first `"version": "<old>"` in the text is the top-level one when re-parsing says so.
        if let Some(key) = text.find("\"version\"") {
            if let Some(offset) = text[key..].find(&needle) {
                let at = key + offset;
                let candidate =
                    format!("{}\"{version}\"{}", &text[..at], &text[at + needle.len()..]);
                let ok = serde_json::from_str::<serde_json::Value>(&candidate).is_ok_and(|v| {
                    v["version"] == version && strip_version(&v) == strip_version(&value)
                });
                if ok {
                    return candidate;
                }
            }
        }
    }
    value["version"] = version.into();
    let mut text = serde_json::to_string_pretty(&value).expect("a manifest serializes");
    text.push('\n');
    text
}

fn strip_version(value: &serde_json::Value) -> serde_json::Value {
    let mut value = value.clone();
    if let Some(object) = value.as_object_mut() {
        object.remove("version");
    }
    value
}

fn replace_entry(listing: &mut Listing, path: &str, bytes: &[u8]) {
    if let Some(entry) = listing.files.iter_mut().find(|f| f.path == path) {
        entry.size = bytes.len() as u64;
        entry.sha256 = cowork_wire::hub::verify::sha256_hex(bytes);
    }
}

/// After a push: the folder follows its store like an install, at the version the store has.
async fn track<R: Remote>(
    place: &Place,
    remote: &R,
    folder: &str,
    name: &str,
    files: &[ManifestFile],
    version: &str,
) -> Result<()> {
    // The version's signed manifest, verified like any install's, is what the receipt keeps.
    let resolved = crate::resolve::resolve(place, remote, name, Some(version), false).await;
    let (signed, verified) = match resolved {
        Ok(resolved) if resolved.manifest.files == files => (Some(resolved.signed), true),
        Ok(_) => (None, false),
        Err(error) => {
            tracing::warn!(%error, "the pushed version did not verify: tracked as unverified");
            (None, false)
        }
    };
    let before = place.receipts.read(folder)?;
    let receipt = Receipt {
        store: Some(remote.slug().to_string()),
        version: Some(version.to_string()),
        hub: match remote.signer() {
            Signer::TeamServer { hub } => Some(hub),
            Signer::Builtin => None,
        },
        name: name.to_string(),
        kind: ItemKind::App,
        pinned: false,
        workspace: place.workspace.clone(),
        dir: Place::dir_of(folder),
        files: files.to_vec(),
        signed,
        verified,
        dismissed: None,
        origin: before.as_ref().map(|r| r.origin).unwrap_or(Origin::Push),
        git: None,
        installed_at: before
            .map(|r| r.installed_at)
            .unwrap_or_else(cowork_account::files::now_millis),
    };
    place.receipts.write(folder, &receipt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bumped_version_keeps_the_manifest_as_written() {
        let text = "{\n  \"name\": \"gmail\",\n  \"version\": \"1.2.3\",\n  \"uses\": {\"x\": \"1.2.3\"}\n}\n";
        assert_eq!(
            with_version(text, "1.2.4"),
            "{\n  \"name\": \"gmail\",\n  \"version\": \"1.2.4\",\n  \"uses\": {\"x\": \"1.2.3\"}\n}\n"
        );
        // A `version` inside another key first: the top-level one is still the one changed.
        let nested =
            "{\"uses\": {\"version\": \"1.0.0\"}, \"name\": \"a\", \"version\": \"1.0.0\"}";
        let bumped: serde_json::Value =
            serde_json::from_str(&with_version(nested, "1.0.1")).unwrap();
        assert_eq!(bumped["version"], "1.0.1");
        assert_eq!(bumped["uses"]["version"], "1.0.0");
    }

    #[test]
    fn the_target_is_to_then_the_receipt_then_publish_to() {
        let known = vec!["acme".to_string()];
        assert_eq!(choose_target("d", Some("a"), Some("b"), Some("c"), &known).unwrap(), "a");
        assert_eq!(choose_target("d", None, Some("b"), Some("c"), &known).unwrap(), "b");
        assert_eq!(choose_target("d", None, None, Some("c"), &known).unwrap(), "c");
        let error = choose_target("d", None, None, None, &known).unwrap_err();
        assert_eq!(error.name().as_str(), "NoTeamServer");
        assert!(error.hint().unwrap().contains("acme"));
    }
}
