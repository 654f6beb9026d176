/**
 * Cowork's dialog, for widgets (`cowork.ui.dialog`) and for the workbench's own questions alike:
 * `ask` queues a request the dialog host draws and resolves with the button pressed.
 */
import type { DialogOptions, DialogResult } from "@/frame/protocol"
import { getState, update } from "./store"

let lastId = 0

/** Nothing was pressed: the dialog was cancelled, or closed from elsewhere. */
const NO_ANSWER: DialogResult = { label: null, values: {} }

/**
 * Asks the person; `paneKey` dims only that pane (`scope: "pane"`), otherwise the whole window.
 * `signal` closes the dialog unanswered (the question was answered in another window).
 */
export function ask(
  options: DialogOptions,
  paneKey?: string,
  signal?: AbortSignal,
): Promise<DialogResult> {
  if (signal?.aborted) return Promise.resolve(NO_ANSWER)
  return new Promise((resolve) => {
    const id = ++lastId
    update((s) => ({ dialogs: [...s.dialogs, { id, options, paneKey, resolve }] }))
    signal?.addEventListener("abort", () => answer(id, NO_ANSWER), { once: true })
  })
}

/** The answer to dialog `id`; it closes. */
export function answer(id: number, result: DialogResult) {
  const request = getState().dialogs.find((dialog) => dialog.id === id)
  if (!request) return
  update((s) => ({ dialogs: s.dialogs.filter((dialog) => dialog !== request) }))
  request.resolve(result)
}

/** The pane went away: its dialogs answer as if cancelled. */
export function cancelPaneDialogs(paneKey: string) {
  for (const dialog of getState().dialogs) {
    if (dialog.paneKey === paneKey) answer(dialog.id, NO_ANSWER)
  }
}

/** A yes/no question; true when `confirmLabel` was pressed. */
export async function confirm(message: string, confirmLabel = "OK") {
  const { label } = await ask({
    message,
    type: "question",
    buttons: [
      { label: "Cancel", role: "cancel" },
      { label: confirmLabel, role: "submit", primary: true },
    ],
  })
  return label === confirmLabel
}
