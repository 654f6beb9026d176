/**
 * The widget panes' Tailwind compiler in the workbench (src/host/styles.ts), in Node: what a
 * pane's first stylesheet holds, that one app's classes never reach another app's stylesheet,
 * and what a hostile frame cannot make it do.
 */
import { describe, expect, it } from "vitest"

import { CLASSES_PER_REQUEST, type Widget } from "@/frame/protocol"
import { LIMITS, classTokens, compileClasses, cssForWidget } from "@/host/styles"

const widget = (code: string, ...specifiers: string[]): Widget => ({
  file: "widgets/test.jsx",
  code,
  imports: specifiers.map((specifier) => ({ specifier, line: 1, column: 1 })),
})

describe("the panes' Tailwind compiler", () => {
  it("compiles the classes of a widget's code and of the shadcn components it imports", async () => {
    const css = await cssForWidget(
      "notes",
      widget(
        `jsx("div", { className: "grid-cols-[1fr_auto] text-lime-700", children: jsx(Button, {}) })`,
        "react",
        "@/components/ui/button",
      ),
    )
    expect(css).toContain(".text-lime-700")
    expect(css).toContain(".grid-cols-\\[1fr_auto\\]")
    // Button's own classes, and the focus ring it takes from @/components/styles.
    expect(css).toContain(".bg-primary")
    expect(css).toContain(".focus-visible\\:ring-\\[3px\\]")
    // The theme tokens and the dark variant come with every stylesheet.
    expect(css).toContain("--background:")
    expect(css).toContain(".dark")
  })

  it("adds a class found at run time, and answers the whole stylesheet however often it is asked", async () => {
    const first = await cssForWidget("board", widget(`className: "p-4"`))
    expect(first).not.toContain(".bg-sky-600")
    const css = await compileClasses("board", ["bg-sky-600", "p-4"])
    expect(css).toContain(".bg-sky-600")
    // A frame that started over (its document reloaded) has only its init's stylesheet: asking
    // again about classes the compiler knows gives it the run-time ones too.
    expect(await compileClasses("board", ["bg-sky-600", "not-a-class"])).toBe(css)
  })

  it("keeps one app's classes out of another app's stylesheet", async () => {
    // A class a widget builds from its data: another app's pane must not learn it.
    expect(await compileClasses("diary", ["content-['met_Bob_at_noon']", "w-[37.5%]"])).toContain(
      "met_Bob_at_noon",
    )
    const other = await cssForWidget("weather", widget(`className: "p-2"`))
    expect(other).not.toContain("met_Bob_at_noon")
    expect(other).not.toContain("37.5%")
  })

  it("refuses what a hostile frame sends, by name", async () => {
    await expect(compileClasses("hostile", "p-4")).rejects.toMatchObject({ name: "BadRequest" })
    await expect(compileClasses("hostile", [1, 2])).rejects.toMatchObject({ name: "BadRequest" })
    const tooMany = Array.from({ length: CLASSES_PER_REQUEST + 1 }, (_, i) => `p-${i}`)
    await expect(compileClasses("hostile", tooMany)).rejects.toMatchObject({ name: "BadRequest" })
    // A class name past the length limit is left out, not compiled.
    const long = `w-[${"9".repeat(LIMITS.classLength)}px]`
    expect(await compileClasses("hostile", [long])).not.toContain("999999")
    // Past the app's limit, the rest stays unstyled and the frame hears why.
    for (let start = 0; start < LIMITS.classesPerApp; start += CLASSES_PER_REQUEST) {
      await compileClasses(
        "hostile",
        Array.from({ length: CLASSES_PER_REQUEST }, (_, i) => `junk-${start + i}`),
      )
    }
    await expect(compileClasses("hostile", ["p-4"])).rejects.toMatchObject({ name: "TooLarge" })
    // What it had sent before is still compiled, and a class it knows is no new one.
    expect(await compileClasses("hostile", ["junk-1"])).not.toContain(".p-4")
    // Other apps go on.
    expect(await compileClasses("notes", ["m-3"])).toContain(".m-3")
  })

  it("opens a pane of a widget with more words than an app's frames may send", async () => {
    const words = Array.from({ length: LIMITS.classesPerApp + 10 }, (_, i) => `word-${i}`).join(" ")
    const css = await cssForWidget("big", widget(`className: "p-5"; /* ${words} */`))
    expect(css).toContain(".p-5")
    // Its frames still have their own allowance.
    expect(await compileClasses("big", ["m-7"])).toContain(".m-7")
  })

  it("reads class-like words from code as Tailwind's scanner does", () => {
    expect(classTokens(`cn("px-2 py-1", active && 'bg-accent', \`size-4\`)`)).toEqual(
      expect.arrayContaining(["px-2", "py-1", "bg-accent", "size-4"]),
    )
    expect(classTokens(`a = 1 + 2`)).not.toContain("1")
  })
})
