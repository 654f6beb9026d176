import { posix } from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig, type Plugin } from "vite"
import react from "@vitejs/plugin-react"
import tailwindcss from "@tailwindcss/vite"

import { alias } from "./vite.config.ts"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/**
 * The workbench: dist/index.html and dist/workbench/*, built after the frame into the same dist/
 * (the daemon serves `/` and `/workbench/` of its own port from there). Tailwind is compiled at
 * build time here; the frame compiles it at run time because widgets bring their own classes.
 */
export default defineConfig({
  root: here("."),
  base: "./",
  plugins: [react(), tailwindcss(), preloadIconFont()],
  resolve: { alias },
  build: {
    outDir: here("dist"),
    emptyOutDir: false,
    assetsDir: "workbench",
    target: "es2022",
    // The workbench is one page that needs all of itself at once, served from this computer.
    chunkSizeWarningLimit: 1000,
    rolldownOptions: { input: { workbench: here("index.html") } },
  },
})

/**
 * Preloads the icon font the workbench's stylesheet names (codicons: the rail's glyphs, drawn with
 * `font-display: block`), asked for beside the stylesheet rather than when the first layout meets
 * a glyph: the first frame came about 25 ms sooner (BENCHMARKS.md, "The shell").
 */
function preloadIconFont(): Plugin {
  return {
    name: "cowork:preload-icon-font",
    transformIndexHtml: {
      order: "post",
      handler(_html, { bundle }) {
        const css = Object.values(bundle ?? {}).find(
          (file) => file.type === "asset" && file.fileName.endsWith(".css"),
        )
        const font =
          css?.type === "asset"
            ? /url\(["']?([^)"']*codicon[^)"']*\.ttf[^)"']*)["']?\)/.exec(String(css.source))?.[1]
            : undefined
        if (!css || !font)
          throw new Error("the workbench's stylesheet names no codicon font to preload")
        const href = `./${posix.join(posix.dirname(css.fileName), font)}`
        return [
          {
            tag: "link",
            attrs: { rel: "preload", as: "font", type: "font/ttf", crossorigin: true, href },
            injectTo: "head",
          },
        ]
      },
    },
  }
}
