// The browser engine live (issue 43): the real desktop app under Xvfb drives the test site
// (tests/browser-site/serve.mjs) in WebKitGTK through a routine's `ctx.browser` — the app
// `driver` declares `"requires": ["desktop"]` and each scenario is one of its routines, run with
// `cowork routine run` on the shell's daemon — so what is pinned is the whole path: engine →
// daemon → desktop channel → shell → engine.js in the page, and real GDK input reaching the page's
// script (the list's filter re-renders on its `input` events only). Named errors are provoked
// live: a page that navigates away mid-action, a stale ref, a closed tab, a timeout.
//
// Consent: the person's earlier yes is pre-written in `<COWORK_HOME>/browser-consent.json` as the
// daemon keeps it (driver `app:<workspace>:driver`, the site `127.0.0.1:<port>`), so no dialog
// shows; tests/mcp/browser.test.mjs pins the dialog's question and answer.
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { after, before, describe, test } from "node:test"
import { serve } from "../browser-site/serve.mjs"
import { auditLines, closeDesktop, cowork, COWORK_BIN, finished, HOME, openDesktop, screenshotScreen, skip, startRoutine, windowsNamed } from "./desktop.mjs"
import { installSite } from "./sites.mjs"
import { until } from "./webdriver.mjs"
import { makeWorkspace, removeWorkspace } from "./workspace.mjs"

