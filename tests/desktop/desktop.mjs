// The desktop app under test, and the ways a test reaches it: launched through WebDriver (its
// webview), its X window (xdotool: focus, keys, visibility), the `cowork` CLI on the same root
// (routines, status), and the files it leaves in COWORK_HOME.
//
// scripts/test-desktop provides the environment: COWORK_DESKTOP_BIN, COWORK_BIN, COWORK_HOME,
// DISPLAY, the session bus with dunst on it, and tauri-driver. Run alone (`node --test`) without
// it, every test skips — except in CI, where that is a failure.
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { after, before } from "node:test"
import { fileURLToPath } from "node:url"
import { descendants, processes } from "../../bench/pss.mjs"
import { READY_MS, launch, until } from "./webdriver.mjs"
import { makeWorkspace, removeWorkspace } from "./workspace.mjs"

export const DESKTOP_BIN = process.env.COWORK_DESKTOP_BIN ?? ""
export const COWORK_BIN = process.env.COWORK_BIN ?? ""
export const HOME = process.env.COWORK_HOME ?? ""
export const RESULTS = process.env.COWORK_DESKTOP_RESULTS ?? fileURLToPath(new URL("results", import.meta.url))

const missing = [
  [DESKTOP_BIN && existsSync(DESKTOP_BIN), "COWORK_DESKTOP_BIN"],
  [COWORK_BIN && existsSync(COWORK_BIN), "COWORK_BIN"],
  [HOME, "COWORK_HOME"],
  [process.env.DISPLAY, "DISPLAY"],
  [process.env.DBUS_SESSION_BUS_ADDRESS, "DBUS_SESSION_BUS_ADDRESS"],
].filter(([ok]) => !ok).map(([, name]) => name)
if (missing.length && process.env.CI) throw new Error(`the desktop tests need ${missing.join(", ")}: run them with scripts/test-desktop`)
/** Why every test skips, or false: pass as `{ skip }` to each test. */
export const skip = missing.length ? `no ${missing.join(", ")} (run scripts/test-desktop)` : false

// ---- the CLI on the same root ----

/** Runs `cowork <args>` against the shell's root; {status, stdout, stderr}. */
export function cowork(args) {
  return spawnSync(COWORK_BIN, args, { env: process.env, encoding: "utf8", timeout: 60_000 })
}

/** `cowork routine run <id> --args <json> --json` in `workspace`: the outcome line, parsed. */
export function runRoutine(workspace, id, args = {}) {
  const run = cowork(["routine", "run", id, "--args", JSON.stringify(args), "--workspace", workspace, "--json"])
  if (run.status !== 0) throw new Error(`cowork routine run ${id} exited ${run.status}: ${run.stderr}${run.stdout}`)
  return JSON.parse(run.stdout)
}

/** The same, without waiting: the child process (for a routine Quit should let finish). */
export function startRoutine(workspace, id, args = {}) {
  return spawn(COWORK_BIN, ["routine", "run", id, "--args", JSON.stringify(args), "--workspace", workspace, "--json"], {
    env: process.env,
    stdio: ["ignore", "pipe", "pipe"],
  })
}

/**
 * The exit code and whole stdout of a started process: on "close", once its output has ended
 * ("exit" can come before the last of stdout has been read, which left a run's answer empty).
 */
export function finished(child) {
  let stdout = ""
  child.stdout.on("data", (chunk) => (stdout += chunk))
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout })))
}

/** The daemon's state as `cowork status --json` reports it (pid, slots, workspaces…), or null when none runs. */
export function daemonStatus() {
  const run = cowork(["status", "--json"])
  if (run.status !== 0) throw new Error(`cowork status exited ${run.status}: ${run.stderr}`)
  return JSON.parse(run.stdout).daemon
}

/** `<COWORK_HOME>/daemon.json`, parsed, or null: the shell hosts the daemon, so its pid is the shell's. */
export function daemonJson() {
  const file = join(HOME, "daemon.json")
  try {
    return JSON.parse(readFileSync(file, "utf8"))
  } catch {
    return null
  }
}

