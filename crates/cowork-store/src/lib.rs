//! What flows through a team server's store, on this machine: push, publish, install, update,
//! pin, remove, unpublish — signed, verified, staged and swapped in whole — and the built-in
//! `cowork` store of templates.
//!
//! A team server's store (on the hub, `cowork-hub`) keeps items and their newest 10 versions;
//! each version is a manifest of every file's path, size and SHA-256, signed by the team server's
//! Ed25519 key, over content-addressed blobs. This crate is the other side:
//!
//! - [`pack`]: which files of a folder travel ([`ignore`]: never secrets, tooling or what a
//!   `.gitignore` names), hashed into a manifest's file list;
//! - [`push`] / [`publish`]: a version up (only the blobs the store lacks; the patch bumped and
//!   written back when the files changed at a published version; "update first" when the store
//!   is newer);
//! - [`install`], [`update`], [`remove`]: a version verified ([`resolve`], [`trust`]: the key
//!   pinned when the member joined, a new key only when the old one signed it), its blobs fetched
//!   into the [`cache`] (only those not there yet), staged beside the app and swapped in by one
//!   rename ([`stage`]: a kill at any moment leaves the old version or the new one), recorded in
//!   an install [`receipt`]; the [`clean`] check (hashes cached by size, mtime and inode) decides
//!   whether an update may replace it;
//! - [`auto`]: the automatic pass the daemon runs (clean, verified, unpinned apps only);
//! - [`template`] and [`builtin`]: scaffolds, and the read-only `cowork` store built in;
//! - [`component`]: a component straight from a git repository (never attested);
//! - [`item`]: `team-server install` of any item by its kind;
//! - [`audit`]: the `cowork.app.push|install|update|remove` lines.
//!
//! Every operation is written once against [`remote::Remote`]: a team server on the hub
//! ([`hub::HubRemote`]), the built-in store, or (feature `test-support`) one in memory.
//!
//! ```no_run
//! # async fn demo() -> Result<(), cowork_store::StoreError> {
//! use cowork_store::{audit::Actor, builtin::Builtin, place::Place, template};
//! let root = cowork_core::paths::Root::from_env();
//! let workspace = std::path::Path::new("/work/crm");
//! let place = Place::new(&root, workspace, Actor::of(&root, cowork_core::audit::Source::Cli, None));
//! let scaffold = template::Scaffold { component: "clients".into(), ..Default::default() };
//! let done = template::scaffold(&place, &Builtin::new(), "app-sidebar-workbench", &scaffold).await?;
//! println!("wrote {}", done.dir);
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

pub mod academy;
pub mod audit;
pub mod auto;
pub mod builtin;
pub mod cache;
pub mod clean;
pub mod component;
pub mod course;
mod error;
pub mod fetch;
pub mod hub;
pub mod ignore;
pub mod install;
pub mod item;
#[cfg(any(test, feature = "test-support"))]
pub mod memory;
pub mod pack;
pub mod pin;
pub mod place;
pub mod publish;
pub mod push;
pub mod receipt;
pub mod remote;
pub mod remove;
pub mod resolve;
pub mod spec;
pub mod stage;
pub mod template;
pub mod trust;
pub mod update;

pub use error::{Result, StoreError};

#[cfg(test)]
mod tests;
