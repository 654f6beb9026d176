// The stand-in itself, driven by the real CLIs (tests/standin/node_modules, from package.json):
// Claude Code and Codex answer from a plan, call a tool of a tiny HTTP MCP server and send its real
// result back; a check that fails is reported; AskUserQuestion round-trips through Claude Code's
// stream-json control protocol. No network: everything listens on 127.0.0.1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { start } from "./standin.mjs";
import { answerQuestions, runClaude, runCodex, startClaude, startCodex } from "./clients.mjs";
import { startMcpServer } from "./mcp-server.mjs";

const TOKEN = "mcp-token-9f2c";

/** A server with one tool, `read_note`, answering a secret the plan can only know from the call. */
function notesServer() {
  return startMcpServer({
    token: TOKEN,
    tools: {
      read_note: {
        description: "Reads a note by name",
        inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        call: ({ name }) => `note ${name}: the code is 4217`,
      },
    },
  });
}

/** `withStandin`, with the notes MCP server running beside it: `fn(standin, mcp)`. */
async function withNotes(plan, fn) {
  const mcp = await notesServer();
  try {
    return await withStandin(plan, (standin) => fn(standin, mcp));
  } finally {
    await mcp.close();
  }
}

/** Starts what `fn` needs and closes it whatever happens. */
async function withStandin(plan, fn) {
  const standin = await start({ plan });
  try {
    return await fn(standin);
  } finally {
    await standin.close();
  }
}

test("Claude Code answers a plain prompt with the plan's text", () =>
  withStandin({ turns: [{ expect: { userText: "say hello" }, text: "Hello from the plan, in several words." }] }, async (standin) => {
    const run = await runClaude({ url: standin.url, prompt: "say hello" });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.result?.result, "Hello from the plan, in several words.");
    assert.equal(run.result?.is_error, false);
    standin.assertDone();
    const turn = standin.requests.find((r) => r.kind === "turn");
    assert.equal(turn.path, "/v1/messages?beta=true");
    assert.equal(turn.stream, true);
    assert.equal(turn.headers["x-api-key"], "sk-ant-standin");
  }));

test("Claude Code with no tools at all (--tools \"\") still answers from the plan", () =>
  withStandin({ turns: [{ expect: { userText: "merge these", toolNotOffered: "*" }, text: "The merged text." }] }, async (standin) => {
    const run = await runClaude({ url: standin.url, prompt: "merge these", args: ["--tools", ""] });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.result?.result, "The merged text.");
    standin.assertDone();
  }));

test("Claude Code calls a tool of an HTTP MCP server with its bearer token and sends the real result back", () =>
  withNotes(
    {
      turns: [
        { expect: { toolOffered: "mcp__notes__read_note" }, text: "Reading it.", tool: { name: "mcp__*__read_note", input: { name: "todo" } } },
        { expect: { toolResult: "the code is 4217" }, text: "The code is 4217." },
      ],
    },
    async (standin, mcp) => {
      const run = await runClaude({ url: standin.url, prompt: "what is the code in the todo note?", mcp: { notes: { url: mcp.url, token: TOKEN } } });
      assert.equal(run.code, 0, run.stderr);
      standin.assertDone();
      assert.deepEqual(mcp.calls, [{ name: "read_note", arguments: { name: "todo" } }]);
      assert.ok(mcp.seen.length > 0 && mcp.seen.every((r) => r.authorization === `Bearer ${TOKEN}`));
      assert.equal(run.result?.result, "The code is 4217.");
    },
  ));

test("Codex answers a plain prompt and calls an MCP tool, sending the real result back", () =>
  withNotes(
    {
      turns: [
        { expect: { userText: "what is the code", toolOffered: "mcp__notes__read_note" }, tool: { name: "mcp__notes__read_note", input: { name: "todo" } } },
        { expect: { toolResult: "the code is 4217" }, text: "The code is 4217." },
      ],
    },
    async (standin, mcp) => {
      const run = await runCodex({ url: standin.url, prompt: "what is the code in the todo note?", mcp: { notes: { url: mcp.url, token: TOKEN } } });
      assert.equal(run.code, 0, run.stderr);
      standin.assertDone();
      assert.deepEqual(mcp.calls, [{ name: "read_note", arguments: { name: "todo" } }]);
      assert.ok(mcp.seen.every((r) => r.authorization === `Bearer ${TOKEN}`));
      const items = run.messages.filter((m) => m.type === "item.completed").map((m) => m.item);
      // No "model metadata not found" error item: the stand-in's model is in Codex's catalogue.
      assert.deepEqual(items.filter((i) => i.type === "error"), []);
      const call = items.find((i) => i.type === "mcp_tool_call");
      assert.equal(call?.server, "notes");
      assert.equal(call?.tool, "read_note");
      assert.equal(items.at(-1)?.type, "agent_message");
      assert.equal(items.at(-1)?.text, "The code is 4217.");
      const turn = standin.requests.find((r) => r.kind === "turn");
      assert.equal(turn.path, "/v1/responses");
      assert.equal(turn.headers.authorization, "Bearer sk-standin");
    },
  ));

