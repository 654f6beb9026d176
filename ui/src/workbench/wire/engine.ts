// Generated from the engine's and core's Rust types (crates/cowork-daemon/src/typescript.rs): do
// not edit. Refresh: COWORK_WRITE_TS=1 cargo test -p cowork-daemon typescript

export type DaemonNotification = { 
/**
 * The app it was posted as (its manifest `name`).
 */
app: string, appTitle: string, title: string, body?: string, tag?: string, urgent: boolean, 
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

export type Badges = { apps: { [key in string]: number }, total: number, };

export type PreparedWidget = { file: string, code: string, imports: Array<WidgetImport>, };

export type WidgetImport = { specifier: string, line: number, column: number, 
/**
 * The exports the widget takes by name, when it takes nothing else from the module (see
 * `cowork_transpile::Import::names`): the frame then loads only those of an icon set.
 */
names?: Array<string>, };

export type WidgetError = { name: WidgetErrorName, file: string, line?: number, column?: number, message: string, };

export type WidgetErrorName = "Unreadable" | "SyntaxError" | "ImportNotAllowed" | "NoDefaultExport" | "UnsupportedFile" | "Internal";

export type Setting = "allow" | "deny";

export type Answer = { answer: Setting, set: boolean, };

export type RoutineGrants = { capability: string, routine: string, risk: Risk, description: string | null, default: Answer, 
/**
 * Agent name → its answer.
 */
agents: { [key in string]: Answer }, };

export type RunningRun = { runId: string, routine: string, app: string, 
/**
 * When it started, RFC 3339 UTC with milliseconds (as an audit line's `ts`); while it is
 * `queued`, when it was queued.
 */
started: string, 
/**
 * The audit `source`: `app`, `cli`, `mcp`, `webhook`, `schedule` or `system`.
 */
source: string, 
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
