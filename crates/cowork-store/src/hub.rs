//! A team server's store on the signed-in account's hub, through `cowork-account`'s session
//! (a fresh access token for each call, renewed once when the hub says it expired).

use crate::error::Result;
use crate::remote::{Remote, Signer};
use cowork_account::Session;
use cowork_wire::hub::{ItemVersions, Publish, Published, Store, StoreKeys, VersionManifest};
use std::sync::Arc;

/// One team server's store.
#[derive(Clone)]
pub struct HubRemote {
    session: Arc<Session>,
    hub: String,
    slug: String,
}

impl HubRemote {
    /// The store of team server `slug` on the signed-in session's hub.
    pub fn new(session: Arc<Session>, slug: &str) -> Result<HubRemote> {
        let signed_in = session.needed()?;
        Ok(HubRemote { session, hub: signed_in.hub, slug: slug.to_string() })
    }

    /// The signed-in session it calls the hub with.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }
}

impl Remote for HubRemote {
    fn slug(&self) -> &str {
        &self.slug
    }

    fn signer(&self) -> Signer {
        Signer::TeamServer { hub: self.hub.clone() }
    }

    async fn store(&self) -> Result<Store> {
        let slug = self.slug.clone();
        Ok(self
            .session
            .call(|hub| {
                let slug = slug.clone();
                async move { hub.store(&slug).await }
            })
            .await?)
    }

    async fn item(&self, name: &str) -> Result<ItemVersions> {
        let (slug, name) = (self.slug.clone(), name.to_string());
        Ok(self
            .session
            .call(|hub| {
                let (slug, name) = (slug.clone(), name.clone());
                async move { hub.store_item(&slug, &name).await }
            })
            .await?)
    }

    async fn manifest(&self, name: &str, version: Option<&str>) -> Result<VersionManifest> {
        let (slug, name, version) =
            (self.slug.clone(), name.to_string(), version.map(str::to_owned));
        Ok(self
            .session
            .call(|hub| {
                let (slug, name, version) = (slug.clone(), name.clone(), version.clone());
                async move { hub.manifest(&slug, &name, version.as_deref()).await }
            })
            .await?)
    }

    async fn keys(&self) -> Result<StoreKeys> {
        let slug = self.slug.clone();
        Ok(self
            .session
            .call(|hub| {
                let slug = slug.clone();
                async move { hub.store_keys(&slug).await }
            })
            .await?)
    }

    async fn blob(&self, sha256: &str) -> Result<Vec<u8>> {
        let (slug, sha) = (self.slug.clone(), sha256.to_string());
        Ok(self
            .session
            .call(|hub| {
                let (slug, sha) = (slug.clone(), sha.clone());
                async move { hub.get_blob(&slug, &sha).await }
            })
            .await?)
    }

    async fn missing(&self, sha256: &[String]) -> Result<Vec<String>> {
        let mut missing = Vec::new();
        // The hub answers at most MAX_BLOB_QUERY hashes a call.
        for chunk in sha256.chunks(cowork_wire::hub::MAX_BLOB_QUERY) {
            let (slug, chunk) = (self.slug.clone(), chunk.to_vec());
            let answer = self
                .session
                .call(|hub| {
                    let (slug, chunk) = (slug.clone(), chunk.clone());
                    async move { hub.missing_blobs(&slug, &chunk).await }
                })
                .await?;
            missing.extend(answer.missing);
        }
        Ok(missing)
    }

    async fn put_blob(&self, sha256: &str, bytes: Vec<u8>) -> Result<()> {
        let (slug, sha) = (self.slug.clone(), sha256.to_string());
        self.session
            .call(|hub| {
                let (slug, sha, bytes) = (slug.clone(), sha.clone(), bytes.clone());
                async move { hub.put_blob(&slug, &sha, bytes).await }
            })
            .await?;
        Ok(())
    }

    async fn publish(&self, name: &str, publish: &Publish) -> Result<Published> {
        let (slug, name) = (self.slug.clone(), name.to_string());
        Ok(self
            .session
            .call(|hub| {
                let (slug, name, publish) = (slug.clone(), name.clone(), publish.clone());
                async move { hub.publish(&slug, &name, &publish).await }
            })
            .await?)
    }

    async fn unpublish(&self, name: &str, version: Option<&str>) -> Result<()> {
        let (slug, name, version) =
            (self.slug.clone(), name.to_string(), version.map(str::to_owned));
        self.session
            .call(|hub| {
                let (slug, name, version) = (slug.clone(), name.clone(), version.clone());
                async move {
                    match version {
                        Some(version) => hub.withdraw(&slug, &name, &version).await,
                        None => hub.unpublish(&slug, &name).await,
                    }
                }
            })
            .await?;
        Ok(())
    }
}
