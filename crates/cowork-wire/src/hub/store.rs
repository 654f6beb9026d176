//! A team server's store on the wire (issue 42): items and their versions, signed manifests,
//! content-addressed blobs, the store's signing keys, and course subscriptions.
//!
//! The routes (all under `/api/team-servers/{slug}`; "members" = any role, "admins" = admin or
//! owner; a non-member reads nothing):
//!
//! | route | who | body → answer |
//! | --- | --- | --- |
//! | `GET store` | members | → [`Store`] (latest version of each item) |
//! | `GET store/items/{name}` | members | → [`ItemVersions`] (the versions kept, withdrawn ones marked) |
//! | `POST store/items/{name}/versions` | admins | [`Publish`] → [`Published`] |
//! | `GET store/items/{name}/versions/{version or "latest"}` | members | → [`VersionManifest`] |
//! | `DELETE store/items/{name}/versions/{version}` | admins | withdraw one version (never the latest) |
//! | `DELETE store/items/{name}` | admins | unpublish the whole item |
//! | `PATCH store/items/{name}` | admins | [`CardUpdate`] → [`StoreItem`] |
//! | `POST store/manifests` | members | [`ManifestRequest`] → [`Manifests`] (many in one call) |
//! | `POST blobs/missing` | admins | [`BlobList`] → [`MissingBlobs`] ("which of these do you lack") |
//! | `PUT blobs/{sha256}` | admins | bytes → [`BlobStored`] (refused unless the bytes hash to the name) |
//! | `GET blobs/{sha256}` | members | → bytes, or a redirect to a presigned URL (S3) |
//! | `GET store/keys` | members | → [`StoreKeys`] (the key chain, oldest first) |
//! | `POST store/keys/rotate` | owner | → [`StoreKeys`] |
//! | `PUT courses/{course}/subscription` | members | → [`Subscription`] |
//! | `DELETE courses/{course}/subscription` | members | unsubscribe |
//! | `GET courses/{course}/progress` | members | → [`CourseProgress`] |
//! | `PUT courses/{course}/progress/{lesson}` | members | [`LessonProgress`] → [`CourseProgress`] |
//!
//! and `GET /api/subscriptions` (the account's, every team server) → [`Subscriptions`].
//!
//! **What is signed.** Each version is a [`Manifest`] (every file's path, size and SHA-256, plus
//! the team server, item, kind, version and the signing key's id) serialized once by the hub; the
//! exact text travels in [`SignedManifest::manifest`] and the Ed25519 signature is over its bytes,
//! so nobody canonicalizes JSON. Each team server has its own key, made with the team server; a
//! rotation makes a new key whose [`KeyStatement`] the old key signs, and re-signs every version
//! the store keeps with the new key. A client pins the first key it sees (when it joins) and
//! accepts a later one only through that chain (`verify::key_chain`, feature `verify`).
//!
//! **Blobs** are named by the SHA-256 of their bytes (lower-case hex) and held per team server: a
//! blob uploaded to one team server is neither listed as present nor served by another. The hub
//! checks the hash on upload; what the object store later serves is not re-checked, so a client
//! checks every file against its manifest (`verify::file`).

use super::Millis;
use serde::{Deserialize, Serialize};

/// The manifest format this crate writes and reads.
pub const MANIFEST_FORMAT: u32 = 1;
/// The key statement format this crate writes and reads.
pub const KEY_STATEMENT_FORMAT: u32 = 1;
/// How many versions of an item a store keeps (withdrawn ones count): publishing the 11th drops
/// the oldest.
pub const KEEP_VERSIONS: usize = 10;
/// The most files one version may hold.
pub const MAX_FILES: usize = 10_000;
/// The most hashes one `blobs/missing` call may ask about.
pub const MAX_BLOB_QUERY: usize = 10_000;
/// The most items one `store/manifests` call may ask for.
pub const MAX_MANIFESTS: usize = 500;
/// A course, whole (page 11: "the whole course ≤ 25 MB").
pub const MAX_COURSE_BYTES: u64 = 25 * 1024 * 1024;
/// The version segment that names an item's latest version.
pub const LATEST: &str = "latest";

// ---------------------------------------------------------------------------------------------
// Vocabulary

