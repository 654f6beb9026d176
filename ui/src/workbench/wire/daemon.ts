// Generated from cowork-wire's daemon types (crates/cowork-wire/src/daemon/typescript.rs): do not
// edit. Refresh: COWORK_WRITE_TS=1 cargo test -p cowork-wire --lib typescript
import type { Digest, Display, Problem, RailFolder, Risk, RouteConflict, RoutineGrants, Source } from "./core"

export type WorkbenchInfo = { 
/**
 * The workspace folder and its name.
 */
workspace: WorkspaceName, 
/**
 * The apps the workspace has, in rail order.
 */
apps: Array<App>, 
/**
 * App folders whose manifest would not load.
 */
broken: { dir: string; problems: Problem[] }[], 
/**
 * The workspace's own problems (`workspace.json`, folders that are not apps).
 */
problems: Problem[], 
/**
 * The rail's layout (`workspace.json#rail`).
 */
rail: { folders: RailFolder[] }, 
/**
 * What opens when the workbench starts (`workspace.json#startup`).
 */
startup: { home?: string; left?: boolean; right?: boolean }, 
/**
 * The home app's name.
 */
home?: string | null, 
/**
 * The apps whose notifications the person muted.
 */
muted: Array<string>, 
/**
 * The apps' badge counts.
 */
badges: Badges, 
/**
 * The notifications not yet seen, for the bell.
 */
notifications: DaemonNotification[], 
/**
 * File routes two apps claim (`openWith` globs), which `POST /api/open-with` settles.
 */
routeConflicts: RouteConflict[], };

export type WorkspaceName = { 
/**
 * The workspace folder.
 */
path: string, 
/**
 * Its name, as the title bar shows it.
 */
name: string, };

export type App = { 
/**
 * The folder under `.cowork/apps/`; what the on/off and mute switches name.
 */
dir: string, 
/**
 * The manifest's `name`.
 */
name: string, 
/**
 * Its title (its `name` when the manifest has none).
 */
title: string, 
/**
 * A codicon id, `$(id)`, or an image file in the app folder.
 */
icon: string | null, 
/**
 * The address of its image icon, when `icon` is a file (with the key `/api/icon` asks for).
 */
iconUrl?: string | null, 
/**
 * The tile's hex color.
 */
color?: string | null, 
/**
 * Where the app shows when its icon is clicked.
 */
display: Display, 
/**
 * The UI, a `.jsx`/`.tsx` in the app folder.
 */
entry?: string | null, 
/**
 * `sidebar` only: an app file, or a routine returning `{path}`, opened once per session.
 */
open?: string | { routine: string; args?: unknown }, 
/**
 * An app or a capability.
 */
kind: "app" | "capability", 
/**
 * The app's on/off switch.
 */
enabled: boolean, 
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
problems: Problem[], 
/**
 * Its footer item: the routine that draws it.
 */
statusBar?: { routine: string; args?: unknown; interval?: number }, 
/**
 * Its routines.
 */
routines: Array<Routine>, 
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
frameUrl: string, 
/**
 * A web app's page (`web.index`), served unmodified on the app's own origin, which the
 * workbench draws in an editor tab; left out for any other app.
 */
webUrl?: string, };

export type Routine = { 
/**
 * The routine's id (`<app>/<routine>`).
 */
id: string, 
/**
 * How much harm it can do, from its tool keys.
 */
risk: Risk, 
/**
 * Its `risk.readOnly`: it only reads.
 */
readOnly: boolean, 
/**
 * Its `risk.destructive`: it deletes or overwrites.
 */
destructive: boolean, 
/**
 * Its `risk.reachesOthers`: it sends something to other people.
 */
reachesOthers: boolean, 
/**
 * What it does, from its manifest.
 */
description?: string | null, 
/**
 * Listed in `disabled.routines`, or its app or its file is switched off: it refuses to run.
 */
disabled: boolean, };

