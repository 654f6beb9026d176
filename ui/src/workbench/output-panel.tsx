/**
 * The Output panel's "Cowork" channel: `cowork.log` lines from panes (prefixed with their app)
 * and the daemon's `log` events (`ctx.log`, a routine's stdout and stderr) as they arrive.
 */
import { useEffect, useRef } from "react"

import { cn } from "@/lib/utils"
import { Codicon } from "./codicon"
import { togglePanel } from "./navigation"
import { update, useWorkbench } from "./store"

const time = new Intl.DateTimeFormat(undefined, {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hour12: false,
})

export function OutputPanel() {
  const lines = useWorkbench((s) => s.output)
  const end = useRef<HTMLDivElement>(null)
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new line scrolls to the end; the effect reads the element, not the lines
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" })
  }, [lines])
  return (
    <section aria-label="Output" className="flex h-full flex-col border-t bg-background">
      <header className="flex h-9 shrink-0 items-center gap-3 px-3">
        <span className="relative py-2 text-[11px] font-semibold tracking-wider uppercase after:absolute after:inset-x-0 after:bottom-0 after:h-px after:bg-foreground">
          Output
        </span>
        <span className="rounded border px-1.5 py-0.5 text-[11px] text-muted-foreground">
          Cowork
        </span>
        <div className="flex-1" />
        <PanelButton icon="clear-all" label="Clear Output" onClick={() => update({ output: [] })} />
        <PanelButton icon="close" label="Close Panel" onClick={togglePanel} />
      </header>
      <div
        data-testid="output"
        className="min-h-0 flex-1 overflow-auto px-3 pb-2 font-mono text-xs leading-5"
      >
        {lines.length === 0 && <p className="text-muted-foreground">No output yet.</p>}
        {lines.map((line, index) => (
          <div
            // biome-ignore lint/suspicious/noArrayIndexKey: the output only grows at its end (or is cleared): a line keeps its index
            key={index}
            className={cn(
              "whitespace-pre-wrap break-all",
              (line.stream === "stderr" || line.stream === "error") && "text-destructive",
            )}
          >
            <span className="text-muted-foreground">{time.format(line.at)} </span>
            <span className="text-blue-600 dark:text-blue-400">[{line.source}]</span> {line.text}
          </div>
        ))}
        <div ref={end} />
      </div>
    </section>
  )
}

export function PanelButton({
  icon,
  label,
  onClick,
  className,
}: {
  icon: string
  label: string
  onClick(): void
  className?: string
}) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      onClick={onClick}
      className={cn(
        "grid size-6 place-items-center rounded text-muted-foreground hover:bg-accent hover:text-foreground",
        className,
      )}
    >
      <Codicon name={icon} />
    </button>
  )
}
