// Site app hibernation in the desktop app (src-tauri/src/site_apps/hibernate.rs): a site app that
// hibernates, hidden past its idle time (3 s here, set through the workbench's command), gives its
// window and its web process back — the WebKitWebProcess's pid is gone — and a click on one of
// its banners, or on its rail tile, opens it again at the page it was on, still signed in (the
// cookie its server set is sent).
// The test sites are tests/desktop/sites.mjs's; the pages report to the test server, since
// WebKitWebDriver drives only the workbench's web context.
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { after, before, describe, test } from "node:test"
import { pssKb, treePss } from "../../bench/pss.mjs"
import { alive, closeDesktop, cowork, daemonStatus, focusElsewhere, openDesktop, railTile, screenshotScreen, skip, webProcesses, windowsTitled } from "./desktop.mjs"
import { installSites, serveSites, siteTitle } from "./sites.mjs"
import { until } from "./webdriver.mjs"
import { makeWorkspace, removeWorkspace } from "./workspace.mjs"

const IDLE_S = 3

/** PSS of the app and every process under it, in kB. */
function treePssKb(pid) {
  return treePss(pid).reduce((sum, row) => sum + row.kb, 0)
}

/** Clicks the close button of the site's window (a WM_DELETE_WINDOW request); returns when. */
function hide(pid, site) {
  const [window] = windowsTitled(pid, siteTitle(site))
  assert.ok(window, `the ${site} site's window shows`)
  execFileSync("python3", [fileURLToPath(new URL("wm.py", import.meta.url)), "close", window])
  return Date.now()
}

/** `cowork app open .cowork/apps/<site>-site/cowork.json`. */
function openSite(workspace, site) {
  const run = cowork(["app", "open", `${workspace}/.cowork/apps/${site}-site/cowork.json`])
  assert.equal(run.status, 0, `cowork app open ${site}-site exits 0 (stderr: ${run.stderr})`)
}

/** The daemon's badge count of `app` in `workspace`. */
function count(workspace, app) {
  return daemonStatus()?.workspaces.find((each) => each.path === workspace)?.badges?.apps?.[app]
}

/** Calls a shell command from the workbench, as its Manage Workspace does: the answer, or "refused: …". */
function invoke(session, command, args) {
  return session.executeAsync(
    `const done = arguments[arguments.length - 1]
     window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1]).then((answer) => done(answer ?? "done"), (e) => done("refused: " + (e?.message ?? e)))`,
    command,
    args
  )
}

