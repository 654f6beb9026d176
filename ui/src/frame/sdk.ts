/**
 * `window.cowork`: the widget's SDK, a client of the host over the protocol in `protocol.ts`.
 *
 * Reads that need no round trip answer from the frame (`state.get`, `visible`, `statusBar.get`,
 * `openedFile`); everything else is a request the host answers. Capture, a desktop-app
 * member, rejects `Unsupported` outside it.
 */
import type { Client } from "./client"
import { listeners, report } from "./listeners"
import {
  CoworkError,
  type CaptureOptions,
  type CaptureStopped,
  type DialogOptions,
  type InitEvent,
  type NotificationEvent,
  type NotifyOptions,
  type Params,
  type StatusBarItem,
  type TitleAction,
} from "./protocol"

/** `routines.subscribe` polls no faster than this, and this often unless told. */
const MIN_INTERVAL_S = 5
const DEFAULT_INTERVAL_S = 60

export interface SubscribeOptions {
  interval?: number
  timeoutMs?: number
  onData?: (data: unknown) => void
  onError?: (error: Error) => void
}

export interface Subscription {
  /** A fresh run; resolves once its answer reached `onData` or `onError` — it never rejects. */
  refresh(): Promise<void>
  close(): void
}

export interface CaptureSession {
  id: string
  file: string
  onAudio(callback: (frame: Int16Array) => void): () => void
  onStop(callback: (stopped: CaptureStopped) => void): () => void
  stop(): Promise<void>
}

export interface StreamOptions {
  argv: string[]
  /** A ticket from `consent.request` for this argv (none when it is approved ahead). */
  consent?: string
  /**
   * The output as the process wrote it (bytes: `new TextDecoder()` for text). A promise returned
   * holds the stream until it settles (xterm.js: `term.write(chunk, done)`), so what the widget has
   * not handled yet, not what it was merely handed, is what the relay's window bounds.
   */
  onData?: (chunk: Uint8Array) => unknown
  /** The exit code, or `null` when a signal (or `close()`) ended it. */
  onEnd?: (end: { code: number | null }) => void
  /** The terminal's size (80 × 24 unless told). */
  cols?: number
  rows?: number
}

export interface StreamHandle {
  id: string
  write(data: string): void
  resize(cols: number, rows: number): void
  close(): void
}

export interface ConfirmOptions {
  title?: string
  body?: string
  confirmLabel?: string
  cancelLabel?: string
  destructive?: boolean
}

/**
 * The SDK (`cowork`) and what the frame runtime drives it with: `reset()` forgets the widget's
 * listeners and subscriptions before a reloaded widget runs; `selected(text)` passes the user's
 * selection to the agent unless the widget turned that off.
 */
export type Sdk = ReturnType<typeof createCowork>
export type Cowork = Sdk["cowork"]

