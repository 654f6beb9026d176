//! The names a failure carries across every boundary — a routine's `ctx` answer, a widget's
//! rejected promise (`e.name`), the daemon's JSON error, the CLI's `--json` failure line, an audit
//! line's `error.name`. A caller branches on the name, never on the message, so the set is closed
//! and spelled once, here, in the lowest crate: every library error says its name as an
//! [`ErrorName`] (`QueueError::name`, `OAuthError::name` …), never as a string parsed back.
//!
//! A routine may still throw a name of its own (`throw ctx.error("RateLimited", …)`): that one is
//! carried as [`ErrorName::Other`] and passed through unchanged. Text becomes a name only where
//! it arrives from another process — deserializing — so a typo in Rust code is a compile error,
//! not a quiet `Other`.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! error_names {
    ($( $(#[doc = $doc:literal])+ $name:ident ),+ $(,)?) => {
        /// Every error name Cowork itself gives a failure (docs/reference/errors.md lists them
        /// with what each means). Serialized as the bare name, e.g. `"NotFound"`.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum ErrorName {
            $( $(#[doc = $doc])+ $name, )+
            /// A name a routine chose itself (`ctx.error("RateLimited", …)`), passed through.
            Other(String),
        }

        impl ErrorName {
            /// Every name Cowork defines, in declaration order (not [`ErrorName::Other`]).
            pub const ALL: &'static [ErrorName] = &[$( ErrorName::$name ),+];

            /// The name as it travels: `"NotFound"`.
            pub fn as_str(&self) -> &str {
                match self {
                    $( ErrorName::$name => stringify!($name), )+
                    ErrorName::Other(name) => name,
                }
            }

            /// The name for `text` as it arrived from another process: one of Cowork's, else
            /// [`ErrorName::Other`]. Private: code names a failure by its variant.
            fn from_wire(text: &str) -> ErrorName {
                match text {
                    $( stringify!($name) => ErrorName::$name, )+
                    other => ErrorName::Other(other.to_string()),
                }
            }
        }
    };
}

error_names! {
    /// No such routine, app, run, file or workspace: nothing ran.
    NotFound,
    /// The routine, or its app folder, is switched off (`workspace.json#disabled`).
    RoutineDisabled,
    /// A routine already in the calling chain was called again.
    RoutineCycle,
    /// Calls nest two deep; a third level is refused.
    RoutineDepth,
    /// Every concurrency slot is busy.
    TooManyRoutines,
    /// The caller may not do this (an app's `uses`, a token that is missing, wrong or revoked —
    /// HTTP 401 — or not the run's, a file or a statement a pane's `cowork.tables` or a routine's
    /// `ctx.db` may not reach).
    Forbidden,
    /// A package reached a secret or connection outside its grants.
    NotGranted,
    /// A capability's credential is not connected.
    NotConnected,
    /// A sign-in or notification asked from a window that is not on this computer.
    NotHere,
    /// The daemon is needed and does not answer (or the run has no long-lived engine).
    NoDaemon,
    /// A request that does not parse or misses a field; the message names the field.
    BadRequest,
    /// The run or call went past its time limit.
    Timeout,
    /// The person (or the system) said no.
    Denied,
    /// The manifest does not declare what is asked (`capture`).
    NotDeclared,
    /// Something of which one may run at a time already runs (one capture per workspace).
    Busy,
    /// Too little free space to go on.
    DiskFull,
    /// This place cannot do that (capture in a browser tab, a member web mode lacks).
    Unsupported,
    /// Browser automation (`ctx.browser`, `cowork mcp-browser`): the ref names no node of the page
    /// now (it navigated, or the node was removed); take a new snapshot.
    StaleRef,
    /// Browser automation: the page navigated away while the action ran; snapshot the new page.
    NavigatedAway,
    /// Browser automation: the tab (or site app window) was closed before or while the action ran.
    TabClosed,
    /// Browser automation: the node cannot take that action now (hidden, disabled, covered, or not
    /// the kind of element the action needs).
    NotActionable,
    /// Browser automation: the script `evaluate` ran threw in the page.
    ScriptError,
    /// The person stopped it: Stop on the banner of a window browser automation drives, or
    /// Ctrl-C on `cowork routine run` with no daemon (the run's processes are ended and its record
    /// kept).
    Stopped,
    /// The workspace holds the Cowork root (or lies inside it): its routines would reach the
    /// daemon token and the agents' logins, so none runs there.
    HoldsRoot,
    /// A store or service this needs cannot be reached now (the secret store's key).
    Unavailable,
    /// No JavaScript runtime could start the routine.
    NoRuntime,
    /// The routine's file does not transpile or breaks a routine rule.
    BadRoutine,
    /// The routine's process exited before it returned a result.
    RoutineCrashed,
    /// A `ctx.db` / `cowork.tables` statement failed in SQLite.
    SqliteError,
    /// A command a routine ran could not start.
    CommandFailed,
    /// A body or value over its size limit.
    TooLarge,
    /// The sign-in provider answered with an error.
    ProviderError,
    /// `<root>/oauth.json` does not parse, or names no such provider.
    BadConfig,
    /// A sign-in was not finished in the browser in time, or the hub took its connection and did
    /// not answer in time.
    TimedOut,
    /// The sign-in provider could not be reached.
    Unreachable,
    /// The person dismissed a question a widget asked (the trust prompt of a link, a sign-in).
    Cancelled,
    /// A task-queue receipt that no longer holds its task (the lease ran out, or it was finished).
    StaleReceipt,
    /// A task is not in the status the operation starts from (`approve` of a task to do).
    WrongStatus,
    /// The task store `.cowork/local/queues.db` is damaged or another program's: `cowork doctor`.
    StoreDamaged,
    /// A folder Cowork writes into inside the workspace (`.cowork`, `.cowork/local`,
    /// `.cowork/data`, `.claude`, `.claude/skills`) is a symlink: Cowork will not write through it.
    SymlinkedFolder,
    /// A view already has the most streams open at once (`cowork.stream.open`: two).
    TooManyStreams,
    /// A thrown value that was not an `Error` with a name.
    Error,
}

impl fmt::Display for ErrorName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Ok(ErrorName::from_wire(&text))
    }
}

/// One failure as it crosses a boundary: what a caller branches on (`name`), what a person reads
/// (`message`), and — where Cowork knows the fix — what to do (`hint`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(type = "WireError & { hint?: string }"))]
pub struct CtxError {
    /// What a caller branches on.
    pub name: ErrorName,
    /// What a person reads: what failed, quoting the input.
    pub message: String,
    /// What to do about it, where Cowork knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl CtxError {
    /// A failure without a hint.
    pub fn new(name: ErrorName, message: impl Into<String>) -> Self {
        CtxError { name, message: message.into(), hint: None }
    }

    /// `BadRequest` naming the field that was missing or wrong.
    pub fn bad_field(field: &str, expected: &str) -> Self {
        CtxError::new(ErrorName::BadRequest, format!("\"{field}\" must be {expected}"))
    }

    /// The same failure with the fix a person should try.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for CtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.message)
    }
}

impl std::error::Error for CtxError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_pass_through() {
        for name in ErrorName::ALL {
            let text = serde_json::to_string(name).unwrap();
            assert_eq!(text, format!("\"{}\"", name.as_str()));
            assert_eq!(&serde_json::from_str::<ErrorName>(&text).unwrap(), name);
        }
        let own: ErrorName = serde_json::from_str("\"RateLimited\"").unwrap();
        assert_eq!(own, ErrorName::Other("RateLimited".into()));
        assert_eq!(own.as_str(), "RateLimited");
    }
}
