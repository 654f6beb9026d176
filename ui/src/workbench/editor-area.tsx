/**
 * The editor area: a tab per `tab` app click, per routed file and for Manage Workspace. Every
 * tab's pane stays mounted; only the active one is visible.
 */
import { useEffect, useRef, type KeyboardEvent } from "react"

import { cn } from "@/lib/utils"
import { AppIcon } from "./app-icon"
import { Codicon } from "./codicon"
import { ManageWorkspace } from "./manage-workspace"
import { closeTab } from "./navigation"
import { PaneFrame } from "./pane-frame"
import { moved } from "./roving"
import { getState, paneTitle, update, useApp, useWorkbench, type Tab } from "./store"
import { TextViewer } from "./text-viewer"
import { TitleActions } from "./title-actions"
import { ViewBoundary } from "./view-boundary"
import { WebFrame } from "./web-frame"

export function EditorArea() {
  const tabs = useWorkbench((s) => s.tabs)
  const active = useWorkbench((s) => s.activeTab)
  if (tabs.length === 0) return <Watermark />
  return (
    <section aria-label="Editor" className="flex h-full flex-col bg-background">
      <div
        ref={keepShownTabInView}
        role="tablist"
        aria-label="Editor tabs"
        className="flex h-9 shrink-0 overflow-x-auto bg-sidebar [scrollbar-width:thin]"
      >
        {tabs.map((tab) => (
          <EditorTab key={tab.key} tab={tab} active={tab.key === active} />
        ))}
        <div className="flex flex-1 items-center justify-end border-b px-2">
          <TitleActions
            paneKey={
              tabs.find((tab) => tab.key === active)?.kind === "pane"
                ? (active ?? undefined)
                : undefined
            }
          />
        </div>
      </div>
      <div className="relative min-h-0 flex-1">
        {tabs.map((tab) =>
          tab.kind === "opening" ? null : tab.kind === "text" ? (
            <TextViewer key={tab.key} path={tab.path} visible={tab.key === active} />
          ) : tab.kind === "manage" ? (
            tab.key === active && (
              <ViewBoundary key={tab.key} name="Manage Workspace" className="absolute inset-0">
                <ManageWorkspace />
              </ViewBoundary>
            )
          ) : tab.pane.web ? (
            <WebFrame
              key={tab.key}
              spec={tab.pane}
              visible={tab.key === active}
              className="absolute inset-0"
            />
          ) : (
            <PaneFrame
              key={tab.key}
              spec={tab.pane}
              visible={tab.key === active}
              className="absolute inset-0"
            />
          ),
        )}
      </div>
    </section>
  )
}

function EditorTab({ tab, active }: { tab: Tab; active: boolean }) {
  const app = useApp(tab.kind === "pane" ? tab.pane.app : undefined)
  const title =
    tab.kind === "pane"
      ? paneTitle(tab.pane, app)
      : tab.kind === "manage"
        ? "Manage Workspace"
        : basename(tab.path)
  const element = useRef<HTMLDivElement>(null)
  // A tab opened (or picked) past the strip's edge scrolls into view, as VS Code's does.
  useEffect(() => {
    if (active && element.current) revealTab(element.current)
  }, [active])
  const tooltip =
    tab.kind === "pane"
      ? (tab.pane.openedFile?.workspaceRelativePath ??
        `${app?.title ?? tab.pane.app} — ${tab.pane.file}`)
      : tab.kind === "text"
        ? `${tab.path} (read-only)`
        : tab.kind === "opening"
          ? `${tab.path} (opening)`
          : undefined
  return (
    <div
      ref={element}
      role="tab"
      aria-selected={active}
      aria-busy={tab.kind === "opening" || undefined}
      title={tooltip}
      tabIndex={active ? 0 : -1}
      onClick={() => update({ activeTab: tab.key })}
      onKeyDown={(event) => onTabKey(event, tab.key)}
      onAuxClick={(event) => event.button === 1 && closeTab(tab.key)}
      className={cn(
        "group relative flex h-full max-w-56 min-w-0 shrink-0 cursor-pointer items-center gap-2 border-r border-b pr-1.5 pl-3 text-[13px] text-muted-foreground outline-none select-none hover:text-foreground focus-visible:ring-1 focus-visible:ring-ring focus-visible:ring-inset",
        active &&
          "border-b-transparent bg-background text-foreground before:absolute before:inset-x-0 before:top-0 before:h-px before:bg-blue-500",
      )}
    >
      {app ? (
        <AppIcon app={app} size="small" />
      ) : (
        <Codicon
          name={
            tab.kind === "text" ? "file" : tab.kind === "opening" ? "loading~spin" : "extensions"
          }
        />
      )}
      <span className="truncate">{title}</span>
      <button
        type="button"
        aria-label={`Close ${title}`}
        onClick={(event) => {
          event.stopPropagation()
          closeTab(tab.key)
        }}
        className={cn(
          "grid size-5 shrink-0 place-items-center rounded opacity-0 group-hover:opacity-100 hover:bg-accent focus-visible:opacity-100",
          active && "opacity-100",
        )}
      >
        <Codicon name="close" />
      </button>
    </div>
  )
}

