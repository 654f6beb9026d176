/**
 * The daemon's workbench API: one typed function per route, and nothing else talks to the daemon.
 *
 * Every route but `/api/sdk/*` carries the owner token (`Authorization: Bearer …`, never a
 * cookie); `/api/sdk/<method>` carries the PANE's token, from which the daemon derives the app, so
 * a pane can only ever act as its own app. A failed call rejects with a `CoworkError` named as the
 * daemon named it (`NotFound`, `TooManyRoutines` …).
 */
import {
  CoworkError,
  type NotificationEvent,
  type OpenedFile,
  type StatusBarItem,
  type Widget,
  type WireError,
} from "@/frame/protocol"

/** A notification as the daemon sends it: stamped in RFC 3339 (see `session.ts`, which turns it into milliseconds). */
export type DaemonNotification = Omit<NotificationEvent, "at"> & { at: string }

export type Display = "sidebar" | "tab" | "modal" | "right"
export type Risk = "low" | "medium" | "high"

export interface Routine {
  id: string
  risk: Risk
  readOnly: boolean
  destructive: boolean
  reachesOthers: boolean
  description?: string
  disabled: boolean
}

/** What is wrong, where: a file (with `:line` for a widget's), the dotted key in it when there is one. */
export interface Problem {
  file: string
  key?: string | null
  message: string
}

export interface App {
  /** The folder under `.cowork/apps/`; what the on/off and mute switches name. */
  dir: string
  name: string
  title: string
  icon: string
  iconUrl?: string
  color?: string
  display: Display
  entry?: string
  /** `sidebar` only: an app file, or a routine returning `{path}`, opened once per session. */
  open?: string | { routine: string; args?: unknown }
  kind: "app" | "capability"
  enabled: boolean
  /** False when an earlier folder claimed the same name (this one is reported, not shown). */
  ownsName: boolean
  /** Declares neither `kind` nor `uses`: keeps its old access to every secret. */
  unrestricted?: boolean
  /** The manifest's problems, then its widgets' that would not run (a syntax error, an import outside the allowlist). */
  problems: Problem[]
  statusBar?: { routine: string; args?: unknown; interval?: number }
  routines: Routine[]
  /** A web site installed as an app: it draws only in the desktop app. */
  site: boolean
  /** A site app's count source, once the desktop app reported one. */
  unreadSource?: "badge" | "title" | "notifications" | null
}

export interface RailFolder {
  id: string
  title: string
  color?: string
  /** View-container ids, `workbench.view.cowork.app.<name>`. */
  members: string[]
}

export interface RouteConflict {
  glob: string
  claimants: string[]
  chosen: string
  remembered: boolean
}

export interface WorkbenchInfo {
  workspace: { path: string; name: string }
  apps: App[]
  broken: { dir: string; problems: Problem[] }[]
  problems: Problem[]
  rail: { folders: RailFolder[] }
  startup: { home?: string; left?: boolean; right?: boolean }
  muted: string[]
  badges: Badges
  notifications: DaemonNotification[]
  routeConflicts: RouteConflict[]
}

export interface Badges {
  apps: Record<string, number>
  total: number
}

export interface OpenedPane {
  paneId: string
  /** The frame page on the app's own origin. */
  src: string
  paneToken: string
  widget: Widget
}

export interface Route {
  app: string
  file: string
  glob: string
}

export interface FileEntry {
  name: string
  /** Workspace-relative. */
  path: string
  dir: boolean
}

/** What `/api/events` streams. */
export type DaemonEvent =
  | { type: "registry" }
  | { type: "widget"; app: string; file: string }
  | { type: "notification"; notification: DaemonNotification; replaced: boolean }
  | { type: "badge"; app: string; count: number; total: number }
  | { type: "log"; routine: string; runId: string; stream: string; line: string }
  /** A run finished (its error is in the audit log: `cowork routine runs`). */
  | { type: "run"; runId: string; routine: string; status: "ok" | "error" | "denied"; durationMs: number; error?: { name: string; message: string } }
  /** A pane's `cowork.app.post`, for every other pane of the app, in every window. */
  | { type: "appMessage"; app: string; fromPane: string; message: unknown }
  /** `cowork app open <file> [--as tab|dialog|sidemenu]` from a terminal. */
  | { type: "open"; app: string; file: string | null; as: "tab" | "dialog" | "sidemenu" | null }

let ownerToken = ""

/** The owner token every call but `/api/sdk/*` carries. */
export function setOwnerToken(token: string) {
  ownerToken = token
}

type Query = Record<string, string | undefined>

function url(path: string, query: Query = {}) {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value)
  const search = params.toString()
  return search ? `${path}?${search}` : path
}

