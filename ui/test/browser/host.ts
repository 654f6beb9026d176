// A stand-in workbench for the browser test: one pane mounted with the real host helpers (the
// pane, its Tailwind stylesheet), a fake daemon behind its handler, and hooks the test drives
// through `window.test`.
import type { Theme, Widget } from "../../src/frame/protocol"
import { loadFrame, mountPane, type Pane, type PaneEvent } from "../../src/host/panes"
import { compileClasses, cssForWidget } from "../../src/host/styles"

const calls: [string, unknown][] = []
let pane: Pane | undefined
/** A frame whose page started loading before its pane is mounted (`preload`). */
let early: HTMLIFrameElement | undefined

async function fakeDaemon(method: string, params: unknown) {
  // The frame's own request, answered by the workbench as the real one does.
  if (method === "styles.compile")
    return compileClasses("notes", (params as { classes: string[] }).classes)
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
    async mount(src: string, widget: Widget, theme: Theme) {
      const iframe = early ?? document.createElement("iframe")
      if (!early) document.body.append(iframe)
      const css = await cssForWidget("notes", widget)
      pane = mountPane(
        iframe,
        {
          src,
          app: "notes",
          paneId: "notes:tab",
          view: "tab",
          theme,
          desktop: false,
          workspaceRoot: "/ws",
          widget,
          css,
        },
        fakeDaemon,
      )
    },
    send(event: PaneEvent) {
      pane!.send(event)
    },
    async reload(widget: Widget) {
      pane!.send({ event: "reload", widget, css: await cssForWidget("notes", widget) })
    },
  },
})
