// The MCP door as a real client sees it: the official TypeScript SDK (@modelcontextprotocol/sdk)
// over Streamable HTTP, the agent's token in requestInit.headers, against a real `cowork` daemon.
// It starts a task, lists the capabilities (the write with its grant line), calls `read`, is
// refused a `run` of the write with the grant line until it is granted, then runs it; a revoked
// token is 401.
//
//   COWORK_BIN=target/debug/cowork node --test tests/mcp/
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const bin = process.env.COWORK_BIN ?? path.resolve(process.env.CARGO_TARGET_DIR ?? "target", "debug/cowork");
const home = fs.mkdtempSync(path.join(os.tmpdir(), "cowork-mcp-home-"));
const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "cowork-mcp-ws-")));

const app = path.join(ws, ".cowork/apps/tasks");
fs.mkdirSync(app, { recursive: true });
fs.writeFileSync(path.join(app, "cowork.json"), JSON.stringify({
  name: "tasks", version: "1.0.0", kind: "capability",
  routines: {
    "tasks-list": { file: "list.ts", readOnly: true, description: "Lists the open tasks" },
    "tasks-add": { file: "add.ts", description: "Adds a task", input: { type: "object", properties: { title: { type: "string" } }, required: ["title"] } },
  },
}));
fs.writeFileSync(path.join(app, "list.ts"), "export default () => ({ tasks: ['write the report'] });\n");
fs.writeFileSync(path.join(app, "add.ts"), "import fs from 'node:fs';\nimport path from 'node:path';\nexport default (args: any, ctx: any) => { fs.writeFileSync(path.join(ctx.workspaceRoot, 'added.txt'), args.title); return { added: args.title }; };\n");
fs.writeFileSync(path.join(app, "SKILL.md"), "---\nname: tasks\ndescription: The team's tasks. Use when asked about work.\n---\nList before you add.\n");

const env = { ...process.env, COWORK_HOME: home };
delete env.COWORK_AGENT;
const run = (...args) => execFileSync(bin, args, { env, encoding: "utf8" });
const cowork = (...args) => run(...args, "--workspace", ws);

const port = await new Promise((resolve) => {
  const server = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  });
});
const daemon = spawn(bin, ["start", "--headless", "--port", String(port)], { env, stdio: "ignore" });
after(() => daemon.kill());
for (let i = 0; ; i++) {
  try {
    await fetch(`http://127.0.0.1:${port}/api/health`);
    break;
  } catch (error) {
    if (i > 200) throw error;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A client connected as the agent holding `token`. */
async function connect(token) {
  const url = new URL(`http://127.0.0.1:${port}/api/mcp?ws=${encodeURIComponent(ws)}`);
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: "cowork-mcp-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

test("the SDK client starts a task, lists, reads, is refused a write with the grant line, runs it once granted; a revoked token is 401", async () => {
  const created = JSON.parse(cowork("agent", "create", "claude", "--json"));
  assert.match(created.token, /^cwa_[0-9a-f]{64}$/);
  assert.equal(created.url, `http://127.0.0.1:${port}/api/mcp?ws=${encodeURIComponent(ws)}`);
  const client = await connect(created.token);
  assert.equal(client.getServerVersion().name, "cowork");
  assert.match(client.getInstructions(), /List before you add\./);

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["start_task", "list_capabilities", "read", "run"]);
  assert.equal(tools.find((t) => t.name === "read").annotations.readOnlyHint, true);
  assert.equal(tools.find((t) => t.name === "run").annotations.readOnlyHint, false);

  const text = (result) => result.content[0].text;
  const { taskId } = JSON.parse(text(await client.callTool({ name: "start_task", arguments: {} })));
  const listing = JSON.parse(text(await client.callTool({ name: "list_capabilities", arguments: {} })));
  const grant = `cowork agent grant tasks/tasks-add allow --agent claude --workspace ${ws}`;
  const add = listing.capabilities[0].routines.find((r) => r.tool === "tasks-add");
  assert.deepEqual([add.state, add.grant, add.call, add.risk], ["not granted", grant, "run", "medium"]);
  assert.deepEqual(add.input.required, ["title"]);
  assert.match(listing.capabilities[0].guide, /List before you add\./);

  const read = await client.callTool({ name: "read", arguments: { capability: "tasks", tool: "tasks-list", taskId } });
  assert.equal(read.isError, false);
  assert.deepEqual(JSON.parse(text(read)), { tasks: ["write the report"] });

  const write = { capability: "tasks", tool: "tasks-add", params: { title: "ship it" }, taskId };
  const refused = await client.callTool({ name: "run", arguments: write });
  assert.equal(refused.isError, true);
  assert.match(text(refused), /tasks-add is not granted to the agent claude/);
  assert.ok(text(refused).includes(grant), text(refused));
  assert.equal(fs.existsSync(path.join(ws, "added.txt")), false, "a call not granted never starts");

  run(...grant.split(" ").slice(1));
  const ran = await client.callTool({ name: "run", arguments: write });
  assert.equal(ran.isError, false, text(ran));
  assert.equal(fs.readFileSync(path.join(ws, "added.txt"), "utf8"), "ship it");

  const runs = JSON.parse(cowork("routine", "runs", "--task", taskId, "--json")).runs;
  assert.deepEqual(runs.map((r) => [r.capability, r.status, r.context.source, r.context.principal]), [
    ["tasks-add", "ok", "mcp", "claude"],
    ["tasks-add", "denied", "mcp", "claude"],
    ["tasks-list", "ok", "mcp", "claude"],
  ]);

  run("agent", "revoke", "claude", "--yes");
  await assert.rejects(client.listTools(), (error) => {
    assert.equal(error.code, 401, String(error));
    return true;
  });
  await client.close();
});
