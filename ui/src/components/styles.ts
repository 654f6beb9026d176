/**
 * Class strings that several component families share, written once. The workbench compiles them
 * for a pane whose widget imports a component that uses them (src/host/styles.ts reads this file).
 */

/** The 3px ring every focusable control shows for keyboard focus. */
export const focusRing =
  "outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50"

/** A control marked `aria-invalid` turns its border and ring to the destructive color. */
export const invalidRing =
  "aria-invalid:border-destructive aria-invalid:ring-destructive/20 dark:aria-invalid:ring-destructive/40"

/** The bordered, transparent box of text fields and select triggers. */
export const fieldBox =
  "rounded-md border border-input bg-transparent shadow-xs transition-[color,box-shadow] dark:bg-input/30 disabled:cursor-not-allowed disabled:opacity-50"

/** The dimmed backdrop behind dialogs, sheets and drawers. */
export const overlay =
  "fixed inset-0 z-50 bg-black/50 data-[state=open]:animate-in data-[state=open]:fade-in-0 data-[state=closed]:animate-out data-[state=closed]:fade-out-0"

/** How popovers, menus, hover cards and tooltips appear: fade and zoom, sliding in from their side. */
export const popIn =
  "data-[state=open]:animate-in data-[state=open]:fade-in-0 data-[state=open]:zoom-in-95 data-[state=closed]:animate-out data-[state=closed]:fade-out-0 data-[state=closed]:zoom-out-95 data-[side=bottom]:slide-in-from-top-2 data-[side=left]:slide-in-from-right-2 data-[side=right]:slide-in-from-left-2 data-[side=top]:slide-in-from-bottom-2"

/** A floating panel: popover colors, border, shadow. */
export const floatingPanel = "z-50 rounded-md border bg-popover text-popover-foreground shadow-md"

/** The ✕ in the corner of dialogs and sheets. */
export const closeCorner =
  "absolute top-4 right-4 rounded-xs opacity-70 ring-offset-background transition-opacity hover:opacity-100 focus:ring-2 focus:ring-ring focus:ring-offset-2 focus:outline-hidden disabled:pointer-events-none [&_svg]:pointer-events-none [&_svg]:shrink-0 [&_svg:not([class*='size-'])]:size-4"

/** A centered modal box, for dialogs and alert dialogs. */
export const modalBox =
  "fixed top-[50%] left-[50%] z-50 grid w-full max-w-[calc(100%-2rem)] translate-x-[-50%] translate-y-[-50%] gap-4 rounded-lg border bg-background p-6 shadow-lg duration-200 sm:max-w-lg data-[state=open]:animate-in data-[state=open]:fade-in-0 data-[state=open]:zoom-in-95 data-[state=closed]:animate-out data-[state=closed]:fade-out-0 data-[state=closed]:zoom-out-95"

/** Header and footer of a centered modal: stacked on narrow panes, a row on wide ones. */
export const modalHeader = "flex flex-col gap-2 text-center sm:text-left"
export const modalFooter = "flex flex-col-reverse gap-2 sm:flex-row sm:justify-end"
