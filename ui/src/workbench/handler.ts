/**
 * Answers what a pane's `window.cowork` asks. The workbench answers what is about the window
 * (dialogs, opening things, tabs, the footer, the shared subscription loops); everything else
 * goes to the daemon's `/api/sdk/<method>` with the pane's own token, so the daemon knows the app.
 */
import { CoworkError, type Credential, type Method, type Params } from "@/frame/protocol"
import * as api from "./api"
import { desktop } from "./desktop"
import { ask } from "./dialogs"
import { openExternal, openInBrowser, openSignIn } from "./external"
import * as footer from "./footer"
import {
  inViewOrder,
  runRoutine,
  stateView,
  styles,
  subscriptions,
  type LivePane,
} from "./live-panes"
import { closePane, openPath, revealSource } from "./navigation"
import * as streams from "./streams"
import { setTitleActions } from "./title-actions"

/** What the workbench answers itself; what a method returns reaches the widget (`undefined` as null). */
type Local = { [M in Method]?: (params: Params<M>, pane: LivePane) => unknown }

const local: Local = {
  "ui.dialog": (options, pane) =>
    ask(options, options.scope === "pane" ? pane.spec.key : undefined),
  openFile: ({ path }) => openPath(path),
  openExternal: ({ url }) => openExternal(url),
  "browser.open": ({ url }) => openInBrowser(url),
  // The desktop app's browser window; `null` in a browser tab, which has none.
  "browser.status": () => desktop.browserStatus(),
  // The daemon checks and the desktop app asks and records; a still handed back becomes a Blob.
  "capture.shot": async (params, pane) => {
    const shot = (await api.sdk(token(pane), "capture.shot", params)) as {
      path?: string
      imageBase64?: string
    }
    const image =
      shot.imageBase64 &&
      new Blob([Uint8Array.from(atob(shot.imageBase64), (c) => c.charCodeAt(0))], {
        type: "image/png",
      })
    return { ...(shot.path && { path: shot.path }), ...(image && { image }) }
  },
  closeTab: (_params, pane) => closePane(pane.spec.key),
  viewSource: (_params, pane) => revealSource(pane.spec),
  setTitleActions: ({ actions }, pane) => setTitleActions(pane.spec.key, actions),
  "statusBar.refresh": ({ app }) => footer.refresh(app),
  "statusBar.click": ({ app }) => footer.click(app),
  "styles.compile": async ({ classes }, pane) =>
    (await styles()).compileClasses(pane.spec.app, classes),
  "routines.run": (params, pane) => runRoutine(token(pane), params),
  "routines.subscribe": (request, pane) =>
    subscriptions.subscribe(pane.spec.key, pane.spec.app, request, (answer) =>
      pane.frame?.send({ event: "subscription", sub: request.sub, ...answer }),
    ),
  "routines.refresh": ({ sub }, pane) => subscriptions.refresh(pane.spec.key, sub),
  "routines.unsubscribe": ({ sub }, pane) => subscriptions.unsubscribe(pane.spec.key, sub),
  "state.set": ({ value }, pane) =>
    inViewOrder(pane.spec, () =>
      api.sdk(token(pane), "state.set", { view: stateView(pane.spec), value }),
    ),
  // A sign-in answers the address of the service's consent page: the person goes there.
  "credentials.connect": async (params, pane) => {
    const credential = (await api.sdk(token(pane), "credentials.connect", params)) as Credential
    if (credential.authUrl) await openSignIn(credential.authUrl, credential.name)
    return credential
  },
  "stream.open": (params, pane) =>
    streams.open(token(pane), params, (event, transfer) => pane.frame?.send(event, transfer)),
  "stream.write": (params, pane) => streams.write(token(pane), params),
  "stream.ack": ({ id, bytes }, pane) => streams.ack(token(pane), id, bytes),
  // `log` and `app.post` come back from the daemon as events (`log`, `appMessage`), to this
  // window as to every other: that is how they reach the Output panel and the app's other panes.
}

export async function handle(
  method: Method,
  params: Params<Method>,
  pane: LivePane,
): Promise<unknown> {
  const answer = local[method] as ((params: Params<Method>, pane: LivePane) => unknown) | undefined
  return answer ? answer(params, pane) : api.sdk(token(pane), method, params)
}

function token(pane: LivePane) {
  if (!pane.token) throw new CoworkError("NotReady", "This pane is not open on the daemon yet")
  return pane.token
}

/**
 * Esc pressed in a pane, unused by its widget: a modal app closes, as Esc does with focus anywhere
 * else in the workbench (focus inside the frame keeps the key from the workbench's own dialog).
 */
export function escaped(pane: LivePane) {
  if (pane.spec.view === "modal") closePane(pane.spec.key)
}
