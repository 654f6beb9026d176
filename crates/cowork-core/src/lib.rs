//! The GUI-free heart of Cowork Studio: where a workspace's apps are, what their `cowork.json`
//! manifests say, which routine id belongs to which app, and the audit log every run appends to.
//!
//! Nothing here prints, opens a port or spawns a process: the daemon and the CLI assemble these
//! pieces. Every error that reaches a person is a documented enum variant with the path it concerns.
#![warn(missing_docs)]

pub mod agents;
pub mod audit;
pub mod autostart;
pub mod browser_consent;
pub mod consent;
pub mod discovery;
pub mod error_name;
pub mod fs_atomic;
pub mod json_edit;
pub mod manifest;
pub mod own_folders;
pub mod paths;
pub mod registry;
pub mod reserved_names;
pub mod schema;
pub mod shell;
pub mod skills;
pub mod triggers;
pub mod workspace_json;
