//! The workspace's task queues and skill journal, in one SQLite file: `.cowork/local/queues.db`.
//!
//! Work for agents and scripts: a sender adds a task to a named queue; a receiver takes the oldest
//! one addressed to it (or to anyone) with a receipt and a lease, and finishes it with `ack` or
//! gives it back with `nack`. Every process (the CLI, the daemon, a routine's engine) opens the
//! same file; SQLite's locking (WAL, `BEGIN IMMEDIATE`) makes each operation atomic across them,
//! and [`wake`]'s bell file wakes receivers waiting in other processes.
//!
//! ```no_run
//! use cowork_queue::{ReceiveOptions, SendOptions, Store, AckOptions};
//! let mut store = Store::open(std::path::Path::new("/path/to/workspace"))?;
//! store.send("inbox", "Summarise the meeting notes", &SendOptions::default())?;
//! if let Some(task) = store.receive("inbox", &ReceiveOptions::default())? {
//!     store.ack("inbox", task.task.id, &task.receipt, &AckOptions::default())?;
//! }
//! # Ok::<(), cowork_queue::QueueError>(())
//! ```
#![warn(missing_docs)]

pub mod authorizer;
mod call;
mod error;
mod files;
pub mod journal;
mod model;
mod pool;
pub mod schema;
mod store;
pub mod tables;
#[cfg(all(test, feature = "typescript"))]
mod typescript;
pub mod wake;
mod wal_frames;

pub use call::{Answer, Call, WidgetCall};
pub use error::{QueueError, Result};
pub use model::*;
pub use pool::{Pool, Pooled};
pub use store::{Store, ANYONE, OWNER, STORE};
