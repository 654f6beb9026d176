// The script the desktop app injects into site apps' pages (src-tauri/src/site_apps/inject.js),
// run in a bare V8 context with a stand-in for Tauri's IPC: what it reports, what it leaves alone
// outside the app's scope, and how a banner click reaches the page's notification. No display
// needed; the end-to-end behaviour in WebKitGTK is site-apps.test.mjs.
import assert from "node:assert/strict"
import { readFileSync } from "node:fs"
import { describe, test } from "node:test"
import vm from "node:vm"

const TEMPLATE = readFileSync(new URL("../../src-tauri/src/site_apps/inject.js", import.meta.url), "utf8")

/** Runs the script for scope `origin` + `path` on a page at `href`; returns the page and the calls it made. */
function load(href, { origin = "https://chat.example", path = "/app/", tauri = true } = {}) {
  const calls = []
  const listeners = []
  class Element {
    constructor(attributes = {}, href = "") {
      this.attributes = attributes
      this.href = href
    }
    closest() {
      return this
    }
    hasAttribute(name) {
      return name in this.attributes
    }
    getAttribute(name) {
      return this.attributes[name] ?? null
    }
  }
  class Navigator {}
  // The engine's own showNotification: what it was asked to show, by registration.
  const engineShown = []
  class ServiceWorkerRegistration {
    showNotification(title, options) {
      engineShown.push({ registration: this, title, options })
      return Promise.resolve()
    }
  }
  const window = {
    location: { href },
    EventTarget,
    Event,
    URL,
    URLSearchParams,
    Promise,
    TypeError,
    Number,
    Map,
    WeakMap,
    Object,
    String,
    Boolean,
    setTimeout,
    Navigator,
    ServiceWorkerRegistration,
    navigator: new Navigator(),
    Element,
    addEventListener: (type, listener) => listeners.push({ type, listener }),
  }
  window.window = window
  window.top = window
  if (tauri) {
    window.__TAURI_INTERNALS__ = {
      invoke: (command, args) => {
        // Plain objects of this realm, so deepEqual compares values only.
        calls.push(JSON.parse(JSON.stringify({ command, ...args })))
        return Promise.resolve(null)
      },
    }
  }
  const engineShow = ServiceWorkerRegistration.prototype.showNotification
  const script = TEMPLATE.replace("__COWORK_SITE__", JSON.stringify({ origin, path }))
  vm.runInNewContext(script, window)
  /** A person's click on a link (`attributes`: target, download) to `href`: whether it was cancelled. */
  const click = (href, attributes = {}, extra = {}) => {
    let cancelled = false
    const event = { isTrusted: true, defaultPrevented: false, button: 0, target: new Element(attributes, href), preventDefault: () => (cancelled = true), ...extra }
    for (const { type, listener } of listeners) if (type === "click") listener(event)
    return cancelled
  }
  return { engineShow, engineShown, window, calls, click }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10))

