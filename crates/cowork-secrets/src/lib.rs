//! The secret store of Cowork Studio: the values routines read with `ctx.secrets.get` and people
//! set with `cowork secrets set`, plus Cowork's own reserved `cowork.*` secrets (sign-in tokens).
//!
//! Each secret is one record in `<root>/secrets.db` (SQLite, mode 0600), sealed with
//! XChaCha20-Poly1305 under a 32-byte data key, with a fresh random nonce per write and associated
//! data binding the record to its account and name. The data key lives in the OS keychain
//! (default; service `cowork-studio`, user = the root's canonical path) or in a 0600 key file
//! (`cowork secrets init --key-file`, or `COWORK_SECRETS_KEY_FILE`). Which one is chosen
//! explicitly and reported by [`probe`]: a missing keychain is an error that says what to do,
//! never a silent switch to a file. A key-check record makes a wrong key fail at
//! [`SecretStore::open`], before anything is written.
//!
//! Threat model, in short: this protects secret values at rest (a copied disk, a backup, a synced
//! folder without the key) and against tampering with the database (a changed, swapped or
//! renamed record fails to open instead of yielding another secret's value). It does not protect
//! against code running as the same user, which can ask the keychain or read the key file just as
//! Cowork does; it does not hide which names and accounts exist (they are stored in the clear);
//! and it does not notice a record replaced by an older record of the same name, or deleted.
//! Decrypted values and key material are wiped from memory when dropped, where the libraries
//! underneath let us (the D-Bus layer keeps its own copies of the key in transit).
//!
//! ```
//! use cowork_core::paths::Root;
//! use cowork_secrets::{init_key_file, SecretStore, LOCAL_ACCOUNT};
//!
//! let dir = tempfile::tempdir()?;
//! let root = Root::new(dir.path());
//! init_key_file(&root)?; // key-file mode; without it the key goes to the OS keychain
//! let store = SecretStore::open(&root, LOCAL_ACCOUNT)?;
//! store.set("openai.key", "sk-example")?;
//! assert_eq!(store.get("openai.key")?.as_deref().map(String::as_str), Some("sk-example"));
//! assert_eq!(store.list()?, ["openai.key"]);
//! assert!(store.set("cowork.openrouter", "x").is_err()); // reserved for Cowork itself
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)] // every public item says what it is for: a security engineer reads this crate

mod data_key;
mod error;
mod key;
mod keychain;
mod seal;
mod store;

pub use error::SecretError;
pub use key::{KeyKind, KeyMode, KEY_FILE_ENV, KEY_FILE_NAME};
pub use keychain::KEYCHAIN_SERVICE;
pub use store::{
    init_key_file, probe, repair_key_check, validate_name, SecretStore, DB_FILE, LOCAL_ACCOUNT,
};
pub use zeroize::Zeroizing;