/** The strip narrowed (the window did, or a side bar opened): the shown tab stays in view. */
function keepShownTabInView(strip: HTMLDivElement) {
  const observer = new ResizeObserver(() => {
    const shown = strip.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]')
    if (shown) revealTab(shown)
  })
  observer.observe(strip)
  return () => observer.disconnect()
}

const basename = (path: string) => path.split("/").pop() || path

/**
 * The WAI-ARIA tablist's keys on a tab (not on its Close button): Enter/Space show it; ←/→ go to
 * the previous/next tab, wrapping, and Home/End to the first/last. As VS Code's tabs do, the tab
 * focus lands on is shown at once (selection follows focus), so the strip keeps one Tab stop.
 */
function onTabKey(event: KeyboardEvent<HTMLElement>, key: string) {
  if (event.target !== event.currentTarget) return
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault()
    update({ activeTab: key })
    return
  }
  const { tabs } = getState()
  const index = tabs.findIndex((tab) => tab.key === key)
  const target = moved(event.key, index, tabs.length, ["ArrowLeft", "ArrowRight"])
  if (target === undefined || index < 0) return
  event.preventDefault()
  update({ activeTab: tabs[target].key })
  const strip = event.currentTarget.parentElement
  const next = strip?.querySelectorAll<HTMLElement>('[role="tab"]')[target]
  next?.focus({ preventScroll: true })
  if (next) revealTab(next)
}

/**
 * Scrolls the tab strip (only it: not the layout around it, which must not move) so that `tab`
 * is wholly in view, the least distance — `scrollIntoView`'s `inline: "nearest"`.
 */
function revealTab(tab: HTMLElement) {
  const strip = tab.parentElement
  if (!strip) return
  const box = strip.getBoundingClientRect()
  const own = tab.getBoundingClientRect()
  if (own.left < box.left) strip.scrollLeft -= box.left - own.left
  else if (own.right > box.right)
    strip.scrollLeft += Math.min(own.right - box.right, own.left - box.left)
}

/** The empty editor area: the workspace, and how to start. */
function Watermark() {
  const name = useWorkbench((s) => s.info?.workspace.name)
  const hints: [string, string][] = [
    ["files", "Open a file from the Explorer"],
    ["extensions", "Switch apps on and off in Manage Workspace"],
    ["output", "Routine logs stream into the Output panel"],
  ]
  return (
    <section
      aria-label="Editor"
      className="flex h-full flex-col items-center justify-center gap-6 bg-background p-8 text-center select-none"
    >
      <div className="grid size-20 place-items-center rounded-3xl bg-gradient-to-br from-blue-500 to-violet-600 text-white shadow-lg shadow-blue-500/20">
        <Codicon name="layers" size={40} />
      </div>
      <div className="grid gap-1">
        <h1 className="text-xl font-semibold tracking-tight">{name}</h1>
        <p className="text-sm text-muted-foreground">Cowork Studio</p>
      </div>
      <ul className="grid gap-2 text-sm text-muted-foreground">
        {hints.map(([icon, text]) => (
          <li key={icon} className="flex items-center gap-2">
            <Codicon name={icon} className="opacity-70" />
            {text}
          </li>
        ))}
      </ul>
    </section>
  )
}
