// Site apps in the desktop app: each test site (tests/desktop/sites.mjs, served on 127.0.0.1) is
// installed as a site app of the fixture workspace, opened with `cowork app open`, and watched
// from outside: its X window (xdotool), its banners on the session bus (dbus-monitor), its count
// in the daemon's badge state (`cowork status --json`), and what the page itself reported to the
// test server. A site window has a web context of its own (its data directory; site apps on sites
// of their own share one), and WebKitWebDriver automates only the first context, so WebDriver sees
// the workbench, not the sites.
import assert from "node:assert/strict"
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { after, before, describe, test } from "node:test"
import { alive, closeDesktop, cowork, daemonStatus, dismissTrayNote, focusElsewhere, networkProcesses, openDesktop, railTile, screenshotScreen, skip, visibleWindows, webProcesses, windowsNamed, windowsTitled } from "./desktop.mjs"
import { watchNotifications } from "./notifications.mjs"
import { installSite, installSites, serveSites, siteTitle } from "./sites.mjs"
import { until } from "./webdriver.mjs"
import { makeWorkspace, removeWorkspace } from "./workspace.mjs"

/**
 * Quits with Ctrl+Q in the main window (desktop.mjs's quitDesktop may pick a site window, which
 * has no menu), waits for the process to end and ends the WebDriver session.
 */
async function quitApp(app) {
  const [main] = visibleWindows(app.pid)
  execFileSync("xdotool", ["windowfocus", "--sync", main])
  execFileSync("xdotool", ["key", "--clearmodifiers", "ctrl+q"])
  await until(() => !alive(app.pid), { timeoutMs: 30_000, what: `the desktop app (pid ${app.pid}) to exit after Ctrl+Q` })
  await app.session.delete()
}

/** The "<App> went to a page outside the app" dialogs of process `pid`. */
function outsideDialogs(pid) {
  return windowsNamed("went to a page outside the app", pid)
}

/** Where X window `id` is in the screen's stacking order (0 at the bottom; -1: not a top-level window). */
function stackingIndex(id) {
  const children = execFileSync("xwininfo", ["-root", "-children"], { encoding: "utf8" })
  const ids = [...children.matchAll(/^\s+(0x[0-9a-f]+) /gm)].map((match) => Number(match[1]))
  // xwininfo lists the root's children from the top down.
  const index = ids.indexOf(Number(id))
  return index === -1 ? -1 : ids.length - 1 - index
}

/** The title of the window with the keyboard focus. */
function focusedTitle() {
  const run = spawnSync("xdotool", ["getwindowfocus", "getwindowname"], { encoding: "utf8" })
  return run.stdout.trim()
}

/** `cowork app open .cowork/apps/<site>-site/cowork.json`, as a person (or agent) types it. */
function openSite(workspace, site) {
  const run = cowork(["app", "open", join(workspace, `.cowork/apps/${site}-site/cowork.json`)])
  assert.equal(run.status, 0, `cowork app open ${site}-site exits 0 (stderr: ${run.stderr})`)
}

/** The daemon's badge counts of `workspace`: {apps, total}. */
function badges(workspace) {
  const ws = daemonStatus()?.workspaces.find((each) => each.path === workspace)
  return ws?.badges ?? { apps: {}, total: 0 }
}

