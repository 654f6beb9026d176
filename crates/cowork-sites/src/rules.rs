//! The address rules of a site app install (docs/guides/site-apps.md), checked on EVERY
//! address the install goes to — the start page, each redirect, the manifest, its start page and
//! the icon:
//!
//! - https only: http only on `localhost`, `127.0.0.1` and `[::1]` (the schema's own rule for
//!   `web.url`);
//! - no user or password in an address;
//! - when the start page is public, no `localhost` and no private-network address (every address
//!   a name resolves to is judged, see [`crate::address`]): a page on the internet must not lead
//!   Cowork into the person's computer or network. A site whose start page is itself local or on
//!   the intranet may lead anywhere.

use crate::address;
use crate::error::InstallError;
use crate::resolver::{Pinned, Resolver};
use std::net::IpAddr;
use std::sync::Arc;
use url::{Host, Url};

/// The hosts where http is allowed, as the manifest schema spells them.
const LOCAL_HTTP_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

pub use crate::refusal::{Refusal, Rule, Step};

/// An address as messages show it: without a user or password.
pub fn shown(url: &Url) -> String {
    if url.username().is_empty() && url.password().is_none() {
        return url.to_string();
    }
    let mut clean = url.clone();
    // Both setters only fail for URLs that cannot have credentials, which these have.
    let _ = clean.set_username("");
    let _ = clean.set_password(None);
    clean.to_string().replacen("://", "://***@", 1)
}

/// Whether `host` is this computer by name (RFC 6761: `localhost` and its subdomains).
fn is_localhost_name(host: &str) -> bool {
    host == "localhost" || host.ends_with(".localhost")
}

/// Checks addresses against the rules, and pins the addresses it checked for the HTTP client.
pub(crate) struct Guard {
    start: String,
    resolver: Arc<dyn Resolver>,
    pinned: Pinned,
    public: bool,
}

impl Guard {
    /// Checks the start address, and learns from it whether the install is of a public site.
    pub async fn start(
        url: &Url,
        resolver: Arc<dyn Resolver>,
        pinned: Pinned,
    ) -> Result<Guard, InstallError> {
        let mut guard = Guard { start: shown(url), resolver, pinned, public: false };
        guard.check_form(url, &Step::Start)?;
        let addresses = guard.addresses(url).await?;
        let named_local = url.host_str().is_some_and(is_localhost_name);
        // One public address makes the site public: a name that mixes public and private
        // addresses is then refused by the check below, not waved through as "local".
        guard.public = !named_local && addresses.iter().any(|ip| address::classify(*ip).is_none());
        guard.check_reach(url, &addresses, &Step::Start)?;
        Ok(guard)
    }

    /// Whether the start page is on the public internet.
    #[cfg(test)]
    pub fn is_public(&self) -> bool {
        self.public
    }

    /// Checks an address the install is about to use.
    pub async fn check(&self, url: &Url, step: &Step) -> Result<(), InstallError> {
        self.check_form(url, step)?;
        let addresses = self.addresses(url).await?;
        self.check_reach(url, &addresses, step)
    }

    /// Checks an address without touching the network: scheme and credentials.
    pub fn check_form(&self, url: &Url, step: &Step) -> Result<(), Refusal> {
        let local_http =
            url.scheme() == "http" && url.host_str().is_some_and(|h| LOCAL_HTTP_HOSTS.contains(&h));
        if url.scheme() != "https" && !local_http {
            let problem = if url.scheme() == "http" {
                "is http".to_owned()
            } else {
                format!("is a {}: address", url.scheme())
            };
            return Err(self.refuse(step, Rule::HttpsOnly, problem));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(self.refuse(
                step,
                Rule::NoCredentials,
                "has a user or password in it".to_owned(),
            ));
        }
        Ok(())
    }

