/**
 * The footer: `Workspace: <name>`, then each app's item as its routine drew it, and the bell on
 * the right.
 */
import { Tooltip, TooltipContent, TooltipTrigger } from "@/components/ui/tooltip"
import type { StatusBarItem } from "@/frame/protocol"
import { cn } from "@/lib/utils"
import { Bell } from "./bell"
import { Codicon } from "./codicon"
import { click, drawn } from "./footer"
import { showExplorer } from "./navigation"
import { RuntimeItem } from "./runtime-item"
import { useWorkbench } from "./store"

const TONES: Record<string, string> = {
  warning: "bg-amber-400 text-amber-950 hover:bg-amber-300",
  error: "bg-destructive text-white hover:bg-destructive/90",
}

export function StatusBar() {
  const info = useWorkbench((s) => s.info)
  const footer = useWorkbench((s) => s.footer)
  // In the apps' folder order, not the order their routines first answered in.
  const apps = (info?.apps ?? []).filter((app) => app.name in footer)
  return (
    <footer className="flex h-6 shrink-0 items-stretch border-t bg-sidebar px-1 text-xs text-sidebar-foreground/80">
      <FooterItem
        item={{
          text: `Workspace: ${info?.workspace.name ?? ""}`,
          icon: "root-folder",
          tooltip: info?.workspace.path,
        }}
        onClick={showExplorer}
      />
      {apps.map(({ name }) => {
        const item = drawn(name, footer[name])
        return (
          item && (
            <FooterItem
              key={name}
              app={name}
              item={item}
              busy={footer[name]!.busy}
              onClick={() => void click(name)}
            />
          )
        )
      })}
      <div className="flex-1" />
      <RuntimeItem />
      <Bell />
    </footer>
  )
}

function FooterItem({
  app,
  item,
  busy = false,
  onClick,
}: {
  app?: string
  item: StatusBarItem
  busy?: boolean
  onClick?(): void
}) {
  const icon = busy ? "loading~spin" : item.icon
  const body = (
    <button
      type="button"
      data-footer={app}
      aria-busy={busy}
      onClick={busy ? undefined : onClick}
      className={cn(
        "flex max-w-80 items-center gap-1 px-2 whitespace-nowrap hover:bg-sidebar-accent",
        !onClick && "cursor-default",
        TONES[item.tone ?? ""],
      )}
    >
      {icon && <Codicon name={icon} size={14} />}
      <span className="truncate">{item.text}</span>
    </button>
  )
  if (!item.tooltip) return body
  return (
    <Tooltip>
      <TooltipTrigger asChild>{body}</TooltipTrigger>
      <TooltipContent side="top" className="max-w-80 whitespace-pre-line">
        {item.tooltip}
      </TooltipContent>
    </Tooltip>
  )
}
