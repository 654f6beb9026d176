//! The wire: every body two Cowork processes exchange, defined once in a crate both ends depend
//! on (style.md, "Wire types"). `daemon` is what the local daemon speaks — to the CLI, the desktop
//! shell, the workbench page and widget panes — with its event stream; `hub` is what the team hub
//! speaks — accounts, sessions, orgs, groups, team servers, members, join requests, updates, run
//! reports, the audit; `chat` and `store` are the daemon's Chat routes (the workbench's right side
//! bar) and store routes (Manage Workspace, Team Servers, Create, Academy); `browser` is browser
//! automation (`ctx.browser`, `cowork mcp-browser`, the shell's engine). Behind the `client`
//! feature each has its typed client (`daemon::client::Daemon`, `hub::client::HubClient`), and
//! behind `typescript` the workbench's TypeScript is generated from the same types. Nobody indexes a `Value` by string to read an
//! answer: a renamed field fails to compile, not at run time.

#![warn(missing_docs)]

pub mod browser;
pub mod chat;
pub mod daemon;
pub mod hub;
pub mod store;
pub mod streams;
#[cfg(feature = "typescript")]
pub mod typescript_file;
