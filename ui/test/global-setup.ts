/**
 * Builds what the tests read, once per run: `ui/dist/` exactly as `npm run build` makes it (the
 * build test checks it, the browser test serves it), and the browser test's host page.
 */
import { mkdtempSync, readFileSync } from "node:fs"
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
  }
}

export default async function setup(project: TestProject) {
  // Vitest runs with NODE_ENV=test, which would make Vite bundle React's development build.
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = "production"
  await build({ configFile: join(ui, "vite.config.ts"), logLevel: "warn" })
  const hostDir = mkdtempSync(join(tmpdir(), "cowork-host-"))
  await build({
    configFile: false,
    root: join(ui, "test/browser"),
    base: "./",
    logLevel: "warn",
    build: { outDir: hostDir, emptyOutDir: true, rolldownOptions: { input: join(ui, "test/browser/host.html") } },
  })
  const galleryDir = mkdtempSync(join(tmpdir(), "cowork-gallery-"))
  await build({
    configFile: false,
    logLevel: "warn",
    build: {
      outDir: galleryDir,
      minify: false,
      lib: { entry: join(ui, "test/browser/gallery.jsx"), formats: ["cjs"], fileName: () => "gallery.js" },
      // Every bare import stays a require() for the frame's shim to resolve.
      rolldownOptions: { external: (id) => !id.startsWith(".") && !id.startsWith("/") },
    },
  })
  process.env.NODE_ENV = nodeEnv
  project.provide("hostDir", hostDir)
  project.provide("gallery", readFileSync(join(galleryDir, "gallery.js"), "utf8"))
}
