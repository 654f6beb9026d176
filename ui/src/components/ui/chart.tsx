import * as React from "react"
import * as RechartsPrimitive from "recharts"
import type { LegendPayload, TooltipContentProps } from "recharts"

import { cn } from "@/lib/utils"

/** The CSS selector each theme's colors hang under: the frame puts `.dark` on <html>. */
const THEMES = { light: "", dark: ".dark" } as const

/**
 * Each series by key: its label, an icon, and a color (one for both themes, or one per theme).
 * The chart exposes them as `var(--color-<key>)`.
 */
export type ChartConfig = {
  [key in string]: { label?: React.ReactNode; icon?: React.ComponentType } & (
    | { color?: string; theme?: never }
    | { color?: never; theme: Record<keyof typeof THEMES, string> }
  )
}

const ChartContext = React.createContext<{ config: ChartConfig } | null>(null)

function useChart() {
  const context = React.useContext(ChartContext)
  if (!context) throw new Error("useChart must be used within a <ChartContainer />")
  return context
}

function ChartContainer({
  id,
  className,
  children,
  config,
  ...props
}: React.ComponentProps<"div"> & {
  config: ChartConfig
  children: React.ComponentProps<typeof RechartsPrimitive.ResponsiveContainer>["children"]
}) {
  const uniqueId = React.useId()
  const chartId = `chart-${id ?? uniqueId.replace(/:/g, "")}`
  return (
    <ChartContext.Provider value={{ config }}>
      <div
        data-slot="chart"
        data-chart={chartId}
        className={cn(
          "flex aspect-video justify-center text-xs",
          // Recharts draws its grid, axes and cursors in fixed grays; give them the theme's.
          "[&_.recharts-cartesian-axis-tick_text]:fill-muted-foreground [&_.recharts-cartesian-grid_line[stroke='#ccc']]:stroke-border/50 [&_.recharts-curve.recharts-tooltip-cursor]:stroke-border",
          "[&_.recharts-polar-grid_[stroke='#ccc']]:stroke-border [&_.recharts-radial-bar-background-sector]:fill-muted [&_.recharts-rectangle.recharts-tooltip-cursor]:fill-muted [&_.recharts-reference-line_[stroke='#ccc']]:stroke-border",
          "[&_.recharts-dot[stroke='#fff']]:stroke-transparent [&_.recharts-layer]:outline-hidden [&_.recharts-sector]:outline-hidden [&_.recharts-sector[stroke='#fff']]:stroke-transparent [&_.recharts-surface]:outline-hidden",
          className,
        )}
        {...props}
      >
        <ChartStyle id={chartId} config={config} />
        <RechartsPrimitive.ResponsiveContainer>{children}</RechartsPrimitive.ResponsiveContainer>
      </div>
    </ChartContext.Provider>
  )
}

/** Declares `--color-<key>` for every configured series, per theme, scoped to one chart. */
function ChartStyle({ id, config }: { id: string; config: ChartConfig }) {
  const colored = Object.entries(config).filter(([, item]) => item.theme ?? item.color)
  if (!colored.length) return null
  const css = Object.entries(THEMES)
    .map(([theme, prefix]) => {
      const lines = colored.map(([key, item]) => {
        const color = item.theme?.[theme as keyof typeof THEMES] ?? item.color
        return color ? `  --color-${key}: ${color};` : ""
      })
      return `${prefix} [data-chart=${id}] {\n${lines.join("\n")}\n}`
    })
    .join("\n")
  return <style dangerouslySetInnerHTML={{ __html: css }} />
}

const ChartTooltip = RechartsPrimitive.Tooltip

