import { describe, expect, it, vi } from "vitest"

import { CoworkError, type Method, type Params } from "@/frame/protocol"
import type { Pane } from "@/host/panes"
import { connect, settle } from "./harness"

/**
 * A host that keeps the subscriptions it is asked for and answers a refresh by sending the
 * subscription a fresh answer before it resolves, as the workbench's shared loop does.
 */
function fakeLoop(answer: (id: string) => unknown) {
  const subs = new Map<string, Params<"routines.subscribe">>()
  const calls: [Method, unknown][] = []
  async function handler(method: Method, params: unknown, pane: Pane) {
    calls.push([method, params])
    if (method === "routines.subscribe") {
      const request = params as Params<"routines.subscribe">
      subs.set(request.sub, request)
    } else if (method === "routines.unsubscribe") {
      subs.delete((params as Params<"routines.unsubscribe">).sub)
    } else if (method === "routines.refresh") {
      const { sub } = params as Params<"routines.refresh">
      const data = answer(subs.get(sub)!.id)
      pane.send(
        data instanceof Error
          ? { event: "subscription", sub, error: { name: data.name, message: data.message } }
          : { event: "subscription", sub, data },
      )
    }
    return null
  }
  return { subs, calls, handler }
}

describe("routines.subscribe", () => {
  it("asks the host for the routine, its args and an interval of at least 5 s", async () => {
    const loop = fakeLoop(() => null)
    const { cowork } = await connect(loop.handler)
    cowork.routines.subscribe("mail-inbox", { limit: 25 }, { interval: 1, timeoutMs: 20000 })
    cowork.routines.subscribe("mail-count")
    await settle()
    const [first, second] = [...loop.subs.values()]
    expect(first).toMatchObject({
      id: "mail-inbox",
      args: { limit: 25 },
      interval: 5,
      timeoutMs: 20000,
    })
    expect(second).toMatchObject({ id: "mail-count", args: {}, interval: 60 })
    expect(first!.sub).not.toBe(second!.sub)
  })

  it("hands each answer and error to its own subscription's callbacks", async () => {
    const loop = fakeLoop(() => null)
    const { cowork, pane } = await connect(loop.handler)
    const inbox = { onData: vi.fn(), onError: vi.fn() }
    const count = { onData: vi.fn(), onError: vi.fn() }
    cowork.routines.subscribe("mail-inbox", {}, inbox)
    cowork.routines.subscribe("mail-count", {}, count)
    await settle()
    const [inboxSub, countSub] = [...loop.subs.keys()]
    pane.send({ event: "subscription", sub: inboxSub!, data: { messages: [] } })
    pane.send({
      event: "subscription",
      sub: countSub!,
      error: { name: "NotConnected", message: "Connect", runId: "r1" },
    })
    await settle()
    expect(inbox.onData).toHaveBeenCalledWith({ messages: [] })
    expect(inbox.onError).not.toHaveBeenCalled()
    expect(count.onError).toHaveBeenCalledWith(
      expect.objectContaining({ name: "NotConnected", runId: "r1" }),
    )
    expect(count.onError.mock.calls[0]![0]).toBeInstanceOf(Error)
  })

  it("refresh resolves only after the fresh answer reached onData", async () => {
    let version = 0
    const loop = fakeLoop(() => ({ version: ++version }))
    const { cowork } = await connect(loop.handler)
    const seen: unknown[] = []
    const subscription = cowork.routines.subscribe(
      "notes-list",
      {},
      { onData: (data) => seen.push(data) },
    )
    await subscription.refresh()
    expect(seen).toEqual([{ version: 1 }])
    await subscription.refresh()
    expect(seen).toEqual([{ version: 1 }, { version: 2 }])
  })

  it("refresh resolves, not rejects, when the answer is an error", async () => {
    const loop = fakeLoop(() => new CoworkError("NotConnected", "Connect Google"))
    const { cowork } = await connect(loop.handler)
    const onError = vi.fn()
    const subscription = cowork.routines.subscribe("mail-inbox", {}, { onError })
    await expect(subscription.refresh()).resolves.toBeUndefined()
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ name: "NotConnected" }))
  })

  it("a subscribe the host refuses reaches onError", async () => {
    const { cowork } = await connect(async (method) => {
      if (method === "routines.subscribe") throw new CoworkError("NotFound", "no routine mail-x")
      return null
    })
    const onError = vi.fn()
    cowork.routines.subscribe("mail-x", {}, { onError })
    await settle()
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ name: "NotFound" }))
  })

  it("close tells the host once and stops the callbacks", async () => {
    const loop = fakeLoop(() => null)
    const { cowork, pane } = await connect(loop.handler)
    const onData = vi.fn()
    const subscription = cowork.routines.subscribe("notes-list", {}, { onData })
    await settle()
    const [sub] = [...loop.subs.keys()]
    subscription.close()
    subscription.close()
    pane.send({ event: "subscription", sub: sub!, data: 1 })
    await settle()
    expect(onData).not.toHaveBeenCalled()
    expect(loop.calls.filter(([method]) => method === "routines.unsubscribe")).toHaveLength(1)
    await expect(subscription.refresh()).resolves.toBeUndefined()
  })

  it("a reload closes what the old widget left open", async () => {
    const loop = fakeLoop(() => null)
    const { cowork, sdk } = await connect(loop.handler)
    cowork.routines.subscribe("a")
    cowork.routines.subscribe("b")
    await settle()
    expect(loop.subs.size).toBe(2)
    sdk.reset()
    await settle()
    expect(loop.subs.size).toBe(0)
  })
})
