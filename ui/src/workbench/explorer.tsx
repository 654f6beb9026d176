/**
 * The Explorer: the workspace as a tree, each folder listed when it is first opened
 * (`/api/files`) and listed again, keeping what is expanded, when files may have changed: a run
 * finished, the apps changed, the window got focus back, Refresh. A click routes through
 * `fileRouting`: a file opens in the app that claims it (else the text viewer), and a folder a
 * folder route matches opens its app as it expands.
 */
import { useEffect, useRef, useState } from "react"

import { cn } from "@/lib/utils"
import * as api from "./api"
import { Codicon } from "./codicon"
import { openEntry } from "./navigation"
import { useWorkbench } from "./store"

export function Explorer({ hidden }: { hidden: boolean }) {
  const name = useWorkbench((s) => s.info?.workspace.name)
  const [refreshes, setRefreshes] = useState(0)
  const [selected, setSelected] = useState<string | null>(null)
  const filesChanged = useWorkbench((s) => s.filesChanged)
  const generation = refreshes + filesChanged
  useEffect(() => {
    // Files change outside the workbench too (an editor, a terminal): coming back shows them.
    const onFocus = () => setRefreshes((n) => n + 1)
    window.addEventListener("focus", onFocus)
    return () => window.removeEventListener("focus", onFocus)
  }, [])
  return (
    <div
      role="tree"
      aria-label="Files"
      className={cn("absolute inset-0 flex flex-col", hidden && "hidden")}
    >
      <div className="group flex h-[22px] shrink-0 items-center gap-1 px-2 text-[11px] font-bold tracking-wide uppercase">
        <Codicon name="chevron-down" />
        <span className="flex-1 truncate">{name}</span>
        <button
          type="button"
          aria-label="Refresh Explorer"
          title="Refresh Explorer"
          onClick={() => setRefreshes(refreshes + 1)}
          className="grid size-5 place-items-center rounded opacity-0 group-hover:opacity-100 hover:bg-sidebar-accent focus-visible:opacity-100"
        >
          <Codicon name="refresh" />
        </button>
      </div>
      <div className="min-h-0 flex-1 overflow-auto pb-4 text-[13px]">
        <FolderEntries
          path=""
          depth={0}
          generation={generation}
          selected={selected}
          onSelect={setSelected}
        />
      </div>
    </div>
  )
}

interface TreeProps {
  depth: number
  /** Moves when the folders shown should be listed again. */
  generation: number
  selected: string | null
  onSelect(path: string): void
}

function FolderEntries({ path, ...tree }: TreeProps & { path: string }) {
  const workspace = useWorkbench((s) => s.workspace)
  const [entries, setEntries] = useState<api.FileEntry[] | Error | null>(null)
  // biome-ignore lint/correctness/useExhaustiveDependencies: `tree.generation` is the trigger of a refresh, not a value the effect reads
  useEffect(() => {
    // The old listing stays on screen until the new one arrives, so a refresh does not flicker.
    let current = true
    api.files(workspace, path).then(
      (listed) => current && setEntries(listed),
      (error: Error) => current && setEntries(error),
    )
    return () => {
      current = false
    }
  }, [workspace, path, tree.generation])
  const indent = { paddingLeft: 8 + (tree.depth + 1) * 12 }
  if (entries === null) return <div className="h-[22px]" style={indent} />
  if (entries instanceof Error) {
    return (
      <div className="py-0.5 pr-2 text-xs text-destructive" style={indent}>
        {entries.message}
      </div>
    )
  }
  return entries.map((entry) => <TreeRow key={entry.path} entry={entry} {...tree} />)
}

function TreeRow({
  entry,
  depth,
  generation,
  selected,
  onSelect,
}: TreeProps & { entry: api.FileEntry }) {
  const reveal = useWorkbench((s) => s.reveal)
  const revealed = reveal !== null && (reveal === entry.path || reveal.startsWith(`${entry.path}/`))
  const [open, setOpen] = useState(revealed)
  const row = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (!revealed) return
    setOpen(true)
    if (reveal === entry.path) {
      onSelect(entry.path)
      row.current?.scrollIntoView({ block: "center" })
    }
  }, [reveal, revealed, entry.path, onSelect])

  function click() {
    onSelect(entry.path)
    if (entry.dir) setOpen(!open)
    if (!entry.dir || !open) void openEntry(entry)
  }

  return (
    <>
      <button
        ref={row}
        type="button"
        role="treeitem"
        aria-expanded={entry.dir ? open : undefined}
        aria-selected={selected === entry.path}
        data-path={entry.path}
        onClick={click}
        style={{ paddingLeft: 8 + depth * 12 }}
        className={cn(
          "flex h-[22px] w-full items-center gap-1.5 pr-2 text-left whitespace-nowrap outline-none hover:bg-sidebar-accent/70 focus-visible:ring-1 focus-visible:ring-ring focus-visible:ring-inset",
          selected === entry.path && "bg-sidebar-accent text-sidebar-accent-foreground",
        )}
      >
        <Codicon
          name={open ? "chevron-down" : "chevron-right"}
          className={cn(!entry.dir && "invisible")}
        />
        <Codicon
          name={entry.dir ? (open ? "folder-opened" : "folder") : "file"}
          className={entry.dir ? "text-sidebar-foreground/70" : "text-sidebar-foreground/55"}
        />
        <span className="truncate">{entry.name}</span>
      </button>
      {entry.dir && open && (
        <FolderEntries
          path={entry.path}
          depth={depth + 1}
          generation={generation}
          selected={selected}
          onSelect={onSelect}
        />
      )}
    </>
  )
}
