/**
 * The postMessage protocol between a widget pane's frame and the workbench that embeds it.
 *
 * The frame is an `<iframe sandbox="allow-scripts">` on the app's own origin, so its origin is
 * opaque ("null") and postMessage is its only way out. Every message carries `cowork: 1`, the
 * protocol version; a side ignores messages without it.
 *
 * * frame → host: `{cowork, event: "ready"}` once the frame can take its `init`, then requests
 *   `{cowork, id, method, params}` — `method` is the `window.cowork` member's path
 *   (`"routines.run"`, `"state.set"` …), `id` a number unique within the frame's document.
 * * host → frame: one answer per request, `{cowork, id, result}` or `{cowork, id, error}`, and
 *   events `{cowork, event, …}` (`init` first).
 *
 * Members that need no host (`state.get`, `visible`, `ui.confirm` built on `ui.dialog`, the
 * members whose backend is not there yet) never reach the wire.
 */

/** The version every message carries. */
export const PROTOCOL = 1

export type Theme = "light" | "dark"

/** Where the pane is: the left side bar, the right side bar, an editor tab or a modal. */
export type ViewKind = "sidebar" | "right" | "tab" | "modal"

/** Set when the widget was opened for a routed file or folder (a folder's glob ends in `/`). */
export interface OpenedFile {
  path: string
  workspaceRelativePath: string
  basename: string
  ext: string
  matchedGlob: string
}

/**
 * A widget as the daemon sends it (generated from its Rust types): ready to run — the body of
 * `new Function("require", "module", "exports", code)` and every module it requires, which the
 * frame loads before the code runs — or why it cannot (a syntax error, a refused import).
 */
export type { StatusBarItem, WireError, Widget } from "@/workbench/wire/daemon"
export type { PreparedWidget as WidgetCode, WidgetImport } from "@/workbench/wire/daemon"
import type { StatusBarItem, WireError, Widget } from "@/workbench/wire/daemon"

export interface NotificationEvent {
  app: string
  appTitle: string
  title: string
  body?: string
  tag?: string
  urgent?: boolean
  /** When it was raised, in milliseconds since the epoch. */
  at: number
}

export interface NotifyOptions {
  title: string
  body?: string
  tag?: string
  urgent?: boolean
}

export interface DialogField {
  id: string
  type: "text" | "textarea" | "number" | "checkbox" | "select" | "color" | "section"
  label?: string
  value?: string | number | boolean
  placeholder?: string
  monospace?: boolean
  options?: { label: string; value: string }[]
}

export interface DialogButton {
  label: string
  role?: "submit" | "cancel"
  primary?: boolean
  destructive?: boolean
  card?: boolean
  sublabel?: string
  values?: Record<string, unknown>
}

export interface DialogOptions {
  message: string
  detail?: string
  type?: string
  fields?: DialogField[]
  buttons?: DialogButton[]
  alert?: { variant?: "default" | "destructive"; text: string }
  scope?: "window" | "pane"
}

/** The button pressed (`null` for Cancel or Esc) and the fields' values by id. */
export interface DialogResult {
  label: string | null
  values: Record<string, unknown>
}

export interface Credential {
  name: string
  kind: "oauth" | "key" | "both"
  state: "connected" | "needs-scopes" | "not-connected"
  account?: { email: string }
  missingScopes: string[]
  usedBy: string[]
  fields?: string[]
  url?: string
  hint?: string
  /** `connect` of a sign-in: the service's consent page, which the workbench opened. */
  authUrl?: string
}

export interface CaptureOptions {
  video?: "screen" | "window" | false
  audio?: { system?: boolean; mic?: boolean }
  live?: boolean
  file?: string
}

/** A recording's end: its file, why in words, and the error name when something other than a stop ended it. */
export interface CaptureStopped {
  file: string
  reason: string
  error?: "DiskFull" | "Unavailable"
}

/** A button in the title bar of the pane (`cowork.setTitleActions`): a codicon, else its label. */
export interface TitleAction {
  id: string
  label?: string
  icon?: string
  tooltip?: string
}

/** The most class names one `styles.compile` may carry (the frame sends more in several). */
export const CLASSES_PER_REQUEST = 2_000

