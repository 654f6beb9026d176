//! Checking what a store hands out (feature `verify`): the key chain from the key a client pinned
//! to the key that signs now, a version's signed manifest, and each file against its manifest.
//! The hub signs with the same formats (its tests verify with these functions), so the two ends
//! cannot drift apart.
//!
//! "Verified" (issue 42) = [`key_chain`] reaches the signing key from the pinned one, [`manifest`]
//! holds for the version asked, and [`file`] holds for every file.

use super::store::{
    is_safe_path, is_sha256, KeyStatement, Manifest, ManifestFile, SignedManifest, StoreKey,
    StoreKeys, KEY_STATEMENT_FORMAT, MANIFEST_FORMAT,
};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};

/// Why something a store handed out is not verified.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The key the client pinned is not in the team server's chain: the store now signs with a
    /// key that no key this client trusts endorsed.
    #[error("failed to find the pinned store key {kid} in the team server's keys")]
    UnknownKey {
        /// The pinned key's id.
        kid: String,
    },
    /// A key in the chain is not signed by the one before it.
    #[error("failed to trust the store key {kid}: {why}")]
    KeyNotEndorsed {
        /// The key's id.
        kid: String,
        /// What does not hold.
        why: String,
    },
    /// The manifest's signature does not hold for its text, or names another key.
    #[error("failed to verify the manifest of {what}: {why}")]
    BadSignature {
        /// The item, as `<team-server>/<name>[@<version>]`.
        what: String,
        /// What does not hold.
        why: String,
    },
    /// The manifest is signed but is not the one asked for, or breaks the format's rules.
    #[error("failed to accept the manifest of {what}: {why}")]
    BadManifest {
        /// The item, as `<team-server>/<name>[@<version>]`.
        what: String,
        /// What does not hold.
        why: String,
    },
    /// A file's bytes do not hash to the manifest's SHA-256 (a damaged or tampered blob).
    #[error("failed to verify {path}: its bytes hash to {actual}, the manifest says {expected}")]
    HashMismatch {
        /// The file, relative to the item.
        path: String,
        /// The manifest's SHA-256.
        expected: String,
        /// The bytes' SHA-256.
        actual: String,
    },
    /// A file's length is not the manifest's size.
    #[error("failed to verify {path}: it has {actual} bytes, the manifest says {expected}")]
    SizeMismatch {
        /// The file, relative to the item.
        path: String,
        /// The manifest's size.
        expected: u64,
        /// The bytes' length.
        actual: u64,
    },
}

/// The SHA-256 of `bytes`, lower-case hex: a blob's name.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// A key's id: the first 16 hex characters of the SHA-256 of its 32 public bytes.
pub fn key_id(public_key: &[u8]) -> String {
    sha256_hex(public_key)[..16].to_string()
}

fn public_bytes(key: &StoreKey) -> Result<Vec<u8>, String> {
    let bytes = URL_SAFE_NO_PAD
        .decode(&key.public_key)
        .map_err(|e| format!("its public key is not base64url: {e}"))?;
    if bytes.len() != 32 {
        return Err(format!("its public key has {} bytes, not 32", bytes.len()));
    }
    if key_id(&bytes) != key.kid {
        return Err("its id is not the hash of its public key".into());
    }
    Ok(bytes)
}

fn signature_holds(public: &[u8], message: &[u8], signature: &str) -> bool {
    let Ok(signature) = URL_SAFE_NO_PAD.decode(signature) else { return false };
    ring::signature::UnparsedPublicKey::new(&ring::signature::ED25519, public)
        .verify(message, &signature)
        .is_ok()
}

