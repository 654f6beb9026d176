//! How a hub is started: where it listens, its database and blob store, and the limits that tests
//! shorten. `serve` (lib.rs) takes a [`Config`]; the binary and `cowork hub serve` build one from
//! the same flags (cli.rs).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Where blobs live.
#[derive(Clone, Debug)]
pub enum BlobsConfig {
    /// A folder (the embedded hub: `<data>/blobs`).
    Folder(PathBuf),
    /// An S3-compatible object store: `s3://bucket?endpoint=…&region=…&prefix=…`, credentials
    /// from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` or the file `credentials=<path>` names.
    S3(String),
}

/// Login attempts allowed in a window, per account and per address.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Failed attempts allowed per account in a window.
    pub per_account: i64,
    /// Failed attempts allowed per client address in a window.
    pub per_address: i64,
    /// The window they are counted over.
    pub window: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { per_account: 10, per_address: 50, window: Duration::from_secs(15 * 60) }
    }
}

/// Everything `serve` needs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The address to listen on.
    pub listen: SocketAddr,
    /// `sqlite://…` or `postgres://…`.
    pub database: String,
    /// Where blobs are kept: a folder or an S3 bucket.
    pub blobs: BlobsConfig,
    /// The embedded hub's folder (the setup link's file goes there).
    pub data: Option<PathBuf>,
    /// The address people and clients reach the hub at (default: `http://<listen>`); ID tokens
    /// name it as their issuer.
    pub public_url: Option<String>,
    /// HTTPS is terminated in front of the hub (required to listen on anything but loopback);
    /// cookies are then `Secure`, and the client address is the proxy's `X-Forwarded-For`.
    pub behind_https: bool,
    /// Anyone may create a password account (`POST /api/accounts`); otherwise only hub admins.
    pub open_signup: bool,
    /// How long an access token lives.
    pub access_ttl: Duration,
    /// How long an ID token lives.
    pub id_token_ttl: Duration,
    /// Seconds between device-flow polls.
    pub device_interval: u64,
    /// The login attempt limits.
    pub limits: Limits,
    /// Run the periodic jobs (retention, blob GC) in this process.
    pub jobs: bool,
}

impl Config {
    /// A hub on `listen` with the embedded back ends in `data`.
    pub fn embedded(data: PathBuf, listen: SocketAddr) -> Config {
        Config {
            listen,
            database: crate::db::sqlite_url(&data.join("hub.db")),
            blobs: BlobsConfig::Folder(data.join("blobs")),
            data: Some(data),
            public_url: None,
            behind_https: false,
            open_signup: false,
            access_ttl: Duration::from_secs(15 * 60),
            id_token_ttl: Duration::from_secs(10 * 60),
            device_interval: 5,
            limits: Limits::default(),
            jobs: true,
        }
    }

    /// The hub's own address, without a trailing slash.
    pub fn public_url(&self, bound: SocketAddr) -> String {
        match &self.public_url {
            Some(url) => url.trim_end_matches('/').to_string(),
            None => format!("http://{bound}"),
        }
    }
}

/// The embedded hub's default folder: `$COWORK_HUB_DATA`, else `hub/` under the Cowork root
/// (`~/.cowork-studio/hub`), so a hub started beside Cowork keeps its data with Cowork's.
pub fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("COWORK_HUB_DATA") {
        return PathBuf::from(dir);
    }
    cowork_core::paths::default_root().join("hub")
}
