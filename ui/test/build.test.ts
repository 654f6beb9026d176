/**
 * What `npm run build` leaves in ui/dist/ (global-setup ran it): the frame page, its entry
 * chunk, and the heavy libraries as chunks of their own that the entry does not load.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const dist = fileURLToPath(new URL("../dist", import.meta.url))

type Chunk = {
  file: string
  isEntry?: boolean
  isDynamicEntry?: boolean
  imports?: string[]
  dynamicImports?: string[]
  css?: string[]
}
const manifest: Record<string, Chunk> = JSON.parse(
  readFileSync(join(dist, ".vite/manifest.json"), "utf8"),
)

/** Every chunk `key` loads before it runs (its static imports, transitively). */
function staticClosure(key: string, seen = new Set<string>()) {
  for (const imported of manifest[key]!.imports ?? []) {
    if (!seen.has(imported)) {
      seen.add(imported)
      staticClosure(imported, seen)
    }
  }
  return seen
}

describe("the build", () => {
  it("has the frame page and its entry chunk", () => {
    const entry = manifest["frame.html"]!
    expect(entry.isEntry).toBe(true)
    const html = readFileSync(join(dist, "frame.html"), "utf8")
    expect(html).toContain(`src="./${entry.file}"`)
    // React's production build, whatever NODE_ENV the build ran under.
    expect(readFileSync(join(dist, entry.file), "utf8")).toContain("Minified React error")
  })

  it.each([
    ["recharts", "packages/recharts.ts", false],
    ["@xyflow/react", "packages/xyflow.ts", true],
    ["@xterm/xterm", "packages/xterm.ts", true],
  ])("loads %s as a chunk of its own, with its stylesheet", (_name, key, hasCss) => {
    const chunk = manifest[key]!
    expect(chunk.isDynamicEntry).toBe(true)
    expect(chunk.file).not.toBe(manifest["frame.html"]!.file)
    expect(staticClosure("frame.html")).not.toContain(key)
    expect(existsSync(join(dist, chunk.file))).toBe(true)
    expect((chunk.css ?? []).length > 0).toBe(hasCss)
  })

  it("gives each of the 47 components a lazy chunk the entry does not load", () => {
    const loadedFirst = staticClosure("frame.html")
    const components = Object.keys(manifest).filter((key) => key.startsWith("../components/ui/"))
    expect(components).toHaveLength(47)
    for (const key of components) {
      expect(manifest[key]!.isDynamicEntry).toBe(true)
      expect(loadedFirst).not.toContain(key)
    }
  })

  it("has the workbench page preload the icon font its stylesheet draws the rail with", () => {
    const html = readFileSync(join(dist, "index.html"), "utf8")
    const stylesheet =
      /<link rel="stylesheet" crossorigin href="\.\/(workbench\/[^"]+\.css)">/.exec(html)![1]!
    const font = /url\((\.\/codicon-[^)]+)\)/.exec(
      readFileSync(join(dist, stylesheet), "utf8"),
    )![1]!
    expect(html).toContain(
      `<link rel="preload" as="font" type="font/ttf" crossorigin href="./workbench/${font.slice(2)}">`,
    )
    expect(existsSync(join(dist, "workbench", font.slice(2).replace(/\?.*/, "")))).toBe(true)
  })
})
