import { toast } from "sonner"

import { appendOutput } from "./store"

/**
 * Something the person started failed: a toast, and the line in the Output panel. A named error
 * shows its name (what to search for, what a script branches on) and its hint (what to do).
 */
export function report(title: string, error: unknown) {
  const { name, message, hint } = describe(error)
  const description = [name ? `${name}: ${message}` : message, hint].filter(Boolean).join("\n")
  toast.error(title, { description })
  appendOutput({
    source: "workbench",
    stream: "error",
    text: `${title}: ${name ? `${name}: ` : ""}${message}${hint ? ` (hint: ${hint})` : ""}`,
  })
}

function describe(error: unknown): { name?: string; message: string; hint?: string } {
  if (!(error instanceof Error)) return { message: String(error) }
  // A bare `Error` (a network failure, a bug) has no name worth showing.
  const name = error.name && error.name !== "Error" ? error.name : undefined
  const hint = (error as { hint?: unknown }).hint
  return { name, message: error.message, hint: typeof hint === "string" ? hint : undefined }
}
