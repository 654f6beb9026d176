// The main window under a window manager (openbox, as a desktop has one; the other suites run
// without): a maximised window comes back maximised after a quit, and a `sidebar` site app opened
// beside a maximised main window gets room beside it instead of covering it.
import assert from "node:assert/strict"
import { execFileSync, spawn } from "node:child_process"
import { createServer } from "node:http"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { after, before, describe, test } from "node:test"
import { HOME, alive, closeDesktop, cowork, openDesktop, quitDesktop, screenshotScreen, skip, visibleWindows, windowsTitled } from "./desktop.mjs"
import { installSite } from "./sites.mjs"
import { until } from "./webdriver.mjs"
import { makeWorkspace, removeWorkspace } from "./workspace.mjs"

const DESKTOP_JSON = join(HOME, "desktop.json")
const readDesktopJson = () => JSON.parse(readFileSync(DESKTOP_JSON, "utf8"))
const SCREEN = { width: 1440, height: 900 }

/** Window `id`'s inside on the screen (its frame around it): {x, y, width, height}. */
function area(id) {
  const text = execFileSync("xwininfo", ["-id", id], { encoding: "utf8" })
  const number = (label) => Number(new RegExp(`${label}:\\s+(-?\\d+)`).exec(text)[1])
  return { x: number("Absolute upper-left X"), y: number("Absolute upper-left Y"), width: number("Width"), height: number("Height") }
}

/** Whether window `id` is maximised, as the window manager says (_NET_WM_STATE). */
function maximized(id) {
  const text = execFileSync("xprop", ["-id", id, "_NET_WM_STATE"], { encoding: "utf8" })
  return text.includes("_NET_WM_STATE_MAXIMIZED_HORZ") && text.includes("_NET_WM_STATE_MAXIMIZED_VERT")
}

const mainWindow = (app) => visibleWindows(app.pid)[0]

describe("the main window under a window manager", { skip }, () => {
  let openbox
  let server
  let workspace
  let app

  before(async () => {
    openbox = spawn("openbox", [], { stdio: "ignore" })
    // openbox owns the screen once it is the window manager of its selection.
    await until(() => execFileSync("xprop", ["-root", "_NET_SUPPORTING_WM_CHECK"], { encoding: "utf8" }).includes("window id"), { what: "openbox to manage the screen" })
    server = createServer((_, response) => response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Side Site</title><p>Beside the workbench</p>"))
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${server.address().port}/side/`
    workspace = makeWorkspace()
    installSite(workspace, "side", { title: "Side Site", display: "sidebar", web: { url, scope: url } })
  })

  after(async () => {
    await closeDesktop(app)
    removeWorkspace(workspace)
    server?.close()
    if (openbox && alive(openbox.pid)) openbox.kill("SIGTERM")
    // The next suites' windows start where the app puts a first window.
    const state = readDesktopJson()
    delete state.windows
    writeFileSync(DESKTOP_JSON, JSON.stringify(state))
  })

  test("a maximised window comes back maximised after a quit", async () => {
    app = await openDesktop(workspace)
    const window = mainWindow(app)
    execFileSync("python3", [fileURLToPath(new URL("wm.py", import.meta.url)), "maximize", window])
    await until(() => maximized(window), { what: "the window manager to maximise the window" })
    await quitDesktop(app)
    await app.session.delete()
    assert.equal(readDesktopJson().windows?.main?.maximized, true, "desktop.json says maximised")

    app = await openDesktop(workspace)
    await until(() => maximized(mainWindow(app)), { timeoutMs: 10_000, what: "the window to come back maximised" })
  })

  test("a sidebar site app beside a maximised main window gets room beside it, not over it", async () => {
    app ??= await openDesktop(workspace)
    const main = mainWindow(app)
    if (!maximized(main)) execFileSync("python3", [fileURLToPath(new URL("wm.py", import.meta.url)), "maximize", main])
    await until(() => maximized(main), { what: "the main window to be maximised" })
    const run = cowork(["app", "open", join(workspace, ".cowork/apps/side-site/cowork.json")])
    assert.equal(run.status, 0, run.stderr)
    const [side] = await until(() => windowsTitled(app.pid, "Side Site").length && windowsTitled(app.pid, "Side Site"), { what: "the sidebar's window" })
    await until(() => !maximized(main), { timeoutMs: 10_000, what: "the main window to leave room (no longer maximised)" })
    await until(() => {
      const [m, s] = [area(main), area(side)]
      return s.x + s.width <= m.x && m.x + m.width <= SCREEN.width && s.x >= 0 && m.y + m.height <= SCREEN.height && s.y + s.height <= SCREEN.height
    }, { timeoutMs: 10_000, what: `the sidebar left of the main window, both on the screen (main ${JSON.stringify(area(main))}, sidebar ${JSON.stringify(area(side))})` })
    screenshotScreen("sidebar-beside-maximised")
    const [m, s] = [area(main), area(side)]
    assert.ok(m.width >= SCREEN.width - 440 - 40, `the main window takes the rest of the width: ${JSON.stringify(m)}`)
    assert.ok(Math.abs(s.height - m.height) <= 4, `the sidebar is as tall as the main window: ${JSON.stringify({ m, s })}`)
  })
})
