//! The blob cache under the Cowork root: `<root>/store/blobs/<first 2 hex>/<sha256>`, each file
//! named by the SHA-256 of its bytes and checked against it before it is kept, so an update
//! downloads only the files that changed (the others are here already) and two workspaces that
//! install the same app share its bytes. Files are copied out of it, never linked: an edit of an
//! installed file must not reach the cache.

use crate::error::{Result, StoreError};
use cowork_core::fs_atomic;
use cowork_core::paths::Root;
use cowork_wire::hub::verify::sha256_hex;
use cowork_wire::hub::{is_sha256, ManifestFile};
use std::path::{Path, PathBuf};

/// The blob cache of one Cowork root.
#[derive(Debug, Clone)]
pub struct BlobCache {
    dir: PathBuf,
}

impl BlobCache {
    /// The cache of `root`: `<root>/store/blobs`.
    pub fn new(root: &Root) -> BlobCache {
        BlobCache { dir: root.dir().join("store").join("blobs") }
    }

    /// Where blob `sha256` is kept.
    pub fn path(&self, sha256: &str) -> PathBuf {
        let prefix = sha256.get(..2).unwrap_or("00");
        self.dir.join(prefix).join(sha256)
    }

    /// Whether the cache holds `file`'s blob with its size (its content was checked when kept).
    pub fn has(&self, file: &ManifestFile) -> bool {
        is_sha256(&file.sha256)
            && std::fs::metadata(self.path(&file.sha256)).is_ok_and(|m| m.len() == file.size)
    }

    /// Keeps `bytes` as blob `sha256`, refused unless they hash to it.
    pub fn put(&self, sha256: &str, bytes: &[u8]) -> Result<()> {
        let actual = sha256_hex(bytes);
        if actual != sha256 || !is_sha256(sha256) {
            return Err(StoreError::Unverified {
                what: format!("the blob {sha256}"),
                why: format!("its bytes hash to {actual}"),
            });
        }
        let path = self.path(sha256);
        if path.exists() {
            return Ok(());
        }
        fs_atomic::write(&path, bytes, true).map_err(|e| StoreError::io("write", &path, e))
    }

    /// Copies blob `file` to `to` (created with its folders), checking its length: a cache file
    /// cut short (a full disk) is not installed.
    pub fn copy_to(&self, file: &ManifestFile, to: &Path) -> Result<()> {
        let from = self.path(&file.sha256);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| StoreError::io("create", parent, e))?;
        }
        let copied = std::fs::copy(&from, to).map_err(|e| StoreError::io("copy", &from, e))?;
        // The cache is private to this user (0600); an installed file is an ordinary one.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o644));
        }
        if copied != file.size {
            let _ = std::fs::remove_file(&from);
            return Err(StoreError::io(
                "copy",
                &from,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{copied} bytes, {} expected", file.size),
                ),
            ));
        }
        Ok(())
    }

    /// The bytes of blob `sha256`, if the cache has them.
    pub fn read(&self, sha256: &str) -> Option<Vec<u8>> {
        std::fs::read(self.path(sha256)).ok()
    }
}
