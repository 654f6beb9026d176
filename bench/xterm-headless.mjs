// A headless xterm.js (`@xterm/headless`, a devDependency of bench/: the parser and buffer, no
// renderer) for the stream benches, evaluated in a page or a widget's frame (it is not on the
// widget import allowlist, so it is brought in from here): `window.XtermHeadless` there.
import { readFileSync } from "node:fs"

const lib = new URL("node_modules/@xterm/headless/lib-headless/xterm-headless.js", import.meta.url)

/** Evaluates the lib in `target` (a Playwright page or frame). */
export function injectHeadless(target) {
  // A newline before the tail: the lib ends with a source-map comment.
  return target.evaluate(`(() => { const exports = {}; ${readFileSync(lib, "utf8")}\n; window.XtermHeadless = exports })()`)
}

/**
 * Seconds a headless xterm.js in `target` takes to parse `mib` MiB of `x` in 64 KiB writes: all
 * written at once, or (`perTask`) each written in a task of its own (a MessageChannel message) once
 * the one before is parsed — xterm.js's write buffer goes on in a `setTimeout` after 12 ms of
 * parsing, which browsers clamp to 4 ms once nested five deep, so a buffer that never empties
 * idles about a quarter of the time.
 */
export function parseAlone(target, mib, { perTask = false } = {}) {
  return target.evaluate(async ([mib, perTask]) => {
    const term = new window.XtermHeadless.Terminal({ cols: 160, rows: 45, scrollback: 5000 })
    const chunk = new Uint8Array(65536).fill(120)
    const started = performance.now()
    if (perTask) {
      const channel = new MessageChannel()
      let left = mib * 16
      await new Promise((done) => {
        channel.port1.onmessage = () => (left-- ? term.write(chunk, () => channel.port2.postMessage(null)) : done())
        channel.port2.postMessage(null)
      })
    } else {
      for (let i = 0; i < mib * 16; i++) term.write(chunk)
    }
    await new Promise((resolve) => term.write("\r\nend", resolve))
    term.dispose()
    return (performance.now() - started) / 1000
  }, [mib, perTask])
}

/**
 * Where a headless xterm.js's time goes while it is fed (`window.bench.term` in `target`): its
 * write buffer's parse slices (`_innerWrite`, a private of @xterm/headless 6 — a diagnostic
 * only), the gaps between them while output was queued (its `setTimeout` chain: nested five deep
 * it is clamped to 4 ms) and the gaps while none was — the frame's thread handling arrivals,
 * collecting garbage or off its core as often as the path starving it (BENCHMARKS.md "Streams",
 * session 11). Answers `stop()`, which gives { parse, queued, waiting, slices } in ms.
 */
export async function traceWrites(target) {
  await target.evaluate(() => {
    const buffer = window.bench.term._core._writeBuffer
    const inner = buffer._innerWrite
    const slices = []
    buffer._innerWrite = function (...args) {
      const start = performance.now()
      const result = inner.apply(this, args)
      slices.push([start, performance.now(), this._writeBuffer.length > this._bufferOffset])
      return result
    }
    window.benchTrace = () => {
      buffer._innerWrite = inner
      const t = { parse: 0, queued: 0, waiting: 0, slices: slices.length }
      slices.forEach(([start, end, more], i) => {
        t.parse += end - start
        const next = slices[i + 1]
        if (next) t[more ? "queued" : "waiting"] += next[0] - end
      })
      return t
    }
  })
  return () => target.evaluate(() => window.benchTrace())
}
