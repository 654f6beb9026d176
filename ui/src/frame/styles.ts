/**
 * The pane's Tailwind stylesheet. The workbench compiles it (src/host/styles.ts): it comes with
 * `init` and `reload`, made from the widget's code, so the widget paints styled. A class that
 * appears in the document and was never seen here (one the widget builds at run time,
 * `bg-${tone}-500`) goes to the workbench, batched, and the stylesheet it answers replaces this one.
 */
import type { Client } from "./client"
import { CLASSES_PER_REQUEST } from "./protocol"

export function createStyles(client: Client, logError: (error: unknown) => void) {
  const sheet = document.createElement("style")
  document.head.append(sheet)
  const seen = new Set<string>()
  let pending: string[] = []

  function note(element: Element) {
    for (const name of element.classList) {
      if (seen.has(name)) continue
      seen.add(name)
      pending.push(name)
    }
  }

  // Past the app's limit the workbench compiles no more: said once in the log, then not asked.
  let refused = false

  function send() {
    for (let start = 0; start < pending.length && !refused; start += CLASSES_PER_REQUEST) {
      const classes = pending.slice(start, start + CLASSES_PER_REQUEST)
      client.request("styles.compile", { classes }).then(apply, (error: Error) => {
        if (refused) return
        refused = error.name === "TooLarge"
        logError(error)
      })
    }
    pending = []
  }

  function apply(css: string) {
    if (sheet.textContent !== css) sheet.textContent = css
  }

  // Everything in one observer callback is one request, sent once the callback has looked at all.
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === "attributes") note(record.target as Element)
      for (const node of record.addedNodes) {
        if (!(node instanceof Element)) continue
        note(node)
        node.querySelectorAll("[class]").forEach(note)
      }
    }
    send()
  }).observe(document.documentElement, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["class"],
  })

  return {
    /** The stylesheet the workbench compiled for the widget (its `init` or `reload`). */
    apply,
    /** The classes already in the document (the page's own), before the widget ran. */
    noteDocument() {
      note(document.documentElement)
      document.querySelectorAll("[class]").forEach(note)
      send()
    },
  }
}
