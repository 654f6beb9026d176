// What the door's client tests share: a workspace holding the `tasks` capability (a read,
// `tasks-list`, and a write, `tasks-add`, which writes its title to added.txt in the workspace),
// and a real `cowork start --headless` of this build ($COWORK_BIN) with its own COWORK_HOME,
// stopped and both folders removed when the test file ends.
import { after } from "node:test";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const bin = process.env.COWORK_BIN ?? path.resolve(process.env.CARGO_TARGET_DIR ?? "target", "debug/cowork");

/** Writes the `tasks` capability into the workspace `ws`. */
export function tasksApp(ws) {
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
  return app;
}

/** A free port on loopback. */
export function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * A workspace with the `tasks` capability and a daemon serving it. Resolves `{ home, ws, env,
 * port, url, cowork }`: `url` the door's address for `ws`, `cowork(...args)` runs the CLI against
 * that daemon and workspace and returns its output.
 */
export async function doorFixture(name) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `cowork-${name}-home-`));
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `cowork-${name}-ws-`)));
  tasksApp(ws);
  const env = { ...process.env, COWORK_HOME: home };
  delete env.COWORK_AGENT;
  const port = await freePort();
  const daemon = spawn(bin, ["start", "--headless", "--port", String(port)], { env, stdio: "ignore" });
  after(() => {
    daemon.kill();
    for (const dir of [home, ws]) fs.rmSync(dir, { recursive: true, force: true });
  });
  for (let i = 0; ; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/api/health`);
      break;
    } catch (error) {
      if (i > 400) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const url = `http://127.0.0.1:${port}/api/mcp?ws=${encodeURIComponent(ws)}`;
  const cowork = (...args) => execFileSync(bin, [...args, "--workspace", ws], { env, encoding: "utf8" });
  return { home, ws, env, port, url, cowork };
}
