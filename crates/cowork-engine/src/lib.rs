//! Runs a workspace's routines the way the reference describes: a fresh Bun (or Node) process per
//! run, `ctx` answered by the daemon over pipes, nesting two deep, concurrency slots, identical calls
//! in flight shared, a timeout that kills the whole process tree, and one audit line per run.
//!
//! ```no_run
//! # async fn demo() {
//! use cowork_engine::{Engine, EngineConfig, RunRequest, Source};
//! let engine = Engine::new(cowork_core::paths::Root::from_env(), EngineConfig::default());
//! let ws = engine.workspace(std::path::Path::new("examples/demo")).unwrap();
//! let outcome = ws.run(RunRequest::new("notes-list", serde_json::json!({}), Source::Cli)).await;
//! # }
//! ```

pub mod account;
mod admission;
pub mod confine;
pub mod consent;
pub mod credentials;
mod db;
mod engine;
mod event;
pub mod grants;
pub mod hub;
mod inflight;
mod masks;
mod modules;
mod process;
pub mod protocol;
mod request;
mod routine_credential;
mod run;
pub mod running;
pub mod runtime;
pub mod signin;
pub mod slots;
mod spares;
mod watch;
pub mod widgets;
mod workspace;

pub use account::{Account, FinishedRun, Identity, Organization, SignedOut, User};
pub use cowork_core::error_name::{CtxError, ErrorName};
pub use engine::{Engine, EngineConfig, EngineError, DEFAULT_SLOTS, LOCAL_ACCOUNT, MAX_DEPTH};
pub use event::Event;
pub use request::{
    run_answer, RunFailure, RunRequest, RunResult, RunSuccess, Source, NOTIFICATION_SOURCE,
};
pub use slots::SlotWait;
pub use spares::{SpareGroup, SparesView};
pub use workspace::Workspace;
