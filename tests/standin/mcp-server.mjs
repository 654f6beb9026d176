#!/usr/bin/env node
// A tiny MCP server for the stand-in's own tests and for anyone who needs a tool the agent CLIs can
// call: `tools` maps a name to `{ description, inputSchema?, annotations?, call(args) → string |
// object }` (a throw answers an error result); `calls` keeps each tools/call it ran.
//
// Over Streamable HTTP (JSON answers, no SSE), in the test's process:
//   const mcp = await startMcpServer({ token, tools }); … mcp.url, mcp.calls, mcp.seen, await mcp.close()
// Every request must carry `Authorization: Bearer <token>`.
//
// Over stdio, as a program a CLI starts itself (`--mcp-config` type stdio, Codex's `command`):
//   node mcp-server.mjs --tool 'read_note=note {name}: the code is 4217' [--tool …] [--log CALLS.jsonl]
// Each tool answers its text with `{arg}` replaced by that argument (its input schema: those
// arguments, strings); `--log` appends a JSON line `{name, arguments}` per call.
import http from "node:http";
import fs from "node:fs";
import readline from "node:readline";
import { pathToFileURL } from "node:url";

/** Answers one JSON-RPC message of an MCP client: the reply's object, or null for a notification. */
async function handle(message, { name, tools, calls }) {
  if (Array.isArray(message) || message.id === undefined) return null;
  const reply = (result) => ({ jsonrpc: "2.0", id: message.id, result });
  const error = (code, text) => ({ jsonrpc: "2.0", id: message.id, error: { code, message: text } });
  switch (message.method) {
    case "initialize":
      return reply({
        protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name, version: "1.0.0" },
      });
    case "ping":
      return reply({});
    case "tools/list":
      return reply({
        tools: Object.entries(tools).map(([tool, t]) => ({
          name: tool,
          description: t.description ?? tool,
          inputSchema: t.inputSchema ?? { type: "object", properties: {} },
          ...(t.annotations ? { annotations: t.annotations } : {}),
        })),
      });
    case "tools/call": {
      const tool = tools[message.params?.name];
      if (!tool) return error(-32602, `unknown tool ${message.params?.name}`);
      const args = message.params.arguments ?? {};
      calls.push({ name: message.params.name, arguments: args });
      try {
        const out = await tool.call(args);
        return reply({ content: [{ type: "text", text: typeof out === "string" ? out : JSON.stringify(out) }], isError: false });
      } catch (e) {
        return reply({ content: [{ type: "text", text: String(e.message ?? e) }], isError: true });
      }
    }
    default:
      return error(-32601, `method not found: ${message.method}`);
  }
}

export async function startMcpServer({ token, tools, name = "standin-mcp", host = "127.0.0.1" }) {
  const calls = [];
  const seen = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization ?? null, body: raw });
      if (req.headers.authorization !== `Bearer ${token}`) {
        res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" });
        return res.end(JSON.stringify({ error: "invalid_token" }));
      }
      if (req.method === "DELETE") return res.writeHead(200).end();
      if (req.method !== "POST") return res.writeHead(405, { allow: "POST, DELETE" }).end();
      let message;
      try {
        message = JSON.parse(raw);
      } catch {
        return json(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
      }
      const reply = await handle(message, { name, tools, calls });
      if (!reply) return res.writeHead(202).end();
      return json(res, 200, reply, { "mcp-session-id": "standin-session" });
    });
  });
  await new Promise((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${server.address().port}/mcp`,
    calls,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res, status, value, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
}

/** `name=text with {arg}` → a tool answering that text with each `{arg}` replaced. */
function templateTool(spec) {
  const eq = spec.indexOf("=");
  if (eq <= 0) throw new Error(`failed to read --tool ${JSON.stringify(spec)}: it is NAME=TEXT`);
  const text = spec.slice(eq + 1);
  const args = [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))];
  return [
    spec.slice(0, eq),
    {
      inputSchema: { type: "object", properties: Object.fromEntries(args.map((a) => [a, { type: "string" }])), required: args },
      call: (input) => text.replace(/\{(\w+)\}/g, (_, a) => String(input[a] ?? "")),
    },
  ];
}

async function serveStdio(argv) {
  const tools = {};
  let log = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--tool") Object.assign(tools, Object.fromEntries([templateTool(argv[++i] ?? "")]));
    else if (argv[i] === "--log") log = argv[++i];
    else throw new Error(`unknown argument ${JSON.stringify(argv[i])} (usage: mcp-server.mjs --tool NAME=TEXT … [--log FILE])`);
  }
  const calls = {
    push: (call) => log && fs.appendFileSync(log, `${JSON.stringify(call)}\n`),
  };
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } })}\n`);
      continue;
    }
    const reply = await handle(message, { name: "standin-mcp", tools, calls });
    if (reply) process.stdout.write(`${JSON.stringify(reply)}\n`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  serveStdio(process.argv.slice(2)).catch((error) => {
    console.error(`error: ${error.message}`);
    process.exit(2);
  });
}