/// What a store item is (`cowork publish --type`; apps come from `cowork push`).
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug, Hash)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum ItemKind {
    /// An app (`cowork push`).
    App,
    /// A whole workspace, to start from.
    Workspace,
    /// One folder of a workspace (`cowork publish --items` with one path), installed into `.cowork/apps/<name>/`.
    WorkspaceComponent,
    /// A scaffold the Create menu offers (with a [`TemplateSubtype`]).
    Template,
    /// A course the Academy shows: lessons with videos.
    Course,
}

impl ItemKind {
    /// The word as it travels, as `--type` takes it, and as the hub keeps it.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::App => "app",
            ItemKind::Workspace => "workspace",
            ItemKind::WorkspaceComponent => "workspace-component",
            ItemKind::Template => "template",
            ItemKind::Course => "course",
        }
    }

    /// The word with its article, as a sentence says it: `an app`, `a workspace`.
    pub fn with_article(self) -> String {
        let article = if self == ItemKind::App { "an" } else { "a" };
        format!("{article} {}", self.as_str())
    }

    /// The command that installs this kind, for a hint.
    pub fn installed_by(self) -> &'static str {
        match self {
            ItemKind::App | ItemKind::WorkspaceComponent => "`cowork app install`",
            ItemKind::Template => "`cowork template install`",
            ItemKind::Workspace | ItemKind::Course => "`cowork team-server install`",
        }
    }

    /// The kind `word` names (`--type`), if any.
    pub fn parse(word: &str) -> Option<ItemKind> {
        [
            ItemKind::App,
            ItemKind::Workspace,
            ItemKind::WorkspaceComponent,
            ItemKind::Template,
            ItemKind::Course,
        ]
        .into_iter()
        .find(|k| k.as_str() == word)
    }
}

impl std::fmt::Display for ItemKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a template scaffolds (`--subtype`; a template needs one, nothing else has one).
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug, Hash)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum TemplateSubtype {
    /// A template of an app.
    App,
    /// A template of a routine.
    Routine,
    /// A template of a skill.
    Skill,
    /// A template of a workspace.
    Workspace,
}

impl TemplateSubtype {
    /// The word as it travels, as `--subtype` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            TemplateSubtype::App => "app",
            TemplateSubtype::Routine => "routine",
            TemplateSubtype::Skill => "skill",
            TemplateSubtype::Workspace => "workspace",
        }
    }

    /// The subtype `word` names (`--subtype`), if any.
    pub fn parse(word: &str) -> Option<TemplateSubtype> {
        [
            TemplateSubtype::App,
            TemplateSubtype::Routine,
            TemplateSubtype::Skill,
            TemplateSubtype::Workspace,
        ]
        .into_iter()
        .find(|s| s.as_str() == word)
    }
}

/// Where an item runs (`--requires desktop|web`).
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Host {
    /// The desktop app.
    Desktop,
    /// A browser (the web workbench).
    Web,
}

impl Host {
    /// The word as it travels, as `--requires` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Host::Desktop => "desktop",
            Host::Web => "web",
        }
    }

    /// The host `word` names (`--requires`), if any.
    pub fn parse(word: &str) -> Option<Host> {
        match word {
            "desktop" => Some(Host::Desktop),
            "web" => Some(Host::Web),
            _ => None,
        }
    }
}

/// Whether `name` may name a store item: `^[a-z0-9][a-z0-9-]{0,62}$` (cowork.json's `name`, a
/// course's folder), and not a name the workspace's own folders or Windows reserve.
pub fn is_item_name(name: &str) -> bool {
    const RESERVED: &[&str] = &["apps", "data", "courses", "local", "con", "prn", "aux", "nul"];
    let bytes = name.as_bytes();
    let shaped = !bytes.is_empty()
        && bytes.len() <= 63
        && (bytes[0].is_ascii_lowercase() || bytes[0].is_ascii_digit())
        && bytes.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-');
    let device = (name.starts_with("com") || name.starts_with("lpt"))
        && name.len() == 4
        && (b'1'..=b'9').contains(&bytes[3]);
    shaped && !RESERVED.contains(&name) && !device
}

