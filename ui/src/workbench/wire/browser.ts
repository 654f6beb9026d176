// Generated from crates/cowork-wire/src/browser.rs: do not edit. Refresh:
// COWORK_WRITE_TS=1 cargo test -p cowork-wire --features typescript --lib browser

export type BrowserErrorName = "StaleRef" | "NavigatedAway" | "TabClosed" | "Timeout" | "NotFound" | "NotActionable" | "ScriptError" | "Denied" | "Stopped" | "Unsupported" | "BadRequest" | "TooLarge" | "Unavailable" | "Unknown";

export type BrowserError = { 
/**
 * The name a caller branches on.
 */
name: BrowserErrorName, 
/**
 * What failed, in words, quoting the input (`no node e12 on http://…/login`).
 */
message: string, 
/**
 * What to do about it.
 */
hint?: string, 
/**
 * The address of the page the action was on, when there was one.
 */
url?: string, };

export type Driver = { "kind": "app", 
/**
 * The workspace's canonical path.
 */
workspace: string, 
/**
 * The app's name (its folder under `.cowork/apps/`).
 */
app: string, 
/**
 * The app's title, as the dialog and the banner show it.
 */
title: string, } | { "kind": "agent", 
/**
 * The agent's name, as the dialog and the banner show it.
 */
name: string, };

export type Target = { 
/**
 * A tab of the browser, by its index in `tabs()`.
 */
tabIndex?: number, 
/**
 * A site app's name (`.cowork/apps/<name>/`): its own window and signed-in session.
 */
app?: string, };

export type Action = { "action": "open", 
/**
 * The address to open (http or https); none shows the browser.
 */
url?: string, } | { "action": "navigate", 
/**
 * The address (http or https).
 */
url: string, } | { "action": "snapshot", 
/**
 * Only this node's subtree.
 */
ref?: string, 
/**
 * Where the previous part ended ([`Snapshot::cursor`]).
 */
cursor?: string, } | { "action": "find", 
/**
 * An ARIA role (`button`, `textbox`, `link`, `row` …).
 */
role?: string, 
/**
 * The accessible name.
 */
name?: string, 
/**
 * Text the node shows.
 */
text?: string, 
/**
 * Whole, case-sensitive matches only.
 */
exact?: boolean, } | { "action": "click", 
/**
 * The node.
 */
ref: string, 
/**
 * The button (left when not given).
 */
button?: MouseButton, 
/**
 * A double click.
 */
double?: boolean, } | { "action": "fill", 
/**
 * The field.
 */
ref: string, 
/**
 * Its new value (never written to the audit log).
 */
value: string, } | { "action": "type", 
/**
 * The node to type into; none = the focused one.
 */
ref?: string, 
/**
 * What to type (never written to the audit log).
 */
text: string, 
/**
 * Press Enter after.
 */
submit?: boolean, } | { "action": "press", 
/**
 * The node to focus first; none = the focused one.
 */
ref?: string, 
/**
 * The key or chord.
 */
key: string, } | { "action": "select", 
/**
 * The `<select>`.
 */
ref: string, 
/**
 * The options' values (or labels).
 */
values: Array<string>, } | { "action": "check", 
/**
 * The checkbox, radio button or switch.
 */
ref: string, 
/**
 * The state it should end in.
 */
checked: boolean, } | { "action": "waitFor", 
/**
 * What to wait for.
 */
condition: WaitCondition, } | { "action": "read", 
/**
 * Only this node's text.
 */
ref?: string, 
/**
 * Where the previous part ended ([`Read::cursor`]).
 */
cursor?: string, } | { "action": "screenshot", 
/**
 * Only this node's box.
 */
ref?: string, 
/**
 * The whole page, not only the viewport.
 */
fullPage?: boolean, } | { "action": "tabs", } | { "action": "close", } | { "action": "evaluate", 
/**
 * The script (never written to the audit log).
 */
js: string, };

export type MouseButton = "left" | "middle" | "right";

export type WaitCondition = { "for": "text", 
/**
 * The text.
 */
text: string, 
/**
 * Wait for it to go instead.
 */
gone?: boolean, } | { "for": "ref", 
/**
 * The node.
 */
ref: string, 
/**
 * The state.
 */
state: RefState, } | { "for": "navigation", 
/**
 * A part of the address the page should reach.
 */
url?: string, } | { "for": "networkIdle", };

export type RefState = "visible" | "hidden" | "enabled" | "disabled" | "checked" | "unchecked" | "detached";

export type Tab = { 
/**
 * Its index among the browser's tabs; none for a site app's window.
 */
index?: number, 
/**
 * The site app whose window this is.
 */
app?: string, 
/**
 * Its address now.
 */
url: string, 
/**
 * Its page's title.
 */
title: string, 
/**
 * The browser's active tab (a site app's window: false).
 */
active: boolean, };

