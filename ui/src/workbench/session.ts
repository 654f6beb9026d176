/**
 * The workbench's life with the daemon: the owner token from the page's address, the first load
 * of `/api/workbench` (and the startup views it names), then the event stream.
 */
import type { NotificationEvent } from "@/frame/protocol"
import { loadAccount } from "./account"
import * as api from "./api"
import { agentCall, followChat } from "./chat"
import { followConsent } from "./consent"
import { showBanner } from "./banners"
import { follow } from "./events"
import { startFooter } from "./footer"
import { broadcast, sendToPane } from "./live-panes"
import { reloadWidget } from "./pane-attach"
import { closeGoneApps, openAs, reopenLeft, reopenTabs, showApp } from "./navigation"
import { afterPaint } from "./paint"
import { report } from "./report"
import { followSiteHibernation } from "./site-hibernation"
import { rememberWindow, rememberedWindow } from "./window-memory"
import { addNotification, appendOutput, appNamed, getState, update } from "./store"

const TOKEN_KEY = "cowork.token"

/**
 * The owner token, kept in this tab's sessionStorage. A page opened from a terminal or a browser
 * carries `#code=…`: a one-time code, traded once for the token over a POST on loopback (the token
 * itself never travels through a process's arguments or a terminal). The desktop shell, which holds
 * the token in-process, hands it over as `#token=…`. Either is taken out of the address bar, so it
 * is not bookmarked or shared.
 */
export async function ownerToken(): Promise<string | null> {
  const fragment = new URLSearchParams(location.hash.slice(1))
  const code = fragment.get("code")
  const fromUrl = fragment.get("token")
  if (code || fromUrl) {
    fragment.delete("code")
    fragment.delete("token")
    const rest = fragment.toString()
    history.replaceState(
      null,
      "",
      `${location.pathname}${location.search}${rest ? `#${rest}` : ""}`,
    )
  }
  const token = fromUrl ?? (code ? await api.exchangeCode(code) : null)
  if (token) sessionStorage.setItem(TOKEN_KEY, token)
  return sessionStorage.getItem(TOKEN_KEY)
}

let stopFooter = () => {}

/** Loads the workspace, opens the startup views and follows the daemon's events. */
export async function start() {
  let token: string | null
  try {
    token = await ownerToken()
  } catch (error) {
    return update({ fatal: error instanceof Error ? error.message : String(error) })
  }
  if (!token) {
    return update({
      fatal:
        "This page needs the link Cowork opened (it carries a one-time key). Run `cowork app serve` again.",
    })
  }
  api.setOwnerToken(token)
  // A closed tab ends its session at once; a crashed one ends when its event stream's grace runs out.
  addEventListener("pagehide", (event) => {
    if (!event.persisted) api.endSession()
  })
  try {
    await load(
      new URLSearchParams(location.search).get("workspace") ?? undefined,
      api.firstWorkbench,
    )
    // bench/desktop prints where a start goes; the page's own steps are marks like this one.
    performance.mark("workbench data")
  } catch (error) {
    return update({ fatal: error instanceof Error ? error.message : String(error) })
  }
  const { info, workspace } = getState()
  followSiteHibernation()
  void loadAccount()
  let first = true
  void followChat(workspace, new AbortController().signal)
  followConsent(new AbortController().signal)
  void follow(workspace, new AbortController().signal, onEvent, () => {
    // A reconnect: whatever changed while the stream was down is in a fresh load.
    if (!first) void Promise.all([reload(), loadAccount()])
    first = false
  })
  // The rail paints first: the panes' frames load in this page's process and would hold it back.
  await new Promise<void>((resolve) => afterPaint(resolve, 100))
  const { startup } = info!
  // startup.home is the app a first open of the workspace starts on; a workspace this window had
  // before (a reload, a switch back to it) comes back with the side bar it was left on, unless
  // that view is gone.
  const last = rememberedWindow(workspace)
  const returning = last.leftView !== undefined && (await reopenLeft(last.leftView))
  const home = appNamed(startup.home ?? "home")
  if (!returning && home?.enabled) await showApp(home)
  const right = info!.apps.find((app) => app.display === "right" && app.enabled && app.ownsName)
  if (right) await showApp(right)
  // startup.left / startup.right win over what the apps opened; without them, the side bars are
  // as this workspace's window last had them. Its editor tabs come back beside the startup ones.
  reopenTabs(last.tabs, last.active)
  update((s) => ({
    left: { ...s.left, open: startup.left ?? last.left ?? s.left.open },
    right: { ...s.right, open: startup.right ?? last.right ?? s.right.open },
    openFolders: last.openFolders ?? s.openFolders,
  }))
  rememberWindow(workspace)
}

