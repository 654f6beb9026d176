//! The team hub: the server people sign in to and share through. It is its own identity provider
//! (password accounts, browser sign-in with PKCE to a loopback port, the device flow, rotating
//! refresh tokens, signed ID tokens and their JWKS), and it holds organizations and their groups,
//! team servers (members, roles, join requests), the stores' storage (issue 42 builds the store's
//! lifecycle on it), run reports, and each team server's audit log.
//!
//! One code path, two back ends: the embedded hub is one process with SQLite (WAL) and a blob
//! folder under `--data`; the scale-out hub is any number of stateless replicas on one Postgres and
//! an S3-compatible object store, with periodic jobs claimed so that two replicas never run the
//! same one. `cowork-hub serve` and `cowork hub serve` both call [`serve`]. It is a server of its
//! own, apart from the daemon (which stays on 127.0.0.1 behind the owner token).
#![warn(missing_docs)]

pub mod accounts;
pub mod audit;
pub mod blobs;
pub mod cli;
pub mod config;
pub mod crypto;
pub mod db;
pub mod error;
pub mod guard;
pub mod jobs;
pub mod keys;
pub mod limits;
pub mod migrate;
pub mod migrations;
pub mod oauth;
pub mod org_roles;
pub mod orgs;
pub mod pages;
pub mod routes;
pub mod runs;
pub mod s3;
pub mod sessions;
pub mod state;
pub mod store;
pub mod teams;
#[cfg(feature = "test-support")]
pub mod test_support;
pub mod updates;

pub use config::{BlobsConfig, Config, Limits};
pub use error::HubErr;
pub use state::Hub;

use std::net::SocketAddr;
use std::sync::Arc;

/// The file, in the embedded hub's folder, holding the first admin's setup link (0600; removed
/// once used).
pub const SETUP_LINK_FILE: &str = "setup-link";

/// The blob store a configuration names.
pub fn open_blobs(blobs: &BlobsConfig) -> Result<Arc<dyn blobs::BlobStore>, HubErr> {
    Ok(match blobs {
        BlobsConfig::Folder(dir) => Arc::new(blobs::Folder::open(dir.clone())?),
        BlobsConfig::S3(url) => Arc::new(s3::S3::from_url(url)?),
    })
}

/// Plain HTTP on anything but loopback needs `--behind-https`: tokens and passwords would
/// otherwise cross the network in the clear.
pub fn check_listen(config: &Config) -> Result<(), HubErr> {
    if !config.listen.ip().is_loopback() && !config.behind_https {
        return Err(HubErr::config(
            format!("failed to start the hub: it would serve plain HTTP on {}, beyond this machine", config.listen),
            "put HTTPS in front of it (a reverse proxy) and pass --behind-https, or listen on 127.0.0.1",
        ));
    }
    Ok(())
}

/// The hub's state for a configuration, once the address it answers at is known.
pub async fn build(config: Config, bound: SocketAddr) -> Result<Hub, HubErr> {
    let db = db::Db::open(&config.database).await?;
    let blobs = open_blobs(&config.blobs)?;
    let keys = keys::Keys::load(&db).await?;
    let public_url: Arc<str> = config.public_url(bound).into();
    Ok(Hub { db, blobs, keys, config: Arc::new(config), public_url })
}

/// A hub serving in the background (tests, `cowork hub serve`'s caller).
pub struct Running {
    /// The address it is bound to.
    pub addr: SocketAddr,
    /// Its public URL, as clients reach it.
    pub url: String,
    /// Its state, for tests that look behind the routes.
    pub hub: Hub,
    /// The first admin's setup link, on a hub with no account yet.
    pub setup_link: Option<String>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    /// Stop serving and wait for the connections in flight.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = (&mut self.task).await;
        self.hub.db.close().await;
    }

    /// Wait until the server stops (a signal, or an error).
    pub async fn wait(mut self) {
        let _ = (&mut self.task).await;
        self.hub.db.close().await;
    }
}

