/**
 * A pane's `cowork.state` calls, as the workbench passes them to the daemon
 * (src/workbench/live-panes.ts `inViewOrder`): a view's sets reach the daemon one after another, in
 * the order the widget made them. Two at once travel on two connections, and the older could land
 * last: a quick second click was lost when the page was reloaded.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import * as api from "../src/workbench/api"
import { handle } from "../src/workbench/handler"
import type { LivePane } from "../src/workbench/live-panes"
import type { PaneSpec } from "../src/workbench/store"

afterEach(() => vi.restoreAllMocks())

function pane(app: string, view: string): LivePane {
  return {
    spec: { key: `${app}:${view}`, app, view } as PaneSpec,
    token: `${app}-token`,
    visible: true,
  }
}

/** The daemon's side: each call waits until the test answers it. */
function daemon() {
  const calls: { method: string; params: unknown; answer: () => void }[] = []
  vi.spyOn(api, "sdk").mockImplementation(
    (_token, method, params) =>
      new Promise((resolve) => calls.push({ method, params, answer: () => resolve(null) })),
  )
  return calls
}

const tick = () => new Promise((done) => setTimeout(done, 0))

describe("a view's state on its way to the daemon", () => {
  it("sends a view's next set only once the one before it answered, in order", async () => {
    const calls = daemon()
    const probe = pane("probe", "main")
    const first = handle("state.set", { value: { count: 1 } }, probe)
    const second = handle("state.set", { value: { count: 2 } }, probe)
    await tick()
    expect(calls.map((call) => call.params)).toEqual([{ view: "main", value: { count: 1 } }])
    calls[0].answer()
    await first
    await tick()
    expect(calls.map((call) => call.params)).toEqual([
      { view: "main", value: { count: 1 } },
      { view: "main", value: { count: 2 } },
    ])
    calls[1].answer()
    await second
  })

  it("goes on after a refused set, and other views do not wait", async () => {
    const calls: string[] = []
    vi.spyOn(api, "sdk").mockImplementation(async (_token, _method, params) => {
      const { view, value } = params as { view: string; value: { n: number } }
      calls.push(`${view} ${value.n}`)
      if (value.n === 1) throw new Error("too big")
      return null
    })
    const probe = pane("probe", "main")
    const refused = handle("state.set", { value: { n: 1 } }, probe)
    const next = handle("state.set", { value: { n: 2 } }, probe)
    await expect(refused).rejects.toThrow("too big")
    await next
    expect(calls).toEqual(["main 1", "main 2"])

    const slow = daemon()
    void handle("state.set", { value: { n: 3 } }, probe)
    void handle("state.set", { value: { n: 4 } }, pane("probe", "side"))
    await tick()
    expect(slow.map((call) => call.params)).toEqual([
      { view: "main", value: { n: 3 } },
      { view: "side", value: { n: 4 } },
    ])
  })
})
