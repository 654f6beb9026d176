import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"
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
  plugins: [react(), tailwindcss()],
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