    fn check_reach(
        &self,
        url: &Url,
        addresses: &[IpAddr],
        step: &Step,
    ) -> Result<(), InstallError> {
        if !self.public {
            return Ok(());
        }
        if url.host_str().is_some_and(is_localhost_name) {
            return Err(self
                .refuse(step, Rule::PublicStaysPublic, "is on localhost".to_owned())
                .into());
        }
        for ip in addresses {
            if let Some(class) = address::classify(*ip) {
                return Err(self
                    .refuse(
                        step,
                        Rule::PublicStaysPublic,
                        format!("is at {ip} ({})", class.describe()),
                    )
                    .into());
            }
        }
        Ok(())
    }

    /// The addresses of `url`'s host: the literal itself, or every address its name resolves to
    /// (pinned, so the connection goes where the check looked).
    async fn addresses(&self, url: &Url) -> Result<Vec<IpAddr>, InstallError> {
        let name = match url.host() {
            Some(Host::Ipv4(ip)) => return Ok(vec![IpAddr::V4(ip)]),
            Some(Host::Ipv6(ip)) => return Ok(vec![IpAddr::V6(ip)]),
            Some(Host::Domain(name)) => name.to_owned(),
            None => {
                return Err(InstallError::BadUrl {
                    input: shown(url),
                    reason: "it has no host".to_owned(),
                })
            }
        };
        let resolver = self.resolver.clone();
        let lookup_name = name.clone();
        let looked_up = tokio::task::spawn_blocking(move || resolver.lookup(&lookup_name))
            .await
            .expect("a name lookup does not panic");
        let addresses = looked_up.and_then(|a| {
            if a.is_empty() {
                Err(std::io::Error::other("no address"))
            } else {
                Ok(a)
            }
        });
        let addresses =
            addresses.map_err(|source| InstallError::Resolve { host: name.clone(), source })?;
        self.pinned.pin(&name, addresses.iter().map(|ip| self.resolver.connect_to(*ip)).collect());
        Ok(addresses)
    }

