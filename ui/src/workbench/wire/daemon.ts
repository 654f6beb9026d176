// Generated from cowork-wire's daemon types (crates/cowork-wire/src/daemon/typescript.rs): do not
// edit. Refresh: COWORK_WRITE_TS=1 cargo test -p cowork-wire --lib typescript
import type { StatusBarItem, WireError } from "@/frame/protocol"

import type { Digest, Display, Problem, RailFolder, Risk, RouteConflict, RoutineGrants, Source } from "./core"

export type WorkbenchInfo = { workspace: WorkspaceName, apps: Array<App>, broken: { dir: string; problems: Problem[] }[], problems: Problem[], rail: { folders: RailFolder[] }, startup: { home?: string; left?: boolean; right?: boolean }, 
/**
 * The home app's name.
 */
home?: string | null, muted: Array<string>, badges: Badges, notifications: DaemonNotification[], routeConflicts: RouteConflict[], };

export type WorkspaceName = { path: string, name: string, };

export type App = { 
/**
 * The folder under `.cowork/apps/`; what the on/off and mute switches name.
 */
dir: string, name: string, title: string, icon: string | null, iconUrl?: string | null, color?: string | null, display: Display, entry?: string | null, 
/**
 * `sidebar` only: an app file, or a routine returning `{path}`, opened once per session.
 */
open?: string | { routine: string; args?: unknown }, kind: "app" | "capability", enabled: boolean, 
/**
 * False when an earlier folder claimed the same name.
 */
ownsName: boolean, 
/**
 * Declares neither `kind` nor `uses`: keeps its old access to every secret.
 */
unrestricted: boolean, 
/**
 * The manifest's problems, then its widgets' that would not run.
 */
problems: Problem[], statusBar?: { routine: string; args?: unknown; interval?: number }, routines: Array<Routine>, 
/**
 * A web site installed as an app: it draws only in the desktop app.
 */
site: boolean, 
/**
 * A site app's count source, once the desktop app reported one.
 */
unreadSource?: "badge" | "title" | "notifications" | null, 
/**
 * What its panes may capture (`capture`), each still asked for in Cowork's dialog; left out
 * when nothing.
 */
capture?: ("screen" | "system-audio" | "mic" | "screenshot")[], 
/**
 * The frame page of its panes, on the app's own origin: the workbench starts loading it while
 * the daemon opens a pane (`POST /api/panes` answers the same address).
 */
frameUrl: string, };

export type Routine = { id: string, risk: Risk, readOnly: boolean, destructive: boolean, reachesOthers: boolean, description?: string | null, disabled: boolean, };

export type OpenedPane = { paneId: string, paneToken: string, 
/**
 * The frame page on the app's own origin.
 */
src: string, widget: Widget, workspaceRoot: string, };

export type Widget = PreparedWidget | { file: string, error: WidgetError, };

export type PreparedWidget = { file: string, code: string, imports: Array<WidgetImport>, };

export type WidgetImport = { specifier: string, line: number, column: number, 
/**
 * The exports the widget takes by name, when it takes nothing else from the module: the
 * frame then loads only those of an icon set.
 */
names?: Array<string>, };

export type WidgetError = { name: WidgetErrorName, file: string, line?: number, column?: number, message: string, };

export type WidgetErrorName = "Unreadable" | "SyntaxError" | "ImportNotAllowed" | "NoDefaultExport" | "UnsupportedFile" | "Internal";

export type Outcome<T, E> = { ok: true, result: T, } | { ok: false, error: E, };

export type PaneRun = { runId: string, routine: string, app: string | null, kind: "app" | "capability" | null, status: "ok" | "error" | "denied", ts: string, durationMs: number, 
/**
 * The apps and routines that led to this run, when another one called it.
 */
chain: Array<string> | null, };

export type StatusBarAnswer = { ok: true, item: StatusBarItem | null, } | { ok: false, error: WireError, };

export type FileEntry = { name: string, 
/**
 * Workspace-relative.
 */
path: string, dir: boolean, };

export type FileText = { 
/**
 * Workspace-relative.
 */
path: string, text: string, size: number, };

export type Route = { app: string, file: string, glob: string, folder: boolean, };

export type Changed = { changed: boolean, };

export type ErrorBody = { error: WireError & { hint?: string }, };

export type DaemonNotification = { 
/**
 * The app it was posted as (its manifest `name`).
 */
app: string, appTitle: string, title: string, body?: string, tag?: string, urgent: boolean, 
/**
 * RFC 3339 time it was raised.
 */
at: string, };

export type Badges = { apps: { [key in string]: number }, total: number, };

export type DaemonEvent = { "type": "notification", workspace: string, notification: DaemonNotification, replaced: boolean, } | { "type": "badge", workspace: string, app: string, count: number, total: number, } | { "type": "registry", workspace: string, } | { "type": "log", workspace: string, runId: string, routine: string, 
/**
 * `log`, `stdout`, `stderr`, `error`, `warn`…, `widget` or `capture`.
 */
stream: string, line: string, } | { "type": "widget", workspace: string, app: string, file: string, } | { "type": "appMessage", workspace: string, app: string, fromPane: string, message: unknown, } | { "type": "capture", workspace: string, pane: string, id: string, frames?: Array<string>, stopped?: string, reason?: string, error?: "DiskFull" | "Unavailable", } | { "type": "agent", workspace: string, app: string, method: string, params: unknown, } | { "type": "open", workspace: string, app: string, file: string | null, as: "tab" | "dialog" | "sidemenu" | null, } | { "type": "queues", workspace: string, } | { "type": "runQueued", workspace: string, runId: string, routine: string, } | { "type": "runStarted", workspace: string, runId: string, routine: string, } | { "type": "account", signedIn: boolean, } | { "type": "run", workspace: string, runId: string, routine: string, status: "ok" | "error" | "denied", durationMs: number, 
/**
 * Why it failed, masked as its audit line is.
 */
error?: { name: string; message: string }, };

