/**
 * The `require` a widget runs with, resolving only the cowork webapp allowlist.
 *
 * React is in the frame's own bundle; every other module is a lazy chunk, loaded before the
 * widget runs from the import list the daemon sends with the code — a widget that imports only
 * React loads only React. `require` itself is synchronous, as the transpiled code expects.
 */
import * as React from "react"
import * as JsxRuntime from "react/jsx-runtime"
import * as ReactDom from "react-dom"
import * as ReactDomClient from "react-dom/client"

import { icons } from "./packages/lucide"
import { CoworkError, type WidgetImport } from "./protocol"

type Loader = () => Promise<object>
/** Loads some of a module's exports by name, or gives null when the module must load whole. */
type NamedLoader = (names: string[]) => Promise<object | null>

/** The stock shadcn/ui set, one lazy chunk per component: `@/components/ui/<name>`. */
const components = Object.fromEntries(
  Object.entries(import.meta.glob<object>("../components/ui/*.tsx")).map(([path, load]) => [
    `@/components/ui/${path.slice(path.lastIndexOf("/") + 1, -".tsx".length)}`,
    load,
  ]),
)

/** Modules in the frame's bundle, there before any widget runs. */
export const eager: Record<string, object> = {
  react: React,
  "react/jsx-runtime": JsxRuntime,
  "react-dom": ReactDom,
  "react-dom/client": ReactDomClient,
}

/** Every other allowed module, loaded on demand. */
export const lazy: Record<string, Loader> = {
  ...components,
  "@/lib/utils": () => import("@/lib/utils"),
  clsx: () => import("clsx"),
  "tailwind-merge": () => import("tailwind-merge"),
  "class-variance-authority": () => import("class-variance-authority"),
  "lucide-react": () => import("lucide-react"),
  recharts: () => import("./packages/recharts"),
  "@xyflow/react": () => import("./packages/xyflow"),
  "@xterm/xterm": () => import("./packages/xterm"),
  "@xterm/addon-fit": () => import("@xterm/addon-fit"),
  "@xterm/addon-web-links": () => import("@xterm/addon-web-links"),
  "radix-ui": () => import("radix-ui"),
  "react-day-picker": () => import("react-day-picker"),
  sonner: () => import("sonner"),
  vaul: () => import("vaul"),
  cmdk: () => import("cmdk"),
  "react-resizable-panels": () => import("react-resizable-panels"),
  "embla-carousel-react": () => import("embla-carousel-react"),
  "next-themes": () => import("next-themes"),
  "input-otp": () => import("input-otp"),
}

/** Modules that can load only the exports a widget names (`import { Plus } from …`). */
export const byName: Record<string, NamedLoader> = {
  // The table of icon files is in the frame's bundle: an icon is then one request away.
  "lucide-react": icons,
}

/** The error for a module outside the allowlist, placed at its import when the line is known. */
export function notAllowed(specifier: string, at?: WidgetImport) {
  return Object.assign(
    new CoworkError("NotAllowed", `"${specifier}" is not in the cowork webapp allowlist`),
    { line: at?.line, column: at?.column },
  )
}

/** A module table: `preload` what a widget imports, then `require` hands the modules out. */
export function createModules(
  ready: Record<string, object>,
  loaders: Record<string, Loader>,
  named: Record<string, NamedLoader> = {},
) {
  const loaded = new Map(Object.entries(ready))
  // What is loaded whole; any other entry of `loaded` holds the names asked for so far.
  const whole = new Set(Object.keys(ready))
  // Own keys only: "constructor" or "toString" name no module.
  const allowed = (specifier: string) => Object.hasOwn(loaders, specifier)

  const loading = new Map<string, Promise<void>>()

  /** Loads every import not loaded yet, together; rejects at the first one not allowed. */
  async function preload(imports: WidgetImport[]) {
    const refused = imports.find(
      (entry) => !loaded.has(entry.specifier) && !allowed(entry.specifier),
    )
    if (refused) throw notAllowed(refused.specifier, refused)
    await Promise.all(imports.map((entry) => load(entry.specifier, entry.names)))
  }

  /**
   * One load per module (or per set of names), shared by everyone waiting for it; a failed load
   * can be tried again. Names load alone where the module allows it, and join those loaded before
   * in the one object `require` hands out, so a hot-reloaded widget can name more.
   */
  function load(specifier: string, names?: string[]) {
    if (whole.has(specifier)) return
    const some = names && Object.hasOwn(named, specifier) ? names : undefined
    const have = loaded.get(specifier)
    if (some && have && some.every((name) => Object.hasOwn(have, name))) return
    const key = some ? `${specifier} ${some.join(" ")}` : specifier
    let pending = loading.get(key)
    if (!pending) {
      const loadWhole = () =>
        loaders[specifier]!().then((module) => {
          whole.add(specifier)
          loaded.set(specifier, module)
        })
      const work = some
        ? named[specifier]!(some).then((part) =>
            part
              ? void loaded.set(specifier, Object.assign(loaded.get(specifier) ?? {}, part))
              : loadWhole(),
          )
        : loadWhole()
      pending = work.then(
        () => void loading.delete(key),
        (error: unknown) => {
          loading.delete(key)
          throw error
        },
      )
      loading.set(key, pending)
    }
    return pending
  }

  function require(specifier: string) {
    const module = loaded.get(specifier)
    if (module) return module
    if (allowed(specifier)) {
      throw new CoworkError(
        "NotLoaded",
        `"${specifier}" was required but not in the widget's import list, so it was not loaded`,
      )
    }
    throw notAllowed(specifier)
  }

  return { preload, require }
}
