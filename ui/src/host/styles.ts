/**
 * Tailwind for widget panes, compiled here in the workbench rather than in every frame.
 *
 * The reference promises that Tailwind classes work in widgets, compiled at runtime. Tailwind's
 * browser build did that inside each frame, and was most of a rail click (BENCHMARKS.md: the
 * frame without it paints 40–50 % sooner): every frame loaded, parsed and warmed the compiler
 * anew, since a sandboxed frame's origin is opaque and nothing of it is ever cached. Here one
 * warm copy of the compiler serves every pane:
 *
 * - a pane's `init` carries the CSS for the classes in its widget's code and in the shadcn
 *   components it imports (`cssForWidget`), so it paints styled;
 * - a class the widget makes up at run time (`bg-${tone}-500`) reaches the host from the frame's
 *   observer (`styles.compile`) and comes back compiled (`compileClasses`).
 *
 * Each app has a compiler of its own: a compiler's output holds every class it was ever given,
 * and classes a widget builds from its data must not show up in another app's stylesheet. A
 * compiler takes ~100 ms to make, so one is made ahead, while the workbench is idle, for the
 * next app that opens.
 */
import { compile } from "tailwindcss"
import tailwindIndex from "tailwindcss/index.css?raw"
import animations from "@tw-animate/tw-animate.css?raw"
import theme from "../theme.css?raw"
import { CLASSES_PER_REQUEST, CoworkError, type Widget } from "../frame/protocol"

/** The pane's stylesheet source: Tailwind, tw-animate-css's animations and the shadcn tokens. */
const SOURCE = `@import "tailwindcss";\n${animations}\n${theme}`

/**
 * What one app's frames may hand the compiler: a hostile widget must not stall the workbench.
 * The words of the app's own code are not counted: a pane always opens, however large its widget.
 */
export const LIMITS = {
  classesPerRequest: CLASSES_PER_REQUEST,
  classesPerApp: 20_000,
  classLength: 200,
}

type Compiler = Awaited<ReturnType<typeof compile>>

interface AppStyles {
  compiler: Compiler
  classes: Set<string>
  /** How many of `classes` came from the app's frames, not from its code. */
  fromFrames: number
  css: string
}

const apps = new Map<string, Promise<AppStyles>>()
let spare: Promise<Compiler> | undefined

function newCompiler(): Promise<Compiler> {
  return compile(SOURCE, {
    loadStylesheet: async (id, base) => {
      if (id !== "tailwindcss")
        throw new Error(`a widget pane's stylesheet imports only "tailwindcss", not "${id}"`)
      return { path: "virtual:tailwindcss/index.css", base, content: tailwindIndex }
    },
  })
}

/** Makes the next app's compiler ahead of time, when the workbench has nothing else to do. */
function prepareSpare() {
  if (spare) return
  const idle = globalThis.requestIdleCallback ?? ((run: () => void) => setTimeout(run, 50))
  spare = new Promise((resolve, reject) => idle(() => newCompiler().then(resolve, reject)))
}

function stylesOf(app: string): Promise<AppStyles> {
  let styles = apps.get(app)
  if (!styles) {
    const compiler = spare ?? newCompiler()
    spare = undefined
    styles = compiler.then((compiler) => ({
      compiler,
      classes: new Set<string>(),
      fromFrames: 0,
      css: compiler.build([]),
    }))
    apps.set(app, styles)
    // A compiler that failed is not kept: the next pane of the app tries again.
    styles.then(prepareSpare, () => apps.delete(app))
  }
  return styles
}

/** Starts making `app`'s compiler, for a pane about to open (its code still on the way). */
export function prepare(app: string) {
  void stylesOf(app)
}

/**
 * Adds `candidates` to `app`'s compiler and gives its whole stylesheet. Tokens that are no class
 * (`=>`, `return`) cost a lookup and add nothing.
 */
async function add(
  app: string,
  candidates: Iterable<string>,
  from: "code" | "frame",
): Promise<string> {
  const styles = await stylesOf(app)
  const fresh: string[] = []
  let refused = false
  for (const candidate of candidates) {
    if (candidate.length > LIMITS.classLength || styles.classes.has(candidate)) continue
    if (from === "frame" && styles.fromFrames >= LIMITS.classesPerApp) {
      refused = true
      break
    }
    if (from === "frame") styles.fromFrames++
    styles.classes.add(candidate)
    fresh.push(candidate)
  }
  // What fitted is compiled either way: a class counted as known is always in the stylesheet.
  if (fresh.length) styles.css = styles.compiler.build(fresh)
  if (refused) {
    throw new CoworkError(
      "TooLarge",
      `${app}'s panes asked for more than ${LIMITS.classesPerApp} Tailwind classes; the rest stay unstyled until the workbench is reloaded`,
    )
  }
  return styles.css
}

/** The CSS a pane of `app` starts with: its widget's classes and its shadcn components'. */
export async function cssForWidget(app: string, widget: Widget): Promise<string> {
  const sources =
    "error" in widget
      ? []
      : [widget.code, ...(await componentSources(widget.imports.map((i) => i.specifier)))]
  return add(app, sources.flatMap(classTokens), "code")
}

/**
 * Compiles classes a pane's frame found in its document, and gives the app's whole stylesheet —
 * also when they were all known: a frame that started over holds only what its `init` had.
 */
export function compileClasses(app: string, classes: unknown): Promise<string> {
  if (
    !Array.isArray(classes) ||
    classes.length > LIMITS.classesPerRequest ||
    !classes.every((c) => typeof c === "string")
  ) {
    return Promise.reject(
      new CoworkError(
        "BadRequest",
        `styles.compile takes at most ${LIMITS.classesPerRequest} class names as strings`,
      ),
    )
  }
  return add(app, classes, "frame")
}

/**
 * The words of a source that could be classes, as Tailwind's own scanner reads files: split at
 * whitespace, quotes and code punctuation. A class inside a string with a quote in it
 * (`content-['x']`) is split here, and reaches the compiler from the document instead.
 */
export function classTokens(source: string): string[] {
  return source
    .split(/[\s"'`\\{}();,<>]+/)
    .filter((token) => token.length > 1 && /[a-z]/.test(token))
}

/** The shadcn set's sources, as text, by the name a widget imports them with. */
const componentFiles = Object.fromEntries(
  Object.entries(
    import.meta.glob<string>(["../components/**/*.ts", "../components/**/*.tsx"], {
      query: "?raw",
      import: "default",
    }),
  ).map(([path, load]) => [
    `@/components/${path.slice("../components/".length).replace(/\.tsx?$/, "")}`,
    load,
  ]),
)
const componentText = new Map<string, Promise<string>>()

/** The sources of `specifiers`' components and of every component they import in turn. */
async function componentSources(specifiers: string[]): Promise<string[]> {
  const seen = new Set<string>()
  const texts: string[] = []
  const known = (specifier: string) => Object.hasOwn(componentFiles, specifier)
  let next = specifiers.filter(known)
  while (next.length) {
    const batch = next.filter((s) => !seen.has(s))
    for (const s of batch) seen.add(s)
    const loaded = await Promise.all(batch.map(textOf))
    texts.push(...loaded)
    next = loaded
      .flatMap((text) => [...text.matchAll(/from "(@\/components\/[^"]+)"/g)].map((m) => m[1]))
      .filter(known)
  }
  return texts
}

function textOf(specifier: string): Promise<string> {
  let text = componentText.get(specifier)
  if (!text) {
    text = componentFiles[specifier]()
    componentText.set(specifier, text)
  }
  return text
}
