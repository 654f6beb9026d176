/**
 * Answers what a pane's `window.cowork` asks. The workbench answers what is about the window
 * (dialogs, opening things, tabs, the footer, the shared subscription loops); everything else
 * goes to the daemon's `/api/sdk/<method>` with the pane's own token, so the daemon knows the app.
 */
import { CoworkError, type Method, type Params } from "@/frame/protocol"
import * as api from "./api"
import { ask } from "./dialogs"
import * as footer from "./footer"
import { broadcast, runRoutine, stateView, subscriptions, type LivePane } from "./live-panes"
import { closePane, openExternal, openPath, revealApp } from "./navigation"
import { appendOutput } from "./store"

/** What the workbench answers itself; what a method returns reaches the widget (`undefined` as null). */
type Local = { [M in Method]?: (params: Params<M>, pane: LivePane) => unknown }

const local: Local = {
  "ui.dialog": (options, pane) => ask(options, options.scope === "pane" ? pane.spec.key : undefined),
  openFile: ({ path }) => openPath(path),
  openExternal: ({ url }) => openExternal(url),
  "browser.open": async ({ url }) => {
    await openExternal(url)
    return { embedded: false }
  },
  "browser.status": () => null,
  closeTab: (_params, pane) => closePane(pane.spec.key),
  viewSource: (_params, pane) => revealApp(pane.spec.app),
  // Title-bar actions belong to the standalone runner; the workbench ignores them.
  setTitleActions: () => null,
  "statusBar.refresh": ({ app }) => footer.refresh(app),
  "statusBar.click": ({ app }) => footer.click(app),
  "routines.run": (params, pane) => runRoutine(token(pane), params),
  "routines.subscribe": (request, pane) =>
    subscriptions.subscribe(pane.spec.key, pane.spec.app, request, (answer) =>
      pane.frame?.send({ event: "subscription", sub: request.sub, ...answer })
    ),
  "routines.refresh": ({ sub }, pane) => subscriptions.refresh(pane.spec.key, sub),
  "routines.unsubscribe": ({ sub }, pane) => subscriptions.unsubscribe(pane.spec.key, sub),
  "state.set": ({ value }, pane) => api.sdk(token(pane), "state.set", { view: stateView(pane.spec), value }),
  "app.post": (params, pane) => {
    broadcast({ event: "message", message: params.message }, pane.spec.app, pane)
    return api.sdk(token(pane), "app.post", params)
  },
  log: (params, pane) => {
    appendOutput({ source: pane.spec.app, stream: params.level, text: params.parts.join(" ") })
    return api.sdk(token(pane), "log", params)
  },
}

export async function handle(method: Method, params: Params<Method>, pane: LivePane): Promise<unknown> {
  const answer = local[method] as ((params: Params<Method>, pane: LivePane) => unknown) | undefined
  return answer ? answer(params, pane) : api.sdk(token(pane), method, params)
}

function token(pane: LivePane) {
  if (!pane.token) throw new CoworkError("NotReady", "This pane is not open on the daemon yet")
  return pane.token
}