/// Whether `sha256` is a blob's name: 64 lower-case hex characters.
pub fn is_sha256(sha256: &str) -> bool {
    sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Whether a manifest path is safe to write under an install folder: relative, `/`-separated,
/// no empty, `.` or `..` segment, no backslash, colon or control character, at most 1,024 bytes.
pub fn is_safe_path(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= 1024
        && !path.chars().any(|c| c.is_control() || c == '\\' || c == ':')
        && path.split('/').all(|segment| !segment.is_empty() && segment != "." && segment != "..")
}

// ---------------------------------------------------------------------------------------------
// Versions

/// A version as cowork.json writes it (`X.Y.Z[-pre][+build]`), ordered by semver precedence.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Version {
    /// The `X` of `X.Y.Z`.
    pub major: u64,
    /// The `Y` of `X.Y.Z`.
    pub minor: u64,
    /// The `Z` of `X.Y.Z`.
    pub patch: u64,
    /// The pre-release tag after `-`, when there is one.
    pub pre: Option<String>,
    /// The build metadata after `+`, when there is one (it does not order).
    pub build: Option<String>,
}

impl Version {
    /// The version `text` names, or `None` when it is not `X.Y.Z[-pre][+build]` (at most 40
    /// characters, as cowork.json's schema says).
    pub fn parse(text: &str) -> Option<Version> {
        if text.len() > 40 {
            return None;
        }
        let (rest, build) = match text.split_once('+') {
            Some((rest, build)) => (rest, Some(build)),
            None => (text, None),
        };
        let (core, pre) = match rest.split_once('-') {
            Some((core, pre)) => (core, Some(pre)),
            None => (rest, None),
        };
        let tag_ok = |tag: &str| {
            !tag.is_empty()
                && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        };
        if pre.is_some_and(|p| !tag_ok(p)) || build.is_some_and(|b| !tag_ok(b)) {
            return None;
        }
        let mut numbers = core.split('.').map(|n| {
            (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                .then(|| n.parse::<u64>().ok())?
        });
        let (major, minor, patch) = (numbers.next()??, numbers.next()??, numbers.next()??);
        if numbers.next().is_some() {
            return None;
        }
        Some(Version {
            major,
            minor,
            patch,
            pre: pre.map(str::to_owned),
            build: build.map(str::to_owned),
        })
    }

    /// Whether this version comes after `other` (semver precedence; build metadata does not
    /// count, so `1.2.3+b` is not after `1.2.3+a`).
    pub fn newer_than(&self, other: &Version) -> bool {
        self.precedence(other) == std::cmp::Ordering::Greater
    }

    /// The next patch release: `1.2.3` → `1.2.4` (a pre-release or build tag is dropped).
    pub fn next_patch(&self) -> Version {
        Version {
            major: self.major,
            minor: self.minor,
            patch: self.patch + 1,
            pre: None,
            build: None,
        }
    }

    /// Semver §11 precedence, build metadata ignored.
    pub fn precedence(&self, other: &Version) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        let core =
            (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch));
        if core != Ordering::Equal {
            return core;
        }
        match (&self.pre, &other.pre) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            (Some(a), Some(b)) => {
                let mut a = a.split('.');
                let mut b = b.split('.');
                loop {
                    match (a.next(), b.next()) {
                        (None, None) => return Ordering::Equal,
                        (None, Some(_)) => return Ordering::Less,
                        (Some(_), None) => return Ordering::Greater,
                        (Some(x), Some(y)) => {
                            let order = match (x.parse::<u64>(), y.parse::<u64>()) {
                                (Ok(x), Ok(y)) => x.cmp(&y),
                                (Ok(_), Err(_)) => Ordering::Less,
                                (Err(_), Ok(_)) => Ordering::Greater,
                                (Err(_), Err(_)) => x.cmp(y),
                            };
                            if order != Ordering::Equal {
                                return order;
                            }
                        }
                    }
                }
            }
        }
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if let Some(pre) = &self.pre {
            write!(f, "-{pre}")?;
        }
        if let Some(build) = &self.build {
            write!(f, "+{build}")?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Manifests

/// One file of a version.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug, Hash)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ManifestFile {
    /// Relative to the item's folder, `/`-separated ([`is_safe_path`]).
    pub path: String,
    /// Its length in bytes.
    pub size: u64,
    /// Its blob's name: the SHA-256 of its bytes, lower-case hex.
    pub sha256: String,
}

/// What a version is, as the team server's key signs it. Its files are sorted by path, each path
/// once.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Manifest {
    /// [`MANIFEST_FORMAT`].
    pub format: u32,
    /// The team server's slug.
    pub team_server: String,
    /// The item's name in the store.
    pub name: String,
    /// What the item is.
    pub kind: ItemKind,
    /// What a template scaffolds; none for any other kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<TemplateSubtype>,
    /// The version it describes (`X.Y.Z`).
    pub version: String,
    /// Every file, sorted by path, each path once.
    pub files: Vec<ManifestFile>,
    /// When it was published.
    pub published_at: Millis,
    /// The publishing admin's email.
    pub published_by: String,
    /// The key that signs it ([`StoreKey::kid`]).
    pub kid: String,
}

