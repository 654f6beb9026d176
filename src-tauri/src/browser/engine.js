// The browser engine's page half (src-tauri/src/browser/engine.rs): installed once per page in
// the page's own world on the first request, so its node↔ref map lives as long as the page does
// (a navigation starts a new page, a new map: the old refs are stale). Same-origin iframes are
// walked from the top document; their nodes share the top page's map.
//
// Every entry point returns a JSON string: {ok: value} or {error: {name, message, hint}}.
;(() => {
  if (window.__coworkEngine) return
  const refs = new Map() // "e12" → node
  const ids = new WeakMap() // node → "e12"
  let counter = 0
  const page = Math.random().toString(36).slice(2, 8)

  class EngineError extends Error {
    constructor(name, message, hint) {
      super(message)
      this.errorName = name
      this.hint = hint
    }
  }
  const SNAPSHOT_AGAIN = "take a new snapshot: refs last as long as their page and their node"

  function refOf(node) {
    let ref = ids.get(node)
    if (!ref) {
      ref = `e${++counter}`
      ids.set(node, ref)
      refs.set(ref, node)
    }
    return ref
  }

  function resolve(ref) {
    if (typeof ref !== "string" || !/^e\d+$/.test(ref)) throw new EngineError("BadRequest", `"${ref}" is not a ref`, "refs look like e12: take them from a snapshot or find")
    const node = refs.get(ref)
    if (!node) throw new EngineError("StaleRef", `ref ${ref} is not on this page (the page changed since the ref was given)`, SNAPSHOT_AGAIN)
    if (!node.isConnected) throw new EngineError("StaleRef", `ref ${ref} was removed from the page`, SNAPSHOT_AGAIN)
    return node
  }

  // Roles: explicit, else the HTML element's implicit one (none: a generic container).
  const INPUT_ROLES = { button: "button", submit: "button", reset: "button", image: "button", checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton", search: "searchbox", email: "textbox", tel: "textbox", text: "textbox", url: "textbox", password: "textbox", date: "textbox", "datetime-local": "textbox", month: "textbox", time: "textbox", week: "textbox", color: "button", file: "button" }
  const TAG_ROLES = { BUTTON: "button", TEXTAREA: "textbox", H1: "heading", H2: "heading", H3: "heading", H4: "heading", H5: "heading", H6: "heading", UL: "list", OL: "list", LI: "listitem", TABLE: "table", TR: "row", TH: "columnheader", TD: "cell", NAV: "navigation", MAIN: "main", DIALOG: "dialog", OPTION: "option", P: "paragraph", IMG: "img", IFRAME: "iframe", SUMMARY: "button", PROGRESS: "progressbar", ARTICLE: "article", FORM: "form" }
  function roleOf(el) {
    const explicit = el.getAttribute("role")
    if (explicit) return explicit.split(/\s+/)[0]
    const tag = el.tagName
    if (tag === "A") return el.hasAttribute("href") ? "link" : null
    if (tag === "INPUT") return el.type === "hidden" ? null : INPUT_ROLES[el.type] || "textbox"
    if (tag === "SELECT") return el.multiple || el.size > 1 ? "listbox" : "combobox"
    if (tag === "IMG") return el.getAttribute("alt") === "" ? null : "img"
    if (tag === "FORM") return el.hasAttribute("aria-label") || el.hasAttribute("name") ? "form" : null
    if (el.isContentEditable && (el.parentElement == null || !el.parentElement.isContentEditable)) return "textbox"
    return TAG_ROLES[tag] || null
  }
  // Roles whose name is their content (and whose content is not listed again).
  const NAME_FROM_CONTENT = new Set(["button", "link", "heading", "tab", "option", "menuitem", "menuitemcheckbox", "menuitemradio", "cell", "columnheader", "rowheader", "checkbox", "radio", "switch", "treeitem", "tooltip", "summary"])
  const LEAF = new Set(["button", "link", "heading", "tab", "option", "menuitem", "checkbox", "radio", "switch", "textbox", "searchbox", "combobox", "slider", "spinbutton", "img", "progressbar"])

  const clean = (text) => (text || "").replace(/\s+/g, " ").trim()
  function textOf(el) {
    return clean(el.innerText !== undefined && el.nodeType === 1 ? el.innerText : el.textContent)
  }
  function nameOf(el, role) {
    const doc = el.ownerDocument
    const labelledby = el.getAttribute("aria-labelledby")
    if (labelledby) {
      const text = labelledby.split(/\s+/).map((id) => doc.getElementById(id)).filter(Boolean).map(textOf).join(" ")
      if (text) return text
    }
    const label = el.getAttribute("aria-label")
    if (label && label.trim()) return clean(label)
    if (el.labels && el.labels.length) return clean([...el.labels].map(textOf).join(" "))
    if (el.tagName === "IMG") return clean(el.getAttribute("alt"))
    if (el.tagName === "INPUT" && ["button", "submit", "reset"].includes(el.type)) return clean(el.value || (el.type === "submit" ? "Submit" : el.type === "reset" ? "Reset" : ""))
    if (el.tagName === "IFRAME") return clean(el.title || el.name)
    if (NAME_FROM_CONTENT.has(role)) {
      const text = textOf(el)
      if (text) return text.length > 120 ? `${text.slice(0, 117)}…` : text
    }
    return clean(el.getAttribute("title") || el.getAttribute("placeholder") || "")
  }

  function visible(el) {
    if (el.checkVisibility) return el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true })
    const style = el.ownerDocument.defaultView.getComputedStyle(el)
    return style.display !== "none" && style.visibility !== "hidden"
  }
  function disabled(el) {
    if (el.getAttribute("aria-disabled") === "true") return true
    return el.matches && el.matches(":disabled")
  }
  function states(el, role) {
    const out = []
    const doc = el.ownerDocument
    if (role === "checkbox" || role === "radio" || role === "switch" || role === "menuitemcheckbox") {
      const aria = el.getAttribute("aria-checked")
      const on = aria != null ? aria : el.indeterminate ? "mixed" : el.checked ? "true" : "false"
      if (on === "true") out.push("checked")
      else if (on === "mixed") out.push("mixed")
    }
    if (disabled(el)) out.push("disabled")
    const expanded = el.getAttribute("aria-expanded") ?? (el.tagName === "SUMMARY" && el.parentElement?.tagName === "DETAILS" ? String(el.parentElement.open) : null)
    if (expanded === "true") out.push("expanded")
    else if (expanded === "false") out.push("collapsed")
    if (el.getAttribute("aria-selected") === "true" || (el.tagName === "OPTION" && el.selected)) out.push("selected")
    if (doc.activeElement === el && doc.hasFocus()) out.push("focused")
    if (el.required || el.getAttribute("aria-required") === "true") out.push("required")
    if (el.readOnly) out.push("readonly")
    if (role === "heading") out.push(`level=${el.getAttribute("aria-level") || el.tagName.slice(1)}`)
    return out
  }
  function valueOf(el, role) {
    if (el.tagName === "INPUT" && el.type === "password") return el.value ? "••••" : null
    if (role === "textbox" || role === "searchbox" || role === "spinbutton" || role === "slider") {
      const value = el.isContentEditable && el.tagName !== "INPUT" && el.tagName !== "TEXTAREA" ? textOf(el) : el.value
      return value ? clean(String(value)).slice(0, 200) : null
    }
    if (el.tagName === "SELECT") return clean([...el.selectedOptions].map((option) => option.label).join(", ")) || null
    return null
  }

  // The page's tree as lines "- role "name" [ref states]: value", in document order; generic
  // containers are flattened, their text shown as "- text: …".
  function walk(root, depth, lines, filter) {
    const children = root.nodeType === 1 && root.shadowRoot ? root.shadowRoot.childNodes : root.childNodes
    for (const child of children) {
      if (child.nodeType === 3) {
        const text = clean(child.textContent)
        if (text && !filter) lines.push({ depth, text: `- text: ${text.length > 300 ? `${text.slice(0, 297)}…` : text}` })
        continue
      }
      if (child.nodeType !== 1) continue
      const tag = child.tagName
      if (tag === "SCRIPT" || tag === "STYLE" || tag === "NOSCRIPT" || tag === "TEMPLATE" || tag === "HEAD") continue
      if (child.hidden || child.getAttribute("aria-hidden") === "true" || !visible(child)) continue
      const role = roleOf(child)
      if (!role || role === "presentation" || role === "none" || role === "generic") {
        walk(child, depth, lines, filter)
        continue
      }
      const name = nameOf(child, role)
      const line = { depth, node: child, role, name }
      let value = null
      if (!filter || filter(line)) {
        const ref = refOf(child)
        const tags = [ref, ...states(child, role)].join(" ")
        value = valueOf(child, role)
        line.text = `- ${role}${name ? ` ${JSON.stringify(name)}` : ""} [${tags}]${value != null ? `: ${value}` : ""}`
        line.ref = ref
        lines.push(line)
      }
      if (tag === "IFRAME") {
        let doc = null
        try {
          doc = child.contentDocument
        } catch (_) {}
        if (doc && doc.body) walk(doc.body, depth + 1, lines, filter)
        else if (!filter) lines.push({ depth: depth + 1, text: "- text: (another site's frame: not readable)" })
        continue
      }
      if (LEAF.has(role) && NAME_FROM_CONTENT.has(role)) continue
      if (tag === "SELECT" || tag === "TEXTAREA" || tag === "INPUT") continue
      const start = lines.length
      walk(child, depth + 1, lines, filter)
      // A node whose whole content is one text says it once (the snapshot is read by a model, by
      // the token): a name that is that text already says it (`cell "Ana"`); other text joins
      // the node's line, as its value would (`paragraph [e3]: 500 orders`).
      const only = lines.length === start + 1 && line.text && !lines[start].ref && lines[start].text.startsWith("- text: ") ? lines[start].text.slice(8) : null
      if (only != null && (only === name || value == null)) {
        if (only !== name) line.text += `: ${only}`
        lines.length = start
      }
    }
    return lines
  }

  function page_(cursor) {
    if (cursor == null) return 0
    const match = /^(\w+):(\d+)$/.exec(String(cursor))
    if (!match || match[1] !== page) throw new EngineError("BadRequest", `cursor "${cursor}" is not one of this page's`, "page with the cursor the last answer gave, on the same page; else start again without one")
    return Number(match[2])
  }
  function pageOut(items, cursor, maxChars, join) {
    let at = page_(cursor)
    const out = []
    let size = 0
    while (at < items.length) {
      const item = items[at]
      if (out.length && size + item.length + 1 > maxChars) break
      out.push(item)
      size += item.length + 1
      at++
    }
    return { text: out.join(join), next: at < items.length ? `${page}:${at}` : null }
  }

  function snapshot({ ref, cursor, maxChars }) {
    const root = ref ? resolve(ref) : document.body || document.documentElement
    const lines = ref ? [] : [{ depth: 0, text: `- page ${JSON.stringify(document.title)} [${location.href}]` }]
    if (ref) {
      const role = roleOf(root)
      if (role) lines.push({ depth: 0, text: `- ${role} ${JSON.stringify(nameOf(root, role))} [${refOf(root)}]` })
    }
    walk(root, ref ? 1 : 0, lines, null)
    const text = lines.map((line) => `${"  ".repeat(line.depth)}${line.text}`)
    const out = pageOut(text, cursor, maxChars || 24000, "\n")
    return { text: out.text, next: out.next, refs: lines.filter((line) => line.ref).length }
  }

  function find({ role, name, text, exact, limit }) {
    if (!role && !name && !text) throw new EngineError("BadRequest", "find needs a role, a name or a text", 'e.g. { role: "button", name: "Sign in" } or { text: "Welcome" }')
    const match = (value, wanted) => (exact ? clean(value) === clean(wanted) : clean(value).toLowerCase().includes(clean(wanted).toLowerCase()))
    const found = []
    if (role || name) {
      walk(document.body || document.documentElement, 0, found, (line) => (!role || line.role === role) && (!name || match(line.name, name)) && (!text || match(textOf(line.node), text)))
    } else {
      // By text: the deepest visible elements whose text holds it.
      const scan = (doc) => {
        for (const el of doc.querySelectorAll("body *")) {
          if (["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"].includes(el.tagName)) continue
          if (el.tagName === "IFRAME") {
            try {
              if (el.contentDocument) scan(el.contentDocument)
            } catch (_) {}
            continue
          }
          if (!match(textOf(el), text) || !visible(el)) continue
          if ([...el.children].some((child) => match(textOf(child), text))) continue
          const role = roleOf(el) || "text"
          found.push({ node: el, role, name: role === "text" ? "" : nameOf(el, role), ref: refOf(el) })
        }
      }
      scan(document)
    }
    const matches = found.slice(0, limit || 50).map((item) => {
      const ref = item.ref || refOf(item.node)
      const name = item.name || textOf(item.node).slice(0, 120)
      return { ref, role: item.role, name, line: item.text || `- ${item.role} ${JSON.stringify(name)} [${ref}]` }
    })
    return { matches, total: found.length }
  }

  // Scrolls the node into view and says where its centre is in the top window's viewport (CSS
  // pixels), after checking a person could act on it there.
  function point(ref, kind) {
    const el = resolve(ref)
    if (!visible(el)) throw new EngineError("NotActionable", `ref ${ref} is hidden`, "wait for it to show (waitFor), or snapshot again to find a visible one")
    if (disabled(el)) throw new EngineError("NotActionable", `ref ${ref} is disabled`, "wait for it to be enabled (waitFor state enabled)")
    if (kind === "edit" && !editable(el)) throw new EngineError("NotActionable", `ref ${ref} (${describe(el)}) is not editable`, "fill and type act on text fields, text areas and contenteditable elements")
    el.scrollIntoView({ block: "center", inline: "center" })
    const rect = el.getBoundingClientRect()
    if (rect.width === 0 || rect.height === 0) throw new EngineError("NotActionable", `ref ${ref} has no size on the page`, "snapshot again: act on a visible element")
    let x = rect.left + rect.width / 2
    let y = rect.top + rect.height / 2
    const hit = el.ownerDocument.elementFromPoint(x, y)
    const label = hit && hit.closest && hit.closest("label")
    if (hit && hit !== el && !el.contains(hit) && !(label && label.control === el) && !(el.labels && [...el.labels].some((l) => l.contains(hit)))) {
      throw new EngineError("NotActionable", `ref ${ref} is covered by ${describe(hit)}`, "close what covers it first (a dialog, a banner), then act again")
    }
    // Into the top window's coordinates through each same-origin frame.
    let win = el.ownerDocument.defaultView
    while (win && win !== window && win.frameElement) {
      const frame = win.frameElement.getBoundingClientRect()
      const style = win.frameElement.ownerDocument.defaultView.getComputedStyle(win.frameElement)
      x += frame.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft)
      y += frame.top + parseFloat(style.borderTopWidth) + parseFloat(style.paddingTop)
      win = win.parent
    }
    return { x, y, width: rect.width, height: rect.height }
  }
  function editable(el) {
    if (el.tagName === "TEXTAREA") return !el.readOnly
    if (el.tagName === "INPUT") return !el.readOnly && !["checkbox", "radio", "button", "submit", "reset", "image", "file", "range", "color", "hidden"].includes(el.type)
    return el.isContentEditable
  }
  function describe(el) {
    const role = roleOf(el)
    const name = role ? nameOf(el, role) : ""
    return `${role || el.tagName.toLowerCase()}${name ? ` "${name}"` : ""}`
  }

  // Focuses the field and selects its content, so typed keys replace it.
  function focusForTyping(ref, replace) {
    const el = resolve(ref)
    el.focus()
    if (replace) {
      if (el.select) el.select()
      else {
        const range = el.ownerDocument.createRange()
        range.selectNodeContents(el)
        const selection = el.ownerDocument.defaultView.getSelection()
        selection.removeAllRanges()
        selection.addRange(range)
      }
    } else if (el.setSelectionRange && typeof el.value === "string") {
      try {
        el.setSelectionRange(el.value.length, el.value.length)
      } catch (_) {}
    }
    return { focused: el.ownerDocument.activeElement === el }
  }

  // The trusted key and button releases the page (and its same-origin frames) has seen: WebKit
  // hands real input to the page one event at a time, after the shell sent it all, so the shell
  // counts it in before it answers (a next action must see all the text typed, the click done).
  function seen() {
    // keyHandled: whether the page took the last key down itself (cancelled it, or stopped it
    // before it bubbled back to its window), so the shell adds no editing command of its own.
    const count = { keys: 0, clicks: 0, keyHandled: false }
    let lastKeyAt = -1
    const visit = (doc) => {
      const view = doc.defaultView
      if (view) {
        if (!view.__coworkSeen) {
          const tally = (view.__coworkSeen = { keys: 0, clicks: 0, keyAt: -1, keyHandled: false })
          view.addEventListener("keyup", (event) => { if (event.isTrusted) tally.keys++ }, true)
          view.addEventListener("mouseup", (event) => { if (event.isTrusted) tally.clicks++ }, true)
          view.addEventListener("keydown", (event) => {
            if (!event.isTrusted) return
            tally.keyAt = performance.timeOrigin + event.timeStamp
            tally.keyHandled = true
          }, true)
          view.addEventListener("keydown", (event) => { if (event.isTrusted) tally.keyHandled = event.defaultPrevented })
        }
        const tally = view.__coworkSeen
        count.keys += tally.keys
        count.clicks += tally.clicks
        if (tally.keyAt > lastKeyAt) {
          lastKeyAt = tally.keyAt
          count.keyHandled = tally.keyHandled
        }
      }
      for (const frame of doc.querySelectorAll("iframe")) {
        try {
          if (frame.contentDocument) visit(frame.contentDocument)
        } catch (_) {}
      }
    }
    visit(document)
    // Which page counted: a click that navigates leaves a new page counting from zero.
    return { ...count, page }
  }

  // Replaces the field's content with `value` as an editing command (trusted beforeinput/input
  // events, as a paste); the native setter and an input event when the page refused it.
  function fill({ ref, value }) {
    const el = resolve(ref)
    focusForTyping(ref, true)
    const doc = el.ownerDocument
    const field = el.tagName === "INPUT" || el.tagName === "TEXTAREA"
    const done = value === "" ? doc.execCommand("delete", false) : doc.execCommand("insertText", false, value)
    const now = () => (field ? el.value : el.innerText)
    if (!done || clean(now()) !== clean(value)) {
      if (field) Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), "value").set.call(el, value)
      else el.textContent = value
      el.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertReplacementText", data: value }))
    }
    if (field) el.dispatchEvent(new Event("change", { bubbles: true }))
    return { filled: clean(now()) === clean(value) }
  }

  function select({ ref, values }) {
    const el = resolve(ref)
    if (el.tagName !== "SELECT") throw new EngineError("NotActionable", `ref ${ref} (${describe(el)}) is not a <select>`, "select acts on a <select>; for other lists click the option")
    if (disabled(el)) throw new EngineError("NotActionable", `ref ${ref} is disabled`, "wait for it to be enabled (waitFor state enabled)")
    const wanted = values.map(String)
    const options = [...el.options]
    const chosen = wanted.map((value) => {
      const option = options.find((o) => o.value === value) || options.find((o) => clean(o.label) === clean(value))
      if (!option) throw new EngineError("NotFound", `the <select> ${ref} has no option "${value}"`, `its options: ${options.map((o) => JSON.stringify(o.label)).join(", ")}`)
      return option
    })
    if (chosen.length > 1 && !el.multiple) throw new EngineError("BadRequest", `the <select> ${ref} takes one option, not ${chosen.length}`, "give one value")
    el.focus()
    for (const option of options) option.selected = chosen.includes(option)
    el.dispatchEvent(new Event("input", { bubbles: true }))
    el.dispatchEvent(new Event("change", { bubbles: true }))
    return { selected: chosen.map((o) => o.value) }
  }

  function checkState(ref) {
    const el = resolve(ref)
    const role = roleOf(el)
    if (!["checkbox", "radio", "switch", "menuitemcheckbox"].includes(role)) throw new EngineError("NotActionable", `ref ${ref} (${describe(el)}) is not a checkbox, a radio or a switch`, "check acts on checkboxes, radios and switches")
    const aria = el.getAttribute("aria-checked")
    return { checked: aria != null ? aria === "true" : !!el.checked }
  }

  // A ref's state for waitFor (removed: the node left the page).
  function refState(ref) {
    const node = refs.get(ref)
    if (!node) throw new EngineError("StaleRef", `ref ${ref} is not on this page (the page changed since the ref was given)`, SNAPSHOT_AGAIN)
    if (!node.isConnected) return { removed: true }
    const role = roleOf(node)
    const st = states(node, role)
    return { removed: false, visible: visible(node), enabled: !disabled(node), checked: st.includes("checked"), expanded: st.includes("expanded"), focused: node.ownerDocument.activeElement === node }
  }

  function hasText(text) {
    const wanted = clean(text).toLowerCase()
    const inDoc = (doc) => {
      if (clean(doc.body ? doc.body.innerText : "").toLowerCase().includes(wanted)) return true
      for (const frame of doc.querySelectorAll("iframe")) {
        try {
          if (frame.contentDocument && inDoc(frame.contentDocument)) return true
        } catch (_) {}
      }
      return false
    }
    return { present: inDoc(document) }
  }

  // Requests in flight: fetch and XMLHttpRequest counted from here on (idle: none for 500 ms).
  let inflight = 0
  let lastActivity = performance.now()
  const done = () => {
    inflight = Math.max(0, inflight - 1)
    lastActivity = performance.now()
  }
  if (window.fetch) {
    const fetch = window.fetch
    window.fetch = function (...args) {
      inflight++
      lastActivity = performance.now()
      return fetch.apply(this, args).finally(done)
    }
  }
  const send = XMLHttpRequest.prototype.send
  XMLHttpRequest.prototype.send = function (...args) {
    inflight++
    lastActivity = performance.now()
    this.addEventListener("loadend", done, { once: true })
    return send.apply(this, args)
  }
  function network() {
    const loading = document.readyState !== "complete"
    return { idleFor: loading || inflight > 0 ? 0 : performance.now() - lastActivity, inflight }
  }

  // The page's main text as markdown.
  function read({ ref, cursor, maxChars }) {
    const root = ref ? resolve(ref) : document.querySelector("main, [role=main], article") || document.body
    const blocks = []
    let line = ""
    const flush = () => {
      const text = line.replace(/[ \t]+/g, " ").trim()
      if (text) blocks.push(text)
      line = ""
    }
    const inline = (node) => {
      if (node.nodeType === 3) {
        line += node.textContent.replace(/\s+/g, " ")
        return
      }
      if (node.nodeType !== 1 || !visible(node) || node.getAttribute("aria-hidden") === "true") return
      const tag = node.tagName
      if (["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "BUTTON", "SELECT", "INPUT", "TEXTAREA"].includes(tag)) return
      if (!ref && !root.matches("main, [role=main], article") && ["NAV", "HEADER", "FOOTER", "ASIDE"].includes(tag)) return
      if (/^H[1-6]$/.test(tag)) {
        flush()
        blocks.push(`${"#".repeat(Number(tag[1]))} ${clean(node.innerText)}`)
        return
      }
      if (tag === "A" && node.hasAttribute("href")) {
        const text = clean(node.innerText)
        if (text) line += `[${text}](${node.href})`
        return
      }
      if (tag === "STRONG" || tag === "B") {
        const text = clean(node.innerText)
        if (text) line += `**${text}**`
        return
      }
      if (tag === "CODE" && node.parentElement?.tagName !== "PRE") {
        line += `\`${node.textContent}\``
        return
      }
      if (tag === "BR") {
        line += "\n"
        return
      }
      if (tag === "PRE") {
        flush()
        blocks.push(`\`\`\`\n${node.innerText.replace(/\n$/, "")}\n\`\`\``)
        return
      }
      if (tag === "UL" || tag === "OL") {
        flush()
        let n = 0
        const items = []
        for (const item of node.children) {
          if (item.tagName !== "LI" || !visible(item)) continue
          n++
          const saved = line
          line = ""
          for (const child of item.childNodes) inline(child)
          const text = line.replace(/\s+/g, " ").trim()
          line = saved
          items.push(`${tag === "OL" ? `${n}.` : "-"} ${text}`)
        }
        if (items.length) blocks.push(items.join("\n"))
        return
      }
      if (tag === "TABLE") {
        flush()
        const rows = [...node.rows].filter(visible).map((row) => [...row.cells].map((cell) => clean(cell.innerText).replace(/\|/g, "\\|")))
        if (rows.length) {
          const width = Math.max(...rows.map((row) => row.length))
          const pad = (row) => [...row, ...Array(width - row.length).fill("")]
          const out = [`| ${pad(rows[0]).join(" | ")} |`, `|${" --- |".repeat(width)}`, ...rows.slice(1).map((row) => `| ${pad(row).join(" | ")} |`)]
          blocks.push(out.join("\n"))
        }
        return
      }
      if (tag === "IMG") return
      if (tag === "IFRAME") {
        flush()
        try {
          if (node.contentDocument?.body) for (const child of node.contentDocument.body.childNodes) inline(child)
        } catch (_) {}
        flush()
        return
      }
      const block = /^(P|DIV|SECTION|ARTICLE|MAIN|BLOCKQUOTE|LI|DL|DT|DD|FORM|FIELDSET|FIGURE|FIGCAPTION|DETAILS|SUMMARY|HEADER|FOOTER|NAV|ASIDE)$/.test(tag)
      if (block) flush()
      for (const child of node.childNodes) inline(child)
      if (block) flush()
    }
    for (const child of root.childNodes) inline(child)
    flush()
    const out = pageOut(blocks, cursor, maxChars || 24000, "\n\n")
    return { markdown: out.text, next: out.next, title: document.title, url: location.href }
  }

  function box(ref) {
    const rect = point(ref)
    return rect
  }

  window.__coworkEngine = {
    page,
    run(op, args) {
      try {
        const ops = { snapshot, find, point: (a) => point(a.ref, a.kind), focusForTyping: (a) => focusForTyping(a.ref, a.replace), fill, select, checkState: (a) => checkState(a.ref), refState: (a) => refState(a.ref), hasText: (a) => hasText(a.text), seen, network, read, box: (a) => box(a.ref), info: () => ({ page, url: location.href, title: document.title, readyState: document.readyState }) }
        const fn = ops[op]
        if (!fn) throw new EngineError("BadRequest", `unknown engine op ${op}`)
        return JSON.stringify({ ok: fn(args || {}) })
      } catch (error) {
        if (error instanceof EngineError) return JSON.stringify({ error: { name: error.errorName, message: error.message, hint: error.hint } })
        return JSON.stringify({ error: { name: "ScriptError", message: `the engine failed on this page: ${error && error.message}`, hint: "snapshot again; if it keeps failing, read the page with evaluate" } })
      }
    },
  }
})()
