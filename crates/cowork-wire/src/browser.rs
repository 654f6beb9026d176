//! Browser automation as the processes speak it: what a routine (`ctx.browser.*`) or an agent
//! (`cowork mcp-browser`) asks the desktop app's browser to do, what the shell answers, and the
//! named errors — defined once for the engine, the daemon, the CLI and the shell (`src-tauri`).
//!
//! The path of one action:
//!
//! ```text
//! routine ── ctx.browser.click(ref) ── op "browser" {target, timeoutMs, action} ──▶ engine ──▶ daemon
//! agent ── tools/call click ── cowork mcp-browser ── POST /api/browser [`DriveRequest`] ──▶ daemon
//!   daemon: who drives ([`Driver`]), may it (consent, per driver and site), one audit line each
//!   ── desktop channel: ShellRequest "browser" [`ShellBrowserRequest`] ──▶ shell: acts on the page
//!   ◀── POST /api/desktop/browser/answer [`ShellAnswer`]: [`ActionResult`], [`BrowserError`],
//!       or [`ShellOutcome::ConsentNeeded`] (the page is on a site this driver was not allowed)
//! ```
//!
//! Consent is the daemon's decision: it sends the sites a driver may act on with every request
//! ([`ShellBrowserRequest::sites`]); the shell checks the page it is about to act on against them
//! and, when its site is not there, answers [`ShellOutcome::ConsentNeeded`] without acting. The
//! daemon then asks the person through the shell ([`ConsentQuestion`], Cowork's own dialog: who,
//! which site), remembers a yes, and sends the action again.
//!
//! Conventions: JSON is camelCase; an action is tagged by `"action"` (its name as `ctx.browser`
//! spells it); a ref is the opaque string a snapshot or `find` gave (`"e12"`), valid while the
//! page that gave it lives. Behind the `typescript` feature the same types are generated into
//! `ui/src/workbench/wire/browser.ts` (the test at the end of this file).

use cowork_core::browser_consent;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How long an action may take when the caller names no timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// The longest timeout a caller may ask for (a `waitFor` on a slow page).
pub const MAX_TIMEOUT_MS: u64 = 300_000;

// ---------------------------------------------------------------------------------------------
// Errors

/// What went wrong in the browser, as a name a caller branches on (`e.name` in a routine, the MCP
/// tool result's error). The engine's `ErrorName` has each of these.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug, Hash)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum BrowserErrorName {
    /// The ref names no node of the page now: its page is gone (a navigation, a reload) or the
    /// node was removed. Take a new snapshot (or `find`) and use its refs.
    StaleRef,
    /// The page navigated away while the action ran (a click that submitted, a redirect): the
    /// action may or may not have taken effect. Snapshot the new page.
    NavigatedAway,
    /// The tab (or site app window) was closed before or while the action ran.
    TabClosed,
    /// The action, or the condition a `waitFor` waits for, took longer than its timeout.
    Timeout,
    /// No tab at that index, no open site app by that name, no option by that value.
    NotFound,
    /// The node cannot take that action now: hidden, disabled, covered, or not the kind of
    /// element the action needs (`fill` on a button, `select` on a text field).
    NotActionable,
    /// The script `evaluate` ran threw in the page; the message is the page's error.
    ScriptError,
    /// The person said no to the consent question, or nobody answered it in time.
    Denied,
    /// The person pressed Stop on the banner of the driven window.
    Stopped,
    /// No desktop app to drive: a headless server, `cowork app serve` in a browser, or the desktop
    /// app is not running (the hint says how to start it).
    Unsupported,
    /// The request does not parse or a value is out of range; the message names it.
    BadRequest,
    /// An answer over its size limit (a screenshot, an `evaluate` value).
    TooLarge,
    /// The shell failed in a way it cannot name more precisely; details are in its log.
    Unavailable,
    /// A name this version does not know (a newer shell).
    #[serde(other)]
    Unknown,
}

