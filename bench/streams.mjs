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
import { homedir } from "node:os"
import { join } from "node:path"
import { chromium } from "../ui/node_modules/playwright-core/index.mjs"
import { serveDemo } from "./demo-serve.mjs"

const mib = Number(process.argv[2] ?? 64)
const runs = Number(process.argv[3] ?? 50)
const target = process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/cowork-target")
const binary = process.env.COWORK_BIN ?? join(target, "release/cowork")
// "Always" in the consent dialog, ahead: the tab opens its shell at once.
const { url } = await serveDemo(binary, { app: "terminal", approve: ["bash --rcfile .cowork/apps/terminal/bashrc"] })
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
