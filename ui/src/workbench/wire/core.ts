// Generated from core's Rust types (crates/cowork-wire/src/daemon/typescript.rs): do not
// edit. Refresh: COWORK_WRITE_TS=1 cargo test -p cowork-wire --lib typescript

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
agents: { [key in string]: Answer }, 
/**
 * Why no agent can run it now whatever is granted — `not connected`: its capability's
 * connection is not connected (what `list_capabilities` says); none when it can.
 */
unavailable: string | null, };

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
