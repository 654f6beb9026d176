//! [`KeyLocks`]: the per-key write locks that [`crate::Connections`] and a sign-in share. A leaf
//! module: both sides import it, and it imports neither.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

/// One lock per store key, around every write of that key's tokens (a sign-in's save, a refresh,
/// a disconnect). It guards when the key was last written, so a caller that waited for the lock
/// can tell that the tokens were renewed meanwhile and use them instead of refreshing again.
#[derive(Default)]
pub(crate) struct KeyLocks {
    by_key: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Instant>>>>>,
}

impl KeyLocks {
    pub fn for_key(&self, key: &str) -> Arc<tokio::sync::Mutex<Option<Instant>>> {
        let mut by_key = self.by_key.lock();
        by_key.entry(key.to_owned()).or_default().clone()
    }
}