export type OpenedPane = { 
/**
 * The pane's id: the session its SDK calls and events name.
 */
paneId: string, 
/**
 * The token the pane's SDK calls carry (`Authorization: Bearer`); it ends with the page's session.
 */
paneToken: string, 
/**
 * The frame page on the app's own origin.
 */
src: string, 
/**
 * The widget, prepared to run, or why it cannot.
 */
widget: Widget, 
/**
 * The workspace folder, as the pane shows paths relative to it.
 */
workspaceRoot: string, };

export type Widget = PreparedWidget | { 
/**
 * The widget file, relative to the app folder.
 */
file: string, 
/**
 * Why it cannot run, with where.
 */
error: WidgetError, };

export type PreparedWidget = { 
/**
 * The widget file, relative to the app folder.
 */
file: string, 
/**
 * The widget's body, transpiled to CommonJS.
 */
code: string, 
/**
 * The modules it loads, for the frame to preload.
 */
imports: Array<WidgetImport>, };

export type WidgetImport = { 
/**
 * The module's name as the source imports it (`react`, `lucide-react`…).
 */
specifier: string, 
/**
 * The import's line in the source (1-based).
 */
line: number, 
/**
 * The import's column in the source (1-based).
 */
column: number, 
/**
 * The exports the widget takes by name, when it takes nothing else from the module: the
 * frame then loads only those of an icon set.
 */
names?: Array<string>, };

export type WidgetError = { 
/**
 * The kind of fault, which heads the message.
 */
name: WidgetErrorName, 
/**
 * The widget file, relative to the app folder.
 */
file: string, 
/**
 * The line of the fault (1-based), when known.
 */
line?: number, 
/**
 * The column of the fault (1-based), when known.
 */
column?: number, 
/**
 * What is wrong, in words.
 */
message: string, };

export type WidgetErrorName = "Unreadable" | "SyntaxError" | "ImportNotAllowed" | "NoDefaultExport" | "UnsupportedFile" | "Internal";

export type Outcome<T, E> = { 
/**
 * Always `true`.
 */
ok: true, 
/**
 * What the operation returned.
 */
result: T, } | { 
/**
 * Always `false`.
 */
ok: false, 
/**
 * The named error that says why.
 */
error: E, };

export type PaneRun = { 
/**
 * The run's id.
 */
runId: string, 
/**
 * The routine that ran.
 */
routine: string, 
/**
 * The app the routine belongs to, when it belongs to one.
 */
app: string | null, 
/**
 * Whether that app is an app or a capability.
 */
kind: "app" | "capability" | null, 
/**
 * `ok`, `error` or `denied`.
 */
status: "ok" | "error" | "denied", 
/**
 * When it started, RFC 3339 UTC.
 */
ts: string, 
/**
 * How long it ran, in milliseconds.
 */
durationMs: number, 
/**
 * The apps and routines that led to this run, when another one called it.
 */
chain: Array<string> | null, };

export type StatusBarAnswer = { 
/**
 * Always `true`.
 */
ok: true, 
/**
 * The item the routine returned; none hides it.
 */
item: StatusBarItem | null, } | { 
/**
 * Always `false`.
 */
ok: false, 
/**
 * Why it failed.
 */
error: WireError, };

export type StatusBarItem = { 
/**
 * What the footer shows.
 */
text: string, 
/**
 * A codicon; `sync~spin` spins.
 */
icon?: string, 
/**
 * Shown on hover.
 */
tooltip?: string, 
/**
 * Colours the item.
 */
tone?: StatusBarTone, 
/**
 * A click runs the same routine with `args` (after a modal when `confirm` is set).
 */
click?: StatusBarAction, 
/**
 * Instead of `click`: the person picks one action.
 */
menu?: Array<StatusBarAction>, 
/**
 * Free-form (at most [`STATUS_BAR_DATA_MAX`] bytes as JSON) for the app's widgets.
 */
data?: unknown, };

