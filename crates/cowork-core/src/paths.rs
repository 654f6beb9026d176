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

/// `path` with links resolved as far as it exists: a root not created yet still compares where it
/// will be (`/home` a link to `/usr/home`, the root `/home/ana/.cowork-studio` not there yet).
fn resolved(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut existing = path;
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |p, name| p.join(name));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// How a workspace overlaps the Cowork root: see [`Root::overlap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlap {
    /// The workspace is the root or one of its ancestors (a workspace at the home folder).
    HoldsRoot,
    /// The workspace is a folder inside the root.
    InsideRoot,
}

impl Overlap {
    /// Why a workspace that overlaps `root` runs no routine, and what to do: one sentence for a
    /// refused run and for `cowork doctor`.
    pub fn explain(self, workspace: &Path, root: &Path) -> String {
        let (ws, root) = (workspace.display(), root.display());
        match self {
            Overlap::HoldsRoot => format!("the workspace {ws} holds the Cowork root {root} (the daemon token, the agents' logins, the secret store's key), and a routine reads and writes all of its workspace, so none runs there: open a folder inside it as the workspace, or move the root out of it (COWORK_HOME)"),
            Overlap::InsideRoot => format!("the workspace {ws} is inside the Cowork root {root}, and a routine reads and writes all of its workspace, so none runs there: keep workspaces outside the root"),
        }
    }
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

    /// The desktop app's last capture of a workspace's window, taken as it left the workspace
    /// (`cowork publish --screenshot` offers it as the store card's first screenshot).
    pub fn last_capture_file(&self, workspace: &Path) -> PathBuf {
        self.workspace_dir(workspace).join("last-capture.png")
    }

    /// The audit log's day files of a workspace.
    pub fn audit_dir(&self, workspace: &Path) -> PathBuf {
        self.workspace_dir(workspace).join("audit")
    }

    /// How `workspace` lies against this root, when they overlap (both compared canonical). A
    /// routine is given its whole workspace to read and write, so a workspace that holds the root
    /// (one at `$HOME`, with the root `~/.cowork-studio`) would hand it the daemon token and
    /// the agents' logins, and one inside the root would let it write Cowork's own files.
    pub fn overlap(&self, workspace: &Path) -> Option<Overlap> {
        let (root, workspace) = (resolved(&self.dir), resolved(workspace));
        if root.starts_with(&workspace) {
            Some(Overlap::HoldsRoot)
        } else if workspace.starts_with(&root) {
            Some(Overlap::InsideRoot)
        } else {
            None
        }
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
    fn a_workspace_that_holds_the_root_or_lies_inside_it_overlaps_it() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap();
        let root = Root::new(home.join(".cowork-studio"));
        std::fs::create_dir_all(root.dir().join("workspaces")).unwrap();
        std::fs::create_dir_all(home.join("work")).unwrap();
        assert_eq!(root.overlap(&home), Some(Overlap::HoldsRoot));
        assert_eq!(root.overlap(Path::new("/")), Some(Overlap::HoldsRoot));
        assert_eq!(root.overlap(root.dir()), Some(Overlap::HoldsRoot), "the root itself");
        assert_eq!(root.overlap(&root.workspaces_dir()), Some(Overlap::InsideRoot));
        assert_eq!(root.overlap(&home.join("work")), None);
        assert_eq!(
            root.overlap(&home.join(".cowork-studio-2")),
            None,
            "a name that only starts alike"
        );
        // A root named through a link is compared where it really is, made or not yet.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&home, home.join("link")).unwrap();
            let linked = Root::new(home.join("link/.cowork-studio"));
            assert_eq!(linked.overlap(&home), Some(Overlap::HoldsRoot));
            let unmade = Root::new(home.join("link/not-yet/.cowork-studio"));
            assert_eq!(unmade.overlap(&home), Some(Overlap::HoldsRoot));
            assert_eq!(unmade.overlap(&home.join("work")), None);
        }
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
