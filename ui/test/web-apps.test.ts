/**
 * Web apps (page 12): the REAL `cowork` binary serving a workspace with a prebuilt WebAssembly site
 * — SQLite from npm's `sql.js` (its `dist/sql-wasm.js` and `.wasm`, as the package ships them)
 * behind a hand-written page (test/web-apps/sqlpad) — opened from the rail in headless Chromium:
 * an editor tab on the app's own origin, the page as it ships, the `.wasm` compiled by streaming.
 *
 * The binary is found as real-daemon.ts says; without it (or Chromium) the test is skipped —
 * except in CI, where it fails.
 */
import { spawnSync, type ChildProcess } from "node:child_process"
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CHROMIUM, launchChromium } from "./chromium"
import { binary, serve, stop } from "./real-daemon"

const ui = fileURLToPath(new URL("..", import.meta.url))
const results = join(ui, "test-results")
const ready = existsSync(CHROMIUM) && existsSync(binary)
if (!ready && process.env.CI)
  throw new Error(`the web apps test needs ${CHROMIUM} and ${binary} (scripts/test builds it)`)

describe.skipIf(!ready)("a web app from the real daemon in Chromium", () => {
  let home: string
  let workspace: string
  let daemon: ChildProcess
  let url: string
  let browser: Browser
  const env = () => ({ ...process.env, COWORK_HOME: home })

  beforeAll(async () => {
    mkdirSync(results, { recursive: true })
    home = mkdtempSync(join(tmpdir(), "cowork-home-"))
    workspace = mkdtempSync(join(tmpdir(), "cowork-web-"))
    const app = join(workspace, ".cowork/apps/sqlpad")
    cpSync(join(ui, "test/web-apps/sqlpad"), app, { recursive: true })
    for (const file of ["sql-wasm.js", "sql-wasm.wasm"])
      copyFileSync(join(ui, "node_modules/sql.js/dist", file), join(app, "web", file))
    writeFileSync(join(workspace, "shop.sqlite"), "")
    ;({ daemon, url } = await serve(workspace, env()))
    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
    stop(daemon, env(), home, workspace)
  })

  it("opens from its rail icon in an editor tab, as it ships, and runs its WebAssembly", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    const problems: string[] = []
    page.on("pageerror", (error) => problems.push(error.message))
    await page.goto(url)
    await page.getByTestId("rail").getByRole("button", { name: "SQL Pad", exact: true }).click()
    const frame = page.frameLocator("[data-web-app] iframe")
    await frame.getByText(/^SQLite 3\.\d+\.\d+ in WebAssembly/).waitFor()
    await frame.getByRole("button", { name: "Run" }).click()
    await frame.getByRole("cell", { name: "42", exact: true }).waitFor()

    const [src, sandbox] = await page
      .locator("[data-web-app] iframe")
      .evaluate((el) => [el.getAttribute("src"), el.getAttribute("sandbox")])
    expect(src).toMatch(/^http:\/\/sqlpad-[0-9a-f]{8}\.app\.localhost:\d+\/$/)
    expect(sandbox).toBeNull()
    // The page as it ships: no SDK; the .wasm typed so that it compiles as it streams.
    const site = page.frames().find((f) => f.url() === src)!
    expect(await site.evaluate(() => "cowork" in window)).toBe(false)
    expect(
      await site.evaluate(async () => {
        const response = await fetch("sql-wasm.wasm")
        const type = response.headers.get("content-type")
        await WebAssembly.compileStreaming(response)
        return type
      }),
    ).toBe("application/wasm")
    await page.screenshot({ path: join(results, "web-app-sqlpad.png") })
    // Opened on its own, the page is cross-origin isolated (WASM threads); in the workbench's
    // frame it is not, as the workbench page is not.
    const alone = await browser.newPage()
    await alone.goto(src!)
    await alone.getByText(/cross-origin isolated: true/).waitFor()
    await alone.close()

    // A second click shows the same tab; `cowork app open` of its page too.
    await page.getByTestId("rail").getByRole("button", { name: "SQL Pad", exact: true }).click()
    const opened = spawnSync(
      binary,
      ["app", "open", join(workspace, ".cowork/apps/sqlpad/web/index.html")],
      { env: env(), encoding: "utf8" },
    )
    expect(opened.status, opened.stderr).toBe(0)
    await expect.poll(() => page.locator("[data-web-app]").count()).toBe(1)

    // A file routed to its `index` (`**/*.sqlite`), clicked in the Explorer (the side bar still
    // shows it: a tab app leaves the side bar alone), opens the page in a tab of its own.
    await page.getByRole("treeitem", { name: "shop.sqlite" }).click()
    await page.getByRole("tab", { name: /shop\.sqlite/ }).waitFor()
    await expect.poll(() => page.locator("[data-web-app]").count()).toBe(2)
    await page.screenshot({ path: join(results, "web-app-routed.png") })
    expect(problems).toEqual([])
    await page.close()
  })
})
