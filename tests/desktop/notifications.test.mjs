// Notifications as a person gets them: what the shell asks the notification server (dunst, on the
// test's session bus) to show, read off the bus with dbus-monitor — never the shell's own word —
// and the bell in the window. Routines post them through the CLI, which finds the daemon the app
// hosts through COWORK_HOME. One app launch for the whole file, in this order: the window hidden
// (banners), a banner click (shows the window), the window shown but not focused (a banner), then
// the window focused (the bell only). Each test
// uses its own app, so the 6-a-minute limit of one never touches another.
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { after, before, describe, test } from "node:test"
import { closeDesktop, dismissTrayNote, enterPane, focusElsewhere, focusWindow, openDesktop, pressKeys, runRoutine, screenshotScreen, skip, visibleWindows } from "./desktop.mjs"
import { watchNotifications } from "./notifications.mjs"
import { until } from "./webdriver.mjs"
import { makeWorkspace, removeWorkspace, writeWorkspaceJson } from "./workspace.mjs"

/** How long "no banner" is watched for: the shell shows a banner within milliseconds of the run. */
const QUIET_MS = 3000

describe("notifications on the desktop", { skip }, () => {
  let workspace
  let app
  let bus

  before(async () => {
    bus = await watchNotifications()
    workspace = makeWorkspace()
    app = await openDesktop(workspace)
    // Banners show while the window is away: hide it to the tray (File › Close Window).
    pressKeys(app.pid, "ctrl+shift+w")
    await until(() => visibleWindows(app.pid).length === 0, { what: "the main window to hide" })
    await dismissTrayNote(app.pid)
  })

  const session = () => app.session

  after(async () => {
    bus?.stop()
    await closeDesktop(app)
    if (workspace) removeWorkspace(workspace)
  })

  test("a banner is headed by its app and carries the title and body exactly as sent", async () => {
    const since = bus.mark()
    // No <, > or &: servers with body markup (dunst) read those as markup, and what the shell
    // should send for them is not settled yet.
    const sent = { title: "Build “42” passed · naïve ünïcode ✓", body: "3 suites, 0 failures — \"all green\" (12.4 s)" }
    const run = runRoutine(workspace, "alerts-notify", { notifications: [sent] })
    assert.deepEqual(run.result.deliveries, ["delivered"])
    const [banner] = await bus.waitFor(1, { since })
    // Headed by the app that sent it (its title, as the rail names it), so no app passes as another.
    assert.equal(banner.summary, "Alerts")
    assert.equal(banner.body, `${sent.title}\n${sent.body}`)
    assert.equal(banner.replacesId, 0, "a new banner replaces none")
    assert.ok(banner.appName, "the banner names its sender")
    assert.ok(banner.actions.includes("default"), `a banner can be clicked (actions: ${banner.actions})`)
    screenshotScreen("notifications-banner")
  })

  test("an urgent notification's banner stays until acted on", async () => {
    const since = bus.mark()
    runRoutine(workspace, "urgent-notify", { notifications: [{ title: "Deploy failed", body: "rolled back", urgent: true }] })
    const [banner] = await bus.waitFor(1, { since })
    const hints = Object.fromEntries(banner.hints.flatMap((value, i, all) => (i % 2 ? [] : [[value, all[i + 1]]])))
    assert.equal(hints.urgency, 2, "critical urgency")
    assert.equal(banner.expireTimeout, 0, "never expires by itself")
  })

  test("7 in a minute from one app make 6 banners", async () => {
    const since = bus.mark()
    const notifications = Array.from({ length: 7 }, (_, i) => ({ title: `Burst ${i + 1}`, body: `number ${i + 1}` }))
    const run = runRoutine(workspace, "burst-notify", { notifications })
    assert.deepEqual(run.result.deliveries, [...Array(6).fill("delivered"), "rateLimited"])
    const isBurst = (n) => n.summary === "Burst"
    const title = (n) => n.body.split("\n")[0]
    await bus.waitFor(6, { since, where: isBurst })
    const banners = await bus.quiet(QUIET_MS, { since, where: isBurst })
    assert.deepEqual(banners.map(title), ["Burst 1", "Burst 2", "Burst 3", "Burst 4", "Burst 5", "Burst 6"])
  })

  test("a muted app shows no banner, and its call still resolves", async () => {
    writeWorkspaceJson(workspace, { notifications: { muted: [".cowork/apps/quiet"] } })
    try {
      // The daemon reloads workspace.json within 250 ms of the write.
      await until(() => runRoutine(workspace, "quiet-notify", {}).ok, { what: "a run after the write" })
      await new Promise((resolve) => setTimeout(resolve, 500))
      const since = bus.mark()
      const run = runRoutine(workspace, "quiet-notify", { notifications: [{ title: "Muted one", body: "nobody sees this" }] })
      assert.deepEqual(run.result.deliveries, ["muted"])
      assert.deepEqual(await bus.quiet(QUIET_MS, { since }), [])
    } finally {
      writeWorkspaceJson(workspace, {})
      // The workbench reloads on the registry change that follows: let it, so the next test's
      // notifications do not race that reload (which resets the bell's list from the daemon's).
      await new Promise((resolve) => setTimeout(resolve, 1500))
    }
  })

  test("a tag replaces the app's banner still on screen", async () => {
    const since = bus.mark()
    const run = runRoutine(workspace, "tagged-notify", {
      notifications: [
        { title: "1 new message", body: "from Ada", tag: "inbox" },
        { title: "2 new messages", body: "from Ada and Linus", tag: "inbox" },
      ],
    })
    assert.deepEqual(run.result.deliveries, ["delivered", "replaced"])
    const [first, second] = await bus.waitFor(2, { since })
    assert.equal(first.body, "1 new message\nfrom Ada")
    assert.equal(second.body, "2 new messages\nfrom Ada and Linus")
    assert.equal(second.replacesId, first.id, "the second Notify names the first banner's id")
    assert.equal(second.id, first.id, "the server kept the one banner")
    screenshotScreen("notifications-tag-replaced")
  })

  test("a click on a banner shows the window on that app's pane", async () => {
    execFileSync("dunstctl", ["close-all"])
    const since = bus.mark()
    runRoutine(workspace, "clicky-notify", { notifications: [{ title: "Open me", body: "a click opens Clicky" }] })
    const [banner] = await bus.waitFor(1, { since })
    // dunst's banner 0 (the only one on screen now), clicked: its default action.
    screenshotScreen("notifications-before-click")
    execFileSync("dunstctl", ["action", "0"])
    await until(() => bus.actions.some((a) => a.id === banner.id && a.action === "default"), { what: "ActionInvoked on the bus" })
    await until(() => visibleWindows(app.pid).length === 1, { what: "the main window to show after the click" })
    const { session } = app
    await enterPane(session, "clicky")
    assert.equal(await session.text(await session.waitFor('[data-testid="pane-title"]')), "Clicky pane")
    await session.switchToFrame(null)
    screenshotScreen("notifications-clicked-pane")
  })

  test("with the window shown but another window focused, there is a banner", async () => {
    assert.equal(visibleWindows(app.pid).length, 1, "the window shows (the click before brought it up)")
    // Focused first, so the banner below is about losing the focus, not about never having had it.
    focusWindow(app.pid)
    focusElsewhere()
    await new Promise((resolve) => setTimeout(resolve, 300))
    const since = bus.mark()
    runRoutine(workspace, "away-notify", { notifications: [{ title: "While you were elsewhere" }] })
    const [banner] = await bus.waitFor(1, { since })
    assert.equal(banner.summary, "Away")
    assert.equal(banner.body, "While you were elsewhere", "no body sent: the title only")
  })

  test("with the window focused there is no banner, and the bell has it", async () => {
    const { session } = app
    focusWindow(app.pid)
    await until(() => session.execute("return document.hasFocus()"), { what: "the workbench page to have the focus" })
    const since = bus.mark()
    const run = runRoutine(workspace, "focus-notify", { notifications: [{ title: "Seen in the bell", body: "not as a banner" }] })
    assert.deepEqual(run.result.deliveries, ["delivered"])
    assert.deepEqual(await bus.quiet(QUIET_MS, { since }), [])
    // The bell's button counts what is new, and its list shows it.
    const bell = await session.waitFor('button[aria-label^="Notifications ("]')
    await session.execute(`window.__pageErrors = []; addEventListener("error", (e) => window.__pageErrors.push(e.message))`)
    await session.click(bell)
    const rows = await until(async () => {
      const texts = await session.execute(`return [...document.querySelectorAll('[data-testid="notification"]')].map((row) => row.textContent)`)
      if (texts.some((text) => text.includes("Seen in the bell"))) return texts
      // A page error that emptied the workbench will not mend itself: say so at once.
      if (await session.execute(`return !document.querySelector('[data-testid="rail"]')`)) {
        throw new Error(`opening the bell emptied the workbench; page errors: ${JSON.stringify(await session.execute("return window.__pageErrors"))}`)
      }
    }, { what: "the notification in the bell's list" }).catch(async (error) => {
      screenshotScreen("notifications-bell-failed")
      throw error
    })
    assert.ok(rows.some((text) => text.includes("Focus: Seen in the bell — not as a banner")), `the bell's rows: ${JSON.stringify(rows)}`)
    screenshotScreen("notifications-bell")
  })

  test("the bell lists a tag's replacement, not what it replaced", async () => {
    // The bell is open (the test before). The daemon's own bell (cowork status) holds one Tagged
    // line; the window's must say the same.
    const rows = await session().execute(`return [...document.querySelectorAll('[data-testid="notification"]')].map((row) => row.textContent)`)
    const tagged = rows.filter((text) => text.startsWith("Tagged:"))
    assert.deepEqual(tagged.map((text) => text.replace(/\d\d:\d\d.*$/, "")), ["Tagged: 2 new messages — from Ada and Linus"], `the bell's rows: ${JSON.stringify(rows)}`)
  })
})
