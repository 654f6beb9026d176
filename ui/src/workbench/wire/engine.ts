// Generated from the engine's and core's Rust types (crates/cowork-daemon/src/typescript.rs): do
// not edit. Refresh: COWORK_WRITE_TS=1 cargo test -p cowork-daemon typescript

export type DaemonNotification = { 
/**
 * The app it was posted as (its manifest `name`).
 */
app: string, 
/**
 * That app's title, which heads the banner.
 */
appTitle: string, 
/**
 * The notification's title (at most [`TITLE_MAX`] characters).
 */
title: string, 
/**
 * Its text (at most [`BODY_MAX`] characters).
 */
body?: string, 
/**
 * A later notification of the same app with this tag replaces it while it is not yet shown.
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

export type Display = "sidebar" | "tab" | "modal" | "right";

export type Risk = "low" | "medium" | "high";

export type Problem = { 
/**
 * The file, relative to the workspace root.
 */
file: string, 
/**
 * The dotted key inside the file, when the problem concerns one.
 */
key: string | null, 
/**
 * What is wrong and what Cowork did about it, e.g. `"display": "sideways" is not one of
 * sidebar, tab, modal, right — ignored`.
 */
message: string, };

export type RailFolder = { 
/**
 * The folder's id.
 */
id: string, 
/**
 * The folder's name.
 */
title: string, 
/**
 * Tile color `#rrggbb`.
 */
color?: string, 
/**
 * View-container ids (`workbench.view.cowork.app.<name>`), 1 to 24.
 */
members: Array<string>, };

export type RouteConflict = { 
/**
 * The glob.
 */
glob: string, 
/**
 * The app names claiming it, in folder order.
 */
claimants: Array<string>, 
/**
 * The app name that gets it now.
 */
chosen: string, 
/**
 * Whether `openWith` chose (otherwise: the first claimant, until the person answers).
 */
remembered: boolean, };

export type Badges = { 
/**
 * Each app's count, by name.
 */
apps: { [key in string]: number }, 
/**
 * The sum over the apps that are not muted.
 */
total: number, };

export type PreparedWidget = { 
/**
 * The widget file, relative to the app's folder.
 */
file: string, 
/**
 * Its CommonJS body, transpiled by oxc.
 */
code: string, 
/**
 * The modules it imports, checked against the allowlist.
 */
imports: Array<WidgetImport>, };

export type WidgetImport = { 
/**
 * The module as the source names it (`react`, `lucide-react` …).
 */
specifier: string, 
/**
 * The import's line in the source, from 1.
 */
line: number, 
/**
 * Its column, from 1.
 */
column: number, 
/**
 * The exports the widget takes by name, when it takes nothing else from the module (see
 * `cowork_transpile::Import::names`): the frame then loads only those of an icon set.
 */
names?: Array<string>, };

export type WidgetError = { 
/**
 * What kind of failure.
 */
name: WidgetErrorName, 
/**
 * The widget file, relative to the app's folder.
 */
file: string, 
/**
 * The line it points at, from 1, when it points at one.
 */
line?: number, 
/**
 * The column, from 1.
 */
column?: number, 
/**
 * What is wrong, in words.
 */
message: string, };

export type WidgetErrorName = "Unreadable" | "SyntaxError" | "ImportNotAllowed" | "NoDefaultExport" | "UnsupportedFile" | "Internal";

export type Setting = "allow" | "deny";

export type Answer = { 
/**
 * On or off.
 */
answer: Setting, 
/**
 * Set at this level, rather than inherited from the workspace default or the rule.
 */
set: boolean, };

export type RoutineGrants = { 
/**
 * The capability's package name.
 */
capability: string, 
/**
 * The routine's id.
 */
routine: string, 
/**
 * Its `risk` flags, which decide the rule's answer.
 */
risk: Risk, 
/**
 * Its manifest's description, shown beside the switch.
 */
description: string | null, 
/**
 * The workspace default's answer.
 */
default: Answer, 
/**
 * Agent name → its answer.
 */
agents: { [key in string]: Answer }, };

export type RunningRun = { 
/**
 * The run's id.
 */
runId: string, 
/**
 * Its routine.
 */
routine: string, 
/**
 * The app (or capability) the routine belongs to.
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

export type Digest = { 
/**
 * The cron this machine fires (a `deployed` schedule is the target's, not ours).
 */
schedule: string | null, 
/**
 * A webhook answers here.
 */
webhook: boolean, 
/**
 * The webhook asks for its hook token.
 */
hookToken: boolean, 
/**
 * The origin the webhook's answers allow (`*` when the deployment names none).
 */
corsOrigin: string | null, 
/**
 * The apps (or `*`) whose notifications start the routine, sorted.
 */
notifications: Array<string>, };

export type Source = "app" | "cli" | "mcp" | "webhook" | "schedule" | "system" | "deploy";
