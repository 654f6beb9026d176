//! A store as this machine reaches it: a team server's on a hub ([`crate::hub::HubRemote`]), the
//! built-in read-only `cowork` store of templates ([`crate::builtin::Builtin`]), or (tests) one
//! held in memory. Every lifecycle operation is written once against [`Remote`].

use crate::error::Result;
use cowork_wire::hub::{
    ItemVersions, Publish, Published, Store, StoreKey, StoreKeys, VersionManifest,
};
use std::future::Future;

/// How a store's content is trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signer {
    /// Signed by the team server's key, checked against the key this machine pinned for
    /// `slug` on `hub`.
    TeamServer {
        /// The hub the team server is on.
        hub: String,
    },
    /// Part of this Cowork build: nothing to check.
    Builtin,
}

/// One team server's store (or the built-in one).
pub trait Remote: Send + Sync {
    /// The store's name in `<store>/<item>`: a team server's slug, or `cowork`.
    fn slug(&self) -> &str;

    /// How its content is trusted.
    fn signer(&self) -> Signer;

    /// The latest version of each item.
    fn store(&self) -> impl Future<Output = Result<Store>> + Send;

    /// One item and the versions kept (withdrawn ones marked), newest first.
    fn item(&self, name: &str) -> impl Future<Output = Result<ItemVersions>> + Send;

    /// One version's signed manifest (`None`: the latest).
    fn manifest(
        &self,
        name: &str,
        version: Option<&str>,
    ) -> impl Future<Output = Result<VersionManifest>> + Send;

    /// The store's keys, oldest first.
    fn keys(&self) -> impl Future<Output = Result<StoreKeys>> + Send;

    /// A blob's bytes, as the store serves them (the caller checks them).
    fn blob(&self, sha256: &str) -> impl Future<Output = Result<Vec<u8>>> + Send;

    /// Which of `sha256` the store lacks (admins).
    fn missing(&self, sha256: &[String]) -> impl Future<Output = Result<Vec<String>>> + Send;

    /// Uploads a blob (admins).
    fn put_blob(&self, sha256: &str, bytes: Vec<u8>) -> impl Future<Output = Result<()>> + Send;

    /// Publishes a version (admins).
    fn publish(
        &self,
        name: &str,
        publish: &Publish,
    ) -> impl Future<Output = Result<Published>> + Send;

    /// Unpublishes an item, or withdraws one of its versions (admins).
    fn unpublish(
        &self,
        name: &str,
        version: Option<&str>,
    ) -> impl Future<Output = Result<()>> + Send;
}

/// The key a manifest of `remote` must be signed with (`None`: the built-in store).
pub async fn signing_key<R: Remote>(
    remote: &R,
    trust: &crate::trust::Trust,
) -> Result<Option<StoreKey>> {
    match remote.signer() {
        Signer::Builtin => Ok(None),
        Signer::TeamServer { hub } => {
            let keys = remote.keys().await?;
            trust.signing_key(&hub, remote.slug(), &keys).map(Some)
        }
    }
}
