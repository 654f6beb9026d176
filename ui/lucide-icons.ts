/**
 * lucide-react's icons, one small file each at a fixed address (`assets/lucide-<version>/<file>.js`),
 * for the widget frame to load only the icons a widget names (src/frame/packages/lucide.ts).
 *
 * Each file holds only its icon's data (lucide's own `icons/<file>.mjs` with `createLucideIcon`
 * left to the frame), so it imports nothing and its content changes only with lucide's version:
 * the daemon's year-long caching of assets holds for it although its name carries no hash. It is
 * built under a module id of its own: built from lucide's files themselves, the whole set (still
 * there for a widget that takes it whole) would be split into 2,400 chunks that share them. Fixed
 * names keep the frame's table of icons to their names (~30 KB) instead of one loader per icon
 * (~470 KB with Vite's preloading).
 */
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { Plugin } from "vite"

const MODULE = "virtual:lucide-icons"
const ICON = "\0lucide-icon:"

export function lucideIcons(): Plugin {
  const pkg = fileURLToPath(new URL("node_modules/lucide-react/", import.meta.url))
  const version = (JSON.parse(readFileSync(`${pkg}package.json`, "utf8")) as { version: string }).version
  const dir = `${pkg}dist/esm/icons/`
  const files = readdirSync(dir)
    .filter((file) => file.endsWith(".mjs") && file !== "index.mjs")
    .map((file) => file.slice(0, -".mjs".length))
    .sort()
  // An old name's file only re-exports the current one: the frame loads the current one at
  // once, not a file that then asks for another.
  const aliases: Record<string, string> = {}
  for (const file of files) {
    const target = /^export \{ default \} from '\.\/([\w-]+)\.mjs';$/m.exec(readFileSync(`${dir}${file}.mjs`, "utf8"))
    if (target) aliases[file] = target[1]
  }
  const current = (file: string): string => (aliases[file] ? current(aliases[file]) : file)
  let building = false
  return {
    name: "cowork-lucide-icons",
    configResolved(config) {
      building = config.command === "build"
    },
    buildStart() {
      if (!building) return
      for (const file of files.filter((file) => !aliases[file])) {
        this.emitFile({
          type: "chunk",
          id: `${ICON}${file}`,
          fileName: `assets/lucide-${version}/${file}.js`,
          // An app build drops entries' exports; these are loaded for theirs.
          preserveSignature: "strict",
        })
      }
    },
    resolveId(id) {
      if (id === MODULE) return `\0${MODULE}`
      if (id.startsWith(ICON)) return id
    },
    load(id) {
      if (id === `\0${MODULE}`) {
        // Built: the data files beside this chunk, made components here. Tests and dev: lucide's
        // own files. (Spelled so that Vite does not take them for `new URL(…, import.meta.url)`
        // assets or import globs.)
        const load = building
          ? `(file) => { const here = import.meta.url; return import(/* @vite-ignore */ new URL("./lucide-${version}/" + file + ".js", here).href).then((icon) => createLucideIcon(icon.default)) }`
          : `(file) => import(/* @vite-ignore */ "lucide-react/icons/" + file).then((icon) => icon.default)`
        return [
          `import createLucideIcon from ${JSON.stringify(`${pkg}dist/esm/createLucideIcon.mjs`)}`,
          `export const files = new Set(${JSON.stringify(files.join(" "))}.split(" "))`,
          `const aliases = ${JSON.stringify(Object.fromEntries(Object.keys(aliases).map((file) => [file, current(file)])))}`,
          `export const load = (file) => (${load})(Object.hasOwn(aliases, file) ? aliases[file] : file)`,
        ].join("\n")
      }
      if (!id.startsWith(ICON)) return
      const file = id.slice(ICON.length)
      // An icon makes its component with `../createLucideIcon.mjs`: here its default export is
      // the data instead.
      const icon = readFileSync(`${dir}${file}.mjs`, "utf8")
        .replace(/^\/\/# sourceMappingURL=.*$/m, "")
        .replace(/^import createLucideIcon from '\.\.\/createLucideIcon\.mjs';$/m, "const createLucideIcon = (data) => data;")
      if (/^import |from '\./m.test(icon)) {
        this.error(`lucide-react ${version}: icons/${file}.mjs has a shape ui/lucide-icons.ts does not know`)
      }
      return icon
    },
  }
}
