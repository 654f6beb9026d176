import * as ResizablePrimitive from "react-resizable-panels"
import GripVerticalIcon from "lucide-react/icons/grip-vertical"

import { cn } from "@/lib/utils"

/**
 * Panels side by side (`orientation="horizontal"`, the default) or stacked. `direction` is the
 * older name of `orientation`, still taken so shadcn examples written for it work unchanged.
 */
function ResizablePanelGroup({
  className,
  direction,
  orientation,
  style,
  ...props
}: ResizablePrimitive.GroupProps & { direction?: ResizablePrimitive.Orientation }) {
  return (
    <ResizablePrimitive.Group
      data-slot="resizable-panel-group"
      orientation={orientation ?? direction}
      className={cn("flex h-full w-full", className)}
      // Clipped, not the library's `overflow: hidden`: a handle's grab area (its `after:`) sticks
      // out past the group's edge when the panel beyond it is closed, and a hidden-overflow group is
      // still a scroll container, which focus or scrollIntoView then scrolled by that pixel.
      style={{ overflow: "clip", ...style }}
      {...props}
    />
  )
}

type Size = number | string | undefined

/** A bare number is a percentage, as in shadcn's examples; "200px" and other units pass through. */
function percent(size: Size) {
  return typeof size === "number" ? `${size}%` : size
}

function ResizablePanel({
  defaultSize,
  minSize,
  maxSize,
  collapsedSize,
  ...props
}: ResizablePrimitive.PanelProps) {
  return (
    <ResizablePrimitive.Panel
      data-slot="resizable-panel"
      defaultSize={percent(defaultSize)}
      minSize={percent(minSize)}
      maxSize={percent(maxSize)}
      collapsedSize={percent(collapsedSize)}
      {...props}
    />
  )
}

/** The bar between two panels; the separator's own `aria-orientation` is across the group's. */
function ResizableHandle({
  withHandle,
  className,
  ...props
}: ResizablePrimitive.SeparatorProps & { withHandle?: boolean }) {
  return (
    <ResizablePrimitive.Separator
      data-slot="resizable-handle"
      className={cn(
        "relative flex w-px items-center justify-center bg-border focus-visible:ring-1 focus-visible:ring-ring focus-visible:ring-offset-1 focus-visible:outline-hidden",
        "after:absolute after:inset-y-0 after:left-1/2 after:w-1 after:-translate-x-1/2",
        "aria-[orientation=horizontal]:h-px aria-[orientation=horizontal]:w-full aria-[orientation=horizontal]:after:left-0 aria-[orientation=horizontal]:after:h-1 aria-[orientation=horizontal]:after:w-full aria-[orientation=horizontal]:after:translate-x-0 aria-[orientation=horizontal]:after:-translate-y-1/2 [&[aria-orientation=horizontal]>div]:rotate-90",
        className,
      )}
      {...props}
    >
      {withHandle && (
        <div className="z-10 flex h-4 w-3 items-center justify-center rounded-xs border bg-border">
          <GripVerticalIcon className="size-2.5" />
        </div>
      )}
    </ResizablePrimitive.Separator>
  )
}

export { ResizablePanelGroup, ResizablePanel, ResizableHandle }
