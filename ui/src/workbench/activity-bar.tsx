/**
 * The rail (activity bar): the workbench's own tiles, then one tile per app in folder order.
 * Dragging a tile onto another makes or fills a folder; dropping it on the empty rail takes it
 * out; the folders are written back to workspace.json.
 */
import {
  createContext,
  useContext,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type DragEvent,
  type KeyboardEvent,
  type ReactNode,
} from "react"
import { toast } from "sonner"

import {
  ContextMenu,
  ContextMenuContent,
  ContextMenuItem,
  ContextMenuTrigger,
} from "@/components/ui/context-menu"
import { Tooltip, TooltipContent, TooltipTrigger } from "@/components/ui/tooltip"
import type { DialogOptions } from "@/frame/protocol"
import { cn } from "@/lib/utils"
import * as api from "./api"
import { AppIcon } from "./app-icon"
import { Codicon } from "./codicon"
import { ask } from "./dialogs"
import { clickTile } from "./navigation"
import { report } from "./report"
import {
  EXPLORER_VIEW,
  MANAGE_VIEW,
  MAX_FOLDER_TITLE,
  dropOnto,
  editFolder,
  hasTile,
  railItems,
  takeOut,
  ungroup,
  viewId,
} from "./rail"
import { reload } from "./session"
import { moved } from "./roving"
import { getState, update, useWorkbench, type State } from "./store"

const DRAG_TYPE = "application/x-cowork-view"
const SYSTEM_TILES = [EXPLORER_VIEW, MANAGE_VIEW]

/**
 * The rail is one Tab stop, as VS Code's activity bar is (a roving tabindex): Tab enters it on the
 * button last focused there (the Explorer at first), ↑/↓ go from button to button, wrapping,
 * Home/End to the first/last, and Tab leaves it. `current` is that button's `data-roving`.
 */
interface Roving {
  current: string
  /** Puts the Tab stop back on the first button when the current one is gone (a folder closed). */
  repair: () => void
}
const RovingContext = createContext<Roving>({ current: EXPLORER_VIEW, repair: () => {} })

/** The tabIndex of the rail button `id`: 0 for the rail's one Tab stop, -1 for the others. */
function useRovingTabIndex(id: string) {
  return useContext(RovingContext).current === id ? 0 : -1
}

const railButtons = (rail: HTMLElement) => [
  ...rail.querySelectorAll<HTMLButtonElement>("button[data-roving]"),
]

function onRailKey(event: KeyboardEvent<HTMLElement>) {
  const buttons = railButtons(event.currentTarget)
  const index = buttons.indexOf(event.target as HTMLButtonElement)
  if (index < 0) return
  const target = moved(event.key, index, buttons.length, ["ArrowUp", "ArrowDown"])
  if (target === undefined) return
  event.preventDefault()
  buttons[target].focus()
}

export function ActivityBar() {
  const info = useWorkbench((s) => s.info)
  const [dragOverRail, setDragOverRail] = useState(false)
  const [current, setCurrent] = useState(EXPLORER_VIEW)
  const rail = useRef<HTMLElement>(null)
  const repair = useRef(() => {
    const node = rail.current
    if (node && !node.querySelector('button[data-roving][tabindex="0"]')) setCurrent(EXPLORER_VIEW)
  }).current
  // An app (or folder) that held the Tab stop was switched off or ungrouped.
  useLayoutEffect(repair)
  if (!info) return <nav className="w-12 shrink-0 bg-sidebar" />
  const appTiles = info.apps.filter(hasTile).map((app) => viewId(app.name))

  return (
    <nav
      ref={rail}
      aria-label="Activity bar"
      data-testid="rail"
      onKeyDown={onRailKey}
      onFocus={(event) => {
        const id = (event.target as HTMLElement).dataset.roving
        if (id) setCurrent(id)
      }}
      className={cn(
        "flex w-12 shrink-0 flex-col items-center gap-0.5 overflow-y-auto border-r bg-sidebar py-1 [scrollbar-width:none]",
        dragOverRail && "bg-sidebar-accent/40",
      )}
      onDragOver={(event) => {
        if (!event.dataTransfer.types.includes(DRAG_TYPE)) return
        event.preventDefault()
        setDragOverRail(true)
      }}
      onDragLeave={() => setDragOverRail(false)}
      onDrop={(event) => {
        setDragOverRail(false)
        const dragged = event.dataTransfer.getData(DRAG_TYPE)
        if (dragged) void saveFolders(takeOut(info.rail.folders, dragged))
      }}
    >
      <RovingContext value={{ current, repair }}>
        <RailGroup views={SYSTEM_TILES} folders={info.rail.folders} />
        <div className="my-1 h-px w-6 shrink-0 bg-border" />
        <RailGroup views={appTiles} folders={info.rail.folders} />
      </RovingContext>
    </nav>
  )
}