/** Every audit line written under this root (all workspaces, all days), parsed. */
export function auditLines() {
  const lines = []
  const workspaces = join(HOME, "workspaces")
  if (!existsSync(workspaces)) return lines
  for (const key of readdirSync(workspaces)) {
    const audit = join(workspaces, key, "audit")
    if (!existsSync(audit)) continue
    for (const day of readdirSync(audit)) {
      for (const line of readFileSync(join(audit, day), "utf8").split("\n")) if (line.trim()) lines.push(JSON.parse(line))
    }
  }
  return lines
}

export function alive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

// ---- the X window (no window manager under Xvfb: focus and keys go through xdotool) ----

/**
 * The visible top-level windows whose title matches `pattern` (a regular expression, as xdotool
 * reads it): of process `pid` when given, else of any process (a dialog of the capture's own
 * process). A search that meets a window going away as it looks fails (X's BadWindow: a site
 * app's window closing, a popup): it is asked again.
 */
export function windowsNamed(pattern, pid) {
  const which = pid === undefined ? [] : ["--all", "--pid", String(pid)]
  for (let tries = 0; tries < 20; tries++) {
    const run = spawnSync("xdotool", ["search", ...which, "--onlyvisible", "--name", pattern], { encoding: "utf8" })
    if (!run.stderr.includes("BadWindow")) return run.status === 0 ? run.stdout.trim().split("\n").filter(Boolean) : []
  }
  throw new Error(`xdotool's search for ${pattern} met a window going away 20 times in a row`)
}