export type StatusBarTone = "warning" | "error";

export type StatusBarAction = { 
/**
 * The menu entry's words (a `click` has none).
 */
label?: string, 
/**
 * The routine's input for this action.
 */
args: Record<string, unknown>, 
/**
 * Asked in a modal before it runs.
 */
confirm?: string, };

export type WireError = { 
/**
 * What kind of failure: what a caller branches on (`Timeout`, `Denied`, a name the routine threw…).
 */
name: string, 
/**
 * What failed, in words.
 */
message: string, 
/**
 * The run's id; none when it was refused before it started.
 */
runId?: string, };

export type FileEntry = { 
/**
 * The file's or folder's name.
 */
name: string, 
/**
 * Workspace-relative.
 */
path: string, 
/**
 * A folder.
 */
dir: boolean, };

export type FileText = { 
/**
 * Workspace-relative.
 */
path: string, 
/**
 * The file's text; none when `notText` says why not.
 */
text?: string, 
/**
 * Its size in bytes.
 */
size: number, 
/**
 * Why the viewer shows no text for it.
 */
notText?: NotText, };

export type NotText = { 
/**
 * `Binary` (not UTF-8 text, or a NUL byte in it) or `TooLarge` (over 1 MiB).
 */
name: "Binary" | "TooLarge", 
/**
 * What the viewer says instead: "logo.png is not a text file".
 */
message: string, };

export type Route = { 
/**
 * The app that opens the path.
 */
app: string, 
/**
 * The app's file it opens it with.
 */
file: string, 
/**
 * The `openWith` glob that matched.
 */
glob: string, 
/**
 * The glob is a folder route (ends with `/`).
 */
folder: boolean, };

export type Changed = { 
/**
 * `false` when the thing already was as asked.
 */
changed: boolean, };

export type ErrorBody = { 
/**
 * The error's name, what failed and, when there is one, a hint.
 */
error: WireError & { hint?: string }, };

export type DaemonNotification = { 
/**
 * The app it was posted as (its manifest `name`).
 */
app: string, 
/**
 * The app's title, as the bell shows it.
 */
appTitle: string, 
/**
 * The notification's title.
 */
title: string, 
/**
 * More text under the title.
 */
body?: string, 
/**
 * A later notification of the same app with this tag replaces this one while it is not yet shown.
 */
tag?: string, 
/**
 * Keeps the banner up and asks for attention (dock bounce, flashing taskbar).
 */
urgent: boolean, 
/**
 * RFC 3339 time it was raised.
 */
at: string, };

export type Badges = { 
/**
 * Each app's count, by its manifest name.
 */
apps: { [key in string]: number }, 
/**
 * The sum over the apps that are not muted.
 */
total: number, };

