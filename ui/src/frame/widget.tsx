/**
 * Runs a widget's transpiled code and renders its default export into the pane, or shows why it
 * could not: a refused import, a syntax error, a throw while loading or rendering.
 */
import * as React from "react"
import { flushSync } from "react-dom"
import { createRoot } from "react-dom/client"

import { CoworkError, type WidgetCode } from "./protocol"

/** What the pane shows for a widget that failed. */
export interface WidgetProblem {
  /** What went wrong, in a few words: "could not load", "crashed". */
  title: string
  file: string
  name: string
  message: string
  line?: number
  column?: number
  /** The stack (the widget's own frames), or React's component stack for a render error. */
  detail?: string
}

/**
 * Evaluates the body the daemon transpiled (`new Function("require", "module", "exports", code)`)
 * and returns its default export, read with the same interop as the widget's own imports.
 */
export function evaluate(widget: WidgetCode, require: (specifier: string) => unknown) {
  const module: { exports: Record<string, unknown> } = { exports: {} }
  // The sourceURL names the widget's file in stack traces and the browser's devtools.
  const source = `${widget.code}\n//# sourceURL=${widget.file.replace(/\s/g, "_")}`
  const run = new Function("require", "module", "exports", source)
  run(require, module, module.exports)
  const exported = module.exports
  const component = exported.__esModule ? exported.default : (exported.default ?? exported)
  if (!isComponent(component)) {
    throw new CoworkError(
      "NoComponent",
      `${widget.file} must \`export default\` a React component (a function)`,
    )
  }
  return component
}

/** A function component, or what `memo`/`forwardRef`/`lazy` make of one. */
function isComponent(value: unknown): value is React.ComponentType {
  return (
    typeof value === "function" ||
    (typeof value === "object" && value !== null && "$$typeof" in value)
  )
}

/** The problem to show for an error thrown while loading `file`. */
export function problem(title: string, file: string, error: unknown): WidgetProblem {
  const { name, message, line, column, stack } = (error ?? {}) as Partial<
    Error & { line: number; column: number }
  >
  return {
    title,
    file,
    name: name ?? "Error",
    message: message ?? String(error),
    line,
    column,
    detail: stack ? widgetFrames(stack, file) : undefined,
  }
}

/**
 * The stack's lines that run in the widget's own code (they carry its sourceURL), or nothing when
 * none do: the runtime's own frames say nothing about the widget. Their line numbers count in
 * the transpiled code, not the source file.
 */
function widgetFrames(stack: string, file: string) {
  const sourceUrl = file.replace(/\s/g, "_")
  const own = stack.split("\n").filter((line) => line.includes(sourceUrl))
  return own.length ? own.map((line) => line.trim()).join("\n") : undefined
}

export function ProblemView({ problem }: { problem: WidgetProblem }) {
  const where = [problem.file, problem.line, problem.column]
    .filter((part) => part != null)
    .join(":")
  return (
    <div className="flex h-full flex-col overflow-auto bg-background p-4 text-foreground">
      <div
        role="alert"
        data-slot="widget-error"
        className="grid gap-2 rounded-lg border border-destructive/40 bg-card p-4 text-sm text-card-foreground"
      >
        <p className="font-medium text-destructive">This widget {problem.title}</p>
        <p className="font-mono text-xs text-muted-foreground">{where}</p>
        <p className="break-words whitespace-pre-wrap">
          <span className="font-medium">{problem.name}</span>: {problem.message}
        </p>
        {problem.detail && (
          <pre className="max-h-64 overflow-auto rounded-md bg-muted p-2 font-mono text-xs text-muted-foreground">
            {problem.detail}
          </pre>
        )}
      </div>
    </div>
  )
}

/** Catches what the widget throws while rendering and shows it in its place. */
class Boundary extends React.Component<
  { file: string; children: React.ReactNode },
  { error: unknown }
> {
  state = { error: null as unknown }

  static getDerivedStateFromError(error: unknown) {
    return { error: error ?? new Error("The widget threw without an error") }
  }

  render() {
    if (!this.state.error) return this.props.children
    return <ProblemView problem={problem("crashed", this.props.file, this.state.error)} />
  }
}

/** The pane's React root: shows one widget (or one problem) at a time; errors go to `onError`. */
export function createPane(container: HTMLElement, onError: (error: unknown) => void) {
  // Render errors show in the pane (the boundary) and also reach the host's log.
  const root = createRoot(container, { onCaughtError: onError, onUncaughtError: onError })
  let generation = 0
  return {
    /** Renders the widget; a new `generation` key remounts it even when the component is the same. */
    show(file: string, Widget: React.ComponentType) {
      root.render(
        <Boundary key={++generation} file={file}>
          <Widget />
        </Boundary>,
      )
    },
    fail(shown: WidgetProblem) {
      root.render(<ProblemView key={++generation} problem={shown} />)
    },
    /** Unmounts the current widget now, so its effects' cleanups run before anything else. */
    clear() {
      flushSync(() => root.render(null))
    },
  }
}