describe("site apps in the desktop app", { skip }, () => {
  let sites
  let workspace
  let app
  let bus

  before(async () => {
    sites = await serveSites()
    bus = await watchNotifications()
    workspace = makeWorkspace()
    installSites(workspace, sites.url)
    app = await openDesktop(workspace)
  })

  after(async () => {
    bus?.stop()
    await closeDesktop(app)
    await sites?.close()
    if (workspace) removeWorkspace(workspace)
  })

  test("`cowork app open` opens the site in a window of its own, titled as the app, with the script injected", async () => {
    const handlesBefore = await app.session.windowHandles()
    openSite(workspace, "notify")
    await until(() => windowsTitled(app.pid, siteTitle("notify")).length === 1, { what: "the Notify Site window" })
    // The page loaded and saw the injected Notification (permission "granted").
    const [loaded] = await until(() => sites.reports("notify", "loaded").length && sites.reports("notify", "loaded"), { what: "the notify page to load" })
    assert.equal(loaded.loaded, "granted")
    // Its icon is the app's (a 2×2 image: width, height, then 4 pixels).
    const [window] = windowsTitled(app.pid, siteTitle("notify"))
    const icon = execFileSync("xprop", ["-id", window, "_NET_WM_ICON"], { encoding: "utf8" })
    assert.match(icon, /Icon \(2 x 2\)/, icon)
    // The main window is still the one WebDriver drives; the site's window is another X window.
    assert.deepEqual(await app.session.windowHandles(), handlesBefore, "WebDriver sees only the workbench's web context")
    // A second open brings the same window up, not a second one.
    openSite(workspace, "notify")
    await new Promise((resolve) => setTimeout(resolve, 1000))
    assert.equal(windowsTitled(app.pid, siteTitle("notify")).length, 1)
    screenshotScreen("site-apps-notify-window")
  })

  test("its notification reaches the bus as sent, and counts while its window is not focused", async () => {
    // Banners of earlier test files stay on screen (timeout 0): ours must be dunst's banner 0.
    execFileSync("dunstctl", ["close-all"])
    focusElsewhere()
    await new Promise((resolve) => setTimeout(resolve, 300))
    const since = bus.mark()
    sites.command("notify", { command: "notify", title: "Ana", body: "Lunch?" })
    // Headed by the site app that sent it, so a page cannot pass as another app.
    const [banner] = await bus.waitFor(1, { since, where: (n) => n.body === "Ana\nLunch?" })
    assert.equal(banner.summary, "Notify Site")
    assert.ok(banner.actions.includes("default"), "the banner can be clicked")
    // No badge from the site itself, no count in its title: notifications since it was focused.
    await until(() => badges(workspace).apps["notify-site"] === 1, { what: `notify-site's count 1 (badges: ${JSON.stringify(badges(workspace))})` })
    screenshotScreen("site-apps-notify-banner")
  })

  test("a click on its banner shows the site's window and runs the page's onclick", async () => {
    const [banner] = bus.after(0, (n) => n.body === "Ana\nLunch?")
    execFileSync("dunstctl", ["action", "0"])
    await until(() => bus.actions.some((a) => a.id === banner.id && a.action === "default"), { what: "ActionInvoked on the bus" })
    await until(() => sites.reports("notify", "onclick").length === 1, { what: "the page's onclick to run" })
    assert.equal(sites.reports("notify", "onclick")[0].onclick, "Ana")
    await until(() => sites.reports("notify", "listener").length, { what: "the page's click listener to run" })
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(sites.reports("notify", "listener").length, 1, "its click listener ran once")
    assert.equal(sites.reports("notify", "onclick").length, 1, "its onclick ran once")
    await until(() => focusedTitle() === siteTitle("notify"), { what: `the site's window to have the focus (focused: ${focusedTitle()})` })
    // Focused: the notifications since then are read.
    await until(() => !badges(workspace).apps["notify-site"], { what: "notify-site's count to clear on focus" })
  })

  test("with the main window hidden to the tray, the site keeps running and notifying", async () => {
    // File › Close Window (Ctrl+Shift+W) in the main window: it hides; the site's window stays.
    const [main] = visibleWindows(app.pid)
    execFileSync("xdotool", ["windowfocus", "--sync", main])
    execFileSync("xdotool", ["key", "--clearmodifiers", "ctrl+shift+w"])
    await until(() => visibleWindows(app.pid).length === 0, { what: "the main window to hide" })
    await dismissTrayNote(app.pid)
    assert.equal(windowsTitled(app.pid, siteTitle("notify")).length, 1, "the site's window stays")
    execFileSync("dunstctl", ["close-all"])
    focusElsewhere()
    const since = bus.mark()
    sites.command("notify", { command: "notify", title: "Bo", body: "Still there?" })
    const [banner] = await bus.waitFor(1, { since, where: (n) => n.body === "Bo\nStill there?" })
    assert.equal(banner.summary, "Notify Site")
    execFileSync("dunstctl", ["close-all"])
    // Back from the tray for the tests that follow.
    assert.equal(cowork(["open", "--workspace", workspace]).status, 0)
    await until(() => visibleWindows(app.pid).length === 1, { what: "the main window to show again" })
  })

  test("the page can call site_report and nothing else; the workbench cannot call site_report", async () => {
    sites.command("notify", {
      command: "probe",
      calls: [
        ["open_external", { url: "https://example.com/" }],
        ["switch_workspace", { path: "/" }],
        ["open_site_app", { app: "badge-site" }],
        ["plugin:opener|open_url", { url: "https://example.com/" }],
        ["plugin:dialog|message", { message: "hi" }],
        ["plugin:event|emit", { event: "x", payload: null }],
      ],
    })
    const probes = await until(() => sites.reports("notify", "probe").length === 6 && sites.reports("notify", "probe"), { what: "the page's probes" })
    for (const probe of probes) assert.match(probe.outcome, /^refused: /, `${probe.probe}: ${probe.outcome}`)
    const fromWorkbench = await app.session.executeAsync(`const done = arguments[arguments.length - 1]
      window.__TAURI_INTERNALS__.invoke("site_report", { report: { kind: "badge", count: 9 } }).then(() => done("allowed"), (e) => done("refused: " + (e?.message ?? e)))`)
    assert.match(fromWorkbench, /^refused: /)
    await new Promise((resolve) => setTimeout(resolve, 500))
    assert.notEqual(badges(workspace).apps["notify-site"], 9, "no count came of it")
  })

  test("a popup the page opens stays inside the app and shares its storage (a sign-in)", async () => {
    const before = sites.reports("cookie", "page").length
    // A click on the page's Sign in button (the window's top-left corner).
    const [notifyWindow] = windowsTitled(app.pid, siteTitle("notify"))
    execFileSync("xdotool", ["windowraise", notifyWindow])
    execFileSync("xdotool", ["mousemove", "--window", notifyWindow, "--sync", "100", "60", "click", "1"])
    await until(() => sites.reports("cookie", "page").length > before, { what: "the popup to load the sign-in page" })
    assert.equal(sites.reports("cookie", "page").at(-1).requestCookie, "", "the popup starts signed out")
    // The popup is a window of the app (not the browser), and what it signed in is the page's.
    await until(() => windowsTitled(app.pid, siteTitle("notify")).length === 1 && windowsTitled(app.pid, "Cookie").length > 0, { what: "the popup's window" })
    sites.command("notify", { command: "whoami" })
    const [whoami] = await until(() => sites.reports("notify", "whoami").length && sites.reports("notify", "whoami"), { what: "the page to report its cookies" })
    assert.match(whoami.requestCookie, /visitor=v\d+-/, "the page sends the cookie its popup got")
  })

  test("a frame from outside the scope loads, with no question and no power", async () => {
    const before = sites.reports("badge", "page").length
    sites.command("notify", { command: "frame", src: `${sites.url}/badge/` })
    await until(() => sites.reports("badge", "page").length > before, { what: "the frame outside the scope to load" })
    await new Promise((resolve) => setTimeout(resolve, 1000))
    assert.equal(outsideDialogs(app.pid).length, 0, "nobody is asked about a frame")
    // The badge page in the frame called setAppBadge(4): outside the scope the script does nothing.
    assert.equal(badges(workspace).apps["notify-site"], undefined)
    assert.equal(badges(workspace).apps["badge-site"], undefined)
  })

  test("a click on a link outside the scope loads nothing; the person is asked about the browser", async () => {
    const titlePages = sites.reports("title", "page").length
    const [notifyWindow] = windowsTitled(app.pid, siteTitle("notify"))
    execFileSync("xdotool", ["windowraise", notifyWindow])
    execFileSync("xdotool", ["mousemove", "--window", notifyWindow, "--sync", "100", "250", "click", "1"])
    const dialog = await until(() => outsideDialogs(app.pid)[0], { what: "the dialog about the link outside the app" })
    assert.match(spawnSync("xdotool", ["getwindowname", dialog], { encoding: "utf8" }).stdout, /^Notify Site went to a page outside the app/)
    await new Promise((resolve) => setTimeout(resolve, 500))
    assert.equal(sites.reports("title", "page").length, titlePages, "the page outside the scope was not requested")
    execFileSync("xdotool", ["windowfocus", "--sync", dialog])
    execFileSync("xdotool", ["key", "Escape"])
    await until(() => outsideDialogs(app.pid).length === 0, { what: "the dialog to close" })
  })

  test("the page going outside the scope stays on the app, nothing of the page outside shown or run; the person is asked about the browser", async () => {
    const pagesBefore = sites.reports("notify", "page").length
    const badgeRuns = sites.reports("badge").length
    const badgeAsked = sites.reports("badge", "page").length
    sites.command("notify", { command: "navigate", to: `${sites.url}/badge/` })
    const dialog = await until(() => outsideDialogs(app.pid)[0], { what: "the dialog about the page outside the app" })
    screenshotScreen("site-apps-outside-scope")
    // The page outside was asked for (a script's navigation is seen by its answer) and refused:
    // its script never ran. The app's page was never left: it answers, not loaded again.
    assert.equal(sites.reports("badge", "page").length, badgeAsked + 1, "the page outside was asked for once")
    const whoamis = sites.reports("notify", "whoami").length
    sites.command("notify", { command: "whoami" })
    await until(() => sites.reports("notify", "whoami").length > whoamis, { what: "the app's page to answer, still there" })
    assert.equal(sites.reports("badge").length, badgeRuns + 1, "nothing of the page outside ran (only its request was seen)")
    assert.equal(sites.reports("notify", "page").length, pagesBefore, "the app's page was not loaded again")
    // Stay (Escape).
    execFileSync("xdotool", ["windowfocus", "--sync", dialog])
    execFileSync("xdotool", ["key", "Escape"])
    await until(() => outsideDialogs(app.pid).length === 0, { what: "the dialog to close" })
  })

  test("navigator.setAppBadge(4) is the app's count", async () => {
    openSite(workspace, "badge")
    await until(() => sites.reports("badge", "set").length, { what: "the badge page to call setAppBadge" })
    await until(() => badges(workspace).apps["badge-site"] === 4, { what: `badge-site's count 4 (badges: ${JSON.stringify(badges(workspace))})` })
  })

  test("a (3) Inbox title is a count of 3, and stays 3 while the title blinks", async () => {
    openSite(workspace, "title")
    // "display": "right": a window as tall as the main one, at its right edge (on the screen).
    const [docked] = await until(() => windowsTitled(app.pid, siteTitle("title")), { what: "the Title Site window" })
    const [main] = visibleWindows(app.pid)
    const geometry = (id) => Object.fromEntries(execFileSync("xdotool", ["getwindowgeometry", "--shell", id], { encoding: "utf8" }).trim().split("\n").map((line) => line.split("=")).map(([k, v]) => [k, Number(v)]))
    // Mapped first, then moved and sized.
    const site = await until(() => {
      const now = geometry(docked)
      return now.HEIGHT > 1 && now.X > 0 && now
    }, { what: `the docked window's place and size (now ${JSON.stringify(geometry(docked))})` })
    const workbench = geometry(main)
    assert.equal(site.HEIGHT, workbench.HEIGHT, `as tall as the main window (${JSON.stringify({ site, workbench })})`)
    assert.equal(site.X + site.WIDTH, Math.min(workbench.X + workbench.WIDTH + site.WIDTH, 1440), "docked at the main window's right edge, on the screen")
    await until(() => badges(workspace).apps["title-site"] === 3, { what: `title-site's count 3 (badges: ${JSON.stringify(badges(workspace))})` })
    // 6 s of "(3) Inbox" / "New message!" every 0.7 s.
    for (let i = 0; i < 12; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500))
      assert.equal(badges(workspace).apps["title-site"], 3, `after ${(i + 1) * 0.5} s`)
    }
    assert.equal(badges(workspace).total, 7, "the total sums the sites' counts (4 + 3)")
  })

  // WebKit's notification service starts with the first banner WebKit is asked for and gives the
  // server 20 ms, once, to say what it can do; late (on a machine busy beside the tests), WebKit
  // shows none for the rest of the process and the shell shows them all itself (the app's
  // fallback: a click then shows the window only). So the banner's sender is checked against the
  // shell's own bus connection (a page notification's banner), and the app started again if the
  // shell sent it.
  test("a notification shown through the page's service worker registration reaches the bus", async (t) => {
    for (let start = 1; ; start++) {
      const registered = sites.reports("worker", "registered").length
      openSite(workspace, "worker")
      const outcome = await until(() => sites.reports("worker", "registered").length > registered ? "registered" : sites.reports("worker").find((r) => "error" in r), { what: "the worker page to register its service worker" })
      if (outcome.error) {
        t.skip(`no service worker here: ${outcome.error}`)
        return
      }
      openSite(workspace, "notify")
      focusElsewhere()
      await new Promise((resolve) => setTimeout(resolve, 300))
      const since = bus.mark()
      sites.command("notify", { command: "notify", title: "Shell", body: `start ${start}` })
      const [shells] = await bus.waitFor(1, { since, where: (n) => n.body === `Shell\nstart ${start}` })
      sites.command("worker", { command: "notify", title: "From the worker", body: "via its registration" })
      const [banner] = await bus.waitFor(1, { since, where: (n) => n.body === "From the worker\nvia its registration" })
      assert.equal(banner.summary, "Worker Site")
      assert.equal(banner.appName, "Cowork Studio")
      assert.ok(banner.actions.includes("default"), "the banner can be clicked")
      if (banner.sender !== shells.sender) {
        screenshotScreen("site-apps-worker-banner")
        return
      }
      assert.ok(start < 3, "WebKit's notification service started in none of 3 starts of the app")
      t.diagnostic(`start ${start}: WebKit's notification service did not start in time; the app starts again`)
      await quitApp(app)
      app = await openDesktop(workspace)
    }
  })

  test("a click on that banner is the service worker's notificationclick, and shows the site's window", async () => {
    const banner = bus.after(0, (n) => n.body === "From the worker\nvia its registration").at(-1)
    execFileSync("dunstctl", ["close-all"])
    // Closed unclicked: nothing for the worker. Shown again, then clicked.
    const since = bus.mark()
    focusElsewhere()
    await new Promise((resolve) => setTimeout(resolve, 300))
    sites.command("worker", { command: "notify", title: "Bo", body: "in #general" })
    const [again] = await bus.waitFor(1, { since, where: (n) => n.body === "Bo\nin #general" })
    assert.notEqual(again.id, banner.id)
    assert.equal(sites.reports("worker", "clicked").length, 0, "no click yet")
    // The main window raised over the site's.
    const [worker] = windowsTitled(app.pid, siteTitle("worker"))
    const [main] = visibleWindows(app.pid)
    execFileSync("xdotool", ["windowraise", main])
    await until(() => stackingIndex(main) > stackingIndex(worker), { what: "the main window raised over the site's" })
    execFileSync("dunstctl", ["action", "0"])
    await until(() => bus.actions.some((a) => a.id === again.id && a.action === "default"), { what: "ActionInvoked on the bus" })
    const [click] = await until(() => sites.reports("worker", "clicked").length && sites.reports("worker", "clicked"), { what: "the worker's notificationclick" })
    assert.equal(click.clicked, "Bo")
    assert.equal(click.conversation, "Bo", "with the notification's data")
    // On top again. (Not asserted by the keyboard focus: with no window manager X ignores a focus
    // request older than the last focus change, and GTK stamps the app's with its last input
    // event; once a test here has clicked in a site window, the focus stays where focusElsewhere
    // put it, though the window comes up. Run alone, this test sees the focus move too.)
    await until(() => stackingIndex(worker) > stackingIndex(main), { what: `the site's window above the main window (stacking: ${stackingIndex(worker)}, ${stackingIndex(main)})` })
    await new Promise((resolve) => setTimeout(resolve, 500))
    assert.equal(sites.reports("worker", "clicked").length, 1, "one click, one notificationclick")
  })

  test("a notification the service worker raises on its own gets no banner", async () => {
    focusElsewhere()
    await new Promise((resolve) => setTimeout(resolve, 300))
    const since = bus.mark()
    sites.command("worker", { command: "notify-in-worker", title: "Spam", body: "from the worker itself" })
    const settled = () => sites.reports("worker").filter((r) => "workerShown" in r || "workerFailed" in r)
    const [outcome] = await until(() => settled().length && settled(), { what: "the worker's own showNotification to settle" })
    assert.equal(outcome.workerShown, "Spam", `the worker's call resolves (it got: ${JSON.stringify(outcome)})`)
    // WebKit's call is answered in the app (id 0): the server never shows it.
    const [call] = await bus.waitFor(1, { since, where: (n) => n.summary === "Spam" })
    assert.equal(call.id, 0)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const history = JSON.parse(execFileSync("dunstctl", ["history"], { encoding: "utf8" }))
    const seen = history.data.flat().map((n) => `${n.summary.data}: ${n.body.data}`)
    assert.ok(seen.some((each) => each.includes("Bo")), `dunst's history has the banners before (${seen})`)
    assert.ok(!seen.some((each) => each.includes("Spam")), `and none of it (${seen})`)
    assert.equal(execFileSync("dunstctl", ["count", "displayed"], { encoding: "utf8" }).trim(), "0", "nothing on screen")
  })

  test("a restart of the shell keeps the site's cookie, and the cookie stays with its site", async () => {
    // Visits before this one were the notify site's sign-in popup, in its own storage.
    const pagesBefore = sites.reports("cookie", "page").length
    const reportsBefore = sites.reports("cookie", "cookie").length
    openSite(workspace, "cookie")
    const first = await until(() => sites.reports("cookie", "cookie")[reportsBefore], { what: "the cookie page to load" })
    assert.equal(sites.reports("cookie", "page")[pagesBefore].requestCookie, "", "a first visit sends no cookie")
    assert.match(first.cookie, /^visitor=v\d+-\d+$/, "the page has the cookie its server set")
    await quitApp(app)
    app = await openDesktop(workspace)
    openSite(workspace, "cookie")
    const second = await until(() => sites.reports("cookie", "cookie")[reportsBefore + 1], { what: "the cookie page to load after the restart" })
    assert.equal(second.cookie, first.cookie, "the cookie set before the restart is still there")
    assert.equal(sites.reports("cookie", "page")[pagesBefore + 1].requestCookie, first.cookie, "and the request for the page sent it")
    // Another site app on the same origin has its own storage: no cookie of the cookie site's.
    const badgeVisits = sites.reports("badge", "cookie").length
    openSite(workspace, "badge")
    const visits = await until(() => sites.reports("badge", "cookie").length > badgeVisits && sites.reports("badge", "cookie"), { what: "the badge page to load" })
    assert.equal(visits.at(-1).cookie, "(none)")
    assert.equal(visits.at(-1).requestCookie, "")
    screenshotScreen("site-apps-after-restart")
  })

  test("site apps on sites of their own share one storage and one network process, each with a web process and cookies of its own", async (t) => {
    if (!sites.ipv6) return t.skip("no IPv6 loopback here, and [::1] is the third loopback site")
    // The apps so far are all on 127.0.0.1, so each has a storage of its own. Two more on the
    // cookie page at localhost and at [::1], sites no other app here is on.
    for (const [site, host] of [["local", "localhost"], ["six", "[::1]"]]) {
      const url = `http://${host}:${sites.port}/cookie/`
      installSite(workspace, site, { title: `Cookie ${site}`, web: { url, scope: url } })
    }
    const visits = () => sites.reports("cookie", "page")
    const seen = () => sites.reports("cookie", "cookie")
    const [visitsBefore, seenBefore] = [visits().length, seen().length]
    // The daemon learns of a new app from its watcher, a moment after the folder is written.
    const open = (site) =>
      until(() => cowork(["app", "open", join(workspace, `.cowork/apps/${site}-site/cowork.json`)]).status === 0, { what: `the daemon to open ${site}-site` })
    await open("local")
    await until(() => seen().length > seenBefore, { what: "the cookie page at localhost to load" })
    const [network, web] = [networkProcesses(app.pid), webProcesses(app.pid)]
    await open("six")
    await until(() => seen().length > seenBefore + 1, { what: "the cookie page at [::1] to load" })
    assert.deepEqual(networkProcesses(app.pid), network, "the second site's window starts no network process of its own")
    // But a web process of its own: one site's page never shares memory with another's unless
    // the person asks (COWORK_SITE_PROCESSES=shared, src-tauri/src/site_apps/process.rs).
    // Only what started is asserted: another of the app's web processes may end between the two
    // counts (one did in a fresh clone's run on a busy machine: one gone, one new; WebKit ends
    // processes it keeps for closed pages on its own clock).
    const webAfter = webProcesses(app.pid)
    assert.ok(webAfter.some((pid) => !web.includes(pid)), `the second site's page runs in a web process of its own (before: ${web}, after: ${webAfter})`)
    // Each site has only its own cookie: the second sent none of the first's. (WebKit keeps no
    // cookie for an IPv6 address's page at all: the one at [::1] has none of its own either.)
    const [local, six] = visits().slice(visitsBefore)
    assert.deepEqual([local.requestCookie, six.requestCookie], ["", ""])
    assert.match(seen()[seenBefore].cookie, /^visitor=v\d+-\d+$/)
    // Out of the workspace again, so the rail holds the tiles the next tests click.
    for (const site of ["local", "six"]) rmSync(join(workspace, `.cowork/apps/${site}-site`), { recursive: true })
    const tiles = () => app.session.execute(`return document.querySelectorAll('[data-testid="rail"] button[aria-label^="Cookie "]').length`)
    await until(async () => (await tiles()) === 1, { what: "the rail to drop the two apps" })
  })

  test("a click on its rail tile opens it (the workbench hands it to the shell)", async () => {
    assert.equal(windowsTitled(app.pid, siteTitle("worker")).length, 0, "not open since the restart")
    await app.session.click(await railTile(app.session, siteTitle("worker")))
    await until(() => windowsTitled(app.pid, siteTitle("worker")).length === 1, { what: "the Worker Site window after a rail click" })
    // No "part of the desktop app" message in the workbench.
    assert.equal(await app.session.execute(`return document.body.innerText.includes("is part of the desktop app")`), false)
  })

  test("switching workspaces closes the site windows of the one left", async () => {
    assert.equal(windowsTitled(app.pid, siteTitle("cookie")).length, 1)
    const other = mkdtempSync(join(tmpdir(), "cowork-desktop-other-"))
    try {
      const open = cowork(["open", "--workspace", other])
      assert.equal(open.status, 0, `cowork open exits 0 (stderr: ${open.stderr})`)
      await until(() => windowsTitled(app.pid, siteTitle("cookie")).length === 0 && windowsTitled(app.pid, siteTitle("badge")).length === 0, { what: "the site windows to close" })
      // Back, so the app quits on a workspace that still exists.
      assert.equal(cowork(["open", "--workspace", workspace]).status, 0)
      await until(() => visibleWindows(app.pid).some((id) => spawnSync("xdotool", ["getwindowname", id], { encoding: "utf8" }).stdout.includes("cowork-desktop-ws-")), { what: "the main window back on the fixture workspace" })
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })
})
