import type * as React from "react"
import * as MenubarPrimitive from "radix-ui/menubar"

import { cn } from "@/lib/utils"
import { menuParts } from "@/components/menu"

const menu = menuParts(MenubarPrimitive, "menubar")

function Menubar({ className, ...props }: React.ComponentProps<typeof MenubarPrimitive.Root>) {
  return (
    <MenubarPrimitive.Root
      data-slot="menubar"
      className={cn(
        "flex h-9 items-center gap-1 rounded-md border bg-background p-1 shadow-xs",
        className,
      )}
      {...props}
    />
  )
}

function MenubarMenu(props: React.ComponentProps<typeof MenubarPrimitive.Menu>) {
  return <MenubarPrimitive.Menu data-slot="menubar-menu" {...props} />
}

function MenubarTrigger({
  className,
  ...props
}: React.ComponentProps<typeof MenubarPrimitive.Trigger>) {
  return (
    <MenubarPrimitive.Trigger
      data-slot="menubar-trigger"
      className={cn(
        "flex items-center rounded-sm px-2 py-1 text-sm font-medium outline-hidden select-none focus:bg-accent focus:text-accent-foreground data-[state=open]:bg-accent data-[state=open]:text-accent-foreground",
        className,
      )}
      {...props}
    />
  )
}

function MenubarContent({
  className,
  align = "start",
  alignOffset = -4,
  sideOffset = 8,
  ...props
}: React.ComponentProps<typeof MenubarPrimitive.Content>) {
  return (
    <MenubarPrimitive.Portal>
      <MenubarPrimitive.Content
        data-slot="menubar-content"
        align={align}
        alignOffset={alignOffset}
        sideOffset={sideOffset}
        className={cn(menu.contentClass, "min-w-[12rem]", className)}
        {...props}
      />
    </MenubarPrimitive.Portal>
  )
}

const MenubarGroup = menu.Group
const MenubarPortal = menu.Portal
const MenubarSub = menu.Sub
const MenubarRadioGroup = menu.RadioGroup
const MenubarItem = menu.Item
const MenubarCheckboxItem = menu.CheckboxItem
const MenubarRadioItem = menu.RadioItem
const MenubarLabel = menu.Label
const MenubarSeparator = menu.Separator
const MenubarShortcut = menu.Shortcut
const MenubarSubTrigger = menu.SubTrigger
const MenubarSubContent = menu.SubContent

export {
  Menubar,
  MenubarPortal,
  MenubarMenu,
  MenubarTrigger,
  MenubarContent,
  MenubarGroup,
  MenubarSeparator,
  MenubarLabel,
  MenubarItem,
  MenubarShortcut,
  MenubarCheckboxItem,
  MenubarRadioGroup,
  MenubarRadioItem,
  MenubarSub,
  MenubarSubTrigger,
  MenubarSubContent,
}
