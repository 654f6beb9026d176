//! This machine's Cowork account: signing in to a team hub, the session that renews itself, who
//! is signed in, and what follows from it — the team servers' updates poll and run reports.
//!
//! A hub (`cowork-hub`) holds accounts, organizations and team servers; this crate is its client
//! side on one machine, shared by the CLI (`cowork login`, `org`, `team-server` …), the daemon
//! (the poll, run reports, the workbench's sign-in) and, through the daemon, the engine
//! (`ctx.identity`, `ctx.auth`). It speaks to the hub only through `cowork-wire`'s typed
//! `HubClient`.
//!
//! - [`login`]: the four ways in — browser + PKCE to a loopback port, the device flow (RFC 8628),
//!   a pasted address, an email and a password.
//! - [`Session`]: who is signed in (`<root>/account.json`) and calls with a fresh access token;
//!   the tokens (a short-lived access token, a rotating refresh token) are in the secret store,
//!   renewed under a lock that the CLI and the daemon share.
//! - [`logout`]: the session revoked on the hub; `--forget` removes the account's local data.
//! - [`updates`]: the one cheap poll per machine, and the team servers it lists.
//! - [`reports`]: runs of apps installed from a team server, queued and sent to it.
//!
//! ```no_run
//! # async fn demo() -> Result<(), cowork_account::AccountError> {
//! use cowork_account::{login, Session};
//! let session = Session::new(&cowork_core::paths::Root::from_env());
//! let hub = session.hub(Some("http://127.0.0.1:8480"))?;
//! let signed_in = login::password(&session, &hub, "ana@example.com", "a long password").await?;
//! println!("signed in as {}", signed_in.user.email);
//! let servers = session.call(|hub| async move { hub.team_servers().await }).await?;
//! # Ok(()) }
//! ```

mod error;
pub mod files;
pub mod login;
pub mod logout;
pub mod reports;
mod session;
pub mod updates;

pub use error::{client_error_name, client_hint, hub_error_name, AccountError};
pub use files::{Method, SignedIn};
pub use logout::{logout, Forgotten, SignedOutReport};
pub use session::{normalize_hub, Session, HUB_ENV, TOKENS_NAME};
