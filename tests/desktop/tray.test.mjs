// Closing the window hides it to the tray: the app and the daemon it hosts keep running; a second
// launch shows the window again and exits by itself (one instance).
import assert from "node:assert/strict"
import { spawnSync } from "node:child_process"
import { before, describe, test } from "node:test"
import { DESKTOP_BIN, RESULTS, alive, closeButton, cowork, daemonStatus, onFreshWorkspace, pressKeys, skip, visibleWindows } from "./desktop.mjs"
import { until } from "./webdriver.mjs"

describe("hide to the tray and reopen", { skip }, () => {
  const fixture = onFreshWorkspace()
  let workspace
  let app
  before(() => ({ workspace, app } = fixture))

  test("the close button hides the window; the app and its daemon keep running", async () => {
    assert.equal(visibleWindows(app.pid).length, 1, "the main window shows after launch")
    closeButton(app.pid)
    await until(() => visibleWindows(app.pid).length === 0, { what: "the main window to hide" })
    await new Promise((resolve) => setTimeout(resolve, 500))
    assert.ok(alive(app.pid), "the app still runs")
    const daemon = daemonStatus()
    assert.ok(daemon, "cowork status reaches the daemon")
    assert.equal(daemon.pid, app.pid, "the daemon runs in the app's process")
    assert.ok(daemon.workspaces.some((w) => w.path === workspace), `the workspace is open: ${JSON.stringify(daemon.workspaces.map((w) => w.path))}`)
  })

  test("a second launch shows the window again and exits 0 by itself", async () => {
    const second = spawnSync(DESKTOP_BIN, [workspace], { env: process.env, encoding: "utf8", timeout: 30_000 })
    assert.equal(second.status, 0, `the second launch exits 0 (stderr: ${second.stderr})`)
    await until(() => visibleWindows(app.pid).length === 1, { what: "the main window to show again" })
    assert.ok(alive(app.pid), "the first instance is the one that shows")
    // The same webview, still on the workbench.
    await app.session.waitFor('[data-testid="rail"] button')
    await app.session.screenshot(RESULTS, "tray-reopened")
  })

  test("`cowork open` shows the window hidden by File › Close Window (Ctrl+W)", async () => {
    pressKeys(app.pid, "ctrl+w")
    await until(() => visibleWindows(app.pid).length === 0, { what: "the main window to hide" })
    const open = cowork(["open", "--workspace", workspace])
    assert.equal(open.status, 0, `cowork open exits 0 (stderr: ${open.stderr})`)
    await until(() => visibleWindows(app.pid).length === 1, { what: "the main window to show after cowork open" })
    assert.equal(daemonStatus().pid, app.pid, "no second app or daemon started")
  })
})