/// Walk `keys` from the key `pinned_kid` (the one the client trusted when it joined
/// `team_server`) to the last: each later key must carry a statement naming it, this team
/// server and the key before it, signed by that key. Answers the last key (the one that signs
/// now). Keys before the pinned one are not looked at.
pub fn key_chain<'a>(
    team_server: &str,
    pinned_kid: &str,
    keys: &'a StoreKeys,
) -> Result<&'a StoreKey, VerifyError> {
    let start = keys
        .keys
        .iter()
        .position(|k| k.kid == pinned_kid)
        .ok_or_else(|| VerifyError::UnknownKey { kid: pinned_kid.to_string() })?;
    let mut trusted = &keys.keys[start];
    public_bytes(trusted)
        .map_err(|why| VerifyError::KeyNotEndorsed { kid: trusted.kid.clone(), why })?;
    for next in &keys.keys[start + 1..] {
        let refuse = |why: String| VerifyError::KeyNotEndorsed { kid: next.kid.clone(), why };
        let endorsement =
            next.endorsement.as_ref().ok_or_else(|| refuse("no key before it signed it".into()))?;
        if endorsement.previous_kid != trusted.kid {
            return Err(refuse(format!(
                "it is signed by {}, not by {}",
                endorsement.previous_kid, trusted.kid
            )));
        }
        let previous = public_bytes(trusted).map_err(&refuse)?;
        if !signature_holds(&previous, endorsement.statement.as_bytes(), &endorsement.signature) {
            return Err(refuse(format!("the signature by {} does not hold", trusted.kid)));
        }
        let statement: KeyStatement = serde_json::from_str(&endorsement.statement)
            .map_err(|e| refuse(format!("its statement does not parse: {e}")))?;
        public_bytes(next).map_err(&refuse)?;
        if statement.format != KEY_STATEMENT_FORMAT
            || statement.team_server != team_server
            || statement.previous_kid != trusted.kid
            || statement.kid != next.kid
            || statement.public_key != next.public_key
        {
            return Err(refuse("its statement names another key or team server".into()));
        }
        trusted = next;
    }
    Ok(trusted)
}

/// Check a signed manifest with `key` and that it is the version of `name` in `team_server` that
/// was asked for (`version`: `None` takes whatever version it names); answers it parsed.
pub fn manifest(
    signed: &SignedManifest,
    key: &StoreKey,
    team_server: &str,
    name: &str,
    version: Option<&str>,
) -> Result<Manifest, VerifyError> {
    let what = match version {
        Some(version) => format!("{team_server}/{name}@{version}"),
        None => format!("{team_server}/{name}"),
    };
    let bad_signature = |why: String| VerifyError::BadSignature { what: what.clone(), why };
    if signed.kid != key.kid {
        return Err(bad_signature(format!(
            "it is signed by the key {}, not by {}",
            signed.kid, key.kid
        )));
    }
    let public = public_bytes(key).map_err(&bad_signature)?;
    if !signature_holds(&public, signed.manifest.as_bytes(), &signed.signature) {
        return Err(bad_signature(format!(
            "the signature by {} does not hold for its text",
            key.kid
        )));
    }
    let bad = |why: String| VerifyError::BadManifest { what: what.clone(), why };
    let manifest: Manifest = serde_json::from_str(&signed.manifest)
        .map_err(|e| bad(format!("it does not parse: {e}")))?;
    if manifest.format != MANIFEST_FORMAT {
        return Err(bad(format!("format {} is not {MANIFEST_FORMAT}", manifest.format)));
    }
    if manifest.kid != key.kid {
        return Err(bad(format!("it names the key {}", manifest.kid)));
    }
    if manifest.team_server != team_server || manifest.name != name {
        return Err(bad(format!("it is {}/{}", manifest.team_server, manifest.name)));
    }
    if version.is_some_and(|v| v != manifest.version) {
        return Err(bad(format!("it is version {}", manifest.version)));
    }
    for pair in manifest.files.windows(2) {
        if pair[0].path >= pair[1].path {
            return Err(bad(format!(
                "its files are not sorted by path, each once ({:?})",
                pair[1].path
            )));
        }
    }
    for entry in &manifest.files {
        if !is_safe_path(&entry.path) {
            return Err(bad(format!("the path {:?} could leave the install folder", entry.path)));
        }
        if !is_sha256(&entry.sha256) {
            return Err(bad(format!("{:?} names the blob {:?}", entry.path, entry.sha256)));
        }
    }
    Ok(manifest)
}

/// Check a downloaded file against its manifest entry.
pub fn file(entry: &ManifestFile, bytes: &[u8]) -> Result<(), VerifyError> {
    let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if size != entry.size {
        return Err(VerifyError::SizeMismatch {
            path: entry.path.clone(),
            expected: entry.size,
            actual: size,
        });
    }
    let actual = sha256_hex(bytes);
    if actual != entry.sha256 {
        return Err(VerifyError::HashMismatch {
            path: entry.path.clone(),
            expected: entry.sha256.clone(),
            actual,
        });
    }
    Ok(())
}
