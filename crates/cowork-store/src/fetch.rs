//! Getting a version's files into the blob cache: only those it lacks are downloaded, a few at a
//! time, each checked against its manifest entry before it is kept — a tampered blob is named
//! ([`StoreError::TamperedBlob`]) and nothing of the version is written to the app.

use crate::cache::BlobCache;
use crate::error::{Result, StoreError};
use crate::remote::Remote;
use cowork_wire::hub::verify::{self, VerifyError};
use cowork_wire::hub::ManifestFile;
use futures_util::stream::{self, StreamExt, TryStreamExt};

/// Downloads in flight at once.
const PARALLEL: usize = 8;

/// What [`ensure`] moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fetched {
    /// Blobs downloaded (the others were cached).
    pub blobs: usize,
    /// Bytes downloaded.
    pub bytes: u64,
}

/// Makes sure the cache holds every file of `files` (the item `item`, for messages).
pub async fn ensure<R: Remote>(
    remote: &R,
    cache: &BlobCache,
    item: &str,
    files: &[ManifestFile],
) -> Result<Fetched> {
    let mut wanted: Vec<&ManifestFile> = files.iter().filter(|f| !cache.has(f)).collect();
    // One download per blob, however many paths share it.
    wanted.sort_by(|a, b| a.sha256.cmp(&b.sha256));
    wanted.dedup_by(|a, b| a.sha256 == b.sha256);
    let fetched = Fetched { blobs: wanted.len(), bytes: wanted.iter().map(|f| f.size).sum() };
    stream::iter(wanted)
        .map(|file| async move {
            let bytes = remote.blob(&file.sha256).await?;
            verify::file(file, &bytes).map_err(|e| tampered(item, e))?;
            let cache = cache.clone();
            let sha = file.sha256.clone();
            tokio::task::spawn_blocking(move || cache.put(&sha, &bytes))
                .await
                .expect("writing a blob does not panic")
        })
        .buffer_unordered(PARALLEL)
        .try_collect::<Vec<()>>()
        .await?;
    Ok(fetched)
}

fn tampered(item: &str, error: VerifyError) -> StoreError {
    match error {
        VerifyError::HashMismatch { path, expected, actual } => StoreError::TamperedBlob {
            item: item.to_string(),
            path,
            why: StoreError::hash_mismatch(&expected, &actual),
        },
        VerifyError::SizeMismatch { path, expected, actual } => StoreError::TamperedBlob {
            item: item.to_string(),
            path,
            why: format!("the manifest gives {expected} bytes, the store's blob has {actual}"),
        },
        other => {
            StoreError::Unverified { what: item.to_string(), why: crate::trust::reason(&other) }
        }
    }
}
