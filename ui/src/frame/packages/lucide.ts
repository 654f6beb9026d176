/**
 * lucide-react, only the icons a widget names. The whole set is 858 KB of code, parsed in every
 * pane whose widget imports it (each app's frame is its own origin, so nothing is shared), for the
 * handful of icons a widget uses. When the daemon says which names a widget takes
 * (`WidgetImport.names`), only their data loads, in one request (ui/lucide-icons.ts).
 */
import type { ComponentType } from "react"
import { files, load } from "virtual:lucide-icons"

/**
 * The file lucide keeps an export in, as lucide names them: `Trash2`, `Trash2Icon` and
 * `LucideTrash2` are all `trash-2` (old names have files of their own that re-export the new one).
 * Undefined for the few exports that are not an icon or whose name does not spell their file.
 */
export function iconFile(name: string): string | undefined {
  const file = name
    .replace(/^Lucide(?=[A-Z0-9])/, "")
    .replace(/Icon$/, "")
    .replace(/([a-zA-Z])([0-9])/g, "$1-$2")
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .toLowerCase()
  return files.has(file) ? file : undefined
}

/** The named icons, or null when a name is not one this can place alone (load the whole set). */
export async function icons(names: string[]): Promise<Record<string, ComponentType> | null> {
  const found = names.map(iconFile)
  if (found.some((file) => file === undefined)) return null
  const components = (await load(found as string[])) as ComponentType[]
  return Object.fromEntries(names.map((name, i) => [name, components[i]]))
}
