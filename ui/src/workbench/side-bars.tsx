/**
 * The two side bars. The left one shows the Explorer or a sidebar app's pane under its rail tile;
 * the right one holds a tab per `"display": "right"` app. Their panes stay mounted while another
 * view is shown, so a widget keeps its state (and a long reply keeps streaming).
 */
import { cn } from "@/lib/utils"
import { AppIcon } from "./app-icon"
import { Codicon } from "./codicon"
import { Explorer } from "./explorer"
import { showApp } from "./navigation"
import { PaneFrame } from "./pane-frame"
import { EXPLORER_VIEW, viewId } from "./rail"
import { appNamed, useWorkbench, type PaneSpec } from "./store"
import { TitleActions } from "./title-actions"

export function SideBar() {
  const left = useWorkbench((s) => s.left)
  const panes = useWorkbench((s) => s.sidePanes)
  const shown = useWorkbench((s) => s.info?.apps.find((app) => viewId(app.name) === s.left.view))
  const explorer = left.view === EXPLORER_VIEW
  return (
    <aside
      aria-label="Primary side bar"
      className="flex h-full flex-col bg-background text-foreground"
    >
      <header className="flex h-9 shrink-0 items-center gap-2 pr-2 pl-4 text-[11px] font-semibold tracking-wider text-sidebar-foreground/70 uppercase">
        <span className="flex-1 truncate">{explorer ? "Explorer" : shown?.title}</span>
        {!explorer && (
          <TitleActions paneKey={panes.find((pane) => viewId(pane.app) === left.view)?.key} />
        )}
      </header>
      <div className="relative min-h-0 flex-1">
        <Explorer hidden={!explorer} />
        <SidePanes panes={panes} shown={(pane) => left.open && left.view === viewId(pane.app)} />
      </div>
    </aside>
  )
}

export function RightBar() {
  const right = useWorkbench((s) => s.right)
  const panes = useWorkbench((s) => s.rightPanes)
  const apps = useWorkbench((s) => s.info?.apps)
  const tabs = (apps ?? []).filter((app) => app.display === "right" && app.enabled && app.ownsName)
  return (
    <aside
      aria-label="Secondary side bar"
      className="flex h-full flex-col bg-background text-foreground"
    >
      <header
        role="tablist"
        className="flex h-9 shrink-0 items-stretch gap-1 overflow-x-auto px-2 [scrollbar-width:none]"
      >
        {tabs.map((app) => (
          <button
            key={app.name}
            type="button"
            role="tab"
            aria-selected={right.app === app.name}
            onClick={() => void showApp(app)}
            className={cn(
              "relative flex items-center gap-1.5 px-2 text-[11px] font-semibold tracking-wider whitespace-nowrap text-sidebar-foreground/60 uppercase hover:text-sidebar-foreground",
              right.app === app.name &&
                "text-sidebar-foreground after:absolute after:inset-x-2 after:bottom-0 after:h-px after:bg-sidebar-foreground",
            )}
          >
            {app.title}
          </button>
        ))}
        <div className="flex-1" />
        <TitleActions paneKey={panes.find((pane) => pane.app === right.app)?.key} />
      </header>
      <div className="relative min-h-0 flex-1">
        {tabs.length === 0 && (
          <Empty
            icon="layout-sidebar-right"
            text='Apps with "display": "right" in their cowork.json open here.'
          />
        )}
        <SidePanes panes={panes} shown={(pane) => right.open && right.app === pane.app} />
      </div>
    </aside>
  )
}

function SidePanes({ panes, shown }: { panes: PaneSpec[]; shown: (pane: PaneSpec) => boolean }) {
  return panes.map((pane) =>
    appNamed(pane.app)?.site ? (
      shown(pane) && <SiteNotice key={pane.key} app={pane.app} />
    ) : (
      <PaneFrame key={pane.key} spec={pane} visible={shown(pane)} className="absolute inset-0" />
    ),
  )
}

/** A site app draws only in the desktop app; its side-bar pane says so. */
function SiteNotice({ app }: { app: string }) {
  const site = appNamed(app)
  if (!site) return null
  return (
    <div className="absolute inset-0 flex flex-col items-center justify-center gap-3 p-6 text-center">
      <AppIcon app={site} />
      <p className="text-sm font-medium">{site.title} is part of the desktop app</p>
      <p className="text-xs text-muted-foreground">
        Sites refuse to be shown inside another page. Open this workspace in Cowork Studio's desktop
        app to use it.
      </p>
    </div>
  )
}

function Empty({ icon, text }: { icon: string; text: string }) {
  return (
    <div className="flex h-full flex-col items-center justify-center gap-2 p-6 text-center text-xs text-muted-foreground">
      <Codicon name={icon} size={28} className="opacity-50" />
      <p className="max-w-56">{text}</p>
    </div>
  )
}
