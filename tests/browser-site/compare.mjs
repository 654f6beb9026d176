// The five tasks of BENCHMARKS.md's browser table, run through an MCP browser server with the
// TypeScript SDK's client: log in, fill and submit a form, find a row in a long list, read an
// article, act inside an iframe — on the test site (serve.mjs). For each task: success, the tool
// calls it took, their latency, and the snapshot's size in tokens (characters / 4, the same
// estimate for both servers) of the same page.
//
//   node tests/browser-site/compare.mjs playwright <dir with @playwright/mcp + @modelcontextprotocol/sdk>
//   node tests/browser-site/compare.mjs cowork <dir with @modelcontextprotocol/sdk> [cowork binary]
//   tests/desktop/session node tests/browser-site/with-desktop.mjs node tests/browser-site/compare.mjs cowork …
//     (the last: the desktop app started under the test session's display on a throwaway root)
//
// Playwright MCP runs on Debian's Chromium (/usr/bin/chromium, headless; it never downloads a
// browser); `cowork mcp-browser` needs the desktop app running on this Cowork root (it drives the
// app's own browser). One JSON line per task, then a summary line.

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { serve } from "./serve.mjs";

const [kind, modules, coworkBin = "cowork"] = process.argv.slice(2);
if (!["playwright", "cowork"].includes(kind) || !modules) {
  console.error("usage: compare.mjs playwright|cowork <node_modules parent> [cowork binary]");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(modules), "package.json"));
const { Client } = await import(require.resolve("@modelcontextprotocol/sdk/client/index.js"));
const { StdioClientTransport } = await import(require.resolve("@modelcontextprotocol/sdk/client/stdio.js"));

const CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"];

let opened = 0;
/** What each server's tools are called, and how their answers read. */
const adapters = {
  playwright: {
    transport: () => new StdioClientTransport({
      command: "node",
      args: [path.join(path.resolve(modules), "node_modules/@playwright/mcp/cli.js"), "--headless", "--browser", "chromium", "--executable-path", "/usr/bin/chromium", "--isolated", "--no-sandbox"],
      env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1", PLAYWRIGHT_MCP_CHROMIUM_ARGS: CHROMIUM_FLAGS.join(" ") },
    }),
    goto: (url) => ["browser_navigate", { url }],
    snapshot: () => ["browser_snapshot", {}],
    click: (ref, what) => ["browser_click", { element: what, target: ref }],
    fill: (ref, value, what) => ["browser_type", { element: what, target: ref, text: value }],
    typeKeys: (ref, value, what) => ["browser_type", { element: what, target: ref, text: value, slowly: true }],
    select: (ref, value, what) => ["browser_select_option", { element: what, target: ref, values: [value] }],
    check: (ref, what) => ["browser_click", { element: what, target: ref }],
    waitText: (text) => ["browser_wait_for", { text }],
    // Playwright MCP has no reader: its snapshot is how a model reads a page.
    read: () => ["browser_snapshot", {}],
  },
  cowork: {
    transport: () => new StdioClientTransport({ command: coworkBin, args: ["mcp-browser", "--agent", "bench"], env: process.env }),
    // The desktop app starts with no browser tab: the first page is opened (one call, as
    // Playwright's first navigate is), the next ones navigated to in that tab.
    goto: (url) => (opened++ ? ["navigate", { url }] : ["open", { url }]),
    snapshot: () => ["snapshot", {}],
    click: (ref) => ["click", { ref }],
    fill: (ref, value) => ["fill", { ref, value }],
    typeKeys: (ref, value) => ["type", { ref, text: value }],
    select: (ref, value) => ["select", { ref, values: [value] }],
    check: (ref) => ["check", { ref, checked: true }],
    waitText: (text) => ["wait_for", { text }],
    read: () => ["read", {}],
  },
};

const adapter = adapters[kind];
const site = await serve();
if (kind === "cowork") {
  // Approved ahead, as a setup script on a machine nobody sits at does: no consent dialog waits.
  execFileSync(coworkBin, ["consent", "allow", site.url, "--browser", "--agent", "bench"], { stdio: ["ignore", "ignore", "inherit"] });
}
const client = new Client({ name: "browser-bench", version: "1" });
await client.connect(adapter.transport());

