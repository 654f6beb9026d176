import * as React from "react"
import * as ToggleGroupPrimitive from "radix-ui/toggle-group"
import type { VariantProps } from "class-variance-authority"

import { cn } from "@/lib/utils"
import { toggleVariants } from "@/components/ui/toggle"

type ToggleLook = VariantProps<typeof toggleVariants>

/** The group's variant and size, which every item takes unless it says otherwise. */
const ToggleGroupContext = React.createContext<ToggleLook>({ size: "default", variant: "default" })

function ToggleGroup({
  className,
  variant,
  size,
  children,
  ...props
}: React.ComponentProps<typeof ToggleGroupPrimitive.Root> & ToggleLook) {
  return (
    <ToggleGroupPrimitive.Root
      data-slot="toggle-group"
      data-variant={variant}
      data-size={size}
      className={cn(
        "group/toggle-group flex w-fit items-center rounded-md data-[variant=outline]:shadow-xs",
        className,
      )}
      {...props}
    >
      <ToggleGroupContext.Provider value={{ variant, size }}>
        {children}
      </ToggleGroupContext.Provider>
    </ToggleGroupPrimitive.Root>
  )
}

function ToggleGroupItem({
  className,
  children,
  variant,
  size,
  ...props
}: React.ComponentProps<typeof ToggleGroupPrimitive.Item> & ToggleLook) {
  const group = React.useContext(ToggleGroupContext)
  const look = { variant: group.variant ?? variant, size: group.size ?? size }
  return (
    <ToggleGroupPrimitive.Item
      data-slot="toggle-group-item"
      data-variant={look.variant}
      data-size={look.size}
      className={cn(
        toggleVariants(look),
        "min-w-0 flex-1 shrink-0 rounded-none shadow-none first:rounded-l-md last:rounded-r-md focus:z-10 focus-visible:z-10",
        "data-[variant=outline]:border-l-0 data-[variant=outline]:first:border-l",
        className,
      )}
      {...props}
    >
      {children}
    </ToggleGroupPrimitive.Item>
  )
}

export { ToggleGroup, ToggleGroupItem }
