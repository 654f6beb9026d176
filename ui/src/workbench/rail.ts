/**
 * The activity bar's content, without the DOM: which apps get a tile, how tiles and the folders of
 * `workspace.json#rail.folders` interleave, and how dragging one tile onto another changes the
 * folders.
 *
 * A tile is named by its view-container id (`workbench.view.cowork.app.<name>` for an app); the
 * system tiles (Explorer, Manage Workspace) are a group of their own, and a folder never mixes
 * the two groups.
 */
import type { App, RailFolder } from "./api"

export const APP_VIEW_PREFIX = "workbench.view.cowork.app."
export const EXPLORER_VIEW = "workbench.view.explorer"
export const MANAGE_VIEW = "workbench.view.cowork.manage"
export const MAX_FOLDERS = 12
export const MAX_MEMBERS = 24
/** workspace.schema.json: `rail.folders[].title` has at most 40 characters. */
export const MAX_FOLDER_TITLE = 40

/**
 * The workbench's own views: an app whose title starts with one of these names gets no tile,
 * so it cannot pass for one of them.
 */
export const SYSTEM_NAMES = [
  "Explorer",
  "Search",
  "Source Control",
  "Run and Debug",
  "Extensions",
  "Manage Workspace",
  "Accounts",
  "Chat",
]

export const viewId = (app: string) => `${APP_VIEW_PREFIX}${app}`

const groupOf = (view: string) => (view.startsWith(APP_VIEW_PREFIX) ? "apps" : "system")

/** Whether `app` gets a rail tile: switched on, owns its name, has a UI, and does not pose as the workbench. */
export function hasTile(app: App) {
  const title = app.title.toLowerCase()
  return (
    app.kind === "app" &&
    app.enabled &&
    app.ownsName &&
    (app.entry != null || app.site || app.webUrl != null) &&
    app.display !== "right" &&
    !SYSTEM_NAMES.some((name) => title.startsWith(name.toLowerCase()))
  )
}

export type RailItem =
  | { kind: "tile"; view: string }
  | { kind: "folder"; folder: RailFolder; views: string[] }

/**
 * `tiles` (in their own order) with folders in place: a folder stands where its first present
 * member would, holding its present members in the folder's order. Members that are not tiles
 * (an app switched off) stay in the folder's data but are not drawn; past the limits (12
 * folders, 24 tiles each) a hand-edited workspace.json's extra folders and members are ignored.
 */
export function railItems(tiles: string[], folders: RailFolder[]): RailItem[] {
  const present = new Set(tiles)
  const folderOf = new Map<string, RailFolder>()
  for (const folder of folders.slice(0, MAX_FOLDERS)) {
    for (const member of folder.members.slice(0, MAX_MEMBERS)) {
      if (present.has(member) && !folderOf.has(member)) folderOf.set(member, folder)
    }
  }
  const items: RailItem[] = []
  const placed = new Set<RailFolder>()
  for (const view of tiles) {
    const folder = folderOf.get(view)
    if (!folder) items.push({ kind: "tile", view })
    else if (!placed.has(folder)) {
      placed.add(folder)
      items.push({
        kind: "folder",
        folder,
        views: folder.members.filter((member) => folderOf.get(member) === folder),
      })
    }
  }
  return items
}

/** Why a drop was refused, for the person; null when it was taken. */
export type DropResult =
  | { folders: RailFolder[]; refused: null }
  | { folders: RailFolder[]; refused: string }

/**
 * `dragged` dropped onto `target` (a tile or a folder's id): into the target's folder, or a new
 * folder of the two. The folder `dragged` leaves is dissolved when fewer than two stay in it.
 */
export function dropOnto(folders: RailFolder[], dragged: string, target: string): DropResult {
  const refuse = (refused: string) => ({ folders, refused })
  if (dragged === target) return refuse("A tile cannot go into itself.")
  const targetFolder = folders.find(
    (folder) => folder.id === target || folder.members.includes(target),
  )
  const targetView = targetFolder ? targetFolder.members[0]! : target
  if (groupOf(targetView) !== groupOf(dragged)) {
    return refuse("App tiles and the workbench's own tiles never share a folder.")
  }
  if (targetFolder?.members.includes(dragged)) return refuse("It is in that folder already.")
  if (targetFolder && targetFolder.members.length >= MAX_MEMBERS) {
    return refuse(`A folder holds at most ${MAX_MEMBERS} tiles.`)
  }
  const without = takeOut(folders, dragged)
  if (targetFolder) {
    return {
      folders: without.map((folder) =>
        folder.id === targetFolder.id
          ? { ...folder, members: [...folder.members, dragged] }
          : folder,
      ),
      refused: null,
    }
  }
  if (without.length >= MAX_FOLDERS) return refuse(`The rail holds at most ${MAX_FOLDERS} folders.`)
  const folder: RailFolder = {
    id: freshId(without),
    title: "New Folder",
    members: [target, dragged],
  }
  return { folders: [...without, folder], refused: null }
}

/** `view` out of its folder; a folder left with fewer than two tiles is dissolved. */
export function takeOut(folders: RailFolder[], view: string): RailFolder[] {
  return folders.flatMap((folder) => {
    if (!folder.members.includes(view)) return [folder]
    const members = folder.members.filter((member) => member !== view)
    return members.length >= 2 ? [{ ...folder, members }] : []
  })
}

/** Renames or recolors one folder. */
export function editFolder(
  folders: RailFolder[],
  id: string,
  change: Pick<RailFolder, "title" | "color">,
) {
  return folders.map((folder) => (folder.id === id ? { ...folder, ...change } : folder))
}

/** Dissolves one folder: its tiles go back to the rail. */
export function ungroup(folders: RailFolder[], id: string) {
  return folders.filter((folder) => folder.id !== id)
}

function freshId(folders: RailFolder[]) {
  const taken = new Set(folders.map((folder) => folder.id))
  let n = 1
  while (taken.has(`folder-${n}`)) n++
  return `folder-${n}`
}
