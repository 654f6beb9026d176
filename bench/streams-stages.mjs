// Where a stream's time goes (issue 44): each stage of bench/streams.mjs's throughput figure alone,
// in headless Chromium, so the slow one is known before anything is changed.
// - xterm.js alone: `MiB` of `x` written to a Terminal in 64 KiB chunks (as the daemon frames
//   them), until its last write's callback and the next animation frame (so drawn); the same into
//   a headless xterm.js (bench/streams.mjs's consumer), until the callback;
// - to the frame: the demo's Terminal on the real daemon, `head -c … | tr '\0' x` typed in, from
//   Enter until the marker after it reaches the frame as a `stream` event (PTY, daemon, hyper, the
//   workbench's relay, postMessage), beside the time until xterm.js shows it;
// - echo, split at the frame: the round trip to the shell, and the wait for xterm.js's drawing;
// - a flood: Ctrl+C after 4 s of `yes`, until the shell's next answer shows.
//
//   node bench/streams-stages.mjs [MiB] [keys]    (COWORK_BIN, else $CARGO_TARGET_DIR/release/cowork)
import { readFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { chromium } from "../ui/node_modules/playwright-core/index.mjs"
import { serveDemo } from "./demo-serve.mjs"
import { injectHeadless, parseAlone } from "./xterm-headless.mjs"

const mib = Number(process.argv[2] ?? 32)
const target = process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/cowork-target")
const binary = process.env.COWORK_BIN ?? join(target, "release/cowork")
const repo = new URL("..", import.meta.url).pathname
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
})
const rate = (seconds) => `${seconds.toFixed(2)} s = ${(mib / seconds).toFixed(1)} MiB/s`

// Stage: xterm.js alone, on a page of its own.
{
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  await page.setContent(`<style>${readFileSync(join(repo, "ui/node_modules/@xterm/xterm/css/xterm.css"), "utf8")}</style><div id=t style="width:1200px;height:700px"></div>`)
  await page.addScriptTag({ path: join(repo, "ui/node_modules/@xterm/xterm/lib/xterm.js") })
  const seconds = await page.evaluate(async (mib) => {
    const term = new window.Terminal({ scrollback: 5000, cols: 160, rows: 45 })
    term.open(document.getElementById("t"))
    const chunk = new Uint8Array(65536).fill(120)
    const started = performance.now()
    for (let i = 0; i < mib * 16; i++) term.write(chunk)
    await new Promise((resolve) => term.write("\r\nend", resolve))
    await new Promise((resolve) => requestAnimationFrame(resolve))
    return (performance.now() - started) / 1000
  }, mib)
  console.log(`xterm.js alone (write per 64 KiB chunk): ${mib} MiB in ${rate(seconds)}`)
  await page.close()
}

// Stage: a headless xterm.js alone (@xterm/headless: the parser and buffer, no renderer), the
// consumer of bench/streams.mjs's figure, until its last write's callback.
{
  const page = await browser.newPage()
  await injectHeadless(page)
  const seconds = await parseAlone(page, mib)
  console.log(`a headless xterm.js alone (write per 64 KiB chunk): ${mib} MiB in ${rate(seconds)}`)
  await page.close()
}

// Stage: the whole path to the frame, beside xterm.js's screen.
const flood = ["sh", "-c", `head -c ${mib * 1048576} /dev/zero | tr '\\0' x`]
const { url } = await serveDemo(binary, { app: "terminal", approve: [flood.join(" "), "bash --rcfile .cowork/apps/terminal/bashrc"] })
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
let paneToken
page.on("request", (request) => {
  if (request.url().endsWith("/api/streams")) paneToken = request.headers().authorization.slice(7)
})
await page.goto(url)

