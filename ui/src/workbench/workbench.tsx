/**
 * The workbench's frame: title bar, rail, the side bars and the editor area with its panel
 * between them, the footer; the dialogs float over it all.
 */
import {
  startTransition,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type ReactNode,
} from "react"
import type { PanelImperativeHandle } from "react-resizable-panels"

import { ResizableHandle, ResizablePanel, ResizablePanelGroup } from "@/components/ui/resizable"
import { Toaster } from "@/components/ui/sonner"
import { ActivityBar } from "./activity-bar"
import { Codicon } from "./codicon"
import { WindowDialog } from "./dialog-view"
import { EditorArea } from "./editor-area"
import { drawn } from "./footer"
import { ModalPane } from "./modal-pane"
import { closeTab, toggleLeft, togglePanel, toggleRight } from "./navigation"
import { OutputPanel } from "./output-panel"
import { afterPaint } from "./paint"
import { dropShell, keepShell } from "./shell"
import { RightBar, SideBar } from "./side-bars"
import { StatusBar } from "./status-bar"
import { getState, update, useWorkbench, type State } from "./store"
import { TitleBar } from "./title-bar"
import { ViewBoundary } from "./view-boundary"

export function Workbench() {
  const fatal = useWorkbench((s) => s.fatal)
  const info = useWorkbench((s) => s.info)
  const ready = info !== null
  const whole = useSecondFrame(ready)
  useDocumentTitle()
  useLayoutShortcuts()
  // bench/desktop prints where a start goes: these are the page's steps after its data is in.
  useLayoutEffect(() => {
    if (ready) performance.mark("workbench rendered")
  }, [ready])
  // What the next start paints first: the workbench as drawn now, and again when its apps change
  // or what the title bar and status bar show arrives (the account: Sign in or who; which apps
  // have a footer item), so that the next start's shell does not shift when they come.
  const around = useWorkbench(
    (s) =>
      `${s.account ? Boolean(s.account.user) : ""} ${Object.keys(s.footer)
        .filter((app) => drawn(app, s.footer[app]))
        .join()}`,
  )
  // biome-ignore lint/correctness/useExhaustiveDependencies: `around` is the trigger (other components draw what it names), not a value the effect reads
  useLayoutEffect(() => {
    if (info) keepShell(document.getElementById("root")!)
  }, [info, around])
  // The shell index.html painted goes in the frame that draws the workbench, or its error.
  useLayoutEffect(() => {
    if (ready || fatal) dropShell()
  }, [ready, fatal])
  useLayoutEffect(() => {
    if (whole) performance.mark("workbench whole")
  }, [whole])
  if (fatal) return <Fatal message={fatal} />
  if (!ready) return <div className="h-full bg-background" aria-busy />
  return (
    <div className="flex h-full flex-col bg-background text-foreground">
      <TitleBar />
      <div className="flex min-h-0 flex-1">
        <ViewBoundary name="The activity bar" className="w-12 shrink-0 p-1">
          <ActivityBar />
        </ViewBoundary>
        {whole ? <Middle /> : <div className="min-w-0 flex-1" />}
      </div>
      <ViewBoundary name="The status bar" className="h-6 py-0">
        <StatusBar />
      </ViewBoundary>
      <WindowDialog />
      <ModalPane />
      <Toaster position="bottom-right" />
    </div>
  )
}

/**
 * Whether to draw the whole workbench yet: the title bar, rail and status bar are drawn in the
 * first frame and the rest in the next. The side bars, editor area and panel are most of the first
 * render's work (about 160 of 210 ms in the desktop app's release build, BENCHMARKS.md "Where a
 * start goes"), and the resizable panels measure their layout while mounting, which forces the
 * page's first layout inside that render; drawn after the rail, they no longer hold it back.
 */
function useSecondFrame(ready: boolean) {
  const [whole, setWhole] = useState(false)
  useEffect(() => {
    if (!ready || whole) return
    // A hidden window still draws it, a second later: its panes send notifications. (Not sooner:
    // on a busy machine the rail's frame itself can take a few hundred ms.)
    return afterPaint(() => startTransition(() => setWhole(true)), 1000)
  }, [ready, whole])
  return whole
}

