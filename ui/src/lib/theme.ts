import { useSyncExternalStore } from "react"

/**
 * The workbench theme as the frame shows it: `.dark` on <html>, which the frame runtime sets from
 * the workbench (never from the operating system). Components that hand a theme to a library
 * (sonner's toasts) read it here and follow it live.
 */
export function useWorkbenchTheme(): "light" | "dark" {
  return useSyncExternalStore(subscribe, current, () => "light")
}

function current() {
  return document.documentElement.classList.contains("dark") ? "dark" : "light"
}

function subscribe(onChange: () => void) {
  const observer = new MutationObserver(onChange)
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ["class"] })
  return () => observer.disconnect()
}