impl BrowserErrorName {
    /// The name as it travels.
    pub fn as_str(self) -> &'static str {
        match self {
            BrowserErrorName::StaleRef => "StaleRef",
            BrowserErrorName::NavigatedAway => "NavigatedAway",
            BrowserErrorName::TabClosed => "TabClosed",
            BrowserErrorName::Timeout => "Timeout",
            BrowserErrorName::NotFound => "NotFound",
            BrowserErrorName::NotActionable => "NotActionable",
            BrowserErrorName::ScriptError => "ScriptError",
            BrowserErrorName::Denied => "Denied",
            BrowserErrorName::Stopped => "Stopped",
            BrowserErrorName::Unsupported => "Unsupported",
            BrowserErrorName::BadRequest => "BadRequest",
            BrowserErrorName::TooLarge => "TooLarge",
            BrowserErrorName::Unavailable => "Unavailable",
            BrowserErrorName::Unknown => "Unknown",
        }
    }
}

impl std::fmt::Display for BrowserErrorName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One failed action: its name, a message for the person (what failed, quoting the input), what
/// to do about it, and the page it was on when the shell knows it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields))]
pub struct BrowserError {
    /// The name a caller branches on.
    pub name: BrowserErrorName,
    /// What failed, in words, quoting the input (`no node e12 on http://…/login`).
    pub message: String,
    /// What to do about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The address of the page the action was on, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl BrowserError {
    /// An error by name, with its message.
    pub fn new(name: BrowserErrorName, message: impl Into<String>) -> Self {
        BrowserError { name, message: message.into(), hint: None, url: None }
    }

    /// The same error with what to do about it.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The same error naming the page it happened on.
    pub fn with_url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }
}

impl std::fmt::Display for BrowserError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.name, self.message)
    }
}

impl std::error::Error for BrowserError {}

// ---------------------------------------------------------------------------------------------
// Who, and which tab

/// Who drives the browser: an app's routine, or an agent through `cowork mcp-browser`. The
/// consent question, the banner and the audit line name it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug, Hash)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Driver {
    /// A routine of `app` in `workspace` (the workspace's canonical path).
    #[serde(rename_all = "camelCase")]
    App {
        /// The workspace's canonical path.
        workspace: String,
        /// The app's name (its folder under `.cowork/apps/`).
        app: String,
        /// The app's title, as the dialog and the banner show it.
        title: String,
    },
    /// An agent (`cowork mcp-browser --agent <name>`; `agent` when it gives none).
    Agent {
        /// The agent's name, as the dialog and the banner show it.
        name: String,
    },
}

impl Driver {
    /// The driver's key, as the consent file spells it (`cowork_core::browser_consent`): what the
    /// daemon's consent and the shell's Stop both know a driver by.
    pub fn key(&self) -> String {
        match self {
            Driver::App { workspace, app, .. } => browser_consent::app_key(workspace, app),
            Driver::Agent { name } => browser_consent::agent_key(name),
        }
    }

    /// How the person reads it: `Notes (app)`, `claude-code (agent)`.
    pub fn label(&self) -> String {
        match self {
            Driver::App { title, .. } => format!("{title} (app)"),
            Driver::Agent { name } => format!("{name} (agent)"),
        }
    }
}

