//! How to install a site app ([`InstallOptions`]), which the install and its fetcher both read.
//! A leaf module: it imports neither.

use crate::resolver::{Resolver, SystemResolver};
use std::sync::Arc;

/// Where a site app shows (`display`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Display {
    /// Its own window (the default: no `display` key is written).
    #[default]
    Tab,
    /// A pane of the left side bar.
    Sidebar,
    /// A tab of the right side bar, beside Chat.
    Right,
}

/// How to install.
#[derive(Clone)]
pub struct InstallOptions {
    /// The title (`--title`): wins over the manifest's name and the page's title.
    pub title: Option<String>,
    /// Where it shows.
    pub display: Display,
    /// How host names are looked up (tests answer from a table).
    pub resolver: Arc<dyn Resolver>,
    /// A certificate authority trusted besides the built-in ones: the tests' loopback TLS site.
    #[cfg(test)]
    pub(crate) test_authority: Option<reqwest::Certificate>,
}

impl Default for InstallOptions {
    fn default() -> Self {
        InstallOptions {
            title: None,
            display: Display::Tab,
            resolver: Arc::new(SystemResolver),
            #[cfg(test)]
            test_authority: None,
        }
    }
}
