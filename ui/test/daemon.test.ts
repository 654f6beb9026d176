/**
 * The whole product in a browser tab: the REAL `cowork` binary serving a copy of examples/demo
 * (`cowork app serve`), the built workbench, widgets transpiled by the daemon in sandboxed frames
 * on their own origins, routines run by Bun or Node — driven in headless Chromium.
 *
 * The binary is `$COWORK_BIN`, else `$CARGO_TARGET_DIR/debug/cowork`, else
 * `~/.cache/cowork-target/debug/cowork` (scripts/test builds it first). Without it the test is
 * skipped — except in CI, where it fails.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { lookup } from "node:dns/promises"
import type { Browser, Page } from "playwright-core"
import { CHROMIUM, launchChromium } from "./chromium"
import { binary, serve, stop } from "./real-daemon"
import { sseParser } from "../src/workbench/events"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const ui = fileURLToPath(new URL("..", import.meta.url))
const results = join(ui, "test-results")
const ready = existsSync(CHROMIUM) && existsSync(binary)
if (!ready && process.env.CI)
  throw new Error(`the real-daemon test needs ${CHROMIUM} and ${binary} (scripts/test builds it)`)

describe.skipIf(!ready)("the real daemon, the demo workspace, Chromium", () => {
  let home: string
  let workspace: string
  let daemon: ChildProcess
  let url: string
  let browser: Browser

  const env = () => ({ ...process.env, COWORK_HOME: home })
  // `cowork <args> --workspace <the demo copy>`, as a person in a shell beside the workbench.
  const cli = (...args: string[]) =>
    spawnSync(binary, [...args, "--workspace", workspace], { env: env(), encoding: "utf8" })
  // The audit's runs (`cowork routine runs --json`) that `filters` select, newest first.
  type Run = { capability: string; context: { source: string; caller?: { app?: string } } }
  const runs = (...filters: string[]): Run[] =>
    JSON.parse(cli("routine", "runs", "--json", ...filters).stdout).runs

  beforeAll(async () => {
    mkdirSync(results, { recursive: true })
    home = mkdtempSync(join(tmpdir(), "cowork-home-"))
    workspace = mkdtempSync(join(tmpdir(), "cowork-demo-"))
    cpSync(join(ui, "../examples/demo"), workspace, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (p) => !/\/\.cowork\/(data|local)(\/|$)/.test(p),
    })
    // The test's own apps: one calling SDK members (test/daemon/apps/probe), one hostile.
    cpSync(join(ui, "test/daemon/apps"), join(workspace, ".cowork/apps"), { recursive: true })
    ;({ daemon, url } = await serve(workspace, env()))
    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
    stop(daemon, env(), home, workspace)
  })

  async function open(): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    const problems: string[] = []
    page.on("pageerror", (error) => problems.push(error.message))
    await page.goto(await workbenchUrl())
    return { page, problems }
  }

  it("opens the home app, saves a note through a dialog and a routine, and routes the file to its page", async () => {
    const { page, problems } = await open()
    const notes = page.frameLocator("iframe").first()
    await notes.getByText("No notes yet", { exact: false }).waitFor()
    await notes.getByRole("button", { name: "New note" }).first().click()
    const dialog = page.getByRole("dialog")
    await dialog.locator("input").first().fill("Launch plan")
    await dialog.getByRole("button", { name: "Create" }).click()
    // The routine wrote the note (ctx.data), the list refreshed, and fileRouting opened its page.
    await notes.getByText("Launch plan").first().waitFor()
    await expect
      .poll(() => existsSync(join(workspace, ".cowork/data/notes/launch-plan.note.json")))
      .toBe(true)
    await page.getByText("launch-plan.note", { exact: false }).first().waitFor()
    // Every pane is a sandboxed frame on its own app origin, never the workbench's.
    const frames = await page
      .locator("iframe")
      .evaluateAll((els) => els.map((el) => [el.getAttribute("sandbox"), el.getAttribute("src")]))
    for (const [sandbox, src] of frames) {
      expect(sandbox).toBe("allow-scripts allow-forms")
      expect(src).toMatch(/^http:\/\/notes-[0-9a-f]{8}\.app\.localhost:\d+\/frame\.html/)
    }
    await page.screenshot({ path: join(results, "daemon-note.png") })
    // The audit log recorded the widget's run as the app.
    const record = runs("--routine", "notes-save")[0]
    expect([record.context.source, record.context.caller?.app]).toEqual(["app", "notes"])
    expect(problems).toEqual([])
  })

  it("runs widget frames on *.app.localhost where the system resolver does not resolve .localhost: the engine does", async (ctx) => {
    // Only meaningful where the system would not resolve it (as here: no nss-myhostname).
    if (
      await lookup("probe-0123abcd.app.localhost").then(
        () => true,
        () => false,
      )
    )
      return ctx.skip()
    const { page, problems } = await open()
    const frame = page.locator("iframe").first()
    await frame.waitFor({ timeout: 20_000 })
    expect(new URL((await frame.getAttribute("src"))!).hostname).toMatch(
      /^[a-z0-9-]+\.app\.localhost$/,
    )
    await page
      .frameLocator("iframe")
      .first()
      .locator("#root > *")
      .first()
      .waitFor({ timeout: 20_000 })
    expect(problems).toEqual([])
    await page.close()
  }, 60_000)

  it("opens a binary file from the Explorer as 'not a text file' with no failed request in the console", async () => {
    writeFileSync(join(workspace, "logo.png"), Buffer.from("89504e470d0a1a0a0000000d", "hex"))
    const { page, problems } = await open()
    const failed: string[] = []
    page.on("response", (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`)
    })
    page.on("console", (message) => {
      if (message.type() === "error") failed.push(message.text())
    })
    await tile(page, "Explorer").click()
    await page.getByRole("treeitem", { name: "logo.png" }).click()
    await expect
      .poll(() => page.getByTestId("text-viewer").getByRole("alert").textContent())
      .toBe("logo.png is not a text file")
    expect(failed).toEqual([])
    expect(problems).toEqual([])
    await page.close()
  })

  it("loads only the lucide icons a widget names, all in one request, not the whole set", async () => {
    const { page, problems } = await open()
    const scripts: URL[] = []
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()))
    })
    // Notes' side menu names nine icons (Plus, Search, Trash2, …): its buttons draw them.
    const notes = page.frameLocator("iframe").first()
    await notes.getByRole("button", { name: "New note" }).first().locator("svg").first().waitFor()
    const icons = scripts.filter((url) => /^\/assets\/lucide-[\d.]+\//.test(url.pathname))
    expect(icons.map((url) => url.pathname)).toEqual([
      expect.stringMatching(/^\/assets\/lucide-[\d.]+\/icons\.js$/),
    ])
    expect(icons[0]!.search.slice(1).split(",")).toEqual(expect.arrayContaining(["plus", "search"]))
    expect(scripts.filter((url) => /\/lucide-react-[\w-]+\.js$/.test(url.pathname))).toEqual([])
    expect(problems).toEqual([])
    await page.close()
  })

  it("opens what `cowork app open` names, in the running workbench", async () => {
    const { page } = await open()
    await page
      .frameLocator("iframe")
      .first()
      .getByRole("button", { name: "New note" })
      .first()
      .waitFor()
    const opened = spawnSync(
      binary,
      ["app", "open", join(workspace, ".cowork/apps/standup/cowork.json")],
      { env: env(), encoding: "utf8" },
    )
    expect([opened.status, opened.stdout]).toEqual([0, "Opened standup in the workbench.\n"])
    await expect
      .poll(() =>
        page
          .locator("iframe")
          .evaluateAll((els) =>
            els.some((el) => /^http:\/\/standup-/.test(el.getAttribute("src") ?? "")),
          ),
      )
      .toBe(true)
    const outside = spawnSync(binary, ["app", "open", join(workspace, "README.md")], {
      env: env(),
      encoding: "utf8",
    })
    expect(outside.status).toBe(2)
    expect(outside.stderr).toContain("is not inside an app folder")
  })

  it("two panes of one app share one subscription loop", async () => {
    const { page } = await open()
    await page.frameLocator("iframe").first().locator("#root > *").first().waitFor()
    const boardRuns = () =>
      runs("--unchanged", "--routine", "tasks-list", "--limit", "1000").filter(
        (run) => run.context.caller?.app === "board",
      ).length
    const tile = page.getByTestId("rail").getByRole("button", { name: "Board", exact: true })
    const panes = () =>
      page
        .locator("iframe")
        .evaluateAll(
          (els) => els.filter((el) => /^http:\/\/board-/.test(el.getAttribute("src") ?? "")).length,
        )
    await tile.click()
    await expect.poll(panes).toBe(1)
    await expect.poll(boardRuns).toBeGreaterThan(0)
    await page.waitForTimeout(1000)
    const first = boardRuns()
    // A second tab of the board subscribes to the same routine with the same arguments: it gets the
    // loop's last answer at once, and no second run starts.
    await tile.click()
    await expect.poll(panes).toBe(2)
    await page
      .frameLocator("iframe[src^='http://board-']")
      .nth(1)
      .getByText("Open", { exact: false })
      .first()
      .waitFor()
    await page.waitForTimeout(1000)
    expect(boardRuns()).toBe(first)
  })

  it("hot-reloads a saved widget and shows an allowlist error in its pane", async () => {
    const { page } = await open()
    const notes = page.frameLocator("iframe").first()
    await notes.getByRole("button", { name: "New note" }).first().waitFor()
    const file = join(workspace, ".cowork/apps/notes/notes-sidemenu.jsx")
    const original = readFileSync(file, "utf8")
    writeFileSync(file, original.replace(/^/, "import pad from 'left-pad'\n"))
    await notes.getByText("not in the cowork webapp allowlist", { exact: false }).waitFor()
    await page.screenshot({ path: join(results, "daemon-allowlist.png") })
    writeFileSync(file, original)
    await notes.getByRole("button", { name: "New note" }).first().waitFor()
  })

  const tile = (page: Page, title: string) =>
    page.getByTestId("rail").getByRole("button", { name: title, exact: true })
  const probe = (page: Page) => page.frameLocator('[data-app="probe"]:not(.hidden) iframe')
  const probeData = (name: string) => join(workspace, ".cowork/data/probe", name)

  /** The workbench open on a Probe tab. */
  async function openProbe() {
    const opened = await open()
    await tile(opened.page, "Probe").click()
    await probe(opened.page).getByTestId("tour").waitFor()
    return opened
  }

  it("a widget hands a task to an agent with cowork.queue, and the Tasks view follows it to done and lists the tables", async () => {
    const { page, problems } = await openProbe()
    await probe(page).getByTestId("hand-off").click()
    await expect
      .poll(() => probe(page).getByTestId("handed").textContent())
      .toBe('{"id":1,"status":"todo"}')
    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    await manage.getByRole("tab", { name: "Tasks", exact: true }).click()
    await manage.getByRole("tab", { name: /^To do/ }).click()
    await manage.getByTestId("task-row").getByText("Summarise the launch plan").waitFor()
    // An agent in a shell takes it and asks for review: the open view follows, no reload.
    const got = JSON.parse(cli("queue", "receive", "inbox", "--as", "claude", "--json").stdout)
    expect(
      cli(
        "queue",
        "ack",
        "inbox",
        String(got.id),
        "--receipt",
        got.receipt,
        "--result",
        "Three lines.",
      ).status,
    ).toBe(0)
    await expect.poll(() => manage.getByTestId("count-needs_you").textContent()).toBe("1")
    await manage.getByRole("tab", { name: /^Needs you/ }).click()
    await manage.getByTestId("task-row").getByText("Summarise the launch plan").click()
    await manage.getByTestId("task-detail").getByText("Three lines.").waitFor()
    await page.screenshot({ path: join(results, "daemon-tasks.png") })
    await manage.getByRole("button", { name: "Approve" }).click()
    await expect.poll(() => manage.getByTestId("count-done").textContent()).toBe("1")
    expect(JSON.parse(cli("queue", "peek", "inbox", String(got.id), "--json").stdout).status).toBe(
      "done",
    )
    // The tab lists the workspace's tables too.
    expect(cli("table", "create", "crm").status).toBe(0)
    await manage.getByTestId("tables").getByText(".cowork/data/crm.db").waitFor()
    expect(problems).toEqual([])
    await page.close()
  })

  it("Workflows lists a scheduled routine with its state, and its Active switch arms and disarms it as the CLI sees it", async () => {
    expect(cli("deploy", "add", "digest-daily", "--schedule", "0 8 * * *").status).toBe(0)
    const state = () =>
      cli("routine", "list")
        .stdout.split("\n")
        .find((line) => line.startsWith("digest-daily")) ?? ""
    expect(state()).toContain("not armed")
    const { page, problems } = await open()
    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    await manage.getByRole("tab", { name: "Workflows", exact: true }).click()
    const row = manage.locator('[data-workflow="digest-daily"]')
    await row.getByText("0 8 * * * · not armed").waitFor()
    // The switch is the owner's consent: on arms it (a cloned workspace fires nothing before it).
    await row.getByRole("switch", { name: "Active: digest-daily" }).click()
    await row.getByText("active · 0 8 * * *").waitFor()
    expect(state()).toContain("active · 0 8 * * *")
    await page.screenshot({ path: join(results, "daemon-workflows.png") })
    // Its schedule edited in workspace.json since (as any routine may): it says what changed and
    // fires nothing until Confirm arms it as it is now.
    const file = join(workspace, ".cowork/workspace.json")
    const json = JSON.parse(readFileSync(file, "utf8"))
    json.deployments["digest-daily"].schedule = "* * * * *"
    writeFileSync(file, JSON.stringify(json))
    await expect.poll(() => state(), { timeout: 20_000 }).toContain("changed since armed")
    // The view reads the list again when it shows (and every 15 s).
    await manage.getByRole("tab", { name: "Components", exact: true }).click()
    await manage.getByRole("tab", { name: "Workflows", exact: true }).click()
    await row.getByText("* * * * * · changed since armed").waitFor()
    await row.getByText('armed: schedule "0 8 * * *"; now: schedule "* * * * *"').waitFor()
    await page.screenshot({ path: join(results, "daemon-workflows-changed.png") })
    await row.getByRole("button", { name: "Confirm: digest-daily" }).click()
    await row.getByText("active · * * * * *").waitFor()
    expect(state()).toContain("active · * * * * *")
    await row.getByRole("switch", { name: "Active: digest-daily" }).click()
    await row.getByText("* * * * * · not armed").waitFor()
    expect(state()).toContain("not armed")
    expect(cli("deploy", "remove", "digest-daily").status).toBe(0)
    expect(problems).toEqual([])
    await page.close()
  })

  it("Executions shows a run while it runs, then who ran it — the agent or you — and filters by who", async () => {
    const { page, problems } = await open()
    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    await manage.getByRole("tab", { name: "Observability" }).click()
    const executions = manage.getByTestId("executions")
    await executions.waitFor()
    // Claude Code runs a routine from its terminal: listed as running now, by the agent.
    const agentRun = spawn(
      binary,
      ["routine", "run", "probe-echo", "--args", '{"wait":4000}', "--workspace", workspace],
      {
        env: { ...env(), CLAUDECODE: "1" },
        stdio: "ignore",
      },
    )
    const ended = new Promise((resolve) => agentRun.on("exit", resolve))
    const running = executions.locator('[data-running="probe-echo"]')
    await expect.poll(() => running.textContent()).toContain("claude-code")
    await page.screenshot({ path: join(results, "daemon-executions-running.png") })
    expect(await ended).toBe(0)
    // It ends: no longer running, and the newest row says who ran it.
    await expect.poll(() => running.count()).toBe(0)
    const rows = executions.locator("tbody tr")
    await expect
      .poll(async () => (await rows.first().textContent()) ?? "")
      .toMatch(/probe-echo.*claude-code.*cli.*ok/)
    // You run it: the newest row is yours.
    expect(cli("routine", "run", "probe-echo").status).toBe(0)
    await expect
      .poll(async () => (await rows.first().textContent()) ?? "")
      .toMatch(/probe-echo.*You.*cli.*ok/)
    await page.screenshot({ path: join(results, "daemon-executions.png") })
    // Who: only the agent's runs.
    await executions.getByLabel("Who").selectOption("claude-code")
    await expect
      .poll(() => rows.evaluateAll((trs) => trs.map((tr) => tr.children[2]?.textContent)))
      .not.toContain("You")
    expect(await rows.first().textContent()).toContain("claude-code")
    expect(problems).toEqual([])
    await page.close()
  })

  /** The window loses focus and gets it back: the footer refreshes (Chromium here never loses it by itself). */
  async function refocus(page: Page) {
    await page.evaluate(() => {
      document.hasFocus = () => false
      window.dispatchEvent(new Event("blur"))
    })
    await page.waitForTimeout(50)
    await page.evaluate(() => {
      document.hasFocus = () => true
      window.dispatchEvent(new Event("focus"))
    })
  }

  /** The owner token, as the CLI reads it (the printed address carries only a one-time code). */
  const ownerToken = () => readFileSync(join(home, "daemon.token"), "utf8").trim()

  /** A workbench address with a code of its own: each code opens one page, once. */
  async function workbenchUrl() {
    const { origin } = new URL(url)
    const response = await fetch(`${origin}/api/session/code`, {
      method: "POST",
      headers: { authorization: `Bearer ${ownerToken()}` },
    })
    const { code } = (await response.json()) as { code: string }
    return `${url.split("#")[0]}#code=${code}`
  }

  /** The daemon's events for this workspace, as they come, read with the owner token like the workbench reads them. */
  function followEvents(signal: AbortSignal) {
    const events: { type: string; [key: string]: unknown }[] = []
    const { origin } = new URL(url)
    const token = ownerToken()
    void fetch(`${origin}/api/events?workspace=${encodeURIComponent(workspace)}`, {
      headers: { authorization: `Bearer ${token}` },
      signal,
    })
      .then(async (response) => {
        const parse = sseParser((event) => events.push(event as (typeof events)[number]))
        for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) parse(chunk)
      })
      .catch(() => {})
    return events
  }

  it("answers a widget's SDK calls as its own app, and keeps its view's state over a page reload", async () => {
    const stop = new AbortController()
    const events = followEvents(stop.signal)
    const { page, problems } = await openProbe()
    await probe(page).getByTestId("count").click()
    await probe(page).getByTestId("count").click()
    await probe(page).getByText("Count 2").waitFor()
    await probe(page).getByTestId("tour").click()
    await expect.poll(() => probe(page).getByTestId("result").textContent()).not.toBe("")
    const tour = JSON.parse((await probe(page).getByTestId("result").textContent())!)
    expect(tour).toMatchObject({
      log: { ok: null },
      badge: { ok: null },
      run: { ok: { echo: { say: "hi" } } },
      user: { ok: null },
      // The probe uses no capability with a sign-in: the daemon says so by name.
      credential: { error: "NotFound" },
      agent: { ok: [null, null, null] },
      // Past 256 KB per view.
      tooBig: { error: "BadRequest" },
    })
    expect(tour.runs).toContainEqual(["probe-echo", "probe"])
    // The badge is the tab's title; the log line is in the Output panel once.
    await expect.poll(() => page.title()).toMatch(/^\(2\) /)
    await page.getByRole("button", { name: "Toggle Panel" }).click()
    await page.getByTestId("output").getByText("probe says hi").waitFor()
    await page.waitForTimeout(500)
    expect(await page.getByTestId("output").getByText("probe says hi").count()).toBe(1)
    // The agent's inputs went to the daemon as the probe's.
    await expect
      .poll(() =>
        events
          .filter((event) => event.type === "agent")
          .map((event) => `${event.app} ${event.method}`)
          .sort(),
      )
      .toEqual(["probe agent.select", "probe agent.setContext", "probe chat.ask"])
    stop.abort()
    // The refused value did not replace the state; a new page gets it from the daemon.
    await page.reload()
    await tile(page, "Probe").click()
    await probe(page).getByText("Count 2").waitFor()
    await page.screenshot({ path: join(results, "daemon-probe.png") })
    expect(problems).toEqual([])
    await page.close()
  })

  it("hot-reloads a saved widget and keeps its cowork.state", async () => {
    const { page } = await openProbe()
    const count = await probe(page).getByTestId("count").textContent()
    const file = join(workspace, ".cowork/apps/probe/probe.jsx")
    const original = readFileSync(file, "utf8")
    const saved = Date.now()
    writeFileSync(file, original.replace("version 1", "version 2"))
    await probe(page).getByText("version 2").waitFor()
    // Measured, not asserted (a timed assertion fails on a busy machine): page 04 says 300 ms.
    console.log(
      `hot reload: ${Date.now() - saved} ms from the file write to the new code on screen`,
    )
    expect(await probe(page).getByTestId("count").textContent()).toBe(count)
    writeFileSync(file, original)
    await probe(page).getByText("version 1").waitFor()
    await page.close()
  })

  it("draws the footer item as its routine says, refreshing on focus, and reports what fails", async () => {
    rmSync(probeData("footer.json"), { force: true })
    const { page } = await open()
    const item = page.locator('[data-footer="probe"]')
    await expect.poll(() => item.textContent()).toBe("Probe ready")
    // Focus coming back redraws it: a spinning icon, the error tone.
    writeFileSync(
      probeData("footer.json"),
      JSON.stringify({ text: "Syncing", icon: "sync~spin", tone: "error" }),
    )
    await refocus(page)
    await expect.poll(() => item.textContent()).toBe("Syncing")
    expect(await item.locator(".codicon-sync.codicon-modifier-spin").count()).toBe(1)
    expect(await item.evaluate((node) => node.className)).toContain("bg-destructive")
    // A failing refresh: the app's title as a warning, the error in its tooltip; a click retries.
    writeFileSync(probeData("footer.json"), JSON.stringify({ fail: "the probe is offline" }))
    await refocus(page)
    await expect.poll(() => item.textContent()).toBe("Probe")
    await item.hover()
    await page.getByRole("tooltip").getByText("the probe is offline").first().waitFor()
    await page.screenshot({ path: join(results, "daemon-footer-warning.png") })
    // A menu: the person picks an action; its confirm; a thrown error is a notification.
    writeFileSync(
      probeData("footer.json"),
      JSON.stringify({
        text: "Probe",
        icon: "plug",
        menu: [
          { label: "Restart", args: { action: "restart" } },
          { label: "Unplug", args: { action: "fail" }, confirm: "Unplug the probe?" },
        ],
      }),
    )
    await item.click()
    await expect.poll(() => item.locator(".codicon-plug").count()).toBe(1)
    await item.click()
    await page
      .getByRole("dialog", { name: "Probe" })
      .getByRole("button", { name: "Unplug" })
      .click()
    await page
      .getByRole("dialog", { name: "Unplug the probe?" })
      .getByRole("button", { name: "Continue" })
      .click()
    await page.getByRole("button", { name: /Notifications \(\d+ new\)/ }).click()
    await expect
      .poll(() => page.getByTestId("notification").first().textContent())
      .toContain("Probe: Footer action failed — the probe lost its cable")
    await page.screenshot({ path: join(results, "daemon-footer-failed-click.png") })
    await page.close()
  })

  it("refreshes the footer item on its interval while the window has focus", async () => {
    rmSync(probeData("footer.json"), { force: true })
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    await page.clock.install()
    await page.goto(await workbenchUrl())
    const item = page.locator('[data-footer="probe"]')
    await expect.poll(() => item.textContent()).toBe("Probe ready")
    writeFileSync(probeData("footer.json"), JSON.stringify({ text: "Probe, 15 s later" }))
    // The manifest's interval is 15 s (the least docs/reference/cowork-json.md allows).
    await page.clock.fastForward(15_000)
    await expect.poll(() => item.textContent()).toBe("Probe, 15 s later")
    await page.close()
  })

  it("asks Cowork's dialog with a section and a textarea, asks again with an alert, then confirms", async () => {
    const { page } = await openProbe()
    await probe(page).getByTestId("report").click()
    const dialog = page.getByRole("dialog", { name: "Report a bug" })
    await dialog.getByText("Probe › Report").waitFor()
    await dialog.getByLabel("What happened").fill("broken")
    await dialog.getByRole("button", { name: "Send" }).click()
    await dialog.getByText("Say a little more: 10 characters at least.").waitFor()
    expect(await dialog.getByLabel("What happened").inputValue()).toBe("broken")
    await page.waitForTimeout(300)
    await page.screenshot({ path: join(results, "daemon-dialog-alert.png") })
    await dialog.getByLabel("What happened").fill("broken after the update\nsecond line")
    await dialog.getByRole("button", { name: "Send" }).click()
    await page
      .getByRole("dialog", { name: "Send the report?" })
      .getByRole("button", { name: "Send" })
      .click()
    await expect
      .poll(async () =>
        JSON.parse((await probe(page).getByTestId("answer").textContent()) || "null"),
      )
      .toEqual({
        text: "broken after the update\nsecond line",
        sure: true,
      })
    await page.close()
  })

  it("brings the Board's changes to the footer at once, and keeps a long task title inside Standup's side bar", async () => {
    const { page } = await open()
    const item = page.locator('[data-footer="standup"]')
    await expect.poll(() => item.textContent()).toMatch(/ · \d+ open/)
    const openTasks = async () => Number((await item.textContent())!.match(/(\d+) open/)![1])
    const before = await openTasks()
    await tile(page, "Board").click()
    const board = page.frameLocator("iframe[src^='http://board-']")
    const title =
      "Write the audit report with a very long title that does not fit in any side bar at all"
    await board.getByLabel("New task").fill(title)
    await board.getByRole("button", { name: "Add task" }).click()
    // Well before the item's 60 s interval: the Board refreshed it.
    await expect.poll(openTasks, { timeout: 8_000 }).toBe(before + 1)

    await page.getByTestId("rail").getByRole("button", { name: "Today" }).click()
    await tile(page, "Standup").click()
    const standup = page.frameLocator("iframe[src^='http://standup-']")
    await standup.getByText(title).waitFor()
    await page.waitForTimeout(500)
    await page.screenshot({ path: join(results, "daemon-standup-long-task.png") })
    // Every control stays inside the pane, however long a title is.
    for (const name of ["Add task", /Start|Stop/, /Copy standup/]) {
      const inside = await standup
        .getByRole("button", { name })
        .evaluate(
          (button) => button.getBoundingClientRect().right <= document.documentElement.clientWidth,
        )
      expect(inside, String(name)).toBe(true)
    }
    await page.close()
  })

  it("keeps the Board usable at the desktop app's smallest window: every task reachable, the Done column too", async () => {
    // src-tauri/src/shell.rs: the main window's min_inner_size.
    const page = await browser.newPage({ viewport: { width: 760, height: 480 } })
    await page.goto(await workbenchUrl())
    await tile(page, "Board").click()
    const board = page.frameLocator("iframe[src^='http://board-']")
    for (const n of [1, 2, 3, 4]) {
      await board.getByLabel("New task").fill(`Small window task ${n}`)
      await board.getByRole("button", { name: "Add task" }).click()
      await board.getByText(`Small window task ${n}`).waitFor()
    }
    await page.waitForTimeout(300)
    await page.screenshot({ path: join(results, "daemon-board-smallest.png") })
    // A card scrolled into view shows whole, with the room to read it and its checkbox to tick.
    for (const name of ["Small window task 1", "Small window task 4"]) {
      const card = board.getByText(name, { exact: true })
      await card.scrollIntoViewIfNeeded()
      const seen = await card.evaluate((title) => {
        const box = title.closest(".group")!.getBoundingClientRect()
        let clip = { top: 0, bottom: document.documentElement.clientHeight }
        for (let up = title.parentElement; up; up = up.parentElement) {
          if (getComputedStyle(up).overflowY === "visible") continue
          const rect = up.getBoundingClientRect()
          clip = { top: Math.max(clip.top, rect.top), bottom: Math.min(clip.bottom, rect.bottom) }
        }
        return {
          whole: box.top >= clip.top - 1 && box.bottom <= clip.bottom + 1,
          room: clip.bottom - clip.top,
        }
      })
      expect(seen.whole, name).toBe(true)
      expect(seen.room, name).toBeGreaterThanOrEqual(3 * 64)
    }
    await board.getByRole("heading", { name: "Done" }).scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(results, "daemon-board-smallest-done.png") })
    // A wide window keeps the two columns side by side, each scrolling within the board.
    await page.setViewportSize({ width: 1280, height: 800 })
    const top = (name: string) =>
      board.getByRole("heading", { name }).evaluate((h) => h.getBoundingClientRect().top)
    await expect.poll(async () => (await top("Open")) === (await top("Done"))).toBe(true)
    await page.screenshot({ path: join(results, "daemon-board-wide.png") })
    await page.close()
  })

  it("mutes an app from Manage Workspace into workspace.json", async () => {
    const { page } = await open()
    await tile(page, "Manage Workspace").click()
    await page.getByTestId("manage").getByRole("switch", { name: "Probe notifications" }).click()
    const muted = () =>
      JSON.parse(readFileSync(join(workspace, ".cowork/workspace.json"), "utf8")).notifications
        ?.muted
    await expect.poll(muted).toEqual([".cowork/apps/probe"])
    await page.getByTestId("manage").getByRole("switch", { name: "Probe notifications" }).click()
    await expect.poll(muted).toEqual([])
    await page.close()
  })

  it("adds an agent, lets another in and grants it a routine from Manage Workspace › Permissions", async () => {
    // A login made in another workspace: its token opens nothing here until it is let in.
    const other = mkdtempSync(join(tmpdir(), "cowork-other-"))
    mkdirSync(join(other, ".cowork"))
    expect(
      spawnSync(binary, ["agent", "create", "codex", "--workspace", other, "--json"], {
        env: env(),
      }).status,
    ).toBe(0)
    const { page } = await open()
    await tile(page, "Manage Workspace").click()
    const manage = page.getByTestId("manage")
    await manage.getByRole("tab", { name: "Permissions" }).click()
    await manage.getByLabel("Agent name").fill("claude")
    await manage.getByRole("button", { name: "Add agent" }).click()
    const shown = manage.locator("[data-new-agent]")
    await expect.poll(() => shown.textContent()).toMatch(/cwa_[0-9a-f]{64}/)
    expect(await shown.textContent()).toContain("claude mcp add --transport http cowork")
    await manage.getByLabel("claude tasks/tasks-add").selectOption("allow")
    const grants = () => {
      const out = cli("agent", "grants", "--json").stdout
      const rows = JSON.parse(out) as {
        routine: string
        agents: Record<string, { answer: string; set: boolean }>
        default: { answer: string }
      }[]
      return rows.find((r) => r.routine === "tasks-add")
    }
    await expect.poll(() => grants()?.agents.claude).toEqual({ answer: "allow", set: true })
    await manage.getByRole("switch", { name: "tasks/tasks-add by default" }).click()
    await expect.poll(() => grants()?.default.answer).toBe("allow")
    expect(
      await manage
        .locator('[data-agent="claude"] [data-agent-here]')
        .getAttribute("data-agent-here"),
    ).toBe("true")
    expect(
      await manage
        .locator('[data-agent="codex"] [data-agent-here]')
        .getAttribute("data-agent-here"),
    ).toBe("false")
    await manage.getByRole("button", { name: "Let codex in" }).click()
    const codex = () => {
      const out = spawnSync(binary, ["agent", "list", "--json"], {
        env: env(),
        encoding: "utf8",
      }).stdout
      return (JSON.parse(out) as { name: string; workspaces: string[] }[]).find(
        (l) => l.name === "codex",
      )?.workspaces
    }
    await expect.poll(codex).toEqual([realpathSync(other), realpathSync(workspace)])
    await expect
      .poll(() =>
        manage.locator('[data-agent="codex"] [data-agent-here]').getAttribute("data-agent-here"),
      )
      .toBe("true")
    rmSync(other, { recursive: true, force: true })
    await page.close()
  })

  it("delivers app.post to the app's other panes, in this window and another, never to the sender", async () => {
    const first = await openProbe()
    await tile(first.page, "Probe").click()
    await expect.poll(() => first.page.locator('[data-app="probe"] iframe').count()).toBe(2)
    const second = await openProbe()
    const sender = probe(first.page)
    await sender.getByTestId("me").waitFor()
    const me = await sender.getByTestId("me").textContent()
    await sender.getByTestId("post").click()
    const got = (frame: ReturnType<typeof probe>) =>
      frame
        .getByTestId("messages")
        .textContent()
        .then((text) => JSON.parse(text!))
    await expect.poll(() => got(probe(second.page))).toEqual([{ from: me }])
    const hiddenTab = first.page.frameLocator('[data-app="probe"].hidden iframe')
    await expect.poll(() => got(hiddenTab)).toEqual([{ from: me }])
    await first.page.waitForTimeout(500)
    expect(await got(sender)).toEqual([])
    await first.page.close()
    await second.page.close()
  })

  it("lets a widget act only as its own app, whatever its messages claim, and keeps the workbench out of its reach", async () => {
    const { page } = await open()
    await tile(page, "Intruder").click()
    const intruder = page.frameLocator('[data-app="intruder"] iframe')
    await intruder.getByTestId("intrude").click()
    await expect.poll(() => intruder.getByTestId("report").textContent()).not.toBe("")
    const report = JSON.parse((await intruder.getByTestId("report").textContent())!)
    for (const reach of [
      "parentDocument",
      "topDocument",
      "parentSessionStorage",
      "parentLocalStorage",
      "parentLocation",
      "ownSessionStorage",
      "ownLocalStorage",
      "cookie",
    ]) {
      expect([reach, report[reach]]).toEqual([reach, "SecurityError"])
    }
    const token = ownerToken()
    expect(report.referrer).not.toContain(token)
    expect(report.whoami).toBe("ok")
    // Every run it started is recorded as the intruder's, the forged "notes" nowhere.
    const whoami = runs("--unchanged", "--app", "intruder", "--limit", "100").filter(
      (run) => run.capability === "intruder-whoami",
    )
    expect(whoami.map((run) => run.context.caller?.app)).toEqual(["intruder"])
    // Another app's routine runs (apps may call each other's), recorded as called by the intruder.
    expect(report.notesList).toBe("ok")
    const callers = runs("--unchanged", "--routine", "notes-list", "--limit", "1000").map(
      (run) => run.context.caller?.app,
    )
    expect(callers).toContain("intruder")
    // Its forged notification is the intruder's in the bell.
    await page.getByRole("button", { name: /Notifications \(\d+ new\)/ }).click()
    await expect
      .poll(() => page.getByTestId("notification").first().textContent())
      .toContain("Intruder: Forged")
    await page.close()
  })

  it("asks the Terminal's consent in Cowork's dialog in a browser tab: Deny refuses by name, Allow opens the shell once", async () => {
    const { page, problems } = await open()
    await tile(page, "Terminal").click()
    // The workbench follows the consent questions (no desktop app here), so the daemon asks it
    // instead of refusing with the `cowork consent allow` line.
    const dialog = page.getByRole("dialog", { name: "Allow Terminal?" })
    await dialog.waitFor()
    expect(await dialog.textContent()).toContain(
      "Terminal asks: Open a terminal in this workspace?",
    )
    expect(await dialog.textContent()).toContain("runs bash --rcfile .cowork/apps/terminal/bashrc")
    await page.screenshot({ path: join(results, "daemon-terminal-consent.png") })
    await dialog.getByRole("button", { name: "Deny" }).click()
    const terminal = page.frameLocator("iframe[src^='http://terminal-']")
    const alert = terminal.getByRole("alert")
    await expect.poll(() => alert.textContent()).toContain("Denied: the person did not allow it")
    // New shell asks again; Allow (once) opens it, and is not remembered.
    await alert.getByRole("button", { name: "New shell" }).click()
    await dialog.getByRole("button", { name: "Allow", exact: true }).click()
    const rows = terminal.locator(".xterm-rows")
    await expect.poll(() => rows.textContent(), { timeout: 10_000 }).toMatch(/[$#]\s*$/)
    expect(cli("consent", "list").stdout).not.toContain("bash --rcfile")
    expect(problems).toEqual([])
    await page.close()
  })

  it("closes the consent dialog in every other window once one answers, or once the asking view closes", async () => {
    const [asking, other] = [await open(), await open()]
    const dialog = (page: Page) => page.getByRole("dialog", { name: "Allow Terminal?" })
    await tile(asking.page, "Terminal").click()
    await dialog(asking.page).waitFor()
    await dialog(other.page).waitFor()
    // Answered in the other window: this one's dialog closes, and the shell opens here.
    await dialog(other.page).getByRole("button", { name: "Allow", exact: true }).click()
    await expect.poll(() => dialog(asking.page).count()).toBe(0)
    const rows = asking.page.frameLocator("iframe[src^='http://terminal-']").locator(".xterm-rows")
    await expect.poll(() => rows.textContent(), { timeout: 10_000 }).toMatch(/[$#]\s*$/)
    // The shell ends and New shell asks again; then the asking page goes away before anyone
    // answers: the question is withdrawn, and the other window's dialog closes with it.
    const terminal = asking.page.frameLocator("iframe[src^='http://terminal-']")
    await terminal.getByTestId("terminal").click()
    await asking.page.keyboard.type("exit\n")
    await terminal.getByRole("button", { name: "New shell" }).click()
    await dialog(other.page).waitFor()
    await asking.page.close({ runBeforeUnload: true })
    await expect.poll(() => dialog(other.page).count(), { timeout: 10_000 }).toBe(0)
    expect([...asking.problems, ...other.problems]).toEqual([])
    await other.page.close()
  })

  it("the Terminal app runs a shell in the workspace on a real terminal: typed input echoes back", async () => {
    // Approved ahead, as "Always" in the consent dialog would: the tab opens the shell at once.
    expect(
      cli("consent", "allow", "bash --rcfile .cowork/apps/terminal/bashrc", "--app", "terminal")
        .status,
    ).toBe(0)
    const { page, problems } = await open()
    await tile(page, "Terminal").click()
    const terminal = page.frameLocator("iframe[src^='http://terminal-']")
    const rows = terminal.locator(".xterm-rows")
    await rows.waitFor()
    // A clean first screen: the prompt, and no error of a start-up file the confined shell ran
    // (the home folder's ~/.bashrc, whose tools live out of its reach, is not read).
    await expect.poll(() => rows.textContent(), { timeout: 10_000 }).toMatch(/[$#]\s*$/)
    const first = (await terminal.locator(".xterm-rows > div").allTextContents()).filter((r) =>
      r.trim(),
    )
    expect(first).toHaveLength(1)
    expect(first[0]).not.toMatch(/denied|No such file|not found/i)
    await terminal.getByTestId("terminal").click()
    await page.keyboard.type("echo $((6 * 7))-from-the-shell; pwd\n")
    await expect.poll(() => rows.textContent(), { timeout: 10_000 }).toContain("42-from-the-shell")
    expect(await rows.textContent()).toContain(realpathSync(workspace))
    await page.screenshot({ path: join(results, "daemon-terminal.png") })
    // The open is audited as the app, with its argv.
    const opened = runs("--routine", "cowork.stream.open")[0]
    expect([opened?.capability, opened?.context.caller?.app]).toEqual([
      "cowork.stream.open",
      "terminal",
    ])
    expect(problems).toEqual([])
    await page.close()
  })
})
