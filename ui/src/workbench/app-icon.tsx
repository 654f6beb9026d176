import type { App } from "./api"
import { Codicon, parseCodicon } from "./codicon"
import { cn } from "@/lib/utils"

const SIZES = {
  rail: { tile: "size-7 rounded-md", glyph: 18, plain: 24, letter: "text-sm" },
  small: { tile: "size-4 rounded-[4px]", glyph: 11, plain: 16, letter: "text-[10px]" },
  mini: { tile: "size-3 rounded-[3px]", glyph: 9, plain: 12, letter: "text-[8px]" },
}

/**
 * An app's glyph: its image (full colour, centred, never cropped, `color` behind it), its codicon
 * (white on `color`, or plain), or the first letter of its title.
 */
export function AppIcon({
  app,
  size = "rail",
  className,
}: {
  app: Pick<App, "icon" | "iconUrl" | "color" | "title">
  size?: keyof typeof SIZES
  className?: string
}) {
  const look = SIZES[size]
  const icon = app.iconUrl ? null : app.icon
  const codicon = icon ? parseCodicon(icon) : null
  const tile = cn("grid shrink-0 place-items-center overflow-hidden", look.tile)
  if (app.iconUrl) {
    return (
      <span className={cn(tile, className)} style={{ background: app.color ?? undefined }}>
        <img src={app.iconUrl} alt="" className="size-full object-contain" draggable={false} />
      </span>
    )
  }
  if (icon && codicon && !app.color)
    return <Codicon name={icon} size={look.plain} className={className} />
  return (
    <span
      className={cn(
        tile,
        app.color ? "text-white" : "bg-muted-foreground/25 text-foreground",
        className,
      )}
      style={{ background: app.color ?? undefined }}
    >
      {icon && codicon ? (
        <Codicon name={icon} size={look.glyph} />
      ) : (
        <span className={cn("leading-none font-semibold", look.letter)}>
          {app.title.trim().charAt(0).toUpperCase() || "?"}
        </span>
      )}
    </span>
  )
}
