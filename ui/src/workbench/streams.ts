/**
 * Panes' streams (`cowork.stream.open`): the workbench holds each stream's answer from the daemon
 * (`POST /api/streams`, whose body is the stream) and hands its output to the pane as `stream`
 * events. Backpressure: at most `MAX_UNACKED` bytes are with the frame before it acknowledges them
 * (`stream.ack`), and until then the body is not read; what the frame acknowledged goes on to the
 * daemon (`stream.ack` there too, `REPORT_AT` at a time), which sends at most its window (4 MiB)
 * beyond it and meanwhile stops reading the process's terminal, so a flood (`yes`) waits on
 * itself, never on the workbench. Both are needed: a browser's `fetch` (WebKitGTK's at least)
 * takes a body in as fast as it comes, read or not — the daemon's window is what bounds the page's
 * memory. Input keeps its order: each stream's writes go to the daemon one after another.
 */
import type { Params } from "@/frame/protocol"
import type { PaneEvent } from "@/host/panes"
import * as api from "./api"
import type { StreamWrite } from "./wire/streams"

/**
 * The most output with the frame and not yet acknowledged, per stream. 2 MiB rather than 1: the
 * messages are twice as large and half as many, which costs the frame, the workbench and the
 * browser about 0.5 ms a MiB less each in a flood (BENCHMARKS.md "Streams", session 11). The
 * daemon's window, not this, bounds what the web process holds.
 */
export const MAX_UNACKED = 2 << 20

/**
 * The most output in one `stream` event. The relay joins what the body holds already into one
 * message: the daemon's frames are at most 64 KiB, and one postMessage each was 500+ messages
 * (and as many acknowledgements) a second in a flood. A quarter of the window, so the frame has
 * the next ones while it handles one.
 */
export const MAX_MESSAGE = MAX_UNACKED / 4

/**
 * Whether output is moved into the frame (its own buffer: the relay's joined copy) rather than
 * cloned: in Chromium the frame is another process, where a clone ran ~4× slower than a move.
 */
const moves = true

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

/**
 * How much the frame has acknowledged before it goes on to the daemon, one request at a time: an
 * eighth of the daemon's window, so a flood's reports keep ahead of it (the daemon waits only
 * past 4 MiB unacknowledged), and small output — a keystroke's echo — never waits on one.
 */
export const REPORT_AT = 512 << 10

interface Relay {
  token: string
  abort: AbortController
  unacked: number
  /** Acknowledged by the frame, not yet reported to the daemon. */
  taken: number
  /** Whether a report is on its way to the daemon. */
  reporting: boolean
  resume?: () => void
  /** The last write sent: the next goes after it. */
  writes: Promise<unknown>
}

const relays = new Map<string, Relay>()

type Send = (event: PaneEvent, transfer?: Transferable[]) => void

export async function open(token: string, params: Params<"stream.open">, send: Send) {
  const abort = new AbortController()
  const { id, body } = await api.openStream(token, params, abort.signal)
  const relay: Relay = {
    token,
    abort,
    unacked: 0,
    taken: 0,
    reporting: false,
    writes: Promise.resolve(),
  }
  relays.set(id, relay)
  // After the answer: the frame knows the id before the first output reaches it (it drops output
  // of ids it does not know). A task later, not a microtask: the answer goes out through a chain
  // of microtasks after this returns, and a body holding output already (a shell's prompt)
  // relayed it first — the Terminal then opened blank.
  setTimeout(() => void pump(id, relay, body, send), 0)
  return { id }
}

/** What a read answers when the body holds nothing yet (see `pump`). */
const NOT_YET = Symbol("not yet")

