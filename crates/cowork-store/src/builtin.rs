//! The built-in, read-only `cowork` store: the reference's templates, part of this build
//! (`crates/cowork-store/templates/`, embedded at compile time), so `cowork template install
//! cowork/app-sidebar-workbench --name clients` works with no hub and no network.
//!
//! Each template is a folder of a real, working app (its manifest passes the checks, its routines
//! run) and an entry of `templates/templates.json` (subtype, version, store card). Its content is
//! trusted as the binary is: nothing to verify.

use crate::error::{Result, StoreError};
use crate::remote::{Remote, Signer};
use cowork_wire::hub::verify::sha256_hex;
use cowork_wire::hub::{
    Host, ItemKind, ItemVersions, Manifest, ManifestFile, Publish, Published, SignedManifest,
    Store, StoreItem, StoreKeys, StoreVersion, TemplateSubtype, VersionManifest, MANIFEST_FORMAT,
};
use serde::Deserialize;
use std::collections::BTreeMap;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/builtin_files.rs"));
}

/// The built-in store's name in `cowork/<template>`.
pub const SLUG: &str = "cowork";

/// One entry of `templates.json`.
#[derive(Debug, Clone, Deserialize)]
struct Entry {
    subtype: TemplateSubtype,
    version: String,
    title: String,
    description: String,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    requires: Vec<Host>,
}

/// The built-in store.
#[derive(Debug, Clone)]
pub struct Builtin {
    entries: BTreeMap<String, Entry>,
}

impl Default for Builtin {
    fn default() -> Self {
        Builtin::new()
    }
}

impl Builtin {
    /// The built-in store, read from the templates embedded in the binary.
    pub fn new() -> Builtin {
        let index = embedded::FILES
            .iter()
            .find(|(path, _)| *path == "templates.json")
            .map(|(_, bytes)| *bytes)
            .expect("templates/templates.json is embedded");
        let entries =
            serde_json::from_slice(index).expect("templates.json is valid (a unit test reads it)");
        Builtin { entries }
    }

    /// The template names.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// A template's files, sorted by path (relative to its folder).
    pub fn files(&self, name: &str) -> Vec<(&'static str, &'static [u8])> {
        let prefix = format!("{name}/");
        embedded::FILES
            .iter()
            .filter_map(|(path, bytes)| path.strip_prefix(prefix.as_str()).map(|p| (p, *bytes)))
            .collect()
    }

    fn entry(&self, name: &str) -> Result<&Entry> {
        self.entries
            .get(name)
            .ok_or_else(|| StoreError::NotFound { what: format!("the template {SLUG}/{name}") })
    }

    fn item_of(&self, name: &str, entry: &Entry) -> StoreItem {
        StoreItem {
            name: name.to_string(),
            kind: ItemKind::Template,
            subtype: Some(entry.subtype),
            version: entry.version.clone(),
            title: Some(entry.title.clone()),
            description: Some(entry.description.clone()),
            tags: entry.tags.clone(),
            icon: None,
            banner: None,
            screenshots: Vec::new(),
            requires: entry.requires.clone(),
            versions: 1,
            created_at: 0,
            updated_at: 0,
        }
    }

    fn version_of(&self, name: &str, entry: &Entry) -> StoreVersion {
        let files = self.files(name);
        StoreVersion {
            version: entry.version.clone(),
            published_at: 0,
            published_by: "Cowork".into(),
            files: files.len() as u64,
            size: files.iter().map(|(_, b)| b.len() as u64).sum(),
            withdrawn_at: None,
        }
    }
}

fn read_only() -> StoreError {
    StoreError::Invalid {
        what: format!("the {SLUG} store"),
        why: "it is part of Cowork and read-only: publish to a team server instead".into(),
    }
}

impl Remote for Builtin {
    fn slug(&self) -> &str {
        SLUG
    }

    fn signer(&self) -> Signer {
        Signer::Builtin
    }

    async fn store(&self) -> Result<Store> {
        Ok(Store { items: self.entries.iter().map(|(n, e)| self.item_of(n, e)).collect() })
    }

    async fn item(&self, name: &str) -> Result<ItemVersions> {
        let entry = self.entry(name)?;
        Ok(ItemVersions {
            item: self.item_of(name, entry),
            versions: vec![self.version_of(name, entry)],
        })
    }

    async fn manifest(&self, name: &str, version: Option<&str>) -> Result<VersionManifest> {
        let entry = self.entry(name)?;
        if version.is_some_and(|v| v != entry.version) {
            return Err(StoreError::NotFound {
                what: format!(
                    "{SLUG}/{name}@{} (this Cowork has {})",
                    version.unwrap_or_default(),
                    entry.version
                ),
            });
        }
        let manifest = Manifest {
            format: MANIFEST_FORMAT,
            team_server: SLUG.into(),
            name: name.to_string(),
            kind: ItemKind::Template,
            subtype: Some(entry.subtype),
            version: entry.version.clone(),
            files: self
                .files(name)
                .into_iter()
                .map(|(path, bytes)| ManifestFile {
                    path: path.to_string(),
                    size: bytes.len() as u64,
                    sha256: sha256_hex(bytes),
                })
                .collect(),
            published_at: 0,
            published_by: "Cowork".into(),
            kid: SLUG.into(),
        };
        Ok(VersionManifest {
            name: name.to_string(),
            version: self.version_of(name, entry),
            signed: SignedManifest {
                manifest: serde_json::to_string(&manifest).expect("a manifest serializes"),
                signature: String::new(),
                kid: SLUG.into(),
            },
        })
    }

    async fn keys(&self) -> Result<StoreKeys> {
        Ok(StoreKeys { keys: Vec::new() })
    }

    async fn blob(&self, sha256: &str) -> Result<Vec<u8>> {
        embedded::FILES
            .iter()
            .find(|(_, bytes)| sha256_hex(bytes) == sha256)
            .map(|(_, bytes)| bytes.to_vec())
            .ok_or_else(|| StoreError::NotFound { what: format!("the blob {sha256}") })
    }

    async fn missing(&self, _sha256: &[String]) -> Result<Vec<String>> {
        Err(read_only())
    }

    async fn put_blob(&self, _sha256: &str, _bytes: Vec<u8>) -> Result<()> {
        Err(read_only())
    }

    async fn publish(&self, _name: &str, _publish: &Publish) -> Result<Published> {
        Err(read_only())
    }

    async fn unpublish(&self, _name: &str, _version: Option<&str>) -> Result<()> {
        Err(read_only())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_is_a_valid_app_whose_files_are_embedded() {
        let builtin = Builtin::new();
        let names: Vec<&str> = builtin.names().collect();
        assert!(names.contains(&"app-sidebar-workbench"), "{names:?}");
        for name in names {
            let files = builtin.files(name);
            let manifest = files
                .iter()
                .find(|(path, _)| *path == "cowork.json")
                .unwrap_or_else(|| panic!("{name} has a cowork.json"));
            let dir = tempfile::tempdir().unwrap();
            for (path, bytes) in &files {
                let to = dir.path().join(path);
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::write(to, bytes).unwrap();
            }
            let text = std::str::from_utf8(manifest.1).unwrap();
            let validated = cowork_core::manifest::validate(text, dir.path(), "cowork.json")
                .unwrap_or_else(|problems| panic!("{name}: {problems:?}"));
            assert!(validated.problems.is_empty(), "{name}: {:?}", validated.problems);
        }
    }
}