/** Every request: its params and what it resolves to. */
export interface Methods {
  "routines.run": { params: { id: string; args: unknown; timeoutMs?: number }; result: unknown }
  /** Joins (or starts) the app's shared loop for this routine and args; answers arrive as events. */
  "routines.subscribe": {
    params: { sub: string; id: string; args: unknown; interval: number; timeoutMs?: number }
    result: null
  }
  /** Resolves after the fresh answer's `subscription` event was sent. */
  "routines.refresh": { params: { sub: string }; result: null }
  "routines.unsubscribe": { params: { sub: string }; result: null }
  "routines.runs": { params: { id?: string; app?: string }; result: unknown[] }
  "app.post": { params: { message: unknown }; result: null }
  "credentials.get": { params: { name: string }; result: Credential }
  "credentials.connect": {
    params: { name: string; fields?: Record<string, string> }
    result: Credential
  }
  "state.set": { params: { value: unknown }; result: null }
  /** One task-queue or journal operation (cowork-queue's `Call`: `{ method, queue?, … }`). */
  queue: { params: { method: string } & Record<string, unknown>; result: unknown }
  "tables.schema": { params: { db: string }; result: unknown }
  "tables.query": {
    params: { db: string; sql: string; params?: unknown[]; limit?: number; cursor?: string }
    result: unknown
  }
  "tables.exec": { params: { db: string; sql: string; params?: unknown[] }; result: unknown }
  openFile: { params: { path: string }; result: null }
  openExternal: { params: { url: string }; result: null }
  "browser.open": { params: { url: string }; result: { embedded: boolean } }
  "browser.status": {
    params: Record<string, never>
    result: { open: boolean; tabs: { url: string; title: string; active: boolean }[] } | null
  }
  notify: { params: NotifyOptions; result: null }
  badge: { params: { count: number }; result: null }
  log: { params: { level: "info" | "error"; parts: string[] }; result: null }
  "capture.record": { params: CaptureOptions; result: { id: string; file: string } }
  "capture.shot": {
    params: { source?: "screen" | "window"; file?: string; image?: boolean }
    result: { path?: string; image?: Blob }
  }
  "capture.current": { params: Record<string, never>; result: { id: string; file: string } | null }
  "capture.stop": { params: { id: string }; result: null }
  "agent.setContext": { params: { value: unknown }; result: null }
  /** `auto` when the frame sends the user's own text selection, not the widget. */
  "agent.select": { params: { text: string; auto?: boolean }; result: null }
  "agent.clearContext": { params: Record<string, never>; result: null }
  "agent.clearSelection": { params: Record<string, never>; result: null }
  "ui.dialog": { params: DialogOptions; result: DialogResult }
  "chat.ask": { params: { text: string }; result: null }
  "consent.request": {
    params: { value: string; title: string; body: string; detail?: string }
    result: { granted: boolean; ticket?: string; message?: string }
  }
  /** Starts a stream (`cowork.stream.open`); its output and end arrive as `stream` events. */
  "stream.open": {
    params: { argv: string[]; consent?: string; cols?: number; rows?: number }
    result: { id: string }
  }
  "stream.write": { params: { id: string; data: string }; result: null }
  "stream.resize": { params: { id: string; cols: number; rows: number }; result: null }
  "stream.close": { params: { id: string }; result: null }
  /** The frame handed `bytes` of the stream's output to the widget: the host sends more. */
  "stream.ack": { params: { id: string; bytes: number }; result: null }
  "identity.currentUser": {
    params: Record<string, never>
    result: { uid: string; email: string } | null
  }
  viewSource: { params: Record<string, never>; result: null }
  setTitleActions: { params: { actions: TitleAction[] }; result: null }
  closeTab: { params: Record<string, never>; result: null }
  "statusBar.refresh": { params: { app?: string }; result: null }
  "statusBar.click": { params: { app: string }; result: null }
  /**
   * The frame's own: classes it found in its document that its stylesheet may lack. Answers the
   * pane's whole stylesheet (src/host/styles.ts).
   */
  "styles.compile": { params: { classes: string[] }; result: string }
}

export type Method = keyof Methods
export type Params<M extends Method> = Methods[M]["params"]
export type Result<M extends Method> = Methods[M]["result"]

