//! The Cowork daemon: one per Cowork root, on `127.0.0.1:47913` (or the port it remembered), serving
//! the engine to the CLI — and later the workbench and the desktop shell — over HTTP.
//!
//! Every API route is behind a layer that checks the Host header (DNS rebinding) and refuses
//! cross-site and foreign-origin browser requests; the owner's routes then require the owner token
//! from `<root>/daemon.token` (0600), the panes' SDK an open pane's token (see `guard`).
//! [`app`] builds the router without opening a port, so tests call it directly; [`start`] is what
//! `cowork start --headless` runs; [`discovery`] is how the CLI and the desktop shell find a running
//! daemon, and cowork-wire's `daemon` module what they say to it.

#![warn(missing_docs)]

pub mod account;
mod account_routes;
mod agents;
mod assets;
pub mod browser;
mod browser_routes;
pub mod browser_state;
pub mod bun;
pub mod capture;
mod capture_routes;
pub mod chat;
mod chat_routes;
mod consent;
mod content_type;
mod credentials;
mod desktop;
mod desktop_channel;
pub mod discovery;
mod door;
mod door_listener;
pub mod error;
mod events;
mod guard;
mod instance;
mod limits;
pub mod log;
mod mcp;
mod mcp_sessions;
mod pane_runs;
mod pane_tokens;
mod panes;
mod queues;
pub mod router;
/// The MCP door's JSON-RPC and MCP types, which `cowork mcp-browser` speaks too.
pub use mcp::wire as mcp_wire;
pub mod routines;
mod runs;
mod runtime_install;
mod session;
mod session_codes;
pub mod state;
mod status;
mod store_routes;
mod store_updates;
mod streams;
mod triggers;
mod web_apps;
pub mod web_download;
mod web_files;
mod workbench;

pub use instance::{
    configured_port, forget_port, start, StartError, StartOptions, Started, StopHandle,
    DEFAULT_PORT,
};
pub use router::app;
pub use state::AppState;
pub use status::key_mode;
