/**
 * The built workbench (dist/index.html) in headless Chromium against a fake daemon: the rail, each
 * display mode, a widget's routine call carrying its pane token, Cowork's dialog, the footer, the
 * bell, the Output panel, Manage Workspace and the dark theme. Screenshots land in test-results/.
 */
import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Browser, Page } from "playwright-core"
import { CHROMIUM, launchChromium } from "./chromium"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest"

import { OWNER_TOKEN, WORKSPACE, cannedApps, startFakeDaemon } from "./workbench/fake-daemon"

const ui = fileURLToPath(new URL("..", import.meta.url))
const results = join(ui, "test-results")

let daemon: Awaited<ReturnType<typeof startFakeDaemon>>
let browser: Browser

describe.skipIf(!existsSync(CHROMIUM))("the workbench in Chromium", () => {
  beforeAll(async () => {
    mkdirSync(results, { recursive: true })
    daemon = await startFakeDaemon(join(ui, "dist"), inject("workbenchWidgets"))
    browser = await launchChromium()
  })

  beforeEach(() => daemon.reset())

  // Pages a test opened are closed after it, passed or failed: a page a failed test left open
  // would still follow the daemon's events and answer the next test's (a `chat.ask` sent twice).
  const opened = new Set<Page>()
  afterEach(async () => {
    await Promise.all([...opened].map((page) => page.close()))
    opened.clear()
  })

  afterAll(async () => {
    await browser?.close()
    daemon?.close()
  })

  /** The workbench opened the way the daemon opens it: the owner token in the fragment. */
  async function open(deviceScaleFactor = 1) {
    const page = await browser.newPage({
      viewport: { width: 1440, height: 900 },
      deviceScaleFactor,
    })
    opened.add(page)
    const problems: string[] = []
    page.on("pageerror", (error) => problems.push(error.message))
    await page.goto(
      `http://127.0.0.1:${daemon.port}/?workspace=${encodeURIComponent(WORKSPACE)}#token=${OWNER_TOKEN}`,
    )
    await tile(page, "Notes").waitFor()
    await expect.poll(() => daemon.listeners()).toBeGreaterThan(0)
    return { page, problems }
  }

  const tile = (page: Page, title: string) =>
    page.getByTestId("rail").getByRole("button", { name: title, exact: true })
  const pane = (page: Page, app: string) =>
    page.frameLocator(`[data-app="${app}"]:not(.hidden) iframe`)
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(results, `workbench-${name}.png`) })
  /** The Chat tab shown, and `text` typed and sent (to `cli`, chosen first, when given). */
  async function sendInChat(page: Page, text: string, cli?: string) {
    await page.getByRole("tab", { name: "Chat", exact: true }).click()
    if (cli) await page.getByRole("combobox", { name: "Agent" }).selectOption(cli)
    await page.getByRole("textbox", { name: "Message" }).fill(text)
    await page.getByRole("button", { name: "Send", exact: true }).click()
  }
  /** What the workbench last asked the daemon to send in the Chat. */
  const lastSend = () => daemon.posts.filter((p) => p.path === "/api/chat/send").at(-1)?.body

  it("draws the rail, opens the home app in the side bar and the right app beside it", async () => {
    const { page, problems } = await open(2)
    // The token left the address bar and lives in this tab's session only.
    expect(page.url()).not.toContain("token")
    expect(await page.evaluate(() => sessionStorage.getItem("cowork.token"))).toBe(OWNER_TOKEN)

    const rail = page.getByTestId("rail")
    const tiles = await rail
      .locator("button[aria-label]")
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("aria-label")))
    // System tiles first; apps in folder order; the Google folder where Calendar would be; no tile
    // for the right-side app, the capability, or the app posing as the Explorer.
    expect(tiles).toEqual([
      "Explorer",
      "Manage Workspace",
      "Google",
      "Notes",
      "Paper",
      "Quick Note",
      "Sales",
      "WhatsApp",
    ])
    await expect
      .poll(() => rail.locator('[data-folder="google"]').getByTestId("count-badge").textContent())
      .toBe("3")

    // startup.home: the notes app's sidebar, with its list from one shared subscription.
    await expect.poll(() => pane(page, "notes").getByTestId("note").count()).toBe(3)
    const run = daemon.sdkCalls.find(
      (call) => call.method === "routines.run" && call.params.id === "notes-list",
    )
    expect(run).toMatchObject({ app: "notes", token: expect.stringMatching(/^pane-notes-/) })
    // The right side bar holds the assistant.
    await pane(page, "assistant").getByTestId("ask").waitFor()
    // The footer: the workspace, then the notes app's item.
    await expect.poll(() => page.locator("footer").textContent()).toContain("Workspace: acme")
    await expect.poll(() => page.locator("footer").textContent()).toContain("3 notes")
    expect(await page.title()).toBe("(3) acme — Cowork Studio")
    await page.waitForTimeout(300)
    await shot(page, "start-light")

    // A folder opens in place; the image tile shows its picture whole.
    await rail.getByRole("button", { name: "Google" }).click()
    await rail.getByRole("button", { name: "Gmail" }).waitFor()
    await page.mouse.move(700, 400)
    await page.waitForTimeout(200)
    await page.screenshot({
      path: join(results, "workbench-rail.png"),
      clip: { x: 0, y: 36, width: 48, height: 340 },
    })

    // A sidebar app's `open`: its routine's {path} opens in the editor, once a session.
    await tile(page, "Gmail").click()
    await page.getByRole("tab", { name: /ideas\.md/ }).waitFor()
    await tile(page, "Gmail").click()
    await tile(page, "Gmail").click()
    await page.waitForTimeout(300)
    expect(await page.getByRole("tab", { name: /ideas\.md/ }).count()).toBe(1)
    expect(daemon.sdkCalls.filter((call) => call.params.id === "gmail-open-inbox")).toMatchObject([
      { app: "gmail", params: { id: "gmail-open-inbox", args: { folder: "INBOX" } } },
    ])
    expect(problems).toEqual([])
    await page.close()
  })

  it("makes a folder of two tiles dragged together and writes it to workspace.json", async () => {
    const { page, problems } = await open()
    await tile(page, "Sales").dragTo(tile(page, "Quick Note"))
    await expect
      .poll(() => daemon.posts.find((post) => post.path === "/api/rail")?.body)
      .toEqual({
        workspace: WORKSPACE,
        folders: [
          expect.objectContaining({ id: "google" }),
          {
            id: "folder-1",
            title: "New Folder",
            members: ["workbench.view.cowork.app.quick-note", "workbench.view.cowork.app.sales"],
          },
        ],
      })
    await tile(page, "New Folder").waitFor()
    expect(await tile(page, "Sales").count()).toBe(0)
    // Out again: dropped on the empty rail, the folder of one dissolves.
    await tile(page, "New Folder").click()
    await tile(page, "Sales").dragTo(page.getByTestId("rail"), {
      targetPosition: { x: 24, y: 700 },
    })
    await tile(page, "Sales").waitFor()
    await expect.poll(() => tile(page, "New Folder").count()).toBe(0)
    expect(problems).toEqual([])
    await page.close()
  })

  it("opens a tab app in an editor tab per click, and its routine call carries the pane token", async () => {
    const { page } = await open()
    await tile(page, "Sales").click()
    await pane(page, "sales").getByTestId("load").waitFor()
    // A busy daemon is waited out.
    daemon.busy(2, "sales-load")
    await pane(page, "sales").getByTestId("load").click()
    await expect
      .poll(() => pane(page, "sales").getByTestId("kpi").first().textContent())
      .toBe("$1.28M")
    expect(daemon.sdkCalls.filter((each) => each.params.id === "sales-load")).toHaveLength(3)
    const call = daemon.sdkCalls.find(
      (each) => each.method === "routines.run" && each.params.id === "sales-load",
    )
    expect(call).toMatchObject({
      app: "sales",
      token: expect.stringMatching(/^pane-sales-/),
      params: { id: "sales-load", args: { quarter: "Q3" } },
    })
    await tile(page, "Sales").click()
    await expect.poll(() => page.getByRole("tab", { name: /Sales/ }).count()).toBe(2)
    await pane(page, "sales").getByTestId("load").waitFor()
    await page.waitForTimeout(300)
    await shot(page, "tab")
    await page.close()
  })

  it("opens a modal app in a dialog whose widget asks Cowork's dialog", async () => {
    const { page } = await open()
    await tile(page, "Quick Note").click()
    const modal = pane(page, "quick-note")
    await modal.getByTestId("save").click()
    const dialog = page.getByRole("dialog", { name: "Save the note?" })
    await dialog.waitFor()
    await dialog.getByLabel("Title").fill("Shopping")
    await dialog.getByLabel("Copies").fill("2")
    await dialog.getByLabel("Pin it").click()
    await dialog.getByRole("radio", { name: "Blue" }).click()
    await page.waitForTimeout(300)
    await shot(page, "dialog")
    await dialog.getByRole("button", { name: "Save" }).click()
    await expect
      .poll(async () => JSON.parse((await modal.getByTestId("answer").textContent()) || "null"))
      .toEqual({
        label: "Save",
        values: {
          title: "Shopping",
          folder: "inbox",
          count: 2,
          pin: true,
          color: "#0090ff",
          saved: true,
        },
      })

    // A frame taking the focus back (a menu closing) does not leave the dialog without keys.
    await modal.getByTestId("rename").click()
    const rename = page.getByRole("dialog", { name: "Rename the note" })
    await rename.waitFor()
    // Time for the frame's grab (the test's point), then the field must hold the keyboard.
    await page.waitForTimeout(400)
    await expect
      .poll(() =>
        rename.getByLabel("New title").evaluate((field) => field === document.activeElement),
      )
      .toBe(true)
    await page.keyboard.type("Errands")
    await expect.poll(() => rename.getByLabel("New title").inputValue()).toBe("Errands")
    await page.keyboard.press("Escape")
    await expect
      .poll(async () => JSON.parse((await modal.getByTestId("answer").textContent()) || "null"))
      .toEqual({ label: null, values: { title: "Errands" } })

    // scope "pane": only the pane dims, and a card answers.
    await modal.getByTestId("look").click()
    await page.getByRole("button", { name: /Plain/ }).click()
    await expect
      .poll(async () => JSON.parse((await modal.getByTestId("answer").textContent()) || "null"))
      .toEqual({ label: "Plain", values: {} })
    await page.keyboard.press("Escape")
    await expect.poll(() => page.locator('[data-app="quick-note"]').count()).toBe(0)
    await page.close()
  })

  it("routes Explorer clicks through fileRouting and asks once about a glob two apps claim", async () => {
    const { page } = await open()
    await tile(page, "Explorer").click()
    await page.getByRole("treeitem", { name: "Notes" }).click()
    await page.getByRole("treeitem", { name: "groceries.md" }).click()
    const opened = await pane(page, "notes").getByTestId("opened").textContent()
    expect(JSON.parse(opened!)).toEqual({
      path: `${WORKSPACE}/Notes/groceries.md`,
      workspaceRelativePath: "Notes/groceries.md",
      basename: "groceries.md",
      ext: ".md",
      matchedGlob: "**/*.md",
    })
    await page.getByRole("treeitem", { name: "pipeline.csv" }).click()
    const ask = page.getByRole("dialog", { name: "Which app opens **/*.csv?" })
    await ask.getByRole("button", { name: /Notes/ }).click()
    await expect
      .poll(() => daemon.posts.find((post) => post.path === "/api/open-with")?.body)
      .toEqual({
        workspace: WORKSPACE,
        glob: "**/*.csv",
        app: "notes",
      })
    await page.getByRole("tab", { name: /pipeline\.csv/ }).waitFor()
    // A folder route opens its app as the folder expands.
    await page.getByRole("treeitem", { name: "Projects" }).click()
    await page.getByRole("treeitem", { name: "Alpha" }).click()
    await page.getByRole("tab", { name: /Alpha/ }).waitFor()
    expect(
      JSON.parse((await pane(page, "sales").getByTestId("opened").textContent())!),
    ).toMatchObject({
      workspaceRelativePath: "Projects/Alpha",
      ext: "",
      matchedGlob: "Projects/*/",
    })
    await shot(page, "explorer")
    await page.close()
  })

  it("shows notifications in the bell, log lines in the Output panel, and runs the footer click after its confirm", async () => {
    const { page } = await open()
    await pane(page, "notes").getByTestId("note").first().waitFor()
    daemon.push({
      type: "notification",
      notification: {
        app: "gmail",
        appTitle: "Gmail",
        title: "Old mail",
        tag: "inbox",
        urgent: false,
        at: new Date().toISOString(),
      },
      replaced: false,
    })
    // Same tag, not yet seen: the daemon replaced it, and so does the bell.
    daemon.push({
      type: "notification",
      notification: {
        app: "gmail",
        appTitle: "Gmail",
        title: "New mail",
        body: "Lunch on Friday?",
        tag: "inbox",
        urgent: false,
        at: new Date().toISOString(),
      },
      replaced: true,
    })
    daemon.push({
      type: "log",
      routine: "notes-list",
      runId: "r1",
      stream: "stdout",
      line: "listed 3 notes",
    })
    daemon.push({ type: "badge", app: "gmail", count: 5, total: 5 })
    await expect.poll(() => page.title()).toBe("(5) acme — Cowork Studio")
    await page.getByRole("button", { name: /Notifications \(1 new\)/ }).click()
    await expect
      .poll(() => page.getByTestId("notification").textContent())
      .toContain("Gmail: New mail — Lunch on Friday?")
    // `<App>: <title> — <body>` (spec 04, notify): the title exactly as sent, after the app's title.
    expect(await page.getByTestId("notification").locator("p").first().textContent()).toBe(
      "Gmail: New mail — Lunch on Friday?",
    )
    expect(await page.getByTestId("notification").count()).toBe(1)
    await page.waitForTimeout(300)
    await shot(page, "bell")
    await page.keyboard.press("Escape")

    await page.getByRole("button", { name: "Toggle Panel" }).click()
    await expect
      .poll(() => page.getByTestId("output").textContent())
      .toContain("[notes-list] listed 3 notes")
    await pane(page, "notes").getByRole("button", { name: "New note" }).click()
    await expect
      .poll(() => page.getByTestId("output").textContent())
      .toContain("[notes] new note asked")
    // The line is the daemon's `log` event; the workbench does not also write it itself.
    await page.waitForTimeout(300)
    expect(await page.getByTestId("output").getByText("new note asked").count()).toBe(1)

    // A link out asks first.
    await pane(page, "assistant").getByTestId("docs").click()
    const trust = page.getByRole("dialog", { name: "Open an external website?" })
    await trust.getByText("https://example.com/docs").waitFor()
    await trust.getByRole("button", { name: "Cancel" }).click()
    await expect
      .poll(() => pane(page, "assistant").getByTestId("link").textContent())
      .toBe("Cancelled")

    await page.locator('[data-footer="notes"]').click()
    await page
      .getByRole("dialog", { name: "Sync the notes now?" })
      .getByRole("button", { name: "Continue" })
      .click()
    await expect
      .poll(() => daemon.posts.find((post) => post.path === "/api/statusbar/click")?.body)
      .toEqual({
        workspace: WORKSPACE,
        app: "notes",
        args: { action: "sync" },
      })
    await page.close()
  })

  it("scrolls Manage Workspace's content under the editor's tabs, which stay put", async () => {
    const { page } = await open()
    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    await manage.locator('[data-app-card="sales"]').waitFor()
    const tabs = page.locator('section[aria-label="Editor"] > [role="tablist"]')
    const top = (await tabs.boundingBox())?.y
    await page.mouse.move(720, 500)
    await page.mouse.wheel(0, 600)
    // The view scrolled, and only the view: the tab strip is where it was.
    const view = manage.locator('[data-slot="scroll-area-viewport"]')
    await expect.poll(() => view.evaluate((node) => node.scrollTop)).toBeGreaterThan(0)
    expect((await tabs.boundingBox())?.y).toBe(top)
    await page.waitForTimeout(300)
    await shot(page, "manage-scrolled")
    await page.close()
  })

  it("keeps the layout still when a line reaches the closed Output panel: the active tab's top line stays in view", async () => {
    const { page } = await open()
    await tile(page, "Sales").click()
    const active = page.locator(
      'section[aria-label="Editor"] > [role="tablist"] > [role="tab"][aria-selected="true"]',
    )
    await active.waitFor()
    const top = (await active.boundingBox())?.y
    // The panel scrolls its last line into view as it comes, closed or not.
    daemon.push({
      type: "log",
      routine: "notes-list",
      runId: "r1",
      stream: "stdout",
      line: "listed 3 notes",
    })
    await expect
      .poll(() => page.getByTestId("output").textContent())
      .toContain("[notes-list] listed 3 notes")
    await page.waitForTimeout(300)
    // Nothing between the title bar and the status bar scrolled, not even by the pixel the closed
    // panel's handle overhangs.
    const scrolled = await page.evaluate(() =>
      [document.scrollingElement, ...document.querySelectorAll("[data-group]")]
        .map((node) => node?.scrollTop ?? 0)
        .filter((top) => top !== 0),
    )
    expect(scrolled).toEqual([])
    expect((await active.boundingBox())?.y).toBe(top)
    await page.close()
  })

  it("leaves a closed Output panel out of the Tab order, and puts it back when it opens", async () => {
    const { page } = await open()
    const focused = () =>
      page.evaluate(() => {
        const node = document.activeElement
        return node?.getAttribute("aria-label") ?? node?.tagName ?? ""
      })
    // The handle above the panel, then Tab: past the closed panel, not into it.
    const handle = page.locator("#center [data-separator]")
    await handle.focus()
    for (let step = 0; step < 3; step++) {
      await page.keyboard.press("Tab")
      expect(await focused()).not.toMatch(/^(Clear Output|Close Panel)$/)
    }
    await page.locator("body").click({ position: { x: 700, y: 12 } })
    await page.keyboard.press("Control+J")
    const toggle = page.getByRole("button", { name: "Toggle Panel" })
    await expect.poll(() => toggle.getAttribute("aria-pressed")).toBe("true")
    await handle.focus()
    await page.keyboard.press("Tab")
    expect(await focused()).toBe("Clear Output")
    await page.keyboard.press("Tab")
    expect(await focused()).toBe("Close Panel")
    await page.keyboard.press("Enter")
    await expect.poll(() => toggle.getAttribute("aria-pressed")).toBe("false")
    await page.close()
  })

  it("shows a site app's new unread-count source in Manage Workspace as soon as its window reports it", async () => {
    const { page } = await open()
    await tile(page, "Manage Workspace").click()
    const source = page
      .getByTestId("manage")
      .locator('[data-app-card="whatsapp"] [data-unread-source]')
    await expect.poll(() => source.textContent()).toBe("Unread count: the (N) in the site's title")
    // The site starts setting its own badge: the next report says so, and no reload of the apps
    // comes with it.
    daemon.push({ type: "badge", app: "whatsapp", count: 2, total: 2, unreadSource: "badge" })
    await expect.poll(() => source.textContent()).toBe("Unread count: the site's own badge")
    await page.close()
  })

  it("switches apps off in Manage Workspace and follows the registry", async () => {
    const { page } = await open()
    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    // An app's problems say where (file, key) and what, its widget's import among them.
    const sales = manage.locator('[data-app-card="sales"] [data-problem]')
    expect(await sales.allInnerTexts()).toEqual([
      '.cowork/apps/sales/cowork.json › open\n"open" is for sidebar apps only; dropped',
      '.cowork/apps/sales/sales.jsx:2\n"./helper" is not in the cowork webapp allowlist',
    ])
    // A site app's card says where its unread count comes from.
    await expect
      .poll(() => manage.locator('[data-app-card="whatsapp"] [data-unread-source]').textContent())
      .toBe("Unread count: the (N) in the site's title")
    await page.waitForTimeout(300)
    await shot(page, "manage")
    await manage.getByRole("switch", { name: "Sales on" }).click()
    await expect
      .poll(() => daemon.posts.find((post) => post.path === "/api/apps/enable")?.body)
      .toEqual({
        workspace: WORKSPACE,
        app: ".cowork/apps/sales",
        enabled: false,
      })
    await expect.poll(() => tile(page, "Sales").count()).toBe(0)
    await manage.getByRole("tab", { name: "Components" }).click()
    await manage.getByText("invoices-approve").waitFor()
    // The folder that is not an app: its problems drawn as the apps' are (they once blanked the page).
    await manage.getByRole("tab", { name: "Not apps · 1" }).click()
    expect(await manage.locator("[data-problem]").allInnerTexts()).toEqual([
      ".cowork/apps/old-stuff/cowork.json › name\nrequired; this folder is not an app",
    ])
    // The rail's badge counts every problem Manage Workspace lists: the folder's and the app's two.
    expect(await tile(page, "Manage Workspace").getByTestId("count-badge").textContent()).toBe("3")
    await page.waitForTimeout(300)
    await shot(page, "manage-not-apps")
    await page.close()
  })

  it("shows each app's source, version, pin and update in Manage Workspace, an edited app's four choices, and a team server's store", async () => {
    daemon.signIn("ada@example.com")
    const { page } = await open()
    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    const line = (app: string) => manage.locator(`[data-store-line=".cowork/apps/${app}"]`)
    await expect
      .poll(() => line("gmail").locator("[data-source]").textContent())
      .toBe("acme-apps@1.0.0")
    expect(await line("gmail").locator("[data-pin]").textContent()).toBe("auto")
    expect(await line("gmail").locator("[data-update-available]").textContent()).toBe(
      "update available · v1.0.1",
    )
    expect(await line("calendar").locator("[data-pin]").textContent()).toBe("pinned")
    expect(await line("notes").locator("[data-source]").textContent()).toBe("local")
    expect(await line("notes").getByRole("button").count()).toBe(0)
    // The Apps tab's icon counts the edited app; its card offers the four choices, not Update.
    expect(await manage.getByTestId("edited-count").textContent()).toBe("1")
    const choices = line("gmail").locator("[data-choices]").getByRole("button")
    expect(await choices.allInnerTexts()).toEqual(["Replace", "Keep both", "AI merge", "Skip"])
    expect(await line("calendar").getByRole("button", { name: "Update" }).count()).toBe(1)
    await page.waitForTimeout(300)
    await shot(page, "manage-store")

    await line("gmail").getByRole("button", { name: "Keep both" }).click()
    await expect
      .poll(() => daemon.posts.find((post) => post.path === "/api/store/update")?.body)
      .toEqual({ workspace: WORKSPACE, app: ".cowork/apps/gmail", choice: "keep-both" })
    await expect.poll(() => manage.getByTestId("edited-count").count()).toBe(0)
    await manage.getByRole("switch", { name: "calendar pinned" }).click()
    await expect
      .poll(() => daemon.posts.find((post) => post.path === "/api/store/pin")?.body)
      .toEqual({ workspace: WORKSPACE, app: ".cowork/apps/calendar", pinned: false })
    await expect.poll(() => line("calendar").locator("[data-pin]").textContent()).toBe("auto")

    // Team Servers: acme-apps' cards, with what is installed here.
    await manage.getByRole("tab", { name: "Team Servers" }).click()
    const card = (name: string) => manage.locator(`[data-store-card="${name}"]`)
    await card("gmail").waitFor()
    expect(await card("gmail").locator("h3").textContent()).toBe("Gmail")
    expect(await card("gmail").getByText("Your inbox in the side bar").count()).toBe(1)
    expect(await card("gmail").locator("[data-screenshots]").textContent()).toBe("2 screenshots")
    // The first screenshot itself, fetched with the owner token and painted.
    await expect
      .poll(() =>
        card("gmail")
          .locator("img[data-screenshot]")
          .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth),
      )
      .toBe(1)
    expect(await card("calendar").locator("img[data-screenshot]").count()).toBe(0)
    expect(
      await card("gmail").getByText("acme-apps/gmail · v1.0.1 · 2 versions kept").count(),
    ).toBe(1)
    expect(await card("calendar").locator("[data-installed]").textContent()).toBe(
      "installed v2.1.0 in .cowork/apps/calendar",
    )
    await page.waitForTimeout(300)
    await shot(page, "manage-team-servers")
    await card("invoices").getByRole("button", { name: "Install" }).click()
    await expect
      .poll(() => daemon.posts.find((post) => post.path === "/api/store/install")?.body)
      .toEqual({ workspace: WORKSPACE, item: "acme-apps/invoices" })
    await expect.poll(() => card("invoices").locator("[data-installed]").count()).toBe(1)
    await page.close()
  })

  it("creates an app from a template of the built-in store, and says why a second one is refused", async () => {
    const { page } = await open()
    await tile(page, "Manage Workspace").click()
    const create = page.getByTestId("create-template")
    await expect
      .poll(() => create.getByRole("combobox", { name: "Template" }).inputValue())
      .toBe("cowork/app-sidebar-workbench")
    expect(await create.locator("option").allInnerTexts()).toEqual([
      "Sidebar workbench (CRUD) — cowork/app-sidebar-workbench",
      "Weekly report — acme-apps/report",
    ])
    await create.getByRole("textbox", { name: "Name" }).fill("clients")
    await create.getByRole("button", { name: "Create" }).click()
    await expect
      .poll(() => create.locator("[data-wrote]").textContent())
      .toBe("Wrote .cowork/apps/clients/ from cowork/app-sidebar-workbench (3 files).")
    expect(
      daemon.posts.find((post) => post.path === "/api/store/templates/scaffold")?.body,
    ).toEqual({
      workspace: WORKSPACE,
      template: "cowork/app-sidebar-workbench",
      name: "clients",
    })
    await page.waitForTimeout(300)
    await shot(page, "create-template")
    // Again: the folder exists, nothing is written, and the toast says what to do.
    await create.getByRole("button", { name: "Create" }).click()
    await page
      .getByRole("region", { name: /Notifications/ })
      .getByText("AlreadyExists: failed to write .cowork/apps/clients")
      .waitFor()
    await page.close()
  })

  it("asks a signed-out person to sign in for the Academy's courses, reading none", async () => {
    const { page } = await open()
    const asked: string[] = []
    page.on("request", (request) => asked.push(new URL(request.url()).pathname))
    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    await manage.getByRole("tab", { name: "Academy" }).click()
    await expect
      .poll(() => manage.getByTestId("academy-signed-out").textContent())
      .toContain("Sign in to Cowork")
    expect(asked).not.toContain("/api/store/courses")
    await page.close()
  })

  it("takes a subscribed course in the Academy: lessons in order, the video on top, progress kept", async () => {
    daemon.signIn("ada@example.com")
    const { page } = await open()
    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    await manage.getByRole("tab", { name: "Academy" }).click()
    const academy = manage.getByTestId("academy")
    await academy.locator("[data-lesson]").first().waitFor()
    expect(await academy.locator("[data-lesson]").allInnerTexts()).toEqual([
      "1. Welcome",
      "2. Your first app",
      "3. Publish it",
    ])
    expect(await academy.getByText("1 of 3 done · Beginner").count()).toBe(1)
    // The first lesson: its video on top, then its text.
    const shown = academy.locator('[data-lesson-shown="welcome"]')
    const order = await shown.evaluate((node) =>
      [...node.children].map((child) => child.getAttribute("data-video") ?? child.tagName),
    )
    expect(order[0]).toBe("true")
    expect(await shown.locator("[data-video]").textContent()).toContain("youtu.be")
    await page.waitForTimeout(300)
    await shot(page, "academy")
    await academy.getByRole("button", { name: "Next lesson" }).click()
    await academy.getByRole("button", { name: "Mark as done" }).click()
    await expect
      .poll(() => daemon.posts.find((post) => post.path === "/api/store/progress")?.body)
      .toEqual({
        teamServer: "acme-apps",
        course: "getting-started",
        lesson: "first-app",
        done: true,
      })
    await expect.poll(() => academy.getByText("2 of 3 done · Beginner").count()).toBe(1)
    expect(await academy.locator("[data-lesson][data-done]").count()).toBe(2)
    await page.close()
  })

  it("lists the workspace's courses and lessons under Components, a broken course's problems with their files", async () => {
    const { page } = await open()
    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    await manage.getByRole("tab", { name: "Components" }).click()
    const courses = manage.getByTestId("workspace-courses")
    const course = (name: string) => courses.locator(`[data-course="${name}"]`)
    await course("onboarding").waitFor()
    expect(await course("onboarding").locator("h3").textContent()).toBe("Sales Onboarding")
    expect(
      await course("onboarding")
        .locator("[data-workspace-lesson] > span:first-child")
        .allInnerTexts(),
    ).toEqual(["1. Welcome", "2. Your first call"])
    expect(await course("onboarding").getByText(".cowork/lessons/welcome/lesson.md").count()).toBe(
      1,
    )
    expect(await course("onboarding").locator("[data-course-ok]").count()).toBe(1)
    expect(await course("pricing").locator("[data-course-problems]").textContent()).toBe(
      "1 problem",
    )
    expect(await course("pricing").locator("[data-course-problem]").innerText()).toBe(
      '.cowork/lessons/discounts/lesson.md\nthe lesson "discounts" on the `lessons:` line has no lesson.md',
    )
    expect(
      await courses.locator("[data-loose-lessons] [data-workspace-lesson]").innerText(),
    ).toContain("A draft")
    await courses.scrollIntoViewIfNeeded()
    await page.waitForTimeout(300)
    await shot(page, "manage-courses")
    await page.close()
  })

  it("subscribes to a course from its store card, and the Academy then lists it; unsubscribes", async () => {
    daemon.signIn("ada@example.com")
    const { page } = await open()
    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    await manage.getByRole("tab", { name: "Team Servers" }).click()
    const card = manage.locator('[data-store-card="sales-onboarding"]')
    await card.waitFor()
    expect(await card.getByRole("button", { name: "Install" }).count()).toBe(0)
    await card.getByRole("button", { name: "Subscribe" }).click()
    await expect
      .poll(() => daemon.posts.find((post) => post.path === "/api/store/subscription")?.body)
      .toEqual({ teamServer: "acme-apps", course: "sales-onboarding", subscribed: true })
    await expect.poll(() => card.locator("[data-subscribed]").count()).toBe(1)
    await page.waitForTimeout(300)
    await shot(page, "store-course-subscribed")
    await manage.getByRole("tab", { name: "Academy" }).click()
    const academy = manage.getByTestId("academy")
    await academy.getByRole("button", { name: "Sales onboarding" }).waitFor()
    await manage.getByRole("tab", { name: "Team Servers" }).click()
    await card.getByRole("button", { name: "Unsubscribe" }).click()
    await expect.poll(() => card.getByRole("button", { name: "Subscribe" }).count()).toBe(1)
    // Polled: the fake daemon notes a post once its body has arrived, which can come after the
    // card has redrawn (a failure on a busy machine).
    await expect
      .poll(
        () => daemon.posts.filter((post) => post.path === "/api/store/subscription").at(-1)?.body,
      )
      .toEqual({ teamServer: "acme-apps", course: "sales-onboarding", subscribed: false })
    await manage.getByRole("tab", { name: "Academy" }).click()
    await academy.getByRole("button", { name: "Getting started with Cowork" }).waitFor()
    expect(await academy.getByRole("button", { name: "Sales onboarding" }).count()).toBe(0)
    await page.close()
  })

  it("hot-reloads the panes of a saved widget, keeping the pane", async () => {
    const { page, problems } = await open()
    await tile(page, "Sales").click()
    await pane(page, "sales").getByTestId("load").waitFor()
    daemon.editWidget("sales.jsx", "note-page")
    daemon.push({ type: "widget", app: "sales", file: "sales.jsx" })
    await expect.poll(() => pane(page, "sales").getByTestId("opened").textContent()).toBe("null")
    expect(
      daemon.posts.filter(
        (post) => post.path === "/api/panes" && (post.body as { app: string }).app === "sales",
      ),
    ).toHaveLength(2)
    expect(await page.getByRole("tab", { name: /Sales/ }).count()).toBe(1)
    expect(problems).toEqual([])
    await page.close()
  })

  it("honours startup.left/right and draws a failing footer item as a warning", async () => {
    daemon.configure({ startup: { home: "notes", left: false, right: false } })
    daemon.failStatusBar("notes-status: the notes folder is missing")
    const { page } = await open()
    await expect
      .poll(() =>
        page.getByRole("button", { name: "Toggle Primary Side Bar" }).getAttribute("aria-pressed"),
      )
      .toBe("false")
    await expect
      .poll(() =>
        page
          .getByRole("button", { name: "Toggle Secondary Side Bar" })
          .getAttribute("aria-pressed"),
      )
      .toBe("false")
    const item = page.locator('[data-footer="notes"]')
    await expect.poll(() => item.textContent()).toBe("Notes")
    await item.hover()
    await page.getByRole("tooltip").getByText("the notes folder is missing").first().waitFor()
    await page.waitForTimeout(300)
    await shot(page, "startup-closed")
    // A click retries; the routine answers again.
    daemon.failStatusBar(null)
    await item.click()
    await expect.poll(() => item.textContent()).toBe("3 notes")
    await page.close()
  })

  it("offers Bun when no runtime runs routines, and draws its download until it is installed", async () => {
    daemon.noRuntime()
    const { page } = await open()
    const offer = page.locator('[data-runtime="missing"]')
    await expect.poll(() => offer.textContent()).toBe("Routines need Bun: install it")
    await offer.click()
    const installing = page.locator('[data-runtime="installing"]')
    await expect.poll(() => installing.textContent()).toBe("Installing Bun 50%")
    expect(await installing.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("50")
    await shot(page, "runtime-installing")
    // Installed: a runtime runs routines, and the item is gone.
    daemon.finishRuntimeInstall()
    await expect.poll(() => page.locator("[data-runtime]").count()).toBe(0)
    expect(daemon.posts.map((post) => post.path)).toContain("/api/runtime/install")
    await page.close()
  })

  it("turns dark, and every pane with it", async () => {
    const { page, problems } = await open()
    await tile(page, "Sales").click()
    await pane(page, "sales").getByTestId("load").click()
    await page.locator("body").click({ position: { x: 700, y: 12 } })
    await page.keyboard.press("Control+J")
    await expect
      .poll(() => page.getByRole("button", { name: "Toggle Panel" }).getAttribute("aria-pressed"))
      .toBe("true")
    await page.getByRole("button", { name: "Switch to Dark Theme" }).click()
    await page.locator("html.dark").waitFor({ state: "attached" })
    await pane(page, "sales").locator("html.dark").waitFor({ state: "attached" })
    await pane(page, "assistant").locator("html.dark").waitFor({ state: "attached" })
    await page.waitForTimeout(400)
    await shot(page, "dark")
    await tile(page, "Explorer").click()
    await page.getByRole("treeitem", { name: "Notes" }).click()
    await tile(page, "Manage Workspace").click()
    await page.waitForTimeout(300)
    await shot(page, "manage-dark")
    await tile(page, "Quick Note").click()
    await pane(page, "quick-note").getByTestId("save").click()
    await page.getByRole("dialog", { name: "Save the note?" }).waitFor()
    await page.waitForTimeout(400)
    await shot(page, "dialog-dark")
    expect(problems).toEqual([])
    await page.close()
  })

  it("shows a routine whose connection is not connected as unavailable in Permissions", async () => {
    const { page, problems } = await open()
    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    await manage.getByRole("tab", { name: "Permissions" }).click()
    const unavailable = manage.locator('[data-unavailable="acme/acme-me"]')
    await unavailable.first().waitFor()
    // Once in the agent's list, once in the capability defaults.
    expect(await unavailable.allTextContents()).toEqual([
      "unavailable: not connected",
      "unavailable: not connected",
    ])
    expect(await manage.locator('[data-unavailable="tasks/tasks-list"]').count()).toBe(0)
    expect(problems).toEqual([])
    await page.close()
  })

  it("shows a triggered run waiting for a slot, and how long a finished one waited, in Executions and the Monitor", async () => {
    const { page, problems } = await open()
    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    await manage.getByRole("tab", { name: "Observability" }).click()
    const executions = manage.getByTestId("executions")
    const waiting = executions.locator('[data-running="sales-hook"]')
    await waiting.getByText("queued", { exact: true }).waitFor()
    expect(await waiting.textContent()).toContain("waiting for a slot since")
    expect(await executions.locator('[data-run="r-waited"]').textContent()).toContain(
      "812 ms, queued 3.2 s",
    )
    // Who: the login of an agent whose client named itself nothing, never "You" (QA16 #1).
    const who = (run: string) => executions.locator(`[data-run="${run}"] [data-who]`).textContent()
    expect(await who("r-agent")).toBe("hostile")
    expect(await who("r-waited")).toBe("You")
    expect(await who("r-terminal")).toMatch(/^You/)
    const client = executions.locator('[data-run="r-terminal"] [data-client]')
    expect(await client.textContent()).toBe("via claude-code")
    await shot(page, "executions-queued")
    await manage.getByRole("tab", { name: "Workflows", exact: true }).click()
    expect(await manage.getByTestId("running").textContent()).toContain(
      "8 routines are running now, 1 triggered run waits for a slot (every workspace)",
    )
    await manage
      .locator('[data-running="sales-hook"]')
      .getByText("queued", { exact: true })
      .waitFor()
    expect(await manage.getByTestId("monitor").textContent()).toContain("812 ms, queued 3.2 s")
    await shot(page, "monitor-queued")
    expect(problems).toEqual([])
    await page.close()
  })

  it("shows a failed footer click as a notification that names the app once", async () => {
    daemon.failStatusBarClick("the notes folder is not connected")
    const { page } = await open()
    await page.locator('[data-footer="notes"]').click()
    await page
      .getByRole("dialog", { name: "Sync the notes now?" })
      .getByRole("button", { name: "Continue" })
      .click()
    await page.getByRole("button", { name: /Notifications \(1 new\)/ }).click()
    await expect
      .poll(() => page.getByTestId("notification").first().textContent())
      .toContain("Notes: Footer action failed — the notes folder is not connected")
    expect(await page.getByTestId("notification").first().textContent()).not.toContain(
      "Notes: Notes",
    )
    await shot(page, "footer-click-failed")
    await page.close()
  })

  it("routes a widget's plain link through the trust prompt, and its form submits", async () => {
    const { page } = await open()
    const assistant = pane(page, "assistant")
    await assistant.getByRole("link", { name: "the guide" }).click()
    const trust = page.getByRole("dialog", { name: "Open an external website?" })
    await trust.getByText("https://example.com/guide").waitFor()
    await trust.getByRole("button", { name: "Cancel" }).click()
    // The frame never navigated away from the widget.
    await assistant.getByTestId("docs").waitFor()
    // A form's onSubmit runs in the sandboxed frame (allow-forms): it notified.
    await assistant.getByPlaceholder("Ask anything").fill("What is due?")
    await assistant.getByPlaceholder("Ask anything").press("Enter")
    await page.getByRole("button", { name: /Notifications \(1 new\)/ }).click()
    await expect
      .poll(() => page.getByTestId("notification").first().textContent())
      .toContain("Assistant: Thinking about it — Asked from the form")
    await page.close()
  })

  it("opens a sign-in's consent page in a new tab, and passes the daemon's errors through by name", async () => {
    const { page } = await open()
    const assistant = pane(page, "assistant")
    const [signIn] = await Promise.all([
      page.context().waitForEvent("page"),
      assistant.getByTestId("connect-google").click(),
    ])
    await signIn.waitForLoadState()
    expect(signIn.url()).toBe(`http://127.0.0.1:${daemon.port}/signin?service=google`)
    expect(await signIn.evaluate(() => window.opener)).toBeNull()
    await expect
      .poll(() => assistant.getByTestId("said").textContent())
      .toBe("google: not-connected")
    await assistant.getByTestId("connect-vm").click()
    await expect
      .poll(() => assistant.getByTestId("said").textContent())
      .toBe("NotHere: a sign-in needs this computer's own window")
    await page.close()
  })

  it("draws a widget's title actions in its pane's title bar and tells the widget of a click", async () => {
    const { page } = await open()
    const clear = page
      .getByRole("complementary", { name: "Secondary side bar" })
      .getByRole("button", { name: "Clear the conversation" })
    await clear.click()
    await expect
      .poll(() => pane(page, "assistant").getByTestId("said").textContent())
      .toBe("title action: clear")
    await page.screenshot({
      path: join(results, "workbench-title-actions.png"),
      clip: { x: 1000, y: 36, width: 440, height: 200 },
    })
    await page.close()
  })

  it("shows a browser banner only while the window is not focused, once the person turned banners on", async () => {
    const { page } = await open()
    // The bell offers banners; the browser is asked only on that click.
    await page.getByRole("button", { name: "Notifications" }).click()
    await page.getByText("Show a banner while this tab is in the background?").waitFor()
    await page.keyboard.press("Escape")
    await page
      .context()
      .grantPermissions(["notifications"], { origin: `http://127.0.0.1:${daemon.port}` })
    // Every banner the page raises, and a window that is not focused (Chromium here always is).
    await page.evaluate(() => {
      const shown: Notification[] = []
      const Real = window.Notification
      // A function, not an arrow: the page calls it with `new`.
      function Recording(title: string, options?: NotificationOptions) {
        const banner = new Real(title, options)
        shown.push(banner)
        return banner
      }
      window.Notification = Object.assign(Recording, {
        permission: Real.permission,
        requestPermission: Real.requestPermission,
      }) as unknown as typeof Notification
      Object.assign(window, { shown })
    })
    const banners = () =>
      page.evaluate(() =>
        (window as unknown as { shown: Notification[] }).shown.map((n) => [n.title, n.body]),
      )
    const raise = (title: string) =>
      daemon.push({
        type: "notification",
        notification: {
          app: "sales",
          appTitle: "Sales",
          title,
          body: "Q3 closed",
          urgent: false,
          at: new Date().toISOString(),
        },
        replaced: false,
      })
    raise("While you look")
    await page.getByRole("button", { name: /Notifications \(1 new\)/ }).waitFor()
    expect(await banners()).toEqual([])
    await page.evaluate(() => (document.hasFocus = () => false))
    // The banner is headed by the app that sent it, whatever its title claims.
    raise("Mail: While you are away")
    await expect.poll(banners).toEqual([["Sales", "Mail: While you are away\nQ3 closed"]])
    // A click on the banner opens the app.
    await page.evaluate(() =>
      (window as unknown as { shown: Notification[] }).shown[0]!.onclick!(new Event("click")),
    )
    await pane(page, "sales").getByTestId("load").waitFor()
    await page.close()
  })

  it("refuses a folder name over 40 characters and asks again", async () => {
    const { page } = await open()
    await tile(page, "Google").click({ button: "right" })
    await page.getByRole("menuitem", { name: "Rename Folder…" }).click()
    const dialog = page.getByRole("dialog", { name: "Rename folder" })
    await dialog.getByLabel("Name").fill("Google apps for the whole team, mail and calendar")
    await dialog.getByRole("button", { name: "Save" }).click()
    const alert = dialog.getByRole("alert")
    await alert.getByText("A folder's name has at most 40 characters; this one has 49.").waitFor()
    // The icon has a column of its own: the text starts after it, not under it.
    const icon = (await alert.locator("svg").boundingBox())!
    const text = (await alert.getByText(/at most 40 characters/).boundingBox())!
    expect(text.x).toBeGreaterThanOrEqual(icon.x + icon.width)
    expect(await dialog.getByLabel("Name").inputValue()).toBe(
      "Google apps for the whole team, mail and calendar",
    )
    expect(daemon.posts.filter((post) => post.path === "/api/rail")).toEqual([])
    await page.waitForTimeout(300)
    await shot(page, "rename-too-long")
    await dialog.getByLabel("Name").fill("Google apps")
    await dialog.getByRole("button", { name: "Save" }).click()
    await expect
      .poll(() => daemon.posts.find((post) => post.path === "/api/rail")?.body)
      .toMatchObject({
        folders: [{ id: "google", title: "Google apps" }],
      })
    await page.close()
  })

  it("brings back the side bar a workspace was left on; startup.home is where its first open starts", async () => {
    const { page } = await open()
    const pressed = (title: string) => tile(page, title).getAttribute("aria-pressed")
    // A first open: startup.home, the notes app's side bar.
    await expect.poll(() => pane(page, "notes").getByTestId("note").count()).toBe(3)
    expect(await pressed("Notes")).toBe("true")
    await tile(page, "Explorer").click()
    await page.getByRole("treeitem", { name: "Notes" }).waitFor()
    // Back in the workspace (a switch away and back loads it again, as a reload does): the
    // Explorer it was left on, not the home app.
    await page.reload()
    await page.getByRole("treeitem", { name: "Notes" }).waitFor()
    await page.waitForTimeout(500)
    expect([await pressed("Explorer"), await pressed("Notes")]).toEqual(["true", "false"])
    expect(await page.locator('[data-app="notes"]:not(.hidden) iframe').count()).toBe(0)
    await page.close()
  })

  it("keeps the side bars as the window last had them when startup does not say", async () => {
    const { page } = await open()
    await expect
      .poll(() =>
        page
          .getByRole("button", { name: "Toggle Secondary Side Bar" })
          .getAttribute("aria-pressed"),
      )
      .toBe("true")
    await page.getByRole("button", { name: "Toggle Primary Side Bar" }).click()
    await page.getByRole("button", { name: "Toggle Secondary Side Bar" }).click()
    await page.reload()
    await tile(page, "Notes").waitFor()
    await page.waitForTimeout(500)
    expect(
      await page
        .getByRole("button", { name: "Toggle Primary Side Bar" })
        .getAttribute("aria-pressed"),
    ).toBe("false")
    expect(
      await page
        .getByRole("button", { name: "Toggle Secondary Side Bar" })
        .getAttribute("aria-pressed"),
    ).toBe("false")
    // startup.left says: it wins over what the window last had.
    daemon.configure({ startup: { home: "notes", left: true } })
    await page.reload()
    await expect
      .poll(() =>
        page.getByRole("button", { name: "Toggle Primary Side Bar" }).getAttribute("aria-pressed"),
      )
      .toBe("true")
    expect(
      await page
        .getByRole("button", { name: "Toggle Secondary Side Bar" })
        .getAttribute("aria-pressed"),
    ).toBe("false")
    await page.close()
  })

  it("revokes a pane's token when its tab closes or a hot reload replaces it", async () => {
    const { page } = await open()
    await tile(page, "Sales").click()
    await pane(page, "sales").getByTestId("load").waitFor()
    const first = daemon.sdkCalls.find((call) => call.app === "sales")?.token ?? ""
    expect(daemon.paneOpen(first)).toBe(true)
    daemon.push({ type: "widget", app: "sales", file: "sales.jsx" })
    await expect.poll(() => daemon.paneOpen(first)).toBe(false)
    await pane(page, "sales").getByTestId("load").click()
    // The click's run reaches the daemon a moment after the click: wait for it, not just after.
    const lastRun = () =>
      [...daemon.sdkCalls]
        .reverse()
        .find((call) => call.app === "sales" && call.method === "routines.run")?.token
    await expect.poll(() => [undefined, first].includes(lastRun())).toBe(false)
    const current = lastRun()!
    await page.getByRole("button", { name: "Close Sales" }).click()
    await expect.poll(() => daemon.paneOpen(current)).toBe(false)
    await page.close()
  })

  it("shows a widget's source in the text viewer and the Explorer on viewSource", async () => {
    const { page } = await open()
    await tile(page, "Sales").click()
    await pane(page, "sales").getByTestId("source").click()
    const file = page.getByRole("treeitem", { name: "sales.jsx" })
    await expect.poll(() => file.getAttribute("aria-selected")).toBe("true")
    expect(
      await page
        .getByRole("treeitem", { name: "sales", exact: true })
        .getAttribute("aria-expanded"),
    ).toBe("true")
    await expect
      .poll(() => page.getByRole("tab", { name: "sales.jsx", selected: true }).count())
      .toBe(1)
    await expect
      .poll(() => page.getByTestId("text-viewer").textContent())
      .toContain("return <KPIs />")
    await page.close()
  })

  it("opens a file no app opens in the read-only text viewer, and refuses a binary one with the reason", async () => {
    const { page, problems } = await open()
    await tile(page, "Explorer").click()
    await page.getByRole("treeitem", { name: ".gitignore" }).click()
    const viewer = page.getByTestId("text-viewer")
    await expect.poll(() => viewer.textContent()).toContain("node_modules/")
    expect(await viewer.textContent()).toContain("Read-only")
    // Opened once: a second click shows the same tab.
    await page.getByRole("treeitem", { name: ".gitignore" }).click()
    expect(await page.getByRole("tab", { name: ".gitignore" }).count()).toBe(1)
    await page.waitForTimeout(300)
    await shot(page, "text-viewer")
    await page.getByRole("treeitem", { name: "logo.png" }).click()
    await expect
      .poll(() => page.getByTestId("text-viewer").getByRole("alert").textContent())
      .toBe("logo.png is not a text file")
    expect(problems).toEqual([])
    await page.close()
  })

  it("opens a sidebar app's `open` file the way the Explorer would, not as a widget", async () => {
    daemon.configure({
      apps: cannedApps().map((app) =>
        app.name === "calendar" ? { ...app, open: "README.md" } : app,
      ),
    })
    const { page } = await open()
    await tile(page, "Google").click()
    await tile(page, "Calendar").click()
    // README.md is routed (**/*.md → the notes page), so it opens there, with the file.
    await page.getByRole("tab", { name: "README.md" }).waitFor()
    // The tab shows before its pane asks for the widget: wait for that request, not a moment.
    const opened = () =>
      daemon.posts
        .filter((post) => post.path === "/api/panes")
        .map((post) => post.body as { app: string; file: string })
    await expect
      .poll(opened)
      .toContainEqual(expect.objectContaining({ app: "notes", file: "note-page.jsx" }))
    expect(opened().some((body) => body.file === "README.md")).toBe(false)
    await page.close()
  })

  it("darkens a widget whose colours are hard-coded light, and leaves a themed one alone", async () => {
    const { page } = await open()
    await page.getByRole("button", { name: "Switch to Dark Theme" }).click()
    await tile(page, "Paper").click()
    const paper = pane(page, "paper")
    await paper.getByTestId("paper").waitFor()
    await expect
      .poll(() => paper.locator("#root").evaluate((root) => getComputedStyle(root).filter))
      .toBe("invert(1) hue-rotate(180deg)")
    await page.waitForTimeout(300)
    await shot(page, "dark-filter")
    await tile(page, "Sales").click()
    await pane(page, "sales").getByTestId("load").waitFor()
    await page.waitForTimeout(300)
    expect(
      await pane(page, "sales")
        .locator("#root")
        .evaluate((root) => getComputedStyle(root).filter),
    ).toBe("none")
    // Back to light: the paper is white as written.
    await page.getByRole("button", { name: "Switch to Light Theme" }).click()
    await tile(page, "Paper").click()
    await expect
      .poll(() =>
        pane(page, "paper")
          .locator("#root")
          .evaluate((root) => getComputedStyle(root).filter),
      )
      .toBe("none")
    await page.close()
  })

  it("marks the rail tile of what is shown, inside a folder and on the closed folder", async () => {
    const { page } = await open(2)
    const rail = page.getByTestId("rail")
    await rail.getByRole("button", { name: "Google" }).click()
    await tile(page, "Gmail").click()
    await expect.poll(() => tile(page, "Gmail").getByTestId("active-mark").count()).toBe(1)
    await page.mouse.move(700, 400)
    await page.waitForTimeout(200)
    await page.screenshot({
      path: join(results, "workbench-rail-nested-active.png"),
      clip: { x: 0, y: 36, width: 48, height: 340 },
    })
    // Closed, the folder says one of its apps is the one shown.
    await rail.getByRole("button", { name: "Google" }).click()
    await expect
      .poll(() => rail.locator('[data-folder="google"]').getByTestId("active-mark").count())
      .toBe(1)
    await tile(page, "Notes").click()
    await expect
      .poll(() => rail.locator('[data-folder="google"]').getByTestId("active-mark").count())
      .toBe(0)
    await page.close()
  })

  it("leaves a muted app's badge out of the rail", async () => {
    daemon.configure({ muted: [".cowork/apps/gmail"] })
    const { page } = await open()
    await tile(page, "Notes").click()
    await page.waitForTimeout(300)
    expect(await page.getByTestId("rail").getByTestId("count-badge").count()).toBe(1) // Manage's problems only
    expect(
      await page
        .getByTestId("rail")
        .locator('[data-folder="google"]')
        .getByTestId("count-badge")
        .count(),
    ).toBe(0)
    await page.close()
  })

  it("offers Open in the bell only for an app that has something to open", async () => {
    const { page } = await open()
    for (const [app, appTitle] of [
      ["invoices", "Invoices"],
      ["notes", "Notes"],
    ]) {
      daemon.push({
        type: "notification",
        notification: {
          app,
          appTitle,
          title: `From ${appTitle}`,
          urgent: false,
          at: new Date().toISOString(),
        },
        replaced: false,
      })
    }
    await page.getByRole("button", { name: /Notifications \(2 new\)/ }).click()
    const row = (text: string) => page.getByTestId("notification").filter({ hasText: text })
    await row("From Notes").getByRole("button", { name: "Open" }).waitFor()
    expect(await row("From Invoices").getByRole("button", { name: "Open" }).count()).toBe(0)
    await page.close()
  })

  it("draws footer items in the apps' order, whichever routine answers first", async () => {
    daemon.configure({
      apps: cannedApps().map((app) =>
        app.name === "sales" ? { ...app, statusBar: { routine: "sales-load" } } : app,
      ),
    })
    daemon.delayStatusBar("notes", 400)
    const { page } = await open()
    const items = page.locator("footer [data-footer]")
    await expect.poll(() => items.count()).toBe(2)
    expect(
      await items.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-footer"))),
    ).toEqual(["notes", "sales"])
    await page.close()
  })

  it("scrolls a newly opened editor tab into view", async () => {
    const { page } = await open()
    for (let n = 0; n < 14; n++) await tile(page, "Sales").click()
    const editor = page.locator('section[aria-label="Editor"]')
    const strip = (await editor.getByRole("tablist").boundingBox())!
    const last = (await editor.getByRole("tab", { selected: true }).boundingBox())!
    expect(last.x + last.width).toBeLessThanOrEqual(strip.x + strip.width + 1)
    expect(last.x).toBeGreaterThanOrEqual(strip.x)
    await page.close()
  })

  it("moves between editor tabs with ←/→/Home/End, the tab focused being the one shown", async () => {
    const { page } = await open()
    for (let n = 0; n < 3; n++) await tile(page, "Sales").click()
    const editor = page.locator('section[aria-label="Editor"]')
    const tabs = editor.getByRole("tab")
    await expect.poll(() => tabs.count()).toBe(3)
    /** Which tab has the keyboard's focus, which one is shown, and the strip's Tab stops. */
    const seen = () =>
      editor.evaluate((section) => {
        const all = [...section.querySelectorAll('[role="tab"]')]
        return {
          focused: all.indexOf(document.activeElement as Element),
          selected: all.findIndex((tab) => tab.getAttribute("aria-selected") === "true"),
          stops: all.map((tab) => tab.getAttribute("tabindex")),
        }
      })
    await tabs.nth(2).focus()
    const steps: [string, number][] = [
      ["ArrowRight", 0], // wraps
      ["ArrowRight", 1],
      ["ArrowLeft", 0],
      ["ArrowLeft", 2], // wraps
      ["Home", 0],
      ["End", 2],
      ["ArrowLeft", 1],
    ]
    for (const [key, index] of steps) {
      await page.keyboard.press(key)
      await expect.poll(seen).toEqual({
        focused: index,
        selected: index,
        stops: [0, 1, 2].map((each) => (each === index ? "0" : "-1")),
      })
    }
    // The shown tab's pane is the one drawn.
    expect(await page.locator('[data-app="sales"]:not(.hidden)').count()).toBe(1)
    await page.waitForTimeout(200)
    await page.screenshot({
      path: join(results, "workbench-tab-focused.png"),
      clip: { x: 0, y: 0, width: 1440, height: 120 },
    })
    // Enter on an inactive tab's Close button closes that tab and leaves the shown one shown.
    await tabs.nth(0).getByRole("button").focus()
    await page.keyboard.press("Enter")
    await expect.poll(() => tabs.count()).toBe(2)
    expect(await seen()).toMatchObject({ selected: 0 })
    await page.close()
  })

  it("moves along the rail with ↑/↓/Home/End, into an open folder, and is one Tab stop", async () => {
    const { page } = await open()
    const rail = page.getByTestId("rail")
    const focused = () =>
      page.evaluate(() => {
        const node = document.activeElement
        return node?.closest('[data-testid="rail"]') ? node.getAttribute("aria-label") : null
      })
    const stops = () =>
      rail
        .locator("button")
        .evaluateAll((nodes) =>
          nodes
            .filter((node) => node.getAttribute("tabindex") !== "-1")
            .map((node) => node.getAttribute("aria-label")),
        )
    expect(await stops()).toEqual(["Explorer"])
    await tile(page, "Explorer").focus()
    const steps: [string, string][] = [
      ["ArrowDown", "Manage Workspace"],
      ["ArrowDown", "Google"],
      ["Enter", "Google"], // the folder opens in place, its tiles next
      ["ArrowDown", "Gmail"],
      ["ArrowUp", "Google"],
      ["End", "WhatsApp"],
      ["ArrowDown", "Explorer"], // wraps
      ["ArrowUp", "WhatsApp"], // wraps
      ["Home", "Explorer"],
      ["ArrowDown", "Manage Workspace"],
    ]
    for (const [key, label] of steps) {
      await page.keyboard.press(key)
      await expect.poll(focused).toBe(label)
    }
    expect(await rail.getByRole("button", { name: "Google" }).getAttribute("aria-expanded")).toBe(
      "true",
    )
    expect(await stops()).toEqual(["Manage Workspace"])
    // Tab leaves the rail at once; Shift+Tab comes back to the button last focused in it.
    await page.keyboard.press("Tab")
    await expect.poll(focused).toBe(null)
    await tile(page, "Explorer").focus()
    await page.keyboard.press("Shift+Tab")
    await expect.poll(focused).toBe(null)
    await page.keyboard.press("Tab")
    await expect.poll(focused).toBe("Explorer")
    // A folder closed while one of its tiles held the Tab stop gives it back to the rail.
    await tile(page, "Gmail").focus()
    await rail.getByRole("button", { name: "Google" }).click()
    await expect.poll(stops).toEqual(["Google"])
    await page.close()
  })

  it("keeps the shown editor tab in view when the window narrows", async () => {
    const { page } = await open()
    for (let n = 0; n < 8; n++) await tile(page, "Sales").click()
    const editor = page.locator('section[aria-label="Editor"]')
    const strip = editor.getByRole("tablist")
    const shown = editor.getByRole("tab", { selected: true })
    const inView = async () => {
      const box = (await strip.boundingBox())!
      const tab = (await shown.boundingBox())!
      return tab.x >= box.x - 1 && tab.x + tab.width <= box.x + box.width + 1
    }
    expect(await inView()).toBe(true)
    await page.setViewportSize({ width: 1000, height: 900 })
    await expect.poll(inView).toBe(true)
    await page.setViewportSize({ width: 800, height: 900 })
    await expect.poll(inView).toBe(true)
    await page.close()
  })

  it("closes a modal app on Esc pressed inside its widget", async () => {
    const { page } = await open()
    await tile(page, "Quick Note").click()
    const modal = pane(page, "quick-note")
    await modal.getByTestId("save").waitFor()
    await modal.getByTestId("save").focus()
    await page.keyboard.press("Escape")
    await expect.poll(() => page.locator('[data-app="quick-note"]').count()).toBe(0)
    await page.close()
  })

  it("renames open tabs and side bars after cowork.json changes", async () => {
    const { page } = await open()
    await tile(page, "Sales").click()
    await page.getByRole("tab", { name: "Sales" }).waitFor()
    daemon.configure({
      apps: cannedApps().map((app) => (app.name === "sales" ? { ...app, title: "Revenue" } : app)),
    })
    daemon.push({ type: "registry" })
    await page.getByRole("tab", { name: "Revenue" }).waitFor()
    expect(await page.getByRole("tab", { name: "Sales" }).count()).toBe(0)
    await page.close()
  })

  it("follows files a routine wrote, and says in the Output panel when a run failed", async () => {
    const { page } = await open()
    await tile(page, "Explorer").click()
    await page.getByRole("treeitem", { name: "Notes" }).click()
    await page.getByRole("treeitem", { name: "ideas.md" }).waitFor()
    daemon.addFile("Notes", { name: "standup.md", path: "Notes/standup.md", dir: false })
    daemon.push({
      type: "run",
      runId: "r9",
      routine: "notes-save",
      status: "error",
      durationMs: 12,
    })
    await page.getByRole("treeitem", { name: "standup.md" }).waitFor()
    // Still open: the listing came again, the tree kept its shape.
    expect(await page.getByRole("treeitem", { name: "Notes" }).getAttribute("aria-expanded")).toBe(
      "true",
    )
    await page.getByRole("button", { name: "Toggle Panel" }).click()
    await expect
      .poll(() => page.getByTestId("output").textContent())
      .toContain("[notes-save] run r9 failed after 12 ms")
    // The daemon says why when it knows.
    daemon.push({
      type: "run",
      runId: "r10",
      routine: "notes-save",
      status: "error",
      durationMs: 7,
      error: { name: "NotConnected", message: "connect it first" },
    })
    await expect
      .poll(() => page.getByTestId("output").textContent())
      .toContain("[notes-save] NotConnected: connect it first (run r10, 7 ms)")
    await page.close()
  })

  it("keeps a view that fails to draw from blanking the workbench", async () => {
    daemon.configure({ broken: [{ dir: ".cowork/apps/odd", problems: null as never }] })
    const { page } = await open()
    await tile(page, "Manage Workspace").click()
    await page.getByTestId("manage").getByRole("tab", { name: "Not apps · 1" }).click()
    await page.getByTestId("view-failed").getByText("Manage Workspace could not be shown").waitFor()
    // The rest stands: the rail, the side bar's pane.
    await pane(page, "notes").getByTestId("note").first().waitFor()
    expect(await tile(page, "Notes").isVisible()).toBe(true)
    await page.close()
  })

  it("leaves the dark filter off for a themed widget whose first element is a white box", async () => {
    daemon.editWidget("paper.jsx", "swatch")
    const { page } = await open()
    await page.getByRole("button", { name: "Switch to Dark Theme" }).click()
    await tile(page, "Paper").click()
    const swatch = pane(page, "paper")
    await swatch.getByTestId("swatch").waitFor()
    await page.waitForTimeout(300)
    expect(await swatch.locator("#root").evaluate((root) => getComputedStyle(root).filter)).toBe(
      "none",
    )
    await shot(page, "dark-swatch")
    await page.close()
  })

  it("closes the editor tab shown with Ctrl+W, as VS Code does", async () => {
    const { page } = await open()
    const editor = page.locator('section[aria-label="Editor"]')
    await tile(page, "Sales").click()
    await tile(page, "Explorer").click()
    await page.getByRole("treeitem", { name: ".gitignore" }).click()
    await expect
      .poll(() => editor.getByRole("tab").allInnerTexts())
      .toEqual(["Sales", ".gitignore"])
    await page.keyboard.press("Control+w")
    await expect.poll(() => editor.getByRole("tab").allInnerTexts()).toEqual(["Sales"])
    expect(await editor.getByRole("tab", { selected: true }).innerText()).toBe("Sales")
    await page.close()
  })

  it("shows the Explorer from the footer's workspace item", async () => {
    const { page } = await open()
    const explorer = page.getByRole("tree")
    expect(await explorer.count()).toBe(0)
    await page.locator("footer").getByRole("button", { name: "Workspace: acme" }).click()
    await explorer.getByRole("treeitem", { name: "README.md" }).waitFor()
    // Shown, not toggled: a second click leaves it open.
    await page.locator("footer").getByRole("button", { name: "Workspace: acme" }).click()
    await page.waitForTimeout(100)
    expect(await explorer.getByRole("treeitem", { name: "README.md" }).isVisible()).toBe(true)
    await page.close()
  })

  it("keeps a clicked file's tab where it was clicked while the daemon says which app opens it", async () => {
    const { page } = await open()
    const editor = page.locator('section[aria-label="Editor"]')
    const tabs = () => editor.getByRole("tab").allInnerTexts()
    const shown = () => editor.getByRole("tab", { selected: true }).innerText()
    // The daemon's answer to "which app opens this file?" waits until the test lets it go.
    const held: (() => Promise<void>)[] = []
    await page.route(/\/api\/route\?/, (route) => void held.push(() => route.continue()))
    await tile(page, "Explorer").click()
    await page.getByRole("treeitem", { name: ".gitignore" }).click()
    // The tab is there at once, opening, and shown.
    const opening = editor.getByRole("tab", { name: ".gitignore" })
    await expect.poll(() => opening.getAttribute("aria-busy")).toBe("true")
    expect(await shown()).toBe(".gitignore")
    await shot(page, "tab-opening")
    // An app clicked meanwhile opens after it, and is shown.
    await tile(page, "Sales").click()
    await expect.poll(tabs).toEqual([".gitignore", "Sales"])
    expect(await shown()).toBe("Sales")
    await expect.poll(() => held.length).toBe(1)
    await held.shift()!()
    // The answer (no app: the text viewer) fills the file's tab in its place, and the focus stays.
    await expect.poll(() => opening.getAttribute("aria-busy")).toBe(null)
    expect(await tabs()).toEqual([".gitignore", "Sales"])
    expect(await shown()).toBe("Sales")
    await opening.click()
    await expect
      .poll(() => page.getByTestId("text-viewer").textContent())
      .toContain("node_modules/")

    // A file whose tab is closed while it opens does not open after all.
    await page.getByRole("treeitem", { name: "README.md" }).click()
    await expect.poll(() => held.length).toBe(1)
    await editor.getByRole("button", { name: "Close README.md" }).click()
    await expect.poll(tabs).toEqual([".gitignore", "Sales"])
    await held.shift()!()
    await page.waitForTimeout(300)
    expect(await tabs()).toEqual([".gitignore", "Sales"])
    await page.close()
  })

  it("keeps the rail's open folders open after a reload", async () => {
    const { page } = await open()
    const rail = page.getByTestId("rail")
    await rail.getByRole("button", { name: "Google" }).click()
    await tile(page, "Gmail").waitFor()
    await page.reload()
    await tile(page, "Notes").waitFor()
    expect(await rail.getByRole("button", { name: "Google" }).getAttribute("aria-expanded")).toBe(
      "true",
    )
    await tile(page, "Gmail").waitFor()
    // Closed, it stays closed.
    await rail.getByRole("button", { name: "Google" }).click()
    await page.reload()
    await tile(page, "Notes").waitFor()
    expect(await rail.getByRole("button", { name: "Google" }).getAttribute("aria-expanded")).toBe(
      "false",
    )
    await page.close()
  })

  it("reopens the editor tabs after a reload, the shown one shown", async () => {
    const { page } = await open()
    await tile(page, "Sales").click()
    await tile(page, "Explorer").click()
    await page.getByRole("treeitem", { name: ".gitignore" }).click()
    await tile(page, "Sales").click()
    await page.getByRole("tab", { name: ".gitignore" }).click()
    await page.reload()
    await tile(page, "Notes").waitFor()
    const editor = page.locator('section[aria-label="Editor"]')
    await expect
      .poll(() => editor.getByRole("tab").allInnerTexts())
      .toEqual(["Sales", ".gitignore", "Sales"])
    expect(await editor.getByRole("tab", { selected: true }).innerText()).toBe(".gitignore")
    await expect
      .poll(() => page.getByTestId("text-viewer").textContent())
      .toContain("node_modules/")
    await page.close()
  })

  it("paints the last start's rail before the bundle runs, then hands over to React's", async () => {
    const { page } = await open()
    const liveTiles = await page.getByTestId("rail").locator("button").count()
    // What the next start paints first holds no token, no icon key, no name a test or a screen
    // reader would take for the live workbench.
    const kept = (await page.evaluate(
      (workspace) => localStorage.getItem(`cowork.shell:${workspace}`),
      WORKSPACE,
    ))!
    expect(kept).toContain("Workspace: acme")
    for (const left of [OWNER_TOKEN, "key=", "data-testid", "aria-label", "<iframe"])
      expect(kept).not.toContain(left)
    // It is kept again once the account and the apps' footer items have come: the next start's
    // title bar and status bar do not shift when they arrive (the account button's box, empty:
    // who is signed in stays out; the notes app's count).
    const keptAccount = () =>
      page.evaluate((workspace) => {
        const kept = document.createElement("div")
        kept.innerHTML = JSON.parse(localStorage.getItem(`cowork.shell:${workspace}`)!).html
        const box = kept.querySelector<HTMLElement>("[data-signed-in]")
        return (
          box && {
            width: Number.parseFloat(box.style.width),
            text: box.textContent,
            footer: kept.textContent,
          }
        )
      }, WORKSPACE)
    const live = await page
      .getByTestId("account-button")
      .evaluate((button) => button.getBoundingClientRect().width)
    expect(live).toBeGreaterThan(40)
    await expect
      .poll(async () => Math.round((await keptAccount())?.width ?? 0))
      .toBe(Math.round(live))
    expect(await keptAccount()).toMatchObject({
      text: "",
      footer: expect.stringContaining("3 notes"),
    })

    // The bundle held back: the shell alone is on screen, the rail's tiles where they were.
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route(/\/workbench\/start-[^/]*\.js$/, async (route) => {
      await held
      await route.continue()
    })
    // The theme chosen since is the one it is drawn in.
    await page.evaluate(() => localStorage.setItem("cowork.theme", "dark"))
    await page.reload()
    const shell = page.locator("#shell")
    await expect.poll(() => shell.locator("nav button").count()).toBe(liveTiles)
    expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(
      true,
    )
    expect(await shell.getAttribute("aria-hidden")).toBe("true")
    expect(await shell.evaluate((node) => (node as HTMLElement).inert)).toBe(true)
    expect(await page.getByTestId("rail").count()).toBe(0)
    expect(await page.getByRole("button").count()).toBe(0)
    await page.screenshot({ path: join(results, "workbench-shell.png") })

    release()
    await tile(page, "Notes").click()
    expect(await shell.count()).toBe(0)

    // A shell kept by another build (its stylesheet named otherwise) is not painted.
    await page.evaluate((workspace) => {
      const key = `cowork.shell:${workspace}`
      localStorage.setItem(
        key,
        JSON.stringify({
          ...JSON.parse(localStorage.getItem(key)!),
          styles: "./workbench/workbench-0ld.css",
        }),
      )
    }, WORKSPACE)
    let releaseAgain = () => {}
    const heldAgain = new Promise<void>((resolve) => (releaseAgain = resolve))
    await page.unrouteAll()
    await page.route(/\/workbench\/start-[^/]*\.js$/, async (route) => {
      await heldAgain
      await route.continue()
    })
    await page.reload({ waitUntil: "domcontentloaded" })
    expect(
      await page.evaluate(
        () => document.getElementById("shell") === null && document.getElementById("root") !== null,
      ),
    ).toBe(true)
    releaseAgain()
    await tile(page, "Notes").waitFor()

    // An app leaves the workspace: the next start's shell follows, with panes and side bars left
    // out (the assistant's pane is open in the right side bar by now).
    await pane(page, "assistant").getByTestId("ask").waitFor()
    daemon.configure({ apps: cannedApps().filter((app) => app.name !== "sales") })
    daemon.push({ type: "registry" })
    await expect.poll(() => page.getByTestId("rail").locator("button").count()).toBe(liveTiles - 1)
    const keptTiles = () =>
      page.evaluate((workspace) => {
        const kept = document.createElement("div")
        kept.innerHTML = JSON.parse(localStorage.getItem(`cowork.shell:${workspace}`)!).html
        return {
          tiles: kept.querySelectorAll("nav button").length,
          frames: kept.querySelectorAll("iframe").length,
          text: kept.textContent,
        }
      }, WORKSPACE)
    await expect.poll(async () => (await keptTiles()).tiles).toBe(liveTiles - 1)
    expect((await keptTiles()).frames).toBe(0)
    expect((await keptTiles()).text).not.toContain("Assistant")
    await page.close()
  })

  it("shows a start's error over the shell, not under it", async () => {
    const { page } = await open()
    // A reload without the token in this tab: the workbench cannot load.
    await page.evaluate(() => sessionStorage.clear())
    await page.reload()
    await page.getByText("This page needs the link Cowork opened").waitFor()
    expect(await page.locator("#shell").count()).toBe(0)
    await page.close()
  })

  it("names the workspace in the title bar as a title, not a field, in a browser tab", async () => {
    const { page } = await open()
    const name = page.getByTestId("workspace-name")
    expect(await name.innerText()).toBe("acme")
    expect(await name.getAttribute("title")).toBe(WORKSPACE)
    expect(
      await name.evaluate((node) => [node.tagName, getComputedStyle(node).borderTopWidth]),
    ).toEqual(["DIV", "0px"])
    await page.close()
  })
  it("shows who is signed in to Cowork in the title bar and Manage Workspace, and signs in and out", async () => {
    const { page, problems } = await open()
    const button = page.getByTestId("account-button")
    await expect.poll(() => button.textContent()).toBe("Sign in")
    await button.click()
    const panel = page.getByTestId("account-panel")
    await panel.getByText("https://hub.acme.test").waitFor()
    await page.waitForTimeout(200)
    await shot(page, "account-signed-out")

    // The daemon starts the sign-in; a browser tab opens the hub's page (the desktop app's shell
    // opens the system browser instead).
    const popup = page.waitForEvent("popup")
    await panel.getByRole("button", { name: "Sign in with the browser" }).click()
    const hub = await popup
    await expect.poll(() => hub.url()).toBe(`http://127.0.0.1:${daemon.port}/hub-sign-in`)
    await hub.close()
    expect(daemon.posts.filter((post) => post.path === "/api/account/sign-in")).toHaveLength(1)
    await page.keyboard.press("Escape")

    // The browser came back to the daemon: every window hears the account event.
    daemon.signIn("ada@example.com")
    await expect.poll(() => button.getAttribute("data-signed-in")).toBe("true")
    await expect.poll(() => button.textContent()).toBe("Aada@example.com")
    await button.click()
    await expect.poll(() => panel.locator("[data-account-org]").textContent()).toBe("Acme (acme)")
    await expect.poll(() => panel.locator("[data-account-team-servers] li").count()).toBe(2)
    await page.waitForTimeout(200)
    await shot(page, "account-signed-in")
    await page.keyboard.press("Escape")

    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    await expect
      .poll(() => manage.getByTestId("manage-account").textContent())
      .toBe("Signed in to Cowork as ada@example.com (Acme)")
    await manage.getByRole("tab", { name: "Account" }).click()
    await manage.getByTestId("account-panel").waitFor()
    await page.waitForTimeout(200)
    await shot(page, "manage-account")
    await manage.getByRole("button", { name: "Sign out" }).click()
    await expect.poll(() => button.getAttribute("data-signed-in")).toBe("false")
    await expect
      .poll(() => manage.getByTestId("manage-account").textContent())
      .toBe("Not signed in to Cowork")
    expect(problems).toEqual([])
    await page.close()
  })
  it("says why a sign-in was refused and what to do, by the daemon's error name and hint", async () => {
    const { page } = await open()
    daemon.hubUp(false)
    const button = page.getByTestId("account-button")
    await expect.poll(() => button.textContent()).toBe("Sign in")
    await button.click()
    await page.getByRole("button", { name: "Sign in with the browser" }).click()
    const toast = page
      .locator("[data-sonner-toast]")
      .filter({ hasText: "could not start the sign-in" })
    await toast.waitFor()
    const text = await toast.innerText()
    expect(text).toContain(
      "Unreachable: failed to sign in: failed to reach the hub at https://hub.acme.test",
    )
    expect(text).toContain(
      "check the hub's address (`cowork status` shows it) and that it is running",
    )
    await shot(page, "account-sign-in-refused")
    // Nothing half-done stays behind: still signed out, and the tab opened for the hub is closed.
    expect(await button.getAttribute("data-signed-in")).toBe("false")
    expect(page.context().pages()).toHaveLength(1)
    await page.close()
  })

  it("runs the Chat in the right side bar: context chips, streaming, a permission prompt, chat.ask", async () => {
    const { page, problems } = await open()
    // The right side bar (open with the right app's tab) has the Chat as its first tab.
    await page.getByRole("tab", { name: "Chat", exact: true }).click()
    const chat = page.getByTestId("chat")
    await chat.waitFor()
    await expect.poll(() => chat.isVisible()).toBe(true)

    // A pane's agent.select and agent.setContext arrive as chips; one is removed.
    daemon.push({
      type: "agent",
      app: "notes",
      method: "agent.select",
      params: { text: "Q3 numbers" },
    })
    daemon.push({
      type: "agent",
      app: "gmail",
      method: "agent.setContext",
      params: { value: { thread: 7 } },
    })
    const chips = page.getByTestId("chat-context")
    await chips.getByText("selection: Q3 numbers").waitFor()
    await chips.getByText('context: {"thread":7}').waitFor()
    await page.getByRole("button", { name: "Remove context of gmail" }).click()
    await expect.poll(() => chips.getByText("context:").count()).toBe(0)

    await page.getByRole("textbox", { name: "Message" }).fill("summarise this")
    await page.getByRole("combobox", { name: "Model" }).selectOption("opus")
    await page.getByRole("button", { name: "Send", exact: true }).click()
    await expect
      .poll(() => daemon.posts.find((p) => p.path === "/api/chat/send")?.body)
      .toMatchObject({
        workspace: WORKSPACE,
        text: "summarise this",
        model: "opus",
        context: [{ kind: "selection", app: "notes", text: "Q3 numbers" }],
      })
    const log = page.getByTestId("chat-log")
    await log.getByText("summarise this").waitFor()

    // Streamed text shows as it comes, then a tool asks; allow once answers it.
    daemon.pushChat({ type: "text", text: "Let me " })
    daemon.pushChat({ type: "text", text: "look." })
    await log.getByText("Let me look.").waitFor()
    await page.getByRole("button", { name: "Stop" }).waitFor()
    daemon.pushChat({ type: "toolCall", id: "t1", name: "Bash", input: { command: "ls" } })
    daemon.pushChat({ type: "permission", id: "p1", tool: "Bash", input: { command: "ls" } })
    await page.getByRole("button", { name: "Allow once" }).click()
    await expect
      .poll(() => daemon.posts.find((p) => p.path === "/api/chat/answer")?.body)
      .toMatchObject({ conversation: "c1", id: "p1", decision: "allow" })
    await log.getByText("Answered: allow").waitFor()
    daemon.pushChat({ type: "toolResult", id: "t1", output: "notes.md", isError: false })
    daemon.pushChat({ type: "text", text: "You have notes.md." })
    daemon.pushChat({
      type: "turnEnd",
      result: "You have notes.md.",
      isError: false,
      interrupted: false,
    })
    await page.getByRole("button", { name: "Send", exact: true }).waitFor()
    await log.locator("details").getByText("Bash").click()
    await log.getByText("notes.md", { exact: true }).waitFor()
    await shot(page, "chat")

    // chat.ask from a widget: the Chat opens (from closed) and submits.
    await page.getByRole("button", { name: "Toggle Secondary Side Bar" }).click()
    await expect.poll(() => chat.isVisible()).toBe(false)
    daemon.push({
      type: "agent",
      app: "notes",
      method: "chat.ask",
      params: { text: "what is due?" },
    })
    await expect.poll(() => chat.isVisible()).toBe(true)
    await expect.poll(lastSend).toMatchObject({ conversation: "c1", text: "what is due?" })
    await log.getByText("what is due?").waitFor()
    expect(problems).toEqual([])
    await page.close()
  })

  it("runs Codex in the Chat when chosen, and a conversation keeps the CLI it began with", async () => {
    const { page, problems } = await open()
    await page.getByRole("tab", { name: "Chat", exact: true }).click()
    const agent = page.getByRole("combobox", { name: "Agent" })
    expect(await agent.inputValue()).toBe("claude-code")
    await agent.selectOption("codex")
    const message = page.getByRole("textbox", { name: "Message" })
    expect(await message.getAttribute("placeholder")).toBe("Ask Codex about this workspace")
    await message.fill("hello codex")
    await page.getByRole("button", { name: "Send", exact: true }).click()
    await expect
      .poll(() => daemon.posts.find((p) => p.path === "/api/chat/send")?.body)
      .toMatchObject({ text: "hello codex", cli: "codex", conversation: null })
    const log = page.getByTestId("chat-log")
    await log.getByText("hello codex").waitFor()
    daemon.pushChat({ type: "text", text: "Hi from Codex." })
    daemon.pushChat({
      type: "turnEnd",
      result: "Hi from Codex.",
      isError: false,
      interrupted: false,
    })
    await log.getByText("Hi from Codex.").waitFor()
    // The conversation runs Codex: the choice is shown, not changeable, and a follow-up names no CLI.
    await expect.poll(() => agent.isDisabled()).toBe(true)
    expect(await agent.inputValue()).toBe("codex")
    await message.fill("and again")
    await page.getByRole("button", { name: "Send", exact: true }).click()
    await expect.poll(lastSend).toMatchObject({ text: "and again", conversation: "c1", cli: null })
    await shot(page, "chat-codex")
    expect(problems).toEqual([])
    await page.close()
  })

  it("offers to install a missing CLI, shows npm's progress, then the ready state", async () => {
    const { page, problems } = await open()
    daemon.missingCli("codex")
    await sendInChat(page, "hello codex", "codex")
    const chat = page.getByTestId("chat")
    await chat.getByText("AgentCliMissing: failed to start the chat: Codex").waitFor()
    await page.getByRole("button", { name: "Install Codex" }).click()
    await expect
      .poll(() => daemon.posts.find((p) => p.path === "/api/chat/install")?.body)
      .toMatchObject({ workspace: WORKSPACE, cli: "codex" })
    const install = page.getByTestId("chat-install")
    await install.getByText("Codex is installed: send your message again.").waitFor()
    expect(await install.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("100")
    await shot(page, "chat-installed")
    await page.getByRole("textbox", { name: "Message" }).fill("hello codex")
    await page.getByRole("button", { name: "Send", exact: true }).click()
    await page.getByTestId("chat-log").getByText("hello codex").waitFor()
    await expect.poll(() => install.count()).toBe(0)
    expect(problems).toEqual([])
    await page.close()
  })

  it("keeps a message the daemon refused in the input, and says only what the person can do", async () => {
    const { page, problems } = await open()
    daemon.missingCli("claude-code")
    await page.getByRole("tab", { name: "Chat", exact: true }).click()
    const message = page.getByRole("textbox", { name: "Message" })
    await message.fill("What apps are in this workspace?")
    const sendButton = page.getByRole("button", { name: "Send", exact: true })
    await sendButton.click()
    const chat = page.getByTestId("chat")
    const alert = chat.getByRole("alert")
    await alert.getByText("AgentCliMissing: failed to start the chat: Claude Code").waitFor()
    // The message was not sent: it is back in the input, and Send can send it again.
    await expect.poll(() => message.inputValue()).toBe("What apps are in this workspace?")
    expect(await sendButton.isEnabled()).toBe(true)
    // The error names the button to press, not the daemon's route.
    const said = (await alert.textContent()) ?? ""
    expect(said).toContain("press Install Claude Code in the Chat")
    expect(said).not.toContain("/api/")
    await shot(page, "chat-send-failed")
    await page.getByRole("button", { name: "Install Claude Code" }).click()
    await page
      .getByTestId("chat-install")
      .getByText("Claude Code is installed: send your message again.")
      .waitFor()
    // Send again without retyping.
    await sendButton.click()
    await expect
      .poll(lastSend)
      .toMatchObject({ text: "What apps are in this workspace?", cli: "claude-code" })
    await page.getByTestId("chat-log").getByText("What apps are in this workspace?").waitFor()
    expect(await message.inputValue()).toBe("")
    expect(problems).toEqual([])
    await page.close()
  })

  it("drops the other agent's error and Install button when the agent is switched", async () => {
    const { page, problems } = await open()
    daemon.missingCli("claude-code")
    await sendInChat(page, "hello")
    const chat = page.getByTestId("chat")
    await chat.getByText("AgentCliMissing: failed to start the chat: Claude Code").waitFor()
    const install = page.getByRole("button", { name: "Install Claude Code" })
    expect(await install.count()).toBe(1)
    await page.getByRole("combobox", { name: "Agent" }).selectOption("codex")
    // Codex is not missing: nothing about Claude Code stays, and the message waits to be sent.
    await expect.poll(() => chat.getByRole("alert").count()).toBe(0)
    expect(await install.count()).toBe(0)
    expect(await chat.getByRole("button", { name: /^Install/ }).count()).toBe(0)
    await page.getByRole("button", { name: "Send", exact: true }).click()
    await expect.poll(lastSend).toMatchObject({ text: "hello", cli: "codex" })
    await page.getByTestId("chat-log").getByText("hello").waitFor()
    expect(await chat.getByRole("alert").count()).toBe(0)
    expect(problems).toEqual([])
    await page.close()
  })

  it("offers each agent its own models: Claude Code's aliases, Codex's default and what it reported", async () => {
    const { page, problems } = await open()
    await page.getByRole("tab", { name: "Chat", exact: true }).click()
    const model = page.getByRole("combobox", { name: "Model" })
    const options = () => model.locator("option").allTextContents()
    expect(await options()).toEqual(["default model", "sonnet", "opus", "haiku"])
    await model.selectOption("opus")
    await page.getByRole("combobox", { name: "Agent" }).selectOption("codex")
    // No Claude model for Codex: only its own default, and opus is not sent to it.
    await expect.poll(options).toEqual(["default model"])
    expect(await model.inputValue()).toBe("")
    await page.getByRole("textbox", { name: "Message" }).fill("hello codex")
    await page.getByRole("button", { name: "Send", exact: true }).click()
    await expect
      .poll(() => daemon.posts.find((p) => p.path === "/api/chat/send")?.body)
      .toMatchObject({ text: "hello codex", cli: "codex", model: null })
    await page.getByTestId("chat-log").getByText("hello codex").waitFor()
    // The model Codex said it runs is offered from then on.
    daemon.pushChat({ type: "session", session: "s1", model: "gpt-5-codex" })
    await expect.poll(options).toEqual(["default model", "gpt-5-codex"])
    expect(problems).toEqual([])
    await page.close()
  })

  it("keeps only the entries in view of a 2,000-message conversation in the page", async () => {
    const { page, problems } = await open()
    await sendInChat(page, "Question 0")
    const log = page.getByTestId("chat-log")
    await log.getByText("Question 0").waitFor()
    daemon.pushChat({ type: "text", text: "Answer 0" })
    for (let i = 1; i < 1000; i++) {
      daemon.pushChat({ type: "user", text: `Question ${i}`, context: [] })
      daemon.pushChat({ type: "text", text: `Answer ${i}` })
    }
    // It follows the conversation to its end, holding some dozens of entries, not 2,000.
    await log.getByText("Answer 999", { exact: true }).waitFor()
    const entries = () => log.locator("[data-chat]").count()
    expect(await entries()).toBeLessThan(200)
    await expect.poll(() => log.getByText("Question 0", { exact: true }).count()).toBe(0)
    // Scrolled to the top, the first entries are there; streamed text still shows at the end.
    // While the log still measures the entries it just drew it keeps to its end (it was there), so
    // on a busy machine a first scroll up can be followed back down once: scroll up as a person
    // would, again, until the top shows.
    await expect
      .poll(
        async () => {
          await log.evaluate((el) => {
            el.scrollTop = 0
          })
          return log.getByText("Question 0", { exact: true }).count()
        },
        { timeout: 30_000 },
      )
      .toBe(1)
    expect(await entries()).toBeLessThan(200)
    await log.evaluate((el) => {
      el.scrollTop = el.scrollHeight
    })
    daemon.pushChat({ type: "text", text: " and more" })
    await log.getByText("Answer 999 and more", { exact: true }).waitFor()
    await shot(page, "chat-long")
    expect(problems).toEqual([])
    await page.close()
  })
})
