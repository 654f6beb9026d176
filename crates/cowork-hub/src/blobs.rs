//! Blobs: content-addressed by SHA-256 (lower-case hex), behind [`BlobStore`] — a folder for the
//! embedded hub ([`Folder`]), an S3-compatible object store for replicas (`s3.rs`). A download from
//! S3 is a redirect to a presigned URL, so blob bytes never pass through a replica.

use crate::error::HubErr;
use futures_util::future::BoxFuture;
use std::io::Write;
use std::path::PathBuf;

/// How a blob is handed to a client.
#[derive(Debug)]
pub enum Fetch {
    /// The bytes themselves.
    Bytes(Vec<u8>),
    /// A short-lived address to get it from (presigned).
    Redirect(String),
}

/// Where blobs live. Every method takes the blob's SHA-256 (checked by [`check_sha`] first).
pub trait BlobStore: Send + Sync {
    /// For logs and messages: `folder /var/lib/hub/blobs`, `s3 bucket at http://…`.
    fn describe(&self) -> String;
    /// Store `bytes` unless present; answers whether it was already there.
    fn put<'a>(&'a self, sha256: &'a str, bytes: Vec<u8>) -> BoxFuture<'a, Result<bool, HubErr>>;
    /// How a client gets the blob; `None` when it is not there.
    fn fetch<'a>(&'a self, sha256: &'a str) -> BoxFuture<'a, Result<Option<Fetch>, HubErr>>;
    /// The bytes themselves (migrate, checks).
    fn read<'a>(&'a self, sha256: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, HubErr>>;
    /// Removes the blob (blob GC); nothing when it is not there.
    fn delete<'a>(&'a self, sha256: &'a str) -> BoxFuture<'a, Result<(), HubErr>>;
    /// Every blob's hash.
    fn list(&self) -> BoxFuture<'_, Result<Vec<String>, HubErr>>;
}

/// That `sha256` is 64 lower-case hex characters.
pub fn check_sha(sha256: &str) -> Result<(), HubErr> {
    if sha256.len() == 64
        && sha256.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        Ok(())
    } else {
        Err(HubErr::bad_request(format!("failed to read {sha256:?} as a blob's SHA-256"))
            .hint("64 lower-case hex characters"))
    }
}

/// The SHA-256 of `bytes`, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// Blobs in a folder: `<dir>/<first two hex>/<sha256>`, written to `<dir>/tmp/` first and renamed
/// into place, so a blob is whole or absent.
#[derive(Debug)]
pub struct Folder {
    dir: PathBuf,
}

impl Folder {
    /// A blob folder at `dir`, made with its `tmp/` when missing.
    pub fn open(dir: PathBuf) -> Result<Folder, HubErr> {
        // The team servers' published files: private to the hub's user, as its database is.
        cowork_core::fs_atomic::create_dir(&dir.join("tmp"), true).map_err(|error| {
            HubErr::config(
                format!("failed to create the blob folder {}: {error}", dir.display()),
                "pass --blobs with a folder this user may write",
            )
        })?;
        Ok(Folder { dir })
    }

    fn path(&self, sha256: &str) -> PathBuf {
        self.dir.join(&sha256[..2]).join(sha256)
    }
}

fn io(what: &str, error: std::io::Error) -> HubErr {
    HubErr::unavailable(what.to_string(), error)
}

impl BlobStore for Folder {
    fn describe(&self) -> String {
        format!("folder {}", self.dir.display())
    }

    fn put<'a>(&'a self, sha256: &'a str, bytes: Vec<u8>) -> BoxFuture<'a, Result<bool, HubErr>> {
        Box::pin(async move {
            let path = self.path(sha256);
            let tmp = self.dir.join("tmp").join(crate::db::new_id());
            tokio::task::spawn_blocking(move || {
                if path.exists() {
                    return Ok(true);
                }
                std::fs::create_dir_all(path.parent().expect("a blob path has a parent"))
                    .map_err(|e| io("failed to write a blob", e))?;
                let mut file =
                    std::fs::File::create(&tmp).map_err(|e| io("failed to write a blob", e))?;
                file.write_all(&bytes)
                    .and_then(|()| file.sync_all())
                    .map_err(|e| io("failed to write a blob", e))?;
                std::fs::rename(&tmp, &path).map_err(|e| io("failed to write a blob", e))?;
                Ok(false)
            })
            .await
            .map_err(|error| HubErr::internal("failed to write a blob", &error))?
        })
    }

    fn fetch<'a>(&'a self, sha256: &'a str) -> BoxFuture<'a, Result<Option<Fetch>, HubErr>> {
        Box::pin(async move { Ok(self.read(sha256).await?.map(Fetch::Bytes)) })
    }

    fn read<'a>(&'a self, sha256: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, HubErr>> {
        Box::pin(async move {
            match tokio::fs::read(self.path(sha256)).await {
                Ok(bytes) => Ok(Some(bytes)),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(error) => Err(io("failed to read a blob", error)),
            }
        })
    }

    fn delete<'a>(&'a self, sha256: &'a str) -> BoxFuture<'a, Result<(), HubErr>> {
        Box::pin(async move {
            match tokio::fs::remove_file(self.path(sha256)).await {
                Ok(()) => Ok(()),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(error) => Err(io("failed to delete a blob", error)),
            }
        })
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<String>, HubErr>> {
        Box::pin(async move {
            let dir = self.dir.clone();
            tokio::task::spawn_blocking(move || {
                let mut found = Vec::new();
                for shard in
                    std::fs::read_dir(&dir).map_err(|e| io("failed to list the blobs", e))?
                {
                    let shard = shard.map_err(|e| io("failed to list the blobs", e))?;
                    if shard.file_name().len() != 2 {
                        continue;
                    }
                    for blob in std::fs::read_dir(shard.path())
                        .map_err(|e| io("failed to list the blobs", e))?
                    {
                        let name = blob.map_err(|e| io("failed to list the blobs", e))?.file_name();
                        if let Some(name) = name.to_str().filter(|n| check_sha(n).is_ok()) {
                            found.push(name.to_string());
                        }
                    }
                }
                found.sort();
                Ok(found)
            })
            .await
            .map_err(|error| HubErr::internal("failed to list the blobs", &error))?
        })
    }
}
