import type * as React from "react"

import { cn } from "@/lib/utils"
import { fieldBox, focusRing, invalidRing } from "@/components/styles"

function Input({ className, type, ...props }: React.ComponentProps<"input">) {
  return (
    <input
      type={type}
      data-slot="input"
      className={cn(
        "h-9 w-full min-w-0 px-3 py-1 text-base md:text-sm",
        "placeholder:text-muted-foreground selection:bg-primary selection:text-primary-foreground",
        "file:inline-flex file:h-7 file:border-0 file:bg-transparent file:text-sm file:font-medium file:text-foreground",
        fieldBox,
        focusRing,
        invalidRing,
        className,
      )}
      {...props}
    />
  )
}

export { Input }
