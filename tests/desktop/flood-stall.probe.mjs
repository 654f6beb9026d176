// A probe, not a test (the suite does not run it: no `.test.` in its name): the Terminal's flood
// (`yes`) in the desktop window, 8 s of it watched from the workbench — the longest gap between
// ticks of a MessageChannel + setTimeout loop and between animation frames, and WebDriver's round
// trips — then WebDriver's switch into the flooding Terminal's frame (where the flood test's
// Ctrl+C step hung: "no answer"). Watch the web process's memory beside it (ps): in session 8 it
// grew ~45 MB/s through every flood, to 2–6 GB in the runs that hung. Figures in BENCHMARKS.md
// (Streams). Run it with
//   scripts/test-desktop tests/desktop/flood-stall.probe.mjs
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { cpSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { fileURLToPath } from "node:url"
import { cowork, enterPane, focusWindow, onFreshWorkspace, railTile, skip } from "./desktop.mjs"
import { until } from "./webdriver.mjs"

const demo = fileURLToPath(new URL("../../examples/demo/.cowork/apps/terminal", import.meta.url))
const ARGV = "bash --rcfile .cowork/apps/terminal/bashrc"

describe("the Terminal's flood, watched from the workbench", { skip }, () => {
  const fixture = onFreshWorkspace()
  let session
  before(async () => {
    cpSync(demo, join(fixture.workspace, ".cowork/apps/terminal"), { recursive: true })
    assert.equal(cowork(["consent", "allow", ARGV, "--app", "terminal", "--workspace", fixture.workspace]).status, 0)
    ;({ session } = fixture.app)
  })
  test("a flood of 8 s, then into its frame", async (t) => {
    await session.click(await railTile(session, "Terminal"))
    await enterPane(session, "terminal")
    await until(async () => (await session.execute(`return document.querySelector(".xterm-rows")?.textContent ?? ""`)).match(/[$#]/), { what: "prompt" })
    await session.click(await session.find('[data-testid="terminal"]'))
    focusWindow(fixture.app.pid)
    execFileSync("xdotool", ["type", "--clearmodifiers", "--delay", "5", "yes flood-line"])
    execFileSync("xdotool", ["key", "--clearmodifiers", "Return"])
    await session.switchToFrame(null)
    await session.execute(`
      const p = window.__probe = { mc: 0, raf: 0, ticks: 0, frames: 0 }
      const c = new MessageChannel(); let last = performance.now()
      c.port1.onmessage = () => { const n = performance.now(); p.mc = Math.max(p.mc, n - last); last = n; p.ticks++; if (!p.stop) setTimeout(() => c.port2.postMessage(0), 0) }
      c.port2.postMessage(0)
      let lf = performance.now()
      const f = () => { const n = performance.now(); p.raf = Math.max(p.raf, n - lf); lf = n; p.frames++; if (!p.stop) requestAnimationFrame(f) }
      requestAnimationFrame(f)
      // The Terminal frame's own messages (its acknowledgements): whether its page runs.
      p.acks = 0; p.ackGap = 0; let la = performance.now()
      addEventListener("message", (e) => { if (!e.origin.startsWith("http://terminal-")) return; const n = performance.now(); p.ackGap = Math.max(p.ackGap, n - la); la = n; p.acks++; p.lastAck = n })
      return 1`)
    // PROBE_STARVE=1: the Terminal's frame gets none of the relay's messages (so it acknowledges
    // nothing and the relay stops reading after its window): what the web process holds then is
    // what the body buffers on its own.
    if (process.env.PROBE_STARVE) {
      await session.execute(`Object.defineProperty(document.querySelector('iframe[src^="http://terminal-"]'), "contentWindow", { get: () => ({ postMessage() {} }) }); return 1`)
    }
    const trips = []
    const end = Date.now() + Number(process.env.PROBE_SECONDS ?? 8) * 1000
    while (Date.now() < end) {
      const t0 = Date.now()
      await session.execute("return 1")
      trips.push(Date.now() - t0)
      await new Promise((r) => setTimeout(r, 100))
    }
    const p = await session.execute("window.__probe.stop = true; window.__probe.switchAt = performance.now(); return window.__probe")
    trips.sort((a, b) => a - b)
    t.diagnostic(`PROBE longest gap between ticks ${p.mc.toFixed(0)} ms (${p.ticks} ticks), between frames ${p.raf.toFixed(0)} ms (${p.frames} frames); WebDriver round trip p50 ${trips[trips.length >> 1]} ms, max ${trips.at(-1)} ms (${trips.length}); the Terminal frame's messages ${p.acks}, longest gap ${p.ackGap.toFixed(0)} ms`)
    const switched = await enterPane(session, "terminal").then(() => "switched", (e) => `switch failed: ${e.message.slice(0, 80)}`)
    await session.switchToFrame(null).catch(() => {})
    const after = await session.execute("const p = window.__probe; return { acks: p.acks, since: performance.now() - p.switchAt, lastAck: p.lastAck - p.switchAt }").catch((e) => ({ error: e.message.slice(0, 80) }))
    t.diagnostic(`PROBE ${switched}; then the workbench: ${JSON.stringify(after)}`)
    await enterPane(session, "terminal")
    focusWindow(fixture.app.pid)
    execFileSync("xdotool", ["key", "--clearmodifiers", "ctrl+c"])
  })
})
