/**
 * Web apps (page 12): the REAL `cowork` binary serving a workspace with a prebuilt WebAssembly site
 * — SQLite from npm's `sql.js` (its `dist/sql-wasm.js` and `.wasm`, as the package ships them)
 * behind a hand-written page (test/web-apps/sqlpad) — opened from the rail in headless Chromium:
 * an editor tab on the app's own origin, the page as it ships, the `.wasm` compiled by streaming.
 *
 * Files routed to a web app reach the page as it ships the web's standard ways and are saved back
 * to the workspace: the SQLite database by `launchQueue` and `FileSystemFileHandle.createWritable`,
 * a note (test/web-apps/notes, a plain page) by its file input or — `"open": "drop:#drop"` — a drop,
 * saved by an `<a download>` of the file's own name.
 *
 * A build kept out of the app (`"download"`) comes from an https server on loopback whose
 * certificate is signed by an authority made here with openssl and trusted by the daemon through
 * `COWORK_EXTRA_CA_CERTS`; the server sends half the zip, then holds the rest until the tab has
 * shown the progress at 50%.
 *
 * The binary is found as real-daemon.ts says; without it (or Chromium) the test is skipped —
 * except in CI, where it fails.
 */
import { spawnSync, type ChildProcess } from "node:child_process"
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs"
import { createHash } from "node:crypto"
import { request } from "node:http"
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Browser, Page } from "playwright-core"
import initSqlJs from "sql.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CHROMIUM, launchChromium } from "./chromium"
import { binary, serve, stop } from "./real-daemon"

const ui = fileURLToPath(new URL("..", import.meta.url))
const results = join(ui, "test-results")
const ready = existsSync(CHROMIUM) && existsSync(binary)
if (!ready && process.env.CI)
  throw new Error(`the web apps test needs ${CHROMIUM} and ${binary} (scripts/test builds it)`)

/** A SQLite database (made with sql.js in Node) holding `items(name)` with these rows. */
async function database(names: string[]): Promise<Uint8Array> {
  const SQL = await initSqlJs()
  const db = new SQL.Database()
  db.run("create table items (name text)")
  for (const name of names) db.run("insert into items values (?)", [name])
  return db.export()
}

/** The names in a database file's `items`. */
async function itemsIn(path: string): Promise<string[]> {
  const SQL = await initSqlJs()
  const db = new SQL.Database(readFileSync(path))
  return (db.exec("select name from items order by rowid")[0]?.values ?? []).map((r) =>
    String(r[0]),
  )
}

/** A certificate authority and, signed by it, a certificate for 127.0.0.1, made now
 * (scripts/test-authority, openssl): the leaf and its key; the authority is `<dir>/ca.pem`. */
function testAuthority(dir: string): { cert: Buffer; key: Buffer } {
  const run = spawnSync(join(ui, "../scripts/test-authority"), [dir], { encoding: "utf8" })
  if (run.status !== 0) throw new Error(`scripts/test-authority: ${run.stderr}`)
  return { cert: readFileSync(join(dir, "leaf.pem")), key: readFileSync(join(dir, "leaf.key")) }
}

/** A zip (Python's zipfile) of a site in one top folder: its page and 2 MB that do not compress. */
function siteZip(dir: string): Buffer {
  const script = [
    "import os, sys, zipfile",
    "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:",
    "    z.writestr('site-1.0/index.html', '<!doctype html><title>Far</title><p>Downloaded and opened</p>')",
    "    z.writestr('site-1.0/padding.bin', os.urandom(2 << 20))",
  ].join("\n")
  const zip = join(dir, "site.zip")
  const run = spawnSync("python3", ["-c", script, zip], { encoding: "utf8" })
  if (run.status !== 0) throw new Error(`python3 zipfile: ${run.stderr}`)
  return readFileSync(zip)
}

/** Clicks `name` in the Explorer, opening the Explorer first when another view has the side bar. */
async function clickInExplorer(page: Page, name: string) {
  const item = page.getByRole("treeitem", { name })
  const explorer = page.getByTestId("rail").getByRole("button", { name: "Explorer", exact: true })
  await explorer.waitFor()
  if (!(await item.isVisible())) {
    await explorer.click()
  }
  await item.click()
}

/** The status of a GET of `url` on an app origin, asked on loopback with its Host (Node's resolver
 * need not know `*.app.localhost`). */
