/** Debian's Chromium, launched the way every browser test here needs it (headless, as root, offline). */
import { chromium, type Browser } from "playwright-core"

export const CHROMIUM = "/usr/bin/chromium"

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  })
}
