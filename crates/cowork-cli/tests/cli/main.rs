//! Integration tests of the real `cowork` binary: routines on Bun and Node, the daemon, the CLI's
//! listings and its error output.

mod accounts;
mod agents;
mod browser;
mod component;
mod consent;
mod context;
mod daemon;
mod demo;
mod desktop;
mod executions;
mod hub;
/// A real team hub in the test process, and a browser for its pages.
mod hub_support;
mod install;
mod listings;
/// cowork-core's manifest corpus, read case by case.
#[path = "../../../cowork-core/tests/fixtures/manifest_case.rs"]
mod manifest_case;
mod manifests;
/// cowork-oauth's harness: a local OpenID provider and a scripted browser.
#[allow(dead_code)]
#[path = "../../../cowork-oauth/tests/sign_in/support.rs"]
mod oauth_support;
mod publish;
mod queues;
mod routines;
mod runtime;
mod secrets;
mod security;
mod signin;
mod sites;
mod soak;
mod store;
mod store_auto;
mod store_bench;
mod store_soak;
mod support;
mod team_servers;
mod triggers;
mod workbench;
