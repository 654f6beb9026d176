// `screenshot` in the real desktop app (src-tauri/src/browser/screenshot.rs): through `cowork
// mcp-browser` (JSON-RPC lines on its stdin, as any MCP client speaks), an agent approved ahead
// for the test site (`cowork consent allow <site> --browser --agent`, so no dialog waits) opens
// the site's sign-in page and takes a screenshot of it — a PNG the size of the page's viewport in
// device pixels — then of one button, which is a smaller PNG, the button's box.
import assert from "node:assert/strict"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { after, before, describe, test } from "node:test"
import { serve } from "../browser-site/serve.mjs"
import { COWORK_BIN, closeDesktop, cowork, openDesktop, skip } from "./desktop.mjs"
import { makeWorkspace, removeWorkspace } from "./workspace.mjs"

/** `cowork mcp-browser` on pipes: `call(tool, args)` answers the tool's result. */
function mcpBrowser(workspace) {
  const child = spawn(COWORK_BIN, ["mcp-browser", "--agent", "shots"], { cwd: workspace, env: process.env, stdio: ["pipe", "pipe", "inherit"] })
  const lines = createInterface({ input: child.stdout })
  const waiting = new Map()
  lines.on("line", (line) => {
    const message = JSON.parse(line)
    waiting.get(message.id)?.(message)
    waiting.delete(message.id)
  })
  let next = 0
  const request = (method, params) =>
    new Promise((resolve) => {
      next += 1
      waiting.set(next, resolve)
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: next, method, params })}\n`)
    })
  return {
    request,
    call: async (name, args = {}) => (await request("tools/call", { name, arguments: args })).result,
    close: () => new Promise((resolve) => (child.stdin.end(), child.on("exit", resolve))),
  }
}

/** The width and height a PNG's header says, after checking it is one. */
function pngSize(base64) {
  const png = Buffer.from(base64, "base64")
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "a PNG signature")
  assert.equal(png.subarray(12, 16).toString("latin1"), "IHDR")
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), bytes: png.length }
}

describe("screenshot in the desktop app's browser", { skip }, () => {
  let workspace, app, site, mcp
  before(async () => {
    workspace = makeWorkspace()
    app = await openDesktop(workspace)
    site = await serve()
    const allowed = cowork(["consent", "allow", site.url, "--browser", "--agent", "shots", "--workspace", workspace])
    assert.equal(allowed.status, 0, allowed.stderr)
    mcp = mcpBrowser(workspace)
    await mcp.request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "shots", version: "1" } })
  })
  after(async () => {
    await mcp?.close()
    await site?.close()
    if (app) await closeDesktop(app)
    if (workspace) removeWorkspace(workspace)
  })

  test("of the page: a PNG of the viewport; of a ref: a smaller PNG of its box", async () => {
    const opened = await mcp.call("open", { url: `${site.url}login` })
    assert.equal(opened.isError, false, JSON.stringify(opened))
    const viewport = await mcp.call("evaluate", { js: "[innerWidth, innerHeight, devicePixelRatio]" })
    assert.equal(viewport.isError, false, JSON.stringify(viewport))
    const [width, height, ratio] = JSON.parse(viewport.content[0].text.split("\n").pop())
    // A HiDPI run (the session at GDK_SCALE=2) must really draw at that scale.
    assert.equal(ratio, Number(process.env.GDK_SCALE) || 1, "the page's devicePixelRatio is the session's GDK_SCALE")

    const page = await mcp.call("screenshot", {})
    assert.equal(page.isError, false, JSON.stringify(page).slice(0, 500))
    const [image, caption] = page.content
    assert.equal(image.type, "image")
    assert.equal(image.mimeType, "image/png")
    const shot = pngSize(image.data)
    assert.deepEqual({ width: shot.width, height: shot.height }, { width: Math.round(width * ratio), height: Math.round(height * ratio) }, "the viewport, in device pixels")
    assert.match(caption.text, new RegExp(`\\(${shot.width}×${shot.height}\\)$`))

    const snapshot = (await mcp.call("snapshot", {})).content[0].text
    const button = /button "Sign in" \[(e\d+)/.exec(snapshot)?.[1]
    assert.ok(button, snapshot)
    const node = await mcp.call("screenshot", { ref: button })
    assert.equal(node.isError, false, JSON.stringify(node).slice(0, 500))
    const box = pngSize(node.content[0].data)
    const rect = JSON.parse((await mcp.call("evaluate", { js: `const r = document.querySelector("button[type=submit]").getBoundingClientRect(); return [r.width, r.height]` })).content[0].text.split("\n").pop())
    assert.ok(box.width < shot.width && box.height < shot.height && box.bytes < shot.bytes, `${JSON.stringify(box)} within ${JSON.stringify(shot)}`)
    // The box, rounded outward to whole device pixels.
    assert.ok(Math.abs(box.width - rect[0] * ratio) <= 2 && Math.abs(box.height - rect[1] * ratio) <= 2, `${JSON.stringify(box)} vs ${rect}`)
  })
})