/// A manifest as it travels: the exact JSON text the hub signed, its Ed25519 signature
/// (base64url, no padding) and the signing key's id. Verify, then parse the text.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SignedManifest {
    /// The manifest's exact JSON text, as signed.
    pub manifest: String,
    /// The Ed25519 signature of the text, base64url without padding.
    pub signature: String,
    /// The id of the key that signed it.
    pub kid: String,
}

/// One version an item's store keeps.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StoreVersion {
    /// The version (`X.Y.Z`).
    pub version: String,
    /// When it was published.
    pub published_at: Millis,
    /// The publishing admin's email.
    pub published_by: String,
    /// How many files, and their bytes together.
    pub files: u64,
    /// The files' bytes together.
    pub size: u64,
    /// Set once an admin withdrew it: no new install should take it; copies already installed
    /// (even pinned to it) keep working, and `app versions` notes it.
    pub withdrawn_at: Option<Millis>,
}

/// One version with its signed manifest.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct VersionManifest {
    /// The item's name.
    pub name: String,
    /// The version, as the store lists it.
    pub version: StoreVersion,
    /// Its manifest, signed.
    pub signed: SignedManifest,
}

// ---------------------------------------------------------------------------------------------
// Items

/// One item of a store, at its latest version, with its store card.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StoreItem {
    /// Unique in the store, never renamed.
    pub name: String,
    /// What the item is.
    pub kind: ItemKind,
    /// What a template scaffolds; none for any other kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<TemplateSubtype>,
    /// The latest version (never withdrawn).
    pub version: String,
    /// The card's title; none = the item's name.
    pub title: Option<String>,
    /// The card's text.
    pub description: Option<String>,
    /// The card's tags.
    pub tags: Vec<String>,
    /// A codicon id (`mail`), or the SHA-256 of an image blob of this store.
    pub icon: Option<String>,
    /// The SHA-256 of the listing's wide picture.
    pub banner: Option<String>,
    /// SHA-256s of the listing's screenshots, in order (at most 5).
    pub screenshots: Vec<String>,
    /// Where it runs; empty when the publisher did not say.
    pub requires: Vec<Host>,
    /// How many versions the store keeps of it (at most [`KEEP_VERSIONS`]).
    pub versions: u64,
    /// When the item was first published.
    pub created_at: Millis,
    /// Its latest publish or card change.
    pub updated_at: Millis,
}

/// `GET store` (members): every item, by name.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Store {
    /// The store's items.
    pub items: Vec<StoreItem>,
}

/// `GET store/items/{name}` (members): the item and the versions kept, newest first.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ItemVersions {
    /// The item, at its latest version.
    pub item: StoreItem,
    /// The versions kept, newest first.
    pub versions: Vec<StoreVersion>,
}

/// The store card fields a publish or `PATCH store/items/{name}` states. A field left out keeps
/// what the store has; an empty string or list clears it. Images are SHA-256s of blobs uploaded to
/// this store first (screenshots and banner ≤ 1 MB, an icon image ≤ 256 KB).
#[derive(Serialize, Deserialize, Clone, Default, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CardUpdate {
    /// At most 200 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// At most 2,000 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// At most 20, each at most 40 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// A codicon id, or an image blob's SHA-256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// The SHA-256 of the listing's wide picture (≤ 1 MB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub banner: Option<String>,
    /// At most 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshots: Option<Vec<String>>,
}

impl CardUpdate {
    /// Whether it states nothing.
    pub fn is_empty(&self) -> bool {
        *self == CardUpdate::default()
    }
}

/// `POST store/items/{name}/versions` (admins): publish the files (every blob uploaded first).
///
/// - `version` given: it must come after every version the item ever had. The same version as
///   the latest with the same files is [`PublishOutcome::UpToDate`] (nothing published); with
///   other files, `VersionTaken` (bump the patch and publish again); a lower one, `VersionBehind`
///   (the store is newer than your copy: update first).
/// - `version` left out: the hub assigns the next patch (`1.0.0` for a new item), unless the
///   files are the latest version's (`UpToDate`).
/// - `kind` is the item's for good: another kind is `Conflict`.
/// - `dryRun`: every check and the answer, nothing written.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Publish {
    /// What the item is (the item's for good once published).
    pub kind: ItemKind,
    /// Required for a template, refused otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<TemplateSubtype>,
    /// The version to publish; none = the next patch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// In any order; the manifest sorts them. At most [`MAX_FILES`].
    pub files: Vec<ManifestFile>,
    /// The store card fields to state with it.
    #[serde(default, skip_serializing_if = "CardUpdate::is_empty")]
    pub card: CardUpdate,
    /// Left out: kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Vec<Host>>,
    /// Run every check and answer, write nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
}

