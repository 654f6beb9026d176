//! The team servers' signing keys this machine trusts: one pinned key per team server (of one
//! hub), kept in `<root>/store/keys.json` (0600, under its lock).
//!
//! A member's Cowork pins the key its team server signs with when it joins (`cowork team-server
//! join|create`, or — a member someone added — the first time it reads that store). From then on
//! "verified" means: the store's key chain leads from the pinned key to the key that signs now,
//! each new key signed by the one before ([`cowork_wire::hub::verify::key_chain`]), the version's
//! manifest is signed by that key and names the item and version asked for, and every file
//! matches it. Having walked a rotation, the pin moves to the new key.

use crate::error::{Result, StoreError};
use cowork_core::fs_atomic;
use cowork_core::paths::Root;
use cowork_wire::hub::verify::{self, VerifyError};
use cowork_wire::hub::{Manifest, Millis, SignedManifest, StoreKey, StoreKeys};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One pinned key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pin {
    /// The key's id.
    pub kid: String,
    /// The public key, base64url without padding.
    pub public_key: String,
    /// When it was pinned (the member joined, or the old key endorsed it).
    pub pinned_at: Millis,
}

/// `<root>/store/keys.json`: `"<hub> <slug>"` → its pin.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct KeysFile {
    #[serde(default)]
    pins: BTreeMap<String, Pin>,
}

/// The keys this machine trusts.
#[derive(Debug, Clone)]
pub struct Trust {
    path: PathBuf,
}

fn key(hub: &str, slug: &str) -> String {
    format!("{hub} {slug}")
}

impl Trust {
    /// The pins of `root`: `<root>/store/keys.json`.
    pub fn new(root: &Root) -> Trust {
        Trust { path: root.dir().join("store").join("keys.json") }
    }

    fn read(&self) -> Result<KeysFile> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                StoreError::io(
                    "read",
                    &self.path,
                    std::io::Error::new(std::io::ErrorKind::InvalidData, e),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(KeysFile::default()),
            Err(e) => Err(StoreError::io("read", &self.path, e)),
        }
    }

    fn write(&self, file: &KeysFile) -> Result<()> {
        let text = serde_json::to_vec_pretty(file).expect("the keys file serializes");
        fs_atomic::write(&self.path, &text, true)
            .map_err(|e| StoreError::io("write", &self.path, e))
    }

    /// The key pinned for `slug` on `hub`.
    pub fn pinned(&self, hub: &str, slug: &str) -> Result<Option<Pin>> {
        Ok(self.read()?.pins.remove(&key(hub, slug)))
    }

    /// The key that signs `slug`'s store now, as this machine trusts it: reached through the
    /// chain from the pinned key (the pin then moves to it), or — nothing pinned yet — the chain
    /// walked from the store's first key, whose last key is pinned now.
    pub fn signing_key(&self, hub: &str, slug: &str, keys: &StoreKeys) -> Result<StoreKey> {
        let _lock =
            fs_atomic::lock(&self.path).map_err(|e| StoreError::io("lock", &self.path, e))?;
        let mut file = self.read()?;
        let what = || format!("the signing key of the team server {slug}");
        let start = match file.pins.get(&key(hub, slug)) {
            Some(pin) => pin.kid.clone(),
            None => keys.keys.first().map(|k| k.kid.clone()).ok_or_else(|| {
                StoreError::Unverified { what: what(), why: "the store has no key".into() }
            })?,
        };
        let signing = verify::key_chain(slug, &start, keys)
            .map_err(|e| StoreError::Unverified { what: what(), why: reason(&e) })?
            .clone();
        let moved = file.pins.get(&key(hub, slug)).map(|p| p.kid.as_str()) != Some(&signing.kid);
        if moved {
            if let Some(pin) = file.pins.get(&key(hub, slug)) {
                tracing::info!(team_server = %slug, from = %pin.kid, to = %signing.kid, "the store's key rotated: the new key is signed by the pinned one");
            }
            file.pins.insert(
                key(hub, slug),
                Pin {
                    kid: signing.kid.clone(),
                    public_key: signing.public_key.clone(),
                    pinned_at: cowork_account::files::now_millis(),
                },
            );
            self.write(&file)?;
        }
        Ok(signing)
    }

    /// Pins `slug`'s key now (a join), unless one is pinned already.
    pub fn pin(&self, hub: &str, slug: &str, keys: &StoreKeys) -> Result<StoreKey> {
        self.signing_key(hub, slug, keys)
    }

    /// Forgets `slug`'s pin (the team server was left: a later join pins afresh).
    pub fn forget(&self, hub: &str, slug: &str) -> Result<()> {
        let _lock =
            fs_atomic::lock(&self.path).map_err(|e| StoreError::io("lock", &self.path, e))?;
        let mut file = self.read()?;
        if file.pins.remove(&key(hub, slug)).is_some() {
            self.write(&file)?;
        }
        Ok(())
    }
}

/// A verification failure in words for an [`StoreError::Unverified`].
pub fn reason(error: &VerifyError) -> String {
    error.to_string().trim_start_matches("failed to ").to_string()
}

/// Checks `signed` with `key` for `slug`/`name` (and `version` when one was asked for).
pub fn manifest(
    signed: &SignedManifest,
    key: &StoreKey,
    slug: &str,
    name: &str,
    version: Option<&str>,
) -> Result<Manifest> {
    verify::manifest(signed, key, slug, name, version)
        .map_err(|e| StoreError::Unverified { what: format!("{slug}/{name}"), why: reason(&e) })
}
