/**
 * The signed-in Cowork account, as the title bar and Manage Workspace show it: read when the
 * workbench starts and again on every `account` event (a sign-in or sign-out anywhere — this
 * window, another, `cowork login|logout` — and the hub's updates). Signing in is the daemon's
 * browser sign-in (PKCE back to its loopback port): in the desktop app the shell opens the hub's
 * page in the browser; in a browser tab the page opens it in a new tab itself.
 */
import * as api from "./api"
import { desktop, inShell } from "./desktop"
import { report } from "./report"
import { update } from "./store"

/** Reads the account again. */
export async function loadAccount() {
  try {
    update({ account: await api.account() })
  } catch (error) {
    report("Cowork could not read the signed-in account", error)
  }
}

/** Starts a sign-in on `hub` (default: the one this machine remembers). */
export async function signIn(hub?: string) {
  // Opened now, in the click, where a browser still allows it; it goes to the hub once the
  // daemon answers the address.
  const tab = inShell() ? null : window.open("about:blank", "_blank")
  try {
    if (!(await desktop.signIn(hub))) {
      const { url } = await api.signIn(hub)
      if (tab) {
        tab.opener = null
        tab.location.href = url
      } else {
        window.open(url, "_blank", "noopener")
      }
    }
  } catch (error) {
    tab?.close()
    report("Cowork could not start the sign-in", error)
  }
  await loadAccount()
}

/** Signs this machine out (the session revoked on the hub). */
export async function signOut() {
  try {
    update({ account: await api.signOut() })
  } catch (error) {
    report("Cowork could not sign out", error)
  }
}
