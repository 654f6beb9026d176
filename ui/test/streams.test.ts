/**
 * The workbench's relay of a pane's stream (src/workbench/streams.ts): the frame learns the
 * stream's id before any of its output, even when the daemon's answer arrives with output already
 * in its body (a shell's prompt is often there at once) — the frame drops output of ids it does
 * not know, so output relayed first was lost, and the Terminal opened blank.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
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
})