function ChartTooltipContent({
  active,
  payload,
  className,
  indicator = "dot",
  hideLabel = false,
  hideIndicator = false,
  label,
  labelFormatter,
  labelClassName,
  formatter,
  color,
  nameKey,
  labelKey,
}: Partial<TooltipContentProps> & {
  className?: string
  hideLabel?: boolean
  hideIndicator?: boolean
  indicator?: "line" | "dot" | "dashed"
  labelClassName?: string
  color?: string
  nameKey?: string
  labelKey?: string
}) {
  const { config } = useChart()
  if (!active || !payload?.length) return null

  const nestLabel = payload.length === 1 && indicator !== "dot"
  const first = payload[0]
  const labelItem = configFor(
    config,
    first,
    `${labelKey ?? first?.dataKey ?? first?.name ?? "value"}`,
  )
  const labelValue =
    !labelKey && typeof label === "string" ? (config[label]?.label ?? label) : labelItem?.label
  const tooltipLabel =
    hideLabel || !labelValue ? null : (
      <div className={cn("font-medium", labelClassName)}>
        {labelFormatter ? labelFormatter(labelValue, payload) : labelValue}
      </div>
    )

  return (
    <div
      className={cn(
        "grid min-w-[8rem] items-start gap-1.5 rounded-lg border border-border/50 bg-background px-2.5 py-1.5 text-xs shadow-xl",
        className,
      )}
    >
      {nestLabel ? null : tooltipLabel}
      <div className="grid gap-1.5">
        {payload
          .filter((entry) => entry.type !== "none")
          .map((entry, index) => {
            const item = configFor(
              config,
              entry,
              `${nameKey ?? entry.name ?? entry.dataKey ?? "value"}`,
            )
            const indicatorColor = color ?? entry.payload?.fill ?? entry.color
            return (
              <div
                key={`${entry.dataKey ?? index}`}
                className={cn(
                  "flex w-full flex-wrap items-stretch gap-2 [&>svg]:h-2.5 [&>svg]:w-2.5 [&>svg]:text-muted-foreground",
                  indicator === "dot" && "items-center",
                )}
              >
                {formatter && entry.value !== undefined && entry.name !== undefined ? (
                  formatter(entry.value, entry.name, entry, index, payload)
                ) : (
                  <>
                    {item?.icon ? (
                      <item.icon />
                    ) : (
                      !hideIndicator && (
                        <div
                          className={cn(
                            "shrink-0 rounded-[2px] border-(--color-border) bg-(--color-bg)",
                            indicator === "dot" && "h-2.5 w-2.5",
                            indicator === "line" && "w-1",
                            indicator === "dashed" &&
                              "w-0 border-[1.5px] border-dashed bg-transparent",
                            nestLabel && indicator === "dashed" && "my-0.5",
                          )}
                          style={
                            {
                              "--color-bg": indicatorColor,
                              "--color-border": indicatorColor,
                            } as React.CSSProperties
                          }
                        />
                      )
                    )}
                    <div
                      className={cn(
                        "flex flex-1 justify-between leading-none",
                        nestLabel ? "items-end" : "items-center",
                      )}
                    >
                      <div className="grid gap-1.5">
                        {nestLabel ? tooltipLabel : null}
                        <span className="text-muted-foreground">{item?.label ?? entry.name}</span>
                      </div>
                      {entry.value !== undefined && (
                        <span className="font-mono font-medium text-foreground tabular-nums">
                          {entry.value.toLocaleString()}
                        </span>
                      )}
                    </div>
                  </>
                )}
              </div>
            )
          })}
      </div>
    </div>
  )
}

const ChartLegend = RechartsPrimitive.Legend

function ChartLegendContent({
  className,
  hideIcon = false,
  payload,
  verticalAlign = "bottom",
  nameKey,
}: React.ComponentProps<"div"> & {
  payload?: ReadonlyArray<LegendPayload>
  verticalAlign?: "top" | "middle" | "bottom"
  hideIcon?: boolean
  nameKey?: string
}) {
  const { config } = useChart()
  if (!payload?.length) return null
  return (
    <div
      className={cn(
        "flex items-center justify-center gap-4",
        verticalAlign === "top" ? "pb-3" : "pt-3",
        className,
      )}
    >
      {payload
        .filter((entry) => entry.type !== "none")
        .map((entry) => {
          const item = configFor(config, entry, `${nameKey ?? entry.dataKey ?? "value"}`)
          return (
            <div
              key={`${entry.value}`}
              className="flex items-center gap-1.5 [&>svg]:h-3 [&>svg]:w-3 [&>svg]:text-muted-foreground"
            >
              {item?.icon && !hideIcon ? (
                <item.icon />
              ) : (
                <div
                  className="h-2 w-2 shrink-0 rounded-[2px]"
                  style={{ backgroundColor: entry.color }}
                />
              )}
              {item?.label}
            </div>
          )
        })}
    </div>
  )
}

/**
 * The config entry for a tooltip or legend entry: `key` names it directly, or names a field of
 * the entry (or of its data point) whose value is the config key.
 */
function configFor(config: ChartConfig, entry: unknown, key: string) {
  if (typeof entry !== "object" || entry === null) return undefined
  const fields = entry as Record<string, unknown>
  const point = fields.payload
  let configKey = key
  if (typeof fields[key] === "string") {
    configKey = fields[key] as string
  } else if (typeof point === "object" && point !== null) {
    const value = (point as Record<string, unknown>)[key]
    if (typeof value === "string") configKey = value
  }
  return config[configKey] ?? config[key]
}

export {
  ChartContainer,
  ChartTooltip,
  ChartTooltipContent,
  ChartLegend,
  ChartLegendContent,
  ChartStyle,
}
