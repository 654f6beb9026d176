// A stand-in workbench for the browser test: one pane mounted with the real host helper, a fake
// daemon behind its handler, and hooks the test drives through `window.test`.
import type { Theme, Widget } from "../../src/frame/protocol"
import { loadFrame, mountPane, type Pane, type PaneEvent } from "../../src/host/panes"

const calls: [string, unknown][] = []
let pane: Pane | undefined
/** A frame whose page started loading before its pane is mounted (`preload`). */
let early: HTMLIFrameElement | undefined

async function fakeDaemon(method: string, params: unknown) {
  calls.push([method, params])
  if (method === "routines.run") {
    const { id, args } = params as { id: string; args: { name: string } }
    if (id === "greet") return { greeting: `Hello, ${args.name}` }
    throw Object.assign(new Error(`no routine ${id}`), { name: "NotFound" })
  }
  return null
}

Object.assign(window, {
  test: {
    calls,
    preload(src: string) {
      early = document.createElement("iframe")
      document.body.append(early)
      loadFrame(early, src)
    },
    mount(src: string, widget: Widget, theme: Theme) {
      const iframe = early ?? document.createElement("iframe")
      if (!early) document.body.append(iframe)
      pane = mountPane(
        iframe,
        { src, app: "notes", paneId: "notes:tab", view: "tab", theme, desktop: false, workspaceRoot: "/ws", widget },
        fakeDaemon
      )
    },
    send(event: PaneEvent) {
      pane!.send(event)
    },
  },
})
