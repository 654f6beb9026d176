//! Browser automation through the daemon: a routine's `ctx.browser` (the engine hands it here,
//! [`DesktopBrowser`] is its `BrowserHost`) and an agent's `cowork mcp-browser` (`POST
//! /api/browser`) both become one [`ShellBrowserRequest`] down the desktop channel. The daemon
//! decides who may drive which site (asking the person through the shell, remembering the
//! answers in `<root>/browser-consent.json`), and writes one audit line per action — its site and
//! its name, never typed text, a field's value or a script.

use crate::browser_state::Consents;
use crate::desktop_channel::DesktopChannel;
use cowork_core::audit::{AuditLog, Context, Record, RecordedError, Source, Status};
use cowork_core::paths::Root;
use cowork_engine::browser::{BrowserCall, BrowserHost, Pending};
use cowork_engine::{Account, ErrorName};
use cowork_wire::browser::{
    site_of, Action, ActionResult, BrowserError, BrowserErrorName, ConsentQuestion, Driver,
    ShellBrowserRequest, ShellOutcome,
};
use cowork_wire::daemon::desktop::ShellRequest;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a consent question waits for the person.
const DIALOG_WAIT: Duration = Duration::from_secs(300);
/// How much longer than an action's own budget the daemon waits for the shell's answer.
const SHELL_GRACE: Duration = Duration::from_secs(5);
/// How many times an action is sent again after the person allowed a new site it was on.
const CONSENT_ROUNDS: usize = 3;

/// What the engine is handed (`Engine::set_browser`): the daemon's desktop channel.
pub struct DesktopBrowser {
    /// The channel (and its browser's waiting answers).
    pub desktop: Arc<DesktopChannel>,
    /// The Cowork root: the consent file, each workspace's audit log.
    pub root: Root,
    /// The signed-in account, as audit lines name it.
    pub account: Arc<dyn Account>,
}

impl BrowserHost for DesktopBrowser {
    fn drive(&self, call: BrowserCall) -> Pending {
        let (desktop, root, account) =
            (self.desktop.clone(), self.root.clone(), self.account.clone());
        Box::pin(async move { drive(&desktop, &root, account.as_ref(), call).await })
    }
}

/// `Unsupported` when no desktop app is attached, saying how to start it.
fn no_shell() -> BrowserError {
    BrowserError::new(
        BrowserErrorName::Unsupported,
        "failed to drive the browser: the Cowork Studio desktop app is not running",
    )
    .with_hint("start it (`cowork open`, or the Cowork Studio icon) and try again; a headless server has no browser to drive")
}

/// One action, start to end: consent, the shell, the audit line.
pub async fn drive(
    desktop: &DesktopChannel,
    root: &Root,
    account: &dyn Account,
    call: BrowserCall,
) -> Result<ActionResult, BrowserError> {
    let started = time::OffsetDateTime::now_utc();
    let clock = Instant::now();
    let mut site = call.action.destination().and_then(site_of);
    let consents = desktop.browser.consents(root.dir());
    let outcome = act(desktop, &consents, &call, &mut site).await;
    audit(root, account, &call, site.as_deref(), started, clock.elapsed(), &outcome);
    outcome
}

async fn act(
    desktop: &DesktopChannel,
    consents: &Consents,
    call: &BrowserCall,
    site: &mut Option<String>,
) -> Result<ActionResult, BrowserError> {
    if let (Some(index), Some(app)) = (call.target.tab_index, &call.target.app) {
        return Err(BrowserError::new(
            BrowserErrorName::BadRequest,
            format!(
                "failed to {}: both tab {index} and site app \"{app}\" were named",
                call.action.name()
            ),
        )
        .with_hint("name one page: { tabIndex } or { app }"));
    }
    if !desktop.attached() {
        return Err(no_shell());
    }
    if let Some(url) = call.action.destination() {
        check_address(url)?;
    }
    let first = consents.sites(&call.driver).is_none();
    // Open(url) and navigate go to a site before anything is sent: ask for it first.
    if first || site.as_ref().is_some_and(|s| !has(consents, &call.driver, s)) {
        ask(desktop, consents, &call.driver, site.as_deref(), first).await?;
    }
    for _ in 0..CONSENT_ROUNDS {
        let sites = consents.sites(&call.driver).unwrap_or_default();
        match send(desktop, call, sites).await? {
            ShellOutcome::Done { result } => {
                if site.is_none() {
                    *site = result.tab().and_then(|tab| site_of(&tab.url));
                }
                return Ok(result);
            }
            ShellOutcome::Failed { error } => {
                if site.is_none() {
                    *site = error.url.as_deref().and_then(site_of);
                }
                return Err(error);
            }
            ShellOutcome::ConsentNeeded { site: needed, .. } => {
                *site = Some(needed.clone());
                ask(desktop, consents, &call.driver, Some(&needed), false).await?;
            }
            ShellOutcome::Consent { .. } => {
                return Err(BrowserError::new(
                    BrowserErrorName::Unavailable,
                    "failed to drive the browser: the desktop app answered an action with a consent answer",
                ))
            }
        }
    }
    Err(BrowserError::new(
        BrowserErrorName::Denied,
        format!("failed to {}: the page kept moving to sites not allowed yet", call.action.name()),
    ))
}

