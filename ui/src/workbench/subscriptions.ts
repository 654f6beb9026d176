/**
 * The host's half of `cowork.routines.subscribe`: ONE loop per app + routine + args, shared by
 * every pane of the app that asks for it.
 *
 * * A loop runs at once, then every `interval` seconds (the shortest its subscribers asked for),
 *   but only while some pane of its app is visible.
 * * Each subscriber gets an answer only when it differs from the last one it got; one joining a
 *   loop that already answered gets that answer at once.
 * * `NotConnected` pauses the loop until a `refresh()` or until a pane of the app is shown again;
 *   any other error backs off (the interval doubles per failure, up to 10 minutes).
 * * `refresh()` answers from a run that STARTS after the call — even an unchanged answer reaches
 *   the refreshing subscriber — and resolves once that answer was handed over.
 *
 * No DOM and no daemon here: `run` does the work and `send` carries each answer to its pane, so
 * the logic is tested with fake timers.
 */
import { toWireError, type WireError } from "@/frame/protocol"

const MIN_INTERVAL_S = 5
const DEFAULT_INTERVAL_S = 60
const MAX_BACKOFF_S = 600

export type Answer = { data: unknown } | { error: WireError }

/** Runs a routine as the app (through one of its panes' tokens). */
export type RunRoutine = (
  app: string,
  id: string,
  args: unknown,
  timeoutMs?: number,
) => Promise<unknown>

export interface SubscribeRequest {
  sub: string
  id: string
  args: unknown
  interval?: number
  timeoutMs?: number
}

interface Subscriber {
  interval: number
  send(answer: Answer): void
  /** The last answer sent, serialized, so an identical one is not sent again. */
  sent?: string
}

interface Loop {
  key: string
  app: string
  id: string
  args: unknown
  timeoutMs?: number
  subscribers: Map<string, Subscriber>
  last?: { answer: Answer; serialized: string }
  timer?: ReturnType<typeof setTimeout>
  running: boolean
  /** Refreshes waiting for a run that starts after them: who asked, and how to resolve. */
  waiting: { subscriber: string; resolve(): void }[]
  paused: boolean
  failures: number
  /** When the last run finished (ms), the interval counts from there. */
  finishedAt?: number
}

