//! How host names become addresses: the seam between the address rules and the network.
//!
//! The install looks every host up ONCE through a [`Resolver`], judges the answer
//! ([`crate::rules`]) and then connects to exactly those addresses (the HTTP client's own DNS is
//! replaced by [`Pinned`]). Looking up twice would let a site answer "public" to the check and
//! "10.0.0.1" to the connection (DNS rebinding). Tests pass a resolver that answers from a table.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::Arc;

/// Answers which addresses a host name stands for.
pub trait Resolver: Send + Sync {
    /// Every address of `host` (a name, never an IP literal). An empty answer is an error.
    fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>>;

    /// Where a connection to a checked address goes: the address itself. A test resolver sends
    /// it to a loopback server instead, so a test can call a site public without leaving the
    /// machine.
    fn connect_to(&self, address: IpAddr) -> IpAddr {
        address
    }
}

/// The operating system's resolver (`getaddrinfo`: hosts file, DNS).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemResolver;

impl Resolver for SystemResolver {
    fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        Ok((host, 0).to_socket_addrs()?.map(|a| a.ip()).collect())
    }
}

/// A resolver that answers from a table: `host → addresses`; any other name does not resolve.
/// With [`StaticResolver::connecting_to`], connections go to that address whatever the table says.
#[cfg(any(test, feature = "test-support"))]
#[derive(Debug, Default, Clone)]
pub struct StaticResolver {
    table: HashMap<String, Vec<IpAddr>>,
    connect: Option<IpAddr>,
}

#[cfg(any(test, feature = "test-support"))]
impl StaticResolver {
    /// Adds `host` with its addresses.
    pub fn with(mut self, host: &str, addresses: &[&str]) -> Self {
        let parsed =
            addresses.iter().map(|a| a.parse().expect("a test address is an IP address")).collect();
        self.table.insert(host.to_ascii_lowercase(), parsed);
        self
    }

    /// Connects every checked address to `address` (a loopback test server).
    pub fn connecting_to(mut self, address: &str) -> Self {
        self.connect = Some(address.parse().expect("a test address is an IP address"));
        self
    }
}

#[cfg(any(test, feature = "test-support"))]
impl Resolver for StaticResolver {
    fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        self.table.get(host).cloned().ok_or_else(|| {
            io::Error::new(io::ErrorKind::NotFound, format!("{host} is not in the test table"))
        })
    }

    fn connect_to(&self, address: IpAddr) -> IpAddr {
        self.connect.unwrap_or(address)
    }
}

/// The HTTP client's DNS: only the hosts the rules have checked, at the addresses they checked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pinned {
    checked: Arc<Mutex<HashMap<String, Vec<IpAddr>>>>,
}

impl Pinned {
    /// Records the addresses `host` was checked at.
    pub fn pin(&self, host: &str, addresses: Vec<IpAddr>) {
        self.checked.lock().insert(host.to_owned(), addresses);
    }
}

impl reqwest::dns::Resolve for Pinned {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let found = self.checked.lock().get(name.as_str()).cloned();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            // Port 0: the client puts the URL's port in.
            let addresses =
                found.ok_or_else(|| format!("{host} was not checked before connecting"))?;
            Ok(Box::new(addresses.into_iter().map(|ip| SocketAddr::new(ip, 0)))
                as reqwest::dns::Addrs)
        })
    }
}