/// Bind, open the back ends, make the first-admin link when there is no account yet, start the
/// periodic jobs, and serve in the background.
pub async fn start(config: Config) -> Result<Running, HubErr> {
    check_listen(&config)?;
    // Bound now (the port is known, for the public address), listening only once the database is
    // ready: until then a connection is refused, so "it accepts connections" means "it serves".
    let cannot_listen = |error: std::io::Error| {
        HubErr::config(
            format!("failed to listen on {}: {error}", config.listen),
            "choose another address with --listen (port 0 picks a free one)",
        )
    };
    let socket = if config.listen.is_ipv4() {
        tokio::net::TcpSocket::new_v4()
    } else {
        tokio::net::TcpSocket::new_v6()
    }
    .map_err(cannot_listen)?;
    #[cfg(unix)]
    socket.set_reuseaddr(true).map_err(cannot_listen)?;
    socket.bind(config.listen).map_err(cannot_listen)?;
    let addr = socket
        .local_addr()
        .map_err(|error| HubErr::internal("failed to read the bound address", &error))?;
    let hub = build(config, addr).await?;
    let setup_link = if accounts::any(&hub.db).await? {
        // Accounts made another way (`hub user add`) leave the last start's link behind: it can
        // set up nothing any more.
        if let Some(data) = &hub.config.data {
            let _ = std::fs::remove_file(data.join(SETUP_LINK_FILE));
        }
        None
    } else {
        let code = accounts::new_setup_code(&hub.db).await?;
        let link = format!("{}/setup?code={code}", hub.public_url);
        if let Some(data) = &hub.config.data {
            write_private(&data.join(SETUP_LINK_FILE), &format!("{link}\n"));
        }
        Some(link)
    };
    if hub.config.jobs {
        tokio::spawn(jobs::worker(
            hub.db.clone(),
            hub.blobs.clone(),
            std::time::Duration::from_secs(60),
        ));
    }
    let listener = socket.listen(1024).map_err(|error| {
        HubErr::config(
            format!("failed to listen on {addr}: {error}"),
            "choose another address with --listen",
        )
    })?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let app = routes::app(hub.clone()).into_make_service_with_connect_info::<SocketAddr>();
    let task = tokio::spawn(async move {
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await;
        if let Err(error) = served {
            tracing::error!(%error, "the hub stopped serving");
        }
    });
    let url = hub.public_url.to_string();
    Ok(Running { addr, url, hub, setup_link, stop: Some(stop), task })
}

fn write_private(path: &std::path::Path, text: &str) {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path).and_then(|mut f| f.write_all(text.as_bytes())) {
        Ok(()) => {}
        Err(error) => {
            tracing::warn!(%error, path = %path.display(), "failed to write the setup link's file")
        }
    }
}

/// Serve until Ctrl-C / SIGTERM: what `cowork-hub serve` and `cowork hub serve` run. Prints where
/// it listens and, on a hub without accounts, where the first admin's one-time setup link is.
pub async fn serve(config: Config) -> Result<(), HubErr> {
    let running = start(config).await?;
    let hub = &running.hub;
    eprintln!(
        "cowork-hub: serving {} ({}; blobs: {})",
        running.url,
        match hub.db.backend() {
            db::Backend::Sqlite => "SQLite",
            db::Backend::Postgres => "Postgres",
        },
        hub.blobs.describe()
    );
    if let Some(link) = &running.setup_link {
        match &hub.config.data {
            Some(data) => eprintln!(
                "cowork-hub: no account yet — the first admin's one-time setup link (valid 1 hour) is in {}",
                data.join(SETUP_LINK_FILE).display()
            ),
            None => eprintln!("cowork-hub: no account yet — create the first admin (works once, within 1 hour): {link}"),
        }
    }
    let stop = running.stop.is_some();
    if stop {
        shutdown_signal().await;
        eprintln!("cowork-hub: stopping");
        running.stop().await;
    }
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
