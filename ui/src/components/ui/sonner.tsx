import type * as React from "react"
import { Toaster as Sonner, type ToasterProps } from "sonner"
import CircleCheckIcon from "lucide-react/icons/circle-check"
import InfoIcon from "lucide-react/icons/info"
import Loader2Icon from "lucide-react/icons/loader-circle"
import OctagonXIcon from "lucide-react/icons/octagon-x"
import TriangleAlertIcon from "lucide-react/icons/triangle-exclamation-point"

import { useWorkbenchTheme } from "@/lib/theme"

/** Sonner's toaster in the popover colors, light or dark with the workbench. */
function Toaster(props: ToasterProps) {
  const theme = useWorkbenchTheme()
  return (
    <Sonner
      theme={theme}
      className="toaster group"
      // A refusal's description is its message, then its hint on a line of its own.
      toastOptions={{ classNames: { description: "whitespace-pre-line" } }}
      icons={{
        success: <CircleCheckIcon className="size-4" />,
        info: <InfoIcon className="size-4" />,
        warning: <TriangleAlertIcon className="size-4" />,
        error: <OctagonXIcon className="size-4" />,
        loading: <Loader2Icon className="size-4 animate-spin" />,
      }}
      style={
        {
          // The page's own font, not sonner's list of ten families, which WebKitGTK would look
          // up one by one, each a costly miss on Linux (see theme.css).
          fontFamily: "inherit",
          "--normal-bg": "var(--popover)",
          "--normal-text": "var(--popover-foreground)",
          "--normal-border": "var(--border)",
          "--border-radius": "var(--radius)",
        } as React.CSSProperties
      }
      {...props}
    />
  )
}

export { Toaster }
