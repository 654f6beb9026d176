/**
 * Banners from a browser tab: page 04's "a banner … from a browser tab on this workspace (best
 * effort)", shown only while the window is not focused (the bell has them all). The desktop app
 * shows OS banners of its own, so inside it this shows none. The browser asks the person once,
 * when they choose to turn banners on in the bell — never at load.
 */
import type { NotificationEvent } from "@/frame/protocol"
import { inShell } from "./desktop"

const supported = () => !inShell() && "Notification" in window

/** Whether the bell should offer to turn banners on: the browser has not been asked yet. */
export const bannersUndecided = () => supported() && Notification.permission === "default"

/** Asks the browser for banners (call it from the person's click); true when allowed. */
export async function allowBanners() {
  return supported() && (await Notification.requestPermission()) === "granted"
}

/**
 * A banner for `notification` when banners are allowed and the window is not focused; a click runs
 * `open`. Its heading is the app that sent it (as the rail names it), the app's own free-text title
 * only the first line under it: one app cannot pass as another.
 */
export function showBanner(notification: NotificationEvent, open: () => void) {
  if (!supported() || Notification.permission !== "granted" || document.hasFocus()) return
  const banner = new Notification(notification.appTitle || notification.app, {
    body: notification.body ? `${notification.title}\n${notification.body}` : notification.title,
    // The daemon already replaced a not-yet-shown one with the same tag; the browser does the same.
    tag: notification.tag ? `${notification.app}:${notification.tag}` : undefined,
    requireInteraction: notification.urgent === true,
  })
  banner.onclick = () => {
    window.focus()
    banner.close()
    open()
  }
}
