//! [`MemoryStore`]: a [`TokenStore`] for tests.

use parking_lot::Mutex;
use std::collections::HashMap;

use crate::{StoreError, TokenStore};

/// Keeps tokens in a map, gone with the value. For tests (the `test-support` feature); a real
/// caller stores them in the encrypted secret store.
#[derive(Debug, Default)]
pub struct MemoryStore {
    entries: Mutex<HashMap<String, String>>,
}

impl MemoryStore {
    fn entries(&self) -> parking_lot::MutexGuard<'_, HashMap<String, String>> {
        self.entries.lock()
    }
}

impl TokenStore for MemoryStore {
    fn load(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self.entries().get(key).cloned())
    }

    fn save(&self, key: &str, json: &str) -> Result<(), StoreError> {
        self.entries().insert(key.to_owned(), json.to_owned());
        Ok(())
    }

    fn remove(&self, key: &str) -> Result<(), StoreError> {
        self.entries().remove(key);
        Ok(())
    }
}
