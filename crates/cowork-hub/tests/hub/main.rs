//! The hub through its HTTP routes and `HubClient`, every store, membership and account test on
//! both back ends (SQLite + folder, Postgres + SeaweedFS): see `support::both`.

mod accounts;
mod browser;
mod replicas;
mod storage;
mod store;
mod store_trust;
mod support;
mod teams;
