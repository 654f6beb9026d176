//! Fetching over https within limits: 10 s to connect, 30 s per response, at most 5 redirects —
//! followed here, one hop at a time, so the rules check every address before it is contacted —
//! and a byte limit per kind of file.

use crate::error::InstallError;
use crate::options::InstallOptions;
use crate::resolver::Pinned;
use crate::rules::{shown, Guard, Step};
use std::time::Duration;
use url::Url;

/// Redirects followed before giving up.
pub const MAX_REDIRECTS: usize = 5;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const TOTAL_TIMEOUT: Duration = Duration::from_secs(30);

/// How much of a response is read.
#[derive(Debug, Clone, Copy)]
pub struct Limit {
    /// At most this many bytes.
    pub bytes: usize,
    /// Past the limit: keep the first `bytes` (a page: its head is at the top) instead of failing.
    pub truncate: bool,
}

/// The page: its `<head>` is in the first 2 MB of any page worth installing.
pub const PAGE: Limit = Limit { bytes: 2 * 1024 * 1024, truncate: true };
/// A web app manifest.
pub const MANIFEST: Limit = Limit { bytes: 256 * 1024, truncate: false };
/// An icon as downloaded (it is stored at most [`cowork_core::manifest::ICON_LIMIT`]).
pub const ICON: Limit = Limit { bytes: 1024 * 1024, truncate: false };

/// A response body.
#[derive(Debug)]
pub struct Fetched {
    /// Where it came from after redirects.
    pub url: Url,
    /// The body, up to its limit.
    pub bytes: Vec<u8>,
}

/// An HTTP client whose every connection goes to addresses the [`Guard`] checked.
pub(crate) struct Fetcher {
    client: reqwest::Client,
}

impl Fetcher {
    /// `options` only matter to tests (a certificate authority to trust).
    #[cfg_attr(not(test), allow(unused_variables))]
    pub fn new(pinned: Pinned, options: &InstallOptions) -> Fetcher {
        let builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(TOTAL_TIMEOUT)
            .dns_resolver(std::sync::Arc::new(pinned))
            // A proxy would resolve and connect on its own, past the address rules: none is used.
            .no_proxy()
            .user_agent(concat!(
                "Mozilla/5.0 (compatible; CoworkStudio/",
                env!("CARGO_PKG_VERSION"),
                "; site app install)"
            ));
        #[cfg(test)]
        let builder = match &options.test_authority {
            Some(authority) => builder.add_root_certificate(authority.clone()),
            None => builder,
        };
        Fetcher {
            client: builder
                .build()
                .expect("an HTTP client with rustls and valid certificates builds"),
        }
    }

    /// GETs `url` as `step`, following redirects hop by hop, each hop checked by `guard` first.
    pub async fn get(
        &self,
        guard: &Guard,
        url: Url,
        step: Step,
        limit: Limit,
    ) -> Result<Fetched, InstallError> {
        let mut url = url;
        let mut step = step;
        for _ in 0..=MAX_REDIRECTS {
            guard.check(&url, &step).await?;
            let response = self
                .client
                .get(url.clone())
                .send()
                .await
                .map_err(|source| InstallError::Fetch { url: shown(&url), source })?;
            let status = response.status();
            if status.is_redirection() {
                let next = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .and_then(|l| url.join(l).ok());
                let next = next.ok_or(InstallError::BadRedirect {
                    url: shown(&url),
                    status: status.as_u16(),
                })?;
                step = Step::Redirect(shown(&next));
                url = next;
                continue;
            }
            if !status.is_success() {
                return Err(InstallError::Status { url: shown(&url), status: status.as_u16() });
            }
            let bytes = read_body(response, &url, limit).await?;
            return Ok(Fetched { url, bytes });
        }
        Err(InstallError::TooManyRedirects { url: shown(&url), limit: MAX_REDIRECTS })
    }
}

/// Reads a body chunk by chunk, stopping at the limit (a `Content-Length` is not trusted).
async fn read_body(
    mut response: reqwest::Response,
    url: &Url,
    limit: Limit,
) -> Result<Vec<u8>, InstallError> {
    let too_large = || InstallError::TooLarge { url: shown(url), limit: in_words(limit.bytes) };
    if !limit.truncate && response.content_length().is_some_and(|n| n > limit.bytes as u64) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) =
        response.chunk().await.map_err(|source| InstallError::Fetch { url: shown(url), source })?
    {
        body.extend_from_slice(&chunk);
        if body.len() > limit.bytes {
            if limit.truncate {
                body.truncate(limit.bytes);
                break;
            }
            return Err(too_large());
        }
    }
    Ok(body)
}

/// `2 MB`, `256 KB`.
fn in_words(bytes: usize) -> String {
    if bytes >= 1024 * 1024 {
        format!("{} MB", bytes / (1024 * 1024))
    } else {
        format!("{} KB", bytes / 1024)
    }
}
