//! The OS keychain, through `keyring-core` and one store per platform:
//!
//! - Linux: the freedesktop Secret Service over D-Bus (gnome-keyring, KeePassXC), through
//!   `dbus-secret-service-keyring-store`.
//! - macOS: the login keychain, through the legacy-keychain store of `apple-native-keyring-store`
//!   (the data-protection keychain needs an app signed with a provisioning profile, which Cowork
//!   is not). The entry is a generic password, service `cowork-studio`, account the root's path.
//! - Windows: the Credential Manager, through `windows-native-keyring-store`. The entry is the
//!   generic credential `<root's path>.cowork-studio`.
//!
//! Other platforms (FreeBSD…) answer [`SecretError::KeychainUnsupported`], so key-file mode still
//! works there.
//!
//! The key is stored as 64 hex digits: some Secret Service providers (KWallet) keep only text.

use crate::data_key::DataKey;
use crate::error::SecretError;
use std::path::Path;

/// The keychain service every root's key is filed under; the user is the root's path.
pub const KEYCHAIN_SERVICE: &str = "cowork-studio";

#[cfg(any(target_os = "linux", target_os = "macos", target_os = "windows"))]
pub(crate) use native::{can_take_a_key, load, save};

#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
pub(crate) use unsupported::{can_take_a_key, load, save};

#[cfg(any(target_os = "linux", target_os = "macos", target_os = "windows"))]
mod native {
    use super::*;
    use keyring_core::{CredentialStore, Entry, Error};
    use std::sync::Arc;
    use zeroize::Zeroizing;

    /// The key in the keychain for `user`, or `None` when there is no entry.
    pub(crate) fn load(user: &str, db: &Path) -> Result<Option<DataKey>, SecretError> {
        match entry(user)?.get_password() {
            Ok(text) => {
                let text = Zeroizing::new(text);
                DataKey::from_hex(&text).map(Some).ok_or_else(|| SecretError::KeychainKeyInvalid {
                    user: user.to_string(),
                    db: db.to_path_buf(),
                })
            }
            Err(Error::NoEntry) => Ok(None),
            Err(e) => Err(classify(e)),
        }
    }

    /// Files `key` in the keychain for `user`.
    pub(crate) fn save(user: &str, key: &DataKey) -> Result<(), SecretError> {
        entry(user)?.set_password(&key.to_hex()).map_err(classify)
    }

    /// Whether the keychain has somewhere to keep a new key now, asked without creating anything
    /// (for `probe`, before the first set): on Linux, a default collection that is unlocked — a
    /// keyring started on demand has none, or a locked one, and the first set would fail there.
    /// `Ok(false)`: this platform cannot tell without trying (macOS and Windows answer at the set).
    pub(crate) fn can_take_a_key() -> Result<bool, SecretError> {
        #[cfg(target_os = "linux")]
        {
            use dbus_secret_service::{EncryptionType, SecretService};
            let service = SecretService::connect(EncryptionType::Plain)
                .map_err(|e| secret_service_error(&e))?;
            let collection = match service.get_default_collection() {
                Ok(collection) => collection,
                Err(dbus_secret_service::Error::NoResult) => {
                    return Err(SecretError::KeychainLocked {
                        detail: "the Secret Service has no default keyring".into(),
                    })
                }
                Err(e) => return Err(secret_service_error(&e)),
            };
            if collection.is_locked().map_err(|e| secret_service_error(&e))? {
                return Err(SecretError::KeychainLocked {
                    detail: "the default keyring is locked".into(),
                });
            }
            Ok(true)
        }
        #[cfg(not(target_os = "linux"))]
        Ok(false)
    }

    /// A fresh store each time: the daemon keeps a secret store for hours, and on Linux a kept
    /// D-Bus connection would talk to nobody once the keyring daemon restarts. (The macOS and
    /// Windows stores hold no connection, so building one costs nothing.)
    fn entry(user: &str) -> Result<Entry, SecretError> {
        Entry::new_in_store(&store().map_err(classify)?, KEYCHAIN_SERVICE, user).map_err(classify)
    }

