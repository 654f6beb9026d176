//! [`Hub`]: what every handler shares — the database, the blob store, the signing keys, the
//! configuration and the address the hub is reached at.

use crate::blobs::BlobStore;
use crate::config::Config;
use crate::db::Db;
use crate::keys::Keys;
use std::sync::Arc;

/// The state behind every route. Cheap to clone.
#[derive(Clone)]
pub struct Hub {
    /// The database: SQLite or Postgres.
    pub db: Db,
    /// Where blobs are kept.
    pub blobs: Arc<dyn BlobStore>,
    /// The keys ID tokens are signed with.
    pub keys: Keys,
    /// What `serve` was started with.
    pub config: Arc<Config>,
    /// `http(s)://host:port` without a trailing slash: ID tokens' issuer, the device flow's
    /// verification address, the setup link.
    pub public_url: Arc<str>,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub").field("public_url", &self.public_url).finish_non_exhaustive()
    }
}
