import type * as React from "react"
import * as ContextMenuPrimitive from "radix-ui/context-menu"

import { cn } from "@/lib/utils"
import { menuParts } from "@/components/menu"

const menu = menuParts(ContextMenuPrimitive, "context-menu")

function ContextMenu(props: React.ComponentProps<typeof ContextMenuPrimitive.Root>) {
  return <ContextMenuPrimitive.Root data-slot="context-menu" {...props} />
}

function ContextMenuTrigger(props: React.ComponentProps<typeof ContextMenuPrimitive.Trigger>) {
  return <ContextMenuPrimitive.Trigger data-slot="context-menu-trigger" {...props} />
}

function ContextMenuContent({
  className,
  ...props
}: React.ComponentProps<typeof ContextMenuPrimitive.Content>) {
  return (
    <ContextMenuPrimitive.Portal>
      <ContextMenuPrimitive.Content
        data-slot="context-menu-content"
        className={cn(menu.contentClass, className)}
        {...props}
      />
    </ContextMenuPrimitive.Portal>
  )
}

const ContextMenuGroup = menu.Group
const ContextMenuPortal = menu.Portal
const ContextMenuSub = menu.Sub
const ContextMenuRadioGroup = menu.RadioGroup
const ContextMenuItem = menu.Item
const ContextMenuCheckboxItem = menu.CheckboxItem
const ContextMenuRadioItem = menu.RadioItem
const ContextMenuLabel = menu.Label
const ContextMenuSeparator = menu.Separator
const ContextMenuShortcut = menu.Shortcut
const ContextMenuSubTrigger = menu.SubTrigger
const ContextMenuSubContent = menu.SubContent

export {
  ContextMenu,
  ContextMenuTrigger,
  ContextMenuContent,
  ContextMenuItem,
  ContextMenuCheckboxItem,
  ContextMenuRadioItem,
  ContextMenuLabel,
  ContextMenuSeparator,
  ContextMenuShortcut,
  ContextMenuGroup,
  ContextMenuPortal,
  ContextMenuSub,
  ContextMenuSubContent,
  ContextMenuSubTrigger,
  ContextMenuRadioGroup,
}