describe("site app hibernation", { skip }, () => {
  let sites
  let workspace
  let app

  before(async () => {
    sites = await serveSites()
    workspace = makeWorkspace()
    installSites(workspace, sites.url)
    app = await openDesktop(workspace)
  })

  after(async () => {
    await closeDesktop(app)
    await sites?.close()
    if (workspace) removeWorkspace(workspace)
  })

  test("it is off by default and switched per app; Manage Workspace says which apps hibernate", async () => {
    assert.deepEqual(await invoke(app.session, "site_hibernation", {}), {}, "no app hibernates until switched on")
    const saved = await invoke(app.session, "set_site_hibernation", { name: "notify-site", after: IDLE_S })
    assert.deepEqual(saved, { hibernateAfter: IDLE_S })
    assert.match(await invoke(app.session, "set_site_hibernation", { name: "notify-site", after: 0 }), /^refused: .*between 1 second and 24 hours/)
    assert.match(await invoke(app.session, "set_site_hibernation", { name: "nope", after: 60 }), /^refused: no app "nope"/)
    await app.session.click(await railTile(app.session, "Manage Workspace"))
    await app.session.waitFor(`[data-app-card="notify-site"] [data-hibernation="${IDLE_S}"] button[role="switch"][aria-checked="true"]`)
    await app.session.waitFor(`[data-app-card="badge-site"] [data-hibernation="off"] button[role="switch"][aria-checked="false"]`)
    const text = await app.session.execute(`return document.querySelector('[data-app-card="notify-site"] [data-hibernation]').innerText`)
    assert.match(text, /sends no notifications/)
    assert.match(text, /unread count keeps its last value/)
    await app.session.execute(`document.querySelector('[data-app-card="notify-site"]').scrollIntoView()`)
    screenshotScreen("hibernate-manage-workspace")
  })

  test("hidden past its idle time, it loses its web process; a click on its banner wakes it at the same page, still signed in", async (t) => {
    const before = new Set(webProcesses(app.pid))
    openSite(workspace, "notify")
    await until(() => windowsTitled(app.pid, siteTitle("notify")).length === 1, { what: "the Notify Site window" })
    await until(() => sites.reports("notify", "loaded").length, { what: "the notify page to load" })
    const [webProcess] = await until(() => {
      const added = webProcesses(app.pid).filter((pid) => !before.has(pid))
      return added.length === 1 && added
    }, { what: "the site's own web process" })
    // Signed in: a frame of the app's page visits the cookie page, whose server sets a cookie in
    // the app's storage (as a sign-in does).
    sites.command("notify", { command: "frame", src: `${sites.url}/cookie/` })
    const { cookie } = await until(() => sites.reports("cookie", "cookie").at(-1), { what: "the sign-in frame to load" })
    assert.match(cookie, /^visitor=v\d+-\d+$/)
    // Another page of the app: where it must come back to.
    sites.command("notify", { command: "navigate", to: `${sites.url}/notify/index.html` })
    await until(() => sites.reports("notify", "page").some((p) => p.page === "/notify/index.html"), { what: "the app's other page to load" })
    await until(() => sites.reports("notify", "loaded").length === 2, { what: "the other page to run" })
    // A notification while out of focus: its banner (dunst's banner 0), and the count its
    // hibernation keeps.
    execFileSync("dunstctl", ["close-all"])
    focusElsewhere()
    await new Promise((resolve) => setTimeout(resolve, 300))
    sites.command("notify", { command: "notify", title: "Ana", body: "Lunch?" })
    await until(() => count(workspace, "notify-site") === 1, { what: "notify-site's count 1" })
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const processPss = pssKb(webProcess)
    const treeBefore = treePssKb(app.pid)

    // Its close button hides the window (it hibernates rather than close).
    const hiddenAt = hide(app.pid, "notify")
    await until(() => windowsTitled(app.pid, siteTitle("notify")).length === 0, { what: "the site's window to hide" })
    assert.ok(alive(webProcess), "hidden, not yet asleep: its page still runs")
    await until(() => !alive(webProcess), { timeoutMs: 30_000, what: `the site's web process (pid ${webProcess}) to end` })
    const asleepAfterMs = Date.now() - hiddenAt
    assert.ok(asleepAfterMs >= IDLE_S * 1000 - 200, `not before its idle time (${asleepAfterMs} ms)`)
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const treeAfter = treePssKb(app.pid)
    t.diagnostic(`web process PSS ${processPss} kB; app tree PSS ${treeBefore} kB awake, ${treeAfter} kB asleep (freed ${treeBefore - treeAfter} kB); asleep ${asleepAfterMs} ms after hiding`)
    assert.ok(treeAfter < treeBefore, `the app gave memory back (${treeBefore} → ${treeAfter} kB)`)
    // Asleep: its count keeps its last value; the rail dims its tile; Manage Workspace says so.
    assert.equal(count(workspace, "notify-site"), 1, "the count keeps its last value")
    await app.session.waitFor(`[data-testid="rail"] button[aria-label="${siteTitle("notify")}"][data-asleep]`)
    await app.session.waitFor(`[data-app-card="notify-site"] [data-asleep]`)
    screenshotScreen("hibernate-asleep")

    // A click on its banner wakes it at the page it was on, with its cookie.
    const pages = sites.reports("notify", "page").length
    execFileSync("dunstctl", ["action", "0"])
    await until(() => windowsTitled(app.pid, siteTitle("notify")).length === 1, { what: "the Notify Site window again" })
    const woken = await until(() => sites.reports("notify", "page")[pages], { what: "the app's page to load again" })
    assert.equal(woken.page, "/notify/index.html", "the page it was on, not its start page")
    assert.equal(woken.requestCookie, cookie, "still signed in: the page's request sent the cookie")
    await until(() => webProcesses(app.pid).some((pid) => !before.has(pid) && pid !== webProcess), { what: "a web process for the woken page" })
    await until(async () => !(await app.session.find(`[data-testid="rail"] button[aria-label="${siteTitle("notify")}"][data-asleep]`)), { what: "the tile to light up again" })
    screenshotScreen("hibernate-woken")
  })

  test("asleep again, a click on its rail tile wakes it at the same page", async () => {
    const awake = new Set(webProcesses(app.pid))
    await until(() => sites.reports("notify", "loaded").length === 3, { what: "the woken page to run" })
    hide(app.pid, "notify")
    await until(() => webProcesses(app.pid).length < awake.size, { timeoutMs: 30_000, what: "the site's web process to end again" })
    const tile = await app.session.waitFor(`[data-testid="rail"] button[aria-label="${siteTitle("notify")}"][data-asleep]`)
    const pages = sites.reports("notify", "page").length
    await app.session.click(tile)
    await until(() => windowsTitled(app.pid, siteTitle("notify")).length === 1, { what: "the Notify Site window after a rail click" })
    const woken = await until(() => sites.reports("notify", "page")[pages], { what: "the app's page to load again" })
    assert.equal(woken.page, "/notify/index.html")
    assert.match(woken.requestCookie, /^visitor=v\d+-\d+$/)
  })

  test("a site app that does not hibernate still closes with its window", async () => {
    const before = new Set(webProcesses(app.pid))
    openSite(workspace, "badge")
    await until(() => windowsTitled(app.pid, siteTitle("badge")).length === 1, { what: "the Badge Site window" })
    const [webProcess] = await until(() => {
      const added = webProcesses(app.pid).filter((pid) => !before.has(pid))
      return added.length === 1 && added
    }, { what: "the badge site's web process" })
    await until(() => count(workspace, "badge-site") === 4, { what: "badge-site's count 4" })
    hide(app.pid, "badge")
    await until(() => windowsTitled(app.pid, siteTitle("badge")).length === 0, { what: "the window to close" })
    // Closed, not asleep: its count goes at once, and its page with it.
    await until(() => !count(workspace, "badge-site"), { what: "badge-site's count to go" })
    await until(() => !alive(webProcess), { timeoutMs: 30_000, what: "the badge site's web process to end" })
    assert.equal(await app.session.find(`[data-testid="rail"] button[aria-label="${siteTitle("badge")}"][data-asleep]`), null)
  })
})
