// Cowork: the workspace file routed to this web app, handed to the page the web's standard ways
// (page 12 "Web apps"). The daemon adds this script, as its first, only to a page opened with a
// routed file; the site's own files are untouched. `routed`: { token, name, type, lastModified,
// drop }. The page's requests carry the token, never a path: the daemon knows which file it names.
"use strict"
const address = (what) => `/.cowork/${what}?token=${encodeURIComponent(routed.token)}`

// The page's address as it ships: the token leaves it before the page's own scripts run, and so
// does `cowork-shell=desktop`, which the workbench adds in the desktop app's window (see saveAs).
let inDesktop = false
try {
  const here = new URL(location.href)
  inDesktop = here.searchParams.get("cowork-shell") === "desktop"
  here.searchParams.delete("cowork-file")
  here.searchParams.delete("cowork-shell")
  history.replaceState(history.state, "", here.pathname + here.search + here.hash)
} catch {}

const fileOf = (blob, name, type) =>
  new File([blob], name, { type, lastModified: routed.lastModified || Date.now() })
let current = fetch(address("file")).then((response) => {
  if (!response.ok) throw new DOMException(`Cowork could not read ${routed.name}`, "NotReadableError")
  return response.blob().then((blob) => fileOf(blob, routed.name, routed.type))
})

/** Writes `blob` back to the workspace file. */
async function saveBack(blob) {
  const response = await fetch(address("file"), { method: "PUT", body: blob })
  if (!response.ok) {
    const answer = await response.json().catch(() => ({}))
    const message = answer.error?.message ?? `Cowork could not save ${routed.name}`
    throw new DOMException(message, "NotAllowedError")
  }
  routed.lastModified = Date.now()
  current = Promise.resolve(fileOf(blob, routed.name, routed.type))
}

/** Saves `blob` as `name` the way a page without Cowork would: a download (the browser asks where). */
function download(blob, name) {
  const link = document.createElement("a")
  link.href = URL.createObjectURL(blob)
  link.download = name
  nativeAnchorClick.call(link)
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000)
}

/**
 * Saves `blob` under another name by a download; in the desktop app, whose save dialog then asks
 * where (src-tauri/src/save_as.rs), it settles with the answer the workbench passes on: saved, or
 * an `AbortError` when the dialog was cancelled — as a browser's own save picker would reject.
 */
function saveAs(blob, name) {
  if (!inDesktop) return download(blob, name)
  const url = URL.createObjectURL(blob)
  const workbench = `${location.protocol}//127.0.0.1:${location.port}`
  const answered = new Promise((resolve, reject) => {
    const listen = (event) => {
      const answer = event.data
      if (event.source !== window.parent || event.origin !== workbench) return
      if (answer?.cowork !== "save-as" || answer.url !== url) return
      window.removeEventListener("message", listen)
      URL.revokeObjectURL(url)
      if (answer.saved) resolve()
      else reject(new DOMException(`${name} was not saved: the save dialog was cancelled`, "AbortError"))
    }
    window.addEventListener("message", listen)
  })
  const link = document.createElement("a")
  link.href = url
  link.download = name
  nativeAnchorClick.call(link)
  return answered
}

const bytesOf = async (data) => {
  if (typeof data === "string") return new TextEncoder().encode(data)
  if (data instanceof Blob) return new Uint8Array(await data.arrayBuffer())
  if (data instanceof ArrayBuffer) return new Uint8Array(data)
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
  throw new TypeError("write() takes a string, a Blob, an ArrayBuffer or a typed array")
}

/** A `FileSystemWritableFileStream`: writes gather in memory and `close()` commits them. */
async function writable(start, commit) {
  let bytes = start ? new Uint8Array(await start.arrayBuffer()) : new Uint8Array(0)
  let position = 0
  let closed = false
  const put = async (data, at = position) => {
    const chunk = await bytesOf(data)
    const end = at + chunk.length
    if (end > bytes.length) {
      const grown = new Uint8Array(end)
      grown.set(bytes)
      bytes = grown
    }
    bytes.set(chunk, at)
    position = end
  }
  const write = async (data) => {
    if (closed) throw new TypeError("the stream is closed")
    const command = data && typeof data === "object" && typeof data.type === "string" && !(data instanceof Blob)
    if (!command) return put(data)
    if (data.type === "write") return put(data.data, data.position ?? position)
    if (data.type === "seek") position = data.position
    if (data.type === "truncate") {
      bytes = bytes.length >= data.size ? bytes.slice(0, data.size) : grownTo(bytes, data.size)
      position = Math.min(position, data.size)
    }
  }
  const close = async () => {
    if (closed) return
    closed = true
    await commit(new Blob([bytes]))
  }
  const stream = new WritableStream({ write, close, abort: () => { closed = true } })
  if (typeof FileSystemWritableFileStream === "function")
    Object.setPrototypeOf(stream, FileSystemWritableFileStream.prototype)
  return Object.defineProperties(stream, {
    write: { value: write },
    seek: { value: async (at) => { position = at } },
    truncate: { value: (size) => write({ type: "truncate", size }) },
    close: { value: close },
    abort: { value: async () => { closed = true } },
  })
}
const grownTo = (bytes, size) => {
  const grown = new Uint8Array(size)
  grown.set(bytes)
  return grown
}