fn has(consents: &Consents, driver: &Driver, site: &str) -> bool {
    consents.sites(driver).is_some_and(|sites| sites.iter().any(|s| s == site))
}

/// Only http and https pages are driven.
fn check_address(url: &str) -> Result<(), BrowserError> {
    if site_of(url).is_some() {
        return Ok(());
    }
    Err(BrowserError::new(
        BrowserErrorName::BadRequest,
        format!("failed to open \"{url}\": only http and https addresses can be opened"),
    )
    .with_hint("give a full address, e.g. https://example.com/"))
}

fn new_id(prefix: &str) -> String {
    format!("{prefix}{}", hex::encode(rand::random::<[u8; 8]>()))
}

/// Sends one action down the channel and waits for the shell's answer, up to its budget (and a
/// little more, for the answer to travel).
async fn send(
    desktop: &DesktopChannel,
    call: &BrowserCall,
    sites: Vec<String>,
) -> Result<ShellOutcome, BrowserError> {
    let id = new_id("b");
    let answer = desktop.browser.waiting.expect(&id);
    let request = ShellBrowserRequest {
        id: id.clone(),
        driver: call.driver.clone(),
        sites,
        target: call.target.clone(),
        timeout_ms: call.timeout_ms,
        session: call.session.clone(),
        action: call.action.clone(),
    };
    if !desktop.send(ShellRequest::Browser(request)) {
        desktop.browser.waiting.forget(&id);
        return Err(no_shell());
    }
    let budget = Duration::from_millis(call.timeout_ms) + SHELL_GRACE;
    let outcome = tokio::time::timeout(budget, answer).await;
    desktop.browser.waiting.forget(&id);
    match outcome {
        Ok(Ok(outcome)) => Ok(outcome),
        Ok(Err(_)) => Err(BrowserError::new(
            BrowserErrorName::Unavailable,
            format!(
                "failed to {}: the desktop app went away before it answered",
                call.action.name()
            ),
        )),
        Err(_) => Err(BrowserError::new(
            BrowserErrorName::Timeout,
            format!("failed to {}: no answer within {} ms", call.action.name(), call.timeout_ms),
        )
        .with_hint(
            "give it a longer budget ({ timeoutMs }), or check the page loads in the desktop app",
        )),
    }
}

/// Asks the person, through the shell's dialog, whether `driver` may drive the browser (on
/// `site`); remembers a yes, and answers `Denied` on a no or no answer.
async fn ask(
    desktop: &DesktopChannel,
    consents: &Consents,
    driver: &Driver,
    site: Option<&str>,
    first: bool,
) -> Result<(), BrowserError> {
    let id = new_id("q");
    let answer = desktop.browser.waiting.expect(&id);
    let question = ConsentQuestion {
        id: id.clone(),
        driver: driver.clone(),
        site: site.map(Into::into),
        first,
    };
    if !desktop.send(ShellRequest::BrowserConsent(question)) {
        desktop.browser.waiting.forget(&id);
        return Err(no_shell());
    }
    let outcome = tokio::time::timeout(DIALOG_WAIT, answer).await;
    desktop.browser.waiting.forget(&id);
    let on = site.map(|site| format!(" on {site}")).unwrap_or_default();
    match outcome {
        Ok(Ok(ShellOutcome::Consent { allowed: true })) => {
            consents.allow(driver, site).map_err(|error| {
                BrowserError::new(
                    BrowserErrorName::Unavailable,
                    format!("failed to remember the browser consent: {error}"),
                )
            })
        }
        Ok(Ok(ShellOutcome::Consent { allowed: false })) => Err(BrowserError::new(
            BrowserErrorName::Denied,
            format!("{} may not drive the browser{on}: the person said no", driver.label()),
        )
        .with_hint("the person is asked again at the next action")),
        Ok(_) => Err(BrowserError::new(
            BrowserErrorName::Unavailable,
            "failed to ask for browser consent: the desktop app went away before it answered",
        )),
        Err(_) => Err(BrowserError::new(
            BrowserErrorName::Denied,
            format!(
                "nobody answered whether {} may drive the browser{on} in 5 minutes",
                driver.label()
            ),
        )
        .with_hint(format!(
            "where nobody is at the desktop app, approve it ahead of time: {}",
            allow_command(driver, site)
        ))),
    }
}

