/**
 * The desktop shell (Cowork Studio's Tauri window), when the workbench runs inside it: one typed
 * function per command the shell grants this page (`src-tauri/capabilities/main.json`). Tauri
 * injects `__TAURI_INTERNALS__` only into the main frame of the desktop window, so in a browser
 * tab (and in widget frames) there is no shell and every call answers `false`.
 */
import { CoworkError, type Result, type Theme } from "@/frame/protocol"

interface TauriInternals {
  invoke(command: string, args?: Record<string, unknown>): Promise<unknown>
}

function shell(): TauriInternals | undefined {
  return "__TAURI_INTERNALS__" in window
    ? (window as unknown as { __TAURI_INTERNALS__: TauriInternals }).__TAURI_INTERNALS__
    : undefined
}

/** The shell rejects with `{name, message}`; it becomes a named `CoworkError`. */
function named(error: unknown): CoworkError {
  if (error && typeof error === "object" && "name" in error && "message" in error) {
    return new CoworkError(String(error.name), String(error.message))
  }
  return new CoworkError("Error", String(error))
}

/** Whether the workbench runs in the desktop app's window (not a browser tab). */
export const inShell = () => shell() !== undefined

/** Runs a shell command: `true` once done, `false` outside the desktop app; a refusal is a named error. */
async function run(command: string, args: Record<string, unknown>): Promise<boolean> {
  const internals = shell()
  if (!internals) return false
  await internals.invoke(command, args).catch((error: unknown) => {
    throw named(error)
  })
  return true
}

/** A site app's hibernation (`site_apps/hibernate.rs`): seconds out of sight before it sleeps (`null`: never), and whether it sleeps now. */
export interface SiteHibernation {
  hibernateAfter: number | null
  asleep: boolean
}

export const desktop = {
  /**
   * Opens `url` in the browser after the shell's native trust prompt: `true` once opened, `false`
   * outside the desktop app (the caller opens it itself). Rejects `Cancelled` when the person says
   * no, `BadRequest` for a link that is not http, https or mailto.
   */
  openExternal: (url: string) => run("open_external", { url }),

  /**
   * Signs in to the Cowork hub (`hub`: default, the one this machine remembers): the daemon starts
   * a browser sign-in and the shell opens the hub's page in the browser. `true` once opened,
   * `false` outside the desktop app (the caller opens the address itself); the `account` event
   * follows when the browser comes back. Rejects `Failed` with the daemon's reason.
   */
  signIn: (hub?: string) => run("sign_in", { hub: hub ?? null }),

  /**
   * Opens (or brings up) the site app `app` in its own window of the desktop app: `true` once
   * shown, `false` outside the desktop app (the caller says a site is part of the desktop app).
   * Rejects `NotFound`, `BadRequest` (not a site app), `Failed` (the window did not open).
   */
  openSiteApp: (app: string) => run("open_site_app", { app }),

  /**
   * The active workspace's site apps that hibernate or sleep now, by app name (an app not listed
   * does neither); `null` outside the desktop app, where site apps do not run.
   */
  siteHibernation: async () => {
    const internals = shell()
    if (!internals) return null
    return (await internals.invoke("site_hibernation").catch((error: unknown) => {
      throw named(error)
    })) as Record<string, SiteHibernation>
  },

  /**
   * Lets the site app `app` hibernate after `after` seconds out of sight, or never (`null`):
   * `true` once saved, `false` outside the desktop app. Rejects `NotFound`, `BadRequest` (not a
   * site app, or an idle time of 0 or over a day), `Failed` (the setting was not saved).
   */
  setSiteHibernation: (app: string, after: number | null) =>
    run("set_site_hibernation", { name: app, after }),

  /**
   * Shows `url` in the desktop app's browser window, beside the workbench: `true` once shown,
   * `false` outside the desktop app (the caller opens the system browser). Rejects `BadRequest`
   * for an address that is not http(s), `Failed` when the window does not open.
   */
  openBrowser: (url: string) => run("open_browser", { url }),

  /**
   * Tells the shell the workbench's theme: its menu bar and native dialogs follow it, and its next
   * start paints the window in the theme's colour before the page does. `false` outside the
   * desktop app.
   */
  setTheme: (theme: Theme) => run("set_theme", { theme }),

  /**
   * "Cowork: Switch Workspace…": the shell asks for a folder and moves the window to it: `true`
   * once asked (a cancelled pick included), `false` outside the desktop app.
   */
  switchWorkspace: () => run("open_folder", {}),

  /**
   * What a widget's `browser.status()` answers: the desktop app's browser window, its one page as
   * its one tab (`{ open: false, tabs: [] }` when it is closed); `null` outside the desktop app.
   */
  browserStatus: async () => {
    const internals = shell()
    if (!internals) return null
    return (await internals.invoke("browser_status").catch((error: unknown) => {
      throw named(error)
    })) as Result<"browser.status">
  },
}
