// A tiny MCP server over Streamable HTTP (JSON answers, no SSE) for the stand-in's own tests and
// for anyone who needs a tool the agent CLIs can call: `tools` maps a name to
// `{ description, inputSchema?, call(args) → string | object }`. Every request must carry
// `Authorization: Bearer <token>`; `calls` keeps each tools/call it ran.
import http from "node:http";

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
      if (Array.isArray(message) || message.id === undefined) return res.writeHead(202).end();
      const reply = (result) => json(res, 200, { jsonrpc: "2.0", id: message.id, result }, { "mcp-session-id": "standin-session" });
      const error = (code, text) => json(res, 200, { jsonrpc: "2.0", id: message.id, error: { code, message: text } });
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
    });
  });
  await new Promise((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${server.address().port}/mcp`,
    calls,
    seen,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function json(res, status, value, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
}
