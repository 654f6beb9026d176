/**
 * The workbench's side of widget panes.
 *
 * `mountPane` points a sandboxed iframe at the app's frame page, answers the frame's requests
 * through the workbench's `handler` (which talks to the daemon with a token naming the pane's
 * app), and sends it events. Every sandboxed frame's origin is "null", so a message is told
 * apart by its sender: `event.source === iframe.contentWindow` picks the pane. What a pane may
 * do is decided by the `app` it was mounted with, never by anything the frame says.
 *
 * ```ts
 * const pane = mountPane(iframe, { src, app: "notes", paneId: "notes:sidebar", view: "sidebar",
 *   theme: "dark", desktop: false, workspaceRoot, widget }, (method, params, pane) =>
 *   daemon.call(pane.app, method, params))
 * pane.send({ event: "theme", theme: "light" })
 * ```
 */
import {
  METHODS,
  PROTOCOL,
  isCoworkMessage,
  toWireError,
  type FrameMessage,
  type HostEvent,
  type HostMessage,
  type InitEvent,
  type Method,
  type Params,
  type Response,
} from "../frame/protocol"

/** What a pane shows; the fields of its `init`, with defaults for the optional ones. */
export type PaneOptions = Omit<
  InitEvent,
  "event" | "openedFile" | "state" | "visible" | "statusBar"
> &
  Partial<Pick<InitEvent, "openedFile" | "state" | "visible" | "statusBar">> & {
    /** The frame page on the app's origin, e.g. `http://notes-1a2b.app.localhost:7420/frame.html`. */
    src: string
    /**
     * The frame's document started over (it reloaded) or the pane was disposed: whatever it had
     * open on the host (its subscriptions) is gone.
     */
    onReset?: (pane: Pane) => void
    /** The person pressed Esc in the frame and the widget did not use it. */
    onEscape?: (pane: Pane) => void
  }

/** Answers one request of a pane; what it throws reaches the widget as `{name, message, runId}`. */
export type PaneHandler = (method: Method, params: Params<Method>, pane: Pane) => Promise<unknown>

/** Events the host sends after `init` (which the pane sends itself). */
export type PaneEvent = Exclude<HostEvent, InitEvent>

export interface Pane {
  readonly app: string
  readonly paneId: string
  readonly iframe: HTMLIFrameElement
  /** The view's state as the widget last set it (`cowork.state.set`). */
  readonly state: unknown
  /**
   * Sends an event to the frame once it is ready. `theme`, `visible`, `statusBar` and `reload`
   * also update what a frame that reloads gets in its `init`. `transfer` moves those buffers
   * into the frame instead of copying them (a stream's output: in Chromium, where the frame is
   * another process, a clone ran ~4× slower than a move).
   */
  send(event: PaneEvent, transfer?: Transferable[]): void
  /** Stops answering the frame and forgets the pane. */
  dispose(): void
}

type Mounted = { iframe: HTMLIFrameElement; receive(message: FrameMessage): void }

const mounted = new Set<Mounted>()
let listening = false

/** Frames whose page said `ready` before their pane was mounted (they started loading early: `loadFrame`). */
const readyEarly = new WeakSet<MessageEventSource>()

function onMessage(event: MessageEvent) {
  // A pane's frame is sandboxed without allow-same-origin, so its origin is always "null".
  if (event.origin !== "null" || !isCoworkMessage(event.data)) return
  for (const pane of mounted) {
    if (pane.iframe.contentWindow === event.source) return pane.receive(event.data as FrameMessage)
  }
  const message = event.data as FrameMessage
  if (event.source && "event" in message && message.event === "ready") readyEarly.add(event.source)
}

function listen() {
  if (listening) return
  window.addEventListener("message", onMessage)
  listening = true
}

/** No same-origin access, no top navigation, no popups (see `mountPane`). */
function isolate(iframe: HTMLIFrameElement) {
  // allow-forms because without it Chromium blocks a form's submission before it fires `submit`
  // (measured), so a widget's `<form onSubmit={(e) => { e.preventDefault(); … }}>` (every shadcn
  // form) would never run. Never allow-same-origin, which would hand the frame an origin and its
  // storage.
  iframe.setAttribute("sandbox", "allow-scripts allow-forms")
}

/**
 * Starts loading a pane's frame page before its pane is mounted — while the daemon opens the
 * pane — so the two overlap. `mountPane` with the same `src` keeps the page, and answers its
 * `ready` even when it came first.
 */
export function loadFrame(iframe: HTMLIFrameElement, src: string) {
  isolate(iframe)
  listen()
  iframe.src = src
}

export function mountPane(
  iframe: HTMLIFrameElement,
  { src, onReset, onEscape, ...options }: PaneOptions,
  handler: PaneHandler,
): Pane {
  isolate(iframe)
  let init: InitEvent = {
    event: "init",
    openedFile: null,
    state: null,
    visible: true,
    statusBar: {},
    ...options,
  }
  let ready = false
  let disposed = false

  function post(message: HostMessage, transfer?: Transferable[]) {
    if (transfer) iframe.contentWindow?.postMessage(message, "*", transfer)
    else iframe.contentWindow?.postMessage(message, "*")
  }

  function respond(response: Response) {
    if (disposed) return
    try {
      post({ cowork: PROTOCOL, ...response })
    } catch (error) {
      // A result postMessage cannot clone becomes the request's error.
      post({ cowork: PROTOCOL, id: response.id, error: toWireError(error) })
    }
  }

  const pane: Pane = {
    app: options.app,
    paneId: options.paneId,
    iframe,
    get state() {
      return init.state
    },
    send(event, transfer) {
      init = absorb(init, event)
      if (ready && !disposed) post({ cowork: PROTOCOL, ...event }, transfer)
    },
    dispose() {
      if (disposed) return
      disposed = true
      mounted.delete(entry)
      onReset?.(pane)
    },
  }

  const entry: Mounted = {
    iframe,
    receive(message) {
      if ("event" in message) {
        if (message.event === "escape") return void (ready && onEscape?.(pane))
        if (ready) onReset?.(pane)
        ready = true
        return post({ cowork: PROTOCOL, ...init })
      }
      const { id, method, params } = message
      if (typeof id !== "number") return
      if (!METHODS.includes(method)) {
        return respond({
          id,
          error: { name: "NotFound", message: `cowork has no method "${method}"` },
        })
      }
      Promise.resolve()
        .then(() => handler(method, params ?? {}, pane))
        .then(
          (result) => {
            // Kept for a frame that starts over, once the daemon took it.
            if (method === "state.set")
              init = { ...init, state: (params as Params<"state.set">).value }
            respond({ id, result: result ?? null })
          },
          (error) => respond({ id, error: toWireError(error) }),
        )
    },
  }

  mounted.add(entry)
  listen()
  const frame = iframe.contentWindow
  if (iframe.getAttribute("src") !== src) iframe.src = src
  else if (frame && readyEarly.delete(frame)) entry.receive({ cowork: PROTOCOL, event: "ready" })
  return pane
}

/** The `init` a frame that starts over should get, after `event`. */
function absorb(init: InitEvent, event: PaneEvent): InitEvent {
  switch (event.event) {
    case "theme":
      return { ...init, theme: event.theme }
    case "visible":
      return { ...init, visible: event.visible }
    case "statusBar":
      return { ...init, statusBar: { ...init.statusBar, [event.app]: event.item } }
    case "reload":
      return { ...init, widget: event.widget, css: event.css }
    default:
      return init
  }
}
