/** The table of lucide's icon files that ui/lucide-icons.ts builds. */
declare module "virtual:lucide-icons" {
  /** Every icon file's name (`trash-2`, and old names such as `alarm-check`). */
  export const files: Set<string>
  /** Loads icon files, all at once: their components, in the same order. */
  export function load(files: string[]): Promise<unknown[]>
}
