//! Site apps: a web site installed as a Cowork app (docs/guides/site-apps.md).
//!
//! [`install`] fetches a page and its Web App Manifest and writes `.cowork/apps/<name>/`
//! (`cowork.json` with `web.url`/`web.scope`, `icon.png`) plus a receipt of what it wrote, under
//! the Cowork root; [`remove`] deletes exactly that, keeping what the person changed. Every
//! address the install touches — each redirect, the manifest, its start page, the icon — passes
//! the rules in [`rules`] before it is contacted, and a host is looked up once and connected to at
//! the addresses that were checked ([`resolver`]).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use cowork_sites::{install, InstallOptions, Progress};
//! let root = cowork_core::paths::Root::from_env();
//! let workspace = std::path::Path::new("/home/ana/work");
//! let mut show = |step: Progress| eprintln!("{step:?}");
//! let installed = install(&root, workspace, "https://web.whatsapp.com/", &InstallOptions::default(), &mut show).await?;
//! println!("{} in {}", installed.title, installed.dir);
//! cowork_sites::remove(&root, workspace, &installed.name)?;
//! # Ok(()) }
//! ```
//!
//! A site app's settings on this machine are in [`settings`] (hibernation is off by default), and
//! when a hidden one hibernates is [`hibernation`]'s decision.
//!
//! Nothing here prints: progress and notes are data for the caller.
#![warn(missing_docs)]

pub mod address;
mod color;
mod error;
mod fetch;
pub mod hibernation;
mod icon;
mod install;
mod name;
mod options;
mod page;
mod receipt;
mod refusal;
mod remove;
pub mod resolver;
pub mod rules;
mod scope;
pub mod settings;
#[cfg(test)]
mod test_site;
mod web_manifest;

pub use error::InstallError;
pub use install::{install, probe, Installed, Offer, Progress};
pub use options::{Display, InstallOptions};
pub use remove::{remove, Kept, KeptWhy, RemoveError, Removed};
pub use resolver::{Resolver, SystemResolver};
pub use rules::{Refusal, Rule, Step};
pub use scope::Scope;

/// The site app of a workspace (its `registry`) whose pages include `url` (its start page, or a
/// page in its scope): installing that page again would only make a second app of the same
/// site. The registry has validated `web.url` and defaulted `web.scope`.
pub fn installed_at<'r>(
    registry: &'r cowork_core::registry::Registry,
    url: &url::Url,
) -> Option<&'r cowork_core::registry::App> {
    registry.apps.iter().find(|app| {
        let Some(start) = app.manifest.web.as_ref().and_then(|web| web.url.as_deref()) else {
            return false;
        };
        let Ok(start) = url::Url::parse(start) else { return false };
        let scope = app.manifest.web.as_ref().and_then(|web| web.scope.as_deref());
        start == *url
            || Scope::parse(scope.unwrap_or(start.as_str())).is_some_and(|s| s.contains(url))
    })
}
