import { describe, expect, it, vi } from "vitest"

import { createModules, eager, lazy } from "@/frame/modules"

/** The allowlist as docs/guides/widgets.md states it. */
const COMPONENTS =
  "accordion, alert, alert-dialog, aspect-ratio, avatar, badge, breadcrumb, button, calendar, card, carousel, chart, checkbox, collapsible, command, context-menu, dialog, drawer, dropdown-menu, hover-card, input, input-group, input-otp, label, menubar, native-select, navigation-menu, pagination, popover, progress, radio-group, resizable, scroll-area, select, separator, sheet, sidebar, skeleton, slider, sonner, switch, table, tabs, textarea, toggle, toggle-group, tooltip".split(
    ", "
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
    expect(Object.keys(eager).sort()).toEqual(["react", "react-dom", "react-dom/client", "react/jsx-runtime"])
  })
})

function fakeModules() {
  const loaders = {
    recharts: vi.fn(async () => ({ LineChart: "LineChart" })),
    "lucide-react": vi.fn(async () => ({ Check: "Check" })),
  }
  return { loaders, modules: createModules({ react: { version: "fake" } }, loaders) }
}

describe("require", () => {
  it("refuses a module outside the allowlist, naming it", () => {
    const { modules } = fakeModules()
    expect(() => modules.require("left-pad")).toThrow('"left-pad" is not in the cowork webapp allowlist')
    expect(() => modules.require("./helpers")).toThrow('"./helpers" is not in the cowork webapp allowlist')
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
    expect(() => modules.require("recharts")).toThrow(/"recharts" was required but not in the widget's import list/)
  })
})

describe("preload", () => {
  it("loads only what the widget imports", async () => {
    const { modules, loaders } = fakeModules()
    await modules.preload([{ specifier: "react", line: 1, column: 1 }, { specifier: "lucide-react", line: 1, column: 1 }])
    expect(loaders["lucide-react"]).toHaveBeenCalledOnce()
    expect(loaders.recharts).not.toHaveBeenCalled()
    expect(modules.require("lucide-react")).toEqual({ Check: "Check" })
  })

  it("loads a module once however often it is imported", async () => {
    const { modules, loaders } = fakeModules()
    await modules.preload([{ specifier: "recharts", line: 1, column: 1 }, { specifier: "recharts", line: 1, column: 1 }])
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

  it("resolves the real lazy chunks of the allowlist", async () => {
    const modules = createModules(eager, lazy)
    await modules.preload([{ specifier: "@/components/ui/button", line: 1, column: 1 }, { specifier: "clsx", line: 1, column: 1 }])
    const button = modules.require("@/components/ui/button") as Record<string, unknown>
    expect(typeof button.Button).toBe("function")
    expect(typeof button.buttonVariants).toBe("function")
  })
})
