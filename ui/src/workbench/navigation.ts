/**
 * What opens where: rail clicks by the app's display mode, editor tabs, the side bars, files
 * routed through `fileRouting` (asking once which app opens a glob two apps claim).
 */
import { CoworkError, type OpenedFile } from "@/frame/protocol"
import * as api from "./api"
import { CHAT_TAB } from "./chat"
import { desktop } from "./desktop"
import { ask } from "./dialogs"
import { detach, runRoutine, tokenFor } from "./live-panes"
import { EXPLORER_VIEW, MANAGE_VIEW, viewId } from "./rail"
import { report } from "./report"
import { appNamed, getState, update, type PaneSpec, type Tab } from "./store"
import type { SavedTab } from "./window-memory"

let lastKey = 0
const newKey = (app: string) => `${app}:${++lastKey}`

/** Apps whose `open` already ran this session: it opens once, so the person is not yanked around. */
const openedOnce = new Set<string>()

/** A rail tile was clicked: a system view, or an app. */
export function clickTile(view: string) {
  if (view === EXPLORER_VIEW) return showLeft(EXPLORER_VIEW, true)
  if (view === MANAGE_VIEW) return openManage()
  const app = getState().info?.apps.find((each) => viewId(each.name) === view)
  if (app) void showApp(app, true)
}

/** Shows the Explorer in the left side bar (the footer's `Workspace: <name>` item). */
export const showExplorer = () => showLeft(EXPLORER_VIEW, false)

/**
 * Shows `view` in the left side bar again, as the window last had it (the Explorer, or a side bar
 * app's pane); false when it is no longer there to show (its app was removed or switched off).
 */
export async function reopenLeft(view: string) {
  if (view === EXPLORER_VIEW) {
    update(({ left }) => ({ left: { ...left, view } }))
    return true
  }
  const app = getState().info?.apps.find((each) => viewId(each.name) === view)
  if (!app?.enabled || app.display !== "sidebar") return false
  await showApp(app)
  return true
}

/** Shows the left side bar on `view`; clicking the view already shown closes the side bar. */
function showLeft(view: string, toggle: boolean) {
  update(({ left }) => ({
    left: { view, open: !(toggle && left.open && left.view === view) },
  }))
}

/**
 * Whether `showApp` shows anything: a switched-on app with a widget or a site. A capability, or an
 * app of routines only, has nothing to open (the bell's Open would do nothing).
 */
export const canOpen = (app: api.App) =>
  app.enabled && (Boolean(app.entry) || app.site || Boolean(app.webUrl))

/** Opens an app the way its manifest says (`display`). `toggle`: a second rail click closes its side bar. */
export async function showApp(app: api.App, toggle = false) {
  // A site draws only in the desktop app, in a window of its own that the shell opens; in a
  // browser tab, a tab says so and closes, and a side bar's pane says so.
  if (app.site && (await openSiteWindow(app))) return
  if (app.site && (app.display === "tab" || app.display === "modal")) return siteOnlyOnDesktop(app)
  if (app.webUrl) return showWebApp(app)
  if (!app.entry && !app.site) return
  const pane = { app: app.name, file: app.entry ?? "", title: app.title }
  switch (app.display) {
    case "sidebar":
      keepPane("sidePanes", { ...pane, view: "sidebar" })
      showLeft(viewId(app.name), toggle)
      return openOnce(app)
    case "right":
      keepPane("rightPanes", { ...pane, view: "right" })
      return update({ right: { open: true, app: app.name } })
    case "modal":
      return update({ modal: { ...pane, key: newKey(app.name), view: "modal" } })
    case "tab":
      return openTab({ ...pane, key: newKey(app.name), view: "tab" })
  }
}

/**
 * `cowork app open`: the app as its manifest says, or one of its widget files as a tab (the
 * default), a dialog or the side bar's pane.
 */
