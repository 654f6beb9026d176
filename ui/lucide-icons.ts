/**
 * lucide-react's icons as data, one small JSON file each at a fixed address
 * (`assets/lucide-<version>/<file>.json`), for the widget frame to load only the icons a widget
 * names (src/frame/packages/lucide.ts), all in one request: the daemon joins the files a query
 * names into one module (`assets/lucide-<version>/icons.js?plus,trash-2`, crates/cowork-daemon/src/assets.rs).
 * A frame's origin is opaque, so nothing it loads is cached and it fetches six files at a time;
 * one request for nine icons instead of nine.
 *
 * Each file holds only its icon's data (what lucide's own `icons/<file>.mjs` hands
 * `createLucideIcon`), so its content changes only with lucide's version: the daemon's year-long
 * caching of assets holds for it although its name carries no hash. Fixed names keep the frame's
 * table of icons to their names (~30 KB) instead of one loader per icon (~470 KB with Vite's
 * preloading). An old name's file only re-exports the current one: the table says which, and the
 * frame asks for the current one.
 */
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { Plugin } from "vite"

const MODULE = "virtual:lucide-icons"

export function lucideIcons(): Plugin {
  const pkg = fileURLToPath(new URL("node_modules/lucide-react/", import.meta.url))
  const version = (JSON.parse(readFileSync(`${pkg}package.json`, "utf8")) as { version: string })
    .version
  const dir = `${pkg}dist/esm/icons/`
  const files = readdirSync(dir)
    .filter((file) => file.endsWith(".mjs") && file !== "index.mjs")
    .map((file) => file.slice(0, -".mjs".length))
    .sort()
  const aliases: Record<string, string> = {}
  for (const file of files) {
    const target = /^export \{ default \} from '\.\/([\w-]+)\.mjs';$/m.exec(
      readFileSync(`${dir}${file}.mjs`, "utf8"),
    )
    if (target) aliases[file] = target[1]
  }
  const current = (file: string): string => (aliases[file] ? current(aliases[file]) : file)
  let building = false
  return {
    name: "cowork-lucide-icons",
    configResolved(config) {
      building = config.command === "build"
    },
    async buildStart() {
      if (!building) return
      for (const file of files.filter((file) => !aliases[file])) {
        this.emitFile({
          type: "asset",
          fileName: `assets/lucide-${version}/${file}.json`,
          source: JSON.stringify(await iconData(file)),
        })
      }
    },
    resolveId(id) {
      if (id === MODULE) return `\0${MODULE}`
    },
    load(id) {
      if (id !== `\0${MODULE}`) return
      // Built: the daemon's module of the named icons' data, made components here. Tests and dev:
      // lucide's own files. (Spelled so that Vite does not take them for `new URL(…, import.meta.url)`
      // assets or import globs.)
      const load = building
        ? `(files) => { const here = import.meta.url; return import(/* @vite-ignore */ new URL("./lucide-${version}/icons.js?" + files.join(","), here).href).then((icons) => files.map((file) => createLucideIcon(icons.default[file]))) }`
        : `(files) => Promise.all(files.map((file) => import(/* @vite-ignore */ "lucide-react/icons/" + file).then((icon) => icon.default)))`
      return [
        `import createLucideIcon from ${JSON.stringify(`${pkg}dist/esm/createLucideIcon.mjs`)}`,
        `export const files = new Set(${JSON.stringify(files.join(" "))}.split(" "))`,
        `const aliases = ${JSON.stringify(Object.fromEntries(Object.keys(aliases).map((file) => [file, current(file)])))}`,
        `export const load = (files) => (${load})(files.map((file) => (Object.hasOwn(aliases, file) ? aliases[file] : file)))`,
      ].join("\n")
    },
  }

  /** An icon's data: its module, run with `createLucideIcon` handing back what it is given. */
  async function iconData(file: string): Promise<unknown> {
    const icon = readFileSync(`${dir}${file}.mjs`, "utf8")
      .replace(/^\/\/# sourceMappingURL=.*$/m, "")
      .replace(
        /^import createLucideIcon from '\.\.\/createLucideIcon\.mjs';$/m,
        "const createLucideIcon = (data) => data;",
      )
    if (/^import |from '\./m.test(icon)) {
      throw new Error(
        `lucide-react ${version}: icons/${file}.mjs has a shape ui/lucide-icons.ts does not know`,
      )
    }
    const module = (await import(
      `data:text/javascript;base64,${Buffer.from(icon).toString("base64")}`
    )) as { default: unknown }
    return module.default
  }
}