/// The line that approves `driver` for `site` ahead of time (`cowork consent allow <site>
/// --browser …`), quoted for a POSIX shell.
fn allow_command(driver: &Driver, site: Option<&str>) -> String {
    use cowork_core::shell::quote;
    let site = site.map_or("<site>".to_string(), quote);
    match driver {
        Driver::App { workspace, app, .. } => format!(
            "cowork consent allow {site} --browser --app {} --workspace {}",
            quote(app),
            quote(workspace)
        ),
        Driver::Agent { name } => {
            format!("cowork consent allow {site} --browser --agent {}", quote(name))
        }
    }
}

/// What the audit line records of an action: where it acted, never what it typed, filled or ran.
fn audit_input(call: &BrowserCall, site: Option<&str>) -> serde_json::Value {
    let mut input = serde_json::Map::new();
    if let Some(site) = site {
        input.insert("site".into(), site.into());
    }
    if let Some(index) = call.target.tab_index {
        input.insert("tabIndex".into(), index.into());
    }
    if let Some(app) = &call.target.app {
        input.insert("siteApp".into(), app.as_str().into());
    }
    let node = match &call.action {
        Action::Click { node, .. }
        | Action::Fill { node, .. }
        | Action::Select { node, .. }
        | Action::Check { node, .. } => Some(node),
        Action::Type { node, .. }
        | Action::Press { node, .. }
        | Action::Snapshot { node, .. }
        | Action::Read { node, .. }
        | Action::Screenshot { node, .. } => node.as_ref(),
        _ => None,
    };
    if let Some(node) = node {
        input.insert("ref".into(), node.as_str().into());
    }
    // A key is not typed text; `Control+a` says what happened.
    if let Action::Press { key, .. } = &call.action {
        input.insert("key".into(), key.as_str().into());
    }
    serde_json::Value::Object(input)
}

/// One audit line in the driver's workspace: `cowork.browser.<action>`, the site, `source` `app`
/// (a routine's app) or `cli` with the agent's name (`cowork mcp-browser`).
fn audit(
    root: &Root,
    account: &dyn Account,
    call: &BrowserCall,
    site: Option<&str>,
    started: time::OffsetDateTime,
    took: Duration,
    outcome: &Result<ActionResult, BrowserError>,
) {
    let (source, agent, app) = match &call.driver {
        Driver::App { app, .. } => (Source::App, None, Some(app.clone())),
        Driver::Agent { name } => (Source::Cli, Some(name.clone()), None),
    };
    let workspace = &call.workspace;
    let identity = account.identity();
    let (status, error) = match outcome {
        Ok(_) => (Status::Ok, None),
        Err(error) => {
            let status =
                if error.name == BrowserErrorName::Denied { Status::Denied } else { Status::Error };
            let name = serde_json::from_value(error.name.as_str().into())
                .unwrap_or(ErrorName::Unavailable);
            (status, Some(RecordedError { name, message: error.message.clone() }))
        }
    };
    let record = Record {
        ts: cowork_core::audit::format_ts(started),
        capability: format!("cowork.browser.{}", call.action.name()),
        input: audit_input(call, site),
        status,
        duration_ms: took.as_millis() as u64,
        queued_ms: None,
        context: Context {
            run_id: new_id("browser-"),
            user_id: identity.user.as_ref().map(|user| user.uid.clone()),
            organization_id: identity.organization.as_ref().map(|org| org.id.clone()),
            device_id: root.device_id(),
            workspace: workspace.clone(),
            source,
            principal: None,
            agent,
            task_id: None,
            app_id: app,
            app_version: None,
            kind: None,
            caller: None,
        },
        error,
        result: None,
        log: None,
        unchanged: false,
        repeated: None,
    };
    let log = AuditLog::new(root.audit_dir(Path::new(workspace)));
    if let Err(error) = log.append(&record) {
        tracing::warn!("failed to write the browser action's audit line in {workspace}: {error}");
    }
}
