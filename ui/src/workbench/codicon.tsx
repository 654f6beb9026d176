import type { ComponentProps } from "react"

import { cn } from "@/lib/utils"

/** A codicon id from `mail`, `$(mail)` or `sync~spin`; null when it is not one (an image file …). */
export function parseCodicon(icon: string | undefined): { id: string; spin: boolean } | null {
  const match = /^(?:\$\()?([a-z0-9-]+)(~spin)?\)?$/.exec(icon?.trim() ?? "")
  return match ? { id: match[1]!, spin: match[2] !== undefined } : null
}

/** A codicon glyph; `size` in pixels (the font's own rule would win over a text-size class). */
export function Codicon({
  name,
  size,
  className,
  style,
  ...props
}: ComponentProps<"span"> & { name: string; size?: number }) {
  const icon = parseCodicon(name)
  return (
    <span
      aria-hidden
      data-slot="codicon"
      className={cn(
        "codicon shrink-0",
        icon && `codicon-${icon.id}`,
        icon?.spin && "codicon-modifier-spin",
        className,
      )}
      style={size ? { ...style, fontSize: size } : style}
      {...props}
    />
  )
}