async function load(workspace?: string, ask = api.workbench) {
  const info = await ask(workspace)
  update({
    info,
    workspace: info.workspace.path,
    badges: info.badges,
    notifications: info.notifications.map(received).sort((a, b) => b.at - a.at),
  })
  stopFooter()
  stopFooter = startFooter()
}

/** The apps changed (`registry`): the rail, Manage Workspace and the footer follow. */
export async function reload() {
  try {
    await load(getState().workspace)
    closeGoneApps()
  } catch (error) {
    report("Cowork could not reload the workspace", error)
  }
}

const filesChanged = () => update((s) => ({ filesChanged: s.filesChanged + 1 }))
const runsChanged = () => update((s) => ({ runsChanged: s.runsChanged + 1 }))

/** `info` with app `name`'s unread count coming from `unreadSource` (itself when it already does). */
function withUnreadSource(
  info: api.WorkbenchInfo,
  name: string,
  unreadSource: api.App["unreadSource"],
): api.WorkbenchInfo {
  const changes = info.apps.some((app) => app.name === name && app.unreadSource !== unreadSource)
  if (!changes) return info
  return {
    ...info,
    apps: info.apps.map((app) => (app.name === name ? { ...app, unreadSource } : app)),
  }
}

/** The bell and `cowork.onNotification` take the time in milliseconds, as `Date.now()` gives it. */
function received(notification: api.DaemonNotification): NotificationEvent {
  return { ...notification, at: Date.parse(notification.at) }
}

function onEvent(event: api.DaemonEvent) {
  switch (event.type) {
    case "registry":
      filesChanged()
      return void reload()
    case "runQueued":
    case "runStarted":
      return runsChanged()
    case "queues":
      return update((s) => ({ queuesChanged: s.queuesChanged + 1 }))
    case "run":
      runsChanged()
      // A routine may have written files (a note, an export): the Explorer follows.
      filesChanged()
      if (event.status === "error") {
        appendOutput({
          source: event.routine,
          stream: "error",
          text: event.error
            ? `${event.error.name}: ${event.error.message} (run ${event.runId}, ${event.durationMs} ms)`
            : `run ${event.runId} failed after ${event.durationMs} ms (\`cowork routine runs\` shows why)`,
        })
      }
      return
    case "widget":
      return void reloadWidget(event.app, event.file).catch((error) =>
        report(`Cannot reload ${event.file}`, error),
      )
    case "notification": {
      const notification = received(event.notification)
      addNotification(notification, event.replaced)
      showBanner(notification, () => {
        const app = appNamed(notification.app)
        if (app?.enabled) void showApp(app)
      })
      return broadcast({ event: "notification", notification }, notification.app)
    }
    case "appMessage":
      return broadcast({ event: "message", message: event.message }, event.app, event.fromPane)
    case "capture":
      for (const frame of event.frames ?? [])
        sendToPane(event.pane, { event: "capture", id: event.id, audio: pcm(frame) })
      if (event.stopped !== undefined) {
        const stopped = {
          file: event.stopped,
          reason: event.reason ?? "",
          ...(event.error ? { error: event.error } : {}),
        }
        sendToPane(event.pane, { event: "capture", id: event.id, stopped })
      }
      return
    case "badge":
      return update((s) => ({
        badges: { apps: { ...s.badges.apps, [event.app]: event.count }, total: event.total },
        // Where a site's count comes from can change at any report: Manage Workspace says so now,
        // not at the next reload of the apps.
        info:
          s.info && event.unreadSource
            ? withUnreadSource(s.info, event.app, event.unreadSource)
            : s.info,
      }))
    case "log":
      return appendOutput({ source: event.routine, stream: event.stream, text: event.line })
    case "account":
      return void loadAccount()
    case "agent":
      return agentCall(event)
    case "open": {
      const app = appNamed(event.app)
      if (app) void openAs(app, event.file, event.as)
      return
    }
  }
}

/** A base64 frame of 16-bit little-endian samples as the `Int16Array` a widget's `onAudio` gets. */
function pcm(base64: string) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))
  return new Int16Array(bytes.buffer, 0, bytes.length >> 1)
}