/** The driver app's routines: each takes `{ site }` (the test site's address, ending in "/"). */
const ROUTINES = {
  // Sign in: snapshot, find, fill, type (real keys), click a submit button, waitFor, read.
  login: `export default async ({ site }, { browser: b }) => {
  const opened = await b.open(site + "login");
  const snapshot = await b.snapshot();
  const [user] = (await b.find({ role: "textbox", name: "Username" })).matches;
  const [password] = (await b.find({ role: "textbox", name: "Password" })).matches;
  const [submit] = (await b.find({ role: "button", name: "Sign in" })).matches;
  await b.fill(user.ref, "ana");
  await b.type("correct horse", { ref: password.ref });
  const typed = await b.evaluate("[...document.querySelectorAll('input')].map((input) => input.value)");
  const clicked = await b.click(submit.ref);
  const waited = await b.waitFor("Signed in as ana", { timeoutMs: 10000 });
  const read = await b.read();
  const title = await b.evaluate("document.title");
  return { opened, snapshot: snapshot.text, typed, clicked, waited, read: read.markdown, title };
};
`,
  // The order form: fill, select, check (a checkbox and a radio), type in a textarea, press Enter.
  form: `export default async ({ site }, { browser: b }) => {
  await b.navigate(site + "form");
  const ref = async (role, name) => (await b.find({ role, name })).matches[0].ref;
  await b.fill(await ref("textbox", "Full name"), "Ana Lima");
  await b.fill(await ref("textbox", "Email"), "ana@example.com");
  const size = await ref("combobox", "Size");
  await b.select(size, "Large");
  await b.check(await ref("checkbox", "Gift wrap"));
  await b.check(await ref("radio", "Express"));
  await b.type("ring twice", { ref: await ref("textbox", "Notes") });
  const state = await b.evaluate(() => [...new FormData(document.querySelector("form"))]);
  const pressed = await b.press("Enter", { ref: await ref("textbox", "Full name") });
  const read = await b.read();
  return { state, pressed, read: read.markdown };
};
`,
  // The dynamic list: waitFor text, real typing seen by the page's input listener, a row's button.
  list: `export default async ({ site }, { browser: b }) => {
  await b.navigate(site + "list");
  await b.waitFor("500 orders", { timeoutMs: 10000 });
  const [filter] = (await b.find({ role: "textbox", name: "Filter" })).matches;
  await b.type("tango", { ref: filter.ref });
  const filtered = await b.waitFor({ text: "500 orders", gone: true }, { timeoutMs: 10000 });
  const count = await b.evaluate("document.getElementById('count').textContent");
  const rows = await b.evaluate("document.querySelectorAll('#rows tr').length");
  const [open] = (await b.find({ role: "button", name: "Open tango" })).matches;
  await b.click(open.ref);
  await b.waitFor("Opened order", { timeoutMs: 10000 });
  const picked = await b.evaluate("document.getElementById('picked').textContent");
  await b.press("Backspace", { ref: filter.ref });
  const pressed = await b.evaluate("document.getElementById('filter').value");
  await b.fill(filter.ref, "");
  await b.waitFor("500 orders", { timeoutMs: 10000 });
  const idle = await b.waitFor({ networkIdle: true }, { timeoutMs: 10000 });
  return { count, rows, open: open.name, picked, pressed, filtered, idle };
};
`,
  // The same-origin iframe: its nodes are in the snapshot, and act like the top page's.
  frame: `export default async ({ site }, { browser: b }) => {
  await b.navigate(site + "frame");
  await b.waitFor("Apply code", { timeoutMs: 10000 });
  const snapshot = await b.snapshot();
  const [code] = (await b.find({ role: "textbox", name: "Code" })).matches;
  const [apply] = (await b.find({ role: "button", name: "Apply code" })).matches;
  await b.type("X1", { ref: code.ref });
  await b.click(apply.ref);
  const waited = await b.waitFor("Clicked inside with X1", { timeoutMs: 10000 });
  return { snapshot: snapshot.text, waited };
};
`,
  // Editing chords as a person presses them, in an input, a textarea and a contenteditable:
  // Control+A selects all, Shift+arrows extend the selection, Control+X/V/Z cut, paste and undo.
  editing: `export default async ({ site }, { browser: b }) => {
  const opened = await b.open(site + "editing");
  const ref = async (name) => (await b.find({ role: "textbox", name })).matches[0].ref;
  const [line, text, rich] = [await ref("Line"), await ref("Text"), await ref("Rich")];
  const state = () => b.evaluate(() => {
    const el = document.activeElement;
    const rich = el.isContentEditable;
    return { id: el.id, selected: rich ? String(getSelection()) : el.value.slice(el.selectionStart, el.selectionEnd), value: rich ? el.textContent : el.value };
  });
  const out = {};
  await b.press("Control+A", { ref: line });
  out.line = await state();
  await b.type("hi");
  out.lineTyped = await state();
  await b.press("Control+a", { ref: text });
  out.text = await state();
  await b.press("Control+A", { ref: rich });
  out.rich = await state();
  await b.type("X");
  out.richTyped = await state();
  await b.press("End", { ref: text });
  for (let i = 0; i < 4; i++) await b.press("Shift+ArrowLeft");
  out.shifted = await state();
  await b.press("Control+X");
  out.cut = await state();
  await b.press("Control+Z");
  out.undone = await state();
  await b.press("Control+Shift+Z");
  out.redone = await state();
  await b.press("Control+z");
  out.undoneAgain = await state();
  // A page with its own undo takes the key: nothing is undone for it.
  await b.evaluate("document.getElementById('text').addEventListener('keydown', (event) => { if (event.ctrlKey && event.key.toLowerCase() === 'z') event.preventDefault() })");
  await b.press("Control+A", { ref: text });
  await b.type("own");
  await b.press("Control+z");
  out.pageUndo = await state();
  await b.press("Control+A", { ref: line });
  await b.press("Control+C");
  await b.press("End", { ref: text });
  await b.press("Control+V");
  out.pasted = await state();
  await b.close({ tabIndex: opened.tab.index });
  return out;
};
`,
  // Tabs: a second tab, the list, acting on it by index, closing it.
  tabs: `export default async ({ site }, { browser: b }) => {
  const opened = await b.open(site + "article");
  const listed = await b.tabs();
  const index = opened.tab.index;
  const title = await b.evaluate("document.title", { tabIndex: index });
  const read = await b.read({ tabIndex: index });
  const closed = await b.close({ tabIndex: index });
  return { opened, listed, title, read: read.markdown, closed };
};
`,
  // A site app's window (the test site's list installed as a site app), by the app's name.
  app: `export default async ({ app }, { browser: b }) => {
  const tabs = await b.tabs();
  await b.waitFor("500 orders", { app, timeoutMs: 10000 });
  const [filter] = (await b.find({ role: "textbox", name: "Filter" }, { app })).matches;
  const typed = await b.type("zulu", { ref: filter.ref, app });
  await b.waitFor({ text: "500 orders", gone: true }, { app, timeoutMs: 10000 });
  const count = await b.evaluate("document.getElementById('count').textContent", { app });
  const snapshot = await b.snapshot({ app });
  return { apps: tabs.apps, typed, count, snapshot: snapshot.text };
};
`,
  // Acts until the person presses Stop (on the window \`args.app\` names, else the browser's),
  // then tries once more.
  stop: `export default async ({ site, app }, { browser: b }) => {
  const on = app ? { app } : {};
  if (!app) await b.open(site + "article");
  for (let waited = 0; waited < 60; waited++) {
    try {
      await b.waitFor("never on this page", { ...on, timeoutMs: 1500 });
    } catch (error) {
      if (error.name === "Timeout") continue;
      let after = "ran";
      try { await b.tabs(); } catch (again) { after = again.name; }
      return { name: error.name, message: error.message, after };
    }
  }
  return { name: "never stopped" };
};
`,
  // Every named error, live.
  errors: `const named = async (promise) => {
  try { return { value: await promise }; } catch (error) { return { name: error.name, message: error.message }; }
};
export default async ({ site }, { browser: b }) => {
  const out = {};
  // A stale ref: a ref of a page that is gone.
  await b.navigate(site + "navigate-away");
  const [go] = (await b.find({ role: "button", name: "Go" })).matches;
  await b.navigate(site + "article");
  out.stale = await named(b.click(go.ref));
  // The page navigates away mid-action: it leaves 200 ms into a script that takes 3 s.
  await b.navigate(site + "navigate-away");
  out.away = await named(b.evaluate("setTimeout(() => { location.href = '/article' }, 200); return new Promise((resolve) => setTimeout(() => resolve(1), 3000))"));
  await b.waitFor("Why loopback matters", { timeoutMs: 10000 });
  // A navigation that waitFor sees: asked before the click (as one waits for a navigation an
  // action causes), since on a busy machine the page could be gone before the click's answer was back.
  await b.navigate(site + "navigate-away");
  const [third] = (await b.find({ role: "button", name: "Go" })).matches;
  const navigation = named(b.waitFor({ navigation: true, url: "/article" }, { timeoutMs: 10000 }));
  await b.click(third.ref);
  out.navigation = await navigation;
  // A navigation the click already followed counts for a waitFor asked after it (it counts from
  // the page before the tab's last input); the next waitFor counts from the page it found.
  await b.navigate(site);
  const [article] = (await b.find({ role: "link", name: "Article" })).matches;
  await b.click(article.ref);
  out.afterClick = await named(b.waitFor({ navigation: true, url: "/article" }, { timeoutMs: 10000 }));
  out.noneSince = await named(b.waitFor({ navigation: true }, { timeoutMs: 800 }));
  // Timeouts: a condition never met, a page too slow for its budget.
  out.timeout = await named(b.waitFor("never on this page", { timeoutMs: 800 }));
  out.slow = await named(b.navigate(site + "slow?ms=5000", { timeoutMs: 1000 }));
  // A closed tab: closed while an action on it waits; then its index names no tab.
  const opened = await b.open(site + "article");
  const index = opened.tab.index;
  const waiting = named(b.waitFor("never on this page", { tabIndex: index, timeoutMs: 8000 }));
  await new Promise((resolve) => setTimeout(resolve, 500));
  await b.close({ tabIndex: index });
  out.closed = await waiting;
  out.gone = await named(b.snapshot({ tabIndex: 5 }));
  out.script = await named(b.evaluate("null.x"));
  return out;
};
`,
}

