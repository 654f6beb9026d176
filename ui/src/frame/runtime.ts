/**
 * The frame's life: say `ready`, take `init`, install `window.cowork`, load the widget's imports
 * and run it; then follow the host's theme, and run new code when the host reloads the widget.
 */
import { createClient } from "./client"
import { watchDarkFilter } from "./dark-filter"
import { byName, createModules, eager, lazy } from "./modules"
import {
  CoworkError,
  PROTOCOL,
  isCoworkMessage,
  type HostMessage,
  type Theme,
  type Widget,
} from "./protocol"
import { createCowork, type Cowork, type Sdk } from "./sdk"
import { createStyles } from "./styles"
import { createPane, evaluate, problem } from "./widget"

/** How long a selection must stay put before it goes to the agent. */
const SELECTION_SETTLE_MS = 400

export function start(root: HTMLElement) {
  // Until the first init names the host's origin, the only message out is `ready`.
  let hostOrigin = "*"
  const client = createClient((message) => window.parent.postMessage(message, hostOrigin))
  const pane = createPane(root, (error) => logError(error))
  const modules = createModules(eager, lazy, byName)
  let sdk: Sdk | undefined
  let latest = 0

  if (window.origin !== "null") {
    const error = new CoworkError(
      "NotIsolated",
      'A widget pane must be an <iframe sandbox="allow-scripts"> (never allow-same-origin); this one is not, so the widget does not run',
    )
    return pane.fail(problem("is not isolated", location.pathname, error))
  }

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent || !isCoworkMessage(event.data)) return
    const message = event.data as HostMessage
    if ("event" in message && message.event === "init" && /^https?:/.test(event.origin)) {
      hostOrigin = event.origin
    }
    client.receive(message)
  })

  function logError(error: unknown) {
    const { name, message } = error instanceof Error ? error : new Error(String(error))
    client.request("log", { level: "error", parts: [`${name}: ${message}`] }).catch(console.error)
  }

  /** Unmounts the widget shown now and forgets what it registered, before another one runs. */
  function replaceWidget() {
    pane.clear()
    sdk?.reset()
  }

  async function run(widget: Widget) {
    const mine = ++latest
    if ("error" in widget) {
      replaceWidget()
      return pane.fail(problem("could not load", widget.file, widget.error))
    }
    try {
      await modules.preload(widget.imports)
      // A newer reload arrived while this one's modules loaded: that one shows.
      if (mine !== latest) return
      replaceWidget()
      pane.show(widget.file, evaluate(widget, modules.require))
    } catch (error) {
      if (mine !== latest) return
      replaceWidget()
      pane.fail(problem("could not load", widget.file, error))
    }
  }

  const stopInit = client.on("init", (init) => {
    stopInit()
    const styles = createStyles(client, logError)
    styles.apply(init.css)
    styles.noteDocument()
    client.on("reload", (event) => styles.apply(event.css))
    applyTheme(init.theme)
    sdk = createCowork(client, init)
    Object.defineProperty(window, "cowork", { value: sdk.cowork, enumerable: true })
    watchSelection(sdk)
    routeLinks(sdk.cowork, logError)
    watchDarkFilter(root)
    forwardEscape(() =>
      window.parent.postMessage({ cowork: PROTOCOL, event: "escape" }, hostOrigin),
    )
    window.addEventListener("error", (event) => logError(event.error ?? event.message))
    window.addEventListener("unhandledrejection", (event) => logError(event.reason))
    void run(init.widget)
  })
  client.on("theme", (event) => applyTheme(event.theme))
  client.on("reload", (event) => void run(event.widget))

  window.parent.postMessage({ cowork: PROTOCOL, event: "ready" }, "*")
}

/** `dark:` variants and the dark token set follow the workbench through this class. */
function applyTheme(theme: Theme) {
  document.documentElement.classList.toggle("dark", theme === "dark")
}

/**
 * docs/reference/sdk.md (`openExternal`): a plain `<a href="https://…">` is routed through
 * `openExternal` (the trust prompt). Left alone, a click would navigate the sandboxed frame itself
 * away from the widget. Caught in the capture phase, before the widget's own handlers, so no link
 * ever leaves that way; links within the frame's own origin (`#section`) are the widget's.
 */
function routeLinks(cowork: Cowork, logError: (error: unknown) => void) {
  document.addEventListener(
    "click",
    (event) => {
      const anchor = event
        .composedPath()
        .find((node) => node instanceof HTMLAnchorElement && node.hasAttribute("href"))
      if (!(anchor instanceof HTMLAnchorElement) || anchor.hasAttribute("download")) return
      const url = new URL(anchor.href, location.href)
      if (!["http:", "https:", "mailto:"].includes(url.protocol) || url.origin === location.origin)
        return
      event.preventDefault()
      cowork.openExternal(url.href).catch((error: Error) => {
        // The person said no to the site: nothing went wrong.
        if (error.name !== "Cancelled") logError(error)
      })
    },
    true,
  )
}

/**
 * Esc in a pane does what it does in the workbench (a modal app closes), unless the widget used
 * it: Radix prevents the default when Esc closes its dialog, menu or select (its listener runs in
 * the capture phase, before this one), and a widget's own handler stops it or prevents it.
 */
function forwardEscape(send: () => void) {
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !event.defaultPrevented && !event.isComposing) send()
  })
}

/** Sends what the user selects in the pane to the agent once the selection settles. */
function watchSelection(sdk: Sdk) {
  let timer: ReturnType<typeof setTimeout> | undefined
  document.addEventListener("selectionchange", () => {
    clearTimeout(timer)
    timer = setTimeout(
      () => sdk.selected(document.getSelection()?.toString().trim() ?? ""),
      SELECTION_SETTLE_MS,
    )
  })
}
