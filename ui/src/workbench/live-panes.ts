/**
 * The panes on screen: each one's frame, its pane token, and whether it is visible. Events for
 * panes go out through here, and the shared subscription loops run here. A leaf: the modules that
 * answer a pane (handler, footer, navigation) import it; `pane-attach.ts` fills it.
 */
import { CoworkError, type Params } from "@/frame/protocol"
import type { Pane, PaneEvent } from "@/host/panes"
import * as api from "./api"
import { cancelPaneDialogs } from "./dialogs"
import { update, type PaneSpec } from "./store"
import { createSubscriptions } from "./subscriptions"

export interface LivePane {
  spec: PaneSpec
  /** The daemon's name for the pane (what its `appMessage` events say it sent). Renewed by a hot reload. */
  paneId?: string
  /** The daemon's pane token: what `/api/sdk/*` calls carry. Renewed by a hot reload. */
  token?: string
  frame?: Pane
  visible: boolean
}

/** `TooManyRoutines` is waited out: retries start after this and double up to the cap. */
const BUSY_RETRY_MS = 250
const BUSY_RETRY_MAX_MS = 4000
const DEFAULT_TIMEOUT_MS = 30_000

const live = new Map<string, LivePane>()
/** Tailwind's compiler, a chunk of its own: the rail paints before it arrives (src/host/styles.ts). */
export const styles = () => import("@/host/styles")
const tokenWaiters = new Map<string, ((token: string) => void)[]>()

export const subscriptions = createSubscriptions(async (app, id, args, timeoutMs) =>
  runRoutine(await tokenFor(app), { id, args, timeoutMs }),
)

/** The key `cowork.state` is kept under: one per view of a widget (and routed file). */
export const stateView = (spec: PaneSpec) =>
  [spec.view, spec.file, spec.openedFile?.workspaceRelativePath].filter(Boolean).join(":")

const stateCalls = new Map<string, Promise<void>>()

/**
 * `call` (a `state.get` or `state.set` of `spec`'s view) once the view's earlier calls answered:
 * two sets on their way at once travel on two connections, and the older could land last (the
 * pane reopened to the count before its last click); a pane opened meanwhile reads after them.
 */
export function inViewOrder<T>(spec: PaneSpec, call: () => Promise<T>): Promise<T> {
  const key = `${spec.app}/${stateView(spec)}`
  const turn = (stateCalls.get(key) ?? Promise.resolve()).then(call)
  const answered = turn.then(
    () => {},
    () => {},
  )
  stateCalls.set(key, answered)
  void answered.then(() => stateCalls.get(key) === answered && stateCalls.delete(key))
  return turn
}

/** A pane being opened: it is the one `live` holds for its key until `detach` or a newer one. */
export function register(entry: LivePane) {
  live.set(entry.spec.key, entry)
}

/** Whether `entry` is still the pane on screen for its key (it was not closed while awaiting). */
export function isCurrent(entry: LivePane) {
  return live.get(entry.spec.key) === entry
}

/** The open panes, in the order they were opened. */
export function livePanes() {
  return [...live.values()]
}

/** The pane's token works: whoever waits for one of its app's tokens gets it. */
export function tokenReady(app: string, token: string) {
  for (const resolve of tokenWaiters.get(app) ?? []) resolve(token)
  tokenWaiters.delete(app)
}

/** The pane was closed: its frame stops, and its token stops working on the daemon. */
export function detach(key: string) {
  const entry = live.get(key)
  if (!entry) return
  live.delete(key)
  entry.frame?.dispose()
  subscriptions.dropPane(key)
  cancelPaneDialogs(key)
  update((s) => ({
    titleActions: Object.fromEntries(
      Object.entries(s.titleActions).filter(([pane]) => pane !== key),
    ),
  }))
  if (entry.token) revoke(entry.token)
}

/**
 * Tells the daemon a pane token is no longer used (`pane.close`). Best effort: the pane is gone
 * either way, and a daemon that does not know the method yet answers `NotFound`, which changes
 * nothing for the person.
 */
export function revoke(token: string) {
  api.closePane(token).catch(() => {})
}

export function setVisible(key: string, visible: boolean) {
  const entry = live.get(key)
  if (!entry || entry.visible === visible) return
  entry.visible = visible
  entry.frame?.send({ event: "visible", visible })
  subscriptions.visibility(key, entry.spec.app, visible)
}

/** Sends `event` to every pane, or to `app`'s panes only; `exceptPaneId` skips that pane. */
export function broadcast(event: PaneEvent, app?: string, exceptPaneId?: string) {
  for (const entry of live.values()) {
    if (entry.paneId !== exceptPaneId && (app === undefined || entry.spec.app === app))
      entry.frame?.send(event)
  }
}

/** An event for the one pane the daemon calls `paneId` (a recording's audio and end). */
export function sendToPane(paneId: string, event: PaneEvent) {
  for (const entry of live.values()) if (entry.paneId === paneId) entry.frame?.send(event)
}

/** A click on one of the pane's title-bar buttons (`cowork.onTitleAction`). */
export function sendTitleAction(key: string, id: string) {
  live.get(key)?.frame?.send({ event: "titleAction", id })
}

/** A token of one of `app`'s panes, waiting for one to open if none is. */
export function tokenFor(app: string): Promise<string> {
  for (const entry of live.values())
    if (entry.spec.app === app && entry.token) return Promise.resolve(entry.token)
  return new Promise((resolve) =>
    tokenWaiters.set(app, [...(tokenWaiters.get(app) ?? []), resolve]),
  )
}

/** Runs a routine as the token's app; a busy daemon (`TooManyRoutines`) is waited out. */
export async function runRoutine(token: string, params: Params<"routines.run">) {
  const deadline = Date.now() + (params.timeoutMs ?? DEFAULT_TIMEOUT_MS)
  for (let wait = BUSY_RETRY_MS; ; wait = Math.min(wait * 2, BUSY_RETRY_MAX_MS)) {
    try {
      return await api.sdk(token, "routines.run", params)
    } catch (error) {
      if (
        !(error instanceof CoworkError) ||
        error.name !== "TooManyRoutines" ||
        Date.now() + wait > deadline
      ) {
        throw error
      }
    }
    await new Promise((resolve) => setTimeout(resolve, wait))
  }
}
