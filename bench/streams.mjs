// Streams into a widget: the demo's Terminal app (xterm.js over cowork.stream.open) in headless
// Chromium, on the real `cowork` daemon serving a copy of examples/demo. Two figures:
// - throughput: `head -c <MiB> /dev/zero | tr '\0' x` typed into the shell, from Enter until the
//   marker after it has been drawn by xterm.js — bytes through the PTY, the daemon's bounded
//   buffer, the workbench's relay with its acknowledgements, postMessage and xterm's parser;
// - keystroke echo: one key pressed until xterm.js shows it (the shell's echo), p50 and p90 of
//   `runs` keys. It is measured from this script (the key goes in through the DevTools protocol,
//   the screen is polled every millisecond), so it is an upper bound.
//
//   node bench/streams.mjs [MiB] [runs]    (COWORK_BIN, else $CARGO_TARGET_DIR/release/cowork)
import { spawn, spawnSync } from "node:child_process"
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { chromium } from "../ui/node_modules/playwright-core/index.mjs"

const mib = Number(process.argv[2] ?? 64)
const runs = Number(process.argv[3] ?? 50)
const target = process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/cowork-target")
const binary = process.env.COWORK_BIN ?? join(target, "release/cowork")
const repo = new URL("..", import.meta.url).pathname
const home = mkdtempSync(join(tmpdir(), "cowork-bench-home-"))
const workspace = mkdtempSync(join(tmpdir(), "cowork-bench-ws-"))
cpSync(join(repo, "examples/demo"), workspace, { recursive: true, verbatimSymlinks: true, filter: (p) => !/\/\.cowork\/(data|local)(\/|$)/.test(p) })
const env = { ...process.env, COWORK_HOME: home }
// "Always" in the consent dialog, ahead: the tab opens its shell at once.
spawnSync(binary, ["consent", "allow", "bash --rcfile .cowork/apps/terminal/bashrc", "--app", "terminal", "--workspace", workspace], { env })

const daemon = spawn(binary, ["app", "serve", workspace, "--no-open", "--port", "0"], { env, stdio: ["ignore", "pipe", "inherit"] })
process.on("exit", () => {
  daemon.kill()
  rmSync(home, { recursive: true, force: true })
  rmSync(workspace, { recursive: true, force: true })
})
const url = await new Promise((resolve, reject) => {
  let out = ""
  daemon.stdout.on("data", (chunk) => {
    out += chunk
    const line = out.split("\n").find((l) => l.startsWith("Workbench: "))
    if (line) resolve(line.slice(11).trim())
  })
  daemon.on("exit", (code) => reject(new Error(`cowork exited (${code})`)))
})
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
})
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
await page.goto(url)
await page.getByTestId("rail").getByRole("button", { name: "Terminal", exact: true }).click()
const terminal = page.frameLocator("iframe[src^='http://terminal-']")
await terminal.locator(".xterm-rows").waitFor()
await terminal.getByTestId("terminal").click()
const shown = (text) =>
  page.frames().find((f) => f.url().startsWith("http://terminal-"))
    .waitForFunction((t) => document.querySelector(".xterm-rows")?.textContent.includes(t), text, { polling: 1, timeout: 120_000 })
await page.keyboard.type("clear\n")

// Throughput.
const marker = `end-${Date.now()}`
await page.keyboard.type(`head -c ${mib * 1048576} /dev/zero | tr '\\0' x; echo; echo ${marker.slice(0, 4)}"${marker.slice(4)}"`)
const started = performance.now()
await page.keyboard.press("Enter")
await shown(marker)
const seconds = (performance.now() - started) / 1000
await page.keyboard.type("clear\n")

// Keystroke echo: each key appends to the line after an unmeasured `#Z`, so the line is unique.
const echoes = []
let typed = ""
for (let i = 0; i < runs; i++) {
  if (i % 20 === 0) {
    await page.keyboard.press("Control+U")
    await page.keyboard.type("#Z")
    typed = "#Z"
    await shown(typed)
  }
  const key = String.fromCharCode(97 + (i % 26))
  typed += key
  const before = performance.now()
  await page.keyboard.press(key)
  await shown(typed)
  echoes.push(performance.now() - before)
}
const sorted = [...echoes].sort((a, b) => a - b)
const at = (q) => sorted[Math.floor(sorted.length * q)]
console.log(`throughput into xterm.js: ${mib} MiB in ${seconds.toFixed(2)} s = ${(mib / seconds).toFixed(1)} MiB/s`)
console.log(`keystroke echo (${runs} keys): p50 ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms`)
await browser.close()
process.exit(0)
