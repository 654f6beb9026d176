// A site app's own window as a person uses it: it takes a browser window's page keys (F5, Ctrl+R,
// Shift+F5 and Ctrl+Shift+R reload the page, Alt+Left and Alt+Right go back and forward), and it
// opens again where and as big as it was. The site is served here and its pages report each time
// they are shown (a reload, or a page brought back from the history).
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { createServer } from "node:http"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { after, before, describe, test } from "node:test"
import { closeDesktop, cowork, openDesktop, skip, windowsTitled } from "./desktop.mjs"
import { installSite } from "./sites.mjs"
import { until } from "./webdriver.mjs"
import { makeWorkspace, removeWorkspace } from "./workspace.mjs"

// Each page reports when it is shown (`pageshow`: a load, or a return from the back-forward
// cache); the first has a link to the second.
const page = (name) => `<!doctype html><title>Keys Site</title>
<p style="height: 200px">Page ${name}</p>
<a id="next" href="two" style="display: block; height: 100px; background: #eef">Page two</a>
<script>
  addEventListener("pageshow", () => fetch("/keys/log?" + new URLSearchParams({ shown: "${name}", at: performance.timeOrigin })))
</script>`

describe("a site app's own window", { skip }, () => {
  let server
  let workspace
  let app
  const shown = []

  before(async () => {
    server = createServer((request, response) => {
      const url = new URL(request.url, "http://127.0.0.1")
      if (url.pathname === "/keys/log") {
        shown.push({ page: url.searchParams.get("shown"), load: url.searchParams.get("at") })
        return response.writeHead(204).end()
      }
      const name = { "/keys/": "one", "/keys/two": "two" }[url.pathname]
      if (!name) return response.writeHead(404).end()
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(page(name))
    })
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${server.address().port}/keys/`
    workspace = makeWorkspace()
    installSite(workspace, "keys", { title: "Keys Site", web: { url, scope: url } })
    app = await openDesktop(workspace)
  })

  after(async () => {
    await closeDesktop(app)
    removeWorkspace(workspace)
    server?.close()
  })

  /** Presses `keys` in the site's window, with the keyboard focus on it. */
  function press(window, keys) {
    execFileSync("xdotool", ["windowfocus", "--sync", window])
    execFileSync("xdotool", ["key", "--clearmodifiers", keys])
  }

  /** Waits for the page shown after `count` reports: {page, load}. */
  const nthShown = (count, what) => until(() => shown.length >= count && shown[count - 1], { timeoutMs: 20_000, what })

  test("F5, Ctrl+R, Shift+F5 and Ctrl+Shift+R reload the page; Alt+Left and Alt+Right go back and forward", async () => {
    const window = await openSite()
    const first = await nthShown(1, "the site's first page")
    assert.equal(first.page, "one")
    // A click into the page (not on its link) gives it the keyboard, as a person's would.
    execFileSync("xdotool", ["mousemove", "--window", window, "40", "40", "click", "1"])

    let count = 1
    for (const keys of ["F5", "ctrl+r", "shift+F5", "ctrl+shift+r"]) {
      press(window, keys)
      const now = await nthShown(++count, `the page to load again after ${keys}`)
      assert.equal(now.page, "one", `${keys} reloads the same page`)
      assert.notEqual(now.load, shown[count - 2].load, `${keys} loads the page anew`)
    }

    execFileSync("xdotool", ["mousemove", "--window", window, "40", "250", "click", "1"])
    assert.equal((await nthShown(++count, "page two, from the link")).page, "two")
    press(window, "alt+Left")
    assert.equal((await nthShown(++count, "page one after Alt+Left")).page, "one", "Alt+Left goes back")
    press(window, "alt+Right")
    assert.equal((await nthShown(++count, "page two after Alt+Right")).page, "two", "Alt+Right goes forward")
  })

  /** Opens the site app (`cowork app open`) and waits for its window. */
  async function openSite() {
    const run = cowork(["app", "open", join(workspace, ".cowork/apps/keys-site/cowork.json")])
    assert.equal(run.status, 0, run.stderr)
    const [window] = await until(() => windowsTitled(app.pid, "Keys Site").length && windowsTitled(app.pid, "Keys Site"), { what: "the site's window" })
    return window
  }

  test("closed and opened again, the window comes back where and as big as it was", async () => {
    const window = await openSite()
    execFileSync("xdotool", ["windowsize", "--sync", window, "700", "500"])
    execFileSync("xdotool", ["windowmove", "--sync", window, "300", "200"])
    // Its close button (WM_DELETE_WINDOW): the window closes and its site stops.
    execFileSync("python3", [fileURLToPath(new URL("wm.py", import.meta.url)), "close", window])
    await until(() => windowsTitled(app.pid, "Keys Site").length === 0, { what: "the site's window to close" })
    const again = await openSite()
    const text = execFileSync("xdotool", ["getwindowgeometry", again], { encoding: "utf8" })
    assert.match(text, /Position: 300,200 /, "where it was")
    assert.match(text, /Geometry: 700x500/, "as big as it was")
  })
})
