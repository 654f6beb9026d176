import type * as React from "react"
import * as AspectRatioPrimitive from "radix-ui/aspect-ratio"

function AspectRatio(props: React.ComponentProps<typeof AspectRatioPrimitive.Root>) {
  return <AspectRatioPrimitive.Root data-slot="aspect-ratio" {...props} />
}

export { AspectRatio }