await page.getByTestId("rail").getByRole("button", { name: "Terminal", exact: true }).click()
const terminal = page.frameLocator("iframe[src^='http://terminal-']")
await terminal.locator(".xterm-rows").waitFor()
await terminal.getByTestId("terminal").click()
// Stage: the daemon alone (PTY, pump, hyper, fetch), read as fast as the page can, no relay: the
// Terminal's pane opens a second stream (a view may have two).
{
  const seconds = await page.evaluate(async ([paneToken, argv]) => {
    const started = performance.now()
    const answer = await fetch("/api/streams", { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${paneToken}` }, body: JSON.stringify({ argv }) })
    if (!answer.headers.get("x-cowork-stream")) throw new Error(await answer.text())
    const id = answer.headers.get("x-cowork-stream")
    const reader = answer.body.getReader()
    // Acknowledged as the workbench's relay does (512 KiB at a time, one request on its way):
    // the daemon sends at most 4 MiB beyond what was. Frames' headers are counted too — the
    // daemon takes no more than it sent.
    let taken = 0
    let reporting = false
    const report = () => {
      if (reporting || taken < 512 << 10) return
      const bytes = taken
      taken = 0
      reporting = true
      fetch("/api/sdk/stream.ack", { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${paneToken}` }, body: JSON.stringify({ id, bytes }) })
        .finally(() => { reporting = false; report() })
    }
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      taken += value.length
      report()
    }
    return (performance.now() - started) / 1000
  }, [paneToken, flood])
  console.log(`the daemon alone (PTY, pump, hyper, the page's fetch): ${mib} MiB in ${rate(seconds)}`)
}
const frame = page.frames().find((f) => f.url().startsWith("http://terminal-"))
await page.keyboard.type("clear\n")
const marker = `end-${Date.now()}`
// The frame notes when the marker's last bytes reach it, before xterm.js sees them.
await frame.evaluate((marker) => {
  window.__arrived = null
  window.__bytes = 0
  window.addEventListener("message", (event) => {
    const data = event.data?.data
    if (event.data?.event !== "stream" || !(data instanceof Uint8Array)) return
    window.__bytes += data.length
    if (window.__arrived === null && new TextDecoder().decode(data).includes(marker.slice(-6))) window.__arrived = performance.now()
  }, true)
}, marker)
// The workbench notes when the marker reaches its reader of the stream's body (the daemon's side).
await page.evaluate((tail) => {
  window.__arrived = null
  const read = ReadableStreamDefaultReader.prototype.read
  ReadableStreamDefaultReader.prototype.read = async function () {
    const got = await read.call(this)
    if (window.__arrived === null && got.value instanceof Uint8Array && new TextDecoder().decode(got.value).includes(tail)) window.__arrived = performance.timeOrigin + performance.now()
    return got
  }
  window.__writes = []
  const fetched = window.fetch
  window.fetch = async (url, init) => {
    const started = performance.now()
    const answer = await fetched(url, init)
    if (String(url).includes("stream.write")) window.__writes.push(performance.now() - started)
    return answer
  }
}, marker.slice(-6))
await page.keyboard.type(`head -c ${mib * 1048576} /dev/zero | tr '\\0' x; echo; echo ${marker.slice(0, 4)}"${marker.slice(4)}"`)
const [started, startedAt] = await frame.evaluate(() => [performance.now(), performance.timeOrigin + performance.now()])
await page.keyboard.press("Enter")
await frame.waitForFunction((t) => document.querySelector(".xterm-rows")?.textContent.includes(t), marker, { polling: 1, timeout: 120_000 })
const hostArrived = await page.evaluate(() => window.__arrived)
console.log(`to the workbench (PTY, daemon, hyper, fetch's reader): ${rate((hostArrived - startedAt) / 1000)}`)
const [shownAt, arrived, bytes] = await frame.evaluate(() => [performance.now(), window.__arrived, window.__bytes])
console.log(`to the frame (PTY, daemon, relay, postMessage): ${(bytes / 1048576).toFixed(1)} MiB in ${rate((arrived - started) / 1000)}`)
console.log(`shown by the Terminal app's xterm.js: ${rate((shownAt - started) / 1000)}`)
await page.keyboard.type("clear\n")

// Echo, in the frame's own clock: the key's keydown, its echo's arrival as a `stream` event, the
// screen's next change (xterm.js draws on an animation frame).
const runs = Number(process.argv[3] ?? 30)
await frame.evaluate(() => {
  window.__echo = { key: 0, arrived: 0, drawn: 0 }
  window.addEventListener("keydown", () => Object.assign(window.__echo, { key: performance.now(), arrived: 0, drawn: 0 }), true)
  window.addEventListener("message", (event) => {
    if (event.data?.event === "stream" && window.__echo.key && !window.__echo.arrived) window.__echo.arrived = performance.now()
  }, true)
  new MutationObserver(() => {
    if (window.__echo.arrived && !window.__echo.drawn) window.__echo.drawn = performance.now()
  }).observe(document.querySelector(".xterm-rows"), { subtree: true, childList: true, characterData: true })
})
const arrivals = []
const draws = []
for (let i = 0; i < runs; i++) {
  await page.keyboard.press(String.fromCharCode(97 + (i % 26)))
  const echo = await (await frame.waitForFunction(() => window.__echo.drawn && window.__echo, null, { polling: 1 })).jsonValue()
  arrivals.push(echo.arrived - echo.key)
  draws.push(echo.drawn - echo.arrived)
}
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(1)
console.log(`echo, keydown to its echo in the frame (frame, workbench, stream.write, PTY, shell, back): p50 ${p50(arrivals)} ms`)
console.log(`echo, stream.write's request from the workbench to the daemon and back: p50 ${p50(await page.evaluate((runs) => window.__writes.slice(-runs), runs))} ms`)
console.log(`echo, arrival to xterm.js's screen: p50 ${p50(draws)} ms`)

// A flood: `yes` for 4 s, then Ctrl+C, until the shell's answer after it shows — how far behind
// the screen runs, so how much output the path holds unshown (the bounded buffers, xterm.js's own).
await page.keyboard.type("clear\n")
await page.keyboard.type("yes flood-line\n")
await new Promise((resolve) => setTimeout(resolve, 4000))
const interrupted = performance.now()
await page.keyboard.press("Control+C")
await page.keyboard.type("echo stopped-$((40+2))\n")
await frame.waitForFunction(() => document.querySelector(".xterm-rows")?.textContent.includes("stopped-42"), null, { polling: 10, timeout: 120_000 })
console.log(`Ctrl+C after 4 s of yes: the shell's next answer shown in ${((performance.now() - interrupted) / 1000).toFixed(2)} s`)
await browser.close()
process.exit(0)
