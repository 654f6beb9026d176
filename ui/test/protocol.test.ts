import { describe, expect, it, vi } from "vitest"

import { CoworkError, type Method } from "@/frame/protocol"
import { connect, settle } from "./harness"

describe("init", () => {
  it("answers the frame's ready with the pane's snapshot", async () => {
    const { inits, cowork, iframe } = await connect(async () => null, {
      state: { count: 2 },
      openedFile: {
        path: "/work/space/a.note.json",
        workspaceRelativePath: "a.note.json",
        basename: "a.note.json",
        ext: ".json",
        matchedGlob: "**/*.note.json",
      },
    })
    expect(iframe.setAttribute).toHaveBeenCalledWith("sandbox", "allow-scripts allow-forms")
    expect(inits).toHaveLength(1)
    expect(inits[0]).toMatchObject({
      app: "notes",
      paneId: "notes:sidebar",
      view: "sidebar",
      theme: "light",
    })
    expect(cowork.state.get()).toEqual({ count: 2 })
    expect(cowork.openedFile?.workspaceRelativePath).toBe("a.note.json")
    expect(cowork.workspaceRoot).toBe("/work/space")
  })

  it("gives a frame that starts over the state, theme and code it had last", async () => {
    const onReset = vi.fn()
    const { cowork, pane, inits, ready } = await connect(async () => null, { onReset })
    await cowork.state.set({ count: 7 })
    pane.send({ event: "theme", theme: "dark" })
    pane.send({
      event: "reload",
      widget: { file: "widgets/test.jsx", code: "/* v2 */", imports: [] },
      css: "/* v2 */",
    })
    ready()
    await settle()
    expect(onReset).toHaveBeenCalledWith(pane)
    expect(inits[1]).toMatchObject({
      theme: "dark",
      state: { count: 7 },
      widget: { code: "/* v2 */" },
    })
  })
})

describe("requests", () => {
  it("reach the handler with the pane and resolve with its result", async () => {
    const handler = vi.fn(async (method: Method, params: unknown, _pane: unknown) => ({
      method,
      params,
    }))
    const { cowork, pane } = await connect(handler)
    await expect(
      cowork.routines.run("notes-list", { limit: 5 }, { timeoutMs: 9000 }),
    ).resolves.toEqual({
      method: "routines.run",
      params: { id: "notes-list", args: { limit: 5 }, timeoutMs: 9000 },
    })
    expect(handler.mock.calls[0]![2]).toBe(pane)
  })

  it("reject with the routine's error name and run", async () => {
    const { cowork } = await connect(async () => {
      throw new CoworkError("NotConnected", "Connect Google first", "run-42")
    })
    const error = await cowork.routines.run("mail-inbox").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({
      name: "NotConnected",
      message: "Connect Google first",
      runId: "run-42",
    })
  })

  it("reject a plain thrown value as an Error", async () => {
    const { cowork } = await connect(async () => {
      throw "boom"
    })
    await expect(cowork.credentials.get("google")).rejects.toMatchObject({
      name: "Error",
      message: "boom",
    })
  })

  it("keep state.set's value for the frame and the host", async () => {
    const handler = vi.fn(async () => null)
    const { cowork, pane } = await connect(handler)
    await cowork.state.set({ items: [1, 2] })
    expect(cowork.state.get()).toEqual({ items: [1, 2] })
    expect(pane.state).toEqual({ items: [1, 2] })
    expect(handler).toHaveBeenCalledWith("state.set", { value: { items: [1, 2] } }, pane)
  })

  it("take back a state.set the daemon refused (too big), for the frame and the host", async () => {
    const { cowork, pane } = await connect(async (_method, params) => {
      if (JSON.stringify(params).length > 100)
        throw { name: "BadRequest", message: "cowork.state holds at most 256 KB per view" }
      return null
    })
    await cowork.state.set({ count: 1 })
    await expect(cowork.state.set({ blob: "x".repeat(200) })).rejects.toMatchObject({
      name: "BadRequest",
    })
    expect(cowork.state.get()).toEqual({ count: 1 })
    expect(pane.state).toEqual({ count: 1 })
  })

  it("name the SDK member as the method", async () => {
    const calls: [string, unknown][] = []
    const { cowork } = await connect(async (method, params) => {
      calls.push([method, params])
      return method === "ui.dialog" ? { label: "Delete", values: {} } : null
    })
    await cowork.notify({ title: "Notes: saved" })
    await cowork.badge(3)
    await cowork.openFile("notes/a.md")
    await cowork.app.post({ type: "changed", id: 1 })
    await cowork.log("saved", { id: 1 }, new TypeError("bad"))
    await cowork.agent.select("some text")
    await cowork.statusBar.click("standup")
    const confirmed = await cowork.ui.confirm({
      title: "Delete?",
      confirmLabel: "Delete",
      destructive: true,
    })
    expect(confirmed).toBe(true)
    expect(calls).toEqual([
      ["notify", { title: "Notes: saved" }],
      ["badge", { count: 3 }],
      ["openFile", { path: "notes/a.md" }],
      ["app.post", { message: { type: "changed", id: 1 } }],
      ["log", { level: "info", parts: ["saved", '{"id":1}', "TypeError: bad"] }],
      ["agent.select", { text: "some text" }],
      ["statusBar.click", { app: "standup" }],
      [
        "ui.dialog",
        {
          message: "Delete?",
          buttons: [
            { label: "Cancel", role: "cancel" },
            { label: "Delete", role: "submit", primary: true, destructive: true },
          ],
        },
      ],
    ])
  })

  it("answer an unknown method NotFound without asking the handler", async () => {
    const handler = vi.fn(async () => null)
    const { client } = await connect(handler)
    const call = client.request("fs.read" as Method, {} as never)
    await expect(call).rejects.toMatchObject({
      name: "NotFound",
      message: 'cowork has no method "fs.read"',
    })
    expect(handler).not.toHaveBeenCalled()
  })

  it("fail at the frame for a value postMessage cannot clone", async () => {
    const { cowork } = await connect(async () => null)
    await expect(cowork.state.set({ f: () => 1 })).rejects.toThrow()
  })
})

