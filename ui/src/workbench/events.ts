/**
 * The daemon's event stream. `EventSource` cannot send the bearer header, so the stream is a
 * `fetch` read here: server-sent events, one JSON object per `data:` block.
 */
import * as api from "./api"

/** Reconnects start after this and double up to the cap. */
const RETRY_MS = 1000
const MAX_RETRY_MS = 30_000

/** Splits server-sent-event text into the JSON of each event; keeps an unfinished event for later. */
export function sseParser(onEvent: (event: unknown) => void) {
  let buffer = ""
  return (chunk: string) => {
    buffer += chunk.replace(/\r\n?/g, "\n")
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n")
      if (!data) continue
      try {
        onEvent(JSON.parse(data))
      } catch (error) {
        console.error("cowork: an event that is not JSON", data, error)
      }
    }
  }
}

/**
 * Follows `/api/events` until `signal` aborts, reconnecting with backoff; `onOpen` runs on every
 * (re)connect, so the caller reloads what it may have missed while the stream was down.
 */
export async function follow(
  workspace: string,
  signal: AbortSignal,
  onEvent: (event: api.DaemonEvent) => void,
  onOpen: () => void,
) {
  let retry = RETRY_MS
  while (!signal.aborted) {
    try {
      const body = await api.events(workspace, signal)
      retry = RETRY_MS
      onOpen()
      const parse = sseParser((event) => onEvent(event as api.DaemonEvent))
      const reader = body.pipeThrough(new TextDecoderStream()).getReader()
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        parse(value)
      }
    } catch (error) {
      if (signal.aborted) return
      console.warn("cowork: the event stream dropped; reconnecting", error)
    }
    await new Promise((resolve) => setTimeout(resolve, retry))
    retry = Math.min(retry * 2, MAX_RETRY_MS)
  }
}