export type Workflows = { armed: boolean, workflows: Array<TriggeredRoutine>, 
/**
 * How many routines run now, in every workspace (the daemon's slots in use).
 */
running: number, 
/**
 * How many triggered runs wait for a slot now, in every workspace.
 */
queued: number, 
/**
 * This workspace's runs started and not finished, oldest first: the Monitor's running runs
 * (a triggered run waiting for a slot is listed `queued`, since when it was queued).
 */
runningNow: Array<RunningRun>, 
/**
 * The last runs triggers started here, newest first.
 */
recent: Array<TriggeredRun>, };

export type TriggeredRoutine = { id: string, app: string, 
/**
 * `schedule`, `webhook`, `notifications` — the triggers this machine answers.
 */
triggers: Array<string>, schedule: string | null, 
/**
 * `routine list`'s state column.
 */
state: string, 
/**
 * The Active switch's position.
 */
active: boolean, 
/**
 * The triggers `workspace.json` declares now: what switching it on (or confirming) arms.
 */
declared: Digest, 
/**
 * How the triggers changed since the owner armed them (`armed: …; now: …`), when they did:
 * nothing fires until the owner confirms.
 */
changed: string | null, 
/**
 * The next scheduled fire (RFC 3339, local offset), when a schedule is active.
 */
next: string | null, lastRun: LastRun | null, };

export type LastRun = { runId: string, ts: string, status: "ok" | "error" | "denied", source: Source, };

export type TriggeredRun = { runId: string, routine: string, ts: string, status: "ok" | "error" | "denied", trigger: FiredBy, durationMs: number, 
/**
 * How long it waited for a concurrency slot before it started, when it did.
 */
queuedMs: number | null, };

export type FiredBy = "schedule" | "catch-up" | "webhook" | "notification";

export type Switched = { ok: boolean, id: string, active: boolean, state: string, };

export type AgentsInfo = { 
/**
 * The live logins (revoked ones have nothing left to grant).
 */
agents: Array<AgentSummary>, 
/**
 * Every capability routine: the workspace default and each agent's answer.
 */
routines: RoutineGrants[], };

export type AgentSummary = { name: string, id: string, lastSeen: string | null, 
/**
 * Its token opens this workspace (it was made here, or the workspace was added to it).
 */
here: boolean, 
/**
 * Every workspace its token opens.
 */
workspaces: string[], };

export type NewAgent = { name: string, id: string, token: string, url: string, claude: string, codex: string, };

export type Runs = { 
/**
 * Started and not finished, oldest first; a triggered run waiting for a slot is `queued`.
 */
running: Array<RunningRun>, runs: Array<FinishedRun>, 
/**
 * The `before` of the next page, when there is one.
 */
next: string | null, };

export type FinishedRun = { runId: string, 
/**
 * When it started, RFC 3339 UTC.
 */
ts: string, routine: string, app: string | null, status: "ok" | "error" | "denied", durationMs: number, 
/**
 * How long a triggered run waited for a concurrency slot before it started, when it did.
 */
queuedMs: number | null, 
/**
 * The audit `source`.
 */
source: Source, 
/**
 * The app whose widget or routine asked, when one did.
 */
callerApp: string | null, 
/**
 * Who asked: the agent's name; none when it was you (or a trigger you armed).
 */
agent: string | null, task: string | null, error: { name: string; message: string } | null, };

export type RunningRun = { runId: string, routine: string, app: string, 
/**
 * When it started, RFC 3339 UTC with milliseconds (as an audit line's `ts`); while it is
 * `queued`, when it was queued.
 */
started: string, 
/**
 * The audit `source`.
 */
source: Source, 
/**
 * The agent it runs for, when an agent asked.
 */
agent: string | null, 
/**
 * The task an agent runs it for.
 */
task: string | null, 
/**
 * It waits for a concurrency slot: a run a trigger started while every slot is busy.
 */
queued: boolean, 
/**
 * How long it waited for a slot before it started, in milliseconds; none when it did not.
 */
queuedMs: number | null, };

export type RuntimeInfo = { 
/**
 * The runtime routines run on, `null` when none is found.
 */
runtime?: FoundRuntime | null, install: BunInstall, };

export type FoundRuntime = { 
/**
 * `bun` or `node`.
 */
kind: string, version: string, };

export type BunInstall = { "state": "idle" } | { "state": "running", done: number, total: number | null, } | { "state": "done", version: string, } | { "state": "failed", message: string, hint: string, };

export type AccountInfo = { 
/**
 * The hub this machine remembers (none before the first `cowork login --hub`).
 */
hub: string | null, user: AccountUser | null, teamServers: Array<AccountTeamServer>, 
/**
 * When the hub last answered the updates poll (ms since the epoch).
 */
polledAt: number | null, 
/**
 * A sign-in started from a window waits for the browser.
 */
signingIn: boolean, };

export type AccountUser = { uid: string, email: string, displayName: string, organization: { id: string; slug: string; name: string } | null, 
/**
 * `browser`, `device`, `paste` or `password`.
 */
method: string, };

export type AccountTeamServer = { slug: string, name: string, 
/**
 * `owner`, `admin` or `member`.
 */
role: string, };

export type SignInStarted = { url: string, };
