import { describe, expect, it, vi } from "vitest"

import { readFileSync } from "node:fs"
import { createElement, type ComponentType } from "react"
import { renderToStaticMarkup } from "react-dom/server"
import { fileURLToPath } from "node:url"

import { byName, createModules, eager, lazy } from "@/frame/modules"
import { iconFile, icons } from "@/frame/packages/lucide"

/** The allowlist as docs/guides/widgets.md states it. */
const COMPONENTS =
  "accordion, alert, alert-dialog, aspect-ratio, avatar, badge, breadcrumb, button, calendar, card, carousel, chart, checkbox, collapsible, command, context-menu, dialog, drawer, dropdown-menu, hover-card, input, input-group, input-otp, label, menubar, native-select, navigation-menu, pagination, popover, progress, radio-group, resizable, scroll-area, select, separator, sheet, sidebar, skeleton, slider, sonner, switch, table, tabs, textarea, toggle, toggle-group, tooltip".split(
    ", ",
  )
const PACKAGES = [
  "react",
  "react/jsx-runtime",
  "react-dom",
  "react-dom/client",
  "@/lib/utils",
  "clsx",
  "tailwind-merge",
  "class-variance-authority",
  "lucide-react",
  "recharts",
  "@xyflow/react",
  "@xterm/xterm",
  "@xterm/addon-fit",
  "@xterm/addon-web-links",
  "radix-ui",
  "react-day-picker",
  "sonner",
  "vaul",
  "cmdk",
  "react-resizable-panels",
  "embla-carousel-react",
  "next-themes",
  "input-otp",
]

describe("the allowlist", () => {
  it("is exactly the modules page 04 lists", () => {
    const allowed = [...Object.keys(eager), ...Object.keys(lazy)].sort()
    const expected = [...PACKAGES, ...COMPONENTS.map((name) => `@/components/ui/${name}`)].sort()
    expect(allowed).toEqual(expected)
  })

  it("keeps only React in the frame's own bundle", () => {
    expect(Object.keys(eager).sort()).toEqual([
      "react",
      "react-dom",
      "react-dom/client",
      "react/jsx-runtime",
    ])
  })
})

function fakeModules() {
  const loaders = {
    recharts: vi.fn(async () => ({ LineChart: "LineChart" })),
    "lucide-react": vi.fn(async () => ({ Check: "Check", Plus: "Plus", Trash2: "Trash2" })),
  }
  // Like lucide's: a name it cannot place alone (here "icons") sends the load to the whole module.
  const named = {
    "lucide-react": vi.fn(async (names: string[]) =>
      names.includes("icons")
        ? null
        : Object.fromEntries(names.map((name) => [name, `${name} alone`])),
    ),
  }
  return { loaders, named, modules: createModules({ react: { version: "fake" } }, loaders, named) }
}

describe("require", () => {
  it("refuses a module outside the allowlist, naming it", () => {
    const { modules } = fakeModules()
    expect(() => modules.require("left-pad")).toThrow(
      '"left-pad" is not in the cowork webapp allowlist',
    )
    expect(() => modules.require("./helpers")).toThrow(
      '"./helpers" is not in the cowork webapp allowlist',
    )
  })

  it("refuses names that only exist on Object.prototype", () => {
    const { modules } = fakeModules()
    expect(() => modules.require("constructor")).toThrow("not in the cowork webapp allowlist")
  })

  it("hands out modules of the frame's bundle at once", () => {
    const { modules } = fakeModules()
    expect(modules.require("react")).toEqual({ version: "fake" })
  })

  it("says so when an allowed module was not preloaded", () => {
    const { modules } = fakeModules()
    expect(() => modules.require("recharts")).toThrow(
      /"recharts" was required but not in the widget's import list/,
    )
  })
})