function RailGroup({ views, folders }: { views: string[]; folders: api.RailFolder[] }) {
  return railItems(views, folders).map((item) =>
    item.kind === "tile" ? (
      <RailTile key={item.view} view={item.view} />
    ) : (
      <RailFolderTile key={item.folder.id} folder={item.folder} views={item.views} />
    ),
  )
}

/** Writes the folders back (workspace.json › rail.folders), showing them at once. */
async function saveFolders(folders: api.RailFolder[]) {
  const { info, workspace } = getState()
  if (!info) return
  update({ info: { ...info, rail: { folders } } })
  try {
    await api.saveRail(workspace, folders)
  } catch (error) {
    report("Cowork could not save the rail", error)
    await reload()
  }
}

/** Drag handlers that make `target` (a tile or a folder id) a drop place for another tile. */
function useDropTarget(target: string) {
  const [over, setOver] = useState(false)
  const handlers = {
    onDragOver(event: DragEvent) {
      if (!event.dataTransfer.types.includes(DRAG_TYPE)) return
      event.preventDefault()
      event.stopPropagation()
      setOver(true)
    },
    onDragLeave: () => setOver(false),
    onDrop(event: DragEvent) {
      event.preventDefault()
      event.stopPropagation()
      setOver(false)
      const dragged = event.dataTransfer.getData(DRAG_TYPE)
      const folders = getState().info?.rail.folders ?? []
      const result = dropOnto(folders, dragged, target)
      if (result.refused) toast.info(result.refused)
      else void saveFolders(result.folders)
    },
  }
  return { over, handlers }
}

interface TileLook {
  title: string
  glyph: ReactNode
  badge: number
  /** The badge counts problems, not news. */
  warning?: boolean
  /** A site app that hibernates now: its tile is dimmed, its count stays. */
  asleep?: boolean
}

function tileLook(
  view: string,
  state: Pick<State, "info" | "badges"> & Partial<Pick<State, "siteHibernation">>,
): TileLook {
  if (view === EXPLORER_VIEW)
    return { title: "Explorer", glyph: <Codicon name="files" size={24} />, badge: 0 }
  if (view === MANAGE_VIEW) {
    const info = state.info
    const problems =
      (info?.broken.length ?? 0) +
      (info?.problems.length ?? 0) +
      (info?.apps.reduce((sum, app) => sum + app.problems.length, 0) ?? 0)
    return {
      title: "Manage Workspace",
      glyph: <Codicon name="extensions" size={24} />,
      badge: problems,
      warning: true,
    }
  }
  const app = state.info?.apps.find((each) => viewId(each.name) === view)
  // docs/reference/workspace-json.md (`notifications.muted`): a muted app's badge leaves the
  // activity bar's count (the bell still lists it).
  const muted = app !== undefined && state.info?.muted.includes(app.dir) === true
  return {
    title: app?.title ?? view,
    glyph: app ? <AppIcon app={app} /> : null,
    badge: app && !muted ? (state.badges.apps[app.name] ?? 0) : 0,
    asleep: app?.site === true && state.siteHibernation?.[app.name]?.asleep === true,
  }
}

