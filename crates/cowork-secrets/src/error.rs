//! Every way the secret store can fail, each a sentence that says what happened and what to do.

use std::path::PathBuf;

/// What the fixes for a missing keychain say: the two ways to keep the key in a file instead.
const USE_A_KEY_FILE: &str =
    "run `cowork secrets init --key-file` to keep the key in a 0600 file instead, or set COWORK_SECRETS_KEY_FILE to an existing key file";

/// What the fix for [`SecretError::KeychainLocked`] says, in the words of each platform's keychain.
#[cfg(target_os = "macos")]
const UNLOCK_THE_KEYCHAIN: &str =
    "make sure your login keychain exists, is writable and is the default one (Keychain Access, `security default-keychain`)";
#[cfg(target_os = "windows")]
const UNLOCK_THE_KEYCHAIN: &str =
    "run Cowork in a Windows session you signed in to with your password (a service, or an SSH login with a key, has no Credential Manager)";
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
const UNLOCK_THE_KEYCHAIN: &str =
    "unlock the keyring (log in to the desktop session, or `gnome-keyring-daemon --unlock`)";

/// A failure of the secret store. [`SecretError::hint`] gives the fix on its own, for a `hint:` line.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// There is no D-Bus session bus, so no OS keychain can be reached (a headless server, SSH).
    #[error("no OS keychain: there is no D-Bus session bus ({detail}); {USE_A_KEY_FILE}")]
    NoSessionBus {
        /// What D-Bus said.
        detail: String,
    },

    /// The session bus answers, but nothing on it provides the Secret Service.
    #[error(
        "no OS keychain: the D-Bus session bus has no Secret Service ({detail}); start one (gnome-keyring, KeePassXC), or {USE_A_KEY_FILE}"
    )]
    NoSecretService {
        /// What D-Bus said.
        detail: String,
    },

    /// The keychain is locked and could not be unlocked (no one to answer its prompt), or has no
    /// default keyring to keep the key in; on macOS also a read-only or damaged keychain, on
    /// Windows a session without a Credential Manager.
    #[error(
        "the OS keychain is locked or has no default keyring ({detail}); {UNLOCK_THE_KEYCHAIN} and try again, or {USE_A_KEY_FILE}"
    )]
    KeychainLocked {
        /// What the keychain said.
        detail: String,
    },

    /// The keychain answered with an error of another kind.
    #[error("the OS keychain failed ({detail}); try again, or {USE_A_KEY_FILE}")]
    KeychainFailed {
        /// What the keychain said.
        detail: String,
    },

    /// This build has no OS keychain for the platform it runs on.
    #[error("this build of Cowork cannot use the OS keychain on {os}; {USE_A_KEY_FILE}")]
    KeychainUnsupported {
        /// The operating system (`std::env::consts::OS`).
        os: &'static str,
    },

    /// The keychain entry for this root holds something that is not a Cowork key.
    #[error(
        "the OS keychain entry (service cowork-studio, user {user}) does not hold a Cowork key; restore the key that created {db}, or delete that entry if no secrets depend on it; nothing was changed"
    )]
    KeychainKeyInvalid {
        /// The keychain user of this root.
        user: String,
        /// The secret database.
        db: PathBuf,
    },

    /// The store holds secrets, but the keychain has no key for it (the entry was deleted, or the
    /// store was copied from another machine).
    #[error(
        "{key_from} has no key, but {db} holds secrets locked with one: restore the key that created it; nothing was changed"
    )]
    KeyMissing {
        /// Where the key was looked for.
        key_from: String,
        /// The secret database.
        db: PathBuf,
    },

    /// The store was created with a key file, and the key file is gone (so Cowork would otherwise
    /// have used the keychain, whose key cannot open it).
    #[error(
        "{db} was created with a key file, and there is none at {path}: restore it there, or set COWORK_SECRETS_KEY_FILE to where it is; nothing was changed"
    )]
    StoreNeedsKeyFile {
        /// The secret database.
        db: PathBuf,
        /// Where the key file was expected.
        path: PathBuf,
    },

    /// The store was created with the OS keychain, but a key file is in force (a stray
    /// `COWORK_SECRETS_KEY_FILE`, or a `secrets.key` put in the root) whose key does not open it.
    #[error(
        "{db} was created with the OS keychain, but the key file {} is in force and does not open it: {}; nothing was changed",
        path.display(),
        if *from_env { "unset COWORK_SECRETS_KEY_FILE".to_string() } else { format!("move {} aside", path.display()) }
    )]
    StoreNeedsKeychain {
        /// The secret database.
        db: PathBuf,
        /// The key file in force.
        path: PathBuf,
        /// Whether `COWORK_SECRETS_KEY_FILE` named it.
        from_env: bool,
    },

    /// The key check is damaged or gone, but the key in force opens the store's secrets: the key
    /// is right, only the check needs writing again.
    #[error(
        "the key check in {db} is damaged or missing, but the key from {key_from} opens its secrets: run `cowork secrets repair` to write a new key check; nothing was changed"
    )]
    KeyCheckDamaged {
        /// Where the (right) key came from.
        key_from: String,
        /// The secret database.
        db: PathBuf,
    },

    /// The key does not open the store: it is not the key that created it.
    #[error("the key from {key_from} does not open {db}: restore the key that created it; nothing was changed")]
    KeyMismatch {
        /// Where the wrong key came from.
        key_from: String,
        /// The secret database.
        db: PathBuf,
    },

    /// `COWORK_SECRETS_KEY_FILE` names a file that does not exist.
    #[error(
        "the key file {path} (from COWORK_SECRETS_KEY_FILE) does not exist: point COWORK_SECRETS_KEY_FILE at your key file, or create one there with `cowork secrets init --key-file`"
    )]
    KeyFileMissing {
        /// The path from the environment.
        path: PathBuf,
    },

    /// The key file can be read or written by other users.
    #[error("the key file {path} is open to other users (mode {mode:03o}): run `chmod 600 {path}` and try again")]
    KeyFileInsecure {
        /// The key file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },

    /// The key file does not hold 64 hex digits.
    #[error(
        "the key file {path} does not hold a Cowork key (64 hex digits): restore the file that `cowork secrets init --key-file` wrote"
    )]
    KeyFileInvalid {
        /// The key file.
        path: PathBuf,
    },

    /// The key file could not be read or written.
    #[error(
        "failed to {action} the key file {path}: {source}; check the path and its permissions"
    )]
    KeyFileIo {
        /// `read` or `create`.
        action: &'static str,
        /// The key file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },

    /// `init_key_file` found a key file already there: a key is never overwritten.
    #[error(
        "a key file already exists at {path}, and Cowork never overwrites a key: keep using it, or move it away yourself if no secrets depend on it"
    )]
    KeyFileExists {
        /// The existing key file.
        path: PathBuf,
    },

    /// `init_key_file` was asked to re-key a store that holds secrets under its current key.
    #[error(
        "{db} holds {count} secret(s) locked with its current key, which a new key file could not open: keep the current key (where it is in the OS keychain, run where that keychain answers: your desktop session), or start over by moving {db} aside — its secrets and connections are then lost"
    )]
    StoreHasSecrets {
        /// The secret database.
        db: PathBuf,
        /// How many secrets it holds, across accounts.
        count: u64,
    },

    /// A secret name that does not match `^[A-Za-z_][A-Za-z0-9_.-]*$` or is longer than 200.
    #[error(
        "invalid secret name {name:?}: a name starts with a letter or `_`, goes on with letters, digits, `_`, `.` or `-`, and has at most 200 characters"
    )]
    InvalidName {
        /// The name as given.
        name: String,
    },

    /// A `cowork.` name, which only Cowork itself may set or delete.
    #[error("the secret name {name:?} is reserved: names starting with `cowork.` belong to Cowork itself; choose another name")]
    ReservedName {
        /// The name as given.
        name: String,
    },

    /// An account that is empty or contains a NUL character.
    #[error("invalid account {account:?}: an account is a non-empty name without NUL characters, such as \"local\"")]
    InvalidAccount {
        /// The account as given.
        account: String,
    },

    /// A record failed its integrity check: its bytes were changed, or it was moved from another
    /// name or account.
    #[error(
        "the secret {name:?} in {db} failed its integrity check (its record was altered, or moved from another name): set it again to replace it"
    )]
    Tampered {
        /// The secret's name.
        name: String,
        /// The secret database.
        db: PathBuf,
    },

    /// The database is not in a shape Cowork writes.
    #[error("{db} is damaged ({reason}): move it aside and set your secrets again")]
    Corrupt {
        /// The secret database.
        db: PathBuf,
        /// What is wrong with it.
        reason: &'static str,
    },

    /// SQLite failed.
    #[error("failed to use the secret database {db}: {source}; check the disk and the file's permissions")]
    Database {
        /// The secret database.
        db: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },

    /// The database file or its folder could not be created, or made owner-only.
    #[error(
        "failed to create or protect {path}: {source}; check the disk and the folder's permissions"
    )]
    Create {
        /// What could not be created.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
}

