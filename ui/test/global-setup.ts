/**
 * Builds what the tests read, once per run: `ui/dist/` exactly as `npm run build` makes it (the
 * build test checks it, the browser tests serve it), the frame test's host page, and the widgets
 * the workbench test's fake daemon hands out.
 */
import { mkdtempSync, readFileSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "vite"
import type { TestProject } from "vitest/node"

const ui = fileURLToPath(new URL("..", import.meta.url))

declare module "vitest" {
  export interface ProvidedContext {
    /** The built host page of the browser test. */
    hostDir: string
    /** The gallery widget as CommonJS, every import left a `require`, as the daemon would send it. */
    gallery: string
    /** The workbench test's widgets (test/workbench/widgets/*.jsx) the same way, by name. */
    workbenchWidgets: Record<string, string>
  }
}

export default async function setup(project: TestProject) {
  // Vitest runs with NODE_ENV=test, which would make Vite bundle React's development build.
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = "production"
  await build({ configFile: join(ui, "vite.config.ts"), logLevel: "warn" })
  await build({ configFile: join(ui, "vite.workbench.config.ts"), logLevel: "warn" })
  const hostDir = mkdtempSync(join(tmpdir(), "cowork-host-"))
  await build({
    configFile: false,
    root: join(ui, "test/browser"),
    base: "./",
    logLevel: "warn",
    build: { outDir: hostDir, emptyOutDir: true, rolldownOptions: { input: join(ui, "test/browser/host.html") } },
  })
  const widgetsDir = join(ui, "test/workbench/widgets")
  const widgets = Object.fromEntries(
    readdirSync(widgetsDir).map((file) => [file.replace(/\.jsx$/, ""), join(widgetsDir, file)])
  )
  const built = await asCommonJs({ gallery: join(ui, "test/browser/gallery.jsx"), ...widgets })
  process.env.NODE_ENV = nodeEnv
  project.provide("hostDir", hostDir)
  const { gallery, ...workbenchWidgets } = built
  project.provide("gallery", gallery!)
  project.provide("workbenchWidgets", workbenchWidgets)
}

/** Each widget as CommonJS with every bare import left a `require()` for the frame's shim. */
async function asCommonJs(entries: Record<string, string>) {
  const outDir = mkdtempSync(join(tmpdir(), "cowork-widgets-"))
  await build({
    configFile: false,
    logLevel: "warn",
    build: {
      outDir,
      minify: false,
      lib: { entry: entries, formats: ["cjs"], fileName: (_format, name) => `${name}.js` },
      rolldownOptions: { external: (id) => !id.startsWith(".") && !id.startsWith("/") },
    },
  })
  return Object.fromEntries(Object.keys(entries).map((name) => [name, readFileSync(join(outDir, `${name}.js`), "utf8")]))
}