test("both CLIs start a stdio MCP server themselves and call its tool", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "standin-stdio-"));
  try {
    const log = path.join(dir, "calls.jsonl");
    const server = { command: process.execPath, args: [fileURLToPath(new URL("./mcp-server.mjs", import.meta.url)), "--tool", "echo_word=the word is {word}", "--log", log] };
    const plan = {
      turns: [
        { tool: { name: "mcp__local__echo_word", input: { word: "kumquat" } } },
        { expect: { toolResult: "the word is kumquat" }, text: "Kumquat." },
      ],
    };
    await withStandin(plan, async (standin) => {
      const run = await runClaude({ url: standin.url, prompt: "echo kumquat", mcp: { local: server } });
      assert.equal(run.code, 0, run.stderr);
      standin.assertDone();
    });
    await withStandin(plan, async (standin) => {
      const run = await runCodex({ url: standin.url, prompt: "echo kumquat", mcp: { local: server } });
      assert.equal(run.code, 0, run.stderr);
      standin.assertDone();
    });
    const calls = fs.readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(calls, [
      { name: "echo_word", arguments: { word: "kumquat" } },
      { name: "echo_word", arguments: { word: "kumquat" } },
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a check that fails is reported in failures, by assertDone, and to the CLI", () =>
  withNotes(
    {
      turns: [
        { tool: { name: "mcp__notes__read_note", input: { name: "todo" } } },
        { expect: { toolResult: "the code is 9999" }, text: "unreachable" },
      ],
    },
    async (standin, mcp) => {
      const run = await runClaude({ url: standin.url, prompt: "read the todo note", mcp: { notes: { url: mcp.url, token: TOKEN } } });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(standin.failures.length, 1, JSON.stringify(standin.failures));
      const [failure] = standin.failures;
      assert.equal(failure.turn, 1);
      assert.match(failure.message, /turn 1: expected a tool result matching "the code is 9999", got mcp__notes__read_note: "note todo: the code is 4217"/);
      assert.deepEqual(standin.requests.find((r) => r.seq === failure.seq).failures, [failure.message]);
      assert.throws(() => standin.assertDone(), /the stand-in's plan did not run as written:\n- request #\d+: turn 1: expected a tool result/);
      // The CLI is told too, so its output says why the agent stopped.
      assert.match(run.result?.result ?? "", /^stand-in: turn 1: expected a tool result/);
    },
  ));

test("a question (AskUserQuestion) round-trips through Claude Code's stream-json control protocol", () =>
  withStandin(
    {
      turns: [
        { ask: { question: "Which colour?", options: ["Red", "Blue"] } },
        { expect: { toolResult: '"Which colour?"="Blue"' }, text: "Blue it is." },
      ],
    },
    async (standin) => {
      const session = startClaude({ url: standin.url });
      try {
        const asked = [];
        session.onControl((request) => {
          asked.push(request);
          return answerQuestions(request, { "Which colour?": "Blue" });
        });
        const init = await session.initialized;
        assert.equal(init.response.subtype, "success");
        session.send("pick a colour");
        const result = await session.next((m) => m.type === "result");
        assert.equal(result.result, "Blue it is.");
        assert.equal(asked.length, 1);
        assert.equal(asked[0].tool_name, "AskUserQuestion");
        assert.deepEqual(asked[0].input.questions[0].options.map((o) => o.label), ["Red", "Blue"]);
        standin.assertDone();
      } finally {
        await session.close(30_000).catch(() => session.kill());
      }
    },
  ));

test("Codex's app-server streams a turn and round-trips a question (request_user_input) to the host", () =>
  withStandin(
    {
      turns: [
        { text: "Let me ask you first.", ask: { question: "Which colour?", options: ["Red", "Blue"] } },
        { expect: { toolResult: '"answers":["Blue"]' }, text: "Blue it is." },
      ],
    },
    async (standin) => {
      // Codex offers request_user_input in its default mode only with this feature on.
      const codex = startCodex({ url: standin.url, args: ["-c", "features.default_mode_request_user_input=true"] });
      try {
        const asked = [];
        codex.onRequest((m) => {
          asked.push(m);
          return { answers: { [m.params.questions[0].id]: { answers: ["Blue"] } } };
        });
        await codex.initialized;
        const thread = await codex.startThread();
        const done = await codex.turn(thread, "pick a colour");
        assert.equal(done.turn.status, "completed");
        assert.deepEqual(asked.map((m) => m.method), ["item/tool/requestUserInput"]);
        assert.deepEqual(asked[0].params.questions[0].options.map((o) => o.label), ["Red", "Blue"]);
        const deltas = codex.messages.filter((m) => m.method === "item/agentMessage/delta").map((m) => m.params.delta);
        assert.equal(deltas.join(""), "Let me ask you first.Blue it is.");
        standin.assertDone();
      } finally {
        await codex.close(30_000).catch(() => codex.kill());
      }
    },
  ));

test("a permission prompt denied over the control protocol reaches the plan as an error result", () =>
  withNotes(
    {
      turns: [
        { tool: { name: "mcp__notes__read_note", input: { name: "todo" } } },
        { expect: { toolResultError: true, toolResult: "not today" }, text: "Denied." },
      ],
    },
    async (standin, mcp) => {
      // Nothing pre-approved: Claude Code asks the host before the MCP tool runs.
      const session = startClaude({ url: standin.url, mcp: { notes: { url: mcp.url, token: TOKEN } }, allowedTools: [] });
      try {
        const asked = [];
        session.onControl((request) => {
          asked.push(request.tool_name);
          return { behavior: "deny", message: "not today" };
        });
        await session.initialized;
        session.send("read the todo note");
        assert.equal((await session.next((m) => m.type === "result")).result, "Denied.");
        assert.deepEqual(asked, ["mcp__notes__read_note"]);
        assert.deepEqual(mcp.calls, []);
        standin.assertDone();
      } finally {
        await session.close(30_000).catch(() => session.kill());
      }
    },
  ));

test("a turn that hangs is stopped by the host's interrupt, and the session goes on", () =>
  withStandin({ turns: [{ text: "Working on it", hang: true }, "Second answer."] }, async (standin) => {
    const session = startClaude({ url: standin.url });
    try {
      await session.initialized;
      session.send("a long task");
      await session.next((m) => m.type === "assistant");
      const interrupted = await session.request("interrupt");
      assert.equal(interrupted.response.subtype, "success");
      const first = await session.next((m) => m.type === "result");
      assert.equal(first.is_error, true);
      assert.equal(first.terminal_reason, "aborted_streaming");
      session.send("again");
      assert.equal((await session.next((m) => m.type === "result")).result, "Second answer.");
      standin.assertDone();
    } finally {
      await session.close(30_000).catch(() => session.kill());
    }
  }));

test("without a CLI: non-streaming answers, side routes, unknown routes, a plan with no turn left", () =>
  withStandin({ turns: ["One."] }, async (standin) => {
    const post = (path, body) => fetch(standin.url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const tools = [{ name: "Read", input_schema: { type: "object" } }];
    const whole = await (await post("/v1/messages", { model: "m", stream: false, tools, messages: [{ role: "user", content: "hi" }] })).json();
    assert.deepEqual(whole.content, [{ type: "text", text: "One." }]);
    assert.equal(whole.stop_reason, "end_turn");
    // A request offering no tools and asking for a short answer is one of Claude Code's side
    // requests (a title…): it takes no turn.
    const side = await (await post("/v1/messages", { model: "m", max_tokens: 512, messages: [{ role: "user", content: "title?" }] })).json();
    assert.equal(side.content[0].text, "ok");
    assert.deepEqual(await (await post("/v1/messages/count_tokens", { messages: [] })).json(), { input_tokens: 4 });
    const unknown = await fetch(`${standin.url}/v1/files`);
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.type, "not_found_error");
    const models = await (await fetch(`${standin.url}/v1/models`)).json();
    assert.ok(models.data.length > 0);
    const extra = await (await post("/v1/messages", { model: "m", tools, messages: [{ role: "user", content: "more" }] })).json();
    assert.match(extra.content[0].text, /the plan has no turn left/);
    assert.throws(() => standin.assertDone(), /the plan has no turn left for request #\d+ \(1 planned\)/);
    const listed = await (await fetch(`${standin.url}/_standin/requests`)).json();
    assert.deepEqual(listed.requests.map((r) => r.kind), ["turn", "side", "count_tokens", "unknown", "models", "turn"]);
  }));

test("as a program it prints its URL first, then a line per request", async () => {
  const child = spawn(process.execPath, [fileURLToPath(new URL("./standin.mjs", import.meta.url)), "-"], { stdio: ["pipe", "pipe", "inherit"] });
  child.stdin.end(JSON.stringify({ turns: [{ text: "hi" }] }));
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  try {
    const url = (await lines.next()).value;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const body = { model: "m", stream: true, tools: [{ name: "Read" }], messages: [{ role: "user", content: "x" }] };
    const sse = await (await fetch(`${url}/v1/messages`, { method: "POST", body: JSON.stringify(body) })).text();
    assert.deepEqual([...sse.matchAll(/^event: (\S+)/gm)].map((m) => m[1]), [
      "message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop",
    ]);
    const line = JSON.parse((await lines.next()).value);
    assert.equal(line.kind, "turn");
    assert.deepEqual(line.answer, [{ text: "hi" }]);
  } finally {
    child.kill("SIGTERM");
  }
  const [code] = await new Promise((resolve) => child.on("close", (...a) => resolve(a)));
  assert.equal(code, 0);
});

test("bin/claude and bin/codex on PATH point a program's own `claude` and `codex` at the stand-in", () =>
  withStandin({ turns: ["From Claude.", "From Codex."] }, async (standin) => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "standin-shim-"));
    try {
      const env = { ...process.env, PATH: `${fileURLToPath(new URL("./bin", import.meta.url))}:${process.env.PATH}`, STANDIN_URL: standin.url, STANDIN_HOME: home };
      const run = (cmd, args) =>
        new Promise((resolve) => {
          // As a program under test would: by name, from PATH, in a folder of its own.
          const child = spawn(cmd, args, { env, cwd: home, stdio: ["ignore", "pipe", "pipe"] });
          let out = "";
          let err = "";
          child.stdout.on("data", (d) => (out += d));
          child.stderr.on("data", (d) => (err += d));
          child.on("close", (code) => resolve({ code, out, err }));
        });
      const claude = await run("claude", ["-p", "--output-format", "json", "hello"]);
      assert.equal(claude.code, 0, claude.err);
      assert.equal(JSON.parse(claude.out).result, "From Claude.");
      const codex = await run("codex", ["exec", "--json", "--skip-git-repo-check", "hello"]);
      assert.equal(codex.code, 0, codex.err);
      assert.match(codex.out, /"type":"agent_message","text":"From Codex\."/);
      standin.assertDone();
      assert.ok(fs.existsSync(path.join(home, ".claude")) && fs.existsSync(path.join(home, ".codex/config.toml")));
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  }));

test("as a program with --quiet it prints its URL only", async () => {
  const child = spawn(process.execPath, [fileURLToPath(new URL("./standin.mjs", import.meta.url)), "-", "--quiet"], { stdio: ["pipe", "pipe", "inherit"] });
  child.stdin.end(JSON.stringify({ turns: ["hi"] }));
  let out = "";
  const firstLine = new Promise((resolve) => child.stdout.on("data", (d) => (out += d).includes("\n") && resolve()));
  await firstLine;
  const url = out.trim();
  const body = { model: "m", stream: false, tools: [{ name: "Read" }], messages: [{ role: "user", content: "x" }] };
  assert.equal((await (await fetch(`${url}/v1/messages`, { method: "POST", body: JSON.stringify(body) })).json()).content[0].text, "hi");
  child.kill("SIGTERM");
  await new Promise((resolve) => child.on("close", resolve));
  assert.match(out, /^http:\/\/127\.0\.0\.1:\d+\n$/);
});