impl SecretError {
    /// The fix on its own, for a `hint:` line under the message; `None` when there is nothing
    /// more precise to say than the message does.
    pub fn hint(&self) -> Option<String> {
        let key_file = || {
            "run `cowork secrets init --key-file`, or set COWORK_SECRETS_KEY_FILE to an existing key file".to_string()
        };
        match self {
            SecretError::NoSessionBus { .. }
            | SecretError::NoSecretService { .. }
            | SecretError::KeychainFailed { .. }
            | SecretError::KeychainUnsupported { .. } => Some(key_file()),
            SecretError::KeychainLocked { .. } => {
                Some(format!("{UNLOCK_THE_KEYCHAIN}, or run `cowork secrets init --key-file`"))
            }
            SecretError::KeychainKeyInvalid { db, .. }
            | SecretError::KeyMissing { db, .. }
            | SecretError::KeyMismatch { db, .. } => {
                Some(format!("restore the key that created {}", db.display()))
            }
            SecretError::StoreNeedsKeychain { path, from_env: true, .. } => {
                Some(format!("unset COWORK_SECRETS_KEY_FILE (it names {})", path.display()))
            }
            SecretError::StoreNeedsKeychain { path, from_env: false, .. } => {
                Some(format!("move {} aside", path.display()))
            }
            SecretError::KeyCheckDamaged { .. } => Some("cowork secrets repair".into()),
            SecretError::StoreNeedsKeyFile { path, .. } => Some(format!(
                "restore the key file at {}, or set COWORK_SECRETS_KEY_FILE to it",
                path.display()
            )),
            SecretError::KeyFileMissing { .. } => Some("cowork secrets init --key-file".into()),
            SecretError::KeyFileInsecure { path, .. } => {
                Some(format!("chmod 600 {}", path.display()))
            }
            // Deleting the secrets one by one needs the very key that is missing: moving the store
            // aside is the way to start over.
            SecretError::StoreHasSecrets { db, .. } => Some(format!(
                "to start over: mv {} {}.old, then run `cowork secrets init --key-file` again",
                db.display(),
                db.display()
            )),
            SecretError::Tampered { name, .. } => {
                Some(format!("cowork secrets set {name} --stdin"))
            }
            SecretError::KeyFileInvalid { .. }
            | SecretError::KeyFileIo { .. }
            | SecretError::KeyFileExists { .. }
            | SecretError::InvalidName { .. }
            | SecretError::ReservedName { .. }
            | SecretError::InvalidAccount { .. }
            | SecretError::Corrupt { .. }
            | SecretError::Database { .. }
            | SecretError::Create { .. } => None,
        }
    }
}
