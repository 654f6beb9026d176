//! Why an install failed. A refusal by a rule ([`Refusal`]) is one kind; the others are the
//! network or the disk.

use crate::refusal::Refusal;
use std::path::PathBuf;

/// Why `install` failed. [`InstallError::hint`] says what to do.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The text given is not a web address.
    #[error("failed to read {input:?} as a web address: {reason}")]
    BadUrl {
        /// What was given (without a user or password).
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An address broke a rule of the install.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// A host name has no address.
    #[error("failed to find the address of {host}")]
    Resolve {
        /// The host name.
        host: String,
        /// The resolver's answer.
        #[source]
        source: std::io::Error,
    },
    /// The site did not answer (connection, TLS, timeout).
    #[error("failed to fetch {url}")]
    Fetch {
        /// The address.
        url: String,
        /// What the HTTP client said.
        #[source]
        source: reqwest::Error,
    },
    /// The site answered with an error status.
    #[error("failed to fetch {url}: the site answered {status}")]
    Status {
        /// The address.
        url: String,
        /// The HTTP status.
        status: u16,
    },
    /// Redirect after redirect.
    #[error("failed to fetch {url}: it redirects more than {limit} times")]
    TooManyRedirects {
        /// The address the redirects started from.
        url: String,
        /// How many redirects are followed.
        limit: usize,
    },
    /// A redirect without a usable `Location`.
    #[error("failed to fetch {url}: it answered {status} without a valid Location")]
    BadRedirect {
        /// The address.
        url: String,
        /// The HTTP status.
        status: u16,
    },
    /// A response over its size limit.
    #[error("failed to fetch {url}: it is larger than {limit}")]
    TooLarge {
        /// The address.
        url: String,
        /// The limit in words, e.g. `256 KB`.
        limit: String,
    },
    /// Writing the app folder or the receipt failed.
    #[error("failed to write {}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The address (or the start page it leads to) is a page of a site app already here, and no
    /// title asked for a second one.
    #[error("failed to install {url}: it is the site app {app} here already")]
    Installed {
        /// The address.
        url: String,
        /// The site app's name.
        app: String,
        /// Its folder, relative to the workspace.
        dir: String,
    },
    /// The manifest the install built does not pass validation (a bug of the install).
    #[error("failed to write a valid cowork.json: {problems}")]
    InvalidManifest {
        /// The validator's problem lines.
        problems: String,
    },
}

impl InstallError {
    /// What the person can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            // A host written without its scheme (`example.com/app`); not a bare path (`/notes`).
            InstallError::BadUrl { input, .. }
                if !input.contains("://")
                    && !input.starts_with('/')
                    && !input.contains(char::is_whitespace) =>
            {
                Some(format!("give the site's full address: https://{input}"))
            }
            // `/notes`: a store app with its team server left out, most likely.
            InstallError::BadUrl { input, .. } if input.starts_with('/') => Some(format!(
                "a team server's app is <team-server>{input} (`cowork team-server list` shows yours); a site app's address starts with https://"
            )),
            InstallError::BadUrl { .. } => {
                Some("give the site's full address, e.g. https://example.com/".to_owned())
            }
            InstallError::Refused(refusal) => Some(refusal.hint()),
            InstallError::Resolve { .. } | InstallError::Fetch { .. } => {
                Some("check the address and your connection, then try again".to_owned())
            }
            InstallError::Status { status, .. } if (400..500).contains(status) => {
                Some("check the address: the site does not serve it".to_owned())
            }
            InstallError::Status { .. } => {
                Some("the site has a problem right now: try again later".to_owned())
            }
            InstallError::TooManyRedirects { .. } | InstallError::BadRedirect { .. } => {
                Some("install it from the address it ends up on in a browser".to_owned())
            }
            InstallError::TooLarge { .. } => None,
            InstallError::Write { .. } => {
                Some("check that the workspace folder and the Cowork root are writable".to_owned())
            }
            InstallError::Installed { dir, .. } => Some(format!("open it (`cowork app open {dir}/cowork.json`); for a second app of the same site (say, another account), give it its own --title")),
            InstallError::InvalidManifest { .. } => Some(
                "please report this: the install built a manifest Cowork does not accept"
                    .to_owned(),
            ),
        }
    }
}

/// An error and its causes on one line: `failed to fetch …: error sending request: …`.
pub(crate) fn with_causes(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