/// What a publish did.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum PublishOutcome {
    /// A new version (or, on a dry run, one would be).
    Published,
    /// The files are the latest version's: no version was made (card fields stated were still
    /// applied).
    UpToDate,
}

/// The answer to a publish: the outcome, the item as it now is, and the version (the new one, or
/// the latest when up to date).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Published {
    /// Whether a version was made.
    pub outcome: PublishOutcome,
    /// The item as it now is.
    pub item: StoreItem,
    /// The new version, or the latest when up to date.
    pub version: VersionManifest,
}

/// One manifest asked for: an item's `version`, or its latest when left out.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct WantedManifest {
    /// The item's name.
    pub name: String,
    /// The version; none = the latest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// `POST store/manifests` (members): at most [`MAX_MANIFESTS`] at once.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ManifestRequest {
    /// The manifests asked for.
    pub items: Vec<WantedManifest>,
}

/// The manifests found, in the order asked, and what the store does not keep (anymore).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Manifests {
    /// The manifests found, in the order asked.
    pub manifests: Vec<VersionManifest>,
    /// Those the store does not keep (anymore).
    pub missing: Vec<WantedManifest>,
}

// ---------------------------------------------------------------------------------------------
// Blobs

/// `POST blobs/missing` (admins): the hashes a push is about to reference, at most
/// [`MAX_BLOB_QUERY`].
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct BlobList {
    /// The SHA-256s, lower-case hex.
    pub sha256: Vec<String>,
}

/// Those of the asked hashes this store does not hold: upload them, then publish. (Those it holds
/// are kept at least a day from this answer, so a publish that follows finds them.)
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct MissingBlobs {
    /// The hashes to upload.
    pub missing: Vec<String>,
}

/// `PUT blobs/{sha256}` (admins): the blob is kept under its SHA-256, which the hub checks.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct BlobStored {
    /// The blob's name: the SHA-256 of its bytes.
    pub sha256: String,
    /// Its length in bytes.
    pub size: u64,
    /// It was there already: nothing was written.
    pub existed: bool,
}

// ---------------------------------------------------------------------------------------------
// Keys

/// What an old key signs when it hands over to a new one.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct KeyStatement {
    /// [`KEY_STATEMENT_FORMAT`].
    pub format: u32,
    /// The team server's slug.
    pub team_server: String,
    /// The old key's id, which signs the statement.
    pub previous_kid: String,
    /// The new key's id.
    pub kid: String,
    /// The new key, base64url without padding (32 bytes).
    pub public_key: String,
    /// When the new key was made.
    pub created_at: Millis,
}

/// The old key's signature of a new key: the exact [`KeyStatement`] text and its Ed25519
/// signature (base64url, no padding) by `previous_kid`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct KeyEndorsement {
    /// The old key's id.
    pub previous_kid: String,
    /// The exact [`KeyStatement`] JSON text it signed.
    pub statement: String,
    /// The Ed25519 signature of the text, base64url without padding.
    pub signature: String,
}

/// One signing key of a team server's store (Ed25519).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StoreKey {
    /// The first 16 hex characters of the SHA-256 of the public key.
    pub kid: String,
    /// base64url without padding (32 bytes).
    pub public_key: String,
    /// When the key was made.
    pub created_at: Millis,
    /// `None` for the team server's first key (pinned when a member joins).
    pub endorsement: Option<KeyEndorsement>,
}

/// `GET store/keys` (members): every key the team server's store ever had, oldest first; the
/// last signs.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StoreKeys {
    /// The keys, oldest first.
    pub keys: Vec<StoreKey>,
}

// ---------------------------------------------------------------------------------------------
// Updates

/// One item's latest version, as an updates answer carries it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ItemHead {
    /// The item's name.
    pub name: String,
    /// What the item is.
    pub kind: ItemKind,
    /// Its latest version.
    pub version: String,
}