describe("preload", () => {
  it("loads only what the widget imports", async () => {
    const { modules, loaders } = fakeModules()
    await modules.preload([
      { specifier: "react", line: 1, column: 1 },
      { specifier: "lucide-react", line: 1, column: 1 },
    ])
    expect(loaders["lucide-react"]).toHaveBeenCalledOnce()
    expect(loaders.recharts).not.toHaveBeenCalled()
    expect(modules.require("lucide-react")).toEqual({
      Check: "Check",
      Plus: "Plus",
      Trash2: "Trash2",
    })
  })

  it("loads a module once however often it is imported", async () => {
    const { modules, loaders } = fakeModules()
    await modules.preload([
      { specifier: "recharts", line: 1, column: 1 },
      { specifier: "recharts", line: 1, column: 1 },
    ])
    await modules.preload([{ specifier: "recharts", line: 1, column: 1 }])
    expect(loaders.recharts).toHaveBeenCalledOnce()
  })

  it("refuses the whole list before loading anything when one import is not allowed", async () => {
    const { modules, loaders } = fakeModules()
    const refused = modules.preload([
      { specifier: "recharts", line: 1, column: 20 },
      { specifier: "left-pad", line: 3, column: 17 },
    ])
    await expect(refused).rejects.toMatchObject({
      name: "NotAllowed",
      message: '"left-pad" is not in the cowork webapp allowlist',
      line: 3,
      column: 17,
    })
    expect(loaders.recharts).not.toHaveBeenCalled()
  })

  it("loads only the named exports of a module that allows it, and more as a reload names more", async () => {
    const { modules, loaders, named } = fakeModules()
    await modules.preload([{ specifier: "lucide-react", line: 1, column: 1, names: ["Plus"] }])
    expect(named["lucide-react"]).toHaveBeenCalledWith(["Plus"])
    expect(loaders["lucide-react"]).not.toHaveBeenCalled()
    const first = modules.require("lucide-react")
    expect(first).toEqual({ Plus: "Plus alone" })
    // The same names again load nothing; a new one joins the same object.
    await modules.preload([{ specifier: "lucide-react", line: 1, column: 1, names: ["Plus"] }])
    await modules.preload([
      { specifier: "lucide-react", line: 1, column: 1, names: ["Plus", "Trash2"] },
    ])
    expect(named["lucide-react"]).toHaveBeenCalledTimes(2)
    expect(modules.require("lucide-react")).toBe(first)
    expect(first).toEqual({ Plus: "Plus alone", Trash2: "Trash2 alone" })
  })

  it("loads the whole module when the widget takes it whole or names what cannot load alone", async () => {
    const whole = fakeModules()
    await whole.modules.preload([{ specifier: "lucide-react", line: 1, column: 1 }])
    expect(whole.named["lucide-react"]).not.toHaveBeenCalled()
    expect(whole.modules.require("lucide-react")).toEqual({
      Check: "Check",
      Plus: "Plus",
      Trash2: "Trash2",
    })

    const unplaced = fakeModules()
    await unplaced.modules.preload([
      { specifier: "lucide-react", line: 1, column: 1, names: ["Plus", "icons"] },
    ])
    expect(unplaced.loaders["lucide-react"]).toHaveBeenCalledOnce()
    expect(unplaced.modules.require("lucide-react")).toEqual({
      Check: "Check",
      Plus: "Plus",
      Trash2: "Trash2",
    })
    // Once whole, named imports need nothing more.
    await unplaced.modules.preload([
      { specifier: "lucide-react", line: 1, column: 1, names: ["Check"] },
    ])
    expect(unplaced.named["lucide-react"]).toHaveBeenCalledOnce()
  })

  it("passes names only to the modules that load by name", async () => {
    const { modules, loaders } = fakeModules()
    await modules.preload([{ specifier: "recharts", line: 1, column: 1, names: ["LineChart"] }])
    expect(loaders.recharts).toHaveBeenCalledOnce()
    expect(modules.require("recharts")).toEqual({ LineChart: "LineChart" })
  })

  it("loads real lucide icons one file at a time, the very components the whole set exports", async () => {
    const modules = createModules(eager, lazy, byName)
    await modules.preload([
      {
        specifier: "lucide-react",
        line: 1,
        column: 1,
        names: ["Plus", "Trash2Icon", "LucideCheck"],
      },
    ])
    const some = modules.require("lucide-react") as Record<string, unknown>
    // Node resolves the package to its CommonJS build, so compare what each icon draws.
    const all = (await import("lucide-react")) as unknown as Record<string, ComponentType>
    const draw = (icon: unknown) => renderToStaticMarkup(createElement(icon as ComponentType))
    expect(Object.keys(some).sort()).toEqual(["LucideCheck", "Plus", "Trash2Icon"])
    for (const name of Object.keys(some)) expect(draw(some[name])).toBe(draw(all[name]))
    expect(draw(some.Plus)).not.toBe(draw(some.Trash2Icon))
  })

  it("finds the file of nearly every lucide export by its name, and never a wrong one", async () => {
    // lucide-react's index: `export { default as A, default as AIcon, … } from './icons/a.mjs';`
    const esm = fileURLToPath(new URL("../node_modules/lucide-react/dist/esm/", import.meta.url))
    const index = readFileSync(`${esm}lucide-react.mjs`, "utf8")
    const unplaced: string[] = []
    let exports = 0
    for (const [, list, file] of index.matchAll(
      /export \{ ([^}]*) \} from '\.\/icons\/([\w-]+)\.mjs'/g,
    )) {
      for (const name of list!.split(", ").map((part) => part.replace("default as ", ""))) {
        exports++
        const found = iconFile(name)
        if (!found) {
          unplaced.push(name)
          continue
        }
        // Lucide's own file, or an old name's file that re-exports it.
        const text = readFileSync(`${esm}icons/${found}.mjs`, "utf8")
        const own = found === file || text.startsWith(`export { default } from './${file}.mjs'`)
        expect(own, `${name} → ${found}, lucide says ${file}`).toBe(true)
      }
    }
    expect(exports).toBeGreaterThan(7000)
    // The rest (names that do not spell their file) load the whole set instead.
    expect(unplaced.length).toBeLessThan(100)
    expect(await icons(["createLucideIcon"])).toBeNull()
  })

  it("resolves the real lazy chunks of the allowlist", async () => {
    const modules = createModules(eager, lazy)
    await modules.preload([
      { specifier: "@/components/ui/button", line: 1, column: 1 },
      { specifier: "clsx", line: 1, column: 1 },
    ])
    const button = modules.require("@/components/ui/button") as Record<string, unknown>
    expect(typeof button.Button).toBe("function")
    expect(typeof button.buttonVariants).toBe("function")
  })
})
