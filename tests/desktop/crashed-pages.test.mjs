// A page whose web process crashed loads again (src-tauri/src/crashed_pages.rs): WebKit would leave
// the window on its last frame, frozen, nothing in it answering. The workbench's web process is
// killed as a crash kills it (SIGKILL) while the page wears a mark (a magenta sheet added through
// WebDriver): the window then shows the workbench without it — the page loaded anew, in a web
// process of its own. Killed again right after its reload, it is left rather than reloaded in a
// loop. What the window shows is read from the screen: WebDriver's session ends with the web
// process it drove. A site app's page killed the same way runs again (the test site reports it).
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { readFileSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, test } from "node:test"
import { cowork, onFreshWorkspace, screenshotScreen, skip, visibleWindows, webProcesses } from "./desktop.mjs"
import { installSites, serveSites } from "./sites.mjs"
import { until } from "./webdriver.mjs"

const MARK = "#FF00FF"

/** The main window as the screen shows it: its colours (a histogram, `#RRGGBB` each). */
function windowColours(pid) {
  const [window] = visibleWindows(pid)
  const png = execFileSync("import", ["-window", window, "png:-"])
  const histogram = execFileSync("convert", ["png:-", "-format", "%c", "histogram:info:-"], { input: png, encoding: "utf8" })
  return new Set(histogram.match(/#[0-9A-F]{6}\b/g))
}

/** Whether web process `pid` is past its launch: its thread that takes the app's input is there. */
function started(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).some((task) => readFileSync(`/proc/${pid}/task/${task}/comm`, "utf8").trim() === "EventDispatcher")
  } catch {
    return false
  }
}

/** Kills the window's web process as a crash would, and waits until it is gone. */
async function crash(pid, webProcess) {
  process.kill(webProcess, "SIGKILL")
  await until(() => !webProcesses(pid).includes(webProcess), { what: `web process ${webProcess} to be gone` })
}

describe("a page whose web process crashed", { skip }, () => {
  const fixture = onFreshWorkspace()

  test("loads again: the workbench shows anew, in a web process of its own", async () => {
    const { pid, session } = fixture.app
    // The workbench and its panes share one web process (WebKitGTK keeps a window's frames in it).
    const [workbench, ...others] = webProcesses(pid)
    assert.deepEqual(others, [], "one web process before the crash")
    screenshotScreen("crashed-page-before")
    await session.execute(`document.body.insertAdjacentHTML("beforeend", '<div style="position:fixed;inset:0;z-index:2147483647;background:${MARK}"></div>')`)
    await until(() => windowColours(pid).has(MARK), { what: "the mark on the screen" })
    await crash(pid, workbench)
    const back = await until(() => webProcesses(pid)[0], { what: "a web process for the reloaded workbench" })
    // Without the mark and with the workbench's many colours: a page drawn anew, not the last frame.
    await until(() => {
      const colours = windowColours(pid)
      return !colours.has(MARK) && colours.size > 64
    }, { what: "the workbench drawn anew, without the mark" })
    screenshotScreen("crashed-page-reloaded")
    assert.deepEqual(webProcesses(pid), [back])
  })

  test("a crash again right after its reload is left as it is", async () => {
    const { pid } = fixture.app
    // Past the ten seconds after the last reload, a crash reloads; its reloaded page crashing at
    // once (its process killed as soon as it appears) does not.
    await new Promise((resolve) => setTimeout(resolve, 11_000))
    await crash(pid, webProcesses(pid)[0])
    const reloaded = await until(() => webProcesses(pid)[0], { what: "a web process for the reloaded workbench" })
    // Killed once it runs, not as it starts: a web process that dies before it told WebKit its
    // pid takes the app down with it (WebKit's launcher ends the app on that short read).
    await until(() => started(reloaded), { what: "the reloaded workbench's web process to run" })
    await crash(pid, reloaded)
    // No web process starts for it again (a loop would start one at once).
    await new Promise((resolve) => setTimeout(resolve, 3000))
    screenshotScreen("crashed-page-left")
    assert.deepEqual(webProcesses(pid), [])
    assert.equal(visibleWindows(pid).length, 1, "the app still runs, its window shown")
  })

  test("a site app's page loads again too", async () => {
    const { workspace } = fixture
    const sites = await serveSites()
    try {
      installSites(workspace, sites.url)
      const before = new Set(webProcesses(fixture.app.pid))
      // The daemon learns of the new apps from its watcher, a moment after the folders are written.
      const manifest = join(workspace, ".cowork/apps/notify-site/cowork.json")
      await until(() => cowork(["app", "open", manifest]).status === 0, { what: "the daemon to open notify-site" })
      await until(() => sites.reports("notify", "loaded").length === 1, { what: "the site's page to run" })
      const [site] = await until(() => {
        const added = webProcesses(fixture.app.pid).filter((p) => !before.has(p))
        return added.length === 1 && added
      }, { what: "the site's own web process" })
      await crash(fixture.app.pid, site)
      await until(() => sites.reports("notify", "loaded").length === 2, { what: "the site's page to run again" })
      assert.ok(webProcesses(fixture.app.pid).some((p) => !before.has(p) && p !== site), "in a web process of its own")
    } finally {
      await sites.close()
    }
  })
})
