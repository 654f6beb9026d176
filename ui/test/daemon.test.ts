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
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir, homedir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { createServer } from "node:net"
import type { Browser, Page } from "playwright-core"
import { CHROMIUM, launchChromium } from "./chromium"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const ui = fileURLToPath(new URL("..", import.meta.url))
const results = join(ui, "test-results")
const binary =
  process.env.COWORK_BIN ?? join(process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/cowork-target"), "debug/cowork")
const ready = existsSync(CHROMIUM) && existsSync(binary)
if (!ready && process.env.CI) throw new Error(`the real-daemon test needs ${CHROMIUM} and ${binary} (scripts/test builds it)`)

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

describe.skipIf(!ready)("the real daemon, the demo workspace, Chromium", () => {
  let home: string
  let workspace: string
  let daemon: ChildProcess
  let url: string
  let browser: Browser

  const env = () => ({ ...process.env, COWORK_HOME: home })

  beforeAll(async () => {
    mkdirSync(results, { recursive: true })
    home = mkdtempSync(join(tmpdir(), "cowork-home-"))
    workspace = mkdtempSync(join(tmpdir(), "cowork-demo-"))
    cpSync(join(ui, "../examples/demo"), workspace, { recursive: true, filter: (p) => !/\/\.cowork\/(data|local)(\/|$)/.test(p) })
    const port = await freePort()
    daemon = spawn(binary, ["app", "serve", workspace, "--no-open", "--port", String(port)], { env: env(), stdio: ["ignore", "pipe", "inherit"] })
    url = await new Promise<string>((resolve, reject) => {
      let out = ""
      daemon.stdout!.on("data", (chunk) => {
        out += chunk
        const line = out.split("\n").find((l) => l.startsWith("Workbench: "))
        if (line) resolve(line.slice("Workbench: ".length).trim())
      })
      daemon.on("exit", (code) => reject(new Error(`cowork app serve exited (${code}): ${out}`)))
    })
    browser = await launchChromium()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    spawnSync(binary, ["stop"], { env: env() })
    daemon?.kill()
    rmSync(home, { recursive: true, force: true })
    rmSync(workspace, { recursive: true, force: true })
  })

  async function open(): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    const problems: string[] = []
    page.on("pageerror", (error) => problems.push(error.message))
    await page.goto(url)
    return { page, problems }
  }

  it("opens the home app, saves a note through a dialog and a routine, and routes the file to its page", async () => {
    const { page, problems } = await open()
    const notes = page.frameLocator("iframe").first()
    await notes.getByText("No notes yet", { exact: false }).waitFor({ timeout: 20_000 })
    await notes.getByRole("button", { name: "New note" }).first().click()
    const dialog = page.getByRole("dialog")
    await dialog.locator("input").first().fill("Launch plan")
    await dialog.getByRole("button", { name: "Create" }).click()
    // The routine wrote the note (ctx.data), the list refreshed, and fileRouting opened its page.
    await notes.getByText("Launch plan").first().waitFor({ timeout: 20_000 })
    await expect.poll(() => existsSync(join(workspace, ".cowork/data/notes/launch-plan.note.json")), { timeout: 10_000 }).toBe(true)
    await page.getByText("launch-plan.note", { exact: false }).first().waitFor({ timeout: 20_000 })
    // Every pane is a sandboxed frame on its own app origin, never the workbench's.
    const frames = await page.locator("iframe").evaluateAll((els) => els.map((el) => [el.getAttribute("sandbox"), el.getAttribute("src")]))
    for (const [sandbox, src] of frames) {
      expect(sandbox).toBe("allow-scripts allow-forms")
      expect(src).toMatch(/^http:\/\/notes-[0-9a-f]{8}\.app\.localhost:\d+\/frame\.html/)
    }
    await page.screenshot({ path: join(results, "daemon-note.png") })
    // The audit log recorded the widget's run as the app.
    const runs = spawnSync(binary, ["routine", "runs", "--workspace", workspace, "--json", "--routine", "notes-save"], { env: env(), encoding: "utf8" })
    const record = JSON.parse(runs.stdout).runs[0]
    expect([record.context.source, record.context.caller.app]).toEqual(["app", "notes"])
    expect(problems).toEqual([])
  }, 90_000)

  it("opens what `cowork app open` names, in the running workbench", async () => {
    const { page } = await open()
    await page.frameLocator("iframe").first().getByRole("button", { name: "New note" }).first().waitFor({ timeout: 20_000 })
    const opened = spawnSync(binary, ["app", "open", join(workspace, ".cowork/apps/standup/cowork.json")], { env: env(), encoding: "utf8" })
    expect([opened.status, opened.stdout]).toEqual([0, "Opened standup in the workbench.\n"])
    await expect.poll(() => page.locator("iframe").evaluateAll((els) => els.some((el) => /^http:\/\/standup-/.test(el.getAttribute("src") ?? ""))), { timeout: 10_000 }).toBe(true)
    const outside = spawnSync(binary, ["app", "open", join(workspace, "README.md")], { env: env(), encoding: "utf8" })
    expect(outside.status).toBe(2)
    expect(outside.stderr).toContain("is not inside an app folder")
  }, 60_000)

  it("two panes of one app share one subscription loop", async () => {
    const { page } = await open()
    await page.frameLocator("iframe").first().locator("#root > *").first().waitFor({ timeout: 20_000 })
    const boardRuns = () => {
      const out = spawnSync(binary, ["routine", "runs", "--workspace", workspace, "--json", "--unchanged", "--routine", "tasks-list", "--limit", "1000"], { env: env(), encoding: "utf8" })
      return JSON.parse(out.stdout).runs.filter((run: { context: { caller?: { app?: string } } }) => run.context.caller?.app === "board").length
    }
    const tile = page.getByTestId("rail").getByRole("button", { name: "Board", exact: true })
    const panes = () => page.locator("iframe").evaluateAll((els) => els.filter((el) => /^http:\/\/board-/.test(el.getAttribute("src") ?? "")).length)
    await tile.click()
    await expect.poll(panes, { timeout: 10_000 }).toBe(1)
    await expect.poll(boardRuns, { timeout: 10_000 }).toBeGreaterThan(0)
    await page.waitForTimeout(1000)
    const first = boardRuns()
    // A second tab of the board subscribes to the same routine with the same arguments: it gets the
    // loop's last answer at once, and no second run starts.
    await tile.click()
    await expect.poll(panes, { timeout: 10_000 }).toBe(2)
    await page.frameLocator("iframe[src^='http://board-']").nth(1).getByText("Open", { exact: false }).first().waitFor({ timeout: 10_000 })
    await page.waitForTimeout(1000)
    expect(boardRuns()).toBe(first)
  }, 60_000)

  it("hot-reloads a saved widget and shows an allowlist error in its pane", async () => {
    const { page } = await open()
    const notes = page.frameLocator("iframe").first()
    await notes.getByRole("button", { name: "New note" }).first().waitFor({ timeout: 20_000 })
    const file = join(workspace, ".cowork/apps/notes/notes-sidemenu.jsx")
    const original = readFileSync(file, "utf8")
    writeFileSync(file, original.replace(/^/, "import pad from 'left-pad'\n"))
    await notes.getByText("not in the cowork webapp allowlist", { exact: false }).waitFor({ timeout: 10_000 })
    await page.screenshot({ path: join(results, "daemon-allowlist.png") })
    writeFileSync(file, original)
    await notes.getByRole("button", { name: "New note" }).first().waitFor({ timeout: 10_000 })
  }, 60_000)
})
