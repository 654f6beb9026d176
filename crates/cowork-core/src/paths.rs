//! Where Cowork keeps its own files: the Cowork root and each workspace's folder under it.
//!
//! The root is `$COWORK_HOME` when set, else `~/.cowork-studio` (`%LOCALAPPDATA%\Cowork` on
//! Windows). Each workspace gets `<root>/workspaces/<path, non-alphanumerics → "-">-<8-hex hash>/`;
//! the hash keeps `/a/b-c` and `/a-b/c` apart, which the readable part alone would not. A path
//! longer than [`READABLE_MAX`] keeps only its end in the name, so the folder name stays within the
//! 255 bytes a file system allows per name.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The environment variable that moves the Cowork root (tests and servers use it).
pub const HOME_ENV: &str = "COWORK_HOME";

/// The Cowork root: `$COWORK_HOME`, else the platform default.
pub fn default_root() -> PathBuf {
    if let Some(home) = std::env::var_os(HOME_ENV).filter(|v| !v.is_empty()) {
        return PathBuf::from(home);
    }
    platform_root()
}

/// The root a fresh install uses, ignoring `$COWORK_HOME` (the set-up command installs the Bun
/// runtime here, so a test root still finds it).
pub fn platform_root() -> PathBuf {
    if cfg!(windows) {
        if let Some(local) = std::env::var_os("LOCALAPPDATA") {
            return PathBuf::from(local).join("Cowork");
        }
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    home.join(".cowork-studio")
}

/// The most of a workspace path a folder name under `<root>/workspaces/` keeps: its last 200
/// characters. With `-` and the 8-digit hash that is 209 bytes, under the 255 that Linux, macOS and
/// Windows allow per name; the hash is of the whole path, so two paths that end alike still differ.
pub const READABLE_MAX: usize = 200;

/// The folder name of a workspace under `<root>/workspaces/`: `/home/ana/work` →
/// `-home-ana-work-<first 8 hex digits of sha256 of the path>`.
pub fn workspace_key(workspace: &Path) -> String {
    let text = workspace.to_string_lossy();
    // One ASCII character per source character, so characters are bytes here.
    let readable: Vec<char> =
        text.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let tail: String = readable[readable.len().saturating_sub(READABLE_MAX)..].iter().collect();
    let hash = Sha256::digest(text.as_bytes());
    format!("{tail}-{}", &hex::encode(hash)[..8])
}

/// The files of one Cowork root.
#[derive(Debug, Clone)]
pub struct Root {
    dir: PathBuf,
}

impl Root {
    /// A root at `dir` (nothing is created until something writes).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Root { dir: dir.into() }
    }

    /// The root of this process: see [`default_root`].
    pub fn from_env() -> Self {
        Root::new(default_root())
    }

    /// The root folder itself.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The owner token (0600): whoever holds it is the owner to the daemon.
    pub fn token_file(&self) -> PathBuf {
        self.dir.join("daemon.token")
    }

    /// The running daemon's `{pid, port, root, version}` record.
    pub fn pid_file(&self) -> PathBuf {
        self.dir.join("daemon.json")
    }

    /// Settings the daemon remembers across starts (a port moved away from a foreign program).
    pub fn config_file(&self) -> PathBuf {
        self.dir.join("config.json")
    }

    /// The agents' door on a listener of its own (`cowork agent door`): reopened at each start
    /// until `agent door off`.
    pub fn door_file(&self) -> PathBuf {
        self.dir.join("door.json")
    }

    /// This machine's stable random id, recorded as `deviceId` in audit lines.
    pub fn device_id_file(&self) -> PathBuf {
        self.dir.join("device-id")
    }

    /// Caches that can be deleted at any time (transpiled routines and widgets).
    pub fn cache_dir(&self) -> PathBuf {
        self.dir.join("cache")
    }

    /// Daemon logs.
    pub fn logs_dir(&self) -> PathBuf {
        self.dir.join("data").join("logs")
    }

    /// Where a runtime installed by the set-up command lives.
    pub fn runtime_dir(&self) -> PathBuf {
        self.dir.join("runtime")
    }

    /// `<root>/workspaces/`: one folder per workspace this root has run routines in.
    pub fn workspaces_dir(&self) -> PathBuf {
        self.dir.join("workspaces")
    }

    /// `<root>/workspaces/<key>/` for a workspace (an absolute, canonical path).
    pub fn workspace_dir(&self, workspace: &Path) -> PathBuf {
        self.workspaces_dir().join(workspace_key(workspace))
    }

    /// The audit log's day files of a workspace.
    pub fn audit_dir(&self, workspace: &Path) -> PathBuf {
        self.workspace_dir(workspace).join("audit")
    }

    /// Creates the root and its `workspaces/` when missing, readable by their owner only (0700):
    /// they hold the owner token, each workspace's audit log and consent, and transpiled routines.
    /// Folders that exist are left as they are (the person may have chosen their modes).
    pub fn create(&self) -> std::io::Result<()> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(self.workspaces_dir())
    }

    /// Reads the device id, creating it on first use.
    pub fn device_id(&self) -> String {
        let path = self.device_id_file();
        if let Ok(id) = std::fs::read_to_string(&path) {
            let id = id.trim();
            if !id.is_empty() {
                return id.to_string();
            }
        }
        let id = hex::encode(rand::random::<[u8; 16]>());
        // A device id that cannot be saved is still unique for this process; the next run retries.
        let _ = crate::fs_atomic::write(&path, id.as_bytes(), true);
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_key_matches_the_reference_shape() {
        let key = workspace_key(Path::new("/home/ana/work"));
        assert!(key.starts_with("-home-ana-work-"), "{key}");
        assert_eq!(key.len(), "-home-ana-work-".len() + 8);
        assert!(key[key.len() - 8..].chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn similar_paths_get_distinct_keys() {
        let a = workspace_key(Path::new("/a/b-c"));
        let b = workspace_key(Path::new("/a-b/c"));
        assert_eq!(a[..6], b[..6]);
        assert_ne!(a, b);
    }

    #[cfg(unix)]
    #[test]
    fn a_created_root_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path().join("root"));
        root.create().unwrap();
        for folder in [root.dir().to_path_buf(), root.workspaces_dir()] {
            let mode = std::fs::metadata(&folder).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", folder.display());
        }
    }

    #[test]
    fn a_long_path_keeps_its_end_within_the_name_limit() {
        let deep = format!("/home/ana/{}work", "nested-folder/".repeat(25));
        let key = workspace_key(Path::new(&deep));
        assert_eq!(key.len(), READABLE_MAX + 1 + 8);
        assert!(key.ends_with(&format!("-nested-folder-work-{}", &key[key.len() - 8..])), "{key}");
        let other = workspace_key(Path::new(&deep.replacen("ana", "bob", 1)));
        assert_eq!(key[..READABLE_MAX], other[..READABLE_MAX], "the same end");
        assert_ne!(key, other, "told apart by the hash");

        let dir = tempfile::tempdir().unwrap();
        let audit = Root::new(dir.path()).audit_dir(Path::new(&deep));
        std::fs::create_dir_all(&audit).expect("every component fits a file system's name limit");
    }

    #[test]
    fn device_id_is_stable() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path());
        let first = root.device_id();
        assert_eq!(first.len(), 32);
        assert_eq!(root.device_id(), first);
    }
}
