/** Debian's Chromium, launched the way every browser test here needs it (headless, as root, offline). */
import { chromium, type Browser } from "playwright-core"

export const CHROMIUM = "/usr/bin/chromium"

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      // Every pane is its own origin, so with site isolation each one started a renderer process of
      // its own: the ui suite spent about a sixth of its CPU there (workbench.test.ts: 294 s of CPU
      // with it, 244 s without, on 2 cores). What the tests assert of a pane's isolation is the
      // same-origin policy and the pane's token, which hold in one process as in many.
      "--disable-site-isolation-trials",
      "--disable-features=IsolateOrigins,site-per-process",
    ],
  })
}
