import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"
import react from "@vitejs/plugin-react"

import { lucideIcons } from "./lucide-icons.ts"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/** Import aliases the frame and the workbench (vite.workbench.config.ts) share. */
export const alias = {
  "@": here("src"),
  // tw-animate-css exports its stylesheet only to CSS imports; the panes' Tailwind compiler in
  // the workbench reads it as text (src/host/styles.ts).
  "@tw-animate": here("node_modules/tw-animate-css/dist"),
}

export default defineConfig({
  // The frame page: dist/frame.html and dist/assets/*. The workbench is a build of its own
  // (vite.workbench.config.ts), so no chunk of the frame is shared with it.
  root: here("src/frame"),
  // Relative URLs: the daemon may serve dist/ under any path of the app's origin.
  base: "./",
  plugins: [react(), lucideIcons()],
  resolve: { alias },
  build: {
    outDir: here("dist"),
    emptyOutDir: true,
    target: "es2022",
    // dist/.vite/manifest.json maps each source module to its chunk (the build test reads it).
    manifest: true,
    // lucide-react whole is one chunk, for a widget that takes the whole set (`import * as`); a
    // widget that names its icons loads only theirs (lucide-icons.ts).
    chunkSizeWarningLimit: 1000,
    rolldownOptions: {
      input: { frame: here("src/frame/frame.html") },
      // A frame's origin is opaque, so it fetches every chunk anew, six at a time: what nearly
      // every shadcn component needs is one chunk each, not a dozen of a few hundred bytes.
      output: {
        codeSplitting: {
          // The groups hold only what they name: React stays in the frame's own bundle.
          includeDependenciesRecursively: false,
          groups: [
            // Radix's small internals (about 10 KB built).
            {
              name: "radix-core",
              test: /node_modules[\\/]@radix-ui[\\/]react-(primitive|compose-refs|context|slot|presence|id|direction|use-[a-z-]+)[\\/]/,
            },
            // `cn` and what it is made of, cva, and the class strings the components share.
            {
              name: "cn",
              test: /src[\\/](lib[\\/]utils|components[\\/]styles)|node_modules[\\/](clsx|tailwind-merge|class-variance-authority)[\\/]/,
            },
          ],
        },
      },
    },
  },
  test: {
    root: here("."),
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    // Stylesheets read as text (`?raw`) are the panes' Tailwind source (src/host/styles.ts);
    // Vitest would hand them over empty.
    css: { include: [/\.css\?raw$/] },
  },
})
