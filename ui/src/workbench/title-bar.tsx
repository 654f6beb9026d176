/**
 * The title bar: the workspace's name (in the desktop app, the button that switches workspace),
 * the layout toggles, the theme and who is signed in to Cowork.
 */
import { cn } from "@/lib/utils"
import { AccountButton } from "./account-view"
import { Codicon } from "./codicon"
import { desktop, inShell } from "./desktop"
import { toggleLeft, togglePanel, toggleRight } from "./navigation"
import { useWorkbench } from "./store"
import { report } from "./report"
import { setTheme } from "./theme"

export function TitleBar() {
  const workspace = useWorkbench((s) => s.info?.workspace)
  const left = useWorkbench((s) => s.left.open)
  const right = useWorkbench((s) => s.right.open)
  const panel = useWorkbench((s) => s.panelOpen)
  const theme = useWorkbench((s) => s.theme)
  return (
    <header className="grid h-9 shrink-0 grid-cols-[1fr_auto_1fr] items-center border-b bg-sidebar px-2 text-xs text-sidebar-foreground select-none">
      <div className="flex items-center gap-2 pl-1">
        <span className="grid size-5 place-items-center rounded-md bg-gradient-to-br from-blue-500 to-violet-600 text-white">
          <Codicon name="layers" size={12} />
        </span>
        <span className="font-medium text-sidebar-foreground/80">Cowork Studio</span>
      </div>
      <WorkspaceName name={workspace?.name} path={workspace?.path} />
      <div className="flex items-center justify-end gap-0.5">
        <TitleButton
          icon={left ? "layout-sidebar-left" : "layout-sidebar-left-off"}
          label="Toggle Primary Side Bar"
          keys="Ctrl+B"
          pressed={left}
          onClick={toggleLeft}
        />
        <TitleButton
          icon={panel ? "layout-panel" : "layout-panel-off"}
          label="Toggle Panel"
          keys="Ctrl+J"
          pressed={panel}
          onClick={togglePanel}
        />
        <TitleButton
          icon={right ? "layout-sidebar-right" : "layout-sidebar-right-off"}
          label="Toggle Secondary Side Bar"
          keys="Ctrl+Alt+B"
          pressed={right}
          onClick={() => void toggleRight()}
        />
        <div className="mx-1 h-4 w-px bg-border" />
        <TitleButton
          icon="color-mode"
          label={theme === "dark" ? "Switch to Light Theme" : "Switch to Dark Theme"}
          onClick={() => setTheme(theme === "dark" ? "light" : "dark")}
        />
        <div className="mx-1 h-4 w-px bg-border" />
        <AccountButton />
      </div>
    </header>
  )
}

/**
 * Only the desktop app can move a window to another workspace, so only there is the name a
 * button (in VS Code's command-center box); in a browser tab it is a plain title, which no one
 * mistakes for a search field.
 */
function WorkspaceName({ name, path }: { name?: string; path?: string }) {
  const look = "flex h-6 min-w-0 items-center justify-center gap-1.5 px-3"
  const label = (
    <>
      <Codicon name="root-folder" size={13} />
      <span className="truncate">{name}</span>
    </>
  )
  if (!inShell()) {
    return (
      <div
        data-testid="workspace-name"
        title={path}
        className={cn(look, "font-medium text-sidebar-foreground/80")}
      >
        {label}
      </div>
    )
  }
  return (
    <button
      type="button"
      data-testid="workspace-name"
      title={`${path} — Switch Workspace…`}
      onClick={() =>
        desktop
          .switchWorkspace()
          .catch((error) => report("Cowork could not switch workspace", error))
      }
      className={cn(
        look,
        "min-w-64 rounded-md border bg-background/60 text-muted-foreground hover:bg-sidebar-accent hover:text-sidebar-foreground",
      )}
    >
      {label}
    </button>
  )
}

function TitleButton({
  icon,
  label,
  keys,
  pressed,
  onClick,
}: {
  icon: string
  label: string
  keys?: string
  pressed?: boolean
  onClick(): void
}) {
  return (
    <button
      type="button"
      aria-label={label}
      aria-pressed={pressed}
      title={keys ? `${label} (${keys})` : label}
      onClick={onClick}
      className="grid size-7 place-items-center rounded-md text-sidebar-foreground/70 hover:bg-sidebar-accent hover:text-sidebar-foreground aria-pressed:text-sidebar-foreground"
    >
      <Codicon name={icon} size={16} />
    </button>
  )
}
