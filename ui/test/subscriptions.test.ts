import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"

import { CoworkError } from "@/frame/protocol"
import { createSubscriptions, stableJson, type Answer } from "@/workbench/subscriptions"

/** A daemon whose routine answers come from `answer`, counting runs per routine. */
function setup(answer: (id: string, n: number) => unknown = (_id, n) => ({ n })) {
  const runs: { app: string; id: string; args: unknown }[] = []
  const run = vi.fn(async (app: string, id: string, args: unknown) => {
    runs.push({ app, id, args })
    const result = answer(id, runs.filter((r) => r.id === id).length)
    if (result instanceof Error) throw result
    return result
  })
  const subs = createSubscriptions(run)
  /** Everything each `pane/sub` received. */
  const got: Record<string, Answer[]> = {}
  const subscribe = (
    pane: string,
    sub: string,
    id: string,
    args: unknown = {},
    interval = 10,
    app = "mail",
  ) =>
    subs.subscribe(pane, app, { sub, id, args, interval }, (a) => {
      got[`${pane}/${sub}`] ??= []
      got[`${pane}/${sub}`].push(a)
    })
  return { subs, runs, got, subscribe }
}

/** Lets the runs that started settle (their promises resolve on microtasks). */
const flush = () => vi.advanceTimersByTimeAsync(0)

beforeEach(() => void vi.useFakeTimers())
afterEach(() => void vi.useRealTimers())

describe("one loop per app, routine and args", () => {
  it("runs now, then every interval, while a pane of the app is visible", async () => {
    const { subs, runs, got, subscribe } = setup()
    subs.visibility("p1", "mail", true)
    subscribe("p1", "s1", "mail-inbox")
    await flush()
    expect(runs).toHaveLength(1)
    expect(got["p1/s1"]).toEqual([{ data: { n: 1 } }])
    await vi.advanceTimersByTimeAsync(9_999)
    expect(runs).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(runs).toHaveLength(2)
    expect(got["p1/s1"]).toEqual([{ data: { n: 1 } }, { data: { n: 2 } }])
  })

  it("panes asking the same routine with the same args share one run", async () => {
    const { subs, runs, got, subscribe } = setup()
    subs.visibility("side", "mail", true)
    subs.visibility("tab", "mail", true)
    subscribe("side", "s1", "mail-inbox", { limit: 25, folder: "INBOX" })
    subscribe("tab", "s9", "mail-inbox", { folder: "INBOX", limit: 25 })
    await flush()
    expect(runs).toHaveLength(1)
    expect(got["side/s1"]).toEqual([{ data: { n: 1 } }])
    expect(got["tab/s9"]).toEqual([{ data: { n: 1 } }])
    // Other args, another app: loops of their own.
    subscribe("tab", "s10", "mail-inbox", { limit: 5 })
    subs.visibility("cal", "calendar", true)
    subscribe("cal", "s1", "mail-inbox", { folder: "INBOX", limit: 25 }, 10, "calendar")
    await flush()
    expect(runs).toHaveLength(3)
  })

  it("a pane subscribing later gets the last answer at once, without a run", async () => {
    const { subs, runs, got, subscribe } = setup()
    subs.visibility("side", "mail", true)
    subscribe("side", "s1", "mail-inbox")
    await flush()
    subscribe("tab", "s1", "mail-inbox")
    expect(got["tab/s1"]).toEqual([{ data: { n: 1 } }])
    await flush()
    expect(runs).toHaveLength(1)
  })

  it("does not re-send an identical answer", async () => {
    const { subs, runs, got, subscribe } = setup(() => ({ same: true }))
    subs.visibility("p", "mail", true)
    subscribe("p", "s", "mail-inbox")
    await vi.advanceTimersByTimeAsync(35_000)
    expect(runs).toHaveLength(4)
    expect(got["p/s"]).toEqual([{ data: { same: true } }])
  })

  it("polls at the shortest interval its subscribers asked for", async () => {
    const { subs, runs, subscribe } = setup()
    subs.visibility("p", "mail", true)
    subscribe("p", "slow", "mail-inbox", {}, 60)
    subscribe("p", "fast", "mail-inbox", {}, 2) // below the minimum: 5 s
    await flush()
    await vi.advanceTimersByTimeAsync(5_000)
    expect(runs).toHaveLength(2)
    subs.unsubscribe("p", "fast")
    await vi.advanceTimersByTimeAsync(30_000)
    expect(runs).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(30_000)
    expect(runs).toHaveLength(3)
  })

  it("stops when the last subscriber leaves or its pane goes", async () => {
    const { subs, runs, subscribe } = setup()
    subs.visibility("p", "mail", true)
    subscribe("p", "a", "mail-inbox")
    subscribe("p", "b", "mail-count")
    await flush()
    subs.unsubscribe("p", "a")
    subs.dropPane("p")
    await vi.advanceTimersByTimeAsync(60_000)
    expect(runs).toHaveLength(2)
  })
})

