/**
 * The apps' footer items (`statusBar` in cowork.json). Each refreshes when it appears, every
 * `interval` seconds while the window has focus, when focus returns, after a click and on
 * `cowork.statusBar.refresh`. A failed refresh draws the app's title as a warning (the error in
 * its tooltip; a click retries); a failed click is a notification. Every pane gets each item as
 * drawn (`statusBar` events).
 */
import { toast } from "sonner"

import type { StatusBarItem } from "@/frame/protocol"
import type { StatusBarAction } from "./wire/daemon"
import * as api from "./api"
import { ask, confirm } from "./dialogs"
import { broadcast } from "./live-panes"
import { addNotification, appNamed, getState, update, type FooterEntry } from "./store"

const MIN_INTERVAL_S = 15
const MAX_INTERVAL_S = 3600
const DEFAULT_INTERVAL_S = 60

/** The apps that have a footer item: switched on, owning their name, with `statusBar`. */
const footerApps = () =>
  (getState().info?.apps ?? []).filter((app) => app.enabled && app.ownsName && app.statusBar)

/** The item as the footer draws it: a failure is the app's title as a warning. */
export function drawn(app: string, entry: FooterEntry | undefined): StatusBarItem | null {
  if (!entry) return null
  if (entry.error !== undefined) {
    return {
      text: appNamed(app)?.title ?? app,
      icon: "warning",
      tone: "warning",
      tooltip: entry.error,
    }
  }
  return entry.item
}

/** Every app's item as drawn, for a pane's `init`. */
export function drawnFooterItems() {
  const { footer } = getState()
  return Object.fromEntries(Object.keys(footer).map((app) => [app, drawn(app, footer[app])]))
}

function set(app: string, change: Partial<FooterEntry>) {
  const empty: FooterEntry = { item: null, busy: false }
  update((s) => ({ footer: { ...s.footer, [app]: { ...empty, ...s.footer[app], ...change } } }))
  broadcast({ event: "statusBar", app, item: drawn(app, getState().footer[app]) })
}

/** Runs the footer routine of `app` (or of every app) now. */
export async function refresh(app?: string) {
  const names = footerApps()
    .map((each) => each.name)
    .filter((name) => app === undefined || name === app)
  await Promise.all(
    names.map(async (name) => {
      try {
        const item = await api.statusBar(getState().workspace, name)
        set(name, { item, error: undefined })
      } catch (error) {
        set(name, { error: error instanceof Error ? error.message : String(error) })
      }
    }),
  )
}

/** A click on `app`'s item: retry a failed one, pick from a `menu`, or run the `click`. */
export async function click(app: string) {
  const entry = getState().footer[app]
  if (!entry || entry.error !== undefined) return refresh(app)
  const item = entry.item
  if (item?.menu?.length) {
    const { label } = await ask({
      message: item.text,
      detail: item.tooltip,
      buttons: [
        ...item.menu.map((action) => ({
          label: action.label ?? "",
          card: true,
          role: "submit" as const,
        })),
        { label: "Cancel", role: "cancel" },
      ],
    })
    const chosen = item.menu.find((action) => action.label === label)
    if (chosen) await act(app, chosen)
  } else if (item?.click) {
    await act(app, item.click)
  }
}

/** Runs the footer routine with the action's args (after its `confirm`), then refreshes. */
async function act(app: string, action: StatusBarAction) {
  if (action.confirm && !(await confirm(action.confirm, "Continue"))) return
  set(app, { busy: true })
  try {
    await api.clickStatusBar(getState().workspace, app, action.args)
  } catch (error) {
    // The bell draws it as `<App>: <title> — <body>`: the app's name is not repeated in the title.
    const notification = {
      app,
      appTitle: appNamed(app)?.title ?? app,
      title: "Footer action failed",
      body: error instanceof Error ? error.message : String(error),
      at: Date.now(),
    }
    addNotification(notification)
    toast.error(`${notification.appTitle}: ${notification.title}`, {
      description: notification.body,
    })
  } finally {
    set(app, { busy: false })
  }
  await refresh(app)
}

/**
 * Keeps the footer fresh: refreshes now, then per app on its interval while the window has
 * focus, and all of them when focus returns. Returns the stop.
 */
export function startFooter() {
  const apps = footerApps()
  update((s) => ({
    footer: Object.fromEntries(
      Object.entries(s.footer).filter(([name]) => apps.some((app) => app.name === name)),
    ),
  }))
  let timers: ReturnType<typeof setInterval>[] = []
  const stopTimers = () => {
    timers.forEach(clearInterval)
    timers = []
  }
  const startTimers = () => {
    stopTimers()
    for (const app of apps) {
      const seconds = Math.min(
        MAX_INTERVAL_S,
        Math.max(MIN_INTERVAL_S, app.statusBar?.interval ?? DEFAULT_INTERVAL_S),
      )
      timers.push(setInterval(() => void refresh(app.name), seconds * 1000))
    }
  }
  const onFocus = () => {
    if (timers.length > 0) return // focus came back from a pane: the window never lost it
    void refresh()
    startTimers()
  }
  // Focus moving into a pane's frame blurs the window but keeps the document focused.
  const onBlur = () => setTimeout(() => document.hasFocus() || stopTimers())
  window.addEventListener("focus", onFocus)
  window.addEventListener("blur", onBlur)
  void refresh()
  if (document.hasFocus()) startTimers()
  return () => {
    stopTimers()
    window.removeEventListener("focus", onFocus)
    window.removeEventListener("blur", onBlur)
  }
}
