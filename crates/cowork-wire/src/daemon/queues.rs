//! The task queues, the skill journal and the workspace tables behind the daemon: the
//! workbench's Tasks view (`POST /api/queues`, `GET /api/tables`, owner only) and a pane's
//! `cowork.queue` / `cowork.tables` (SDK methods `queue`, `tables.*`). The operation itself is
//! `cowork_queue::Call`, which this crate does not depend on (it brings SQLite): a request names
//! it as `C`, and an answer carries the store's result as JSON, whose types the workbench's
//! TypeScript takes from `cowork-queue` (`ui/src/workbench/wire/queue.ts`).

use super::{Answer, CtxError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// `POST /api/queues`: a workspace and one store operation (`C` is `cowork_queue::Call`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueuesCall<C> {
    /// The workspace whose store it is.
    pub workspace: PathBuf,
    /// The operation (`cowork_queue::Call`).
    pub call: C,
}

/// `POST /api/queues`' answer: the operation's result, or why it failed (a stale receipt, a task
/// in the wrong status…) — a failed operation is an answer, not an HTTP error.
pub type QueuesAnswer = Answer<Value, CtxError>;

/// `cowork.tables.schema/query/exec` from a pane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TablesParams {
    /// The database's name under `.cowork/data` (`<db>.db`).
    pub db: String,
    /// The statement (`schema` takes none).
    #[serde(default)]
    pub sql: String,
    /// The statement's `?` parameters, in order.
    #[serde(default)]
    pub params: Vec<Value>,
    /// At most this many rows in a page (`query`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// Where the previous page ended (`query`'s `next`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}