export type DaemonEvent = { "type": "notification", 
/**
 * The workspace it was posted in.
 */
workspace: string, 
/**
 * The notification as delivered.
 */
notification: DaemonNotification, 
/**
 * It took the place of a not-yet-shown one with the same tag.
 */
replaced: boolean, } | { "type": "badge", 
/**
 * The app's workspace.
 */
workspace: string, 
/**
 * The app whose count changed.
 */
app: string, 
/**
 * The app's new count.
 */
count: number, 
/**
 * The workspace's sum over the apps that are not muted.
 */
total: number, 
/**
 * Where a site app's count comes from, once its shell said (the app summary's
 * `unreadSource`, which Manage Workspace shows): a site can switch it at any report.
 */
unreadSource?: "badge" | "title" | "notifications", } | { "type": "registry", 
/**
 * The workspace whose apps changed.
 */
workspace: string, } | { "type": "log", 
/**
 * The run's workspace.
 */
workspace: string, 
/**
 * The run the line belongs to (a widget's or a recording's own id for theirs).
 */
runId: string, 
/**
 * The routine that logged it (the app, for a widget's line or a recording's).
 */
routine: string, 
/**
 * `log`, `stdout`, `stderr`, `error`, `warn`…, `widget` or `capture`.
 */
stream: string, 
/**
 * The line, as logged.
 */
line: string, } | { "type": "widget", 
/**
 * The app's workspace.
 */
workspace: string, 
/**
 * The app the widget belongs to.
 */
app: string, 
/**
 * The widget file, relative to the app folder.
 */
file: string, } | { "type": "appMessage", 
/**
 * The app's workspace.
 */
workspace: string, 
/**
 * The app whose panes receive it.
 */
app: string, 
/**
 * The pane that posted it: it does not receive its own message.
 */
fromPane: string, 
/**
 * The message, as posted.
 */
message: unknown, } | { "type": "capture", 
/**
 * The recording's workspace.
 */
workspace: string, 
/**
 * The pane that holds the session: the only one the event is for.
 */
pane: string, 
/**
 * The recording's session id.
 */
id: string, 
/**
 * Live audio frames, base64, in order.
 */
frames?: Array<string>, 
/**
 * The workspace-relative file, once the recording ended.
 */
stopped?: string, 
/**
 * Why it stopped, in words.
 */
reason?: string, 
/**
 * What stopped it when it was not asked to.
 */
error?: "DiskFull" | "Unavailable", } | { "type": "agent", 
/**
 * The pane's workspace.
 */
workspace: string, 
/**
 * The app whose pane said it.
 */
app: string, 
/**
 * The SDK method (`chat.ask`, `agent.…`).
 */
method: string, 
/**
 * The method's params, as the pane gave them.
 */
params: unknown, } | { "type": "open", 
/**
 * The app's workspace.
 */
workspace: string, 
/**
 * The app to open.
 */
app: string, 
/**
 * A widget file of the app to open as a pane; none = the app itself.
 */
file: string | null, 
/**
 * Where the widget file opens: `tab`, `dialog` or `sidemenu`.
 */
as: "tab" | "dialog" | "sidemenu" | null, } | { "type": "queues", 
/**
 * The workspace whose task store changed.
 */
workspace: string, } | { "type": "runQueued", 
/**
 * The run's workspace.
 */
workspace: string, 
/**
 * The run, as its `run` event will name it.
 */
runId: string, 
/**
 * The routine that will run.
 */
routine: string, } | { "type": "runStarted", 
/**
 * The run's workspace.
 */
workspace: string, 
/**
 * The run, as its `run` event will name it.
 */
runId: string, 
/**
 * The routine that runs.
 */
routine: string, } | { "type": "account", 
/**
 * Someone is signed in now.
 */
signedIn: boolean, } | { "type": "run", 
/**
 * The run's workspace.
 */
workspace: string, 
/**
 * The run that finished.
 */
runId: string, 
/**
 * The routine that ran.
 */
routine: string, 
/**
 * `ok`, `error` or `denied`.
 */
status: "ok" | "error" | "denied", 
/**
 * How long it ran, in milliseconds.
 */
durationMs: number, 
/**
 * Why it failed, masked as its audit line is.
 */
error?: { name: string; message: string }, };

