/**
 * The footer's runtime item, there only while no runtime runs routines here: it offers to install
 * Bun (the daemon takes it from the npm registry and checks its integrity), then draws the
 * download's progress, asking the daemon again while it runs.
 */
import { useEffect, useState } from "react"
import { Progress } from "@/components/ui/progress"
import { Tooltip, TooltipContent, TooltipTrigger } from "@/components/ui/tooltip"
import { cn } from "@/lib/utils"
import * as api from "./api"
import type { RuntimeInfo } from "./wire/daemon"
import { Codicon } from "./codicon"

/** How often the progress is asked for while Bun downloads. */
const POLL_MS = 250

export function RuntimeItem() {
  const [info, setInfo] = useState<RuntimeInfo>()
  const [asking, setAsking] = useState(true)
  useEffect(() => {
    if (!asking) return
    let live = true
    let timer: ReturnType<typeof setTimeout> | undefined
    const ask = async () => {
      const next = await api.runtime().catch(() => undefined)
      if (!live) return
      setInfo(next)
      if (next?.install.state === "running") timer = setTimeout(() => void ask(), POLL_MS)
      else setAsking(false)
    }
    void ask()
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [asking])

  const install = async () => {
    setInfo(await api.installRuntime().catch(() => info))
    setAsking(true)
  }

  const state = info?.install
  if (state?.state === "running") {
    const percent = state.total
      ? Math.floor((Math.min(state.done, state.total) * 100) / state.total)
      : undefined
    return (
      <div data-runtime="installing" className="flex items-center gap-2 px-2 whitespace-nowrap">
        <Codicon name="loading~spin" size={14} />
        <span>Installing Bun{percent === undefined ? "" : ` ${percent}%`}</span>
        <Progress value={percent ?? 0} aria-label="Installing Bun" className="h-1.5 w-24" />
      </div>
    )
  }
  if (!info || info.runtime) return null
  const failed = state?.state === "failed" ? state : undefined
  const button = (
    <button
      type="button"
      data-runtime={failed ? "failed" : "missing"}
      onClick={() => void install()}
      className={cn(
        "flex items-center gap-1 px-2 whitespace-nowrap",
        failed
          ? "bg-destructive text-white hover:bg-destructive/90"
          : "bg-amber-400 text-amber-950 hover:bg-amber-300",
      )}
    >
      <Codicon name={failed ? "error" : "cloud-download"} size={14} />
      <span>{failed ? "Bun did not install: try again" : "Routines need Bun: install it"}</span>
    </button>
  )
  return (
    <Tooltip>
      <TooltipTrigger asChild>{button}</TooltipTrigger>
      <TooltipContent side="top" className="max-w-80 whitespace-pre-line">
        {failed
          ? `${failed.message}\n${failed.hint}`
          : "No runtime runs routines here. Cowork installs Bun from the npm registry into its own folder (about 40 MB), checking the download's integrity."}
      </TooltipContent>
    </Tooltip>
  )
}