/// Which page an action is for: a tab of the browser by its index (`tabs()`), a site app's window
/// by the app's name (in the driver's workspace), or — neither given — the browser's last-active
/// tab. Giving both is a `BadRequest`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug, Default)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields))]
pub struct Target {
    /// A tab of the browser, by its index in `tabs()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_index: Option<u32>,
    /// A site app's name (`.cowork/apps/<name>/`): its own window and signed-in session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Actions

/// One thing to do in the browser, tagged by `"action"`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(tag = "action", rename_all = "camelCase", rename_all_fields = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Action {
    /// `open(url)`: a new tab on `url`, made the active one. `open()` (no url): show the browser
    /// window, on its last-active tab (a new empty one when it has none). Answers [`Page`].
    Open {
        /// The address to open (http or https); none shows the browser.
        #[cfg_attr(feature = "typescript", ts(optional))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// The target page goes to `url` (http or https). Answers [`Page`] once it has loaded.
    Navigate {
        /// The address (http or https).
        url: String,
    },
    /// The page's accessibility snapshot ([`Snapshot`]), or one node's subtree (`ref`), from
    /// `cursor` (a page of a long snapshot) on.
    Snapshot {
        /// Only this node's subtree.
        #[cfg_attr(feature = "typescript", ts(optional))]
        #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
        node: Option<String>,
        /// Where the previous part ended ([`Snapshot::cursor`]).
        #[cfg_attr(feature = "typescript", ts(optional))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cursor: Option<String>,
    },
    /// The nodes matching a role and/or an accessible name, or a text ([`Found`]). Matching is
    /// case-insensitive on a substring unless `exact`. At least one of role, name, text.
    Find {
        /// An ARIA role (`button`, `textbox`, `link`, `row` …).
        #[cfg_attr(feature = "typescript", ts(optional))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<String>,
        /// The accessible name.
        #[cfg_attr(feature = "typescript", ts(optional))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// Text the node shows.
        #[cfg_attr(feature = "typescript", ts(optional))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Whole, case-sensitive matches only.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        exact: bool,
    },
    /// A click at the node's centre after scrolling it into view, as a person's. Answers [`Page`].
    Click {
        /// The node.
        #[serde(rename = "ref")]
        node: String,
        /// The button (left when not given).
        #[serde(default, skip_serializing_if = "is_left")]
        button: MouseButton,
        /// A double click.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        double: bool,
    },
    /// Replaces a text field's (or contenteditable's) value with `value`. Answers [`Page`].
    Fill {
        /// The field.
        #[serde(rename = "ref")]
        node: String,
        /// Its new value (never written to the audit log).
        value: String,
    },
    /// Types `text` key by key with real key events, into the node (focused first) or, with no
    /// ref, wherever the focus is; `submit` presses Enter after. Answers [`Page`].
    Type {
        /// The node to type into; none = the focused one.
        #[cfg_attr(feature = "typescript", ts(optional))]
        #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
        node: Option<String>,
        /// What to type (never written to the audit log).
        text: String,
        /// Press Enter after.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        submit: bool,
    },
    /// Presses a key or a chord (`"Enter"`, `"Tab"`, `"Control+a"`, `"Shift+ArrowDown"`: the
    /// `KeyboardEvent.key` names joined by `+`), on the node (focused first) or the focus.
    Press {
        /// The node to focus first; none = the focused one.
        #[cfg_attr(feature = "typescript", ts(optional))]
        #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
        node: Option<String>,
        /// The key or chord.
        key: String,
    },
    /// Selects the options of a `<select>` (by value, else by label): exactly these, in a
    /// multiple select. Answers [`Page`].
    Select {
        /// The `<select>`.
        #[serde(rename = "ref")]
        node: String,
        /// The options' values (or labels).
        values: Vec<String>,
    },
    /// Checks (or unchecks) a checkbox, radio button or switch, clicking it only when its state
    /// differs. Answers [`Page`].
    Check {
        /// The checkbox, radio button or switch.
        #[serde(rename = "ref")]
        node: String,
        /// The state it should end in.
        checked: bool,
    },
    /// Waits until `condition` holds, up to the request's timeout (then `Timeout`). Answers
    /// [`Page`].
    WaitFor {
        /// What to wait for.
        condition: WaitCondition,
    },
    /// The page's main text as markdown (headings, lists, links, tables), or one node's ([`Read`]).
    Read {
        /// Only this node's text.
        #[cfg_attr(feature = "typescript", ts(optional))]
        #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
        node: Option<String>,
        /// Where the previous part ended ([`Read::cursor`]).
        #[cfg_attr(feature = "typescript", ts(optional))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cursor: Option<String>,
    },
    /// A PNG of the page's viewport, the whole page (`fullPage`), or one node's box
    /// ([`Screenshot`]).
    Screenshot {
        /// Only this node's box.
        #[cfg_attr(feature = "typescript", ts(optional))]
        #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
        node: Option<String>,
        /// The whole page, not only the viewport.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        full_page: bool,
    },
    /// The browser's tabs and the open site app windows ([`Tabs`]).
    Tabs {},
    /// Closes the target tab (never a site app's window). Answers [`Tabs`].
    Close {},
    /// Runs `js` in the page's own world (its session, its globals): an expression, or a function
    /// (`() => …`) which is called; a Promise is awaited. Answers the value as JSON
    /// ([`Evaluated`]).
    Evaluate {
        /// The script (never written to the audit log).
        js: String,
    },
}

impl Action {
    /// The action's name as `ctx.browser` and the audit log spell it (`waitFor`).
    pub fn name(&self) -> &'static str {
        match self {
            Action::Open { .. } => "open",
            Action::Navigate { .. } => "navigate",
            Action::Snapshot { .. } => "snapshot",
            Action::Find { .. } => "find",
            Action::Click { .. } => "click",
            Action::Fill { .. } => "fill",
            Action::Type { .. } => "type",
            Action::Press { .. } => "press",
            Action::Select { .. } => "select",
            Action::Check { .. } => "check",
            Action::WaitFor { .. } => "waitFor",
            Action::Read { .. } => "read",
            Action::Screenshot { .. } => "screenshot",
            Action::Tabs {} => "tabs",
            Action::Close {} => "close",
            Action::Evaluate { .. } => "evaluate",
        }
    }