describe("members the frame answers or forwards as they are", () => {
  it("browser.open and browser.status ask the workbench, which knows whether the desktop app's browser is there", async () => {
    const handler = vi.fn(async (method: Method, _params: unknown) =>
      method === "browser.open" ? { embedded: true } : null,
    )
    const { cowork } = await connect(handler)
    await expect(cowork.browser.open("https://example.com/")).resolves.toEqual({ embedded: true })
    await expect(cowork.browser.status()).resolves.toBeNull()
    expect(handler.mock.calls.map(([method, params]) => [method, params])).toEqual([
      ["browser.open", { url: "https://example.com/" }],
      ["browser.status", {}],
    ])
  })

  it("capture rejects Unsupported outside the desktop app", async () => {
    const handler = vi.fn(async () => null)
    const { cowork } = await connect(handler)
    await expect(cowork.capture.record({ video: "screen" })).rejects.toMatchObject({
      name: "Unsupported",
    })
    await expect(cowork.capture.shot()).rejects.toMatchObject({ name: "Unsupported" })
    await expect(cowork.capture.current()).resolves.toBeNull()
    expect(handler).not.toHaveBeenCalled()
  })

  it("tables, queue and journal ask the daemon through the workbench", async () => {
    const handler = vi.fn(async (method: Method, _params: unknown) =>
      method === "queue" ? { id: 1 } : { rows: [] },
    )
    const { cowork } = await connect(handler)
    await expect(cowork.queue.send("tasks", { body: "x", to: "claude" })).resolves.toEqual({
      id: 1,
    })
    await cowork.queue.tasks({ view: "needs_you" })
    await cowork.journal.add({ skill: "s", text: "t" })
    await expect(cowork.tables.query({ db: "a.db", sql: "select 1" })).resolves.toEqual({
      rows: [],
    })
    expect(handler.mock.calls.map(([method, params]) => [method, params])).toEqual([
      ["queue", { method: "send", queue: "tasks", body: "x", options: { to: "claude" } }],
      ["queue", { method: "tasks", queue: undefined, query: { view: "needs_you" } }],
      ["queue", { method: "journalAdd", entry: { skill: "s", text: "t" } }],
      ["tables.query", { db: "a.db", sql: "select 1" }],
    ])
  })

  it("stream.open hands the output to onData, acknowledges it, and ends with the exit code", async () => {
    const handler = vi.fn(async (method: Method, _params: unknown) =>
      method === "stream.open" ? { id: "s1" } : null,
    )
    const { cowork, pane } = await connect(handler)
    const chunks: string[] = []
    const ends: unknown[] = []
    const stream = await cowork.stream.open({
      argv: ["sh"],
      consent: "ticket",
      cols: 100,
      rows: 30,
      onData: (chunk) => chunks.push(new TextDecoder().decode(chunk)),
      onEnd: (end) => ends.push(end),
    })
    stream.write("ls\r")
    stream.resize(120, 40)
    pane.send({ event: "stream", id: "s1", data: new TextEncoder().encode("hello") })
    pane.send({ event: "stream", id: "other", data: new TextEncoder().encode("not mine") })
    pane.send({ event: "stream", id: "s1", end: { code: 3 } })
    stream.close()
    await settle()
    expect(chunks).toEqual(["hello"])
    expect(ends).toEqual([{ code: 3 }])
    const calls = handler.mock.calls.map(([method, params]) => [method, params])
    // Another stream's output is not this widget's: nothing reaches it, nothing is acknowledged.
    expect(calls).toHaveLength(5)
    expect(calls).toEqual(
      expect.arrayContaining([
        ["stream.open", { argv: ["sh"], consent: "ticket", cols: 100, rows: 30 }],
        ["stream.write", { id: "s1", data: "ls\r" }],
        ["stream.resize", { id: "s1", cols: 120, rows: 40 }],
        ["stream.ack", { id: "s1", bytes: 5 }],
        ["stream.close", { id: "s1" }],
      ]),
    )
  })

  it("sends nothing for a stream that ended, and takes its NotFound as the end it is", async () => {
    // The daemon ended the stream first: a keystroke sent meanwhile answers NotFound.
    const handler = vi.fn(async (method: Method, _params: unknown) => {
      if (method === "stream.open") return { id: "s1" }
      if (method === "stream.write") throw new CoworkError("NotFound", 'no open stream "s1"')
      return null
    })
    // What the frame would forward to the Output panel as an uncaught error.
    const reported = vi.fn()
    const before = globalThis.reportError
    globalThis.reportError = reported
    const { cowork, pane } = await connect(handler)
    const stream = await cowork.stream.open({ argv: ["sh"], consent: "ticket", onData: () => {} })
    stream.write("exit\r")
    pane.send({ event: "stream", id: "s1", end: { code: 0 } })
    await settle()
    // After its end: xterm.js fits itself to the "ended" banner, the widget unmounts.
    stream.resize(80, 20)
    stream.write("x")
    stream.close()
    await settle()
    expect(handler.mock.calls.map(([method]) => method)).toEqual(["stream.open", "stream.write"])
    globalThis.reportError = before
    expect(reported).not.toHaveBeenCalled()
  })

  it("stream output is acknowledged once the promise onData returned settles, not when handed over", async () => {
    const handler = vi.fn(async (method: Method, _params: unknown) =>
      method === "stream.open" ? { id: "s1" } : null,
    )
    const { cowork, pane } = await connect(handler)
    let parsed = () => {}
    await cowork.stream.open({
      argv: ["sh"],
      // As xterm.js's write callback: the chunk is parsed later.
      onData: () => new Promise<void>((done) => (parsed = done)),
    })
    pane.send({ event: "stream", id: "s1", data: new Uint8Array(7) })
    await settle()
    const acks = () => handler.mock.calls.filter(([method]) => method === "stream.ack")
    expect(acks()).toEqual([])
    parsed()
    await settle()
    expect(acks().map(([, params]) => params)).toEqual([{ id: "s1", bytes: 7 }])
  })

  it("a refused stream.open rejects by name", async () => {
    const { cowork } = await connect(async (method) => {
      if (method === "stream.open") throw new CoworkError("TooManyStreams", "two open already")
      return null
    })
    await expect(cowork.stream.open({ argv: ["sh"] })).rejects.toMatchObject({
      name: "TooManyStreams",
    })
  })
})