/** Whether the view is what the person is looking at: its side bar, its tab or its modal. */
function isActive(view: string, state: State) {
  if (state.left.open && state.left.view === view) return true
  if (view === MANAGE_VIEW) return state.activeTab === "manage"
  const tab = state.tabs.find((each) => each.key === state.activeTab)
  const app = tab?.kind === "pane" ? tab.pane.app : state.modal?.app
  return app !== undefined && viewId(app) === view
}

function RailTile({ view, nested = false }: { view: string; nested?: boolean }) {
  const info = useWorkbench((s) => s.info)
  const badges = useWorkbench((s) => s.badges)
  const siteHibernation = useWorkbench((s) => s.siteHibernation)
  const active = useWorkbench((s) => isActive(view, s))
  const { over, handlers } = useDropTarget(view)
  const look = tileLook(view, { info, badges, siteHibernation })
  const tabIndex = useRovingTabIndex(view)
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <button
          type="button"
          aria-label={look.title}
          aria-pressed={active}
          data-view={view}
          data-roving={view}
          tabIndex={tabIndex}
          data-asleep={look.asleep || undefined}
          draggable
          onDragStart={(event) => event.dataTransfer.setData(DRAG_TYPE, view)}
          onClick={() => clickTile(view)}
          className={cn(
            "relative grid size-12 shrink-0 place-items-center text-sidebar-foreground/55 outline-none transition-colors hover:text-sidebar-foreground focus-visible:ring-1 focus-visible:ring-ring",
            nested && "size-10",
            active && "text-sidebar-foreground",
            over && "rounded-md bg-sidebar-accent ring-1 ring-ring",
          )}
          {...handlers}
        >
          {active && <ActiveMark nested={nested} />}
          <span className={cn("contents", look.asleep && "[&>*]:opacity-40 [&>*]:grayscale")}>
            {look.glyph}
          </span>
          <CountBadge count={look.badge} className={look.warning ? "bg-amber-500" : undefined} />
        </button>
      </TooltipTrigger>
      <TooltipContent side="right" sideOffset={4}>
        {look.title}
        {look.asleep && " · hibernating (wakes when opened)"}
      </TooltipContent>
    </Tooltip>
  )
}

/** VS Code's bar on the rail's left edge beside what is shown (a nested tile sits 4px in from it). */
function ActiveMark({ nested = false }: { nested?: boolean }) {
  return (
    <span
      data-testid="active-mark"
      className={cn(
        "absolute inset-y-2 left-0 w-0.5 rounded-r bg-sidebar-foreground",
        nested && "inset-y-1.5 -left-1",
      )}
    />
  )
}

function CountBadge({ count, className }: { count: number; className?: string }) {
  if (count <= 0) return null
  return (
    <span
      data-testid="count-badge"
      className={cn(
        "pointer-events-none absolute right-1.5 bottom-1.5 grid h-4 min-w-4 place-items-center rounded-full bg-blue-600 px-1 text-[10px] leading-none font-semibold text-white ring-2 ring-sidebar",
        className,
      )}
    >
      {count > 99 ? "99+" : count}
    </span>
  )
}