export function openAs(
  app: api.App,
  file: string | null,
  as: "tab" | "dialog" | "sidemenu" | null,
) {
  // A web app has no widget files: any of its files (`web/index.html`) opens its page.
  if (!file || app.webUrl) return showApp(app)
  const pane = { app: app.name, file, title: app.title }
  if (as === "dialog") return update({ modal: { ...pane, key: newKey(app.name), view: "modal" } })
  if (as === "sidemenu") {
    update((s) => ({
      sidePanes: [
        ...s.sidePanes.filter((p) => p.app !== app.name),
        { ...pane, key: newKey(app.name), view: "sidebar" },
      ],
    }))
    return showLeft(viewId(app.name), false)
  }
  return openTab({ ...pane, key: newKey(app.name), view: "tab" })
}

/**
 * A web app's tab (always a tab, page 12): the one already open without a routed file is shown
 * again, so its page keeps its state; a routed file opens a tab of its own (`openPath`).
 */
function showWebApp(app: api.App) {
  const open = getState().tabs.find(
    (tab) =>
      tab.kind === "pane" && tab.pane.web && tab.pane.app === app.name && !tab.pane.openedFile,
  )
  if (open) return update({ activeTab: open.key })
  openTab({
    key: newKey(app.name),
    app: app.name,
    file: "",
    view: "tab",
    title: app.title,
    web: true,
  })
}

/** A side bar's pane of the app, made once and kept while other views show. */
function keepPane(list: "sidePanes" | "rightPanes", pane: Omit<PaneSpec, "key">) {
  if (getState()[list].some((each) => each.app === pane.app)) return
  update((s) => ({ [list]: [...s[list], { ...pane, key: newKey(pane.app) }] }))
}

/**
 * A sidebar app's `open`, in the editor once a session: a widget of the app, any other app file
 * as an Explorer click would open it (its route, else the text viewer), or a routine returning
 * `{path}`.
 */
async function openOnce(app: api.App) {
  if (!app.open || openedOnce.has(app.name)) return
  openedOnce.add(app.name)
  try {
    if (typeof app.open === "string") {
      if (isWidget(app.open))
        return openTab({
          key: newKey(app.name),
          app: app.name,
          file: app.open,
          view: "tab",
          title: app.title,
        })
      return await openPath(`${app.dir}/${app.open}`)
    }
    const result = (await runRoutine(await tokenFor(app.name), {
      id: app.open.routine,
      args: app.open.args ?? {},
    })) as { path?: unknown } | null
    if (typeof result?.path !== "string") {
      throw new CoworkError("BadResult", `${app.open.routine} returned no {path} to open`)
    }
    await openPath(result.path)
  } catch (error) {
    report(`${app.title} could not open its page`, error)
  }
}

/** The desktop shell opens the site app's window: `true` when it did (or tried and said why). */
async function openSiteWindow(app: api.App): Promise<boolean> {
  try {
    return await desktop.openSiteApp(app.name)
  } catch (error) {
    report(`${app.title} could not open`, error)
    return true
  }
}

function siteOnlyOnDesktop(app: api.App) {
  return ask({
    message: `${app.title} is part of the desktop app`,
    detail:
      "Sites refuse to be shown inside another page. Open this workspace in Cowork Studio's desktop app to use it.",
    type: "info",
    buttons: [{ label: "Not Now", role: "cancel" }],
  })
}

/**
 * Opens (or shows again) an editor tab; a routed file already open is shown, not opened twice.
 * `held`: the opening tab that kept its place (`openPath`). Returns the tab's key.
 */
function openTab(pane: PaneSpec, held?: string) {
  const same = getState().tabs.find(
    (tab) =>
      tab.kind === "pane" &&
      pane.openedFile &&
      tab.pane.app === pane.app &&
      tab.pane.openedFile?.path === pane.openedFile.path,
  )
  return putTab(same ? same.key : { key: pane.key, kind: "pane", pane }, held)
}

/** The read-only text viewer on a workspace file: one tab per file. */
export function openText(path: string, held?: string) {
  const key = `text:${path}`
  const open = getState().tabs.some((tab) => tab.key === key)
  return putTab(open ? key : { key, kind: "text", path }, held)
}

/**
 * Shows `tab`, a new tab or the key of one open already. Without `held` a new tab goes last. With
 * it, the tab takes the opening tab's place, and is shown only if that one still was: the person
 * may have opened something else meanwhile. An opening tab closed meanwhile opens nothing.
 */
