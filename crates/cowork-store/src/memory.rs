//! A team server's store held in memory (feature `test-support`): items, versions, blobs and an
//! Ed25519 key of its own, signing manifests and key rotations in the hub's formats, so the
//! lifecycle can be tested without a hub. Its blobs can be tampered with, its versions withdrawn
//! and its key rotated, as a test needs.

use crate::error::{Result, StoreError};
use crate::remote::{Remote, Signer};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use cowork_wire::hub::verify::{key_id, sha256_hex};
use cowork_wire::hub::{
    ItemKind, ItemVersions, KeyEndorsement, KeyStatement, Manifest, ManifestFile, Publish,
    PublishOutcome, Published, SignedManifest, Store, StoreItem, StoreKey, StoreKeys, StoreVersion,
    Version, VersionManifest, KEEP_VERSIONS, KEY_STATEMENT_FORMAT, MANIFEST_FORMAT,
};
use parking_lot::Mutex;
use ring::signature::{Ed25519KeyPair, KeyPair};
use std::collections::BTreeMap;
use std::sync::Arc;

struct Key {
    pair: Ed25519KeyPair,
    public: StoreKey,
}

fn new_key(previous: Option<&Key>, slug: &str) -> Key {
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).expect("a key is generated");
    let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).expect("a generated key reads back");
    let public_bytes = pair.public_key().as_ref().to_vec();
    let kid = key_id(&public_bytes);
    let public_key = URL_SAFE_NO_PAD.encode(&public_bytes);
    let endorsement = previous.map(|old| {
        let statement = serde_json::to_string(&KeyStatement {
            format: KEY_STATEMENT_FORMAT,
            team_server: slug.to_string(),
            previous_kid: old.public.kid.clone(),
            kid: kid.clone(),
            public_key: public_key.clone(),
            created_at: 0,
        })
        .expect("a statement serializes");
        let signature = URL_SAFE_NO_PAD.encode(old.pair.sign(statement.as_bytes()).as_ref());
        KeyEndorsement { previous_kid: old.public.kid.clone(), statement, signature }
    });
    Key { pair, public: StoreKey { kid, public_key, created_at: 0, endorsement } }
}

struct Item {
    kind: ItemKind,
    versions: Vec<(StoreVersion, SignedManifest)>,
}

struct State {
    keys: Vec<Key>,
    items: BTreeMap<String, Item>,
    blobs: BTreeMap<String, Vec<u8>>,
    clock: i64,
    /// Blob downloads served, for "an update moves one blob".
    downloads: usize,
}

/// A store in memory. Cheap to clone (shared).
#[derive(Clone)]
pub struct MemoryRemote {
    slug: String,
    hub: String,
    state: Arc<Mutex<State>>,
}

impl MemoryRemote {
    /// An empty store for team server `slug`, with a key of its own.
    pub fn new(slug: &str) -> MemoryRemote {
        MemoryRemote {
            slug: slug.to_string(),
            hub: "memory://hub".into(),
            state: Arc::new(Mutex::new(State {
                keys: vec![new_key(None, slug)],
                items: BTreeMap::new(),
                blobs: BTreeMap::new(),
                clock: 1,
                downloads: 0,
            })),
        }
    }

    /// Publishes `files` (path → bytes) as `version` of app `name`, blobs and all.
    pub fn publish_files(&self, name: &str, version: &str, files: &[(&str, &[u8])]) {
        self.publish_item(name, version, (ItemKind::App, None), files);
    }

    /// [`MemoryRemote::publish_files`] for an item of another kind (and template subtype).
    pub fn publish_item(
        &self,
        name: &str,
        version: &str,
        (kind, subtype): (ItemKind, Option<cowork_wire::hub::TemplateSubtype>),
        files: &[(&str, &[u8])],
    ) {
        let mut entries = Vec::new();
        for (path, bytes) in files {
            let sha = sha256_hex(bytes);
            self.state.lock().blobs.insert(sha.clone(), bytes.to_vec());
            entries.push(ManifestFile {
                path: path.to_string(),
                size: bytes.len() as u64,
                sha256: sha,
            });
        }
        let publish = Publish {
            kind,
            subtype,
            version: Some(version.into()),
            files: entries,
            card: Default::default(),
            requires: None,
            dry_run: false,
        };
        self.publish_now(name, &publish).expect("a test publish");
    }