function statusOf(url: URL): Promise<number> {
  return new Promise((resolve, reject) => {
    const options = { host: "127.0.0.1", port: url.port, path: url.pathname + url.search }
    request({ ...options, headers: { host: url.host } }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
      .on("error", reject)
      .end()
  })
}

/** The page of the web app tab shown now. */
const shownApp = (page: Page) => page.frameLocator("[data-web-app]:not(.hidden) iframe")

describe.skipIf(!ready)("a web app from the real daemon in Chromium", () => {
  let home: string
  let workspace: string
  let daemon: ChildProcess
  let url: string
  let browser: Browser
  /** The workbench: one page for the whole file (its address's sign-in code works once). */
  let page: Page
  /** The https server of the downloaded build, and what lets it send the zip's second half. */
  let builds: HttpsServer
  let sendRest: () => void
  let certs: string
  const env = () => ({
    ...process.env,
    COWORK_HOME: home,
    COWORK_EXTRA_CA_CERTS: join(certs, "ca.pem"),
  })

  beforeAll(async () => {
    mkdirSync(results, { recursive: true })
    home = mkdtempSync(join(tmpdir(), "cowork-home-"))
    workspace = mkdtempSync(join(tmpdir(), "cowork-web-"))
    const app = join(workspace, ".cowork/apps/sqlpad")
    cpSync(join(ui, "test/web-apps/sqlpad"), app, { recursive: true })
    for (const file of ["sql-wasm.js", "sql-wasm.wasm"])
      copyFileSync(join(ui, "node_modules/sql.js/dist", file), join(app, "web", file))
    writeFileSync(join(workspace, "shop.sqlite"), await database(["tea", "coffee"]))
    cpSync(join(ui, "test/web-apps/notes"), join(workspace, ".cowork/apps/notes"), {
      recursive: true,
    })
    // The same page as an app that opens files only by a drop.
    cpSync(join(ui, "test/web-apps/notes"), join(workspace, ".cowork/apps/drop-notes"), {
      recursive: true,
    })
    writeFileSync(
      join(workspace, ".cowork/apps/drop-notes/cowork.json"),
      JSON.stringify({
        name: "drop-notes",
        version: "1.0.0",
        title: "Drop Notes",
        web: { index: "web/index.html", open: "drop:#drop" },
        fileRouting: { "**/*.dropnote": "web/index.html" },
      }),
    )
    // An app whose build is a download from an address where nothing answers.
    mkdirSync(join(workspace, ".cowork/apps/gone"))
    writeFileSync(
      join(workspace, ".cowork/apps/gone/cowork.json"),
      JSON.stringify({
        name: "gone",
        version: "1.0.0",
        title: "Gone",
        web: {
          index: "index.html",
          download: { url: "https://127.0.0.1:9/site.zip", sha256: "0".repeat(64) },
        },
      }),
    )
    // An app whose build is a download from the test https server.
    certs = mkdtempSync(join(tmpdir(), "cowork-certs-"))
    const { cert, key } = testAuthority(certs)
    const zip = siteZip(certs)
    const rest = new Promise<void>((resolve) => {
      sendRest = resolve
    })
    builds = createHttpsServer({ cert, key }, (_, response) => {
      response.writeHead(200, { "content-type": "application/zip", "content-length": zip.length })
      const half = Math.ceil(zip.length / 2)
      response.write(zip.subarray(0, half))
      void rest.then(() => response.end(zip.subarray(half)))
    })
    await new Promise<void>((resolve) => builds.listen(0, "127.0.0.1", resolve))
    const { port } = builds.address() as { port: number }
    mkdirSync(join(workspace, ".cowork/apps/far"))
    writeFileSync(
      join(workspace, ".cowork/apps/far/cowork.json"),
      JSON.stringify({
        name: "far",
        version: "1.0.0",
        title: "Far Site",
        web: {
          index: "index.html",
          download: {
            url: `https://127.0.0.1:${port}/site.zip`,
            sha256: createHash("sha256").update(zip).digest("hex"),
          },
        },
      }),
    )
    writeFileSync(join(workspace, "list.note"), "milk")
    writeFileSync(join(workspace, "inbox.dropnote"), "call Ann")
    ;({ daemon, url } = await serve(workspace, env()))
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    await page.goto(url)
  })

  afterAll(async () => {
    await browser?.close()
    sendRest?.()
    builds?.close()
    stop(daemon, env(), home, workspace, certs)
  })

  it("opens from its rail icon in an editor tab, as it ships, and runs its WebAssembly", async () => {
    const problems: string[] = []
    page.on("pageerror", (error) => problems.push(error.message))
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
  })
  it("gets a routed database by launchQueue, edits it in WebAssembly and saves it back", async () => {
    const problems: string[] = []
    page.on("pageerror", (error) => problems.push(error.message))
    await clickInExplorer(page, "shop.sqlite")
    const app = shownApp(page)
    await app.getByText("shop.sqlite (launchQueue)").waitFor()
    await app
      .getByRole("textbox")
      .fill("insert into items values ('milk'); select count(*) as n from items")
    await app.getByRole("button", { name: "Run" }).click()
    await app.getByRole("cell", { name: "3", exact: true }).waitFor()
    await app.getByRole("button", { name: "Save", exact: true }).click()
    await app.getByText("shop.sqlite (saved)").waitFor()
    await expect
      .poll(() => itemsIn(join(workspace, "shop.sqlite")))
      .toEqual(["tea", "coffee", "milk"])
    await page.screenshot({ path: join(results, "web-app-routed-saved.png") })

    // The page as it ships (its address without the token, no SDK); the app's files unchanged.
    const site = page
      .frames()
      .find((f) => /\.app\.localhost:\d+\/$/.test(f.url()) && f !== page.mainFrame())
    expect(
      site,
      page
        .frames()
        .map((f) => f.url())
        .join(" "),
    ).toBeDefined()
    expect(await site!.evaluate(() => "cowork" in window)).toBe(false)
    const shipped = readFileSync(join(ui, "test/web-apps/sqlpad/web/index.html"), "utf8")
    expect(readFileSync(join(workspace, ".cowork/apps/sqlpad/web/index.html"), "utf8")).toBe(
      shipped,
    )
    expect(problems).toEqual([])
  })

  it("gives a plain page the routed note by its file input, then the browser's chooser", async () => {
    await clickInExplorer(page, "list.note")
    const app = shownApp(page)
    await app.getByText("no note open").waitFor()
    await app.locator("#pick").click()
    await app.getByText("list.note (file input)").waitFor()
    await expect(app.getByRole("textbox", { name: "Note" }).inputValue()).resolves.toBe("milk")
    await app.getByRole("textbox", { name: "Note" }).fill("milk\neggs")
    await app.getByRole("button", { name: "Save", exact: true }).click()
    await expect.poll(() => readFileSync(join(workspace, "list.note"), "utf8")).toBe("milk\neggs")
    // The file was handed over once: the next pick is the browser's own chooser.
    const chooser = page.waitForEvent("filechooser")
    await app.locator("#pick").click()
    await chooser

    // Closing the tab ends the page's token: it reads and saves nothing more.
    const src = await page.locator('[data-web-app][data-app="notes"] iframe').getAttribute("src")
    const token = new URL(src!).searchParams.get("cowork-file")!
    const routed = new URL(`/.cowork/file?token=${token}`, src!)
    expect(await statusOf(routed)).toBe(200)
    await page.getByRole("button", { name: "Close list.note" }).click()
    await expect.poll(() => statusOf(routed)).toBe(403)
  })

  it("drops the routed note on the element `open` names, and saves it back", async () => {
    await clickInExplorer(page, "inbox.dropnote")
    const app = shownApp(page)
    await app.getByText("inbox.dropnote (dropped)").waitFor()
    await app.getByRole("textbox", { name: "Note" }).fill("call Ann at 5")
    await app.getByRole("button", { name: "Save", exact: true }).click()
    await expect
      .poll(() => readFileSync(join(workspace, "inbox.dropnote"), "utf8"))
      .toBe("call Ann at 5")
    await page.screenshot({ path: join(results, "web-app-dropped.png") })
  })
  it("downloads a build from https on the first open, showing its progress, then opens it", async () => {
    await page.getByTestId("rail").getByRole("button", { name: "Far Site", exact: true }).click()
    const tab = page.locator('[data-web-app][data-app="far"]')
    // Half the zip has come: the bar and its words say so, with a real percentage.
    await tab.getByText(/^50% · 1\.0 MB of 2\.0 MB$/).waitFor()
    const bar = tab.getByRole("progressbar", { name: "Downloading Far Site" })
    const [value, max] = await bar.evaluate((el: HTMLProgressElement) => [el.value, el.max])
    expect(value / max).toBeCloseTo(0.5, 3)
    await tab.getByText("Downloading Far Site…").waitFor()
    await page.screenshot({ path: join(results, "web-app-downloading.png") })
    sendRest()
    // The rest checked, unpacked without its top folder, cached under the root: the page opens.
    await shownApp(page).getByText("Downloaded and opened").waitFor()
    expect(readdirSync(join(home, "web-builds"))).toHaveLength(1)
    await page.screenshot({ path: join(results, "web-app-downloaded.png") })
  })

  it("tries a download on the first open and says in the tab why it failed", async () => {
    await page.getByTestId("rail").getByRole("button", { name: "Gone", exact: true }).click()
    const tab = page.locator('[data-web-app][data-app="gone"]')
    await tab
      .getByRole("alert")
      .getByText(/failed to fetch the web app's build https:\/\/127\.0\.0\.1:9\/site\.zip/)
      .waitFor()
    await expect(tab.locator("iframe").count()).resolves.toBe(0)
  })
})
