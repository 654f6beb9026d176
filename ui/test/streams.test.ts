/**
 * The workbench's relay of a pane's stream (src/workbench/streams.ts): the frame learns the
 * stream's id before any of its output, even when the daemon's answer arrives with output already
 * in its body (a shell's prompt is often there at once) — the frame drops output of ids it does
 * not know, so output relayed first was lost, and the Terminal opened blank.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import * as api from "../src/workbench/api"
import * as streams from "../src/workbench/streams"

function framed(kind: number, text: string) {
  const payload = new TextEncoder().encode(text)
  const frame = new Uint8Array(5 + payload.length)
  frame[0] = kind
  new DataView(frame.buffer).setUint32(1, payload.length)
  frame.set(payload, 5)
  return frame
}

// The relay tells the daemon what the frame acknowledged: answered here as the daemon would.
beforeEach(() => {
  vi.spyOn(api, "sdk").mockResolvedValue(null)
})
afterEach(() => vi.restoreAllMocks())

describe("the workbench's stream relay", () => {
  it("answers stream.open before it relays the stream's first output", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(framed(0, "prompt$ "))
        controller.enqueue(framed(1, '{"code":0}'))
        controller.close()
      },
    })
    vi.spyOn(api, "openStream").mockResolvedValue({ id: "s1", body })
    const order: string[] = []
    // As the pane host runs a call: the handler's promise, then its answer to the frame.
    await new Promise<void>((done) => {
      Promise.resolve()
        .then(() =>
          streams.open("token", { argv: ["sh"] }, (event) => {
            order.push("data" in event ? "output" : "end")
            if (!("data" in event)) done()
          }),
        )
        .then(() => order.push("answer"))
    })
    expect(order).toEqual(["answer", "output", "end"])
  })

  it("joins the output the body holds into one message with a buffer of its own, moved into the frame", async () => {
    // Three frames in one read, then one more read: one message each time, not one per frame.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(
          new Uint8Array([...framed(0, "one"), ...framed(0, "two"), ...framed(0, "three")]),
        )
        controller.enqueue(framed(0, "four"))
        controller.enqueue(framed(1, '{"code":0}'))
        controller.close()
      },
    })
    vi.spyOn(api, "openStream").mockResolvedValue({ id: "s2", body })
    const sent: { text: string; own: boolean; moved: boolean }[] = []
    await new Promise<void>((done) => {
      void streams.open("token", { argv: ["sh"] }, (event, transfer) => {
        if (!("data" in event)) return done()
        const data = event.data as Uint8Array
        sent.push({
          text: new TextDecoder().decode(data),
          own: data.byteOffset === 0 && data.buffer.byteLength === data.length,
          moved: transfer?.length === 1 && transfer[0] === data.buffer,
        })
        // What postMessage does to a moved buffer: the relay must not read it again.
        if (transfer) structuredClone(null, { transfer })
      })
    })
    expect(sent.map((s) => s.text).join("")).toBe("onetwothreefour")
    expect(sent.length).toBeLessThanOrEqual(2)
    for (const s of sent) expect(s.own && s.moved).toBe(true)
  })

  it("sends a large read in messages of about MAX_MESSAGE, never more than the window unacknowledged", async () => {
    // 40 frames of 64 KiB in one read (the body ran ahead while the frame was busy).
    const chunk = "x".repeat(65536)
    const frames = Array.from({ length: 40 }, () => framed(0, chunk))
    const all = new Uint8Array(frames.reduce((n, f) => n + f.length, 0))
    let at = 0
    for (const f of frames) {
      all.set(f, at)
      at += f.length
    }
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(all)
        controller.enqueue(framed(1, '{"code":0}'))
        controller.close()
      },
    })
    vi.spyOn(api, "openStream").mockResolvedValue({ id: "s3", body })
    const sizes: number[] = []
    let unacked = 0
    let most = 0
    await new Promise<void>((done) => {
      void streams.open("token", { argv: ["sh"] }, (event) => {
        if (!("data" in event)) return done()
        const size = (event.data as Uint8Array).length
        sizes.push(size)
        unacked += size
        most = Math.max(most, unacked)
        // The frame acknowledges a task later, as postMessage would.
        setTimeout(() => {
          unacked -= size
          streams.ack("token", "s3", size)
        }, 0)
      })
    })
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(40 * 65536)
    for (const size of sizes) expect(size).toBeLessThanOrEqual(streams.MAX_MESSAGE + 65536)
    expect(most).toBeLessThanOrEqual(streams.MAX_UNACKED + streams.MAX_MESSAGE + 65536)
  })

  it("reads frames split anywhere across the body's chunks", async () => {
    // Every frame cut at every byte: the output and the end come out whole all the same.
    const all = new Uint8Array([
      ...framed(0, "hello "),
      ...framed(0, ""),
      ...framed(0, "world"),
      ...framed(1, '{"code":3}'),
    ])
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of all) controller.enqueue(new Uint8Array([byte]))
        controller.close()
      },
    })
    vi.spyOn(api, "openStream").mockResolvedValue({ id: "s4", body })
    let text = ""
    const end = await new Promise((done) => {
      void streams.open("token", { argv: ["sh"] }, (event) => {
        if ("data" in event) text += new TextDecoder().decode(event.data as Uint8Array)
        else if ("end" in event) done(event.end)
      })
    })
    expect(text).toBe("hello world")
    expect(end).toEqual({ code: 3 })
  })
  it("lets the page run while it relays a body that holds a flood already", async () => {
    // 200 reads of 64 KiB each, all there at once, and a frame that acknowledges at once: the
    // window never stops the relay, and every read answers as a microtask. Each message costs
    // about a millisecond (a postMessage under load). A task queued when the first output comes
    // (input, drawing, WebDriver in WebKitGTK) must run long before the flood is through.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 200; i++) controller.enqueue(framed(0, "y".repeat(65536)))
        controller.enqueue(framed(1, '{"code":0}'))
        controller.close()
      },
    })
    vi.spyOn(api, "openStream").mockResolvedValue({ id: "s5", body })
    let sent = 0
    let sentBeforeTask: number | undefined
    const total = await new Promise<number>((done) => {
      void streams.open("token", { argv: ["sh"] }, (event) => {
        if (!("data" in event)) return done(sent)
        if (sent++ === 0) setTimeout(() => (sentBeforeTask = sent), 0)
        const busy = performance.now() + 1
        while (performance.now() < busy) {}
        streams.ack("token", "s5", (event.data as Uint8Array).length)
      })
    })
    expect(sentBeforeTask).toBeDefined()
    expect(sentBeforeTask).toBeLessThan(total / 2)
  })

  it("takes a stream's acknowledgements only from the pane that opened it", async () => {
    // 3 MiB in 64 KiB frames: the window (2 MiB) stops the relay until the frame acknowledges.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 48; i++) controller.enqueue(framed(0, "w".repeat(65536)))
      },
    })
    vi.spyOn(api, "openStream").mockResolvedValue({ id: "s8", body })
    let received = 0
    void streams.open("token", { argv: ["sh"] }, (event) => {
      if ("data" in event) received += (event.data as Uint8Array).length
    })
    await expect.poll(() => received).toBeGreaterThan(streams.MAX_UNACKED)
    await new Promise((r) => setTimeout(r, 50))
    const stopped = received
    expect(stopped).toBeLessThan(48 * 65536)
    // Another pane's frame acknowledges all of it: nothing more comes, nothing is reported.
    streams.ack("another pane's token", "s8", stopped)
    await new Promise((r) => setTimeout(r, 50))
    expect(received).toBe(stopped)
    expect(api.sdk).not.toHaveBeenCalled()
    // Its own frame's does.
    streams.ack("token", "s8", stopped)
    await expect.poll(() => received).toBe(48 * 65536)
    expect(api.sdk).toHaveBeenCalledWith("token", "stream.ack", { id: "s8", bytes: stopped })
  })

  it("tells the daemon what the frame acknowledged, REPORT_AT at a time, one report on its way", async () => {
    // 2.5 MiB in 64 KiB frames, the stream left open; the frame acknowledges each message a task
    // later; each report takes the daemon 5 ms to answer.
    let controller!: ReadableStreamDefaultController<Uint8Array>
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c
        for (let i = 0; i < 40; i++) c.enqueue(framed(0, "z".repeat(65536)))
      },
    })
    vi.spyOn(api, "openStream").mockResolvedValue({ id: "s6", body })
    const total = 40 * 65536
    let reported = 0
    let onTheirWay = 0
    let most = 0
    vi.spyOn(api, "sdk").mockImplementation(async (token, method, params) => {
      const { id, bytes } = params as { id: string; bytes: number }
      expect([token, method, id]).toEqual(["token", "stream.ack", "s6"])
      expect(bytes).toBeGreaterThanOrEqual(streams.REPORT_AT)
      reported += bytes
      most = Math.max(most, ++onTheirWay)
      await new Promise((r) => setTimeout(r, 5))
      onTheirWay--
      return null
    })
    let received = 0
    let acknowledging = true
    const ended = new Promise<void>((done) => {
      void streams.open("token", { argv: ["sh"] }, (event) => {
        if (!("data" in event)) return done()
        const size = (event.data as Uint8Array).length
        received += size
        if (acknowledging) setTimeout(() => streams.ack("token", "s6", size), 0)
      })
    })
    // While the stream is open, all it took but less than REPORT_AT reaches the daemon.
    await expect.poll(() => received).toBe(total)
    await expect.poll(() => onTheirWay === 0 && total - reported < streams.REPORT_AT).toBe(true)
    expect(most).toBe(1)
    expect(reported).toBeLessThanOrEqual(total)
    // Half a MiB more that the frame holds unacknowledged; then it acknowledges far more than was
    // sent: the daemon hears of everything sent, and no more.
    acknowledging = false
    for (let i = 0; i < 8; i++) controller.enqueue(framed(0, "z".repeat(65536)))
    await expect.poll(() => received).toBe(total + 8 * 65536)
    streams.ack("token", "s6", 1 << 30)
    await expect.poll(() => reported).toBe(total + 8 * 65536)
    controller.enqueue(framed(1, '{"code":0}'))
    controller.close()
    await ended
    expect(reported).toBe(total + 8 * 65536)
  })
})
