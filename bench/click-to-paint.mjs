// Click-to-first-paint: how long from a click on a rail tile until the app's widget has painted
// in its pane (the browser's cache warm after the first run, as it is for a person) — the real `cowork` daemon serving a copy of examples/demo, the built workbench,
// headless Chromium. Also the workbench's own load: navigation until the home app has painted, and
// hot reload: a saved widget file until its open pane shows the new code (page 04 says 300 ms).
//
//   node bench/click-to-paint.mjs [runs]      (COWORK_BIN, else $CARGO_TARGET_DIR/release/cowork)
//
// A widget has painted when its frame's #root holds an element: the frame loaded, the daemon's
// transpiled widget arrived, its imports were preloaded and React rendered it.
import { spawn, spawnSync } from "node:child_process"
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { chromium } from "../ui/node_modules/playwright-core/index.mjs"

const runs = Number(process.argv[2] ?? 10)
const target = process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/cowork-target")
const binary = process.env.COWORK_BIN ?? join(target, "release/cowork")
const repo = new URL("..", import.meta.url).pathname
const home = mkdtempSync(join(tmpdir(), "cowork-bench-home-"))
const workspace = mkdtempSync(join(tmpdir(), "cowork-bench-ws-"))
cpSync(join(repo, "examples/demo"), workspace, { recursive: true, filter: (p) => !/\/\.cowork\/(data|local)(\/|$)/.test(p) })
const env = { ...process.env, COWORK_HOME: home }

const daemon = spawn(binary, ["app", "serve", workspace, "--no-open", "--port", "0"], { env, stdio: ["ignore", "pipe", "inherit"] })
const url = await new Promise((resolve, reject) => {
  let out = ""
  daemon.stdout.on("data", (chunk) => {
    out += chunk
    const line = out.split("\n").find((l) => l.startsWith("Workbench: "))
    if (line) resolve(line.slice(11).trim())
  })
  daemon.on("exit", (code) => reject(new Error(`cowork exited (${code})`)))
})
// A workbench link opens once (its code is spent on first use): a fresh one per page, minted with
// the owner token as the workbench's own "open in a browser" does.
const fresh = async () => {
  const { origin } = new URL(url)
  const token = readFileSync(join(home, "daemon.token"), "utf8").trim()
  const response = await fetch(`${origin}/api/session/code`, { method: "POST", headers: { authorization: `Bearer ${token}` } })
  return `${url.split("#")[0]}#code=${(await response.json()).code}`
}
// Whatever fails, the daemon goes with this script (it would keep its caller's pipes open).
process.on("exit", () => daemon.kill())
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
})

// One browser profile for every run, as a person's browser keeps its cache between panes.
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
const painted = (page, index) => page.frameLocator("iframe").nth(index).locator("#root > *").first().waitFor({ timeout: 30_000 })
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const load = []
const click = []
for (let i = 0; i < runs + 1; i++) {
  const page = await context.newPage()
  let t = performance.now()
  await page.goto(await fresh())
  await painted(page, 0)
  const loaded = performance.now() - t
  // The board app opens an editor tab: a fresh pane on every click.
  const tile = page.getByTestId("rail").getByRole("button", { name: "Board", exact: true })
  await tile.waitFor()
  const before = await page.locator("iframe").count()
  t = performance.now()
  await tile.click()
  await painted(page, before)
  const clicked = performance.now() - t
  if (i > 0) {
    load.push(loaded)
    click.push(clicked)
  }
  await page.close()
}

// Hot reload: the Board pane stays open while its file is saved with a new heading each time.
const page = await context.newPage()
await page.goto(await fresh())
await page.getByTestId("rail").getByRole("button", { name: "Board", exact: true }).click()
const heading = page.frameLocator("iframe").last().getByRole("heading", { level: 1 })
await heading.waitFor()
const widget = join(workspace, ".cowork/apps/board/board.jsx")
const original = readFileSync(widget, "utf8")
const reload = []
for (let i = 1; i <= runs; i++) {
  const t = performance.now()
  writeFileSync(widget, original.replace(">Board</h1>", `>Board ${i}</h1>`))
  await heading.filter({ hasText: `Board ${i}` }).waitFor({ timeout: 10_000 })
  reload.push(performance.now() - t)
}
writeFileSync(widget, original)

console.log(`workbench load → home widget painted: median ${median(load).toFixed(0)} ms (${runs} runs)`)
console.log(`rail click → widget painted (a new tab pane): median ${median(click).toFixed(0)} ms (${runs} runs)`)
console.log(`widget saved → open pane shows the new code (hot reload): median ${median(reload).toFixed(0)} ms (${runs} runs)`)

await browser.close()
spawnSync(binary, ["stop"], { env })
daemon.kill()
rmSync(home, { recursive: true, force: true })
rmSync(workspace, { recursive: true, force: true })