/** Writes the app `driver` (its routines `driver-<name>`) into `workspace`. */
function writeDriver(workspace) {
  const dir = join(workspace, ".cowork/apps/driver")
  mkdirSync(dir, { recursive: true })
  const routines = Object.fromEntries(Object.keys(ROUTINES).map((name) => [`driver-${name}`, { file: `${name}.ts`, timeout: 120 }]))
  writeFileSync(join(dir, "cowork.json"), JSON.stringify({ name: "driver", version: "1.0.0", title: "Driver", requires: ["desktop"], routines }, null, 2))
  for (const [name, source] of Object.entries(ROUTINES)) writeFileSync(join(dir, `${name}.ts`), source)
}

/** The person's yes for `driver` and the agent `sdk-desktop` on the test site, as the daemon remembers it. */
function allow(workspace, site) {
  const drivers = { [`app:${realpathSync(workspace)}:driver`]: [site], "agent:sdk-desktop": [site] }
  writeFileSync(join(HOME, "browser-consent.json"), JSON.stringify({ drivers }, null, 2))
}

/** Where the banner's Stop is in the browser window: the address row's right end (the menu bar, then the 44 px row). */
const STOP_BUTTON = { x: 1052, y: 47 }
/** Screen pixels per window pixel: a run at GDK_SCALE=2 (HiDPI) draws every window twice as large. */
const SCALE = Number(process.env.GDK_SCALE) || 1

