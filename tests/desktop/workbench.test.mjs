// The workbench in the desktop window: a rail click opens an app's widget, whose routine runs in
// the daemon the shell hosts, and the result is on screen.
import assert from "node:assert/strict"
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { enterPane, onFreshWorkspace, pressKeys, railTile, runRoutine, screenshotScreen, skip, visibleWindows } from "./desktop.mjs"
import { until } from "./webdriver.mjs"

describe("the workbench in the desktop window", { skip }, () => {
  const fixture = onFreshWorkspace()
  let workspace
  let app
  before(() => ({ workspace, app } = fixture))

  test("shows the daemon's workbench for the folder it was given", async () => {
    const { session, url } = app
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/\?workspace=/)
    assert.equal(new URL(url).searchParams.get("workspace"), workspace)
    assert.match(await session.title(), /Cowork/)
    const tiles = await session.execute(`return [...document.querySelectorAll('[data-testid="rail"] button')].map((b) => b.getAttribute("aria-label"))`)
    assert.ok(tiles.includes("Hello"), `the rail has the Hello app: ${tiles}`)
    // The page's storage (theme, window memory, shell) lives under the Cowork root, not in the
    // user's data folder that every COWORK_HOME shared.
    await session.execute("localStorage.setItem('cowork.probe', '1')")
    await until(() => existsSync(join(process.env.COWORK_HOME, "workbench", "localstorage")), { what: "the workbench's storage under the Cowork root" })
  })

  test("a rail click opens the widget, and its routine's result shows in the pane", async (t) => {
    const { session } = app
    await session.click(await railTile(session, "Hello"))
    await enterPane(session, "hello")
    // The pane runs on its app's own origin, a name under .app.localhost: the webview reaches it on
    // loopback by itself (RFC 6761), whatever the system resolver says of it.
    const host = await session.execute("return location.hostname")
    assert.match(host, /^hello-[0-9a-f]+\.app\.localhost$/)
    if (spawnSync("getent", ["hosts", host]).status !== 0) {
      t.diagnostic(`the system resolver does not resolve ${host}; the pane loaded all the same`)
    }
    const result = await session.waitFor('[data-testid="result"]')
    const text = await until(async () => {
      const text = await session.text(result)
      return text !== "running…" && text
    }, { what: "hello-greet's result in the pane" })
    assert.equal(text, "Hello, desktop!")
    await session.switchToFrame(null)
    screenshotScreen("workbench-hello")
  })

  test("Ctrl+W closes the editor tab shown, and leaves the window open (Close Window is Ctrl+Shift+W)", async () => {
    const { session, pid } = app
    const tabs = () => session.execute(`return [...document.querySelectorAll('section[aria-label="Editor"] [role="tab"]')].map((tab) => tab.textContent)`)
    assert.deepEqual(await tabs(), ["Hello"])
    // Keys pressed inside a pane stay in its frame: a click on the tab gives the workbench's own
    // page the keyboard (as a person's would), then Ctrl+W goes through X into the window.
    await session.click(await session.find('section[aria-label="Editor"] [role="tab"]'))
    pressKeys(pid, "ctrl+w")
    await until(async () => (await tabs()).length === 0, { what: "the Hello tab to close" })
    assert.ok(visibleWindows(pid).length > 0, "the window is still shown")
  })

  test("a routine's badge count shows on its app's rail tile, and 0 clears it", async () => {
    const { session } = app
    const count = () => session.execute(`return document.querySelector('[data-testid="rail"] button[aria-label="Counter"] [data-testid="count-badge"]')?.textContent ?? null`)
    runRoutine(workspace, "counter-notify", { badge: 3 })
    assert.equal(await until(count, { what: "the Counter tile's count" }), "3")
    runRoutine(workspace, "counter-notify", { badge: 0 })
    await until(async () => (await count()) === null, { what: "the Counter tile's count to clear" })
  })
})