    /// The address the action goes to, for those that leave the page (`open(url)`, `navigate`):
    /// its site is the one consent is asked for, before anything is sent.
    pub fn destination(&self) -> Option<&str> {
        match self {
            Action::Open { url: Some(url) } | Action::Navigate { url } => Some(url),
            _ => None,
        }
    }

    /// Whether the action acts on no page: showing the browser, listing its tabs. They need the
    /// driver's consent to use the browser, not a site's.
    pub fn is_browser_wide(&self) -> bool {
        matches!(self, Action::Open { url: None } | Action::Tabs {})
    }
}

/// A mouse button.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug, Default)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum MouseButton {
    /// The primary button.
    #[default]
    Left,
    /// The wheel.
    Middle,
    /// The context-menu button.
    Right,
}

fn is_left(button: &MouseButton) -> bool {
    *button == MouseButton::Left
}

/// What a `waitFor` waits for, tagged by `"for"`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(tag = "for", rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum WaitCondition {
    /// `text` appears in the page's visible text (or, `gone`, is no longer there).
    Text {
        /// The text.
        text: String,
        /// Wait for it to go instead.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        gone: bool,
    },
    /// The node reaches `state`.
    Ref {
        /// The node.
        #[serde(rename = "ref")]
        node: String,
        /// The state.
        state: RefState,
    },
    /// The page navigates (a new document has loaded), to an address containing `url` if given:
    /// counted from the page before the tab's last input (a click, typing, a key, a check) that
    /// no such wait has counted from yet, so a link the click already followed counts; else from
    /// the page now.
    Navigation {
        /// A part of the address the page should reach.
        #[cfg_attr(feature = "typescript", ts(optional))]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// The network is idle: the page has loaded and no request of its own (fetch, XHR, a
    /// resource) has been in flight for 500 ms.
    NetworkIdle {},
}

/// A state a ref's node can be waited into.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum RefState {
    /// On screen (has a box, not `visibility: hidden`).
    Visible,
    /// Not on screen, or removed.
    Hidden,
    /// Not disabled.
    Enabled,
    /// Disabled.
    Disabled,
    /// Checked (a checkbox, radio button or switch).
    Checked,
    /// Not checked.
    Unchecked,
    /// Removed from the page.
    Detached,
}

// ---------------------------------------------------------------------------------------------
// Answers

/// A tab (or a site app's window) as an answer describes it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields))]
pub struct Tab {
    /// Its index among the browser's tabs; none for a site app's window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// The site app whose window this is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// Its address now.
    pub url: String,
    /// Its page's title.
    pub title: String,
    /// The browser's active tab (a site app's window: false).
    pub active: bool,
}

/// The page an action left the target on.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Page {
    /// The tab.
    pub tab: Tab,
    /// The action started a navigation (a link, a submit): refs of the page before are stale.
    #[serde(default)]
    pub navigated: bool,
}

/// `snapshot`'s answer: the accessibility tree as compact text, one node a line in document
/// order, each actionable or named node with its ref.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields))]
pub struct Snapshot {
    /// The tab.
    pub tab: Tab,
    /// The tree, one node a line (`- button "Sign in" [ref=e7]`), indented by depth.
    pub text: String,
    /// More follows: pass it back as `cursor` for the next part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// One node `find` matched.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Match {
    /// Its ref.
    #[serde(rename = "ref")]
    pub node: String,
    /// Its role.
    pub role: String,
    /// Its accessible name.
    pub name: String,
    /// Its snapshot line, with states and value (`textbox "Email" =ana@example.com`).
    pub line: String,
}

