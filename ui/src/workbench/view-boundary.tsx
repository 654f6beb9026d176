/**
 * A part of the workbench that failed to draw says so in its own place, with Try Again, instead
 * of React unmounting the whole page (a blank window, every pane gone with it).
 */
import { Component, type ErrorInfo, type ReactNode } from "react"

import { Button } from "@/components/ui/button"
import { cn } from "@/lib/utils"
import { Codicon } from "./codicon"

interface ViewBoundaryProps {
  /** What the person calls this part ("Manage Workspace", "the side bar"). */
  name: string
  className?: string
  children: ReactNode
}

export class ViewBoundary extends Component<ViewBoundaryProps, { error: Error | null }> {
  state = { error: null as Error | null }

  static getDerivedStateFromError(error: Error) {
    return { error }
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(`${this.props.name} failed to draw`, error, info.componentStack)
  }

  render() {
    const { error } = this.state
    if (!error) return this.props.children
    return (
      <div
        role="alert"
        data-testid="view-failed"
        className={cn(
          "grid place-content-center gap-3 p-4 text-center text-sm",
          this.props.className,
        )}
      >
        <Codicon name="warning" size={24} className="mx-auto text-amber-500" />
        <p className="font-medium">{this.props.name} could not be shown</p>
        <p className="max-w-md font-mono text-xs break-words text-muted-foreground">
          {error.message}
        </p>
        <Button
          size="sm"
          variant="outline"
          className="mx-auto"
          onClick={() => this.setState({ error: null })}
        >
          Try Again
        </Button>
      </div>
    )
  }
}
