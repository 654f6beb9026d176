//! The data key: 32 random bytes, kept in the OS keychain or in a 0600 key file, and which of the
//! two is in force for a root.

pub(crate) use crate::data_key::DataKey;
use crate::error::SecretError;
use crate::keychain::{self, KEYCHAIN_SERVICE};
use cowork_core::paths::Root;
use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// The environment variable naming a key file; when set, it wins over everything else.
pub const KEY_FILE_ENV: &str = "COWORK_SECRETS_KEY_FILE";

/// The key file `cowork secrets init --key-file` creates in the root when the variable is unset.
pub const KEY_FILE_NAME: &str = "secrets.key";

/// Where the data key of a root lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// The OS keychain (the Secret Service on Linux, the login keychain on macOS, the Credential
    /// Manager on Windows).
    Keychain,
    /// A key file, hex, mode 0600.
    KeyFile,
}

impl KeyKind {
    /// `keychain` or `key-file`, as `cowork status` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyKind::Keychain => "keychain",
            KeyKind::KeyFile => "key-file",
        }
    }
}

impl fmt::Display for KeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which key mode is in force for a root and whether it works, for `cowork doctor` and `cowork status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyMode {
    /// Where the key lives.
    pub kind: KeyKind,
    /// Which keychain entry or which file, and why that one.
    pub detail: String,
    /// Whether the key could be read and opens the store (or, with no store yet, could be created).
    pub ok: bool,
    /// What is wrong, with what to do, when `ok` is false.
    pub problem: Option<String>,
}

/// The concrete place the key of one root is read from.
#[derive(Debug, Clone)]
pub(crate) enum KeySource {
    /// The keychain entry (service [`KEYCHAIN_SERVICE`], this user).
    Keychain { user: String },
    /// A key file; `from_env` when `COWORK_SECRETS_KEY_FILE` named it.
    File { path: PathBuf, from_env: bool },
}

impl KeySource {
    /// The source in force for `root`: the file `COWORK_SECRETS_KEY_FILE` names, else
    /// `<root>/secrets.key` when it exists, else the keychain. Never a fallback: the presence of
    /// a key file (made by `cowork secrets init --key-file`) is the explicit choice.
    pub(crate) fn for_root(root: &Root) -> KeySource {
        Self::choose(root.dir(), std::env::var_os(KEY_FILE_ENV))
    }

    fn choose(root: &Path, env: Option<OsString>) -> KeySource {
        if let Some(path) = env.filter(|v| !v.is_empty()) {
            return KeySource::File { path: PathBuf::from(path), from_env: true };
        }
        let default = root.join(KEY_FILE_NAME);
        if default.exists() {
            return KeySource::File { path: default, from_env: false };
        }
        KeySource::Keychain { user: keychain_user(root) }
    }

    /// Whether `other` reads the key from the same place (a key file made or removed since, or
    /// `COWORK_SECRETS_KEY_FILE` changed, moves it).
    pub(crate) fn same_place(&self, other: &KeySource) -> bool {
        match (self, other) {
            (KeySource::Keychain { user: a }, KeySource::Keychain { user: b }) => a == b,
            (KeySource::File { path: a, .. }, KeySource::File { path: b, .. }) => a == b,
            _ => false,
        }
    }

    pub(crate) fn kind(&self) -> KeyKind {
        match self {
            KeySource::Keychain { .. } => KeyKind::Keychain,
            KeySource::File { .. } => KeyKind::KeyFile,
        }
    }

    /// Where the key comes from, as a message names it.
    pub(crate) fn describe(&self) -> String {
        match self {
            KeySource::Keychain { user } => {
                format!("the OS keychain (service {KEYCHAIN_SERVICE}, user {user})")
            }
            KeySource::File { path, from_env: true } => {
                format!("the key file {} (from {KEY_FILE_ENV})", path.display())
            }
            KeySource::File { path, from_env: false } => format!("the key file {}", path.display()),
        }
    }

    /// The key, or `None` when the keychain has none yet. A key file must exist.
    pub(crate) fn load(&self, db: &Path) -> Result<Option<DataKey>, SecretError> {
        match self {
            KeySource::Keychain { user } => keychain::load(user, db),
            KeySource::File { path, from_env } => read_key_file(path, *from_env).map(Some),
        }
    }

    /// The key, created in the keychain when it has none (a key file is its own key).
    pub(crate) fn load_or_create(&self, db: &Path) -> Result<DataKey, SecretError> {
        if let Some(key) = self.load(db)? {
            return Ok(key);
        }
        let key = DataKey::generate();
        match self {
            KeySource::Keychain { user } => keychain::save(user, &key)?,
            KeySource::File { .. } => {} // `load` never answers `None` for a file.
        }
        Ok(key)
    }
}

/// The keychain user of a root: its canonical path, so every spelling of one folder (a trailing
/// slash, `..`, a symlink) finds the same entry, and an entry filed under an already canonical
/// path (every store made before) keeps its name. A root that does not exist yet has no store to
/// open: its absolute path, without `.` or a trailing slash, stands in. Two roots never share a key.
fn keychain_user(root: &Path) -> String {
    match root.canonicalize() {
        Ok(canonical) => canonical.display().to_string(),
        Err(_) => {
            let absolute = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
            absolute.components().collect::<PathBuf>().display().to_string()
        }
    }
}

/// Reads a key file, refusing one that other users can open.
fn read_key_file(path: &Path, from_env: bool) -> Result<DataKey, SecretError> {
    let io = |source| SecretError::KeyFileIo { action: "read", path: path.to_path_buf(), source };
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && from_env => {
            return Err(SecretError::KeyFileMissing { path: path.to_path_buf() })
        }
        Err(e) => return Err(io(e)),
    };
    // Checked on the open handle, so the file read is the file checked.
    check_private(path, &file.metadata().map_err(io)?)?;
    let mut text = Zeroizing::new(String::new());
    file.read_to_string(&mut text).map_err(io)?;
    DataKey::from_hex(&text).ok_or_else(|| SecretError::KeyFileInvalid { path: path.to_path_buf() })
}

#[cfg(unix)]
fn check_private(path: &Path, metadata: &std::fs::Metadata) -> Result<(), SecretError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(SecretError::KeyFileInsecure { path: path.to_path_buf(), mode });
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_path: &Path, _metadata: &std::fs::Metadata) -> Result<(), SecretError> {
    Ok(())
}

/// Writes a new key file (0600), failing if one is already there: a key is never overwritten.
pub(crate) fn create_key_file(path: &Path, key: &DataKey) -> Result<(), SecretError> {
    use std::io::Write;
    let io = |source| SecretError::KeyFileIo { action: "create", path: path.to_path_buf(), source };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = match options.open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(SecretError::KeyFileExists { path: path.to_path_buf() })
        }
        Err(e) => return Err(io(e)),
    };
    let mut line = key.to_hex();
    line.push('\n');
    let written = file.write_all(line.as_bytes()).and_then(|()| file.sync_all());
    if let Err(e) = written {
        let _ = std::fs::remove_file(path); // a half-written key must not be taken for a key
        return Err(io(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_wins_then_the_root_file_then_the_keychain() {
        let dir = tempfile::tempdir().unwrap();
        let from_env = KeySource::choose(dir.path(), Some("/elsewhere/k".into()));
        assert!(
            matches!(&from_env, KeySource::File { path, from_env: true } if path == Path::new("/elsewhere/k"))
        );
        assert!(matches!(
            KeySource::choose(dir.path(), Some("".into())),
            KeySource::Keychain { .. }
        ));
        let keychain = KeySource::choose(dir.path(), None);
        assert_eq!(keychain.kind(), KeyKind::Keychain);
        assert!(
            keychain.describe().contains(&dir.path().display().to_string()),
            "{}",
            keychain.describe()
        );
        std::fs::write(dir.path().join(KEY_FILE_NAME), "x").unwrap();
        assert_eq!(KeySource::choose(dir.path(), None).kind(), KeyKind::KeyFile);
    }

    #[test]
    fn two_roots_have_two_keychain_users() {
        assert_ne!(keychain_user(Path::new("/a/root")), keychain_user(Path::new("/b/root")));
        assert!(keychain_user(Path::new("rel")).starts_with('/'));
    }

    #[test]
    #[cfg(unix)]
    fn every_spelling_of_a_root_is_one_keychain_user() {
        let dir = tempfile::tempdir().unwrap();
        let canonical = dir.path().canonicalize().unwrap();
        let root = canonical.join("root");
        std::fs::create_dir(&root).unwrap();
        std::os::unix::fs::symlink(&root, canonical.join("link")).unwrap();
        let expected = root.display().to_string();
        assert_eq!(
            keychain_user(&root),
            expected,
            "a canonical path is its own user (stores made before)"
        );
        for spelling in [
            format!("{expected}/"),
            format!("{expected}/../root"),
            format!("{expected}/."),
            canonical.join("link").display().to_string(),
        ] {
            assert_eq!(keychain_user(Path::new(&spelling)), expected, "{spelling}");
        }
        assert_eq!(
            keychain_user(&canonical.join("not-yet/")),
            canonical.join("not-yet").display().to_string()
        );
    }
}
