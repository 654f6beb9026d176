/** The title bar: the workspace's name, the layout toggles and the theme. */
import { Codicon } from "./codicon"
import { toggleLeft, togglePanel, toggleRight } from "./navigation"
import { useWorkbench } from "./store"
import { setTheme } from "./theme"

export function TitleBar() {
  const name = useWorkbench((s) => s.info?.workspace.name)
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
      <div className="flex h-6 min-w-64 items-center justify-center gap-1.5 rounded-md border bg-background/60 px-3 text-muted-foreground">
        <Codicon name="root-folder" size={13} />
        <span className="truncate">{name}</span>
      </div>
      <div className="flex items-center justify-end gap-0.5">
        <TitleButton icon={left ? "layout-sidebar-left" : "layout-sidebar-left-off"} label="Toggle Primary Side Bar" keys="Ctrl+B" pressed={left} onClick={toggleLeft} />
        <TitleButton icon={panel ? "layout-panel" : "layout-panel-off"} label="Toggle Panel" keys="Ctrl+J" pressed={panel} onClick={togglePanel} />
        <TitleButton icon={right ? "layout-sidebar-right" : "layout-sidebar-right-off"} label="Toggle Secondary Side Bar" keys="Ctrl+Alt+B" pressed={right} onClick={() => void toggleRight()} />
        <div className="mx-1 h-4 w-px bg-border" />
        <TitleButton
          icon="color-mode"
          label={theme === "dark" ? "Switch to Light Theme" : "Switch to Dark Theme"}
          onClick={() => setTheme(theme === "dark" ? "light" : "dark")}
        />
      </div>
    </header>
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
