// Closing the window hides it to the tray: the app and the daemon it hosts keep running; a second
// launch shows the window again and exits by itself (one instance).
import assert from "node:assert/strict"
import { execFileSync, spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { before, describe, test } from "node:test"
import { DESKTOP_BIN, NO_TRAY_NOTE, alive, closeButton, cowork, daemonStatus, dismissTrayNote, onFreshWorkspace, pressKeys, quitDesktop, screenshotScreen, skip, visibleWindows, webProcesses, windowsNamed } from "./desktop.mjs"
import { until } from "./webdriver.mjs"

/** The colour of one pixel of the X screen, as `#RRGGBB`. */
function screenPixel(x, y) {
  const text = execFileSync("import", ["-window", "root", "-crop", `1x1+${x}+${y}`, "-depth", "8", "txt:-"], { encoding: "utf8" })
  return /#[0-9A-F]{6}/i.exec(text)[0].toUpperCase()
}

describe("hide to the tray and reopen", { skip }, () => {
  const fixture = onFreshWorkspace()
  let workspace
  let app
  before(() => ({ workspace, app } = fixture))

  test("the close button hides the window; the app and its daemon keep running", async () => {
    assert.equal(visibleWindows(app.pid).length, 1, "the main window shows after launch")
    closeButton(app.pid)
    await until(() => visibleWindows(app.pid).length === 0, { what: "the main window to hide" })
    // This session has no tray host (no StatusNotifier watcher): the person is told how to get
    // the window back rather than left with an app nobody sees.
    await until(() => windowsNamed(NO_TRAY_NOTE, app.pid).length, { what: "the note that there is no tray" })
    screenshotScreen("tray-no-host-note")
    await dismissTrayNote(app.pid)
    await new Promise((resolve) => setTimeout(resolve, 500))
    assert.ok(alive(app.pid), "the app still runs")
    const daemon = daemonStatus()
    assert.ok(daemon, "cowork status reaches the daemon")
    assert.equal(daemon.pid, app.pid, "the daemon runs in the app's process")
    assert.ok(daemon.workspaces.some((w) => w.path === workspace), `the workspace is open: ${JSON.stringify(daemon.workspaces.map((w) => w.path))}`)
  })

  test("a workbench that loads while its window is hidden draws all of itself, panes and all", async () => {
    // A page in a hidden window draws no frames; the workbench draws its rail first and the rest
    // (where the panes live, which send notifications) a frame later, or after a timer when none comes.
    assert.equal(visibleWindows(app.pid).length, 0, "the window is hidden (the test before)")
    await app.session.execute("location.reload()")
    const whole = `return !!document.querySelector('[data-testid="rail"] button') && !!document.querySelector('section[aria-label="Editor"]')`
    await until(() => app.session.execute(whole).catch(() => false), { what: "the reloaded workbench's editor area, the window hidden" })
    assert.equal(visibleWindows(app.pid).length, 0, "the window stayed hidden")
  })

  test("a second launch shows the window again and exits 0 by itself", async () => {
    const second = spawnSync(DESKTOP_BIN, [workspace], { env: process.env, encoding: "utf8", timeout: 30_000 })
    assert.equal(second.status, 0, `the second launch exits 0 (stderr: ${second.stderr})`)
    await until(() => visibleWindows(app.pid).length === 1, { what: "the main window to show again" })
    assert.ok(alive(app.pid), "the first instance is the one that shows")
    // The same webview, still on the workbench.
    await app.session.waitFor('[data-testid="rail"] button')
    screenshotScreen("tray-reopened")
  })

  test("the window shown again draws what changes in its page, drawn into shared memory", async () => {
    // The app's default (src-tauri/src/main.rs): no GPU buffers of the web process's own.
    const web = webProcesses(app.pid)
    assert.ok(web.length > 0, "the window has a web process")
    for (const pid of web) {
      const environment = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")
      assert.ok(environment.includes("WEBKIT_DISABLE_DMABUF_RENDERER=1"), `web process ${pid} draws into shared memory`)
    }
    // A red block over the whole page: the middle of the window shows it, then shows it gone.
    const [mainWindow] = visibleWindows(app.pid)
    const geometry = execFileSync("xdotool", ["getwindowgeometry", "--shell", mainWindow], { encoding: "utf8" })
    const at = (key) => Number(new RegExp(`^${key}=(\\d+)$`, "m").exec(geometry)[1])
    const [x, y] = [at("X") + Math.floor(at("WIDTH") / 2), at("Y") + Math.floor(at("HEIGHT") / 2)]
    const block = "cowork-test-block"
    await app.session.execute(`const block = document.createElement("div"); block.id = "${block}"; block.style.cssText = "position:fixed;inset:0;background:#ff0000;z-index:2147483647"; document.body.append(block)`)
    await until(() => screenPixel(x, y) === "#FF0000", { what: `the screen to show the page's red block at ${x},${y}` })
    await app.session.execute(`document.getElementById("${block}").remove()`)
    await until(() => screenPixel(x, y) !== "#FF0000", { what: "the screen to show the red block gone" })
  })

  test("`cowork open` shows the window hidden by File › Close Window (Ctrl+Shift+W)", async () => {
    pressKeys(app.pid, "ctrl+shift+w")
    await until(() => visibleWindows(app.pid).length === 0, { what: "the main window to hide" })
    await new Promise((resolve) => setTimeout(resolve, 1000))
    assert.equal(windowsNamed(NO_TRAY_NOTE, app.pid).length, 0, "the note about the tray is given once a run")
    const open = cowork(["open", "--workspace", workspace])
    assert.equal(open.status, 0, `cowork open exits 0 (stderr: ${open.stderr})`)
    await until(() => visibleWindows(app.pid).length === 1, { what: "the main window to show after cowork open" })
    assert.equal(daemonStatus().pid, app.pid, "no second app or daemon started")
  })
})

describe("no tray host: the note", { skip }, () => {
  const fixture = onFreshWorkspace()

  test("Quit still ends the app while the note is open", async () => {
    const { app } = fixture
    closeButton(app.pid)
    await until(() => windowsNamed(NO_TRAY_NOTE, app.pid).length, { what: "the note that there is no tray" })
    // Ctrl+Q in the window brought back by a second launch, the note still open.
    await quitDesktop(app, 30_000)
  })
})