/** The visible X window of process `pid` whose title ends with `suffix`. */
function windowEndingWith(pid, suffix) {
  return windowsNamed(`${suffix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, pid)[0]
}

/** The browser actions audited so far (one line each). */
const browserLines = () => auditLines().filter((line) => line.capability?.startsWith("cowork.browser."))

/** The MCP TypeScript SDK, from tests/mcp's packages (`npm ci --prefix tests/mcp`), or null. */
async function mcpSdk() {
  const dist = new URL("../mcp/node_modules/@modelcontextprotocol/sdk/dist/esm/client/", import.meta.url)
  if (!existsSync(dist)) return null
  const { Client } = await import(new URL("index.js", dist))
  const { StdioClientTransport } = await import(new URL("stdio.js", dist))
  return { Client, StdioClientTransport }
}

describe("the browser engine, live in WebKitGTK", { skip }, () => {
  let site
  let workspace
  let app
  // Not runRoutine (spawnSync): the test site answers from this process's event loop.
  const run = async (name) => {
    const { code, stdout } = await finished(startRoutine(workspace, `driver-${name}`, { site: site.url }))
    assert.equal(code, 0, `driver-${name} exited ${code}: ${stdout}`)
    return JSON.parse(stdout).result
  }

  before(async () => {
    site = await serve()
    workspace = makeWorkspace()
    writeDriver(workspace)
    allow(workspace, new URL(site.url).host)
    app = await openDesktop(workspace)
  })

  after(async () => {
    await closeDesktop(app)
    await site?.close()
    if (workspace) removeWorkspace(workspace)
  })

  test("a routine signs in: snapshot, find, fill, type, click, waitFor, read, evaluate", async () => {
    const out = await run("login")
    assert.equal(out.opened.navigated, true)
    assert.equal(out.opened.tab.index, 0)
    assert.match(out.snapshot, /textbox "Username" \[e\d+/)
    assert.match(out.snapshot, /textbox "Password" \[e\d+/)
    assert.match(out.snapshot, /button "Sign in" \[e\d+/)
    assert.deepEqual(out.typed, ["ana", "correct horse"], "every key typed reached the page before the next action")
    assert.equal(out.clicked.navigated, true, "the submit went to /account")
    assert.match(out.read, /Signed in as ana/)
    assert.equal(out.title, "Account")
    screenshotScreen("browser-engine-login")
    const lines = auditLines().filter((line) => line.capability?.startsWith("cowork.browser."))
    assert.ok(lines.some((line) => line.capability === "cowork.browser.type"), "one audit line per action")
    assert.ok(!JSON.stringify(lines).includes("correct horse"), "no typed text in the audit")
  })

  test("a routine fills the order form: fill, select, check, type, press Enter submits", async () => {
    const out = await run("form")
    assert.deepEqual(out.state, [["name", "Ana Lima"], ["email", "ana@example.com"], ["size", "l"], ["gift", "on"], ["delivery", "express"], ["notes", "ring twice"]])
    assert.equal(out.pressed.navigated, true)
    assert.match(out.read, /# Order placed/)
    assert.match(out.read, /\| notes \| ring twice \|/)
  })

  test("real key events reach the list's script: typing filters it, a row's button is clicked", async () => {
    const out = await run("list")
    assert.match(out.count, /^\d+ orders$/)
    assert.notEqual(out.count, "500 orders")
    assert.ok(out.rows > 0 && out.rows <= 50, `${out.rows} rows`)
    assert.match(out.open, /^Open tango-/)
    assert.match(out.picked, /^Opened order \d+$/)
    assert.equal(out.pressed, "tang", "Backspace reached the field")
    assert.equal(out.idle.navigated, false)
  })

  test("editing chords: Control+A selects all, Shift+arrows select, Control+X/Z/C/V cut, undo, copy, paste", async () => {
    const out = await run("editing")
    assert.deepEqual(out.line, { id: "line", selected: "hello world", value: "hello world" }, "Control+A in an input")
    assert.deepEqual(out.lineTyped, { id: "line", selected: "", value: "hi" }, "typing replaced the selection")
    assert.deepEqual(out.text, { id: "text", selected: "first line\nsecond line", value: "first line\nsecond line" }, "Control+a in a textarea")
    assert.deepEqual(out.rich, { id: "rich", selected: "bold words here", value: "bold words here" }, "Control+A in a contenteditable")
    assert.deepEqual(out.richTyped, { id: "rich", selected: "", value: "X" })
    assert.deepEqual(out.shifted, { id: "text", selected: "line", value: "first line\nsecond line" }, "Shift+ArrowLeft ×4")
    assert.deepEqual(out.cut, { id: "text", selected: "", value: "first line\nsecond " }, "Control+X")
    assert.equal(out.undone.value, "first line\nsecond line", "Control+Z")
    assert.equal(out.redone.value, "first line\nsecond ", "Control+Shift+Z")
    assert.equal(out.undoneAgain.value, "first line\nsecond line", "Control+z")
    assert.equal(out.pageUndo.value, "own", "a page that cancels Control+Z keeps its text")
    assert.deepEqual(out.pasted, { id: "text", selected: "", value: "ownhi" }, "Control+C in the input, Control+V in the textarea")
  })

  test("a same-origin iframe is snapshotted and acted in", async () => {
    const out = await run("frame")
    assert.match(out.snapshot, /iframe "Inner form"/)
    assert.match(out.snapshot, /button "Apply code"/)
  })

  test("tabs: open a second one, act on it by index, close it", async () => {
    const out = await run("tabs")
    assert.equal(out.opened.tab.index, 1)
    assert.equal(out.listed.tabs.length, 2)
    assert.equal(out.title, "Why loopback matters")
    assert.match(out.read, /tangerine/)
    assert.equal(out.closed.tabs.length, 1)
  })

  test("a routine drives a site app's window by the app's name, on that site's consent", async () => {
    installSite(workspace, "orders", { title: "Orders Site", web: { url: `${site.url}list`, scope: site.url } })
    const manifest = join(workspace, ".cowork/apps/orders-site/cowork.json")
    await until(() => cowork(["app", "open", manifest]).status === 0, { what: "the daemon to open orders-site" })
    await until(() => windowEndingWith(app.pid, "Orders Site") || windowEndingWith(app.pid, "Orders"), { what: "the site app's window" })
    const { code, stdout } = await finished(startRoutine(workspace, "driver-app", { app: "orders-site" }))
    assert.equal(code, 0, stdout)
    const out = JSON.parse(stdout).result
    screenshotScreen("browser-engine-site-app-banner")
    assert.deepEqual(out.apps.map((each) => each.app), ["orders-site"])
    assert.equal(out.typed.tab.app, "orders-site")
    assert.match(out.count, /^\d+ orders$/)
    assert.notEqual(out.count, "500 orders")
    assert.match(out.snapshot, /textbox "Filter" \[e\d+[^\]]*\]: zulu/)
    assert.doesNotMatch(out.snapshot, /is driving this window/, "the banner is not part of the page's snapshot")
  })

  test("an agent drives the page through cowork mcp-browser with the TypeScript SDK", async (t) => {
    const sdk = await mcpSdk()
    // The suite installs tests/mcp before this runs; by hand it may be missing. In CI that is a
    // failure, as a missing display is (desktop.mjs), so the agent's path is never dropped there.
    if (!sdk && process.env.CI) throw new Error("the MCP SDK is missing: npm ci --prefix tests/mcp")
    if (!sdk) return t.skip("no tests/mcp/node_modules: npm ci --prefix tests/mcp")
    const transport = new sdk.StdioClientTransport({ command: COWORK_BIN, args: ["mcp-browser", "--workspace", workspace], env: process.env })
    const client = new sdk.Client({ name: "sdk-desktop", version: "1.0.0" })
    await client.connect(transport)
    try {
      const call = async (name, args = {}) => {
        const out = await client.callTool({ name, arguments: args })
        assert.equal(out.isError, false, `${name}: ${out.content?.[0]?.text}`)
        return out.content[0].text
      }
      await call("navigate", { url: `${site.url}login` })
      const snapshot = await call("snapshot")
      const ref = (pattern) => new RegExp(`${pattern} \\[(e\\d+)`).exec(snapshot)?.[1]
      await call("fill", { ref: ref('textbox "Username"'), value: "ana" })
      await call("type", { ref: ref('textbox "Password"'), text: "correct horse", submit: true })
      await call("wait_for", { text: "Signed in as ana", timeoutMs: 10000 })
      assert.match(await call("read"), /Signed in as ana/)
      const stale = await client.callTool({ name: "click", arguments: { ref: ref('button "Sign in"') } })
      assert.equal(stale.isError, true)
      assert.match(stale.content[0].text, /^StaleRef: /)
    } finally {
      await client.close()
    }
    assert.ok(browserLines().some((line) => line.context?.agent === "sdk-desktop"), "the agent's actions are audited")
  })

  test("the Stop banner: the browser window names the routine driving it, Stop fails it with Stopped until its next run", async () => {
    const running = finished(startRoutine(workspace, "driver-stop", { site: site.url }))
    const before = browserLines().length
    // The routine opened its tab: a waitFor is in flight, the banner shows.
    await until(() => browserLines().length > before, { what: "the routine's first action" })
    const browser = await until(() => windowEndingWith(app.pid, "— Cowork Browser"), { what: "the browser window" })
    // The site app's window came later and covers it (no window manager under Xvfb).
    execFileSync("xdotool", ["windowraise", browser])
    await new Promise((resolve) => setTimeout(resolve, 500))
    screenshotScreen("browser-stop-banner")
    execFileSync("xdotool", ["mousemove", "--window", browser, "--sync", String(STOP_BUTTON.x * SCALE), String(STOP_BUTTON.y * SCALE), "click", "1"])
    const { code, stdout } = await running
    assert.equal(code, 0, stdout)
    const out = JSON.parse(stdout).result
    assert.equal(out.name, "Stopped", JSON.stringify(out))
    assert.match(out.message, /pressed Stop/)
    assert.equal(out.after, "Stopped", "later actions of the same run are stopped too")
    screenshotScreen("browser-stop-after")
    // Its next run drives again.
    const again = await run("tabs")
    assert.equal(again.closed.tabs.length >= 1, true)
  })

  test("the Stop banner in a site app's window stops the routine driving it", async () => {
    const running = finished(startRoutine(workspace, "driver-stop", { app: "orders-site" }))
    const before = browserLines().length
    await until(() => browserLines().length > before, { what: "the routine's first action" })
    const window = await until(() => windowEndingWith(app.pid, "Orders Site") || windowEndingWith(app.pid, "Orders"), { what: "the site app's window" })
    execFileSync("xdotool", ["windowraise", window])
    await new Promise((resolve) => setTimeout(resolve, 800))
    screenshotScreen("browser-stop-site-app-banner")
    // The pill is at the page's bottom right: its Stop 12 px in from the corner, 72×30.
    const geometry = execFileSync("xdotool", ["getwindowgeometry", "--shell", window], { encoding: "utf8" })
    const size = Object.fromEntries(geometry.trim().split("\n").map((line) => line.split("=")))
    execFileSync("xdotool", ["mousemove", "--window", window, "--sync", String(Number(size.WIDTH) - (12 + 6 + 36) * SCALE), String(Number(size.HEIGHT) - (12 + 6 + 15) * SCALE), "click", "1"])
    const { code, stdout } = await running
    assert.equal(code, 0, stdout)
    const out = JSON.parse(stdout).result
    assert.equal(out.name, "Stopped", JSON.stringify(out))
  })

  test("named errors live: a stale ref, a page that navigates away, a navigation waited for before and after its click, timeouts, a closed tab", async () => {
    const out = await run("errors")
    assert.equal(out.stale.name, "StaleRef", JSON.stringify(out.stale))
    assert.equal(out.away.name, "NavigatedAway", JSON.stringify(out.away))
    assert.equal(out.navigation.value?.navigated, true, JSON.stringify(out.navigation))
    assert.equal(out.afterClick.value?.navigated, true, JSON.stringify(out.afterClick))
    assert.equal(out.noneSince.name, "Timeout", JSON.stringify(out.noneSince))
    assert.equal(out.timeout.name, "Timeout", JSON.stringify(out.timeout))
    assert.equal(out.slow.name, "Timeout", JSON.stringify(out.slow))
    assert.equal(out.closed.name, "TabClosed", JSON.stringify(out.closed))
    assert.equal(out.gone.name, "NotFound", JSON.stringify(out.gone))
    assert.equal(out.script.name, "ScriptError", JSON.stringify(out.script))
  })
})
