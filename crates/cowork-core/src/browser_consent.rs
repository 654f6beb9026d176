//! Who may drive the desktop app's browser, and on which sites: `<root>/browser-consent.json`.
//!
//! Two writers meet here: the daemon, when the person answers the shell's consent dialog, and
//! `cowork consent allow <site> --browser` (the approve-ahead line a setup script runs on a
//! machine where nobody is at the dialog). Both read, edit and write the file under
//! [`fs_atomic::lock`](crate::fs_atomic::lock) and replace it atomically, so neither loses the
//! other's answer and a reader never sees half a file.
//!
//! The file is `{"drivers": {"<driver key>": ["<site>", …]}}`: a driver key present (even with no
//! sites) means it was allowed to drive the browser at all; each site is one it may act on.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The consent file's name under the Cowork root.
pub const FILE: &str = "browser-consent.json";

/// A failure to read or write the consent file.
#[derive(Debug, thiserror::Error)]
pub enum BrowserConsentError {
    /// The file could not be locked or written.
    #[error("failed to write {path}: {source}")]
    Write {
        /// The file Cowork tried to write.
        path: PathBuf,
        /// Why the write failed.
        source: std::io::Error,
    },
    /// The file is not what Cowork wrote: never guessed at (nor overwritten), since it decides
    /// who drives the person's signed-in pages.
    #[error(
        "{path} is not valid JSON ({source}); fix or delete it — browser consent is never guessed"
    )]
    Corrupt {
        /// The file that does not parse.
        path: PathBuf,
        /// What the parser found wrong.
        source: serde_json::Error,
    },
}

#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq, Eq)]
struct Allowed {
    /// Driver key → its sites.
    #[serde(default)]
    drivers: BTreeMap<String, BTreeSet<String>>,
}

/// The key of an app's routines as a driver: `app:<workspace's canonical path>:<app>`.
pub fn app_key(workspace: &str, app: &str) -> String {
    format!("app:{workspace}:{app}")
}

/// The key of an agent (`cowork mcp-browser --agent <name>`) as a driver: `agent:<name>`.
pub fn agent_key(name: &str) -> String {
    format!("agent:{name}")
}

/// One Cowork root's browser consent file.
pub struct BrowserConsents {
    path: PathBuf,
}

impl BrowserConsents {
    /// The consent file under the Cowork root folder `root`.
    pub fn new(root: &Path) -> Self {
        BrowserConsents { path: root.join(FILE) }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Result<Allowed, BrowserConsentError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|source| BrowserConsentError::Corrupt { path: self.path.clone(), source }),
            Err(_) => Ok(Allowed::default()),
        }
    }

    /// Reads, edits and writes the file under its lock; `edit` answers whether it changed
    /// anything (nothing is written when it did not).
    fn change(&self, edit: impl FnOnce(&mut Allowed) -> bool) -> Result<bool, BrowserConsentError> {
        let write_error = |source| BrowserConsentError::Write { path: self.path.clone(), source };
        let _held = crate::fs_atomic::lock(&self.path).map_err(write_error)?;
        let mut allowed = self.read()?;
        if !edit(&mut allowed) {
            return Ok(false);
        }
        let text = serde_json::to_string_pretty(&allowed).expect("consents serialize");
        crate::fs_atomic::write(&self.path, format!("{text}\n").as_bytes(), true)
            .map_err(write_error)?;
        Ok(true)
    }

    /// The sites the driver `key` may act on; `None` when it was never allowed to drive the
    /// browser (or the file does not parse: then the person is asked, and the answer is not
    /// written over the file).
    pub fn sites(&self, key: &str) -> Option<Vec<String>> {
        self.read().ok()?.drivers.get(key).map(|sites| sites.iter().cloned().collect())
    }

    /// Every driver key with its sites, keys and sites in order.
    pub fn list(&self) -> Result<BTreeMap<String, Vec<String>>, BrowserConsentError> {
        Ok(self
            .read()?
            .drivers
            .into_iter()
            .map(|(key, sites)| (key, sites.into_iter().collect()))
            .collect())
    }

    /// Remembers that `key` may drive the browser, and on `site` when given; false when it
    /// already could.
    pub fn allow(&self, key: &str, site: Option<&str>) -> Result<bool, BrowserConsentError> {
        self.change(|allowed| {
            let new_driver = !allowed.drivers.contains_key(key);
            let sites = allowed.drivers.entry(key.to_string()).or_default();
            let new_site = site.is_some_and(|site| sites.insert(site.to_string()));
            new_driver || new_site
        })
    }

    /// Withdraws `key`'s consent for `site`; false when it had none. A driver left with no site
    /// is forgotten altogether, so its next action asks as the first time did.
    pub fn revoke(&self, key: &str, site: &str) -> Result<bool, BrowserConsentError> {
        self.change(|allowed| {
            let Some(sites) = allowed.drivers.get_mut(key) else { return false };
            if !sites.remove(site) {
                return false;
            }
            if sites.is_empty() {
                allowed.drivers.remove(key);
            }
            true
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_and_revoke_round_trip_and_a_corrupt_file_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let consents = BrowserConsents::new(dir.path());
        let key = agent_key("claude-code");
        assert_eq!(consents.sites(&key), None);
        assert!(consents.allow(&key, Some("github.com")).unwrap());
        assert!(!consents.allow(&key, Some("github.com")).unwrap(), "already allowed");
        assert!(consents.allow(&key, None).is_ok_and(|changed| !changed));
        assert_eq!(consents.sites(&key), Some(vec!["github.com".to_string()]));
        assert!(!consents.revoke(&key, "example.com").unwrap());
        assert!(consents.revoke(&key, "github.com").unwrap());
        assert_eq!(consents.sites(&key), None, "no site left: asked as the first time");

        std::fs::write(consents.path(), "{not json").unwrap();
        assert!(matches!(
            consents.allow(&key, Some("github.com")),
            Err(BrowserConsentError::Corrupt { .. })
        ));
        assert_eq!(std::fs::read_to_string(consents.path()).unwrap(), "{not json");
    }
}