/** The side bars and the editor area with its panel between them, each resizable. */
function Middle() {
  return (
    <ResizablePanelGroup orientation="horizontal" className="min-w-0 flex-1" data-shell="blank">
      <Collapsible
        id="left"
        defaultSize="280px"
        minSize="180px"
        open={(s) => s.left.open}
        setOpen={(open) => update((s) => ({ left: { ...s.left, open } }))}
      >
        <ViewBoundary name="The side bar" className="h-full">
          <SideBar />
        </ViewBoundary>
      </Collapsible>
      <ResizableHandle />
      <ResizablePanel id="center" minSize="320px">
        <ResizablePanelGroup orientation="vertical">
          <ResizablePanel id="editor" minSize="120px">
            <ViewBoundary name="The editor area" className="h-full">
              <EditorArea />
            </ViewBoundary>
          </ResizablePanel>
          <ResizableHandle />
          <Collapsible
            id="panel"
            defaultSize="32%"
            minSize="90px"
            open={(s) => s.panelOpen}
            setOpen={(panelOpen) => update({ panelOpen })}
          >
            <ViewBoundary name="The panel" className="h-full">
              <OutputPanel />
            </ViewBoundary>
          </Collapsible>
        </ResizablePanelGroup>
      </ResizablePanel>
      <ResizableHandle />
      <Collapsible
        id="right"
        defaultSize="360px"
        minSize="240px"
        open={(s) => s.right.open}
        setOpen={(open) => update((s) => ({ right: { ...s.right, open } }))}
      >
        <ViewBoundary name="The secondary side bar" className="h-full">
          <RightBar />
        </ViewBoundary>
      </Collapsible>
    </ResizablePanelGroup>
  )
}

/**
 * A panel the person opens and closes (toggles, or dragging it shut). It stays mounted while
 * closed, collapsed to nothing, so the panes in it live on.
 */
function Collapsible({
  id,
  defaultSize,
  minSize,
  open,
  setOpen,
  children,
}: {
  id: string
  defaultSize: string
  minSize: string
  open(state: State): boolean
  setOpen(open: boolean): void
  children: ReactNode
}) {
  const panel = useRef<PanelImperativeHandle>(null)
  // Sizes reported before the first sync are the default size, not the person's doing.
  const synced = useRef(false)
  const isOpen = useWorkbench(open)
  useEffect(() => {
    const handle = panel.current
    if (!handle) return
    if (isOpen && handle.isCollapsed()) handle.expand()
    if (!isOpen && !handle.isCollapsed()) handle.collapse()
    synced.current = true
  }, [isOpen])
  return (
    <ResizablePanel
      id={id}
      panelRef={panel}
      collapsible
      collapsedSize="0px"
      defaultSize={defaultSize}
      minSize={minSize}
      groupResizeBehavior={
        defaultSize.endsWith("px") ? "preserve-pixel-size" : "preserve-relative-size"
      }
      onResize={(size) => {
        const shown = size.inPixels > 0
        if (synced.current && shown !== open(getState())) setOpen(shown)
      }}
      // Closed, its contents stay mounted but out of reach: Tab no longer lands on (and scrolls the
      // layout to) a closed panel's buttons.
      inert={!isOpen}
    >
      {children}
    </ResizablePanel>
  )
}

/**
 * VS Code's layout keys: Ctrl/⌘+B the side bar, Ctrl/⌘+Alt+B the right one, Ctrl/⌘+J the panel.
 * (Keys pressed inside a pane stay in its frame.)
 */
function useLayoutShortcuts() {
  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      if (!(event.ctrlKey || event.metaKey) || event.shiftKey) return
      const key = event.code
      const shown = getState().activeTab
      if (key === "KeyB" && event.altKey) void toggleRight()
      else if (key === "KeyB") toggleLeft()
      else if (key === "KeyJ" && !event.altKey) togglePanel()
      // As in VS Code: the editor tab shown closes (the desktop app's Close Window is Ctrl+Shift+W;
      // a browser keeps Ctrl+W for its own tab).
      else if (key === "KeyW" && !event.altKey && shown) closeTab(shown)
      else return
      event.preventDefault()
    }
    window.addEventListener("keydown", onKey)
    return () => window.removeEventListener("keydown", onKey)
  }, [])
}

/** `(N) ` before the title from the apps' badge total: the browser tab's badge. */
function useDocumentTitle() {
  const total = useWorkbench((s) => s.badges.total)
  const name = useWorkbench((s) => s.info?.workspace.name)
  useEffect(() => {
    document.title = `${total > 0 ? `(${total}) ` : ""}${name ? `${name} — ` : ""}Cowork Studio`
  }, [total, name])
}

function Fatal({ message }: { message: string }) {
  return (
    <div
      role="alert"
      className="flex h-full flex-col items-center justify-center gap-3 bg-background p-8 text-center text-foreground"
    >
      <Codicon name="debug-disconnect" size={40} className="text-muted-foreground" />
      <h1 className="text-lg font-semibold">Cowork Studio cannot open this workspace</h1>
      <p className="max-w-lg text-sm text-muted-foreground">{message}</p>
    </div>
  )
}