async function call<T>(path: string, init: { body?: unknown; token?: string; query?: Query } = {}) {
  const response = await fetch(url(path, init.query), {
    method: init.body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${init.token ?? ownerToken}`,
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  if (!response.ok) throw await failure(response)
  return (await response.json()) as T
}

/** The daemon's error body (`{error: {name, message}}` or `{error: "…"}`), or the status. */
async function failure(response: Response) {
  const text = await response.text()
  try {
    const { error } = JSON.parse(text) as { error?: Partial<WireError> | string }
    if (typeof error === "string") return new CoworkError(errorName(response.status), error)
    if (error?.message) return CoworkError.from({ name: errorName(response.status), ...error } as WireError)
  } catch {
    // Not JSON: the text (or the status) is the message.
  }
  return new CoworkError(errorName(response.status), text || `${response.status} ${response.statusText}`)
}

function errorName(status: number) {
  if (status === 401 || status === 403) return "Unauthorized"
  if (status === 404) return "NotFound"
  if (status === 429) return "TooManyRoutines"
  return status >= 500 ? "DaemonError" : "BadRequest"
}

/** `GET /api/workbench`: everything the workbench draws; no workspace → the daemon's default. */
export const workbench = (workspace?: string) => call<WorkbenchInfo>("/api/workbench", { query: { workspace } })

/** `POST /api/panes`: a pane of `app` showing `file` — its frame page, token and widget. */
export const openPane = (body: { workspace: string; app: string; file: string; openedFile?: OpenedFile }) =>
  call<OpenedPane>("/api/panes", { body })

/** `POST /api/sdk/<method>` as the pane whose token this is: the SDK calls the daemon answers. */
export async function sdk(paneToken: string, method: string, params: unknown): Promise<unknown> {
  const answer = await call<{ ok: true; result: unknown } | { ok: false; error: WireError }>(
    `/api/sdk/${method}`,
    { body: params ?? {}, token: paneToken }
  )
  if (!answer.ok) throw CoworkError.from(answer.error)
  return answer.result
}

/** `POST /api/sdk/pane.close`: the pane is gone, so the daemon revokes its token. */
export const closePane = (paneToken: string) => sdk(paneToken, "pane.close", {})

/** `GET /api/route`: which app opens a workspace path, or null. */
export const route = (workspace: string, path: string) =>
  call<Route | null>("/api/route", { query: { workspace, path } })

/** `POST /api/open-with`: the app that opens a glob two apps claim, remembered. */
export const openWith = (workspace: string, glob: string, app: string) =>
  call<unknown>("/api/open-with", { body: { workspace, glob, app } })

/** `GET /api/files`: one folder of the workspace (`""` is its root). */
export const files = (workspace: string, path: string) =>
  call<FileEntry[]>("/api/files", { query: { workspace, path } })

/** `GET /api/file`: a workspace file's text (refused by name: `Binary`, `TooLarge`, `Forbidden`). */
export const readFile = (workspace: string, path: string) =>
  call<{ path: string; text: string; size: number }>("/api/file", { query: { workspace, path } })

/** `POST /api/apps/enable`: switches an app folder on or off. */
export const enableApp = (workspace: string, dir: string, enabled: boolean) =>
  call<unknown>("/api/apps/enable", { body: { workspace, app: dir, enabled } })

/** `POST /api/apps/mute`: mutes or unmutes an app folder's notifications. */
export const muteApp = (workspace: string, dir: string, muted: boolean) =>
  call<unknown>("/api/apps/mute", { body: { workspace, app: dir, muted } })

/** `POST /api/rail`: writes `workspace.json#rail.folders`. */
export const saveRail = (workspace: string, folders: RailFolder[]) =>
  call<unknown>("/api/rail", { body: { workspace, folders } })

/**
 * A footer routine's answer: the daemon answers a run that failed with 200 and `ok: false` (the
 * call itself worked), which becomes a rejection named as the routine's error.
 */
async function footerItem(answer: Promise<{ ok: true; item: StatusBarItem | null } | { ok: false; error: WireError }>) {
  const drawn = await answer
  if (!drawn.ok) throw CoworkError.from(drawn.error)
  return drawn.item
}

/** `GET /api/statusbar`: an app's footer item as its routine returns it (null hides it). */
export const statusBar = (workspace: string, app: string) =>
  footerItem(call("/api/statusbar", { query: { workspace, app } }))

/** `POST /api/statusbar/click`: runs an app's footer routine with a click's `args`. */
export const clickStatusBar = (workspace: string, app: string, args: unknown) =>
  footerItem(call("/api/statusbar/click", { body: { workspace, app, args } }))

/** `GET /api/events`: the open stream of daemon events (read it with `readEvents`). */
export async function events(workspace: string, signal: AbortSignal) {
  const response = await fetch(url("/api/events", { workspace }), {
    headers: { authorization: `Bearer ${ownerToken}`, accept: "text/event-stream" },
    signal,
  })
  if (!response.ok || !response.body) throw await failure(response)
  return response.body
}
