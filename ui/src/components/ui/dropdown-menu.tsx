import type * as React from "react"
import * as DropdownMenuPrimitive from "radix-ui/dropdown-menu"

import { cn } from "@/lib/utils"
import { menuParts } from "@/components/menu"

const menu = menuParts(DropdownMenuPrimitive, "dropdown-menu")

function DropdownMenu(props: React.ComponentProps<typeof DropdownMenuPrimitive.Root>) {
  return <DropdownMenuPrimitive.Root data-slot="dropdown-menu" {...props} />
}

function DropdownMenuTrigger(props: React.ComponentProps<typeof DropdownMenuPrimitive.Trigger>) {
  return <DropdownMenuPrimitive.Trigger data-slot="dropdown-menu-trigger" {...props} />
}

function DropdownMenuContent({
  className,
  sideOffset = 4,
  ...props
}: React.ComponentProps<typeof DropdownMenuPrimitive.Content>) {
  return (
    <DropdownMenuPrimitive.Portal>
      <DropdownMenuPrimitive.Content
        data-slot="dropdown-menu-content"
        sideOffset={sideOffset}
        className={cn(menu.contentClass, className)}
        {...props}
      />
    </DropdownMenuPrimitive.Portal>
  )
}

const DropdownMenuGroup = menu.Group
const DropdownMenuPortal = menu.Portal
const DropdownMenuSub = menu.Sub
const DropdownMenuRadioGroup = menu.RadioGroup
const DropdownMenuItem = menu.Item
const DropdownMenuCheckboxItem = menu.CheckboxItem
const DropdownMenuRadioItem = menu.RadioItem
const DropdownMenuLabel = menu.Label
const DropdownMenuSeparator = menu.Separator
const DropdownMenuShortcut = menu.Shortcut
const DropdownMenuSubTrigger = menu.SubTrigger
const DropdownMenuSubContent = menu.SubContent

export {
  DropdownMenu,
  DropdownMenuPortal,
  DropdownMenuTrigger,
  DropdownMenuContent,
  DropdownMenuGroup,
  DropdownMenuLabel,
  DropdownMenuItem,
  DropdownMenuCheckboxItem,
  DropdownMenuRadioGroup,
  DropdownMenuRadioItem,
  DropdownMenuSeparator,
  DropdownMenuShortcut,
  DropdownMenuSub,
  DropdownMenuSubTrigger,
  DropdownMenuSubContent,
}
