/**
 * The frame runtime's client and SDK wired to the real host helper (`mountPane`) in one process:
 * each side's postMessage becomes a later task on the other, with the structured clone a real
 * postMessage makes. The workbench's part is the `handler` a test gives.
 */
import { vi } from "vitest"

import { createClient } from "@/frame/client"
import type { FrameMessage, HostMessage, InitEvent, Widget } from "@/frame/protocol"
import { createCowork, type Sdk } from "@/frame/sdk"
import { mountPane, type PaneHandler, type PaneOptions } from "@/host/panes"

const WIDGET: Widget = { file: "widgets/test.jsx", code: "", imports: [] }

/**
 * Lets every message in flight arrive. Each hop is one timer, and due timers run in the order they
 * were set, so a hop set before one of these rounds lands before it however late a busy machine
 * runs them (a 5 ms sleep did not hold: on 2 busy cores it ended before a reply's hop ran). Ten
 * rounds are more hops than any exchange here takes.
 */
export async function settle() {
  for (let round = 0; round < 10; round++) await new Promise((resolve) => setTimeout(resolve))
}

// The workbench's window, one for the whole file as in a browser (the helper listens on it once).
const hostWindow = new EventTarget()
vi.stubGlobal("window", hostWindow)

export async function connect(handler: PaneHandler, options: Partial<PaneOptions> = {}) {
  const frameWindow = {
    postMessage(message: HostMessage) {
      const copy = structuredClone(message)
      setTimeout(() => client.receive(copy))
    },
  }
  const client = createClient((message: FrameMessage) => {
    const copy = structuredClone(message)
    setTimeout(() =>
      hostWindow.dispatchEvent(
        // MessageEvent in Node takes only a MessagePort as its source; the helper reads the fields.
        Object.assign(new Event("message"), { data: copy, origin: "null", source: frameWindow }),
      ),
    )
  })
  const iframe = {
    setAttribute: vi.fn(),
    contentWindow: frameWindow,
    src: "",
    // As the DOM's: the `src` attribute once one was set, else null.
    getAttribute(name: string): string | null {
      return name === "src" && this.src ? this.src : null
    },
  }

  let sdk: Sdk | undefined
  const inits: InitEvent[] = []
  client.on("init", (init) => {
    inits.push(init)
    sdk ??= createCowork(client, init)
  })

  const pane = mountPane(
    iframe as unknown as HTMLIFrameElement,
    {
      src: "http://notes-1a2b.app.localhost:7420/frame.html",
      app: "notes",
      paneId: "notes:sidebar",
      view: "sidebar",
      theme: "light",
      desktop: false,
      workspaceRoot: "/work/space",
      widget: WIDGET,
      css: "",
      ...options,
    },
    handler,
  )
  // The frame's first words.
  const ready = () =>
    hostWindow.dispatchEvent(
      Object.assign(new Event("message"), {
        data: { cowork: 1, event: "ready" },
        origin: "null",
        source: frameWindow,
      }),
    )
  ready()
  await settle()
  return { sdk: sdk!, cowork: sdk!.cowork, pane, iframe, inits, ready, client }
}
