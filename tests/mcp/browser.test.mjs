// `cowork mcp-browser` as real MCP clients meet it: the official TypeScript SDK over stdio, and
// the real Claude Code (its model the scripted stand-in, tests/standin/) configured with
// `{"command": "cowork", "args": ["mcp-browser"]}`. The daemon is real; the desktop app is a
// stand-in that holds the desktop channel and answers as the shell's engine does, so what is
// pinned is the MCP side: negotiation, one tool per action, refs as the vocabulary, named errors
// as tool errors, consent asked once, the audit line naming the agent.
//
//   COWORK_BIN=target/debug/cowork node --test tests/mcp/browser.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { start } from "../standin/standin.mjs";
import { runClaude } from "../standin/clients.mjs";
import { bin, doorFixture } from "./harness.mjs";

const { home, ws, env, port } = await doorFixture("browser");
const token = fs.readFileSync(path.join(home, "daemon.token"), "utf8");
const PAGE = "http://127.0.0.1:9/login";
const tab = { index: 0, url: PAGE, title: "Sign in", active: true };

/**
 * The stand-in desktop app: attaches to `/api/desktop/requests`, allows every consent question,
 * and answers actions as the engine would on a sign-in page (`e99` is stale).
 */
async function standInShell() {
  const seen = [];
  const response = await fetch(`http://127.0.0.1:${port}/api/desktop/requests`, {
    headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
  });
  assert.equal(response.status, 200);
  const answer = (body) => fetch(`http://127.0.0.1:${port}/api/desktop/browser/answer`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  // As the engine does: a page on a site the request's `sites` lack is not acted on.
  const act = (request) => {
    if (!["open", "navigate"].includes(request.action) && !request.sites.includes("127.0.0.1:9")) {
      return { outcome: "consentNeeded", site: "127.0.0.1:9", url: PAGE };
    }
    if (request.ref === "e99") {
      return { outcome: "failed", error: { name: "StaleRef", message: "failed to click e99: the node is gone", hint: "take a new snapshot" } };
    }
    if (request.action === "snapshot") {
      return { outcome: "done", result: { kind: "snapshot", tab, text: '- textbox "Username" [ref=e3]\n- button "Sign in" [ref=e5]' } };
    }
    return { outcome: "done", result: { kind: "page", tab, navigated: request.action === "click" } };
  };
  (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (!line.startsWith("data:")) continue;
        const request = JSON.parse(line.slice(5));
        seen.push(request);
        if (request.type === "browserConsent") await answer({ id: request.id, outcome: "consent", allowed: true });
        if (request.type === "browser") await answer({ id: request.id, ...act(request) });
      }
    }
  })().catch(() => {});
  return { seen };
}

// Attached once the SDK test has seen the server answer without it.
let shell;

function browserAudit() {
  const dir = fs.readdirSync(path.join(home, "workspaces")).map((d) => path.join(home, "workspaces", d, "audit"));
  return dir.flatMap((d) => (fs.existsSync(d) ? fs.readdirSync(d).map((f) => path.join(d, f)) : []))
    .flatMap((f) => fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)))
    .filter((l) => l.capability.startsWith("cowork.browser."));
}

test("the TypeScript SDK lists one tool per action and drives the page by its refs", async () => {
  const transport = new StdioClientTransport({ command: bin, args: ["mcp-browser", "--workspace", ws], env });
  const client = new Client({ name: "sdk-test", version: "1.0.0" });
  await client.connect(transport);
  // Before any desktop app: a tool error naming it and how to start it; the server stays up.
  const early = await client.callTool({ name: "snapshot", arguments: {} });
  assert.equal(early.isError, true);
  assert.match(early.content[0].text, /^Unsupported: .*desktop app is not running[\s\S]*cowork open/);

  shell = await standInShell();
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["open", "navigate", "snapshot", "find", "click", "fill", "type", "press", "select", "check", "wait_for", "read", "screenshot", "tabs", "close", "evaluate"]);
  assert.equal(tools.find((t) => t.name === "snapshot").annotations.readOnlyHint, true);

  const snapshot = await client.callTool({ name: "snapshot", arguments: {} });
  assert.equal(snapshot.content[0].text, `tab 0: ${PAGE} — Sign in\n- textbox "Username" [ref=e3]\n- button "Sign in" [ref=e5]`);
  const filled = await client.callTool({ name: "fill", arguments: { ref: "e3", value: "typed-secret-ana" } });
  assert.equal(filled.isError, false);
  const clicked = await client.callTool({ name: "click", arguments: { ref: "e5" } });
  assert.match(clicked.content[0].text, /The page navigated: take a new snapshot/);
  const stale = await client.callTool({ name: "click", arguments: { ref: "e99" } });
  assert.equal(stale.isError, true);
  assert.equal(stale.content[0].text, "StaleRef: failed to click e99: the node is gone\nHint: take a new snapshot");

  const questions = shell.seen.filter((r) => r.type === "browserConsent");
  assert.deepEqual(questions.map((q) => [q.driver.name, q.site ?? null]), [["sdk-test", null], ["sdk-test", "127.0.0.1:9"]]);
  const audit = browserAudit();
  assert.deepEqual(audit.map((l) => l.capability), ["cowork.browser.snapshot", "cowork.browser.snapshot", "cowork.browser.fill", "cowork.browser.click", "cowork.browser.click"]);
  assert.equal(audit[2].context.agent, "sdk-test");
  assert.ok(!JSON.stringify(audit).includes("typed-secret-ana"), "no typed text in the audit");
  await client.close();
});

test("Claude Code snapshots, then fills the ref it read, through cowork mcp-browser", async () => {
  const standin = await start({
    plan: {
      turns: [
        { expect: { toolOffered: "mcp__browser__snapshot" }, tool: { name: "mcp__browser__snapshot", input: {} } },
        { expect: { toolResult: '[ref=e3]' }, tool: { name: "mcp__browser__fill", input: { ref: "e3", value: "ana" } } },
        { expect: { toolResult: "fill: done" }, text: "Filled in the username." },
      ],
    },
  });
  const run = await runClaude({
    url: standin.url,
    prompt: "type ana into the username field of the page in my browser",
    mcp: { browser: { command: bin, args: ["mcp-browser", "--workspace", ws], env: { COWORK_HOME: home } } },
  });
  standin.assertDone();
  assert.equal(run.result.result, "Filled in the username.");
  const fills = shell.seen.filter((r) => r.type === "browser" && r.action === "fill" && r.driver.name !== "sdk-test");
  assert.deepEqual(fills.map((r) => [r.ref, r.value, r.driver.name]), [["e3", "ana", "claude-code"]]);
  await standin.close();
});