describe("events", () => {
  it("deliver app messages, notifications and title actions to listeners until they unsubscribe", async () => {
    const { cowork, pane } = await connect(async () => null)
    const messages: unknown[] = []
    const stop = cowork.app.onMessage((message) => messages.push(message))
    const notifications = vi.fn()
    cowork.onNotification(notifications)
    pane.send({ event: "message", message: { type: "changed" } })
    pane.send({
      event: "notification",
      notification: { app: "notes", appTitle: "Notes", title: "Saved", at: 1 },
    })
    await settle()
    stop()
    pane.send({ event: "message", message: { type: "ignored" } })
    await settle()
    expect(messages).toEqual([{ type: "changed" }])
    expect(notifications).toHaveBeenCalledWith(expect.objectContaining({ title: "Saved" }))
  })

  it("keep visible current and tell onVisibility", async () => {
    const { cowork, pane } = await connect(async () => null, { visible: true })
    const seen: boolean[] = []
    cowork.onVisibility((visible) => seen.push(visible))
    pane.send({ event: "visible", visible: false })
    await settle()
    expect(cowork.visible).toBe(false)
    expect(seen).toEqual([false])
  })

  it("statusBar.get answers from the last items; onChange starts with every current one", async () => {
    const { cowork, pane } = await connect(async () => null, {
      statusBar: { standup: { text: "Focus 25:00", data: { running: false } } },
    })
    expect(cowork.statusBar.get("standup")?.data).toEqual({ running: false })
    expect(cowork.statusBar.get("other")).toBeNull()
    const changes: [string, unknown][] = []
    cowork.statusBar.onChange((app, item) => changes.push([app, item?.text]))
    pane.send({ event: "statusBar", app: "standup", item: { text: "Focus 24:00" } })
    await settle()
    expect(changes).toEqual([
      ["standup", "Focus 25:00"],
      ["standup", "Focus 24:00"],
    ])
    expect(cowork.statusBar.get("standup")?.text).toBe("Focus 24:00")
  })

  it("stop after the pane is disposed", async () => {
    const handler = vi.fn(async () => null)
    const { cowork, pane } = await connect(handler)
    const messages = vi.fn()
    cowork.app.onMessage(messages)
    pane.dispose()
    pane.send({ event: "message", message: 1 })
    await settle()
    expect(messages).not.toHaveBeenCalled()
  })
})
