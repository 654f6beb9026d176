/**
 * Builds what the tests read, once per run: `ui/dist/` exactly as `npm run build` makes it (the
 * build test checks it, the browser tests serve it; scripts/build-ui, so only when a source
 * changed), the frame test's host page, and the widgets the workbench test's fake daemon hands out. Then pays, once and outside any test's budget, what
 * only the first run on a fresh machine pays: see `warmUp`.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { build } from "vite"
import type { TestProject } from "vitest/node"
import { CHROMIUM, launchChromium } from "./chromium"
import { alias } from "../vite.config"

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
  // ui/dist as `npm run build` makes it, by the rule every caller shares: skipped when it is newer
  // than every source (scripts/test builds it before the .deb's build reads it beside this suite).
  const built = spawnSync(join(ui, "../scripts/build-ui"), { stdio: "inherit" })
  if (built.status !== 0)
    throw new Error(`scripts/build-ui failed (${built.status ?? built.signal})`)
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = "production"
  const hostDir = mkdtempSync(join(tmpdir(), "cowork-host-"))
  await build({
    configFile: false,
    root: join(ui, "test/browser"),
    base: "./",
    logLevel: "warn",
    // The host compiles the pane's Tailwind as the workbench does (src/host/styles.ts).
    resolve: { alias },
    build: {
      outDir: hostDir,
      emptyOutDir: true,
      rolldownOptions: { input: join(ui, "test/browser/host.html") },
    },
  })
  const widgetsDir = join(ui, "test/workbench/widgets")
  const widgets = Object.fromEntries(
    readdirSync(widgetsDir).map((file) => [file.replace(/\.jsx$/, ""), join(widgetsDir, file)]),
  )
  const bundles = await asCommonJs({ gallery: join(ui, "test/browser/gallery.jsx"), ...widgets })
  process.env.NODE_ENV = nodeEnv
  project.provide("hostDir", hostDir)
  const { gallery, ...workbenchWidgets } = bundles
  project.provide("gallery", gallery!)
  project.provide("workbenchWidgets", workbenchWidgets)
  await warmUp()
}

/**
 * A fresh clone's first Chromium start reads the browser from disk and builds the font cache, its
 * first frame reads every built asset, and Bun's first start reads its 90 MB binary: seconds each
 * on a cold, busy machine, which would otherwise land inside the first test that touches them.
 * Done here, before any test's clock starts, they are warm for all of them.
 */
async function warmUp() {
  // Where scripts/install-deps puts Bun (the daemon's routine runtime), else one on PATH.
  const arch = process.arch === "arm64" ? "aarch64" : "x64"
  const installed = join(
    homedir(),
    `.cowork-studio/runtime/node_modules/@oven/bun-linux-${arch}/bin/bun`,
  )
  spawnSync(existsSync(installed) ? installed : "bun", ["-e", "0"], { stdio: "ignore" })
  if (!existsSync(CHROMIUM)) return
  const browser = await launchChromium()
  try {
    const page = await browser.newPage()
    // The frame page loads the runtime's chunks; the workbench page its own. Neither has a daemon
    // to talk to here, and needs none to have read its assets.
    await page.goto(pathToFileURL(join(ui, "dist/frame.html")).href, { waitUntil: "load" })
    await page.goto(pathToFileURL(join(ui, "dist/index.html")).href, { waitUntil: "load" })
  } finally {
    await browser.close()
  }
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
  return Object.fromEntries(
    Object.keys(entries).map((name) => [name, readFileSync(join(outDir, `${name}.js`), "utf8")]),
  )
}
