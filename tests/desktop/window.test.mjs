// The main window as a person sees it across starts: it comes back where and how big it was (and
// centred when that place is off the screen), the shell's own GTK parts (the menu bar) follow the
// workbench's dark theme, and the window shows the theme's colour, not black, before its page paints.
import assert from "node:assert/strict"
import { execFileSync, spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { after, before, describe, test } from "node:test"
import { DESKTOP_BIN, HOME, alive, closeDesktop, openDesktop, quitDesktop, screenshotScreen, skip, visibleWindows, windowsNamed } from "./desktop.mjs"
import { until } from "./webdriver.mjs"
import { makeWorkspace, removeWorkspace } from "./workspace.mjs"

const DESKTOP_JSON = join(HOME, "desktop.json")
const readDesktopJson = () => JSON.parse(readFileSync(DESKTOP_JSON, "utf8"))

/** The main window's place on the X screen: {x, y, width, height}. */
function geometry(pid) {
  const [window] = visibleWindows(pid)
  assert.ok(window, "the main window shows")
  const text = execFileSync("xdotool", ["getwindowgeometry", window], { encoding: "utf8" })
  const [, x, y] = /Position: (-?\d+),(-?\d+)/.exec(text).map(Number)
  const [, width, height] = /Geometry: (\d+)x(\d+)/.exec(text).map(Number)
  return { x, y, width, height }
}

/** The colour of one pixel of the X screen: [r, g, b]. */
function pixel(x, y) {
  const text = execFileSync("import", ["-window", "root", "-crop", `1x1+${x}+${y}`, "-depth", "8", "txt:-"], { encoding: "utf8" })
  const hex = /#([0-9A-F]{6})/i.exec(text)[1]
  return [0, 2, 4].map((at) => parseInt(hex.slice(at, at + 2), 16))
}

const brightness = ([r, g, b]) => (r + g + b) / 3

describe("the main window across starts", { skip }, () => {
  let workspace
  let app
  before(() => {
    workspace = makeWorkspace()
  })
  after(async () => {
    await closeDesktop(app)
    removeWorkspace(workspace)
    // The next suites' windows start where the app puts a first window, in the light theme.
    const state = readDesktopJson()
    delete state.windows
    delete state.theme
    writeFileSync(DESKTOP_JSON, JSON.stringify(state))
  })

  test("the window comes back where and how big it was after a quit", async () => {
    app = await openDesktop(workspace)
    const [window] = visibleWindows(app.pid)
    execFileSync("xdotool", ["windowsize", "--sync", window, "1000", "640"])
    execFileSync("xdotool", ["windowmove", "--sync", window, "200", "150"])
    await until(() => {
      const now = geometry(app.pid)
      return now.x === 200 && now.y === 150 && now.width === 1000 && now.height === 640
    }, { what: "the window to move to 200,150 at 1000×640" })
    await quitDesktop(app)
    await app.session.delete()
    assert.deepEqual(readDesktopJson().windows?.main, { x: 200, y: 150, width: 1000, height: 640, maximized: false }, "desktop.json keeps the place")

    app = await openDesktop(workspace)
    assert.deepEqual(geometry(app.pid), { x: 200, y: 150, width: 1000, height: 640 }, "the window is back where it was")
    screenshotScreen("window-place-kept")
  })

  test("a move is kept as soon as the window stands still: a crash does not lose it", async () => {
    if (!app) app = await openDesktop(workspace)
    const [window] = visibleWindows(app.pid)
    execFileSync("xdotool", ["windowsize", "--sync", window, "900", "600"])
    execFileSync("xdotool", ["windowmove", "--sync", window, "300", "200"])
    const place = { x: 300, y: 200, width: 900, height: 600, maximized: false }
    await until(() => JSON.stringify(readDesktopJson().windows?.main) === JSON.stringify(place), { what: "desktop.json to keep the place before any quit" })
    process.kill(app.pid, "SIGKILL")
    await until(() => !alive(app.pid), { what: "the killed app to be gone" })
    await app.session.delete().catch(() => {})
    app = await openDesktop(workspace)
    assert.deepEqual(geometry(app.pid), { x: 300, y: 200, width: 900, height: 600 }, "the window is back where it was moved")
  })

  test("a place off every monitor is not given back: the window comes up centred at its size", async () => {
    await quitDesktop(app)
    await app.session.delete()
    const state = readDesktopJson()
    // A second monitor to the right of this 1440×900 screen, since unplugged.
    state.windows = { main: { x: 2000, y: 100, width: 900, height: 600, maximized: false } }
    writeFileSync(DESKTOP_JSON, JSON.stringify(state))
    app = await openDesktop(workspace)
    const place = geometry(app.pid)
    assert.deepEqual({ width: place.width, height: place.height }, { width: 900, height: 600 }, "its size is kept")
    assert.ok(Math.abs(place.x - 270) <= 2 && Math.abs(place.y - 150) <= 2, `centred on the screen, not off it: ${JSON.stringify(place)}`)
  })

  test("the menu bar follows the workbench's theme, at once and at the next start", async () => {
    if (!app) app = await openDesktop(workspace)
    const { x, y } = geometry(app.pid)
    // The menu bar's background, right of its items.
    const menuBar = () => pixel(x + 600, y + 12)
    const light = await app.session.find('button[aria-label="Switch to Light Theme"]')
    if (light) await app.session.click(light)
    await until(() => brightness(menuBar()) > 160, { timeoutMs: 10_000, what: "a light menu bar in the light theme" })

    await app.session.click(await app.session.waitFor('button[aria-label="Switch to Dark Theme"]'))
    await until(() => brightness(menuBar()) < 100, { timeoutMs: 10_000, what: "the menu bar to turn dark with the workbench" })
    screenshotScreen("window-dark-menu-bar")
    await until(() => readDesktopJson().theme === "dark", { what: "desktop.json to keep the dark theme" })

    await quitDesktop(app)
    await app.session.delete()
    app = await openDesktop(workspace)
    const now = geometry(app.pid)
    assert.ok(brightness(pixel(now.x + 600, now.y + 12)) < 100, "the menu bar is dark from the start")

    await app.session.click(await app.session.waitFor('button[aria-label="Switch to Light Theme"]'))
    await until(() => brightness(pixel(now.x + 600, now.y + 12)) > 160, { timeoutMs: 10_000, what: "the menu bar to turn light again" })
    await until(() => readDesktopJson().theme === "light", { what: "desktop.json to keep the light theme" })
    await quitDesktop(app)
    await app.session.delete()
    app = undefined
  })

  // null: a first start, no theme said yet: the system's (this session's portal prefers none: light).
  for (const theme of ["light", "dark", null]) {
    test(`${theme ? `in the ${theme} theme` : "on a first start"} the window shows the theme's colour before the workbench paints, never black`, async () => {
      const state = readDesktopJson()
      if (theme) state.theme = theme
      else delete state.theme
      state.windows = { main: { x: 100, y: 50, width: 1000, height: 700, maximized: false } }
      writeFileSync(DESKTOP_JSON, JSON.stringify(state))
      // Started as a person starts it (no WebDriver session in between), each frame of the window's
      // middle watched from the moment it is on the screen until the workbench has painted.
      const child = spawn(DESKTOP_BIN, [workspace], { env: process.env, stdio: "ignore" })
      try {
        // An empty spot of the editor area: the theme's background before and after the page paints.
        await until(() => windowsNamed("^Cowork Studio", child.pid).length, { intervalMs: 5, what: "the window to show" })
        const seen = []
        for (const end = Date.now() + 5_000; Date.now() < end; ) seen.push(pixel(1000, 650))
        assert.ok(seen.length > 0, "the window showed")
        const black = seen.filter((each) => brightness(each) === 0)
        assert.equal(black.length, 0, `no frame is black before the page paints (${black.length} of ${seen.length} were; the first: ${seen[0]})`)
        const expected = theme === "dark" ? [10, 10, 10] : [255, 255, 255]
        assert.deepEqual(seen[0], expected, "the first frame is the theme's background")
      } finally {
        child.kill("SIGTERM")
        await until(() => !alive(child.pid) || child.exitCode !== null, { timeoutMs: 30_000, what: "the app to quit on SIGTERM" })
      }
    })
  }
})