    fn refuse(&self, step: &Step, rule: Rule, problem: String) -> Refusal {
        Refusal { start: self.start.clone(), step: step.clone(), rule, problem }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolver::StaticResolver;

    fn resolver() -> Arc<dyn Resolver> {
        Arc::new(
            StaticResolver::default()
                .with("public.test", &["93.184.216.34"])
                .with("cdn.test", &["93.184.216.35", "2606:4700::1"])
                .with("intranet.test", &["10.0.0.7"])
                .with("mixed.test", &["93.184.216.36", "192.168.1.20"])
                .with("mapped.test", &["::ffff:127.0.0.1"])
                .with("localhost", &["127.0.0.1"])
                .with("app.localhost", &["127.0.0.1"]),
        )
    }

    async fn guard(start: &str) -> Result<Guard, InstallError> {
        Guard::start(&Url::parse(start).unwrap(), resolver(), Pinned::default()).await
    }

    fn refusal(result: Result<impl Sized, InstallError>) -> Refusal {
        match result {
            Err(InstallError::Refused(refusal)) => refusal,
            Err(other) => panic!("not a refusal: {other}"),
            Ok(_) => panic!("not refused"),
        }
    }

    #[tokio::test]
    async fn http_is_only_for_this_computer() {
        for ok in [
            "http://localhost:8080/",
            "http://127.0.0.1/",
            "http://[::1]:3000/x",
            "https://public.test/",
        ] {
            assert!(guard(ok).await.is_ok(), "{ok}");
        }
        let refused = refusal(guard("http://public.test/").await);
        assert_eq!(refused.rule, Rule::HttpsOnly);
        assert_eq!(refused.to_string(), "refused to install http://public.test/: the address is http — rule: https only (http only on localhost, 127.0.0.1 and [::1])");
        assert_eq!(refusal(guard("ftp://public.test/").await).problem, "is a ftp: address");
        // `.localhost` names are this computer, but the schema allows http on `localhost` only.
        assert_eq!(refusal(guard("http://app.localhost/").await).rule, Rule::HttpsOnly);
    }

    #[tokio::test]
    async fn credentials_are_refused_and_never_shown() {
        let refused = refusal(guard("https://ana:s3cret@public.test/").await);
        assert_eq!(refused.rule, Rule::NoCredentials);
        assert_eq!(refused.to_string(), "refused to install https://***@public.test/: the address has a user or password in it — rule: no user or password in an address");
        assert_eq!(refusal(guard("https://ana@public.test/").await).rule, Rule::NoCredentials);
    }

    #[tokio::test]
    async fn a_public_start_may_not_lead_to_private_addresses() {
        let guard = guard("https://public.test/").await.unwrap();
        assert!(guard.is_public());
        let step = Step::Redirect("https://intranet.test/admin".to_owned());
        let refused =
            refusal(guard.check(&Url::parse("https://intranet.test/admin").unwrap(), &step).await);
        assert_eq!(refused.rule, Rule::PublicStaysPublic);
        assert_eq!(
            refused.to_string(),
            "refused to install https://public.test/: its redirect to https://intranet.test/admin is at 10.0.0.7 (a private network address (RFC 1918)) — rule: a public site may not lead to localhost or a private network"
        );
        for (url, problem) in [
            ("https://localhost/icon.png", "is on localhost"),
            ("https://127.0.0.1/", "is at 127.0.0.1 (a loopback address: this computer)"),
            ("https://[::1]/", "is at ::1 (a loopback address: this computer)"),
            ("https://169.254.169.254/latest", "is at 169.254.169.254 (a link-local address)"),
            (
                "https://100.64.1.1/",
                "is at 100.64.1.1 (a carrier-grade NAT address (100.64.0.0/10))",
            ),
            ("https://[fd00::1]/", "is at fd00::1 (a private IPv6 address (fc00::/7))"),
            ("https://0.0.0.0/", "is at 0.0.0.0 (the unspecified address: this computer)"),
            ("https://mapped.test/", "is at ::ffff:127.0.0.1 (a loopback address: this computer)"),
            ("https://mixed.test/", "is at 192.168.1.20 (a private network address (RFC 1918))"),
        ] {
            let step = Step::Icon(url.to_owned());
            assert_eq!(
                refusal(guard.check(&Url::parse(url).unwrap(), &step).await).problem,
                problem,
                "{url}"
            );
        }
        assert!(guard
            .check(&Url::parse("https://cdn.test/m.json").unwrap(), &Step::Manifest(String::new()))
            .await
            .is_ok());
    }

    #[tokio::test]
    async fn a_start_that_mixes_public_and_private_addresses_is_refused() {
        let refused = refusal(guard("https://mixed.test/").await);
        assert_eq!(refused.rule, Rule::PublicStaysPublic);
        assert_eq!(refused.step, Step::Start);
    }

    #[tokio::test]
    async fn a_local_or_intranet_start_may_lead_anywhere() {
        for start in ["http://localhost:9000/", "https://intranet.test/", "http://127.0.0.1:9000/"]
        {
            let guard = guard(start).await.unwrap();
            assert!(!guard.is_public(), "{start}");
            for url in ["https://intranet.test/x", "https://public.test/", "http://localhost:9001/"]
            {
                assert!(
                    guard
                        .check(&Url::parse(url).unwrap(), &Step::Redirect(url.to_owned()))
                        .await
                        .is_ok(),
                    "{start} → {url}"
                );
            }
            // The form rules still hold everywhere.
            let refused = refusal(
                guard
                    .check(
                        &Url::parse("http://public.test/").unwrap(),
                        &Step::Redirect("http://public.test/".to_owned()),
                    )
                    .await,
            );
            assert_eq!(refused.rule, Rule::HttpsOnly);
        }
    }

    #[tokio::test]
    async fn a_name_that_does_not_resolve_is_an_error_not_a_pass() {
        assert!(matches!(guard("https://nowhere.test/").await, Err(InstallError::Resolve { .. })));
    }
}
