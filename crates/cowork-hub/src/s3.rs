//! Blobs in an S3-compatible object store, through a SigV4 signer over the reqwest already in the
//! tree (HMAC-SHA256 from ring): no AWS SDK, no `aws-lc-rs`. Path-style addresses
//! (`<endpoint>/<bucket>/<prefix><sha256>`), which every S3-compatible server takes. A put sends
//! `If-None-Match: *`, so an existing blob is never rewritten (412 = already there); a download is a
//! presigned GET (5 minutes) the hub redirects to.
//!
//! `s3://<bucket>?endpoint=<http(s)://host:port>&region=<r>&prefix=<p/>&credentials=<file>`;
//! credentials from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`, else the file (the same two
//! `NAME=value` lines) — never from argv.

use crate::blobs::{BlobStore, Fetch};
use crate::error::HubErr;
use futures_util::future::BoxFuture;
use reqwest::{Method, StatusCode, Url};
use ring::hmac;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

const PRESIGN_SECONDS: u32 = 300;

/// An S3 bucket (and a key prefix in it).
pub struct S3 {
    http: reqwest::Client,
    endpoint: Url,
    bucket: String,
    region: String,
    prefix: String,
    access_key: String,
    secret_key: String,
}

impl std::fmt::Debug for S3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3")
            .field("endpoint", &self.endpoint.as_str())
            .field("bucket", &self.bucket)
            .finish_non_exhaustive()
    }
}

fn bad(url: &str, why: &str) -> HubErr {
    HubErr::config(
        format!("failed to use {url:?} as the blob store: {why}"),
        "pass --blobs s3://<bucket>?endpoint=http(s)://host:port[&region=…][&prefix=…][&credentials=<file>] with AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY set",
    )
}

fn read_credentials_file(path: &str) -> Result<(Option<String>, Option<String>), std::io::Error> {
    let text = std::fs::read_to_string(path)?;
    let mut pair = (None, None);
    for line in text.lines() {
        match line.split_once('=') {
            Some(("AWS_ACCESS_KEY_ID", v)) => pair.0 = Some(v.trim().to_string()),
            Some(("AWS_SECRET_ACCESS_KEY", v)) => pair.1 = Some(v.trim().to_string()),
            _ => {}
        }
    }
    Ok(pair)
}

impl S3 {
    /// The store an `s3://` URL names.
    pub fn from_url(url: &str) -> Result<S3, HubErr> {
        let parsed = Url::parse(url).map_err(|_| bad(url, "not a URL"))?;
        if parsed.scheme() != "s3" {
            return Err(bad(url, "not an s3:// URL"));
        }
        let bucket = parsed
            .host_str()
            .filter(|b| !b.is_empty())
            .ok_or_else(|| bad(url, "no bucket"))?
            .to_string();
        let mut endpoint = None;
        let mut region = "us-east-1".to_string();
        let mut prefix = String::new();
        let mut file = None;
        for (key, value) in parsed.query_pairs() {
            match &*key {
                "endpoint" => {
                    endpoint = Some(
                        Url::parse(&value).map_err(|_| bad(url, "the endpoint is not a URL"))?,
                    )
                }
                "region" => region = value.into_owned(),
                "prefix" => prefix = value.into_owned(),
                "credentials" => file = Some(value.into_owned()),
                other => return Err(bad(url, &format!("unknown setting {other:?}"))),
            }
        }
        if !prefix.bytes().all(|b| b.is_ascii_alphanumeric() || b"/_.-".contains(&b)) {
            return Err(bad(url, "the prefix may hold letters, digits and / _ . - only"));
        }
        let endpoint = endpoint.ok_or_else(|| bad(url, "no endpoint=…"))?;
        let mut access_key = std::env::var("AWS_ACCESS_KEY_ID").ok().filter(|v| !v.is_empty());
        let mut secret_key = std::env::var("AWS_SECRET_ACCESS_KEY").ok().filter(|v| !v.is_empty());
        if let Some(file) = &file {
            let (a, s) = read_credentials_file(file).map_err(|e| {
                bad(url, &format!("failed to read the credentials file {file:?}: {e}"))
            })?;
            access_key = access_key.or(a);
            secret_key = secret_key.or(s);
        }
        let (Some(access_key), Some(secret_key)) = (access_key, secret_key) else {
            return Err(bad(url, "no credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or credentials=<file>)"));
        };
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(std::time::Duration::from_secs(120))
            .build()
            .map_err(|error| HubErr::internal("failed to make the S3 client", &error))?;
        Ok(S3 { http, endpoint, bucket, region, prefix, access_key, secret_key })
    }

    fn key(&self, sha256: &str) -> String {
        format!("{}{sha256}", self.prefix)
    }

