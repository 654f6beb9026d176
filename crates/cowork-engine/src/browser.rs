//! `ctx.browser`: a routine's browser actions, handed to the host that can reach the desktop
//! shell's browser (the daemon, `Engine::set_browser`). A routine run by the CLI, or by a daemon
//! with no desktop app attached, gets `Unsupported` by name; an app that did not declare
//! `"requires": ["desktop"]` is refused with `NotDeclared` before anything leaves the engine.

use cowork_core::error_name::{CtxError, ErrorName};
use cowork_wire::browser::{ActionResult, BrowserError, BrowserErrorName, Driver, Target};
use std::future::Future;
use std::pin::Pin;

/// One action of a routine, as the engine hands it to its host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserCall {
    /// The workspace whose audit log records the action (the routine's, the agent's).
    pub workspace: String,
    /// The routine's app, its workspace and its title (consent, the banner and the audit).
    pub driver: Driver,
    /// The page.
    pub target: Target,
    /// The action's budget, already capped by what is left of the run.
    pub timeout_ms: u64,
    /// The driver's session, for the banner's Stop: the run's id, the MCP server's session.
    pub session: Option<String>,
    /// The action.
    pub action: cowork_wire::browser::Action,
}

/// What a host answers, when it has.
pub type Pending = Pin<Box<dyn Future<Output = Result<ActionResult, BrowserError>> + Send>>;

/// The host that drives the desktop shell's browser.
pub trait BrowserHost: Send + Sync {
    /// Does `call` (asks consent first when it must), answering its result or a named error.
    fn drive(&self, call: BrowserCall) -> Pending;
}

/// No desktop app: every action is `Unsupported` (the CLI's engine, until a daemon sets its own).
pub struct NoDesktop;

impl BrowserHost for NoDesktop {
    fn drive(&self, _call: BrowserCall) -> Pending {
        Box::pin(async { Err(unsupported()) })
    }
}

/// `Unsupported`, saying what would make it work.
pub fn unsupported() -> BrowserError {
    BrowserError::new(
        BrowserErrorName::Unsupported,
        "failed to drive the browser: ctx.browser needs the Cowork Studio desktop app, and none is running here",
    )
    .with_hint("open the workspace in the desktop app (`cowork open`); a headless server or a browser tab has no browser to drive")
}

/// The refusal of an app that did not declare `"requires": ["desktop"]`.
pub fn not_declared(app: &str) -> CtxError {
    CtxError::new(
        ErrorName::NotDeclared,
        format!("failed to drive the browser: app \"{app}\" does not declare \"requires\": [\"desktop\"]"),
    )
    .with_hint("add \"requires\": [\"desktop\"] to its cowork.json: only desktop apps may use ctx.browser")
}

/// A browser error as the routine's `e.name` / `e.message` see it.
pub fn ctx_error(error: BrowserError) -> CtxError {
    let name = serde_json::from_value(serde_json::Value::String(error.name.as_str().into()))
        .unwrap_or(ErrorName::Unavailable);
    let mut ctx = CtxError::new(name, error.message);
    ctx.hint = error.hint;
    ctx
}