export type Page = { 
/**
 * The tab.
 */
tab: Tab, 
/**
 * The action started a navigation (a link, a submit): refs of the page before are stale.
 */
navigated: boolean, };

export type Snapshot = { 
/**
 * The tab.
 */
tab: Tab, 
/**
 * The tree, one node a line (`- button "Sign in" [ref=e7]`), indented by depth.
 */
text: string, 
/**
 * More follows: pass it back as `cursor` for the next part.
 */
cursor?: string, };

export type Match = { 
/**
 * Its ref.
 */
ref: string, 
/**
 * Its role.
 */
role: string, 
/**
 * Its accessible name.
 */
name: string, 
/**
 * Its snapshot line, with states and value (`textbox "Email" =ana@example.com`).
 */
line: string, };

export type Found = { 
/**
 * The tab.
 */
tab: Tab, 
/**
 * The nodes.
 */
matches: Array<Match>, };

export type Read = { 
/**
 * The tab.
 */
tab: Tab, 
/**
 * The text as markdown.
 */
markdown: string, 
/**
 * More follows: pass it back as `cursor` for the next part.
 */
cursor?: string, };

export type Screenshot = { 
/**
 * The tab.
 */
tab: Tab, 
/**
 * The PNG, base64.
 */
pngBase64: string, 
/**
 * Its width in pixels.
 */
width: number, 
/**
 * Its height in pixels.
 */
height: number, };

export type Tabs = { 
/**
 * Whether the browser window is open.
 */
open: boolean, 
/**
 * The browser's tabs, in order (`index` 0, 1 …).
 */
tabs: Array<Tab>, 
/**
 * The open site app windows of the active workspace.
 */
apps: Array<Tab>, };

export type Evaluated = { 
/**
 * The tab.
 */
tab: Tab, 
/**
 * The value as JSON (`undefined`, a function: null).
 */
value: unknown, };

export type ActionResult = { "kind": "page" } & Page | { "kind": "snapshot" } & Snapshot | { "kind": "found" } & Found | { "kind": "read" } & Read | { "kind": "screenshot" } & Screenshot | { "kind": "tabs" } & Tabs | { "kind": "evaluated" } & Evaluated;

export type DriveRequest = { 
/**
 * The agent's name (consent is asked and remembered per agent and site).
 */
agent: string, 
/**
 * The folder whose audit log records the actions (the MCP server's workspace).
 */
workspace: string, 
/**
 * The page.
 */
target: Target, 
/**
 * The action's budget ([`DEFAULT_TIMEOUT_MS`] when not given, at most [`MAX_TIMEOUT_MS`]).
 */
timeoutMs?: number, 
/**
 * The MCP server's session (one per `cowork mcp-browser` process): a Stop on the banner
 * holds for the agent until another session starts ([`ShellBrowserRequest::session`]).
 */
session?: string, } & ({ "action": "open", 
/**
 * The address to open (http or https); none shows the browser.
 */
url?: string, } | { "action": "navigate", 
/**
 * The address (http or https).
 */
url: string, } | { "action": "snapshot", 
/**
 * Only this node's subtree.
 */
ref?: string, 
/**
 * Where the previous part ended ([`Snapshot::cursor`]).
 */
cursor?: string, } | { "action": "find", 
/**
 * An ARIA role (`button`, `textbox`, `link`, `row` …).
 */
role?: string, 
/**
 * The accessible name.
 */
name?: string, 
/**
 * Text the node shows.
 */
text?: string, 
/**
 * Whole, case-sensitive matches only.
 */
exact?: boolean, } | { "action": "click", 
/**
 * The node.
 */
ref: string, 
/**
 * The button (left when not given).
 */
button?: MouseButton, 
/**
 * A double click.
 */
double?: boolean, } | { "action": "fill", 
/**
 * The field.
 */
ref: string, 
/**
 * Its new value (never written to the audit log).
 */
value: string, } | { "action": "type", 
/**
 * The node to type into; none = the focused one.
 */
ref?: string, 
/**
 * What to type (never written to the audit log).
 */
text: string, 
/**
 * Press Enter after.
 */
submit?: boolean, } | { "action": "press", 
/**
 * The node to focus first; none = the focused one.
 */
ref?: string, 
/**
 * The key or chord.
 */
key: string, } | { "action": "select", 
/**
 * The `<select>`.
 */
ref: string, 
/**
 * The options' values (or labels).
 */
values: Array<string>, } | { "action": "check", 
/**
 * The checkbox, radio button or switch.
 */
ref: string, 
/**
 * The state it should end in.
 */
checked: boolean, } | { "action": "waitFor", 
/**
 * What to wait for.
 */
condition: WaitCondition, } | { "action": "read", 
/**
 * Only this node's text.
 */
ref?: string, 
/**
 * Where the previous part ended ([`Read::cursor`]).
 */
cursor?: string, } | { "action": "screenshot", 
/**
 * Only this node's box.
 */
ref?: string, 
/**
 * The whole page, not only the viewport.
 */
fullPage?: boolean, } | { "action": "tabs", } | { "action": "close", } | { "action": "evaluate", 
/**
 * The script (never written to the audit log).
 */
js: string, });