describe("the site apps' injected script", () => {
  test("outside the app's scope it changes nothing", () => {
    for (const href of ["https://chat.example/other/", "https://evil.example/app/", "http://chat.example/app/", "https://user:pw@chat.example/app/", "about:blank"]) {
      const { window, calls, engineShow } = load(href)
      assert.equal(window.Notification, undefined, href)
      assert.equal(window.navigator.setAppBadge, undefined, href)
      assert.equal(window.ServiceWorkerRegistration.prototype.showNotification, engineShow, href)
      assert.deepEqual(calls, [])
    }
  })

  test("Notification is granted and reports each notification as the app's", async () => {
    const { window, calls } = load("https://chat.example/app/inbox?x=1")
    assert.equal(window.Notification.permission, "granted")
    assert.equal(await window.Notification.requestPermission(), "granted")
    assert.throws(() => new window.Notification(), TypeError)
    const notification = new window.Notification("Ana", { body: "Lunch?", tag: "chat-1" })
    assert.equal(notification.title, "Ana")
    assert.equal(notification.body, "Lunch?")
    await tick()
    assert.deepEqual(calls, [{ command: "site_report", report: { kind: "notify", id: 1, title: "Ana", body: "Lunch?", tag: "chat-1", urgent: false } }])
  })

  test("a banner click fires the notification's onclick and click listeners once each", async () => {
    const { window } = load("https://chat.example/app/")
    const seen = []
    const first = new window.Notification("Ana")
    const second = new window.Notification("Bo")
    first.onclick = (event) => seen.push(`onclick ${event.type}`)
    first.addEventListener("click", () => seen.push("listener"))
    second.onclick = () => seen.push("second")
    // Replacing onclick keeps one handler, the latest.
    first.onclick = (event) => seen.push(`onclick2 ${event.type}`)
    assert.equal(window.__coworkSiteClick(1), true)
    assert.deepEqual(seen, ["onclick2 click", "listener"])
    assert.equal(window.__coworkSiteClick(99), false, "an unknown id does nothing")
    assert.equal(first.onclick.name, "")
    first.onclick = null
    window.__coworkSiteClick(1)
    assert.deepEqual(seen, ["onclick2 click", "listener", "listener"])
  })

  test("the Badging API and a registration's showNotification report too", async () => {
    const { window, calls, engineShown } = load("https://chat.example/app/")
    await window.navigator.setAppBadge(4)
    await window.navigator.setAppBadge()
    await window.navigator.clearAppBadge()
    await assert.rejects(window.navigator.setAppBadge(-1), TypeError)
    const registration = new window.ServiceWorkerRegistration()
    const options = { body: "b", data: { conversation: 7 } }
    await registration.showNotification("From the worker", options)
    assert.deepEqual(
      calls.map((call) => call.report),
      [
        { kind: "badge", count: 4 },
        { kind: "badge", count: null },
        { kind: "badge", count: 0 },
        { kind: "notify", id: 1, worker: true, title: "From the worker", body: "b", tag: "", urgent: false },
      ],
    )
    assert.equal(engineShown.length, 0, "the engine shows it only when the shell says so")
    assert.equal(window.__coworkSiteShow(1), true)
    assert.deepEqual(engineShown, [{ registration, title: "From the worker", options }], "with the page's own arguments")
    assert.equal(window.__coworkSiteShow(1), false, "once")
    assert.equal(window.__coworkSiteClick(1), false, "not the page's to click")
    assert.ok(calls.every((call) => call.command === "site_report"), "one command, nothing else")
  })

  test("a person's click on a link outside the scope is cancelled and reported; others are left alone", async () => {
    const { calls, click } = load("https://chat.example/app/")
    assert.equal(click("https://docs.example/help"), true)
    assert.equal(click("mailto:a@example.com"), true)
    assert.equal(click("https://docs.example/x", { target: "_top" }), true)
    assert.equal(click("https://chat.example/app/settings"), false, "inside the scope")
    assert.equal(click("https://docs.example/y", { target: "_blank" }), false, "a new window: a popup of the app")
    assert.equal(click("https://docs.example/z", { download: "" }), false, "a download")
    assert.equal(click("javascript:void(0)"), false)
    assert.equal(click("https://docs.example/w", {}, { ctrlKey: true }), false, "ctrl-click")
    assert.equal(click("https://docs.example/v", {}, { defaultPrevented: true }), false, "the page handled it")
    assert.equal(click("https://docs.example/u", {}, { isTrusted: false }), false, "a script's click")
    await tick()
    assert.deepEqual(
      calls.map((call) => call.report),
      [
        { kind: "outside", url: "https://docs.example/help" },
        { kind: "outside", url: "mailto:a@example.com" },
        { kind: "outside", url: "https://docs.example/x" },
      ],
    )
  })

  test("without Tauri's IPC (a frame it does not reach) the calls still resolve", async () => {
    const { window, calls } = load("https://chat.example/app/", { tauri: false })
    await window.navigator.setAppBadge(2)
    new window.Notification("x")
    await tick()
    assert.deepEqual(calls, [])
  })
})
