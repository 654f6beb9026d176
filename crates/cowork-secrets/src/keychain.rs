//! The OS keychain: on Linux the freedesktop Secret Service over D-Bus (gnome-keyring, KeePassXC),
//! through `keyring-core` and `dbus-secret-service-keyring-store`. Other platforms answer
//! [`SecretError::KeychainUnsupported`] until their stores are wired in, so key-file mode still works.
//!
//! The key is stored as 64 hex digits: some Secret Service providers (KWallet) keep only text.

use crate::error::SecretError;
use crate::key::DataKey;
use std::path::Path;

#[cfg(target_os = "linux")]
pub(crate) use linux::{load, save};

#[cfg(not(target_os = "linux"))]
pub(crate) use unsupported::{load, save};

#[cfg(target_os = "linux")]
mod linux {
    use super::*;
    use crate::key::KEYCHAIN_SERVICE;
    use keyring_core::{CredentialStore, Entry, Error};
    use std::sync::Arc;
    use zeroize::Zeroizing;

    /// The key in the keychain for `user`, or `None` when there is no entry.
    pub(crate) fn load(user: &str, db: &Path) -> Result<Option<DataKey>, SecretError> {
        match entry(user)?.get_password() {
            Ok(text) => {
                let text = Zeroizing::new(text);
                DataKey::from_hex(&text)
                    .map(Some)
                    .ok_or_else(|| SecretError::KeychainKeyInvalid { user: user.to_string(), db: db.to_path_buf() })
            }
            Err(Error::NoEntry) => Ok(None),
            Err(e) => Err(classify(e)),
        }
    }

    /// Files `key` in the keychain for `user`.
    pub(crate) fn save(user: &str, key: &DataKey) -> Result<(), SecretError> {
        entry(user)?.set_password(&key.to_hex()).map_err(classify)
    }

    /// A fresh connection each time: the daemon keeps a store for hours, and a keyring daemon
    /// restarted meanwhile would leave a kept connection talking to nobody.
    fn entry(user: &str) -> Result<Entry, SecretError> {
        let store: Arc<CredentialStore> = dbus_secret_service_keyring_store::Store::new().map_err(classify)?;
        Entry::new_in_store(&store, KEYCHAIN_SERVICE, user).map_err(classify)
    }

    /// Sorts the store's errors into the cases a person fixes differently.
    fn classify(error: Error) -> SecretError {
        let detail = error.to_string();
        match &error {
            // The store maps Locked, Prompt (dismissed, or no prompter: headless) and NoResult (no
            // default collection to create the item in) to NoStorageAccess.
            Error::NoStorageAccess(_) => SecretError::KeychainLocked { detail },
            Error::PlatformFailure(inner) => match inner.downcast_ref::<dbus_secret_service::Error>() {
                Some(dbus_secret_service::Error::Dbus(e)) => match e.name() {
                    Some(
                        "org.freedesktop.DBus.Error.ServiceUnknown"
                        | "org.freedesktop.DBus.Error.NameHasNoOwner"
                        | "org.freedesktop.DBus.Error.Spawn.ExecFailed"
                        | "org.freedesktop.DBus.Error.Spawn.ChildExited",
                    ) => SecretError::NoSecretService { detail: e.message().unwrap_or(&detail).to_string() },
                    Some(
                        "org.freedesktop.DBus.Error.NotSupported"
                        | "org.freedesktop.DBus.Error.FileNotFound"
                        | "org.freedesktop.DBus.Error.NoServer"
                        | "org.freedesktop.DBus.Error.NoSocket"
                        | "org.freedesktop.DBus.Error.BadAddress"
                        | "org.freedesktop.DBus.Error.Disconnected"
                        | "org.freedesktop.DBus.Error.AuthFailed",
                    ) => SecretError::NoSessionBus { detail: e.message().unwrap_or(&detail).to_string() },
                    _ => SecretError::KeychainFailed { detail },
                },
                Some(dbus_secret_service::Error::Unavailable) => SecretError::NoSecretService { detail },
                Some(dbus_secret_service::Error::Locked | dbus_secret_service::Error::Prompt) => {
                    SecretError::KeychainLocked { detail }
                }
                _ => SecretError::KeychainFailed { detail },
            },
            _ => SecretError::KeychainFailed { detail },
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod unsupported {
    use super::*;

    pub(crate) fn load(_user: &str, _db: &Path) -> Result<Option<DataKey>, SecretError> {
        Err(SecretError::KeychainUnsupported { os: std::env::consts::OS })
    }

    pub(crate) fn save(_user: &str, _key: &DataKey) -> Result<(), SecretError> {
        Err(SecretError::KeychainUnsupported { os: std::env::consts::OS })
    }
}