/** A `FileSystemFileHandle` over `read()`, whose writes go to `commit(blob)`. */
function handleOf(name, read, commit) {
  const prototype =
    typeof FileSystemFileHandle === "function" ? FileSystemFileHandle.prototype : Object.prototype
  const handle = Object.create(prototype, {
    kind: { value: "file", enumerable: true },
    name: { value: name, enumerable: true },
    getFile: { value: async () => read() },
    createWritable: {
      value: async (options) => writable(options?.keepExistingData ? await read() : null, commit),
    },
    queryPermission: { value: async () => "granted" },
    requestPermission: { value: async () => "granted" },
    isSameEntry: { value: async (other) => other === handle },
  })
  return handle
}

const routedHandle = handleOf(routed.name, () => current, saveBack)

// The routed file is handed over ONCE, to whichever standard way the page asks first; later picks
// are the browser's own choosers (a page opening another file gets what the person picks).
let handed = false
const handOver = () => !handed && (handed = true)

// launchQueue: a `LaunchParams` with the routed file's handle for the first consumer.
{
  const withPrototype = (name, properties) =>
    Object.create(typeof window[name] === "function" ? window[name].prototype : Object.prototype, properties)
  const params = withPrototype("LaunchParams", {
    targetURL: { value: location.href, enumerable: true },
    files: { value: Object.freeze([routedHandle]), enumerable: true },
  })
  const queue = withPrototype("LaunchQueue", {
    setConsumer: {
      value(consumer) {
        if (typeof consumer !== "function") throw new TypeError("setConsumer takes a function")
        if (!handed) {
          handed = true
          queueMicrotask(() => consumer(params))
        }
      },
    },
  })
  Object.defineProperty(window, "launchQueue", { value: queue, configurable: true })
}

// showOpenFilePicker: the routed file first; then the browser's picker, or a file input.
const nativeOpen = window.showOpenFilePicker?.bind(window)
const nativeSave = window.showSaveFilePicker?.bind(window)
const nativeInputClick = HTMLInputElement.prototype.click
const nativeShowPicker = HTMLInputElement.prototype.showPicker
const nativeAnchorClick = HTMLAnchorElement.prototype.click

window.showOpenFilePicker = async (options = {}) => {
  if (handOver()) return [routedHandle]
  if (nativeOpen) return nativeOpen(options)
  const files = await new Promise((resolve, reject) => {
    const input = document.createElement("input")
    input.type = "file"
    input.multiple = Boolean(options.multiple)
    input.addEventListener("change", () => resolve([...input.files]))
    input.addEventListener("cancel", () => reject(new DOMException("The user aborted a request.", "AbortError")))
    nativeInputClick.call(input)
  })
  return files.map((file) => handleOf(file.name, async () => file, (blob) => download(blob, file.name)))
}

// showSaveFilePicker: the routed file's own name writes it back; any other name asks where.
window.showSaveFilePicker = async (options = {}) => {
  if (options.suggestedName === routed.name) return routedHandle
  if (nativeSave) return nativeSave(options)
  const name = options.suggestedName || "untitled"
  return handleOf(name, async () => new File([], name), (blob) => saveAs(blob, name))
}

// <input type=file>: the first pick is the routed file, set as if the person had chosen it.
function pickRouted(input) {
  if (!(input instanceof HTMLInputElement) || input.type !== "file" || !handOver()) return false
  current.then((file) => {
    const transfer = new DataTransfer()
    transfer.items.add(file)
    input.files = transfer.files
    input.dispatchEvent(new Event("input", { bubbles: true, composed: true }))
    input.dispatchEvent(new Event("change", { bubbles: true }))
  })
  return true
}
HTMLInputElement.prototype.click = function click() {
  if (!pickRouted(this)) nativeInputClick.call(this)
}
if (nativeShowPicker)
  HTMLInputElement.prototype.showPicker = function showPicker() {
    if (!pickRouted(this)) nativeShowPicker.call(this)
  }
// A person's click on the input (or its label): the chooser would open; the file is picked instead.
window.addEventListener(
  "click",
  (event) => {
    if (event.target instanceof HTMLInputElement && pickRouted(event.target)) event.preventDefault()
  },
  true,
)

// <a download="<the file's name>">: the page saving the way pages without file handles do.
function saveByLink(link) {
  if (!(link instanceof HTMLAnchorElement) || link.download !== routed.name) return false
  fetch(link.href)
    .then((response) => response.blob())
    .then(saveBack)
    .catch((error) => console.error(`Cowork could not save ${routed.name}:`, error))
  return true
}
HTMLAnchorElement.prototype.click = function click() {
  if (!saveByLink(this)) nativeAnchorClick.call(this)
}
window.addEventListener(
  "click",
  (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[download]") : null
    if (link && saveByLink(link)) event.preventDefault()
  },
  true,
)

// "open": "drop:<selector>": the file dropped on that element once it is there and the page
// listens for drops (a WASM app often attaches its listeners after it has loaded).
if (routed.drop) {
  let listening = false
  const add = EventTarget.prototype.addEventListener
  EventTarget.prototype.addEventListener = function addEventListener(type, ...rest) {
    if (type === "drop" && !listening) {
      listening = true
      setTimeout(tryDrop)
    }
    return add.call(this, type, ...rest)
  }
  const observer = new MutationObserver(() => tryDrop())
  async function tryDrop() {
    const target = document.querySelector(routed.drop)
    if (handed || document.readyState === "loading" || !target || !(listening || target.ondrop)) return
    handed = true
    observer.disconnect()
    const file = await current
    const transfer = new DataTransfer()
    transfer.items.add(file)
    for (const type of ["dragenter", "dragover", "drop"])
      target.dispatchEvent(
        new DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: transfer }),
      )
  }
  document.addEventListener("DOMContentLoaded", () => {
    observer.observe(document.documentElement, { childList: true, subtree: true, attributes: true })
    tryDrop()
  })
  window.addEventListener("load", () => tryDrop())
}
