//! The wire: every body two Cowork processes exchange, defined once in a crate both ends depend
//! on (style.md, "Wire types"). `hub` is what the team hub speaks — accounts, sessions, orgs,
//! groups, team servers, members, join requests, updates, run reports, the audit — and, behind the
//! `client` feature, `hub::client::HubClient`, its typed client. Nobody indexes a `Value` by string
//! to read an answer: a renamed field fails to compile, not at run time. `store` is what the
//! workbench asks the daemon about the store (Manage Workspace, Team Servers, Create, Academy).

pub mod chat;
pub mod hub;
pub mod store;
