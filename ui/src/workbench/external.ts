/**
 * What leaves the workbench for the web: a widget's links (`openExternal`, after the person
 * trusted the site), a sign-in's consent page (`credentials.connect`), and `cowork.browser.open`.
 * In the desktop app the shell does each (its native trust prompt, its browser window); in a
 * browser tab, a new tab does.
 */
import { CoworkError } from "@/frame/protocol"
import { desktop } from "./desktop"
import { ask } from "./dialogs"

/** Hosts the person trusted for this session (`openExternal`). */
const trustedHosts = new Set<string>()

/** A link leaving the workbench, after the person trusted its site (the desktop app asks natively). */
export async function openExternal(url: string) {
  if (await desktop.openExternal(url)) return
  let target: URL
  try {
    target = new URL(url)
  } catch {
    throw new CoworkError("BadRequest", `Not a link: ${url}`)
  }
  if (!["http:", "https:", "mailto:"].includes(target.protocol)) {
    throw new CoworkError(
      "BadRequest",
      `Cowork opens only http, https and mailto links, not ${target.protocol}`,
    )
  }
  if (!trustedHosts.has(target.host)) {
    const { label, values } = await ask({
      message: "Open an external website?",
      detail: target.href,
      type: "question",
      fields: [
        {
          id: "trust",
          type: "checkbox",
          label: `Trust ${target.host || target.protocol} for this session`,
        },
      ],
      buttons: [
        { label: "Cancel", role: "cancel" },
        { label: "Open", role: "submit", primary: true },
      ],
    })
    if (label !== "Open") throw new CoworkError("Cancelled", "The person did not open the link")
    if (values.trust === true) trustedHosts.add(target.host)
  }
  window.open(target.href, "_blank", "noopener,noreferrer")
}

/**
 * `cowork.browser.open`: the desktop app's browser window beside the workbench (`embedded`), else
 * `openExternal` — a browser tab has no browser of its own to show it in.
 */
export async function openInBrowser(url: string): Promise<{ embedded: boolean }> {
  if (await desktop.openBrowser(url)) return { embedded: true }
  await openExternal(url)
  return { embedded: false }
}

/**
 * A sign-in's consent page (`credentials.connect` answered an `authUrl`): the desktop app opens it
 * the way it opens every link; a browser tab opens a new tab at once — the widget's click still
 * counts as the person's gesture — and, when the browser blocked that, asks for one more click.
 */
export async function openSignIn(authUrl: string, service: string) {
  if (await desktop.openExternal(authUrl)) return
  if (openTab(authUrl)) return
  const { label } = await ask({
    message: `Sign in to ${service}`,
    detail: "The sign-in opens in a new browser tab; come back here when it says you are done.",
    type: "info",
    buttons: [
      { label: "Cancel", role: "cancel" },
      { label: "Open Sign-in Page", role: "submit", primary: true },
    ],
  })
  if (label === null || !openTab(authUrl))
    throw new CoworkError("Cancelled", `The sign-in to ${service} was not opened`)
}

/** A new browser tab that cannot reach back into the workbench; false when the browser blocked it. */
function openTab(url: string) {
  // Not "noopener" in the features: with it, window.open always returns null, and a blocked tab
  // could not be told from an opened one.
  const opened = window.open(url, "_blank")
  if (!opened) return false
  opened.opener = null
  return true
}