export type ShellBrowserRequest = { 
/**
 * Answer with this id.
 */
id: string, 
/**
 * Who drives (the banner names it).
 */
driver: Driver, 
/**
 * The sites this driver may act on ([`site_of`] spelling). When the page the action is for
 * is on another site, answer [`ShellOutcome::ConsentNeeded`] and do nothing. For `open(url)`
 * and `navigate` the daemon has checked the destination already.
 */
sites: Array<string>, 
/**
 * The page.
 */
target: Target, 
/**
 * The whole action's budget, `waitFor`'s included: past it, answer `Timeout`.
 */
timeoutMs: number, 
/**
 * The driver's session: a routine's run id, an MCP server's session. The person's Stop on the
 * banner makes this driver's actions fail `Stopped` until one comes with another session
 * (the routine's next run, the agent's next `cowork mcp-browser`); none: until the shell restarts.
 */
session?: string, } & ({ "action": "open", 
/**
 * The address to open (http or https); none shows the browser.
 */
url?: string, } | { "action": "navigate", 
/**
 * The address (http or https).
 */
url: string, } | { "action": "snapshot", 
/**
 * Only this node's subtree.
 */
ref?: string, 
/**
 * Where the previous part ended ([`Snapshot::cursor`]).
 */
cursor?: string, } | { "action": "find", 
/**
 * An ARIA role (`button`, `textbox`, `link`, `row` …).
 */
role?: string, 
/**
 * The accessible name.
 */
name?: string, 
/**
 * Text the node shows.
 */
text?: string, 
/**
 * Whole, case-sensitive matches only.
 */
exact?: boolean, } | { "action": "click", 
/**
 * The node.
 */
ref: string, 
/**
 * The button (left when not given).
 */
button?: MouseButton, 
/**
 * A double click.
 */
double?: boolean, } | { "action": "fill", 
/**
 * The field.
 */
ref: string, 
/**
 * Its new value (never written to the audit log).
 */
value: string, } | { "action": "type", 
/**
 * The node to type into; none = the focused one.
 */
ref?: string, 
/**
 * What to type (never written to the audit log).
 */
text: string, 
/**
 * Press Enter after.
 */
submit?: boolean, } | { "action": "press", 
/**
 * The node to focus first; none = the focused one.
 */
ref?: string, 
/**
 * The key or chord.
 */
key: string, } | { "action": "select", 
/**
 * The `<select>`.
 */
ref: string, 
/**
 * The options' values (or labels).
 */
values: Array<string>, } | { "action": "check", 
/**
 * The checkbox, radio button or switch.
 */
ref: string, 
/**
 * The state it should end in.
 */
checked: boolean, } | { "action": "waitFor", 
/**
 * What to wait for.
 */
condition: WaitCondition, } | { "action": "read", 
/**
 * Only this node's text.
 */
ref?: string, 
/**
 * Where the previous part ended ([`Read::cursor`]).
 */
cursor?: string, } | { "action": "screenshot", 
/**
 * Only this node's box.
 */
ref?: string, 
/**
 * The whole page, not only the viewport.
 */
fullPage?: boolean, } | { "action": "tabs", } | { "action": "close", } | { "action": "evaluate", 
/**
 * The script (never written to the audit log).
 */
js: string, });

export type ConsentQuestion = { 
/**
 * Answer with this id.
 */
id: string, 
/**
 * Who asks.
 */
driver: Driver, 
/**
 * The site ([`site_of`]); none when it asks to use the browser at all (`tabs`, `open()`).
 */
site?: string, 
/**
 * The first time this driver would drive the browser: the dialog says so.
 */
first: boolean, };

export type ShellAnswer = { 
/**
 * The request's or the question's id.
 */
id: string, } & ({ "outcome": "done", 
/**
 * What it answers.
 */
result: ActionResult, } | { "outcome": "failed", 
/**
 * Why.
 */
error: BrowserError, } | { "outcome": "consentNeeded", 
/**
 * The page's site ([`site_of`]).
 */
site: string, 
/**
 * The page's address.
 */
url: string, } | { "outcome": "consent", 
/**
 * Allowed (else denied, or the dialog was closed).
 */
allowed: boolean, });

export type ShellOutcome = { "outcome": "done", 
/**
 * What it answers.
 */
result: ActionResult, } | { "outcome": "failed", 
/**
 * Why.
 */
error: BrowserError, } | { "outcome": "consentNeeded", 
/**
 * The page's site ([`site_of`]).
 */
site: string, 
/**
 * The page's address.
 */
url: string, } | { "outcome": "consent", 
/**
 * Allowed (else denied, or the dialog was closed).
 */
allowed: boolean, };