/** Every method, for checking a request's `method` at run time. */
export const METHODS = Object.keys({
  "routines.run": 1,
  "routines.subscribe": 1,
  "routines.refresh": 1,
  "routines.unsubscribe": 1,
  "routines.runs": 1,
  "app.post": 1,
  "credentials.get": 1,
  "credentials.connect": 1,
  "state.set": 1,
  queue: 1,
  "tables.schema": 1,
  "tables.query": 1,
  "tables.exec": 1,
  openFile: 1,
  openExternal: 1,
  "browser.open": 1,
  "browser.status": 1,
  notify: 1,
  badge: 1,
  log: 1,
  "capture.record": 1,
  "capture.shot": 1,
  "capture.current": 1,
  "capture.stop": 1,
  "agent.setContext": 1,
  "agent.select": 1,
  "agent.clearContext": 1,
  "agent.clearSelection": 1,
  "ui.dialog": 1,
  "chat.ask": 1,
  "consent.request": 1,
  "stream.open": 1,
  "stream.write": 1,
  "stream.resize": 1,
  "stream.close": 1,
  "stream.ack": 1,
  "identity.currentUser": 1,
  viewSource: 1,
  setTitleActions: 1,
  closeTab: 1,
  "statusBar.refresh": 1,
  "statusBar.click": 1,
  "styles.compile": 1,
} satisfies Record<Method, 1>) as Method[]

export type Request<M extends Method = Method> = { id: number; method: M; params: Params<M> }

export type Response = { id: number; result: unknown } | { id: number; error: WireError }

/** The first event: who the pane is, what it shows, and the widget to run. */
export interface InitEvent {
  event: "init"
  app: string
  paneId: string
  view: ViewKind
  theme: Theme
  /** In the desktop app (in-IDE browser and capture exist), not a browser tab. */
  desktop: boolean
  workspaceRoot: string
  openedFile: OpenedFile | null
  /** The view's persisted `cowork.state`, or null. */
  state: unknown
  visible: boolean
  /** Every app's footer item, so `cowork.statusBar.get` answers at once. */
  statusBar: Record<string, StatusBarItem | null>
  widget: Widget
  /** The widget's Tailwind stylesheet, compiled by the workbench (src/host/styles.ts). */
  css: string
}

export type HostEvent =
  | InitEvent
  | { event: "theme"; theme: Theme }
  | { event: "visible"; visible: boolean }
  /** A message another pane of the app posted (`app.onMessage`). */
  | { event: "message"; message: unknown }
  | { event: "notification"; notification: NotificationEvent }
  | { event: "statusBar"; app: string; item: StatusBarItem | null }
  | { event: "subscription"; sub: string; data: unknown }
  | { event: "subscription"; sub: string; error: WireError }
  /** New code for the widget (hot reload); `cowork.state` is kept. */
  | { event: "reload"; widget: Widget; css: string }
  | { event: "titleAction"; id: string }
  /** Live audio of a recording: 20 ms of 16 kHz mono. */
  | { event: "capture"; id: string; audio: Int16Array }
  | { event: "capture"; id: string; stopped: CaptureStopped }
  /** A stream's output, as the process wrote it. */
  | { event: "stream"; id: string; data: Uint8Array }
  /** A stream ended: the exit code, or `null` when a signal (or its closing) ended it. */
  | { event: "stream"; id: string; end: { code: number | null } }

export type FrameEvent =
  | { event: "ready" }
  /** Esc pressed in the pane and left unused by the widget: the workbench's to act on (a modal closes). */
  | { event: "escape" }

type Versioned<T> = T & { cowork: typeof PROTOCOL }

export type FrameMessage = Versioned<FrameEvent> | Versioned<Request>
export type HostMessage = Versioned<Response> | Versioned<HostEvent>

/** Whether `data` is a message of this protocol version (any other postMessage is ignored). */
export function isCoworkMessage(data: unknown): data is { cowork: typeof PROTOCOL } {
  return (
    typeof data === "object" && data !== null && (data as { cowork?: unknown }).cowork === PROTOCOL
  )
}

/** What crosses the wire for a thrown value: its name, message and run, nothing else. */
export function toWireError(error: unknown): WireError {
  if (typeof error === "object" && error !== null) {
    const { name, message, runId } = error as Partial<WireError>
    return {
      name: typeof name === "string" && name ? name : "Error",
      message: typeof message === "string" ? message : String(error),
      ...(typeof runId === "string" ? { runId } : {}),
    }
  }
  return { name: "Error", message: String(error) }
}

/** An `Error` named as the wire says (`e.name === "NotConnected"`), with its `runId` if any. */
export class CoworkError extends Error {
  runId?: string

  constructor(name: string, message: string, runId?: string) {
    super(message)
    this.name = name
    if (runId !== undefined) this.runId = runId
  }

  static from(wire: WireError) {
    return new CoworkError(wire.name, wire.message, wire.runId)
  }
}