/// The latest version of every item of one team server's store.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StoreHeads {
    /// The team server's slug.
    pub slug: String,
    /// Its store's items, at their latest version.
    pub items: Vec<ItemHead>,
}

// ---------------------------------------------------------------------------------------------
// Courses

/// A course the account subscribed to. Kept by the hub per account and course name: when a
/// course is unpublished and published again under the same name, subscriptions and progress
/// resume.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Subscription {
    /// The team server the course is on.
    pub team_server: String,
    /// The course's name.
    pub course: String,
    /// When the account subscribed.
    pub subscribed_at: Millis,
    /// The course's latest version; `None` while it is unpublished.
    pub version: Option<String>,
    /// The course's title at its latest version.
    pub title: Option<String>,
    /// Lessons this account has marked done.
    pub lessons_done: u64,
}

/// `GET /api/subscriptions`: the account's, in the team servers it still belongs to.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Subscriptions {
    /// The account's subscriptions.
    pub subscriptions: Vec<Subscription>,
}

/// A subscription named, as an updates answer carries it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SubscriptionRef {
    /// The team server the course is on.
    pub team_server: String,
    /// The course's name.
    pub course: String,
}

/// One lesson done.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct LessonDone {
    /// The lesson's id (its folder name, page 11), not its place: reordering keeps progress.
    pub lesson: String,
    /// When it was marked done.
    pub done_at: Millis,
}

/// `GET courses/{course}/progress`: the caller's progress in a course.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CourseProgress {
    /// The team server the course is on.
    pub team_server: String,
    /// The course's name.
    pub course: String,
    /// The caller subscribed to it.
    pub subscribed: bool,
    /// The lessons done.
    pub lessons: Vec<LessonDone>,
}

/// `PUT courses/{course}/progress/{lesson}`: mark a lesson done (or not).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct LessonProgress {
    /// Done (`true`) or not.
    pub done: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_by_semver_precedence() {
        let v = |t: &str| Version::parse(t).unwrap_or_else(|| panic!("{t}"));
        let ordered = [
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.0.1",
            "1.2.0",
            "2.0.0",
        ];
        for pair in ordered.windows(2) {
            assert!(v(pair[1]).newer_than(&v(pair[0])), "{} after {}", pair[1], pair[0]);
            assert!(!v(pair[0]).newer_than(&v(pair[1])));
        }
        assert!(!v("1.2.3+b").newer_than(&v("1.2.3+a")), "build metadata does not count");
        assert_eq!(v("1.2.3-rc.1+x").next_patch().to_string(), "1.2.4");
        assert_eq!(v("10.20.30-a.b+c").to_string(), "10.20.30-a.b+c");
    }

    #[test]
    fn malformed_versions_are_refused() {
        for bad in [
            "",
            "1",
            "1.2",
            "1.2.3.4",
            "v1.2.3",
            "1.2.x",
            "1.2.3-",
            "1.2.3+",
            "1.2.3-a b",
            "1..3",
            &"9".repeat(41),
        ] {
            assert_eq!(Version::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn item_names_follow_the_manifest_rule() {
        for good in ["gmail", "a", "0-x", "crm-2", &"a".repeat(63)] {
            assert!(is_item_name(good), "{good}");
        }
        for bad in ["", "-a", "Gmail", "a_b", "apps", "courses", "com1", "nul", &"a".repeat(64)] {
            assert!(!is_item_name(bad), "{bad}");
        }
        assert!(is_item_name("com"), "only com1-com9 are devices");
    }

    #[test]
    fn paths_that_could_escape_an_install_folder_are_unsafe() {
        for good in ["cowork.json", "web/index.html", "01-welcome/lesson.md", ".hidden/x"] {
            assert!(is_safe_path(good), "{good}");
        }
        for bad in ["", "/etc/passwd", "a/../b", "..", "./a", "a//b", "a/", "a\\b", "c:/x", "a\nb"]
        {
            assert!(!is_safe_path(bad), "{bad:?}");
        }
    }

    #[test]
    fn kinds_travel_as_publish_type_words() {
        assert_eq!(
            serde_json::to_string(&ItemKind::WorkspaceComponent).unwrap(),
            "\"workspace-component\""
        );
        for kind in [ItemKind::App, ItemKind::Course, ItemKind::WorkspaceComponent] {
            assert_eq!(ItemKind::parse(kind.as_str()), Some(kind));
        }
    }
}