/** The visible top-level windows of process `pid` titled exactly `title`. */
export const windowsTitled = (pid, title) => windowsNamed(`^${title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, pid)

/** The process's top-level windows that are mapped (visible): the main window, when it shows. */
export const visibleWindows = (pid) => windowsNamed("^Cowork Studio", pid)

/** The WebKit web processes (one per page's process) under the app's process `pid`. */
export const webProcesses = (pid) => webkitProcesses(pid, "WebKitWebProcess")

/** The WebKit network processes (one per web context: per data directory) under `pid`. */
export const networkProcesses = (pid) => webkitProcesses(pid, "WebKitNetworkProcess")

function webkitProcesses(pid, program) {
  const table = processes()
  return descendants(table, pid).filter((each) => table.get(each)?.comm === program)
}

/** Gives the main window the keyboard focus, as a click into it would. */
export function focusWindow(pid) {
  const [window] = visibleWindows(pid)
  if (!window) throw new Error(`process ${pid} shows no Cowork Studio window`)
  execFileSync("xdotool", ["windowraise", window])
  execFileSync("xdotool", ["windowfocus", "--sync", window])
  return window
}

/** Moves the keyboard focus off every app window (to the root window), as switching to another app does. */
export function focusElsewhere() {
  const root = /Window id: (0x[0-9a-f]+)/.exec(execFileSync("xwininfo", ["-root"], { encoding: "utf8" }))[1]
  // With the focus on the root window, keys go to the window under the pointer, and GTK counts
  // that window as focused: the pointer leaves for the screen's far corner first.
  execFileSync("xdotool", ["mousemove", "--sync", "1439", "899"])
  execFileSync("xdotool", ["windowfocus", root])
}

/** The title of the note the first close of a run gives where there is no tray, as in this session (src-tauri/src/tray.rs). */
export const NO_TRAY_NOTE = "^No tray to keep Cowork Studio in$"

/**
 * After the main window's first close of a run: waits for the note that this desktop has no tray
 * and dismisses it (Return, its OK), as a person does before going on. Returns the note's window.
 */
export async function dismissTrayNote(pid) {
  const [note] = await until(() => windowsNamed(NO_TRAY_NOTE, pid).length && windowsNamed(NO_TRAY_NOTE, pid), { what: "the note that there is no tray" })
  execFileSync("xdotool", ["windowfocus", "--sync", note])
  execFileSync("xdotool", ["key", "--clearmodifiers", "Return"])
  await until(() => windowsNamed(NO_TRAY_NOTE, pid).length === 0, { what: "the note to close on Return" })
  return note
}

/** Clicks the window's close button, as far as the app can tell: the window manager's WM_DELETE_WINDOW request. */
export function closeButton(pid) {
  const [window] = visibleWindows(pid)
  if (!window) throw new Error(`process ${pid} shows no Cowork Studio window`)
  execFileSync("python3", [fileURLToPath(new URL("wm.py", import.meta.url)), "close", window])
}

/**
 * Saves a PNG of the whole X screen (the windows and dunst's banners: what a person sees) as
 * `<RESULTS>/<name>.png`. Not WebDriver's screenshot: that waits for the page's next composited
 * frame, which a web process drawing into shared memory (the app's default) may never present.
 */
export function screenshotScreen(name) {
  mkdirSync(RESULTS, { recursive: true })
  const path = join(RESULTS, `${name}.png`)
  execFileSync("import", ["-window", "root", path])
  return path
}

/** Presses keys (xdotool syntax, e.g. "ctrl+q") in the focused main window. */
export function pressKeys(pid, keys) {
  focusWindow(pid)
  execFileSync("xdotool", ["key", "--clearmodifiers", keys])
}

// ---- the app itself ----

/**
 * Launches the desktop app on `workspace` through WebDriver and waits until its window shows the
 * workbench with the rail painted. Returns {session, pid, url}.
 */
export async function openDesktop(workspace, bin = DESKTOP_BIN) {
  const session = await launch(bin, [workspace])
  try {
    const url = await until(async () => {
      const url = await session.url()
      return url.startsWith("http://127.0.0.1:") && url
    }, { what: "the main window to load the workbench" })
    await session.waitFor('[data-testid="rail"] button')
    const pid = (await until(() => daemonJson(), { what: "daemon.json" })).pid
    return { session, pid, url }
  } catch (error) {
    // What the window showed, for the person reading the failure; then the app ends here, so that
    // the next suite starts its own instead of finding this one (or its WebDriver session) in the way.
    const shot = screenshotScreen(`open-failed-${Date.now()}`)
    const text = await session.execute("return document.body?.innerText ?? ''").catch((e) => `(no page: ${e.message})`)
    process.stderr.write(`the desktop app did not show the rail: screen in ${shot}; the page said: ${JSON.stringify(String(text).slice(0, 500))}\n`)
    const pid = daemonJson()?.pid
    await session.delete()
    if (pid && alive(pid)) process.kill(pid, "SIGKILL")
    throw error
  }
}

/** The rail tile of the app titled `title`. */
export function railTile(session, title) {
  return session.waitFor(`[data-testid="rail"] button[aria-label="${title}"]`)
}

/** Switches into the first pane (iframe) of `app` in the workbench; back with switchToFrame(null). */
export async function enterPane(session, app, timeoutMs = READY_MS) {
  const frame = await session.waitFor(`iframe[src^="http://${app}-"]`, timeoutMs)
  await session.switchToFrame(frame)
  return frame
}

/**
 * Quits the app as a person does (File › Quit, Ctrl+Q, in its focused window) and waits for the
 * process to end. Shows the window first if it is hidden (a hidden window takes no keys).
 */
export async function quitDesktop(app, timeoutMs = 30_000) {
  if (!alive(app.pid)) return
  if (!visibleWindows(app.pid).length) spawnSync(DESKTOP_BIN, [], { env: process.env, timeout: 20_000 })
  pressKeys(app.pid, "ctrl+q")
  await until(() => !alive(app.pid), { timeoutMs, what: `the desktop app (pid ${app.pid}) to exit after Ctrl+Q` })
}

/**
 * A suite's set-up: a fresh fixture workspace with the app open on it before its tests, the app
 * closed and the folder removed after. The returned object holds `workspace` and `app` once the
 * suite's first `before` has run.
 */
export function onFreshWorkspace() {
  const fixture = {}
  before(async () => {
    fixture.workspace = makeWorkspace()
    fixture.app = await openDesktop(fixture.workspace)
  })
  after(async () => {
    await closeDesktop(fixture.app)
    removeWorkspace(fixture.workspace)
  })
  return fixture
}

/** Ends a test's app whatever state it is in: Quit, else SIGTERM, and the WebDriver session. */
export async function closeDesktop(app) {
  if (!app) return
  try {
    await quitDesktop(app, 15_000)
  } catch (error) {
    process.stderr.write(`note: Quit did not end the app (${error.message}); sending SIGTERM\n`)
    if (alive(app.pid)) process.kill(app.pid, "SIGTERM")
    await until(() => !alive(app.pid), { timeoutMs: 10_000, what: "the desktop app to end on SIGTERM" }).catch(() => process.kill(app.pid, "SIGKILL"))
  }
  await app.session.delete()
}