export function createSubscriptions(run: RunRoutine) {
  const loops = new Map<string, Loop>()
  /** Which loop each `paneId/sub` belongs to. */
  const members = new Map<string, string>()
  /** Every pane's visibility, by pane, with its app. */
  const panes = new Map<string, { app: string; visible: boolean }>()

  const appVisible = (app: string) =>
    [...panes.values()].some((pane) => pane.app === app && pane.visible)

  function interval(loop: Loop) {
    const base = Math.min(
      ...[...loop.subscribers.values()].map((subscriber) => subscriber.interval),
    )
    return Math.min(base * 2 ** loop.failures, Math.max(base, MAX_BACKOFF_S))
  }

  /** Sets the loop's next run, or none while it is paused, running, unwatched or hidden. */
  function schedule(loop: Loop) {
    clearTimeout(loop.timer)
    loop.timer = undefined
    if (loop.paused || loop.running || loop.subscribers.size === 0 || !appVisible(loop.app)) return
    const due =
      loop.finishedAt === undefined ? 0 : loop.finishedAt + interval(loop) * 1000 - Date.now()
    loop.timer = setTimeout(() => void start(loop), Math.max(0, due))
  }

  async function start(loop: Loop) {
    clearTimeout(loop.timer)
    loop.running = true
    const forced = loop.waiting
    loop.waiting = []
    let answer: Answer
    try {
      answer = { data: await run(loop.app, loop.id, loop.args, loop.timeoutMs) }
    } catch (error) {
      answer = { error: toWireError(error) }
    }
    loop.running = false
    loop.finishedAt = Date.now()
    if (loops.get(loop.key) !== loop) {
      for (const waiter of forced) waiter.resolve()
      return
    }

    loop.paused = "error" in answer && answer.error.name === "NotConnected"
    loop.failures = "error" in answer && !loop.paused ? loop.failures + 1 : 0
    const serialized = JSON.stringify(answer)
    loop.last = { answer, serialized }
    const force = new Set(forced.map((waiter) => waiter.subscriber))
    for (const [name, subscriber] of loop.subscribers) {
      if (force.has(name) || subscriber.sent !== serialized) deliver(subscriber, loop.last)
    }
    for (const waiter of forced) waiter.resolve()
    // A refresh that came in during the run wants a run of its own.
    if (loop.waiting.length > 0) return void start(loop)
    schedule(loop)
  }

  function deliver(subscriber: Subscriber, last: NonNullable<Loop["last"]>) {
    subscriber.sent = last.serialized
    subscriber.send(last.answer)
  }

  function leave(member: string) {
    const loopKey = members.get(member)
    members.delete(member)
    const loop = loopKey === undefined ? undefined : loops.get(loopKey)
    if (!loop) return
    loop.subscribers.delete(member)
    for (const waiter of loop.waiting.filter((waiter) => waiter.subscriber === member))
      waiter.resolve()
    loop.waiting = loop.waiting.filter((waiter) => waiter.subscriber !== member)
    if (loop.subscribers.size > 0) return schedule(loop)
    clearTimeout(loop.timer)
    loops.delete(loopKey!)
  }

  return {
    /** `paneId`'s subscription `request.sub` joins (or starts) the loop of its app, routine and args. */
    subscribe(
      paneId: string,
      app: string,
      request: SubscribeRequest,
      send: (answer: Answer) => void,
    ) {
      const member = `${paneId}/${request.sub}`
      leave(member)
      const loopKey = `${app}\u0000${request.id}\u0000${stableJson(request.args ?? {})}`
      let loop = loops.get(loopKey)
      if (!loop) {
        loop = {
          key: loopKey,
          app,
          id: request.id,
          args: request.args ?? {},
          timeoutMs: request.timeoutMs,
          subscribers: new Map(),
          running: false,
          waiting: [],
          paused: false,
          failures: 0,
        }
        loops.set(loopKey, loop)
      }
      const subscriber: Subscriber = {
        interval: Math.max(MIN_INTERVAL_S, request.interval ?? DEFAULT_INTERVAL_S),
        send,
      }
      loop.subscribers.set(member, subscriber)
      members.set(member, loopKey)
      if (loop.last) deliver(subscriber, loop.last)
      schedule(loop)
    },

    /** A fresh answer for this subscription; resolves once it was sent. */
    refresh(paneId: string, sub: string): Promise<void> {
      const member = `${paneId}/${sub}`
      const loop = loops.get(members.get(member) ?? "")
      if (!loop) return Promise.resolve()
      return new Promise<void>((resolve) => {
        loop.waiting.push({ subscriber: member, resolve })
        loop.paused = false
        if (!loop.running) void start(loop)
      })
    },

    unsubscribe(paneId: string, sub: string) {
      leave(`${paneId}/${sub}`)
    },

    /** A pane of `app` was shown or hidden; a pane shown again resumes its app's paused loops. */
    visibility(paneId: string, app: string, visible: boolean) {
      const before = panes.get(paneId)?.visible ?? false
      panes.set(paneId, { app, visible })
      for (const loop of loops.values()) {
        if (loop.app !== app) continue
        if (visible && !before) loop.paused = false
        schedule(loop)
      }
    },

    /** The pane is gone (closed, or its frame started over): its subscriptions end. */
    dropPane(paneId: string) {
      for (const member of [...members.keys()]) if (member.startsWith(`${paneId}/`)) leave(member)
      const pane = panes.get(paneId)
      panes.delete(paneId)
      if (pane) for (const loop of loops.values()) if (loop.app === pane.app) schedule(loop)
    },
  }
}

export type Subscriptions = ReturnType<typeof createSubscriptions>

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` name the same loop. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : 1,
    )
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${stableJson(item)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}
