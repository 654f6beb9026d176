import * as React from "react"
import ChevronDownIcon from "lucide-react/icons/chevron-down"
import ChevronLeftIcon from "lucide-react/icons/chevron-left"
import ChevronRightIcon from "lucide-react/icons/chevron-right"
import { type DayButton, DayPicker, getDefaultClassNames, type ClassNames } from "react-day-picker"

import { cn } from "@/lib/utils"
import { Button, buttonVariants } from "@/components/ui/button"

/** Our look for each react-day-picker part, layered over the library's own class names. */
function looks(captionLayout: string, buttonVariant: ButtonVariant): Partial<ClassNames> {
  const navButton = cn(
    buttonVariants({ variant: buttonVariant }),
    "size-(--cell-size) p-0 select-none aria-disabled:opacity-50",
  )
  return {
    root: "w-fit",
    months: "relative flex flex-col gap-4 md:flex-row",
    month: "flex w-full flex-col gap-4",
    nav: "absolute inset-x-0 top-0 flex w-full items-center justify-between gap-1",
    button_previous: navButton,
    button_next: navButton,
    month_caption: "flex h-(--cell-size) w-full items-center justify-center px-(--cell-size)",
    dropdowns:
      "flex h-(--cell-size) w-full items-center justify-center gap-1.5 text-sm font-medium",
    dropdown_root:
      "relative rounded-md border border-input shadow-xs has-focus:border-ring has-focus:ring-[3px] has-focus:ring-ring/50",
    dropdown: "absolute inset-0 bg-popover opacity-0",
    caption_label: cn(
      "font-medium select-none",
      captionLayout === "label"
        ? "text-sm"
        : "flex h-8 items-center gap-1 rounded-md pr-1 pl-2 text-sm [&>svg]:size-3.5 [&>svg]:text-muted-foreground",
    ),
    month_grid: "w-full border-collapse",
    weekdays: "flex",
    weekday: "flex-1 rounded-md text-[0.8rem] font-normal text-muted-foreground select-none",
    week: "mt-2 flex w-full",
    week_number_header: "w-(--cell-size) select-none",
    week_number: "text-[0.8rem] text-muted-foreground select-none",
    day: "group/day relative aspect-square h-full w-full p-0 text-center select-none [&:first-child[data-selected=true]_button]:rounded-l-md [&:last-child[data-selected=true]_button]:rounded-r-md",
    range_start: "rounded-l-md bg-accent",
    range_middle: "rounded-none",
    range_end: "rounded-r-md bg-accent",
    today: "rounded-md bg-accent text-accent-foreground data-[selected=true]:rounded-none",
    outside: "text-muted-foreground aria-selected:text-muted-foreground",
    disabled: "text-muted-foreground opacity-50",
    hidden: "invisible",
  }
}

type ButtonVariant = React.ComponentProps<typeof Button>["variant"]

function Calendar({
  className,
  classNames,
  showOutsideDays = true,
  captionLayout = "label",
  buttonVariant = "ghost",
  formatters,
  components,
  ...props
}: React.ComponentProps<typeof DayPicker> & { buttonVariant?: ButtonVariant }) {
  const defaults = getDefaultClassNames()
  const ours = looks(captionLayout, buttonVariant)
  const merged = Object.fromEntries(
    Object.entries(ours).map(([part, look]) => [
      part,
      cn(look, defaults[part as keyof ClassNames]),
    ]),
  )
  return (
    <DayPicker
      showOutsideDays={showOutsideDays}
      className={cn(
        "group/calendar bg-background p-3 [--cell-size:--spacing(8)] [[data-slot=card-content]_&]:bg-transparent [[data-slot=popover-content]_&]:bg-transparent",
        String.raw`rtl:**:[.rdp-button\_next>svg]:rotate-180 rtl:**:[.rdp-button\_previous>svg]:rotate-180`,
        className,
      )}
      captionLayout={captionLayout}
      formatters={{
        formatMonthDropdown: (date) => date.toLocaleString("default", { month: "short" }),
        ...formatters,
      }}
      classNames={{ ...merged, ...classNames }}
      components={{
        Root: ({ className, rootRef, ...props }) => (
          <div data-slot="calendar" ref={rootRef} className={cn(className)} {...props} />
        ),
        Chevron: ({ className, orientation, ...props }) => {
          const Icon =
            orientation === "left"
              ? ChevronLeftIcon
              : orientation === "right"
                ? ChevronRightIcon
                : ChevronDownIcon
          return <Icon className={cn("size-4", className)} {...props} />
        },
        DayButton: CalendarDayButton,
        WeekNumber: ({ children, ...props }) => (
          <td {...props}>
            <div className="flex size-(--cell-size) items-center justify-center text-center">
              {children}
            </div>
          </td>
        ),
        ...components,
      }}
      {...props}
    />
  )
}

/** A day: filled when picked alone or at a range's ends, tinted inside a range. */
function CalendarDayButton({
  className,
  day,
  modifiers,
  ...props
}: React.ComponentProps<typeof DayButton>) {
  const defaults = getDefaultClassNames()
  const ref = React.useRef<HTMLButtonElement>(null)
  React.useEffect(() => {
    if (modifiers.focused) ref.current?.focus()
  }, [modifiers.focused])
  const inRange = modifiers.range_start || modifiers.range_end || modifiers.range_middle
  return (
    <Button
      ref={ref}
      variant="ghost"
      size="icon"
      data-day={day.date.toLocaleDateString()}
      data-selected-single={modifiers.selected && !inRange}
      data-range-start={modifiers.range_start}
      data-range-end={modifiers.range_end}
      data-range-middle={modifiers.range_middle}
      className={cn(
        "flex aspect-square size-auto w-full min-w-(--cell-size) flex-col gap-1 leading-none font-normal dark:hover:text-accent-foreground [&>span]:text-xs [&>span]:opacity-70",
        "data-[selected-single=true]:bg-primary data-[selected-single=true]:text-primary-foreground",
        "data-[range-middle=true]:rounded-none data-[range-middle=true]:bg-accent data-[range-middle=true]:text-accent-foreground",
        "data-[range-start=true]:rounded-md data-[range-start=true]:rounded-l-md data-[range-start=true]:bg-primary data-[range-start=true]:text-primary-foreground",
        "data-[range-end=true]:rounded-md data-[range-end=true]:rounded-r-md data-[range-end=true]:bg-primary data-[range-end=true]:text-primary-foreground",
        "group-data-[focused=true]/day:relative group-data-[focused=true]/day:z-10 group-data-[focused=true]/day:border-ring group-data-[focused=true]/day:ring-[3px] group-data-[focused=true]/day:ring-ring/50",
        defaults.day,
        className,
      )}
      {...props}
    />
  )
}

export { Calendar, CalendarDayButton }
