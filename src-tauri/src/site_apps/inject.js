// Injected by Cowork Studio into every frame of a site app's window (src-tauri/src/site_apps.rs).
// On a page inside the app's scope, and nowhere else, it makes the page's notifications and
// unread count the app's: `Notification` (permission "granted"), a service worker registration's
// `showNotification` (the engine shows it when the shell says so), and `navigator.setAppBadge` /
// `clearAppBadge` report to the shell over its one command, `site_report`, which checks again in
// Rust that the calling window is this site app's and its page is in scope; a click on a link
// outside the scope is cancelled and reported (the shell asks about the browser). Nothing else is
// added: no other command, no shell object.
;(() => {
  "use strict"
  const SITE = __COWORK_SITE__
  const inScope = (href) => {
    try {
      const url = new URL(href)
      return url.origin === SITE.origin && url.pathname.startsWith(SITE.path) && !url.username && !url.password
    } catch {
      return false
    }
  }
  if (!inScope(location.href)) return

  // Tauri's IPC is in the top frame only; a frame in scope shares the top's origin and uses it.
  const internals = () => {
    try {
      return window.__TAURI_INTERNALS__ ?? window.top.__TAURI_INTERNALS__
    } catch {
      return undefined
    }
  }
  const report = (message) => {
    const tauri = internals()
    if (!tauri) return Promise.resolve(null)
    return tauri.invoke("site_report", { report: message }).catch(() => null)
  }
  const text = (value) => (value === undefined || value === null ? "" : String(value))

  // The page's notifications, by id, until a banner click needs one (the latest 50). Frames in
  // scope share the top frame's list, so a click reaches a notification a frame raised.
  const shared = (() => {
    try {
      if (window.top !== window && window.top.__coworkSiteNotifications) return window.top.__coworkSiteNotifications
    } catch {}
    const own = { next: 1, live: new Map(), workers: new Map() }
    Object.defineProperty(window, "__coworkSiteNotifications", { value: own })
    // The shell's answer to a registration's notification it gave a banner: the engine shows it
    // (the shell makes that banner the app's), so that a click on it is the worker's
    // `notificationclick`.
    Object.defineProperty(window, "__coworkSiteShow", {
      value: (id) => {
        const pending = own.workers.get(id)
        if (!pending) return false
        own.workers.delete(id)
        pending.show().catch(() => {})
        return true
      },
    })
    // The shell's banner click: the page's own `click` listeners and `onclick`, as a browser does.
    Object.defineProperty(window, "__coworkSiteClick", {
      value: (id) => {
        const notification = own.live.get(id)
        if (!notification) return false
        const event = new Event("click", { cancelable: true })
        notification.dispatchEvent(event)
        return true
      },
    })
    return own
  })()
  const keep = (notification) => {
    const id = shared.next++
    shared.live.set(id, notification)
    if (shared.live.size > 50) shared.live.delete(shared.live.keys().next().value)
    return id
  }

  const handlers = new WeakMap()
  class Notification extends EventTarget {
    static get permission() {
      return "granted"
    }
    static requestPermission(callback) {
      if (typeof callback === "function") setTimeout(() => callback("granted"))
      return Promise.resolve("granted")
    }
    static get maxActions() {
      return 0
    }
    constructor(title, options = {}) {
      super()
      if (arguments.length === 0) throw new TypeError("Notification: a title is required")
      const opts = options ?? {}
      Object.defineProperties(this, {
        title: { value: text(title), enumerable: true },
        body: { value: text(opts.body), enumerable: true },
        tag: { value: text(opts.tag), enumerable: true },
        icon: { value: text(opts.icon), enumerable: true },
        data: { value: opts.data ?? null, enumerable: true },
        silent: { value: opts.silent ?? null, enumerable: true },
        requireInteraction: { value: Boolean(opts.requireInteraction), enumerable: true },
      })
      const id = keep(this)
      report({ kind: "notify", id, title: this.title, body: this.body, tag: this.tag, urgent: this.requireInteraction }).then(
        () => this.dispatchEvent(new Event("show")),
      )
    }
    close() {
      this.dispatchEvent(new Event("close"))
    }
  }
  // `onclick`, `onshow`, `onclose`, `onerror` as event handler attributes: one listener each.
  for (const type of ["click", "show", "close", "error"]) {
    Object.defineProperty(Notification.prototype, `on${type}`, {
      get() {
        return handlers.get(this)?.[type] ?? null
      },
      set(handler) {
        let own = handlers.get(this)
        if (!own) handlers.set(this, (own = {}))
        if (!own.listening?.[type]) {
          own.listening = { ...own.listening, [type]: true }
          this.addEventListener(type, (event) => {
            const current = handlers.get(this)?.[type]
            if (typeof current === "function") current.call(this, event)
          })
        }
        own[type] = typeof handler === "function" ? handler : null
      },
      configurable: true,
    })
  }
  Object.defineProperty(window, "Notification", { value: Notification, writable: true, configurable: true })

  // A registration's notifications (what a page shows through its service worker): reported as
  // the app's, and kept until the shell says whether the banner is the engine's (above). What the
  // engine shows, `getNotifications` and the worker's `notificationclick` and `notificationclose`
  // are the engine's own.
  if (window.ServiceWorkerRegistration) {
    const engineShow = ServiceWorkerRegistration.prototype.showNotification
    Object.defineProperty(ServiceWorkerRegistration.prototype, "showNotification", {
      value: function showNotification(title, options = {}) {
        const opts = options ?? {}
        const id = shared.next++
        shared.workers.set(id, { show: () => engineShow.call(this, title, options) })
        if (shared.workers.size > 50) shared.workers.delete(shared.workers.keys().next().value)
        return report({ kind: "notify", id, worker: true, title: text(title), body: text(opts.body), tag: text(opts.tag), urgent: Boolean(opts.requireInteraction) }).then(() => undefined)
      },
      writable: true,
      configurable: true,
    })
  }

  // A click on a link to a page outside the app (in this window, not a new one): not followed,
  // the shell asks whether to open it in the browser. Checked after the page's own handlers (a
  // listener on window, added before any of the page's), so a link the page handles itself is
  // left to it.
  if (window === window.top) {
    window.addEventListener("click", (event) => {
      if (!event.isTrusted || event.defaultPrevented || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return
      const link = event.target instanceof Element ? event.target.closest("a[href], area[href]") : null
      if (!link || link.hasAttribute("download")) return
      const target = (link.getAttribute("target") || "").toLowerCase()
      if (target && target !== "_self" && target !== "_top" && target !== "_parent") return
      const url = link.href
      if (inScope(url) || !/^(https?|mailto):/i.test(url)) return
      event.preventDefault()
      report({ kind: "outside", url })
    })
  }

  // The Badging API.
  const badge = (count) => report({ kind: "badge", count }).then(() => undefined)
  Object.defineProperty(Navigator.prototype, "setAppBadge", {
    value: function setAppBadge(contents) {
      if (contents === undefined) return badge(null)
      const count = Number(contents)
      if (!Number.isFinite(count) || count < 0) return Promise.reject(new TypeError("setAppBadge: not a count"))
      return badge(Math.min(Math.floor(count), Number.MAX_SAFE_INTEGER))
    },
    writable: true,
    configurable: true,
  })
  Object.defineProperty(Navigator.prototype, "clearAppBadge", {
    value: function clearAppBadge() {
      return badge(0)
    },
    writable: true,
    configurable: true,
  })
})()
