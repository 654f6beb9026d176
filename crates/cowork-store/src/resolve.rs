//! One version of a store item, found and verified: its signed manifest checked against the key
//! this machine pinned for the team server (walked through any rotation), and that it is the
//! item and version asked for. The files themselves are checked as they are downloaded
//! ([`crate::fetch`]).

use crate::error::{Result, StoreError};
use crate::place::Place;
use crate::receipt::{Origin, Receipt};
use crate::remote::{self, Remote, Signer};
use cowork_wire::hub::{is_safe_path, Manifest, SignedManifest, StoreVersion};

/// A version ready to install.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The manifest, parsed after its signature held.
    pub manifest: Manifest,
    /// The manifest as signed.
    pub signed: SignedManifest,
    /// The version, as the store lists it.
    pub version: StoreVersion,
    /// The signature held (or the store is the built-in one). `false` only with
    /// `--allow-unverified`.
    pub verified: bool,
}

impl Resolved {
    /// `<team-server>/<name>@<version>`, as messages name it.
    pub fn label(&self, slug: &str) -> String {
        format!("{slug}/{}@{}", self.manifest.name, self.manifest.version)
    }

    /// The receipt of this version installed as app folder `folder`.
    pub fn receipt<R: Remote>(
        &self,
        place: &Place,
        remote: &R,
        folder: &str,
        pinned: bool,
        origin: Origin,
    ) -> Receipt {
        let resolved = self;
        Receipt {
            store: Some(remote.slug().to_string()),
            version: Some(resolved.manifest.version.clone()),
            hub: match remote.signer() {
                Signer::TeamServer { hub } => Some(hub),
                Signer::Builtin => None,
            },
            name: resolved.manifest.name.clone(),
            kind: resolved.manifest.kind,
            pinned,
            workspace: place.workspace.clone(),
            dir: Place::dir_of(folder),
            files: resolved.manifest.files.clone(),
            signed: resolved.verified.then(|| resolved.signed.clone()),
            verified: resolved.verified,
            dismissed: None,
            origin,
            git: None,
            installed_at: cowork_account::files::now_millis(),
        }
    }
}

/// Finds `name` (at `version`, else the latest) in `remote` and verifies it; unverified content
/// is refused unless `allow_unverified`.
pub async fn resolve<R: Remote>(
    place: &Place,
    remote: &R,
    name: &str,
    version: Option<&str>,
    allow_unverified: bool,
) -> Result<Resolved> {
    let found = remote.manifest(name, version).await?;
    if version.is_some() && found.version.withdrawn_at.is_some() {
        return Err(StoreError::NotFound {
            what: format!(
                "{}/{name}@{} (withdrawn by the team server's admins)",
                remote.slug(),
                found.version.version
            ),
        });
    }
    let verified = match remote.signer() {
        Signer::Builtin => Ok(parse(&found.signed, remote.slug(), name)?),
        Signer::TeamServer { .. } => match remote::signing_key(remote, &place.trust).await {
            Ok(Some(key)) => {
                crate::trust::manifest(&found.signed, &key, remote.slug(), name, version)
            }
            Ok(None) => unreachable!("a team server's store has keys"),
            Err(error) => Err(error),
        },
    };
    let (manifest, verified) = match verified {
        Ok(manifest) => (manifest, true),
        Err(error @ StoreError::Unverified { .. }) if allow_unverified => {
            tracing::warn!(%error, "installing unverified content, as --allow-unverified asks");
            (parse(&found.signed, remote.slug(), name)?, false)
        }
        Err(error) => return Err(error),
    };
    Ok(Resolved { manifest, signed: found.signed, version: found.version, verified })
}

/// A manifest read without its signature (the built-in store, `--allow-unverified`): still the
/// item asked for, its paths inside the folder.
fn parse(signed: &SignedManifest, slug: &str, name: &str) -> Result<Manifest> {
    let bad = |why: String| StoreError::Unverified { what: format!("{slug}/{name}"), why };
    let manifest: Manifest = serde_json::from_str(&signed.manifest)
        .map_err(|e| bad(format!("its manifest does not parse: {e}")))?;
    if manifest.name != name {
        return Err(bad(format!("its manifest is {}'s", manifest.name)));
    }
    if let Some(file) = manifest.files.iter().find(|f| !is_safe_path(&f.path)) {
        return Err(bad(format!("the path {:?} could leave the install folder", file.path)));
    }
    Ok(manifest)
}