/// `find`'s answer, in document order (none matched: empty).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Found {
    /// The tab.
    pub tab: Tab,
    /// The nodes.
    pub matches: Vec<Match>,
}

/// `read`'s answer.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields))]
pub struct Read {
    /// The tab.
    pub tab: Tab,
    /// The text as markdown.
    pub markdown: String,
    /// More follows: pass it back as `cursor` for the next part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// `screenshot`'s answer: a PNG.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Screenshot {
    /// The tab.
    pub tab: Tab,
    /// The PNG, base64.
    pub png_base64: String,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
}

/// `tabs`' answer (and `close`'s: what is left).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Tabs {
    /// Whether the browser window is open.
    pub open: bool,
    /// The browser's tabs, in order (`index` 0, 1 …).
    pub tabs: Vec<Tab>,
    /// The open site app windows of the active workspace.
    pub apps: Vec<Tab>,
}

/// `evaluate`'s answer.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Evaluated {
    /// The tab.
    pub tab: Tab,
    /// The value as JSON (`undefined`, a function: null).
    #[cfg_attr(feature = "typescript", ts(type = "unknown"))]
    pub value: Value,
}

/// What an action answers, tagged by `"kind"`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum ActionResult {
    /// Where an action left the page.
    Page(Page),
    /// `snapshot`.
    Snapshot(Snapshot),
    /// `find`.
    Found(Found),
    /// `read`.
    Read(Read),
    /// `screenshot`.
    Screenshot(Screenshot),
    /// `tabs`, `close`.
    Tabs(Tabs),
    /// `evaluate`.
    Evaluated(Evaluated),
}

impl ActionResult {
    /// The tab the action was on (none for `tabs` and `close`).
    pub fn tab(&self) -> Option<&Tab> {
        match self {
            ActionResult::Page(Page { tab, .. })
            | ActionResult::Snapshot(Snapshot { tab, .. })
            | ActionResult::Found(Found { tab, .. })
            | ActionResult::Read(Read { tab, .. })
            | ActionResult::Screenshot(Screenshot { tab, .. })
            | ActionResult::Evaluated(Evaluated { tab, .. }) => Some(tab),
            ActionResult::Tabs(_) => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The daemon's route (`cowork mcp-browser` → daemon)

/// `POST /api/browser` (owner token): an agent's action, through the daemon to the shell.
/// Answers an [`ActionResult`], or the daemon's error body naming a [`BrowserErrorName`].
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields))]
pub struct DriveRequest {
    /// The agent's name (consent is asked and remembered per agent and site).
    pub agent: String,
    /// The folder whose audit log records the actions (the MCP server's workspace).
    pub workspace: String,
    /// The page.
    #[serde(default)]
    pub target: Target,
    /// The action's budget ([`DEFAULT_TIMEOUT_MS`] when not given, at most [`MAX_TIMEOUT_MS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The MCP server's session (one per `cowork mcp-browser` process): a Stop on the banner
    /// holds for the agent until another session starts ([`ShellBrowserRequest::session`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The action.
    #[serde(flatten)]
    pub action: Action,
}

// ---------------------------------------------------------------------------------------------
// The desktop channel (daemon → shell, and the shell's answers)

/// An action sent down the desktop channel (`ShellRequest` of type `"browser"`).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ShellBrowserRequest {
    /// Answer with this id.
    pub id: String,
    /// Who drives (the banner names it).
    pub driver: Driver,
    /// The sites this driver may act on ([`site_of`] spelling). When the page the action is for
    /// is on another site, answer [`ShellOutcome::ConsentNeeded`] and do nothing. For `open(url)`
    /// and `navigate` the daemon has checked the destination already.
    pub sites: Vec<String>,
    /// The page.
    pub target: Target,
    /// The whole action's budget, `waitFor`'s included: past it, answer `Timeout`.
    pub timeout_ms: u64,
    /// The driver's session: a routine's run id, an MCP server's session. The person's Stop on the
    /// banner makes this driver's actions fail `Stopped` until one comes with another session
    /// (the routine's next run, the agent's next `cowork mcp-browser`); none: until the shell restarts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub session: Option<String>,
    /// The action.
    #[serde(flatten)]
    pub action: Action,
}

