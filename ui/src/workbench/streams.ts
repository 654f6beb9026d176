/**
 * Panes' streams (`cowork.stream.open`): the workbench holds each stream's answer from the daemon
 * (`POST /api/streams`, whose body is the stream) and hands its output to the pane as `stream`
 * events. Backpressure: at most `MAX_UNACKED` bytes are with the frame before it acknowledges them
 * (`stream.ack`); until then the body is not read, so the daemon stops reading the process's
 * terminal and a flood (`yes`) waits on itself, never on the workbench. Input keeps its order:
 * each stream's writes go to the daemon one after another.
 */
import type { Params } from "@/frame/protocol"
import type { PaneEvent } from "@/host/panes"
import * as api from "./api"
import type { StreamWrite } from "./wire/streams"

/** The most output with the frame and not yet acknowledged, per stream. */
export const MAX_UNACKED = 1 << 20

/**
 * The longest the pump works before it lets the page run. In WebKitGTK the workbench, every pane's
 * frame and their xterm.js share one web process's main thread, and a read of a body that holds
 * output already answers as a microtask: in a flood (`yes`) the pump could run read after read
 * with no task boundary — no input, no drawing, no WebDriver — until the window filled.
 */
export const SLICE_MS = 4

/**
 * A promise settled in a task of its own (a MessageChannel's message): input, drawing, timers and
 * the frames' messages queued meanwhile run first. Not a microtask (it runs before all of those),
 * nor `setTimeout`, which browsers clamp to 4 ms once nested.
 */
function nextTask() {
  return new Promise<void>((resolve) => {
    const channel = new MessageChannel()
    channel.port1.onmessage = () => {
      channel.port1.close()
      resolve()
    }
    channel.port2.postMessage(null)
  })
}

interface Relay {
  token: string
  abort: AbortController
  unacked: number
  resume?: () => void
  /** The last write sent: the next goes after it. */
  writes: Promise<unknown>
}

const relays = new Map<string, Relay>()

type Send = (event: PaneEvent) => void

export async function open(token: string, params: Params<"stream.open">, send: Send) {
  const abort = new AbortController()
  const { id, body } = await api.openStream(token, params, abort.signal)
  const relay: Relay = { token, abort, unacked: 0, writes: Promise.resolve() }
  relays.set(id, relay)
  // After the answer: the frame knows the id before the first output reaches it (it drops output
  // of ids it does not know). A task later, not a microtask: the answer goes out through a chain
  // of microtasks after this returns, and a body holding output already (a shell's prompt)
  // relayed it first — the Terminal then opened blank.
  setTimeout(() => void pump(id, relay, body, send), 0)
  return { id }
}

async function pump(id: string, relay: Relay, body: ReadableStream<Uint8Array>, send: Send) {
  const reader = body.getReader()
  let pending: Uint8Array<ArrayBufferLike> = new Uint8Array(0)
  let end: { code: number | null } = { code: null }
  let slice = performance.now()
  try {
    for (;;) {
      if (performance.now() - slice > SLICE_MS) {
        await nextTask()
        slice = performance.now()
      }
      const { done, value } = await reader.read()
      if (done) break
      pending = pending.length ? concat(pending, value) : value
      let at = 0
      while (pending.length - at >= 5) {
        const view = new DataView(pending.buffer, pending.byteOffset + at)
        const length = view.getUint32(1)
        if (pending.length - at - 5 < length) break
        const payload = new Uint8Array(pending.subarray(at + 5, at + 5 + length))
        if (pending[at] === 0) {
          relay.unacked += payload.length
          send({ event: "stream", id, data: payload })
        } else {
          end = JSON.parse(new TextDecoder().decode(payload)) as { code: number | null }
        }
        at += 5 + length
      }
      pending = pending.subarray(at)
      while (relay.unacked > MAX_UNACKED) {
        await new Promise<void>((r) => (relay.resume = r))
        // The frame's acknowledgement came in a task: the page ran meanwhile.
        slice = performance.now()
      }
    }
  } catch {
    // Aborted or cut: the stream is over all the same.
  } finally {
    relays.delete(id)
    send({ event: "stream", id, end })
  }
}

function concat(a: Uint8Array, b: Uint8Array) {
  const joined = new Uint8Array(a.length + b.length)
  joined.set(a)
  joined.set(b, a.length)
  return joined
}

export function ack(id: string, bytes: number) {
  const relay = relays.get(id)
  if (!relay) return null
  relay.unacked = Math.max(0, relay.unacked - bytes)
  if (relay.unacked <= MAX_UNACKED) relay.resume?.()
  return null
}

export function write(token: string, params: StreamWrite) {
  const relay = relays.get(params.id)
  if (!relay) return api.sdk(token, "stream.write", params)
  const sent = relay.writes
    .catch(() => undefined)
    .then(() => api.sdk(token, "stream.write", params))
  relay.writes = sent
  return sent
}