function RailFolderTile({ folder, views }: { folder: api.RailFolder; views: string[] }) {
  const open = useWorkbench((s) => s.openFolders.includes(folder.id))
  const setOpen = (opened: boolean) =>
    update((s) => ({
      openFolders: opened
        ? [...s.openFolders, folder.id]
        : s.openFolders.filter((id) => id !== folder.id),
    }))
  const info = useWorkbench((s) => s.info)
  const badges = useWorkbench((s) => s.badges)
  const { over, handlers } = useDropTarget(folder.id)
  const total = views.reduce((sum, view) => sum + tileLook(view, { info, badges }).badge, 0)
  // A closed folder still says one of its apps is what the person is looking at.
  const memberActive = useWorkbench((s) => views.some((view) => isActive(view, s)))
  const folders = info?.rail.folders ?? []
  const tabIndex = useRovingTabIndex(`folder:${folder.id}`)
  const { repair } = useContext(RovingContext)
  // Closed, the folder takes its tiles out of the rail: one of them may have held the Tab stop.
  useEffect(() => {
    if (!open) repair()
  }, [open, repair])
  return (
    <div
      className={cn(
        "flex w-full flex-col items-center rounded-md",
        open && "bg-sidebar-accent/60 pb-1",
      )}
    >
      <ContextMenu>
        <Tooltip>
          <ContextMenuTrigger asChild>
            <TooltipTrigger asChild>
              <button
                type="button"
                aria-label={folder.title}
                aria-expanded={open}
                data-folder={folder.id}
                data-roving={`folder:${folder.id}`}
                tabIndex={tabIndex}
                onClick={() => setOpen(!open)}
                className={cn(
                  "relative grid size-12 shrink-0 place-items-center outline-none focus-visible:ring-1 focus-visible:ring-ring",
                  over && "rounded-md bg-sidebar-accent ring-1 ring-ring",
                )}
                {...handlers}
              >
                {!open && memberActive && <ActiveMark />}
                <span
                  className="grid size-8 grid-cols-2 content-center gap-0.5 rounded-lg bg-sidebar-accent p-[3px] ring-1 ring-sidebar-border"
                  style={
                    folder.color
                      ? { background: `color-mix(in oklab, ${folder.color} 28%, transparent)` }
                      : undefined
                  }
                >
                  {views.slice(0, 4).map((view) => (
                    <MiniGlyph key={view} view={view} />
                  ))}
                </span>
                {!open && <CountBadge count={total} />}
              </button>
            </TooltipTrigger>
          </ContextMenuTrigger>
          <TooltipContent side="right" sideOffset={4}>
            {folder.title}
          </TooltipContent>
        </Tooltip>
        <ContextMenuContent>
          <ContextMenuItem onSelect={() => void renameFolder(folder)}>
            Rename Folder…
          </ContextMenuItem>
          <ContextMenuItem onSelect={() => void saveFolders(ungroup(folders, folder.id))}>
            Ungroup
          </ContextMenuItem>
        </ContextMenuContent>
      </ContextMenu>
      {open && views.map((view) => <RailTile key={view} view={view} nested />)}
    </div>
  )
}

/** A member in the folder's 2×2 preview. */
function MiniGlyph({ view }: { view: string }) {
  const app = useWorkbench((s) => s.info?.apps.find((each) => viewId(each.name) === view))
  return app ? <AppIcon app={app} size="mini" /> : null
}

const FOLDER_COLORS = ["", "#0090ff", "#30a46c", "#e5484d", "#f76b15", "#8e4ec6", "#ffc53d"]

/** Asks for the folder's name and colour; a name over the limit is refused and asked again. */
async function renameFolder(folder: api.RailFolder) {
  let title = folder.title
  let color = folder.color ?? ""
  let alert: DialogOptions["alert"]
  for (;;) {
    const { label, values } = await ask({
      message: "Rename folder",
      alert,
      fields: [
        { id: "title", type: "text", label: "Name", value: title },
        {
          id: "color",
          type: "color",
          label: "Colour",
          value: color,
          options: FOLDER_COLORS.map((value) => ({ label: value || "None", value })),
        },
      ],
      buttons: [
        { label: "Cancel", role: "cancel" },
        { label: "Save", role: "submit", primary: true },
      ],
    })
    if (label !== "Save") return
    title = String(values.title ?? "").trim() || folder.title
    color = String(values.color ?? "")
    if (title.length <= MAX_FOLDER_TITLE) break
    alert = {
      variant: "destructive",
      text: `A folder's name has at most ${MAX_FOLDER_TITLE} characters; this one has ${title.length}.`,
    }
  }
  await saveFolders(
    editFolder(getState().info?.rail.folders ?? [], folder.id, {
      title,
      color: color || undefined,
    }),
  )
}
