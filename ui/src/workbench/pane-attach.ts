/**
 * Attaching a widget to a pane on screen: the daemon opens the pane, the frame is mounted with the
 * pane's handler, and a hot reload sends new code to the panes showing it. The table of panes it
 * fills is `live-panes.ts`.
 */
import { loadFrame, mountPane } from "@/host/panes"
import * as api from "./api"
import { inShell } from "./desktop"
import { drawnFooterItems } from "./footer"
import { escaped, handle } from "./handler"
import {
  inViewOrder,
  isCurrent,
  livePanes,
  register,
  revoke,
  stateView,
  styles,
  subscriptions,
  tokenReady,
  type LivePane,
} from "./live-panes"
import { getState, type PaneSpec } from "./store"

/** Opens `spec` on the daemon and runs its widget in `iframe`. Rejects when the daemon refuses. */
export async function attach(spec: PaneSpec, iframe: HTMLIFrameElement, visible: boolean) {
  const entry: LivePane = { spec, visible }
  register(entry)
  const { workspace, info } = getState()
  // The frame page loads, and the app's Tailwind compiler is readied, while the daemon opens
  // the pane and reads its state.
  void styles().then((s) => s.prepare(spec.app))
  const frameUrl = info?.apps.find((app) => app.name === spec.app)?.frameUrl
  if (frameUrl) loadFrame(iframe, frameUrl)
  const opened = await api.openPane({
    workspace,
    app: spec.app,
    file: spec.file,
    openedFile: spec.openedFile,
  })
  const [state, css] = await Promise.all([
    inViewOrder(spec, () => api.sdk(opened.paneToken, "state.get", { view: stateView(spec) })),
    styles().then((s) => s.cssForWidget(spec.app, opened.widget)),
  ])
  if (!isCurrent(entry)) return revoke(opened.paneToken)
  entry.token = opened.paneToken
  entry.paneId = opened.paneId
  entry.frame = mountPane(
    iframe,
    {
      src: opened.src,
      app: spec.app,
      paneId: opened.paneId,
      view: spec.view,
      theme: getState().theme,
      desktop: inShell(),
      workspaceRoot: info?.workspace.path ?? workspace,
      widget: opened.widget,
      css,
      openedFile: spec.openedFile ?? null,
      state: state ?? null,
      visible: entry.visible,
      statusBar: drawnFooterItems(),
      // The frame started over: what it subscribed is gone, but the pane is still there.
      onEscape: () => escaped(entry),
      onReset: () => {
        subscriptions.dropPane(spec.key)
        if (isCurrent(entry)) subscriptions.visibility(spec.key, spec.app, entry.visible)
      },
    },
    (method, params) => handle(method, params, entry),
  )
  subscriptions.visibility(spec.key, spec.app, entry.visible)
  tokenReady(spec.app, opened.paneToken)
}

/** Hot reload: new code for every open pane showing `app`'s `file`; its state is kept. */
export async function reloadWidget(app: string, file: string) {
  const { workspace } = getState()
  await Promise.all(
    livePanes()
      .filter((entry) => entry.frame && entry.spec.app === app && entry.spec.file === file)
      .map(async (entry) => {
        const { spec } = entry
        const opened = await api.openPane({ workspace, app, file, openedFile: spec.openedFile })
        const css = await (await styles()).cssForWidget(app, opened.widget)
        if (!isCurrent(entry)) return revoke(opened.paneToken)
        const old = entry.token
        entry.token = opened.paneToken
        entry.paneId = opened.paneId
        if (old) revoke(old)
        entry.frame?.send({ event: "reload", widget: opened.widget, css })
      }),
  )
}