describe("visibility", () => {
  it("runs only while some pane of the app is on screen, and catches up when shown", async () => {
    const { subs, runs, subscribe } = setup()
    subs.visibility("side", "mail", true)
    subscribe("side", "s", "mail-inbox")
    await flush()
    subs.visibility("side", "mail", false)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(runs).toHaveLength(1)
    // Another pane of the same app keeps the loop going, even one that never subscribed.
    subs.visibility("tab", "mail", true)
    await flush()
    expect(runs).toHaveLength(2)
    // Another app's pane does not.
    subs.visibility("tab", "mail", false)
    subs.visibility("cal", "calendar", true)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(runs).toHaveLength(2)
  })

  it("a subscription from a hidden app waits until it is shown", async () => {
    const { subs, runs, subscribe } = setup()
    subscribe("p", "s", "mail-inbox")
    await vi.advanceTimersByTimeAsync(60_000)
    expect(runs).toHaveLength(0)
    subs.visibility("p", "mail", true)
    await flush()
    expect(runs).toHaveLength(1)
  })
})

describe("errors", () => {
  it("NotConnected pauses the loop until a pane of the app is shown again", async () => {
    let connected = false
    const { subs, runs, got, subscribe } = setup((_id, n) =>
      connected ? { n } : new CoworkError("NotConnected", "Connect Google", "run-1"),
    )
    subs.visibility("side", "mail", true)
    subscribe("side", "s", "mail-inbox")
    await flush()
    expect(got["side/s"]).toEqual([
      { error: { name: "NotConnected", message: "Connect Google", runId: "run-1" } },
    ])
    await vi.advanceTimersByTimeAsync(120_000)
    expect(runs).toHaveLength(1)
    connected = true
    // Still shown (another pane going visible and hidden changes nothing for this one)…
    subs.visibility("side", "mail", true)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(runs).toHaveLength(1)
    // …shown AGAIN: the user came back.
    subs.visibility("side", "mail", false)
    subs.visibility("side", "mail", true)
    await flush()
    expect(runs).toHaveLength(2)
    expect(got["side/s"]!.at(-1)).toEqual({ data: { n: 2 } })
  })

  it("NotConnected pauses until refresh()", async () => {
    let connected = false
    const { subs, runs, got, subscribe } = setup((_id, n) =>
      connected ? { n } : new CoworkError("NotConnected", "Connect"),
    )
    subs.visibility("p", "mail", true)
    subscribe("p", "s", "mail-inbox")
    await flush()
    connected = true
    await subs.refresh("p", "s")
    expect(runs).toHaveLength(2)
    expect(got["p/s"]!.at(-1)).toEqual({ data: { n: 2 } })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(runs).toHaveLength(3)
  })

  it("other errors back off: the interval doubles per failure, up to 10 minutes, and resets on success", async () => {
    let failing = true
    const { subs, runs, subscribe } = setup((_id, n) =>
      failing ? new CoworkError("RateLimited", "busy") : { n },
    )
    subs.visibility("p", "mail", true)
    subscribe("p", "s", "mail-inbox", {}, 60)
    await flush() // run 1 fails: next in 120 s
    const times: number[] = []
    const start = Date.now()
    while (runs.length < 7) {
      const before = runs.length
      await vi.advanceTimersByTimeAsync(1_000)
      if (runs.length > before) times.push((Date.now() - start) / 1000)
    }
    // 120, 240, 480, then capped at 600.
    expect(times).toEqual([120, 360, 840, 1440, 2040, 2640])
    failing = false
    await vi.advanceTimersByTimeAsync(600_000)
    const okAt = runs.length
    await vi.advanceTimersByTimeAsync(60_000)
    expect(runs.length).toBe(okAt + 1)
  })
})

describe("refresh", () => {
  it("answers from a run that starts after the call, even when the answer is unchanged", async () => {
    const { subs, runs, got, subscribe } = setup(() => ({ same: true }))
    subs.visibility("p", "mail", true)
    subscribe("p", "a", "mail-inbox")
    subscribe("q", "b", "mail-inbox")
    await flush()
    await subs.refresh("p", "a")
    expect(runs).toHaveLength(2)
    // The refreshing subscription got it again; the other one did not (nothing changed).
    expect(got["p/a"]).toHaveLength(2)
    expect(got["q/b"]).toHaveLength(1)
  })

  it("a refresh during a run waits for the next run", async () => {
    let release!: () => void
    let n = 0
    const run = vi.fn(() => {
      n++
      return n === 1
        ? new Promise((resolve) => (release = () => resolve({ n: 1 })))
        : Promise.resolve({ n })
    })
    const subs = createSubscriptions(run)
    const got: unknown[] = []
    subs.visibility("p", "mail", true)
    subs.subscribe("p", "mail", { sub: "s", id: "mail-inbox", args: {} }, (a) => got.push(a))
    await flush()
    let resolved = false
    const refreshed = subs.refresh("p", "s").then(() => (resolved = true))
    release()
    await flush()
    expect(run).toHaveBeenCalledTimes(2)
    await refreshed
    expect(resolved).toBe(true)
    expect(got).toEqual([{ data: { n: 1 } }, { data: { n: 2 } }])
  })

  it("resolves at once for a subscription that is gone", async () => {
    const { subs } = setup()
    await expect(subs.refresh("p", "nope")).resolves.toBeUndefined()
  })
})

it("names loops by args whatever their key order", () => {
  expect(stableJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe(
    stableJson({ a: null, b: [1, { c: 2, d: 1 }] }),
  )
})
