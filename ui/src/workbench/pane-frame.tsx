/**
 * One widget pane: a sandboxed iframe on the app's origin, opened on the daemon when it mounts
 * and closed when it unmounts. It stays mounted while hidden (another tab or side-bar view is
 * shown), so the widget keeps its state; `visible` tells it whether it is on screen.
 */
import { useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from "react"

import { Skeleton } from "@/components/ui/skeleton"
import { cn } from "@/lib/utils"
import { Codicon } from "./codicon"
import { PaneDialog } from "./dialog-view"
import { detach, setVisible } from "./live-panes"
import { attach } from "./pane-attach"
import type { PaneSpec } from "./store"

/** What a view in an editor tab or a side bar is given: its pane, and whether it is on screen. */
export interface PaneViewProps {
  spec: PaneSpec
  visible: boolean
  className?: string
}

export function PaneFrame({ spec, visible, className }: PaneViewProps) {
  const iframe = useRef<HTMLIFrameElement>(null)
  const [state, setState] = useState<"opening" | "open" | Error>("opening")
  const pageVisible = usePageVisible()
  const onScreen = visible && pageVisible

  // In the commit itself, not after the next paint: the frame's page starts loading within the
  // click that opened the pane (BENCHMARKS.md, "Click to first paint": 30–45 ms sooner).
  // biome-ignore lint/correctness/useExhaustiveDependencies: opened once per pane (its key); later `visible` changes go through setVisible below
  useLayoutEffect(() => {
    attach(spec, iframe.current!, onScreen).then(
      () => setState("open"),
      (error: Error) => setState(error),
    )
    return () => detach(spec.key)
    // Opened once per pane: later `visible` changes go through setVisible below.
  }, [spec.key])

  useEffect(() => {
    setVisible(spec.key, onScreen)
  }, [spec.key, onScreen])

  return (
    <div
      className={cn("relative h-full w-full", !visible && "hidden", className)}
      data-pane={spec.key}
      data-app={spec.app}
    >
      <iframe
        ref={iframe}
        title={spec.title}
        className={cn("block size-full border-0 bg-background", state !== "open" && "invisible")}
      />
      {state === "opening" && (
        <div className="absolute inset-0 grid content-start gap-3 p-4">
          <Skeleton className="h-5 w-2/5" />
          <Skeleton className="h-4 w-4/5" />
          <Skeleton className="h-4 w-3/5" />
        </div>
      )}
      {state instanceof Error && (
        <div
          role="alert"
          className="absolute inset-0 flex flex-col items-center justify-center gap-2 p-6 text-center"
        >
          <Codicon name="error" size={28} className="text-destructive" />
          <p className="text-sm font-medium">{spec.title} could not open</p>
          <p className="max-w-md text-xs break-words text-muted-foreground">{state.message}</p>
        </div>
      )}
      <PaneDialog paneKey={spec.key} />
    </div>
  )
}

/** Whether this browser tab is on screen (a hidden tab shows no pane). */
function usePageVisible() {
  return useSyncExternalStore(
    (onChange) => {
      document.addEventListener("visibilitychange", onChange)
      return () => document.removeEventListener("visibilitychange", onChange)
    },
    () => document.visibilityState === "visible",
  )
}
