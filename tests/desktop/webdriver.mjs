// A W3C WebDriver client over fetch — the few commands the desktop tests need, no npm dependency.
// tauri-driver (scripts/test-desktop starts it on 127.0.0.1:4444) turns `tauri:options` into
// WebKitWebDriver's `webkitgtk:browserOptions` and forwards everything else, so each call here is
// a plain W3C request to WebKitGTK's automation of the real desktop app.
//
// tauri-driver passes `args` to the application but no environment: the app inherits
// tauri-driver's own environment (COWORK_HOME, DISPLAY, the session bus), set by the script.

/** The key a W3C element reference is stored under. */
const ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

export const DRIVER_URL = process.env.COWORK_WEBDRIVER_URL ?? "http://127.0.0.1:4444"

/** A WebDriver error answer, with the command that got it. */
export class WebDriverError extends Error {
  constructor(method, path, status, value) {
    super(`${method} ${path} → ${status} ${value?.error ?? ""}: ${value?.message ?? JSON.stringify(value)}`)
    this.error = value?.error
  }
}

/** No command may hang a test: WebKitWebDriver waits forever for an app that never opens a webview. */
async function call(method, path, body, timeoutMs = 30_000) {
  const response = await fetch(DRIVER_URL + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  }).catch((error) => {
    throw new WebDriverError(method, path, "no answer", { error: error.name, message: error.message })
  })
  const text = await response.text()
  const { value } = text ? JSON.parse(text) : { value: null }
  if (!response.ok) throw new WebDriverError(method, path, response.status, value)
  return value
}

/**
 * Launches `application` (with `args`) under WebDriver and returns the session. The app must
 * open a webview within WebKitWebDriver's own wait, or this rejects. `browserName` must be the
 * name the webview reports: "wry" for a Tauri app ("MiniBrowser" tries the client on WebKit's own).
 */
export async function launch(application, args = [], browserName = "wry") {
  const capabilities = { alwaysMatch: { browserName, "tauri:options": { application, args } } }
  const value = await call("POST", "/session", { capabilities }, 60_000)
  return new Session(value.sessionId)
}

/**
 * How long a wait for something to get ready (a window, a page, a banner) may take before it counts
 * as a failure: a first start on a cold machine shared with other builds takes tens of seconds. A
 * wait returns as soon as its condition holds, so this costs nothing when things work.
 */
export const READY_MS = 60_000

/** Polls `probe` until it returns something truthy; rejects with `what` after `timeoutMs`. */
export async function until(probe, { timeoutMs = READY_MS, intervalMs = 100, what = "the condition" } = {}) {
  const deadline = Date.now() + timeoutMs
  let last
  for (;;) {
    try {
      const value = await probe()
      if (value) return value
    } catch (error) {
      last = error
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${last.message})` : ""}`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

export class Session {
  constructor(id) {
    this.id = id
  }

  #call(method, path, body) {
    return call(method, `/session/${this.id}${path}`, body)
  }

  /** Ends the session; WebKitWebDriver then closes the app's webviews. */
  async delete() {
    await call("DELETE", `/session/${this.id}`).catch(() => {})
  }

  url() {
    return this.#call("GET", "/url")
  }

  title() {
    return this.#call("GET", "/title")
  }

  /** Runs `script` (a function body: `return …`, arguments in `arguments`) in the current frame. */
  execute(script, ...args) {
    return this.#call("POST", "/execute/sync", { script, args })
  }

  /** Like `execute`, for a body that calls `arguments[arguments.length - 1](result)` when done. */
  executeAsync(script, ...args) {
    return this.#call("POST", "/execute/async", { script, args })
  }

  /** The first element matching a CSS selector in the current frame, or null. */
  async find(selector) {
    const found = await this.#call("POST", "/elements", { using: "css selector", value: selector })
    return found.length ? found[0][ELEMENT] : null
  }

  async findAll(selector) {
    const found = await this.#call("POST", "/elements", { using: "css selector", value: selector })
    return found.map((element) => element[ELEMENT])
  }

  /** Waits until a CSS selector matches in the current frame. */
  waitFor(selector, timeoutMs = READY_MS) {
    return until(() => this.find(selector), { timeoutMs, what: `\`${selector}\`` })
  }

  click(element) {
    return this.#call("POST", `/element/${element}/click`, {})
  }

  /** Types `text` into an element (a textarea, an input) as keystrokes: its input events fire. */
  type(element, text) {
    return this.#call("POST", `/element/${element}/value`, { text })
  }

  text(element) {
    return this.#call("GET", `/element/${element}/text`)
  }

  /** The webview windows the app has open. */
  windowHandles() {
    return this.#call("GET", "/window/handles")
  }

  windowHandle() {
    return this.#call("GET", "/window")
  }

  switchToWindow(handle) {
    return this.#call("POST", "/window", { handle })
  }

  /** Closes the current window, as the user's close button would (the shell may hide it instead). */
  closeWindow() {
    return this.#call("DELETE", "/window")
  }

  /** Switches into an iframe (an element reference) — a widget pane is one — or back to the top with null. */
  switchToFrame(element) {
    return this.#call("POST", "/frame", { id: element === null ? null : { [ELEMENT]: element } })
  }

  switchToParentFrame() {
    return this.#call("POST", "/frame/parent", {})
  }
}
