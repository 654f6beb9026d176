/**
 * The shell: the title bar, rail and status bar as the workbench last drew them, kept in
 * localStorage per workspace so that the next start's index.html can paint them before the bundle
 * has run (its inline script reads them under `shellKey`). A start spends about 120 ms running the
 * bundle and rendering the rail with React (BENCHMARKS.md, "The shell"); the shell is on screen
 * meanwhile, inert and hidden from assistive technology, and goes in the frame that draws React's.
 */

import { keep } from "./kept"
import { afterPaint } from "./paint"

/** The localStorage key of a window's shell; index.html spells it out the same way. */
const shellKey = (search: string) =>
  `cowork.shell:${new URLSearchParams(search).get("workspace") ?? ""}`

/**
 * Attributes the shell's copy leaves out: what a test, a script or an assistive technology would
 * take for the live workbench (its names and ids), and every address (an icon's carries a key made
 * from this start's token, and the shell loads nothing). Classes, styles and the `data-state`-like
 * attributes its styles select on stay.
 */
const LEFT_OUT =
  /^(id|name|for|title|tabindex|src|srcset|href|data-testid|aria-label|aria-labelledby|aria-describedby|aria-controls)$/

/**
 * Writes down the title bar, rail and status bar as now drawn, for the next start: the side bars,
 * editor area and panel (`data-shell="blank"`) and any toast are left empty; an element marked
 * `data-shell="hollow"` (the account button: who is signed in stays out) is kept as an empty box
 * of its width, so that the title bar does not shift when it fills.
 */
export function keepShell(root: HTMLElement) {
  const copy = root.cloneNode(true) as HTMLElement
  const widths = [...root.querySelectorAll('[data-shell="hollow"]')].map(
    (live) => live.getBoundingClientRect().width,
  )
  copy.querySelectorAll<HTMLElement>('[data-shell="hollow"]').forEach((hollow, i) => {
    hollow.style.width = `${widths[i]}px`
    hollow.replaceChildren()
  })
  for (const blank of copy.querySelectorAll('[data-shell="blank"]')) blank.replaceChildren()
  for (const left of copy.querySelectorAll("iframe, object, embed, [data-sonner-toaster]"))
    left.remove()
  for (const element of copy.querySelectorAll("*")) {
    for (const { name } of [...element.attributes])
      if (LEFT_OUT.test(name)) element.removeAttribute(name)
  }
  // Storage full or refused: the next start draws no shell, as the first start did.
  keep(shellKey(location.search), JSON.stringify({ html: copy.innerHTML, styles: stylesheet() }))
}

/**
 * The workbench's stylesheet (its name carries a hash of its content): a shell kept under another
 * build's classes is not painted after an update (index.html compares the two).
 */
const stylesheet = () =>
  document.querySelector('link[rel="stylesheet"]')?.getAttribute("href") ?? null

/** Takes away the shell index.html painted, if any (in the frame React draws its own workbench). */
export function dropShell() {
  document.getElementById("shell")?.remove()
}

/**
 * Runs `start` (which runs the bundle: about 60 ms in which nothing is drawn) once the shell has
 * been painted, or now when there is none to paint or the window is hidden and draws no frames.
 */
export function afterShell(start: () => void) {
  if (!document.getElementById("shell") || document.hidden) start()
  else afterPaint(start, 1000)
}