function putTab(tab: Tab | string, held?: string) {
  const key = typeof tab === "string" ? tab : tab.key
  const { tabs, activeTab } = getState()
  if (held === undefined) {
    update({ tabs: typeof tab === "string" ? tabs : [...tabs, tab], activeTab: key })
    return key
  }
  if (!tabs.some((each) => each.key === held)) return undefined
  update({
    tabs:
      typeof tab === "string"
        ? tabs.filter((each) => each.key !== held)
        : tabs.map((each) => (each.key === held ? tab : each)),
    activeTab: activeTab === held ? key : activeTab,
  })
  return key
}

/** The tabs the window last had (a reload), but those of apps since gone or switched off; `active` is shown. */
export function reopenTabs(saved: SavedTab[], active?: number) {
  const keys = saved.map((tab) => {
    if (tab.kind === "text") return openText(tab.path)
    if (tab.kind === "manage") return openManage()
    if (!appNamed(tab.pane.app)?.enabled) return undefined
    return openTab({ ...tab.pane, key: newKey(tab.pane.app) })
  })
  const shown = active === undefined ? undefined : keys[active]
  if (shown) update({ activeTab: shown })
}

function openManage() {
  if (!getState().tabs.some((tab) => tab.kind === "manage")) {
    update((s) => ({ tabs: [...s.tabs, { key: "manage", kind: "manage" }] }))
  }
  update({ activeTab: "manage" })
  return "manage"
}

export function closeTab(key: string) {
  const { tabs, activeTab } = getState()
  const index = tabs.findIndex((tab) => tab.key === key)
  if (index < 0) return
  const rest = tabs.filter((tab) => tab.key !== key)
  const next = activeTab === key ? (rest[Math.min(index, rest.length - 1)]?.key ?? null) : activeTab
  update({ tabs: rest, activeTab: next })
  detach(key)
}

/** `cowork.closeTab()`: closes the pane's editor tab, or the modal it is in. */
export function closePane(key: string) {
  if (getState().modal?.key === key) return closeModal()
  closeTab(key)
}

export function closeModal() {
  const modal = getState().modal
  if (!modal) return
  update({ modal: null })
  detach(modal.key)
}

/** Panes of apps that are gone or switched off close; a side bar on one falls back to the Explorer. */
export function closeGoneApps() {
  const { tabs, sidePanes, rightPanes, modal, left, right } = getState()
  const gone = (pane: PaneSpec) => !appNamed(pane.app)?.enabled
  for (const tab of tabs) if (tab.kind === "pane" && gone(tab.pane)) closeTab(tab.key)
  if (modal && gone(modal)) closeModal()
  const closing = [...sidePanes, ...rightPanes].filter(gone)
  for (const pane of closing) detach(pane.key)
  update({
    sidePanes: sidePanes.filter((pane) => !gone(pane)),
    rightPanes: rightPanes.filter((pane) => !gone(pane)),
    left: closing.some((pane) => viewId(pane.app) === left.view)
      ? { ...left, view: EXPLORER_VIEW }
      : left,
    right: closing.some((pane) => pane.app === right.app) ? { open: false, app: null } : right,
  })
}

const isWidget = (file: string) => /\.[jt]sx$/.test(file)

/**
 * Opens a workspace path (relative, or absolute inside the workspace) through `fileRouting`; a file
 * no app opens falls through to the text viewer (the "default editor" of
 * docs/reference/workspace-json.md). Rejects `NotFound` for a folder no app opens.
 */