async function pump(id: string, relay: Relay, body: ReadableStream<Uint8Array>, send: Send) {
  const reader = body.getReader()
  const frames = new Frames()
  let end: { code: number | null } = { code: null }
  let endText: Uint8Array[] = []
  // Output not yet sent: views into what the body gave, joined into one buffer when sent.
  let parts: Uint8Array[] = []
  let held = 0
  const flush = () => {
    if (!held) return
    const data = join(parts, held)
    parts = []
    held = 0
    relay.unacked += data.length
    send({ event: "stream", id, data }, moves ? [data.buffer] : undefined)
  }
  let slice = performance.now()
  try {
    for (;;) {
      if (performance.now() - slice > SLICE_MS) {
        flush()
        await nextTask()
        slice = performance.now()
      }
      const read = reader.read()
      // A chunk the body holds already answers at once (it wins the race with a settled
      // promise): it joins the output held. When none is there, what is held goes now — output
      // never waits for more to come (a keystroke's echo).
      let result = held ? await Promise.race([read, Promise.resolve(NOT_YET)]) : await read
      if (result === NOT_YET) {
        flush()
        result = await read
      }
      if (result.done) break
      for (const { kind, piece, last } of frames.feed(result.value)) {
        if (kind === 0) {
          parts.push(piece)
          held += piece.length
        } else {
          endText.push(piece)
          if (last) {
            end = JSON.parse(new TextDecoder().decode(join(endText))) as { code: number | null }
            endText = []
          }
        }
        // One read can hold megabytes (the body ran ahead while the window was full): it goes
        // in messages of at most about MAX_MESSAGE, each within the window.
        if (held >= MAX_MESSAGE) {
          flush()
          while (relay.unacked > MAX_UNACKED) {
            await new Promise<void>((r) => (relay.resume = r))
            // The frame's acknowledgement came in a task: the page ran meanwhile.
            slice = performance.now()
          }
        }
      }
    }
  } catch {
    // Aborted or cut: the stream is over all the same.
  } finally {
    flush()
    relays.delete(id)
    send({ event: "stream", id, end })
  }
}

/**
 * The daemon's frames (a byte of kind, four of length, the payload) read across the body's
 * chunks without copying them: each payload comes out as views into the chunks it spans (a
 * frame split over two reads once cost a copy of the whole next read).
 */
class Frames {
  private header = new Uint8Array(5)
  /** Bytes of the current frame's header so far. */
  private got = 0
  /** Bytes of its payload still to come. */
  private left = 0;

  *feed(chunk: Uint8Array): Generator<{ kind: number; piece: Uint8Array; last: boolean }> {
    let at = 0
    while (at < chunk.length) {
      if (this.got < 5) {
        const n = Math.min(5 - this.got, chunk.length - at)
        this.header.set(chunk.subarray(at, at + n), this.got)
        this.got += n
        at += n
        if (this.got < 5) return
        this.left = new DataView(this.header.buffer).getUint32(1)
      }
      const n = Math.min(this.left, chunk.length - at)
      this.left -= n
      const piece = chunk.subarray(at, at + n)
      at += n
      if (this.left === 0) this.got = 0
      yield { kind: this.header[0], piece, last: this.left === 0 }
    }
  }
}

/** `parts` in one buffer of its own (a move empties only it). */
function join(parts: Uint8Array[], length = parts.reduce((n, part) => n + part.length, 0)) {
  const joined = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    joined.set(part, at)
    at += part.length
  }
  return joined
}

/** The frame of the pane holding `token` took `bytes` of stream `id`'s output. */
export function ack(token: string, id: string, bytes: number) {
  const relay = relays.get(id)
  // Another pane's acknowledgement would open this stream's window to a frame that is not reading.
  if (relay?.token !== token) return null
  // Only what was sent counts: a frame cannot buy the daemon's room ahead.
  const taken = Math.min(Math.max(0, bytes), relay.unacked)
  relay.unacked -= taken
  relay.taken += taken
  report(id, relay)
  if (relay.unacked <= MAX_UNACKED) relay.resume?.()
  return null
}

/** Tells the daemon what the frame took, once there is `REPORT_AT` of it and none is on its way. */
function report(id: string, relay: Relay) {
  if (relay.reporting || relay.taken < REPORT_AT) return
  const bytes = relay.taken
  relay.taken = 0
  relay.reporting = true
  api
    .sdk(relay.token, "stream.ack", { id, bytes })
    // A stream that ended meanwhile answers NotFound: nothing waits on it any more.
    .catch(() => undefined)
    .finally(() => {
      relay.reporting = false
      if (relays.get(id) === relay) report(id, relay)
    })
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
