//! Runs a workspace's routines the way the reference describes: a fresh Bun (or Node) process per
//! run, `ctx` answered by the daemon over pipes, nesting two deep, concurrency slots, a widget's
//! identical calls in flight shared, a timeout that kills the whole process tree, and one audit
//! line per run.
//!
//! ```no_run
//! # async fn demo() {
//! use cowork_engine::{Engine, EngineConfig, RunRequest, Source};
//! let engine = Engine::new(cowork_core::paths::Root::from_env(), EngineConfig::default());
//! let ws = engine.workspace(std::path::Path::new("examples/demo")).unwrap();
//! let outcome = ws.run(RunRequest::new("notes-list", serde_json::json!({}), Source::Cli)).await;
//! # }
//! ```
#![warn(missing_docs)]

pub mod account;
mod admission;
pub mod browser;
pub mod confine;
pub mod consent;
pub mod credentials;
mod data_folder;
mod db;
mod engine;
mod event;
mod inflight;
mod launch;
mod masks;
mod modules;
pub mod notifications;
mod process;
pub mod protocol;
mod queue_module;
mod request;
mod routine_credential;
mod run;
pub mod running;
pub mod runtime;
pub mod secret_access;
mod shared;
pub mod signin;
pub mod slots;
mod spares;
pub mod terminal;
mod watch;
pub mod widgets;
mod workspace;

pub use account::{Account, FinishedRun, Identity, Organization, SignedOut, User};
pub use cowork_core::audit::{CallerSource, Source};
pub use cowork_core::error_name::{CtxError, ErrorName};
/// The account secrets belong to while nobody is signed in to Cowork.
pub use cowork_secrets::LOCAL_ACCOUNT;
pub use engine::{Engine, EngineConfig, EngineError, DEFAULT_SLOTS};
pub use event::Event;
pub use request::{run_answer, RunFailure, RunRequest, RunResult, RunSuccess, Stop, MAX_DEPTH};
pub use slots::SlotWait;
pub use spares::{SpareGroup, SparesView};
pub use workspace::Workspace;
