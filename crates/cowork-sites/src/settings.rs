//! A site app's settings on this machine: today one, whether (and after how long hidden) it
//! hibernates ([`crate::hibernation`]).
//!
//! They live OUTSIDE the app folder, under the Cowork root beside the install receipts
//! (`<root>/workspaces/<key>/site-apps.json`, one object per app name): how much memory this
//! machine can spare is not the app's to say, and the folder travels when it is pushed or copied.
//! A missing file is every app at its defaults (hibernation off).

use cowork_core::fs_atomic;
use cowork_core::paths::Root;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The idle time a hibernation is switched on with when none is named: ten minutes hidden.
pub const DEFAULT_HIBERNATE_AFTER: Duration = Duration::from_secs(10 * 60);

/// The longest idle time accepted: a day (longer is the same as never).
pub const MAX_HIBERNATE_AFTER: Duration = Duration::from_secs(24 * 60 * 60);

/// One site app's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteSettings {
    /// Seconds hidden after which the app hibernates; absent: it never does (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hibernate_after: Option<u64>,
}

impl SiteSettings {
    /// How long the app stays hidden before it hibernates; `None`: it does not hibernate.
    pub fn hibernation(&self) -> Option<Duration> {
        self.hibernate_after.map(Duration::from_secs)
    }
}

/// Why the settings could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The file exists but could not be read.
    #[error("failed to read the site app settings {}", path.display())]
    Read {
        /// The settings file.
        path: PathBuf,
        /// Why it could not be read.
        #[source]
        source: io::Error,
    },
    /// The file is not the JSON it should be (edited by hand?).
    #[error("failed to read the site app settings {}: {source} (delete the file to start from the defaults)", path.display())]
    Parse {
        /// The settings file.
        path: PathBuf,
        /// What the parser found wrong.
        #[source]
        source: serde_json::Error,
    },
    /// The file could not be written.
    #[error("failed to write the site app settings {}", path.display())]
    Write {
        /// The settings file.
        path: PathBuf,
        /// Why it could not be written.
        #[source]
        source: io::Error,
    },
    /// An idle time of zero or over a day.
    #[error("failed to set the idle time to {0:?}: it must be between 1 second and 24 hours")]
    Interval(Duration),
}

/// The settings file of `workspace` (canonical, as the shell and the CLI hold it).
pub fn path(root: &Root, workspace: &Path) -> PathBuf {
    root.workspace_dir(workspace).join("site-apps.json")
}

/// Every site app's settings in `workspace`, by app name (only those that differ from the defaults).
pub fn load(
    root: &Root,
    workspace: &Path,
) -> Result<BTreeMap<String, SiteSettings>, SettingsError> {
    let path = path(root, workspace);
    match std::fs::read(&path) {
        Ok(bytes) => {
            serde_json::from_slice(&bytes).map_err(|source| SettingsError::Parse { path, source })
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(source) => Err(SettingsError::Read { path, source }),
    }
}

/// The settings of `app` in `workspace` (the defaults when it has none).
pub fn of(root: &Root, workspace: &Path, app: &str) -> Result<SiteSettings, SettingsError> {
    Ok(load(root, workspace)?.remove(app).unwrap_or_default())
}

/// Switches `app`'s hibernation on (after `after` hidden) or off (`None`), keeping the other
/// apps' settings; returns the app's settings as written.
pub fn set_hibernation(
    root: &Root,
    workspace: &Path,
    app: &str,
    after: Option<Duration>,
) -> Result<SiteSettings, SettingsError> {
    if let Some(after) = after {
        if after.as_secs() == 0 || after > MAX_HIBERNATE_AFTER {
            return Err(SettingsError::Interval(after));
        }
    }
    let mut all = load(root, workspace)?;
    let settings = all.entry(app.to_string()).or_default();
    settings.hibernate_after = after.map(|after| after.as_secs());
    let written = settings.clone();
    if written == SiteSettings::default() {
        all.remove(app);
    }
    let path = path(root, workspace);
    let text = serde_json::to_string_pretty(&all).expect("the settings serialize");
    fs_atomic::write(&path, format!("{text}\n").as_bytes(), false)
        .map_err(|source| SettingsError::Write { path, source })?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path());
        (dir, root)
    }

    #[test]
    fn hibernation_is_off_until_switched_on_and_per_app() {
        let (_dir, root) = root();
        let ws = Path::new("/home/ana/work");
        assert_eq!(of(&root, ws, "chat").unwrap().hibernation(), None, "off by default");
        let on = set_hibernation(&root, ws, "chat", Some(DEFAULT_HIBERNATE_AFTER)).unwrap();
        assert_eq!(on.hibernation(), Some(Duration::from_secs(600)));
        assert_eq!(of(&root, ws, "chat").unwrap().hibernation(), Some(Duration::from_secs(600)));
        assert_eq!(of(&root, ws, "mail").unwrap().hibernation(), None, "another app keeps its own");
        assert_eq!(
            of(&root, Path::new("/home/ana/other"), "chat").unwrap().hibernation(),
            None,
            "another workspace's app of the same name keeps its own"
        );
        set_hibernation(&root, ws, "mail", Some(Duration::from_secs(30))).unwrap();
        set_hibernation(&root, ws, "chat", None).unwrap();
        assert_eq!(of(&root, ws, "chat").unwrap().hibernation(), None, "switched off");
        assert_eq!(of(&root, ws, "mail").unwrap().hibernation(), Some(Duration::from_secs(30)));
        let text = std::fs::read_to_string(path(&root, ws)).unwrap();
        assert_eq!(
            text, "{\n  \"mail\": {\n    \"hibernateAfter\": 30\n  }\n}\n",
            "an app at its defaults leaves the file"
        );
    }

    #[test]
    fn an_idle_time_of_zero_or_over_a_day_is_refused() {
        let (_dir, root) = root();
        let ws = Path::new("/w");
        for after in [
            Duration::ZERO,
            Duration::from_millis(500),
            MAX_HIBERNATE_AFTER + Duration::from_secs(1),
        ] {
            let error = set_hibernation(&root, ws, "chat", Some(after)).unwrap_err();
            assert!(matches!(error, SettingsError::Interval(_)), "{after:?}: {error}");
        }
        assert!(!path(&root, ws).exists(), "nothing written");
        assert!(set_hibernation(&root, ws, "chat", Some(MAX_HIBERNATE_AFTER)).is_ok());
    }

    #[test]
    fn a_broken_file_is_an_error_that_names_it_and_the_fix() {
        let (_dir, root) = root();
        let ws = Path::new("/w");
        let file = path(&root, ws);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "{ not json").unwrap();
        let error = of(&root, ws, "chat").unwrap_err();
        let message = error.to_string();
        assert!(message.contains(&file.display().to_string()), "{message}");
        assert!(message.contains("delete the file"), "{message}");
        assert!(set_hibernation(&root, ws, "chat", None).is_err(), "not overwritten");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "{ not json");
    }
}
