/**
 * The window as this workspace's last window had it, kept in this browser's localStorage per
 * workspace: whether each side bar was open (docs/reference/workspace-json.md: an absent
 * `startup.left` / `startup.right` "keeps whatever the window last had"), what the left side bar
 * showed, the rail folders shown open, and the editor tabs, so a reload or a switch back to the
 * workspace does not close them.
 */
import { keep } from "./kept"
import { getState, subscribe, type PaneSpec } from "./store"

/** An editor tab as written down: a pane's key is minted again when it reopens. */
export type SavedTab =
  | { kind: "pane"; pane: Omit<PaneSpec, "key"> }
  | { kind: "text"; path: string }
  | { kind: "manage" }

export interface SavedWindow {
  left?: boolean
  /**
   * The left side bar's view (rail.ts ids): the Explorer or a side bar app's. Absent for a
   * workspace never open here: that first open starts on `startup.home`.
   */
  leftView?: string
  right?: boolean
  /** The rail folders shown open. */
  openFolders?: string[]
  tabs: SavedTab[]
  /** Which of `tabs` was shown. */
  active?: number
}

const key = (workspace: string) => `cowork.window:${workspace}`

/** What the window last had for `workspace`; nothing for a workspace never opened here. */
export function rememberedWindow(workspace: string): SavedWindow {
  try {
    const saved = JSON.parse(localStorage.getItem(key(workspace)) ?? "{}") as Partial<SavedWindow>
    return {
      left: typeof saved.left === "boolean" ? saved.left : undefined,
      leftView: typeof saved.leftView === "string" ? saved.leftView : undefined,
      right: typeof saved.right === "boolean" ? saved.right : undefined,
      openFolders: Array.isArray(saved.openFolders)
        ? saved.openFolders.filter((id) => typeof id === "string")
        : undefined,
      tabs: Array.isArray(saved.tabs) ? saved.tabs : [],
      active: typeof saved.active === "number" ? saved.active : undefined,
    }
  } catch {
    return { tabs: [] }
  }
}

/** Writes the side bars and the tabs down whenever they change, from now on. */
export function rememberWindow(workspace: string) {
  let last = ""
  return subscribe(() => {
    const { left, right, activeTab, openFolders } = getState()
    // A tab still opening is not written down: the file's own tab is, once the daemon has answered.
    const tabs = getState().tabs.filter((tab) => tab.kind !== "opening")
    const saved: SavedWindow = {
      left: left.open,
      leftView: left.view,
      right: right.open,
      openFolders,
      tabs: tabs.map((tab): SavedTab => {
        if (tab.kind === "text") return { kind: "text", path: tab.path }
        if (tab.kind !== "pane") return { kind: "manage" }
        const { key: _key, ...pane } = tab.pane
        return { kind: "pane", pane }
      }),
      active: tabs.findIndex((tab) => tab.key === activeTab),
    }
    const now = JSON.stringify(saved)
    if (now === last) return
    last = now
    keep(key(workspace), now)
  })
}
