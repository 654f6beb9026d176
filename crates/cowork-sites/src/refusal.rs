//! A refusal by the address rules ([`crate::rules`]): which rule, which address of the install,
//! and what to do. A leaf module: the rules make refusals and [`crate::InstallError`] carries them,
//! and it imports neither.

use std::fmt;

/// A rule of the install, as a refusal names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// https only (http only on localhost, 127.0.0.1 and [::1]).
    HttpsOnly,
    /// No user or password in an address.
    NoCredentials,
    /// A public site may not lead to localhost or a private network.
    PublicStaysPublic,
}

impl Rule {
    /// The rule in words.
    pub fn text(self) -> &'static str {
        match self {
            Rule::HttpsOnly => "https only (http only on localhost, 127.0.0.1 and [::1])",
            Rule::NoCredentials => "no user or password in an address",
            Rule::PublicStaysPublic => {
                "a public site may not lead to localhost or a private network"
            }
        }
    }
}

/// Which address of the install broke a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The address the person gave.
    Start,
    /// Where a response redirected to.
    Redirect(String),
    /// The page's web app manifest.
    Manifest(String),
    /// The manifest's `start_url`: where the app will open.
    StartUrl(String),
    /// An icon.
    Icon(String),
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Start => write!(f, "the address"),
            Step::Redirect(url) => write!(f, "its redirect to {url}"),
            Step::Manifest(url) => write!(f, "its manifest {url}"),
            Step::StartUrl(url) => write!(f, "its start page {url}"),
            Step::Icon(url) => write!(f, "its icon {url}"),
        }
    }
}

/// An install refused by a rule: `refused to install <start>: <step> <problem> — rule: <rule>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The address the person gave, without a user or password.
    pub start: String,
    /// Which address broke the rule.
    pub step: Step,
    /// The rule it broke.
    pub rule: Rule,
    /// What is wrong with it, e.g. `is at 10.0.0.7 (a private network address (RFC 1918))`.
    pub problem: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "refused to install {}: {} {} — rule: {}",
            self.start,
            self.step,
            self.problem,
            self.rule.text()
        )
    }
}

impl std::error::Error for Refusal {}

impl Refusal {
    /// What the person can do about it.
    pub fn hint(&self) -> String {
        match (self.rule, &self.step) {
            (Rule::HttpsOnly, Step::Start) => "install the site from its https:// address; http is only for a site on this computer".to_owned(),
            (Rule::HttpsOnly, _) => "the site sends Cowork to an address that is not https: it cannot be installed as it is".to_owned(),
            (Rule::NoCredentials, _) => "leave the user and password out of the address: sign in inside the app once it is installed".to_owned(),
            (Rule::PublicStaysPublic, _) => {
                "a site from the internet may not reach this computer or its network; a local site installs from its own local address".to_owned()
            }
        }
    }
}
