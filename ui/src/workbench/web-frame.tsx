/**
 * A web app's tab (page 12 "Web apps"): its page, served unmodified by the daemon on the app's own
 * origin (`webUrl`), in a plain frame — no URL bar, no history, no `window.cowork`. The origin is
 * not the workbench's, so the page reaches nothing of the workbench (no sandbox attribute is
 * needed to keep it out, and a site built for a browser tab needs its storage and workers).
 *
 * An app whose build is a `download` is fetched on its first open: the tab shows the progress
 * (`POST /api/web-apps/build`, asked again until it is ready) and then the page. A tab opened on
 * a routed file (`openedFile`) shows the page at the address the daemon gives for that file: its
 * token lets the page read and save that one file (web_files.rs in the daemon).
 */
import { useEffect, useState } from "react"
import { cn } from "@/lib/utils"
import * as api from "./api"
import { Codicon } from "./codicon"
import { inShell } from "./desktop"
import type { PaneViewProps } from "./pane-frame"
import { getState, useApp } from "./store"

/** How often the tab asks how the download stands. */
const PROGRESS_MS = 250

export function WebFrame({ spec, visible, className }: PaneViewProps) {
  const webUrl = useApp(spec.app)?.webUrl
  const routedPath = spec.openedFile?.workspaceRelativePath
  const [build, setBuild] = useState<api.WebAppBuild | null>(null)
  const [routed, setRouted] = useState<{ src?: string; error?: string }>({})
  useEffect(() => {
    if (!webUrl) return
    let live = true
    let timer: ReturnType<typeof setTimeout> | undefined
    const ask = () =>
      api.webAppBuild({ workspace: getState().workspace, app: spec.app }).then(
        (answer) => {
          if (!live) return
          setBuild(answer)
          if (answer.state === "fetching") timer = setTimeout(ask, PROGRESS_MS)
        },
        (error: Error) =>
          live && setBuild({ state: "failed", error: { name: "Error", message: error.message } }),
      )
    ask()
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [webUrl, spec.app])
  const ready = build?.state === "ready"
  useEffect(() => {
    if (!routedPath || !webUrl || !ready) return
    let live = true
    const opened = api.openWebFile({ workspace: getState().workspace, path: routedPath })
    opened.then(
      ({ src }) => live && setRouted({ src }),
      (error: Error) => live && setRouted({ error: error.message }),
    )
    return () => {
      live = false
      // The tab closed (or shows another file): the page's token for this one ends.
      opened
        .then(({ src }) => {
          const token = new URL(src).searchParams.get("cowork-file")
          return token ? api.endWebFile(token) : undefined
        })
        .catch(() => {})
    }
  }, [routedPath, webUrl, ready])
  // In the desktop app the file script waits for the native save dialog's answer (web_file.js).
  const routedSrc = routed.src && inShell() ? `${routed.src}&cowork-shell=desktop` : routed.src
  const src = !ready ? undefined : routedPath ? routedSrc : webUrl
  const problem = !webUrl
    ? `${spec.app} is not a switched-on web app of this workspace.`
    : build?.state === "failed"
      ? build.error.message
      : routed.error
  return (
    <div
      className={cn("relative h-full w-full", !visible && "hidden", className)}
      data-pane={spec.key}
      data-app={spec.app}
      data-web-app=""
    >
      {problem ? (
        <div
          role="alert"
          className="absolute inset-0 flex flex-col items-center justify-center gap-2 p-6 text-center"
        >
          <Codicon name="error" size={28} className="text-destructive" />
          <p className="text-sm font-medium">{spec.title} could not open</p>
          <p className="max-w-md text-xs text-muted-foreground">{problem}</p>
        </div>
      ) : build?.state === "fetching" ? (
        <Downloading title={spec.title} received={build.received} total={build.total} />
      ) : (
        src && (
          <iframe
            src={src}
            title={spec.title}
            // What a WASM site asks of its page: threads (cross-origin isolation), the clipboard,
            // full screen.
            allow="cross-origin-isolated; clipboard-read; clipboard-write; fullscreen"
            className="block size-full border-0 bg-background"
          />
        )
      )}
    </div>
  )
}

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`

/** The first open of a downloaded build: how much has arrived (a percentage when the server
 * said the length, else the bytes alone). */
function Downloading({
  title,
  received,
  total,
}: {
  title: string
  received: number
  total: number | null
}) {
  return (
    <div className="absolute inset-0 flex flex-col items-center justify-center gap-3 p-6 text-center">
      <p className="text-sm font-medium">Downloading {title}…</p>
      <progress
        // The theme's colours, not the engine's default green bar.
        className="h-1.5 w-64 appearance-none overflow-hidden rounded-full bg-muted [&::-moz-progress-bar]:bg-primary [&::-webkit-progress-bar]:bg-muted [&::-webkit-progress-value]:bg-primary"
        aria-label={`Downloading ${title}`}
        value={received}
        max={total ?? undefined}
      />
      <p className="text-xs text-muted-foreground">
        {total
          ? `${Math.floor((received / total) * 100)}% · ${megabytes(received)} of ${megabytes(total)}`
          : megabytes(received)}
      </p>
    </div>
  )
}
