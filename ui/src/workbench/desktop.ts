/**
 * The desktop shell (Cowork Studio's Tauri window), when the workbench runs inside it: one typed
 * function per command the shell grants this page (`src-tauri/capabilities/main.json`). Tauri
 * injects `__TAURI_INTERNALS__` only into the main frame of the desktop window, so in a browser
 * tab (and in widget frames) there is no shell and every call answers `false`.
 */
import { CoworkError } from "@/frame/protocol"

interface TauriInternals {
  invoke(command: string, args?: Record<string, unknown>): Promise<unknown>
}

function shell(): TauriInternals | undefined {
  return "__TAURI_INTERNALS__" in window ? (window as unknown as { __TAURI_INTERNALS__: TauriInternals }).__TAURI_INTERNALS__ : undefined
}

/** The shell rejects with `{name, message}`; it becomes a named `CoworkError`. */
function named(error: unknown): CoworkError {
  if (error && typeof error === "object" && "name" in error && "message" in error) {
    return new CoworkError(String(error.name), String(error.message))
  }
  return new CoworkError("Error", String(error))
}

export const desktop = {
  /**
   * Opens `url` in the browser after the shell's native trust prompt: `true` once opened, `false`
   * outside the desktop app (the caller opens it itself). Rejects `Cancelled` when the person says
   * no, `BadRequest` for a link that is not http, https or mailto.
   */
  async openExternal(url: string): Promise<boolean> {
    const internals = shell()
    if (!internals) return false
    await internals.invoke("open_external", { url }).catch((error: unknown) => {
      throw named(error)
    })
    return true
  },

  /**
   * Opens (or brings up) the site app `app` in its own window of the desktop app: `true` once
   * shown, `false` outside the desktop app (the caller says a site is part of the desktop app).
   * Rejects `NotFound`, `BadRequest` (not a site app), `Failed` (the window did not open).
   */
  async openSiteApp(app: string): Promise<boolean> {
    const internals = shell()
    if (!internals) return false
    await internals.invoke("open_site_app", { app }).catch((error: unknown) => {
      throw named(error)
    })
    return true
  },
}
