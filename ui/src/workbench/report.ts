import { toast } from "sonner"

import { appendOutput } from "./store"

/** Something the person started failed: a toast, and the line in the Output panel. */
export function report(title: string, error: unknown) {
  const message = error instanceof Error ? error.message : String(error)
  toast.error(title, { description: message })
  appendOutput({ source: "workbench", stream: "error", text: `${title}: ${message}` })
}