export async function openPath(path: string, folder = false) {
  const { workspace, info } = getState()
  const root = info?.workspace.path ?? workspace
  const relative = path.startsWith(`${root}/`)
    ? path.slice(root.length + 1)
    : path.replace(/^\.\//, "")
  const shown = folder ? undefined : tabShowing(relative)
  if (shown) return update({ activeTab: shown })
  // A file's tab comes at once, where it was clicked, and turns into the app's (or the text
  // viewer's) when the daemon has said which: a tab opened before that goes after it and keeps the
  // focus. A folder holds no place: most folders open no app.
  const held = folder ? undefined : holdPlace(relative)
  try {
    const found = await routeOf(relative)
    if (!found && folder) throw new CoworkError("NotFound", `No app opens the folder ${relative}`)
    if (!found) return openText(relative, held)
    openTab(
      {
        key: newKey(found.app),
        app: found.app,
        file: found.file,
        view: "tab",
        title: relative.split("/").pop() || relative,
        openedFile: openedFile(root, relative, found.glob, folder || found.glob.endsWith("/")),
        // A route to an `.html` is to the app's web app (page 12: it must be its `web.index`).
        web: appNamed(found.app)?.webUrl ? true : undefined,
      },
      held,
    )
  } finally {
    // Still there only when nothing took its place: the route failed.
    if (held) closeTab(held)
  }
}

/** The tab already showing a workspace file, in an app or the text viewer. */
function tabShowing(relative: string) {
  return getState().tabs.find((tab) =>
    tab.kind === "pane"
      ? tab.pane.openedFile?.workspaceRelativePath === relative
      : tab.kind === "text" && tab.path === relative,
  )?.key
}

function holdPlace(path: string) {
  const key = `opening:${++lastKey}`
  update((s) => ({ tabs: [...s.tabs, { key, kind: "opening", path }], activeTab: key }))
  return key
}

/** The route of a path; a glob two apps claim is asked about once and remembered. */
async function routeOf(relative: string): Promise<api.Route | null> {
  const { workspace, info } = getState()
  const found = await api.route(workspace, relative)
  const conflict =
    found && info?.routeConflicts.find((each) => each.glob === found.glob && !each.remembered)
  if (!conflict) return found
  const titles = new Map(conflict.claimants.map((name) => [appNamed(name)?.title ?? name, name]))
  const { label } = await ask({
    message: `Which app opens ${conflict.glob}?`,
    detail: "Cowork remembers the answer for this workspace (.cowork/workspace.json › openWith).",
    type: "question",
    buttons: [
      ...[...titles.keys()].map((title) => ({
        label: title,
        sublabel: titles.get(title) === conflict.chosen ? "Opens it now" : undefined,
        card: true,
        role: "submit" as const,
      })),
      { label: "Cancel", role: "cancel" },
    ],
  })
  const chosen = label === null ? undefined : titles.get(label)
  if (!chosen) return null
  await api.openWith(workspace, conflict.glob, chosen)
  update((s) => ({
    info: s.info && {
      ...s.info,
      routeConflicts: s.info.routeConflicts.map((each) =>
        each === conflict ? { ...each, chosen, remembered: true } : each,
      ),
    },
  }))
  return api.route(workspace, relative)
}

function openedFile(root: string, relative: string, glob: string, folder: boolean): OpenedFile {
  const basename = relative.replace(/\/$/, "").split("/").pop() ?? relative
  const dot = basename.lastIndexOf(".")
  return {
    path: `${root}/${relative}`,
    workspaceRelativePath: relative,
    basename,
    ext: folder || dot <= 0 ? "" : basename.slice(dot),
    matchedGlob: glob,
  }
}

/** An Explorer click: a file opens in its app; a folder opens its app when a folder route matches. */
export async function openEntry(entry: api.FileEntry) {
  try {
    await openPath(entry.path, entry.dir)
  } catch (error) {
    if (entry.dir && error instanceof CoworkError && error.name === "NotFound") return
    report(`Cannot open ${entry.name}`, error)
  }
}

/**
 * `cowork.viewSource()` (page 04: "in the text editor"): the pane's widget file in the text
 * viewer, and selected in the Explorer inside its app's folder, beside its other files.
 */
export function revealSource(pane: PaneSpec) {
  const dir = appNamed(pane.app)?.dir
  if (!dir) return
  const path = `${dir}/${pane.file}`
  openText(path)
  update({ left: { open: true, view: EXPLORER_VIEW }, reveal: path })
}

export const toggleLeft = () => update(({ left }) => ({ left: { ...left, open: !left.open } }))
export const togglePanel = () => update(({ panelOpen }) => ({ panelOpen: !panelOpen }))
export function toggleRight() {
  const { right } = getState()
  // The Chat is the right side bar's first tab: shown when no app's tab was.
  const app = right.app ?? CHAT_TAB
  if (!right.open && app !== CHAT_TAB) {
    const shown = appNamed(app)
    if (shown) return showApp(shown)
  }
  update({ right: { open: !right.open, app } })
}