export function createCowork(client: Client, init: InitEvent) {
  const request = client.request
  const desktop = init.desktop
  let state: unknown = init.state ?? null
  let visible = init.visible
  let autoSelection = true
  const statusBarItems = new Map(Object.entries(init.statusBar))

  const messageListeners = listeners<[unknown]>()
  const notificationListeners = listeners<[NotificationEvent]>()
  const visibilityListeners = listeners<[boolean]>()
  const statusBarListeners = listeners<[string, StatusBarItem | null]>()
  const titleActionListeners = listeners<[string]>()

  client.on("message", (event) => messageListeners.emit(event.message))
  client.on("notification", (event) => notificationListeners.emit(event.notification))
  client.on("titleAction", (event) => titleActionListeners.emit(event.id))
  client.on("visible", (event) => {
    visible = event.visible
    visibilityListeners.emit(visible)
  })
  client.on("statusBar", (event) => {
    statusBarItems.set(event.app, event.item)
    statusBarListeners.emit(event.app, event.item)
  })

  // Streams: the host relays each one's output; the frame acknowledges what the widget handled
  // (a promise onData returns settled), so the relay's window bounds what waits in the widget.
  const streams = new Map<string, StreamOptions>()
  client.on("stream", (event) => {
    const handlers = streams.get(event.id)
    if (!handlers) return
    if ("end" in event) {
      streams.delete(event.id)
      handlers.onEnd?.(event.end)
      return
    }
    const ack = () =>
      void request("stream.ack", { id: event.id, bytes: event.data.length }).catch(report)
    let handled: unknown
    try {
      handled = handlers.onData?.(event.data)
    } finally {
      Promise.resolve(handled).then(ack, ack)
    }
  })

  async function openStream(options: StreamOptions): Promise<StreamHandle> {
    const { argv, consent, cols, rows } = options
    const { id } = await request("stream.open", { argv, consent, cols, rows })
    streams.set(id, options)
    // Once the stream has ended (or was closed), its process is gone: a keystroke or a resize
    // after that (xterm.js fits itself to the "ended" banner) goes nowhere, and is no error. One
    // sent as it ended answers NotFound, which says the same.
    let closed = false
    const send = (call: () => Promise<unknown>) => {
      if (closed || !streams.has(id)) return
      void call().catch((error) => {
        if (!(error instanceof CoworkError && error.name === "NotFound")) report(error)
      })
    }
    return {
      id,
      write: (data: string) => send(() => request("stream.write", { id, data })),
      resize: (cols: number, rows: number) =>
        send(() => request("stream.resize", { id, cols, rows })),
      close: () => {
        send(() => request("stream.close", { id }))
        closed = true
      },
    }
  }

  // Subscriptions: the host owns the loop; the frame keeps each one's callbacks by id.
  let lastSub = 0
  const subscriptions = new Map<string, SubscribeOptions>()
  client.on("subscription", (event) => {
    const handlers = subscriptions.get(event.sub)
    if (!handlers) return
    if ("error" in event) handlers.onError?.(CoworkError.from(event.error))
    else handlers.onData?.(event.data)
  })

  function subscribe(id: string, args?: unknown, options: SubscribeOptions = {}): Subscription {
    const sub = `s${++lastSub}`
    subscriptions.set(sub, options)
    const fail = (error: Error) => subscriptions.get(sub)?.onError?.(error)
    const interval = Math.max(MIN_INTERVAL_S, options.interval ?? DEFAULT_INTERVAL_S)
    request("routines.subscribe", {
      sub,
      id,
      args: args ?? {},
      interval,
      timeoutMs: options.timeoutMs,
    }).catch(fail)
    return {
      refresh: async () => {
        if (!subscriptions.has(sub)) return
        await request("routines.refresh", { sub }).catch(fail)
      },
      close: () => {
        if (subscriptions.delete(sub)) request("routines.unsubscribe", { sub }).catch(report)
      },
    }
  }

  // Recordings: listeners per session, so a remounted pane can attach again (`capture.current`).
  const sessions = new Map<string, ReturnType<typeof sessionListeners>>()
  function sessionListeners() {
    return { audio: listeners<[Int16Array]>(), stop: listeners<[CaptureStopped]>() }
  }
  client.on("capture", (event) => {
    const session = sessions.get(event.id)
    if (!session) return
    if ("audio" in event) return session.audio.emit(event.audio)
    sessions.delete(event.id)
    session.stop.emit(event.stopped)
  })

  function session(id: string, file: string): CaptureSession {
    const own = sessions.get(id) ?? sessionListeners()
    sessions.set(id, own)
    return {
      id,
      file,
      onAudio: own.audio.add,
      onStop: own.stop.add,
      stop: async () => void (await request("capture.stop", { id })),
    }
  }

  function desktopOnly(member: string) {
    return new CoworkError(
      "Unsupported",
      `cowork.${member} needs the Cowork desktop app; this page cannot capture`,
    )
  }

  async function dialog(options: DialogOptions) {
    return request("ui.dialog", options)
  }

  async function openExternal(url: string) {
    await request("openExternal", { url })
  }

  const noParams = {} as Params<"viewSource">

  /**
   * One task-queue or journal operation, run by the daemon on the workspace's store. The
   * wrappers below are pinned to cowork-queue's `Call` (method, fields) with the runner's and the
   * typings by crates/cowork-engine/tests/queue_sdk.rs.
   */
  const store = (method: string, args: Record<string, unknown>) =>
    request("queue", { method, ...args })

  const cowork = {
    routines: {
      run: (id: string, args?: unknown, options: { timeoutMs?: number } = {}) =>
        request("routines.run", { id, args: args ?? {}, timeoutMs: options.timeoutMs }),
      subscribe,
      runs: (id?: string, options: { app?: string } = {}) =>
        request("routines.runs", { id, app: options.app }),
    },
    app: {
      post: async (message: unknown) => void (await request("app.post", { message })),
      onMessage: messageListeners.add,
    },
    credentials: {
      get: (name: string) => request("credentials.get", { name }),
      connect: (name: string, fields?: Record<string, string>) =>
        request("credentials.connect", { name, fields }),
    },
    state: {
      get: () => state,
      // `get` answers the new value at once; a value the daemon refused (too big) is taken back.
      set: async (value: unknown) => {
        const before = state
        state = value
        try {
          await request("state.set", { value })
        } catch (error) {
          if (state === value) state = before
          throw error
        }
      },
    },
    openFile: async (path: string) => void (await request("openFile", { path })),
    openExternal,
    // The workbench knows whether the desktop app's browser is there (else it opens the link).
    browser: {
      open: (url: string) => request("browser.open", { url }),
      status: () => request("browser.status", noParams),
    },
    notify: async (options: NotifyOptions) => void (await request("notify", options)),
    onNotification: notificationListeners.add,
    capture: {
      record: async (options: CaptureOptions = {}) => {
        if (!desktop) throw desktopOnly("capture.record")
        const { id, file } = await request("capture.record", options)
        return session(id, file)
      },
      shot: async (options: Params<"capture.shot"> = {}) => {
        if (!desktop) throw desktopOnly("capture.shot")
        return request("capture.shot", options)
      },
      /** Outside the desktop app nothing can be recording, so there is nothing to re-attach. */
      current: async () => {
        if (!desktop) return null
        const current = await request("capture.current", noParams)
        return current && session(current.id, current.file)
      },
    },
    badge: async (count: number) => void (await request("badge", { count })),
    openedFile: init.openedFile,
    workspaceRoot: init.workspaceRoot,
    log: async (...parts: unknown[]) =>
      void (await request("log", { level: "info", parts: parts.map(format) })),
    get visible() {
      return visible
    },
    onVisibility: visibilityListeners.add,
    tables: {
      schema: (options: Params<"tables.schema">) => request("tables.schema", options),
      query: (options: Params<"tables.query">) => request("tables.query", options),
      exec: (options: Params<"tables.exec">) => request("tables.exec", options),
    },
    queue: {
      send: (queue: string, task: { body: string } & Record<string, unknown>) => {
        const { body, ...options } = task ?? {}
        return store("send", { queue, body, options })
      },
      receive: (queue: string, options = {}) => store("receive", { queue, options }),
      ack: (queue: string, id: number, receipt: string, options = {}) =>
        store("ack", { queue, id, receipt, options }),
      nack: (queue: string, id: number, receipt: string, options = {}) =>
        store("nack", { queue, id, receipt, options }),
      approve: (queue: string, id: number) => store("approve", { queue, id }),
      reject: (queue: string, id: number, comment: string) =>
        store("reject", { queue, id, comment }),
      reply: (queue: string, id: number, body: string, options = {}) =>
        store("reply", { queue, id, body, options }),
      retry: (queue: string, id: number) => store("retry", { queue, id }),
      tasks: (options: { queue?: string } & Record<string, unknown> = {}) => {
        const { queue, ...query } = options
        return store("tasks", { queue, query })
      },
      items: (queue: string, query = {}) => store("items", { queue, query }),
      peek: (queue: string, id: number) => store("peek", { queue, id }),
      list: () => store("queues", {}),
      summary: () => store("summary", {}),
      receivers: (queue?: string) => store("receivers", { queue }),
      remove: (queue: string, id?: number) => store("remove", { queue, id }),
      purge: (queue: string, status?: string) => store("purge", { queue, status }),
    },
    journal: {
      skills: () => store("journalSkills", {}),
      entries: (skill: string, options: { status?: string; limit?: number } = {}) =>
        store("journalEntries", { skill, ...options }),
      add: (entry: Record<string, unknown>) => store("journalAdd", { entry }),
      resolve: (skill: string, ids?: number[]) => store("journalResolve", { skill, ids }),
    },
    stream: { open: openStream },
    agent: {
      setContext: async (value: unknown) => void (await request("agent.setContext", { value })),
      select: async (text: string) => void (await request("agent.select", { text })),
      clearContext: async () => void (await request("agent.clearContext", noParams)),
      clearSelection: async () => void (await request("agent.clearSelection", noParams)),
      setAutoSelection: (enabled: boolean) => {
        autoSelection = enabled
      },
    },
    ui: {
      dialog,
      confirm: async (options: ConfirmOptions = {}) => {
        const confirmLabel = options.confirmLabel ?? "OK"
        const { label } = await dialog({
          message: options.title ?? "Are you sure?",
          detail: options.body,
          buttons: [
            { label: options.cancelLabel ?? "Cancel", role: "cancel" },
            {
              label: confirmLabel,
              role: "submit",
              primary: true,
              destructive: options.destructive,
            },
          ],
        })
        return label === confirmLabel
      },
    },
    chat: { ask: async (text: string) => void (await request("chat.ask", { text })) },
    consent: {
      request: (options: Params<"consent.request">) => request("consent.request", options),
    },
    identity: { currentUser: () => request("identity.currentUser", noParams) },
    viewSource: async () => void (await request("viewSource", noParams)),
    setTitleActions: async (actions: TitleAction[]) =>
      void (await request("setTitleActions", { actions })),
    onTitleAction: titleActionListeners.add,
    closeTab: async () => void (await request("closeTab", noParams)),
    statusBar: {
      get: (app: string) => statusBarItems.get(app) ?? null,
      /** Called with every app's current item right away, then on each change. */
      onChange: (callback: (app: string, item: StatusBarItem | null) => void) => {
        for (const [app, item] of statusBarItems) callback(app, item)
        return statusBarListeners.add(callback)
      },
      refresh: async (app?: string) => void (await request("statusBar.refresh", { app })),
      click: async (app: string) => void (await request("statusBar.click", { app })),
    },
  }

  let lastSelection = ""
  return {
    cowork,
    reset() {
      for (const sub of [...subscriptions.keys()]) {
        subscriptions.delete(sub)
        request("routines.unsubscribe", { sub }).catch(report)
      }
      for (const set of [
        messageListeners,
        notificationListeners,
        visibilityListeners,
        statusBarListeners,
        titleActionListeners,
      ])
        set.clear()
      for (const session of sessions.values()) {
        session.audio.clear()
        session.stop.clear()
      }
    },
    selected(text: string) {
      if (!autoSelection || !text || text === lastSelection) return
      lastSelection = text
      request("agent.select", { text, auto: true }).catch(report)
    },
  }
}

/** A line for the Output panel: strings as they are, errors by name and message, the rest as JSON. */
function format(part: unknown): string {
  if (typeof part === "string") return part
  if (part instanceof Error) return `${part.name}: ${part.message}`
  try {
    return JSON.stringify(part) ?? String(part)
  } catch {
    return String(part)
  }
}
