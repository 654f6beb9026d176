/**
 * The consent question (a routine's `ctx.command.run` / `ctx.consent.request`, a widget's
 * `cowork.consent.request`, a Terminal's `stream.open`) in Cowork's dialog, for a workbench in a
 * browser tab (`cowork app serve`). While a window follows `/api/consent/requests` the daemon
 * waits for its answer instead of refusing with the `cowork consent allow` line. Every window
 * following it is asked; the first answer counts, and the stream tells the others the question
 * closed, so their dialogs close too. The desktop app
 * asks in a native dialog of its own (src-tauri/src/consent.rs), so there the page does not follow
 * the questions: one question, one dialog.
 */
import * as api from "./api"
import { inShell } from "./desktop"
import { ask } from "./dialogs"
import { followStream } from "./events"
import { getState } from "./store"

const ALLOW = "Allow"
const ALWAYS = "Always allow"

/** Follows the questions for the page's life (questions show one at a time, in order). */
export function followConsent(signal: AbortSignal) {
  if (inShell()) return
  // The questions this window shows, by id: a question answered in another window (or withdrawn
  // by its asker) closes here too.
  const open = new Map<string, AbortController>()
  void followStream<api.ConsentEvent>(
    () => api.consentRequests(signal),
    signal,
    (event) => {
      if ("closed" in event) open.get(event.id)?.abort()
      else void answer(event, open)
    },
    () => {},
  )
}

async function answer(request: api.ConsentRequest, open: Map<string, AbortController>) {
  const closed = new AbortController()
  open.set(request.id, closed)
  const { label } = await ask(question(request, getState().workspace), undefined, closed.signal)
  open.delete(request.id)
  if (closed.signal.aborted) return
  try {
    await api.answerConsent({
      id: request.id,
      granted: label === ALLOW || label === ALWAYS,
      remember: label === ALWAYS,
    })
  } catch {
    // The close is still on its way (answered elsewhere at the same moment, the run ended):
    // nothing waits for this answer, and the daemon has recorded the run's end.
  }
}

/** The dialog for `request`, worded as the desktop app's; another workspace's question names it. */
export function question(request: api.ConsentRequest, workspace: string) {
  const app = request.appTitle || request.app || "An app"
  const elsewhere =
    request.workspace && request.workspace !== workspace
      ? ` in the workspace ${request.workspace.split("/").filter(Boolean).pop()}`
      : ""
  const asker = `${app}${request.routine ? ` (routine ${request.routine}${elsewhere})` : elsewhere}`
  const buttons = [
    { label: "Deny", role: "cancel" as const },
    { label: ALWAYS, role: "submit" as const },
    { label: ALLOW, role: "submit" as const, primary: true },
  ]
  if (request.command) {
    // "Always" approves the label for this app: a label that is not the command itself is shown,
    // since it is what a later run of another command under it is matched by.
    const label =
      request.value && request.value !== request.command
        ? ` under the label "${request.value}"`
        : ""
    return {
      message: `Allow ${app} to run a command?`,
      detail: `${asker} wants to run:`,
      type: "warning",
      fields: [
        { id: "command", type: "section" as const, placeholder: request.command, monospace: true },
      ],
      alert: { text: `"${ALWAYS}" remembers the answer${label} for ${app} in this workspace.` },
      buttons,
    }
  }
  const what = request.title || request.value || "something that needs your permission"
  return {
    message: `Allow ${app}?`,
    detail: `${asker} asks: ${what}${request.description ? `\n\n${request.description}` : ""}`,
    type: "question",
    alert: { text: `"${ALWAYS}" remembers the answer for this workspace.` },
    buttons,
  }
}
