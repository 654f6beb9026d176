//! What the daemon (`cowork-daemon`) speaks on its loopback API: every request body, answer and
//! event of the owner's routes, the desktop shell's channel and the panes' SDK, and (behind the
//! `client` feature) [`client::Daemon`], one typed method per route the CLI and the desktop shell
//! call. The daemon serializes these types, its clients deserialize the same ones, and the
//! workbench's TypeScript is generated from them (feature `typescript`,
//! `ui/src/workbench/wire/`): a renamed field fails to compile on both ends, not at run time.
//!
//! Conventions: JSON bodies are camelCase. Every refusal is an HTTP error status with an
//! [`ErrorBody`] (`{ "error": { "name", "message", "hint"? } }`) whose [`ErrorName`] a caller
//! branches on. An operation that ran and failed — a routine, a footer routine, an SDK call, a
//! task-store call — is not a refusal: it answers 200 with `ok: false` and the error beside it
//! ([`Answer`], [`runs::RunAnswer`]), so a caller tells "the daemon refused" from "it ran and
//! failed" by the status alone.
//!
//! Modules by concern: [`status`] (health, status, stop), [`runs`] (running a routine, the runs
//! lists), [`events`] (the event stream), [`notifications`], [`workbench`] (the workbench page's
//! routes), [`panes`] (widget panes and their SDK), [`desktop`] (the desktop shell's channel),
//! [`capture`], [`consent`], [`agents`], [`triggers`] (Manage › Workflows), [`queues`], [`session`],
//! [`runtime`], [`account`].

pub mod account;
pub mod agents;
pub mod capture;
#[cfg(feature = "client")]
pub mod client;
pub mod consent;
pub mod desktop;
pub mod events;
pub mod notifications;
pub mod panes;
pub mod queues;
pub mod runs;
pub mod runtime;
pub mod session;
pub mod status;
pub mod triggers;
#[cfg(all(test, feature = "typescript"))]
mod typescript;
pub mod workbench;

pub use cowork_core::error_name::{CtxError, ErrorName};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The port a daemon listens on unless it remembered another (`<root>/config.json`).
pub const DEFAULT_PORT: u16 = 47913;

/// The header a workbench page names its session in: the pane tokens it opened end with it.
pub const SESSION_HEADER: &str = "x-cowork-session";

/// The body of every error answer: `{ "error": { "name", "message", "hint"? } }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ErrorBody {
    /// The error's name, what failed and, when there is one, a hint.
    #[cfg_attr(feature = "typescript", ts(type = "WireError & { hint?: string }"))]
    pub error: CtxError,
}

/// `true` or `false` on the wire, and only that one: the `ok` of an answer, which tells its two
/// shapes apart (a routine that failed is an answer, HTTP 200, not an HTTP error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flag<const B: bool>;

impl<const B: bool> Serialize for Flag<B> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bool(B)
    }
}

impl<'de, const B: bool> Deserialize<'de> for Flag<B> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if bool::deserialize(deserializer)? == B {
            Ok(Flag)
        } else {
            Err(serde::de::Error::custom(format_args!("expected ok: {B}")))
        }
    }
}

/// An operation's outcome as an answer: `{ok: true, result}` or `{ok: false, error}` — an
/// operation that failed is an answer (HTTP 200) its caller's promise rejects with, not an HTTP
/// error. What a pane's SDK call ([`panes::SdkAnswer`]) and the task store (`POST /api/queues`,
/// [`queues::QueuesAnswer`]) answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
// `Outcome` in TypeScript: the workbench's `Answer` is core's (an agent's grant).
#[cfg_attr(feature = "typescript", ts(rename = "Outcome"))]
#[serde(untagged)]
pub enum Answer<T, E> {
    /// The operation succeeded: `{ok: true, result}`.
    Done {
        /// Always `true`.
        #[cfg_attr(feature = "typescript", ts(type = "true"))]
        ok: Flag<true>,
        /// What the operation returned.
        result: T,
    },
    /// The operation failed: `{ok: false, error}`, which the caller's promise rejects with.
    Failed {
        /// Always `false`.
        #[cfg_attr(feature = "typescript", ts(type = "false"))]
        ok: Flag<false>,
        /// The named error that says why.
        error: E,
    },
}

impl<T, E> From<Result<T, E>> for Answer<T, E> {
    fn from(outcome: Result<T, E>) -> Self {
        match outcome {
            Ok(result) => Answer::Done { ok: Flag, result },
            Err(error) => Answer::Failed { ok: Flag, error },
        }
    }
}

impl<T, E> Answer<T, E> {
    /// The outcome as a `Result`.
    pub fn into_result(self) -> Result<T, E> {
        match self {
            Answer::Done { result, .. } => Ok(result),
            Answer::Failed { error, .. } => Err(error),
        }
    }
}

/// Whether a write (to `workspace.json`, an agent's login, the door) changed anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Changed {
    /// `false` when the thing already was as asked.
    pub changed: bool,
}

/// An answer with nothing in it: `{}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Empty {}

/// An answer that only says it was taken: `{ "ok": true }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Taken {
    /// Always `true`.
    pub ok: Flag<true>,
}

/// `?workspace=`: the workspace a route is about. Optional where the daemon has a default
/// workspace (`cowork app serve <folder>`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceQuery {
    /// The workspace folder; none = the daemon's default workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<std::path::PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_reads_back_as_the_outcome_it_was() {
        let done: Answer<u32, CtxError> = Ok(7).into();
        let text = serde_json::to_string(&done).unwrap();
        assert_eq!(text, r#"{"ok":true,"result":7}"#);
        assert_eq!(
            serde_json::from_str::<Answer<u32, CtxError>>(&text).unwrap().into_result(),
            Ok(7)
        );
        let failed: Answer<u32, CtxError> =
            Err(CtxError::new(ErrorName::NotFound, "no task 3")).into();
        let text = serde_json::to_string(&failed).unwrap();
        assert_eq!(text, r#"{"ok":false,"error":{"name":"NotFound","message":"no task 3"}}"#);
        let back = serde_json::from_str::<Answer<u32, CtxError>>(&text).unwrap().into_result();
        assert_eq!(back.unwrap_err().name, ErrorName::NotFound);
    }

    #[test]
    fn a_flag_takes_only_its_own_value() {
        assert!(serde_json::from_str::<Flag<true>>("true").is_ok());
        assert!(serde_json::from_str::<Flag<true>>("false").is_err());
        // `{ok: true, error}` is neither shape: a result needs `ok: true`, an error `ok: false`.
        let odd = r#"{"ok":true,"error":{"name":"NotFound","message":"x"}}"#;
        assert!(serde_json::from_str::<Answer<u32, CtxError>>(odd).is_err());
    }
}
