/**
 * What leaves the workbench for the web, in and out of the desktop app: `cowork.browser.open`
 * shows the page in the desktop app's browser window there (`embedded: true`) and falls back to
 * `openExternal` in a browser tab; a sign-in's consent page opens the same way.
 */
import { afterEach, describe, expect, it, vi } from "vitest"

import { answer } from "@/workbench/dialogs"
import { openInBrowser, openSignIn } from "@/workbench/external"
import { getState } from "@/workbench/store"

/** The desktop shell's window: Tauri's IPC, answering each command with `reply`. */
function inDesktopApp(reply: (command: string) => Promise<unknown> = async () => null) {
  const invoke = vi.fn((command: string, _args?: Record<string, unknown>) => reply(command))
  vi.stubGlobal("window", { __TAURI_INTERNALS__: { invoke }, open: vi.fn() })
  return invoke
}

/** A browser tab: no IPC; `window.open` answers a tab (or null: the browser blocked it). */
function inBrowserTab(opened: object | null = {}) {
  const open = vi.fn((_url: string, _target?: string, _features?: string) => opened)
  vi.stubGlobal("window", { open })
  return open
}

/** Presses `label` in the dialog the workbench is showing. */
async function press(label: string | null) {
  await vi.waitFor(() => expect(getState().dialogs).toHaveLength(1))
  const dialog = getState().dialogs[0]!
  answer(dialog.id, { label, values: {} })
  return dialog.options
}

afterEach(() => vi.unstubAllGlobals())

describe("browser.open", () => {
  it("shows the page in the desktop app's browser window", async () => {
    const invoke = inDesktopApp()
    await expect(openInBrowser("https://example.com/guide")).resolves.toEqual({ embedded: true })
    expect(invoke.mock.calls).toEqual([["open_browser", { url: "https://example.com/guide" }]])
  })

  it("rejects with the shell's own error name", async () => {
    inDesktopApp(() =>
      Promise.reject({ name: "BadRequest", message: "only http(s) pages open in the browser" }),
    )
    await expect(openInBrowser("ftp://example.com/")).rejects.toMatchObject({ name: "BadRequest" })
  })

  it("falls back to openExternal in a browser tab, after the trust prompt", async () => {
    const open = inBrowserTab()
    const opening = openInBrowser("https://example.com/guide")
    expect((await press("Open")).message).toBe("Open an external website?")
    await expect(opening).resolves.toEqual({ embedded: false })
    expect(open).toHaveBeenCalledWith("https://example.com/guide", "_blank", "noopener,noreferrer")
  })
})

describe("a sign-in's consent page", () => {
  it("goes through the shell's open path in the desktop app", async () => {
    const invoke = inDesktopApp()
    await openSignIn("https://accounts.example.com/auth?state=1", "google")
    expect(invoke.mock.calls).toEqual([
      ["open_external", { url: "https://accounts.example.com/auth?state=1" }],
    ])
  })

  it("opens a new tab at once in a browser tab, cut off from the workbench", async () => {
    const tab = { opener: "the workbench" as unknown }
    const open = inBrowserTab(tab)
    await openSignIn("https://accounts.example.com/auth?state=1", "google")
    expect(open).toHaveBeenCalledWith("https://accounts.example.com/auth?state=1", "_blank")
    expect(tab.opener).toBeNull()
    expect(getState().dialogs).toHaveLength(0)
  })

  it("asks for a click when the browser blocked the tab", async () => {
    const open = inBrowserTab(null)
    const signingIn = openSignIn("https://accounts.example.com/auth", "google")
    expect((await press(null)).message).toBe("Sign in to google")
    await expect(signingIn).rejects.toMatchObject({ name: "Cancelled" })
    expect(open).toHaveBeenCalledTimes(1)
  })
})
