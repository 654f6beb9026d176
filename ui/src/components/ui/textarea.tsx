import type * as React from "react"

import { cn } from "@/lib/utils"
import { fieldBox, focusRing, invalidRing } from "@/components/styles"

function Textarea({ className, ...props }: React.ComponentProps<"textarea">) {
  return (
    <textarea
      data-slot="textarea"
      className={cn(
        "field-sizing-content flex min-h-16 w-full px-3 py-2 text-base placeholder:text-muted-foreground md:text-sm",
        fieldBox,
        focusRing,
        invalidRing,
        className,
      )}
      {...props}
    />
  )
}

export { Textarea }