export type Workflows = { 
/**
 * This workspace's triggers are armed (fire on their own).
 */
armed: boolean, 
/**
 * Each routine with a trigger.
 */
workflows: Array<TriggeredRoutine>, 
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

export type TriggeredRoutine = { 
/**
 * The routine's id (`<app>/<routine>`).
 */
id: string, 
/**
 * The app the routine belongs to.
 */
app: string, 
/**
 * `schedule`, `webhook`, `notifications` — the triggers this machine answers.
 */
triggers: Array<string>, 
/**
 * Its cron schedule, when it has one (`0 8 * * *`: at 08:00 every day).
 */
schedule: string | null, 
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
next: string | null, 
/**
 * Its last run, when it ran.
 */
lastRun: LastRun | null, };

export type LastRun = { 
/**
 * The run's id.
 */
runId: string, 
/**
 * When it started, RFC 3339 UTC.
 */
ts: string, 
/**
 * `ok`, `error` or `denied`.
 */
status: "ok" | "error" | "denied", 
/**
 * What started it (the audit `source`).
 */
source: Source, };

export type TriggeredRun = { 
/**
 * The run's id.
 */
runId: string, 
/**
 * The routine that ran.
 */
routine: string, 
/**
 * When it started, RFC 3339 UTC.
 */
ts: string, 
/**
 * `ok`, `error` or `denied`.
 */
status: "ok" | "error" | "denied", 
/**
 * What started it.
 */
trigger: FiredBy, 
/**
 * How long it ran, in milliseconds.
 */
durationMs: number, 
/**
 * How long it waited for a concurrency slot before it started, when it did.
 */
queuedMs: number | null, };

export type FiredBy = "schedule" | "catch-up" | "webhook" | "notification";

export type Switched = { 
/**
 * Always `true`: a switch that fails is an error answer.
 */
ok: boolean, 
/**
 * The routine's id.
 */
id: string, 
/**
 * The switch's position now.
 */
active: boolean, 
/**
 * `routine list`'s state column (`active · <cron>`, `on demand`, `off`…).
 */
state: string, };

export type AgentsInfo = { 
/**
 * The live logins (revoked ones have nothing left to grant).
 */
agents: Array<AgentSummary>, 
/**
 * Every capability routine: the workspace default and each agent's answer.
 */
routines: RoutineGrants[], };

export type AgentSummary = { 
/**
 * The login's name, as the owner gave it (`cowork agent new <name>`).
 */
name: string, 
/**
 * The login's id: what grants and the audit name it by.
 */
id: string, 
/**
 * When the login's token last opened the door ; none if it never did.
 */
lastSeen: string | null, 
/**
 * Its token opens this workspace (it was made here, or the workspace was added to it).
 */
here: boolean, 
/**
 * Every workspace its token opens.
 */
workspaces: string[], };

export type NewAgent = { 
/**
 * The name the owner gave the login.
 */
name: string, 
/**
 * The login's id.
 */
id: string, 
/**
 * The bearer token the agent sends; shown this once, only its hash is kept.
 */
token: string, 
/**
 * The door's address the agent connects to.
 */
url: string, 
/**
 * Claude Code's command that connects it (local scope: private to the folder it runs in).
 */
claude: string, 
/**
 * Codex's `[mcp_servers.cowork]` block for `~/.codex/config.toml`.
 */
codex: string, };

export type Runs = { 
/**
 * Started and not finished, oldest first; a triggered run waiting for a slot is `queued`.
 */
running: Array<RunningRun>, 
/**
 * A page of finished runs, newest first.
 */
runs: Array<FinishedRun>, 
/**
 * The `before` of the next page, when there is one.
 */
next: string | null, };

export type FinishedRun = { 
/**
 * The run's id.
 */
runId: string, 
/**
 * When it started, RFC 3339 UTC.
 */
ts: string, 
/**
 * The routine that ran.
 */
routine: string, 
/**
 * The app the routine belongs to, when it belongs to one.
 */
app: string | null, 
/**
 * `ok`, `error` or `denied`.
 */
status: "ok" | "error" | "denied", 
/**
 * How long it ran, in milliseconds.
 */
durationMs: number, 
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
 * Who asked: the agent login, for a call through the MCP door (the audit's `principal`);
 * none when it was you (or a trigger you armed).
 */
principal: string | null, 
/**
 * The client it came through (`claude-code`, `codex` …) as the client named itself: a label
 * beside the login, never who — a client that names itself nothing is still its login.
 */
agent: string | null, 
/**
 * The task an agent ran it for.
 */
task: string | null, 
/**
 * Why it failed, masked as its audit line is.
 */
error: { name: string; message: string } | null, };

export type RunningRun = { 
/**
 * The run's id.
 */
runId: string, 
/**
 * The routine that runs (`<app>/<routine>`).
 */
routine: string, 
/**
 * The app the routine belongs to.
 */
app: string, 
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
 * Who asked: the agent login, for a call through the MCP door (the audit's `principal`);
 * none when it was you.
 */
principal: string | null, 
/**
 * The client it came through (`claude-code`, `codex` …) as the client named itself: a label
 * beside the login, never who.
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
runtime?: FoundRuntime | null, 
/**
 * Where Bun's install is, when the workbench offers it.
 */
install: BunInstall, };

export type FoundRuntime = { 
/**
 * `bun` or `node`.
 */
kind: string, 
/**
 * The runtime's version, as it reports it.
 */
version: string, };

export type BunInstall = { "state": "idle" } | { "state": "running", 
/**
 * Bytes downloaded so far.
 */
done: number, 
/**
 * The download's size, when the registry said it.
 */
total: number | null, } | { "state": "done", 
/**
 * The installed Bun's version.
 */
version: string, } | { "state": "failed", 
/**
 * What failed.
 */
message: string, 
/**
 * How to fix it.
 */
hint: string, };

export type AccountInfo = { 
/**
 * The hub this machine remembers (none before the first `cowork login --hub`).
 */
hub: string | null, 
/**
 * Who is signed in; none when nobody is.
 */
user: AccountUser | null, 
/**
 * The team servers the account is a member of.
 */
teamServers: Array<AccountTeamServer>, 
/**
 * When the hub last answered the updates poll (ms since the epoch).
 */
polledAt: number | null, 
/**
 * A sign-in started from a window waits for the browser.
 */
signingIn: boolean, };

export type AccountUser = { 
/**
 * The account's id on the hub.
 */
uid: string, 
/**
 * The address the account signs in with.
 */
email: string, 
/**
 * The name the workbench shows for the account.
 */
displayName: string, 
/**
 * The organization the account belongs to, when it belongs to one.
 */
organization: { id: string; slug: string; name: string } | null, 
/**
 * `browser`, `device`, `paste` or `password`.
 */
method: string, };

export type AccountTeamServer = { 
/**
 * The team server's short name, as commands and URLs spell it.
 */
slug: string, 
/**
 * The team server's name as people read it.
 */
name: string, 
/**
 * `owner`, `admin` or `member`.
 */
role: string, };

export type SignInStarted = { 
/**
 * The hub's sign-in page, to open in the browser.
 */
url: string, };

export type ConsentRequest = { 
/**
 * Answer with this id (`POST /api/consent/answer`).
 */
id: string, 
/**
 * The workspace the asking app belongs to.
 */
workspace: string, 
/**
 * The app that asks.
 */
app: string, 
/**
 * The app's title, as the dialog shows it.
 */
appTitle: string, 
/**
 * The routine that asks; none when a widget asks (`cowork.consent.request`).
 */
routine?: string, 
/**
 * The stable label the approval is remembered under.
 */
value: string, 
/**
 * The question's title, as the asker gave it.
 */
title: string | null, 
/**
 * More words under the title, as the asker gave them.
 */
description: string | null, 
/**
 * The command that will run, when it is a command.
 */
command: string | null, };

export type ConsentClosed = { 
/**
 * The [`ConsentRequest`]'s id.
 */
id: string, 
/**
 * Why it closed.
 */
closed: ClosedBecause, };

export type ClosedBecause = "answered" | "withdrawn";

export type ConsentEvent = ConsentClosed | ConsentRequest;

export type ConsentAnswer = { 
/**
 * The [`ConsentRequest`]'s id.
 */
id: string, 
/**
 * The person allowed it.
 */
granted: boolean, 
/**
 * Approve the value for the future too.
 */
remember: boolean, };

export type Answered = { 
/**
 * `false` when no question with that id was waiting (answered already, or gone).
 */
answered: boolean, };