    /// Replaces the bytes stored under blob `sha256` (what a tampered object store serves).
    pub fn tamper(&self, sha256: &str, bytes: &[u8]) {
        self.state.lock().blobs.insert(sha256.to_string(), bytes.to_vec());
    }

    /// A new signing key, signed by the old one; every kept version re-signed.
    pub fn rotate(&self) {
        let mut state = self.state.lock();
        let key = new_key(state.keys.last(), &self.slug);
        state.keys.push(key);
        self.resign(&mut state);
    }

    /// A new signing key NOT signed by the old one (an attacker's).
    pub fn replace_key(&self) {
        let mut state = self.state.lock();
        let key = new_key(None, &self.slug);
        state.keys = vec![key];
        self.resign(&mut state);
    }

    fn resign(&self, state: &mut State) {
        let key = state.keys.last().expect("a key");
        for item in state.items.values_mut() {
            for (_, signed) in item.versions.iter_mut() {
                let mut manifest: Manifest = serde_json::from_str(&signed.manifest).expect("ours");
                manifest.kid = key.public.kid.clone();
                *signed = sign(key, &manifest);
            }
        }
    }

    /// How many blobs were downloaded so far.
    pub fn downloads(&self) -> usize {
        self.state.lock().downloads
    }

    fn publish_now(&self, name: &str, publish: &Publish) -> Result<Published> {
        let mut state = self.state.lock();
        state.clock += 1;
        let now = state.clock;
        let kid = state.keys.last().expect("a key").public.kid.clone();
        let latest = state.items.get(name).and_then(|i| i.versions.last().cloned());
        let mut files = publish.files.clone();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        if let Some((version, signed)) = &latest {
            let manifest: Manifest = serde_json::from_str(&signed.manifest).expect("ours");
            if manifest.files == files {
                return Ok(self.published(&state, name, PublishOutcome::UpToDate, version, signed));
            }
        }
        let version = match (&publish.version, &latest) {
            (Some(v), Some((latest, _))) => {
                let (v, l) = (
                    Version::parse(v).expect("a version"),
                    Version::parse(&latest.version).expect("ours"),
                );
                if !v.newer_than(&l) {
                    let name = if v.precedence(&l) == std::cmp::Ordering::Equal {
                        cowork_wire::hub::HubErrorName::VersionTaken
                    } else {
                        cowork_wire::hub::HubErrorName::VersionBehind
                    };
                    return Err(refusal(name, "the store has that version or a newer one"));
                }
                v.to_string()
            }
            (Some(v), None) => v.clone(),
            (None, Some((latest, _))) => {
                Version::parse(&latest.version).expect("ours").next_patch().to_string()
            }
            (None, None) => "1.0.0".into(),
        };
        let manifest = Manifest {
            format: MANIFEST_FORMAT,
            team_server: self.slug.clone(),
            name: name.to_string(),
            kind: publish.kind,
            subtype: publish.subtype,
            version: version.clone(),
            files: files.clone(),
            published_at: now,
            published_by: "admin@example.com".into(),
            kid,
        };
        let signed = sign(state.keys.last().expect("a key"), &manifest);
        let entry = StoreVersion {
            version,
            published_at: now,
            published_by: "admin@example.com".into(),
            files: files.len() as u64,
            size: files.iter().map(|f| f.size).sum(),
            withdrawn_at: None,
        };
        let item = state
            .items
            .entry(name.to_string())
            .or_insert(Item { kind: publish.kind, versions: Vec::new() });
        item.versions.push((entry.clone(), signed.clone()));
        if item.versions.len() > KEEP_VERSIONS {
            item.versions.remove(0);
        }
        Ok(self.published(&state, name, PublishOutcome::Published, &entry, &signed))
    }

    fn published(
        &self,
        state: &State,
        name: &str,
        outcome: PublishOutcome,
        version: &StoreVersion,
        signed: &SignedManifest,
    ) -> Published {
        Published {
            outcome,
            item: item_of(name, &state.items[name]),
            version: VersionManifest {
                name: name.into(),
                version: version.clone(),
                signed: signed.clone(),
            },
        }
    }
}

fn sign(key: &Key, manifest: &Manifest) -> SignedManifest {
    let text = serde_json::to_string(manifest).expect("a manifest serializes");
    let signature = URL_SAFE_NO_PAD.encode(key.pair.sign(text.as_bytes()).as_ref());
    SignedManifest { manifest: text, signature, kid: key.public.kid.clone() }
}

