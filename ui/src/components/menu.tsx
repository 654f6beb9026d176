/**
 * The parts that dropdown menus, context menus and menubars share. Radix builds all three on one
 * menu primitive, and shadcn gives their items one look, so each family file takes its items from
 * here and writes only what differs (root, trigger, content placement).
 */
import type * as React from "react"
import type * as DropdownMenu from "radix-ui/dropdown-menu"
import CheckIcon from "lucide-react/icons/check"
import ChevronRightIcon from "lucide-react/icons/chevron-right"
import CircleIcon from "lucide-react/icons/circle"

import { cn } from "@/lib/utils"
import { floatingPanel, popIn } from "@/components/styles"

/** The Radix parts a menu family has in common; `ContextMenu` and `Menubar` match this shape. */
type MenuPrimitive = Pick<
  typeof DropdownMenu,
  | "Group"
  | "Portal"
  | "Sub"
  | "RadioGroup"
  | "Item"
  | "CheckboxItem"
  | "RadioItem"
  | "ItemIndicator"
  | "Label"
  | "Separator"
  | "SubTrigger"
  | "SubContent"
>

const row =
  "relative flex cursor-default items-center gap-2 rounded-sm text-sm outline-hidden select-none focus:bg-accent focus:text-accent-foreground data-[disabled]:pointer-events-none data-[disabled]:opacity-50 [&_svg]:pointer-events-none [&_svg]:shrink-0 [&_svg:not([class*='size-'])]:size-4"

/** The parts of the family whose `data-slot`s start with `slot` (`"dropdown-menu"` …). */
export function menuParts<P extends MenuPrimitive>(Primitive: P, slot: string) {
  /** The floating list: popover colors, scrolls when taller than the room it has. */
  const contentClass = cn(
    floatingPanel,
    popIn,
    `max-h-(--radix-${slot}-content-available-height) min-w-[8rem] origin-(--radix-${slot}-content-transform-origin) overflow-x-hidden overflow-y-auto p-1`,
  )

  function Group(props: React.ComponentProps<MenuPrimitive["Group"]>) {
    return <Primitive.Group data-slot={`${slot}-group`} {...props} />
  }

  function Portal(props: React.ComponentProps<MenuPrimitive["Portal"]>) {
    return <Primitive.Portal data-slot={`${slot}-portal`} {...props} />
  }

  function Sub(props: React.ComponentProps<MenuPrimitive["Sub"]>) {
    return <Primitive.Sub data-slot={`${slot}-sub`} {...props} />
  }

  function RadioGroup(props: React.ComponentProps<MenuPrimitive["RadioGroup"]>) {
    return <Primitive.RadioGroup data-slot={`${slot}-radio-group`} {...props} />
  }

  function Item({
    className,
    inset,
    variant = "default",
    ...props
  }: React.ComponentProps<MenuPrimitive["Item"]> & {
    inset?: boolean
    variant?: "default" | "destructive"
  }) {
    return (
      <Primitive.Item
        data-slot={`${slot}-item`}
        data-inset={inset}
        data-variant={variant}
        className={cn(
          row,
          "px-2 py-1.5 data-[inset]:pl-8 [&_svg:not([class*='text-'])]:text-muted-foreground",
          "data-[variant=destructive]:text-destructive data-[variant=destructive]:focus:bg-destructive/10 data-[variant=destructive]:focus:text-destructive dark:data-[variant=destructive]:focus:bg-destructive/20 data-[variant=destructive]:*:[svg]:!text-destructive",
          className,
        )}
        {...props}
      />
    )
  }

  function CheckboxItem({
    className,
    children,
    checked,
    ...props
  }: React.ComponentProps<MenuPrimitive["CheckboxItem"]>) {
    return (
      <Primitive.CheckboxItem
        data-slot={`${slot}-checkbox-item`}
        className={cn(row, "py-1.5 pr-2 pl-8", className)}
        checked={checked}
        {...props}
      >
        <span className="pointer-events-none absolute left-2 flex size-3.5 items-center justify-center">
          <Primitive.ItemIndicator>
            <CheckIcon className="size-4" />
          </Primitive.ItemIndicator>
        </span>
        {children}
      </Primitive.CheckboxItem>
    )
  }

  function RadioItem({
    className,
    children,
    ...props
  }: React.ComponentProps<MenuPrimitive["RadioItem"]>) {
    return (
      <Primitive.RadioItem
        data-slot={`${slot}-radio-item`}
        className={cn(row, "py-1.5 pr-2 pl-8", className)}
        {...props}
      >
        <span className="pointer-events-none absolute left-2 flex size-3.5 items-center justify-center">
          <Primitive.ItemIndicator>
            <CircleIcon className="size-2 fill-current" />
          </Primitive.ItemIndicator>
        </span>
        {children}
      </Primitive.RadioItem>
    )
  }

  function Label({
    className,
    inset,
    ...props
  }: React.ComponentProps<MenuPrimitive["Label"]> & { inset?: boolean }) {
    return (
      <Primitive.Label
        data-slot={`${slot}-label`}
        data-inset={inset}
        className={cn("px-2 py-1.5 text-sm font-medium data-[inset]:pl-8", className)}
        {...props}
      />
    )
  }

  function Separator({ className, ...props }: React.ComponentProps<MenuPrimitive["Separator"]>) {
    return (
      <Primitive.Separator
        data-slot={`${slot}-separator`}
        className={cn("-mx-1 my-1 h-px bg-border", className)}
        {...props}
      />
    )
  }

  function Shortcut({ className, ...props }: React.ComponentProps<"span">) {
    return (
      <span
        data-slot={`${slot}-shortcut`}
        className={cn("ml-auto text-xs tracking-widest text-muted-foreground", className)}
        {...props}
      />
    )
  }

  function SubTrigger({
    className,
    inset,
    children,
    ...props
  }: React.ComponentProps<MenuPrimitive["SubTrigger"]> & { inset?: boolean }) {
    return (
      <Primitive.SubTrigger
        data-slot={`${slot}-sub-trigger`}
        data-inset={inset}
        className={cn(
          row,
          "px-2 py-1.5 data-[inset]:pl-8 data-[state=open]:bg-accent data-[state=open]:text-accent-foreground",
          className,
        )}
        {...props}
      >
        {children}
        <ChevronRightIcon className="ml-auto size-4" />
      </Primitive.SubTrigger>
    )
  }

  function SubContent({ className, ...props }: React.ComponentProps<MenuPrimitive["SubContent"]>) {
    return (
      <Primitive.SubContent
        data-slot={`${slot}-sub-content`}
        className={cn(contentClass, "shadow-lg", className)}
        {...props}
      />
    )
  }

  return {
    contentClass,
    Group,
    Portal,
    Sub,
    RadioGroup,
    Item,
    CheckboxItem,
    RadioItem,
    Label,
    Separator,
    Shortcut,
    SubTrigger,
    SubContent,
  }
}