    fn store() -> keyring_core::Result<Arc<CredentialStore>> {
        #[cfg(target_os = "linux")]
        let store: Arc<CredentialStore> = dbus_secret_service_keyring_store::Store::new()?;
        #[cfg(target_os = "macos")]
        let store: Arc<CredentialStore> = apple_native_keyring_store::keychain::Store::new()?;
        #[cfg(target_os = "windows")]
        let store: Arc<CredentialStore> = windows_native_keyring_store::Store::new()?;
        Ok(store)
    }

    /// Sorts the store's errors into the cases a person fixes differently.
    fn classify(error: Error) -> SecretError {
        let detail = error.to_string();
        match &error {
            // Linux: Locked, Prompt (dismissed, or no prompter: headless) and NoResult (no default
            // collection to create the item in). macOS: a keychain missing, damaged or read-only,
            // or an entry another app owns. Windows: no logon session with a credential vault.
            Error::NoStorageAccess(_) => SecretError::KeychainLocked { detail },
            #[cfg(target_os = "linux")]
            Error::PlatformFailure(inner) => {
                match inner.downcast_ref::<dbus_secret_service::Error>() {
                    Some(inner) => secret_service_error(inner),
                    None => SecretError::KeychainFailed { detail },
                }
            }
            // The platform's own failures (its error code is in `detail`), and the entry refused
            // by the store (a root path too long for the platform).
            _ => SecretError::KeychainFailed { detail },
        }
    }

    /// The Secret Service's errors, sorted the same way.
    #[cfg(target_os = "linux")]
    fn secret_service_error(error: &dbus_secret_service::Error) -> SecretError {
        let detail = error.to_string();
        match error {
            dbus_secret_service::Error::Dbus(e) => match e.name() {
                Some(
                    "org.freedesktop.DBus.Error.ServiceUnknown"
                    | "org.freedesktop.DBus.Error.NameHasNoOwner"
                    | "org.freedesktop.DBus.Error.Spawn.ExecFailed"
                    | "org.freedesktop.DBus.Error.Spawn.ChildExited",
                ) => SecretError::NoSecretService {
                    detail: e.message().unwrap_or(&detail).to_string(),
                },
                Some(
                    "org.freedesktop.DBus.Error.NotSupported"
                    | "org.freedesktop.DBus.Error.FileNotFound"
                    | "org.freedesktop.DBus.Error.NoServer"
                    | "org.freedesktop.DBus.Error.NoSocket"
                    | "org.freedesktop.DBus.Error.BadAddress"
                    | "org.freedesktop.DBus.Error.Disconnected"
                    | "org.freedesktop.DBus.Error.AuthFailed",
                ) => {
                    SecretError::NoSessionBus { detail: e.message().unwrap_or(&detail).to_string() }
                }
                _ => SecretError::KeychainFailed { detail },
            },
            dbus_secret_service::Error::Unavailable => SecretError::NoSecretService { detail },
            dbus_secret_service::Error::Locked | dbus_secret_service::Error::Prompt => {
                SecretError::KeychainLocked { detail }
            }
            _ => SecretError::KeychainFailed { detail },
        }
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
mod unsupported {
    use super::*;

    pub(crate) fn load(_user: &str, _db: &Path) -> Result<Option<DataKey>, SecretError> {
        Err(SecretError::KeychainUnsupported { os: std::env::consts::OS })
    }

    pub(crate) fn save(_user: &str, _key: &DataKey) -> Result<(), SecretError> {
        Err(SecretError::KeychainUnsupported { os: std::env::consts::OS })
    }

    pub(crate) fn can_take_a_key() -> Result<bool, SecretError> {
        Err(SecretError::KeychainUnsupported { os: std::env::consts::OS })
    }
}
