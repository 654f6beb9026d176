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
      // The WebUIOmnibox* ones: in Debian's Chromium 156 each new window (each `newPage()` here)
      // also loads the address bar's popup, a web page of its own (chrome://omnibox-popup, about
      // 400 requests), in a second renderer, though headless has no address bar to show it in. It
      // cost as much CPU as the workbench page beside it (a trace of one page open: 1.7 s of
      // renderer main thread, the workbench's 2.7 s); off, workbench.test.ts took 121–142 s of
      // CPU instead of 193 (2 cores, warm).
      // Chromium keeps the last of a repeated switch, so this list replaces Playwright's own
      // `--disable-features` (network and UI features this offline suite never meets; added here,
      // they made no difference that could be measured).
      "--disable-features=IsolateOrigins,site-per-process,WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup",
    ],
  })
}
