/**
 * The workbench's state: one object, changed only through `update`, read by components through
 * `useWorkbench(select)`. The controllers (navigation, footer, live panes …) change it; the
 * components draw it.
 */
import { useSyncExternalStore } from "react"

import type {
  DialogOptions,
  DialogResult,
  NotificationEvent,
  OpenedFile,
  StatusBarItem,
  Theme,
  TitleAction,
  ViewKind,
} from "@/frame/protocol"
import type { AccountInfo, Badges, WorkbenchInfo } from "./api"
import type { SiteHibernation } from "./desktop"
import { EXPLORER_VIEW } from "./rail"

/** One widget pane the workbench shows (in a side bar, a tab or the modal). */
export interface PaneSpec {
  /** Unique for the session; what the workbench calls the pane. */
  key: string
  /** The app's name. */
  app: string
  /** The widget, relative to the app folder. */
  file: string
  view: ViewKind
  title: string
  openedFile?: OpenedFile
  /** A web app's page (`web.index`): drawn on the app's own origin as it ships, not as a widget. */
  web?: boolean
}

export type Tab =
  | { key: string; kind: "pane"; pane: PaneSpec }
  | { key: "manage"; kind: "manage" }
  /** A workspace file no app opens (or an app's source), read-only: `path` is workspace-relative. */
  | { key: string; kind: "text"; path: string }
  /**
   * A clicked file's tab while the daemon says which app opens it: it holds the file's place in the
   * strip (and the focus, unless another tab takes it) and becomes the file's tab.
   */
  | { key: string; kind: "opening"; path: string }

/** An app's footer item: what its routine last returned, or why it failed. */
export interface FooterEntry {
  item: StatusBarItem | null
  error?: string
  busy: boolean
}

export interface OutputLine {
  at: number
  /** The app (`cowork.log`) or routine (`ctx.log`, stdout, stderr) it came from. */
  source: string
  stream?: string
  text: string
}

export interface DialogRequest {
  id: number
  options: DialogOptions
  /** Set for `scope: "pane"`: only that pane is dimmed. */
  paneKey?: string
  resolve(result: DialogResult): void
}

export interface State {
  /** The workspace path every call names. */
  workspace: string
  info: WorkbenchInfo | null
  /** Why the workbench cannot start (no token, the daemon refused). */
  fatal: string | null
  theme: Theme
  /** The left side bar: open or not, and the view it shows (a view-container id). */
  left: { open: boolean; view: string }
  /** The right side bar: open or not, and the app whose tab it shows. */
  right: { open: boolean; app: string | null }
  panelOpen: boolean
  /** The rail folders shown open (their ids), as the window last had them. */
  openFolders: string[]
  tabs: Tab[]
  activeTab: string | null
  /** Panes of the side bars, kept alive while another view is shown. */
  sidePanes: PaneSpec[]
  rightPanes: PaneSpec[]
  modal: PaneSpec | null
  notifications: NotificationEvent[]
  unread: number
  badges: Badges
  footer: Record<string, FooterEntry>
  output: OutputLine[]
  dialogs: DialogRequest[]
  /**
   * Counts what may have changed the workspace's files (a run finished, the apps changed): the
   * Explorer lists its open folders again when it moves.
   */
  filesChanged: number
  /** Counts runs started and finished: Executions and the Monitor read their lists again. */
  runsChanged: number
  /** Counts changes to the task store (the daemon's `queues` event): the Tasks view reads again. */
  queuesChanged: number
  /** A path the Explorer should open to and select (`viewSource`). */
  reveal: string | null
  /** The buttons a pane put in its title bar (`cowork.setTitleActions`), by pane key. */
  titleActions: Record<string, TitleAction[]>
  /** The site apps that hibernate or sleep, by app name, as the desktop shell last said (site-hibernation.ts). */
  siteHibernation: Record<string, SiteHibernation>
  /** Who is signed in to Cowork on this machine (account.ts); null until first read. */
  account: AccountInfo | null
}

const OUTPUT_LINES = 2000
const NOTIFICATIONS = 200

let state: State = {
  workspace: "",
  info: null,
  fatal: null,
  theme: "light",
  left: { open: true, view: EXPLORER_VIEW },
  right: { open: false, app: null },
  panelOpen: false,
  openFolders: [],
  tabs: [],
  activeTab: null,
  sidePanes: [],
  rightPanes: [],
  modal: null,
  notifications: [],
  unread: 0,
  badges: { apps: {}, total: 0 },
  footer: {},
  output: [],
  dialogs: [],
  filesChanged: 0,
  runsChanged: 0,
  queuesChanged: 0,
  reveal: null,
  titleActions: {},
  siteHibernation: {},
  account: null,
}

const listeners = new Set<() => void>()

export const getState = () => state

export function update(change: Partial<State> | ((state: State) => Partial<State>)) {
  state = { ...state, ...(typeof change === "function" ? change(state) : change) }
  for (const listener of listeners) listener()
}

/** Calls `listener` after every change; returns the unsubscribe. */
export function subscribe(listener: () => void) {
  listeners.add(listener)
  return () => void listeners.delete(listener)
}

/** A slice of the state; the component redraws when that slice changes (by identity). */
export function useWorkbench<T>(select: (state: State) => T): T {
  return useSyncExternalStore(subscribe, () => select(state))
}

/** A line in the "Cowork" Output panel. */
export function appendOutput(line: Omit<OutputLine, "at">) {
  update((s) => ({ output: [...s.output, { at: Date.now(), ...line }].slice(-OUTPUT_LINES) }))
}

/**
 * A notification in the bell, newest first. `replaced`: it took the place of the app's newest one
 * with the same tag (not yet seen), which leaves the bell as it left the daemon's.
 */
export function addNotification(notification: NotificationEvent, replaced = false) {
  update((s) => {
    const gone = replaced
      ? s.notifications.findIndex((n) => n.app === notification.app && n.tag === notification.tag)
      : -1
    const kept = gone < 0 ? s.notifications : s.notifications.filter((_, index) => index !== gone)
    return {
      notifications: [notification, ...kept].slice(0, NOTIFICATIONS),
      unread: gone < 0 ? s.unread + 1 : s.unread,
    }
  })
}

/** The app named `name`, if the workspace has it. */
export const appNamed = (name: string) =>
  state.info?.apps.find((app) => app.name === name && app.ownsName)

/** `appNamed` for a component: it redraws when a reload changes the app (its title, its icon). */
export const useApp = (name: string | undefined) =>
  useSyncExternalStore(subscribe, () => (name === undefined ? undefined : appNamed(name)))

/** A pane's name: the file it shows, else its app's title as the registry has it now. */
export const paneTitle = (pane: PaneSpec, app: ReturnType<typeof appNamed>) =>
  pane.openedFile ? pane.title : (app?.title ?? pane.title)
