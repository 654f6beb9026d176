// Test sites for the site-app tests: small pages served on 127.0.0.1 and [::1] (node:http; plain http is
// allowed on loopback for site apps), one folder each, and the cowork.json manifests that install
// them in a fixture workspace. The server is the test's eyes inside the site windows: the pages
// report what they saw and did (`/<site>/log?…`), since the site windows have web contexts of their
// own and WebKitWebDriver automates only the first one (the workbench's).
//
// Sites:
// - notify: raises `new Notification("Ana", {body: "Lunch?"})` when the test says so (the page
//   polls `/notify/command`); its `onclick` and a `click` listener report back. Its Sign in button
//   opens the cookie page in a popup; its link below goes to the title site, outside its scope. On other commands
//   it tries the shell's other commands (`probe`), leaves its scope (`navigate`), embeds a frame
//   (`frame`), or reports the cookies it sends (`whoami`).
// - worker: registers a service worker, then raises through `registration.showNotification`
//   (command "notify"), or has the worker raise one on its own (command "notify-in-worker"); the
//   worker reports its `notificationclick` and what its own `showNotification` did.
// - badge: `navigator.setAppBadge(4)` on load.
// - title: `(3) Inbox`, blinking with `New message!`; `"display": "right"`.
// - cookie: the server sets a persistent cookie on the first visit; the page reports the cookie
//   it was sent on each visit.
import { createServer } from "node:http"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const PAGES = {
  notify: `<!doctype html><title>Notify</title>
<button id="signin" style="position: fixed; left: 0; top: 0; width: 320px; height: 160px">Sign in</button>
<a id="outside" href="/title/" style="position: fixed; left: 0; top: 200px; width: 320px; height: 100px; display: block; background: #eef">A link outside the app</a>
<script>
  // A sign-in popup opens on a click, as sites do (a popup without one is blocked).
  document.getElementById("signin").onclick = () => window.open("/cookie/", "signin", "width=480,height=600")
  const log = (what) => fetch("/notify/log?" + new URLSearchParams(what))
  log({ loaded: Notification.permission })
  async function poll() {
    for (;;) {
      const answer = await fetch("/notify/command").then((r) => r.json()).catch(() => ({}))
      if (answer.command === "notify") {
        const n = new Notification(answer.title, { body: answer.body })
        n.onclick = () => log({ onclick: answer.title })
        n.addEventListener("click", () => log({ listener: answer.title }))
        log({ raised: answer.title })
      } else if (answer.command === "probe") {
        // What else the page could ask the shell for: each must be refused.
        for (const [command, args] of answer.calls) {
          const outcome = await window.__TAURI_INTERNALS__.invoke(command, args).then(() => "allowed", (error) => "refused: " + (error?.message ?? error))
          log({ probe: command, outcome })
        }
      } else if (answer.command === "navigate") {
        location.href = answer.to
      } else if (answer.command === "frame") {
        const frame = document.createElement("iframe")
        frame.src = answer.src
        document.body.append(frame)
      } else if (answer.command === "whoami") {
        log({ whoami: "yes" })
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  poll()
</script>`,
  worker: `<!doctype html><title>Worker</title><h1>Worker</h1>
<script>
  const log = (what) => fetch("/worker/log?" + new URLSearchParams(what))
  async function start() {
    if (!("serviceWorker" in navigator)) return log({ error: "no navigator.serviceWorker (isSecureContext: " + isSecureContext + ")" })
    try {
      await navigator.serviceWorker.register("/worker/sw.js")
    } catch (error) {
      return log({ error: String(error) })
    }
    const registration = await navigator.serviceWorker.ready
    log({ registered: registration.active ? "active" : "not active" })
    for (;;) {
      const answer = await fetch("/worker/command").then((r) => r.json()).catch(() => ({}))
      if (answer.command === "notify") {
        await registration.showNotification(answer.title, { body: answer.body, data: { conversation: answer.title } })
        log({ shown: answer.title })
      } else if (answer.command === "notify-in-worker") {
        registration.active.postMessage({ title: answer.title, body: answer.body })
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  start()
</script>`,
  "worker/sw.js": `self.addEventListener("install", () => self.skipWaiting())
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()))
const log = (what) => fetch("/worker/log?" + new URLSearchParams(what))
self.addEventListener("notificationclick", (event) => {
  event.notification.close()
  event.waitUntil(log({ clicked: event.notification.title, conversation: event.notification.data?.conversation }))
})
self.addEventListener("message", (event) => {
  event.waitUntil(self.registration.showNotification(event.data.title, { body: event.data.body }).then(
    () => log({ workerShown: event.data.title }),
    (error) => log({ workerFailed: String(error) }),
  ))
})`,
  badge: `<!doctype html><title>Badge</title><h1>Badge</h1>
<script>
  fetch("/badge/log?" + new URLSearchParams({ cookie: document.cookie || "(none)" }))
  navigator.setAppBadge(4).then(() => fetch("/badge/log?set=4"))
</script>`,
  title: `<!doctype html><title>(3) Inbox</title><h1>Inbox</h1>
<script>
  // A blinking title, as chat sites do: the count must survive the other half.
  let on = true
  setInterval(() => { on = !on; document.title = on ? "(3) Inbox" : "New message!" }, 700)
</script>`,
  cookie: `<!doctype html><title>Cookie</title><h1 id="seen"></h1>
<script>
  document.getElementById("seen").textContent = document.cookie || "(no cookie)"
  fetch("/cookie/log?" + new URLSearchParams({ cookie: document.cookie || "(none)" }))
</script>`,
}