let calls = [];
async function call([name, args]) {
  const start = performance.now();
  const result = await client.callTool({ name, arguments: args });
  const ms = performance.now() - start;
  const text = (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  calls.push({ name, ms });
  if (result.isError) throw new Error(`${name}: ${text}`);
  return text;
}

/** The ref of the first snapshot line with `role` and `"name"` (a substring of the name). */
function ref(snapshot, role, name) {
  // Playwright MCP writes `[ref=e12]` (`[ref=f5e12]` in a frame), Cowork's engine `[e12 focused]`.
  const refIn = /\[(?:ref=)?((?:f\d+)?e\d+)[\] ]/;
  const line = snapshot.split("\n").find((l) => l.includes(`${role} "`) && l.includes(name) && refIn.test(l));
  if (!line) throw new Error(`no ${role} "${name}" in the snapshot:\n${snapshot.slice(0, 2000)}`);
  return line.match(refIn)[1];
}

const tokens = (text) => Math.ceil(text.length / 4);
/** With COMPARE_DUMP=<dir>: the measured snapshots as `<server>-<page>.txt`, to compare by eye. */
function dump(page, text) {
  if (process.env.COMPARE_DUMP) writeFileSync(path.join(process.env.COMPARE_DUMP, `${kind}-${page}.txt`), text);
}

const tasks = {
  async login() {
    await call(adapter.goto(site.url + "login"));
    const snap = await call(adapter.snapshot());
    await call(adapter.fill(ref(snap, "textbox", "Username"), "ana", "Username"));
    await call(adapter.fill(ref(snap, "textbox", "Password"), "correct horse", "Password"));
    await call(adapter.click(ref(snap, "button", "Sign in"), "Sign in"));
    return (await call(adapter.waitText("Signed in as ana"))) !== undefined;
  },
  async form() {
    await call(adapter.goto(site.url + "form"));
    const snap = await call(adapter.snapshot());
    await call(adapter.fill(ref(snap, "textbox", "Full name"), "Ana Lima", "Full name"));
    await call(adapter.fill(ref(snap, "textbox", "Email"), "ana@example.com", "Email"));
    await call(adapter.select(ref(snap, "combobox", "Size"), "Large", "Size"));
    await call(adapter.check(ref(snap, "checkbox", "Gift wrap"), "Gift wrap"));
    await call(adapter.click(ref(snap, "button", "Place order"), "Place order"));
    const done = await call(adapter.waitText("Order placed"));
    return done !== undefined;
  },
  async list(sizes) {
    await call(adapter.goto(site.url + "list"));
    await call(adapter.waitText("500 orders"));
    const full = await call(adapter.snapshot());
    sizes.list = tokens(full);
    dump("list", full);
    await call(adapter.typeKeys(ref(full, "textbox", "Filter"), "zulu-", "Filter"));
    await call(adapter.waitText("orders"));
    const filtered = await call(adapter.snapshot());
    await call(adapter.click(ref(filtered, "button", "Open zulu-"), "the first zulu order"));
    await call(adapter.waitText("Opened order"));
    return true;
  },
  async article(sizes) {
    await call(adapter.goto(site.url + "article"));
    const text = await call(adapter.read());
    sizes.article = tokens(text);
    dump("article", text);
    return text.includes("tangerine");
  },
  async iframe() {
    await call(adapter.goto(site.url + "frame"));
    const snap = await call(adapter.snapshot());
    await call(adapter.fill(ref(snap, "textbox", "Code"), "SPRING", "Code"));
    await call(adapter.click(ref(snap, "button", "Apply code"), "Apply code"));
    // A wait for text looks at the top document only (Playwright's does): read the frame's
    // answer from a snapshot, which includes same-origin frames.
    return (await call(adapter.snapshot())).includes("Clicked inside with SPRING");
  },
};

const sizes = {};
const rows = [];
for (const [name, task] of Object.entries(tasks)) {
  calls = [];
  let ok = false;
  let error;
  try {
    ok = await task(sizes);
  } catch (e) {
    error = String(e.message ?? e).slice(0, 300);
  }
  const total = calls.reduce((s, c) => s + c.ms, 0);
  const row = { server: kind, task: name, ok, actions: calls.length, meanMs: +(total / Math.max(calls.length, 1)).toFixed(1), totalMs: +total.toFixed(0), error };
  rows.push(row);
  console.log(JSON.stringify(row));
}
console.log(JSON.stringify({ server: kind, succeeded: rows.filter((r) => r.ok).length, of: rows.length, snapshotTokens: sizes }));
await client.close();
await site.close();