    fn host(&self) -> String {
        let host = self.endpoint.host_str().unwrap_or_default();
        match self.endpoint.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        }
    }

    fn path(&self, key: Option<&str>) -> String {
        let base = self.endpoint.path().trim_end_matches('/');
        match key {
            Some(key) => format!("{base}/{}/{}", encode(&self.bucket, false), encode(key, true)),
            None => format!("{base}/{}", encode(&self.bucket, false)),
        }
    }

    fn signing_key(&self, date: &str) -> hmac::Key {
        let mac = |key: &[u8], data: &str| {
            hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key), data.as_bytes())
        };
        let k_date = mac(format!("AWS4{}", self.secret_key).as_bytes(), date);
        let k_region = mac(k_date.as_ref(), &self.region);
        let k_service = mac(k_region.as_ref(), "s3");
        let k_signing = mac(k_service.as_ref(), "aws4_request");
        hmac::Key::new(hmac::HMAC_SHA256, k_signing.as_ref())
    }

    /// A signed request (Authorization header).
    fn signed(
        &self,
        method: Method,
        key: Option<&str>,
        query: &[(&str, String)],
        body: Vec<u8>,
    ) -> reqwest::RequestBuilder {
        let (amz_date, date) = stamp();
        let payload = hex::encode(Sha256::digest(&body));
        let path = self.path(key);
        let canonical_query = canonical_query(query);
        let host = self.host();
        let canonical = format!(
            "{method}\n{path}\n{canonical_query}\nhost:{host}\nx-amz-content-sha256:{payload}\nx-amz-date:{amz_date}\n\nhost;x-amz-content-sha256;x-amz-date\n{payload}"
        );
        let scope = format!("{date}/{}/s3/aws4_request", self.region);
        let to_sign = format!(
            "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
            hex::encode(Sha256::digest(canonical.as_bytes()))
        );
        let signature =
            hex::encode(hmac::sign(&self.signing_key(&date), to_sign.as_bytes()).as_ref());
        let authorization = format!(
            "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={signature}",
            self.access_key
        );
        let mut url = self.endpoint.clone();
        url.set_path(&path);
        url.set_query((!canonical_query.is_empty()).then_some(canonical_query.as_str()));
        self.http
            .request(method, url)
            .header("x-amz-date", amz_date)
            .header("x-amz-content-sha256", payload)
            .header("authorization", authorization)
            .body(body)
    }

    /// A presigned GET of `key`, valid [`PRESIGN_SECONDS`].
    pub fn presign(&self, key: &str) -> String {
        let (amz_date, date) = stamp();
        let scope = format!("{date}/{}/s3/aws4_request", self.region);
        let path = self.path(Some(key));
        let query = [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256".to_string()),
            ("X-Amz-Credential", format!("{}/{scope}", self.access_key)),
            ("X-Amz-Date", amz_date.clone()),
            ("X-Amz-Expires", PRESIGN_SECONDS.to_string()),
            ("X-Amz-SignedHeaders", "host".to_string()),
        ];
        let canonical_query = canonical_query(&query);
        let canonical = format!(
            "GET\n{path}\n{canonical_query}\nhost:{}\n\nhost\nUNSIGNED-PAYLOAD",
            self.host()
        );
        let to_sign = format!(
            "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
            hex::encode(Sha256::digest(canonical.as_bytes()))
        );
        let signature =
            hex::encode(hmac::sign(&self.signing_key(&date), to_sign.as_bytes()).as_ref());
        let mut url = self.endpoint.clone();
        url.set_path(&path);
        url.set_query(Some(&format!("{canonical_query}&X-Amz-Signature={signature}")));
        url.to_string()
    }

    async fn send(
        &self,
        builder: reqwest::RequestBuilder,
        what: &str,
    ) -> Result<reqwest::Response, HubErr> {
        builder.send().await.map_err(|error| {
            HubErr::unavailable(format!("failed to {what} at {}", self.endpoint), error)
        })
    }

    async fn failed(&self, response: reqwest::Response, what: &str) -> HubErr {
        let status = response.status();
        let body = response.text().await.unwrap_or_default();
        HubErr::unavailable(
            format!("failed to {what} in the bucket {:?}", self.bucket),
            format!("HTTP {status}: {}", body.chars().take(300).collect::<String>()),
        )
    }
}

/// `(YYYYMMDDTHHMMSSZ, YYYYMMDD)`, now, UTC.
fn stamp() -> (String, String) {
    let now = time::OffsetDateTime::now_utc();
    let date = format!("{:04}{:02}{:02}", now.year(), u8::from(now.month()), now.day());
    (format!("{date}T{:02}{:02}{:02}Z", now.hour(), now.minute(), now.second()), date)
}