export const SITES = ["notify", "worker", "badge", "title", "cookie"]

/** The server: `url`, `log` (what each site reported, in order), `command(site, value)`, `close()`. */
export async function serveSites() {
  const log = []
  const commands = new Map()
  let visitor = 0
  const serve = (request, response) => {
    const url = new URL(request.url, "http://127.0.0.1")
    const [, site, rest = ""] = /^\/([^/]+)\/?(.*)$/.exec(url.pathname) ?? []
    const cookie = request.headers.cookie ?? ""
    if (rest === "log") {
      log.push({ site, ...Object.fromEntries(url.searchParams), requestCookie: cookie, at: Date.now() })
      response.writeHead(204).end()
    } else if (rest === "command") {
      const command = commands.get(site)
      commands.delete(site)
      response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(command ?? {}))
    } else if (rest === "sw.js" && site === "worker") {
      response.writeHead(200, { "content-type": "text/javascript", "cache-control": "no-store" }).end(PAGES["worker/sw.js"])
    } else if (PAGES[site] && (rest === "" || rest === "index.html")) {
      log.push({ site, page: url.pathname, requestCookie: cookie, at: Date.now() })
      const headers = { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }
      // The cookie site signs its first visitor in for a day (a persistent cookie: a session
      // cookie would end with the window, a login does not).
      if (site === "cookie" && !cookie.includes("visitor=")) headers["set-cookie"] = `visitor=v${++visitor}-${Date.now()}; Max-Age=86400; Path=/; SameSite=Lax`
      response.writeHead(200, headers).end(PAGES[site])
    } else {
      response.writeHead(404).end("not found")
    }
  }
  // The same sites on the IPv6 loopback too, where there is one: `localhost` and `[::1]` are sites
  // of their own for the browser's cookies, as 127.0.0.1 is.
  const server = createServer(serve)
  const server6 = createServer(serve)
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = server.address().port
  const ipv6 = await new Promise((resolve) => server6.once("error", () => resolve(false)).listen(port, "::1", () => resolve(true)))
  const url = `http://127.0.0.1:${port}`
  return {
    url,
    /** The server's port, for the same pages on `localhost` and (when `ipv6`) `[::1]`. */
    port,
    ipv6,
    log,
    /** The reports of `site` that have `key`. */
    reports: (site, key) => log.filter((entry) => entry.site === site && (key === undefined || key in entry)),
    command: (site, value) => commands.set(site, value),
    close: () => Promise.all([server, ...(ipv6 ? [server6] : [])].map((each) => new Promise((resolve) => each.close(resolve)))),
  }
}

/** A 2×2 opaque red PNG. */
const ICON_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg=="

const TITLES = { notify: "Notify Site", worker: "Worker Site", badge: "Badge Site", title: "Title Site", cookie: "Cookie Site" }

/** The window title of each site app. */
export const siteTitle = (site) => TITLES[site]

/** Installs each site as a site app of `workspace`, as `cowork app install` would write it. */
export function installSites(workspace, url) {
  for (const site of SITES) {
    const manifest = { title: TITLES[site], web: { url: `${url}/${site}/`, scope: `${url}/${site}/` } }
    // One with an icon, as an install writes it (a 2×2 PNG).
    if (site === "notify") manifest.icon = "icon.png"
    // One in the right side bar: a window docked to the right of the main one.
    if (site === "title") manifest.display = "right"
    installSite(workspace, site, manifest)
  }
}

/** Writes the site app `<site>-site` of `workspace`: its cowork.json has `fields` (and an icon file if it names one). */
export function installSite(workspace, site, fields) {
  const dir = join(workspace, ".cowork/apps", `${site}-site`)
  mkdirSync(dir, { recursive: true })
  if (fields.icon) writeFileSync(join(dir, fields.icon), Buffer.from(ICON_PNG, "base64"))
  writeFileSync(join(dir, "cowork.json"), JSON.stringify({ name: `${site}-site`, version: "1.0.0", ...fields }, null, 2))
}
