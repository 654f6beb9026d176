/**
 * Which site apps hibernate and which sleep now, as the desktop shell says (`site_hibernation`):
 * read at start, and again whenever the shell says a site app fell asleep or woke (it dispatches
 * `cowork:site-apps` on this window) or a setting changed here. The rail dims an asleep app's
 * tile; Manage Workspace shows and switches the setting. Outside the desktop app there is nothing
 * to read: site apps run only there.
 */
import { desktop, inShell } from "./desktop"
import { report } from "./report"
import { update } from "./store"

/** The idle times Manage Workspace offers, in seconds (the shell's default is 10 minutes). */
export const IDLE_CHOICES = [5 * 60, 10 * 60, 30 * 60, 60 * 60]
export const DEFAULT_IDLE = 10 * 60

/** Reads the states again. */
export async function loadSiteHibernation() {
  try {
    const states = await desktop.siteHibernation()
    if (states) update({ siteHibernation: states })
  } catch (error) {
    report("Cowork could not read which site apps hibernate", error)
  }
}

/** Reads the states now and each time the shell says they changed. */
export function followSiteHibernation() {
  if (!inShell()) return
  addEventListener("cowork:site-apps", () => void loadSiteHibernation())
  void loadSiteHibernation()
}

/** Switches `app`'s hibernation on (after `after` seconds out of sight) or off (`null`). */
export async function setSiteHibernation(app: string, after: number | null) {
  try {
    await desktop.setSiteHibernation(app, after)
  } catch (error) {
    report("Cowork could not change the site app's hibernation", error)
  }
  await loadSiteHibernation()
}

/** "10 min", "1 h", "45 s": an idle time as the card names it. */
export function idleText(seconds: number) {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`
  if (seconds % 60 === 0) return `${seconds / 60} min`
  return `${seconds} s`
}