/// A consent question sent down the desktop channel (`ShellRequest` of type `"browserConsent"`):
/// Cowork's own dialog asks the person whether `driver` may drive the browser on `site`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(optional_fields))]
pub struct ConsentQuestion {
    /// Answer with this id.
    pub id: String,
    /// Who asks.
    pub driver: Driver,
    /// The site ([`site_of`]); none when it asks to use the browser at all (`tabs`, `open()`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    /// The first time this driver would drive the browser: the dialog says so.
    pub first: bool,
}

/// `POST /api/desktop/browser/answer`'s body: the shell's answer to a request or a question.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ShellAnswer {
    /// The request's or the question's id.
    pub id: String,
    /// The answer.
    #[serde(flatten)]
    pub outcome: ShellOutcome,
}

/// What the shell answers, tagged by `"outcome"`.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
#[serde(tag = "outcome", rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum ShellOutcome {
    /// The action was done.
    Done {
        /// What it answers.
        result: ActionResult,
    },
    /// The action failed, by name.
    Failed {
        /// Why.
        error: BrowserError,
    },
    /// The page is on `site`, which the request's `sites` do not hold: nothing was done.
    ConsentNeeded {
        /// The page's site ([`site_of`]).
        site: String,
        /// The page's address.
        url: String,
    },
    /// The person's answer to a [`ConsentQuestion`].
    Consent {
        /// Allowed (else denied, or the dialog was closed).
        allowed: bool,
    },
}

// ---------------------------------------------------------------------------------------------
// Sites

