/**
 * A web app's tab (page 12 "Web apps"): its page, served unmodified by the daemon on the app's own
 * origin (`webUrl`), in a plain frame — no URL bar, no history, no `window.cowork`. The origin is
 * not the workbench's, so the page reaches nothing of the workbench (no sandbox attribute is
 * needed to keep it out, and a site built for a browser tab needs its storage and workers).
 */
import { cn } from "@/lib/utils"
import { Codicon } from "./codicon"
import type { PaneViewProps } from "./pane-frame"
import { useApp } from "./store"

export function WebFrame({ spec, visible, className }: PaneViewProps) {
  const src = useApp(spec.app)?.webUrl
  return (
    <div
      className={cn("relative h-full w-full", !visible && "hidden", className)}
      data-pane={spec.key}
      data-app={spec.app}
      data-web-app=""
    >
      {src ? (
        <iframe
          src={src}
          title={spec.title}
          // What a WASM site asks of its page: threads (cross-origin isolation), the clipboard,
          // full screen.
          allow="cross-origin-isolated; clipboard-read; clipboard-write; fullscreen"
          className="block size-full border-0 bg-background"
        />
      ) : (
        <div
          role="alert"
          className="absolute inset-0 flex flex-col items-center justify-center gap-2 p-6 text-center"
        >
          <Codicon name="error" size={28} className="text-destructive" />
          <p className="text-sm font-medium">{spec.title} could not open</p>
          <p className="max-w-md text-xs text-muted-foreground">
            {spec.app} is not a switched-on web app of this workspace.
          </p>
        </div>
      )}
    </div>
  )
}