/// SigV4's URI encoding: everything but `A-Za-z0-9-_.~` (and `/` when `keep_slash`).
fn encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) || (keep_slash && byte == b'/') {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

fn canonical_query(query: &[(&str, String)]) -> String {
    let mut pairs: Vec<(String, String)> =
        query.iter().map(|(k, v)| (encode(k, false), encode(v, false))).collect();
    pairs.sort();
    pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")
}

/// The `<tag>…</tag>` values of a ListObjectsV2 answer.
fn xml_values<'a>(xml: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut values = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start + open.len()..];
        let Some(end) = after.find(&close) else { break };
        values.push(&after[..end]);
        rest = &after[end + close.len()..];
    }
    values
}

impl BlobStore for S3 {
    fn describe(&self) -> String {
        format!("s3 bucket {:?} at {} (prefix {:?})", self.bucket, self.endpoint, self.prefix)
    }

    fn put<'a>(&'a self, sha256: &'a str, bytes: Vec<u8>) -> BoxFuture<'a, Result<bool, HubErr>> {
        Box::pin(async move {
            let builder = self
                .signed(Method::PUT, Some(&self.key(sha256)), &[], bytes)
                .header("if-none-match", "*");
            let response = self.send(builder, "store a blob").await?;
            match response.status() {
                StatusCode::PRECONDITION_FAILED => Ok(true),
                status if status.is_success() => Ok(false),
                _ => Err(self.failed(response, "store a blob").await),
            }
        })
    }

    fn fetch<'a>(&'a self, sha256: &'a str) -> BoxFuture<'a, Result<Option<Fetch>, HubErr>> {
        Box::pin(async move { Ok(Some(Fetch::Redirect(self.presign(&self.key(sha256))))) })
    }

    fn read<'a>(&'a self, sha256: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, HubErr>> {
        Box::pin(async move {
            let response = self
                .send(
                    self.signed(Method::GET, Some(&self.key(sha256)), &[], Vec::new()),
                    "read a blob",
                )
                .await?;
            match response.status() {
                StatusCode::NOT_FOUND => Ok(None),
                status if status.is_success() => Ok(Some(
                    response
                        .bytes()
                        .await
                        .map_err(|e| HubErr::unavailable("failed to read a blob", e))?
                        .to_vec(),
                )),
                _ => Err(self.failed(response, "read a blob").await),
            }
        })
    }

    fn delete<'a>(&'a self, sha256: &'a str) -> BoxFuture<'a, Result<(), HubErr>> {
        Box::pin(async move {
            let response = self
                .send(
                    self.signed(Method::DELETE, Some(&self.key(sha256)), &[], Vec::new()),
                    "delete a blob",
                )
                .await?;
            if response.status().is_success() || response.status() == StatusCode::NOT_FOUND {
                Ok(())
            } else {
                Err(self.failed(response, "delete a blob").await)
            }
        })
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<String>, HubErr>> {
        Box::pin(async move {
            let mut found = Vec::new();
            let mut token: Option<String> = None;
            loop {
                let mut query =
                    vec![("list-type", "2".to_string()), ("prefix", self.prefix.clone())];
                if let Some(token) = &token {
                    query.push(("continuation-token", token.clone()));
                }
                let response = self
                    .send(self.signed(Method::GET, None, &query, Vec::new()), "list the blobs")
                    .await?;
                if !response.status().is_success() {
                    return Err(self.failed(response, "list the blobs").await);
                }
                let xml = response
                    .text()
                    .await
                    .map_err(|e| HubErr::unavailable("failed to list the blobs", e))?;
                for key in xml_values(&xml, "Key") {
                    if let Some(sha) = key
                        .strip_prefix(&self.prefix)
                        .filter(|s| crate::blobs::check_sha(s).is_ok())
                    {
                        found.push(sha.to_string());
                    }
                }
                token = xml_values(&xml, "NextContinuationToken")
                    .first()
                    .map(|t| t.replace("&amp;", "&"));
                if token.is_none() || xml_values(&xml, "IsTruncated").first() != Some(&"true") {
                    break;
                }
            }
            found.sort();
            Ok(found)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigv4_encoding_keeps_unreserved_characters_only() {
        assert_eq!(encode("a b/c~d", false), "a%20b%2Fc~d");
        assert_eq!(encode("hub/ab", true), "hub/ab");
        assert_eq!(
            canonical_query(&[("prefix", "p/".into()), ("list-type", "2".into())]),
            "list-type=2&prefix=p%2F"
        );
    }

    #[test]
    fn list_answers_are_read() {
        let xml = "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>p/aa</Key></Contents><Contents><Key>p/bb</Key></Contents></ListBucketResult>";
        assert_eq!(xml_values(xml, "Key"), ["p/aa", "p/bb"]);
    }
}