/// The site of `url` as consent names it: the host, lowercased, with the port when it is not the
/// scheme's default (`github.com`, `127.0.0.1:8123`). `None` for an address that is not http(s)
/// or has no host (`about:blank` belongs to no site and needs no consent).
pub fn site_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => "80",
        "https" => "443",
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    // Credentials in the address are not part of the site.
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let (host, port) = match host_port.strip_prefix('[') {
        // An IPv6 literal: `[::1]:8080`.
        Some(v6) => {
            let (inside, after) = v6.split_once(']')?;
            (format!("[{inside}]"), after.strip_prefix(':'))
        }
        None => match host_port.rsplit_once(':') {
            Some((host, port)) => (host.to_string(), Some(port)),
            None => (host_port.to_string(), None),
        },
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    Some(match port.filter(|port| !port.is_empty() && *port != default_port) {
        Some(port) => format!("{host}:{port}"),
        None => host,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_site_is_the_host_with_a_port_that_is_not_the_default() {
        assert_eq!(site_of("https://GitHub.com/a/b?c#d").as_deref(), Some("github.com"));
        assert_eq!(site_of("http://127.0.0.1:8123/login").as_deref(), Some("127.0.0.1:8123"));
        assert_eq!(site_of("https://example.com:443/").as_deref(), Some("example.com"));
        assert_eq!(site_of("http://example.com:80").as_deref(), Some("example.com"));
        assert_eq!(
            site_of("https://ana:pw@example.com:8443/").as_deref(),
            Some("example.com:8443")
        );
        assert_eq!(site_of("http://[::1]:9000/x").as_deref(), Some("[::1]:9000"));
        assert_eq!(site_of("https://example.com./").as_deref(), Some("example.com"));
        assert_eq!(site_of("about:blank"), None);
        assert_eq!(site_of("file:///etc/passwd"), None);
        assert_eq!(site_of("https:///nohost"), None);
    }

    #[test]
    fn actions_travel_tagged_by_their_ctx_browser_name() {
        let click = Action::Click { node: "e12".into(), button: MouseButton::Left, double: false };
        assert_eq!(serde_json::to_value(&click).unwrap(), json!({"action": "click", "ref": "e12"}));
        let wait: Action = serde_json::from_value(json!({
            "action": "waitFor", "condition": {"for": "text", "text": "Saved"}
        }))
        .unwrap();
        assert_eq!(
            wait,
            Action::WaitFor {
                condition: WaitCondition::Text { text: "Saved".into(), gone: false }
            }
        );
        assert_eq!(wait.name(), "waitFor");
        let open: Action = serde_json::from_value(json!({"action": "open"})).unwrap();
        assert_eq!(open, Action::Open { url: None });
        assert!(open.is_browser_wide());
        let tabs: Action = serde_json::from_value(json!({"action": "tabs"})).unwrap();
        assert_eq!(tabs.name(), "tabs");
    }

    #[test]
    fn fields_of_an_action_are_camel_case() {
        let shot = Action::Screenshot { node: None, full_page: true };
        assert_eq!(
            serde_json::to_value(&shot).unwrap(),
            json!({"action": "screenshot", "fullPage": true})
        );
    }

    #[test]
    fn a_drive_request_carries_its_action_flat() {
        let request: DriveRequest = serde_json::from_value(json!({
            "agent": "claude-code", "workspace": "/w", "target": {"tabIndex": 1},
            "action": "fill", "ref": "e3", "value": "ana"
        }))
        .unwrap();
        assert_eq!(request.target.tab_index, Some(1));
        assert_eq!(request.action, Action::Fill { node: "e3".into(), value: "ana".into() });
        let unknown = serde_json::from_value::<DriveRequest>(json!({
            "agent": "a", "workspace": "/w", "action": "hover", "ref": "e1"
        }));
        assert!(unknown.is_err());
    }

    #[test]
    fn shell_answers_round_trip() {
        let answer = ShellAnswer {
            id: "b1".into(),
            outcome: ShellOutcome::Failed {
                error: BrowserError::new(BrowserErrorName::StaleRef, "e4 is gone")
                    .with_hint("take a new snapshot"),
            },
        };
        let text = serde_json::to_value(&answer).unwrap();
        assert_eq!(
            text,
            json!({"id": "b1", "outcome": "failed", "error": {
                "name": "StaleRef", "message": "e4 is gone", "hint": "take a new snapshot"
            }})
        );
        assert_eq!(serde_json::from_value::<ShellAnswer>(text).unwrap(), answer);
        let newer: BrowserError =
            serde_json::from_value(json!({"name": "Exploded", "message": "?"})).unwrap();
        assert_eq!(newer.name, BrowserErrorName::Unknown);
        let done: ShellAnswer = serde_json::from_value(json!({
            "id": "b2", "outcome": "done", "result": {"kind": "page", "navigated": true,
            "tab": {"index": 0, "url": "http://x/", "title": "X", "active": true}}
        }))
        .unwrap();
        let ShellOutcome::Done { result } = done.outcome else { panic!("done") };
        assert_eq!(result.tab().unwrap().index, Some(0));
    }
}

/// `ui/src/workbench/wire/browser.ts`, the workbench's copy of these types: checked in, and this
/// test fails when it is stale, with the command that refreshes it.
#[cfg(all(test, feature = "typescript"))]
mod typescript {
    use super::*;
    use ts_rs::{Config, TS};

    const FILE: &str = "ui/src/workbench/wire/browser.ts";
    const REFRESH: &str =
        "COWORK_WRITE_TS=1 cargo test -p cowork-wire --features typescript --lib browser";

    fn render() -> String {
        let cfg = Config::new().with_large_int("number");
        let decls = [
            BrowserErrorName::decl(&cfg),
            BrowserError::decl(&cfg),
            Driver::decl(&cfg),
            Target::decl(&cfg),
            Action::decl(&cfg),
            MouseButton::decl(&cfg),
            WaitCondition::decl(&cfg),
            RefState::decl(&cfg),
            Tab::decl(&cfg),
            Page::decl(&cfg),
            Snapshot::decl(&cfg),
            Match::decl(&cfg),
            Found::decl(&cfg),
            Read::decl(&cfg),
            Screenshot::decl(&cfg),
            Tabs::decl(&cfg),
            Evaluated::decl(&cfg),
            ActionResult::decl(&cfg),
            DriveRequest::decl(&cfg),
            ShellBrowserRequest::decl(&cfg),
            ConsentQuestion::decl(&cfg),
            ShellAnswer::decl(&cfg),
            ShellOutcome::decl(&cfg),
        ];
        let header = format!(
            "// Generated from crates/cowork-wire/src/browser.rs: do not edit. Refresh:\n// {REFRESH}\n"
        );
        crate::typescript_file::join(&header, decls)
    }

    #[test]
    fn the_checked_in_browser_types_are_fresh() {
        crate::typescript_file::check(env!("CARGO_MANIFEST_DIR"), FILE, &render(), REFRESH);
    }
}