fn refusal(name: cowork_wire::hub::HubErrorName, message: &str) -> StoreError {
    StoreError::from(cowork_wire::hub::client::ClientError::Hub {
        status: 409,
        error: cowork_wire::hub::HubError { name, message: message.into(), hint: None },
        retry_after: None,
    })
}

fn not_found(what: String) -> StoreError {
    refusal(cowork_wire::hub::HubErrorName::NotFound, &format!("{what} was not found"))
}

fn item_of(name: &str, item: &Item) -> StoreItem {
    let latest =
        item.versions.iter().rev().find(|(v, _)| v.withdrawn_at.is_none()).expect("a version");
    StoreItem {
        name: name.into(),
        kind: item.kind,
        subtype: None,
        version: latest.0.version.clone(),
        title: None,
        description: None,
        tags: Vec::new(),
        icon: None,
        banner: None,
        screenshots: Vec::new(),
        requires: Vec::new(),
        versions: item.versions.len() as u64,
        created_at: 0,
        updated_at: latest.0.published_at,
    }
}

impl Remote for MemoryRemote {
    fn slug(&self) -> &str {
        &self.slug
    }

    fn signer(&self) -> Signer {
        Signer::TeamServer { hub: self.hub.clone() }
    }

    async fn store(&self) -> Result<Store> {
        let state = self.state.lock();
        Ok(Store { items: state.items.iter().map(|(n, i)| item_of(n, i)).collect() })
    }

    async fn item(&self, name: &str) -> Result<ItemVersions> {
        let state = self.state.lock();
        let item =
            state.items.get(name).ok_or_else(|| not_found(format!("{}/{name}", self.slug)))?;
        Ok(ItemVersions {
            item: item_of(name, item),
            versions: item.versions.iter().rev().map(|(v, _)| v.clone()).collect(),
        })
    }

    async fn manifest(&self, name: &str, version: Option<&str>) -> Result<VersionManifest> {
        let state = self.state.lock();
        let item =
            state.items.get(name).ok_or_else(|| not_found(format!("{}/{name}", self.slug)))?;
        let found = match version {
            Some(v) => item.versions.iter().find(|(s, _)| s.version == v),
            None => item.versions.iter().rev().find(|(s, _)| s.withdrawn_at.is_none()),
        }
        .ok_or_else(|| {
            not_found(format!("{}/{name}@{}", self.slug, version.unwrap_or("latest")))
        })?;
        Ok(VersionManifest { name: name.into(), version: found.0.clone(), signed: found.1.clone() })
    }

    async fn keys(&self) -> Result<StoreKeys> {
        Ok(StoreKeys { keys: self.state.lock().keys.iter().map(|k| k.public.clone()).collect() })
    }

    async fn blob(&self, sha256: &str) -> Result<Vec<u8>> {
        let mut state = self.state.lock();
        state.downloads += 1;
        state.blobs.get(sha256).cloned().ok_or_else(|| not_found(format!("the blob {sha256}")))
    }

    async fn missing(&self, sha256: &[String]) -> Result<Vec<String>> {
        let state = self.state.lock();
        Ok(sha256.iter().filter(|s| !state.blobs.contains_key(*s)).cloned().collect())
    }

    async fn put_blob(&self, sha256: &str, bytes: Vec<u8>) -> Result<()> {
        assert_eq!(sha256_hex(&bytes), sha256, "the hub checks a blob's name");
        self.state.lock().blobs.insert(sha256.to_string(), bytes);
        Ok(())
    }

    async fn publish(&self, name: &str, publish: &Publish) -> Result<Published> {
        self.publish_now(name, publish)
    }

    async fn unpublish(&self, name: &str, version: Option<&str>) -> Result<()> {
        let mut state = self.state.lock();
        state.clock += 1;
        let now = state.clock;
        match version {
            None => {
                state.items.remove(name);
            }
            Some(v) => {
                let item = state.items.get_mut(name).ok_or_else(|| not_found(name.to_string()))?;
                let latest = item.versions.last().map(|(s, _)| s.version.clone());
                if latest.as_deref() == Some(v) {
                    return Err(refusal(
                        cowork_wire::hub::HubErrorName::Conflict,
                        "the latest version cannot be withdrawn",
                    ));
                }
                let entry = item
                    .versions
                    .iter_mut()
                    .find(|(s, _)| s.version == v)
                    .ok_or_else(|| not_found(v.to_string()))?;
                entry.0.withdrawn_at = Some(now);
            }
        }
        Ok(())
    }
}
