/**
 * The workbench's light or dark theme: `.dark` on this page's <html> (the shadcn tokens follow),
 * remembered in localStorage, and sent to every pane, whose `dark:` variants follow it.
 */
import type { Theme } from "@/frame/protocol"
import { desktop } from "./desktop"
import { broadcast } from "./live-panes"
import { update } from "./store"

const THEME_KEY = "cowork.theme"

/** The theme last chosen here, else the operating system's (index.html applies the same rule to the shell). */
export function initialTheme(): Theme {
  const saved = localStorage.getItem(THEME_KEY)
  if (saved === "light" || saved === "dark") return saved
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"
}

export function setTheme(theme: Theme) {
  try {
    localStorage.setItem(THEME_KEY, theme)
  } catch {
    // Storage full or refused: not remembered, the next start follows the system's.
  }
  document.documentElement.classList.toggle("dark", theme === "dark")
  update({ theme })
  broadcast({ event: "theme", theme })
  tellShell(theme)
}

/** The desktop shell's menus, dialogs and window colour follow the workbench's theme. */
export function tellShell(theme: Theme) {
  desktop
    .setTheme(theme)
    .catch((error: unknown) => console.warn("the desktop app did not take the theme:", error))
}
