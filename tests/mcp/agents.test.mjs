// The door as the real Claude Code and Codex CLIs meet it, connected exactly as `cowork agent
// create` tells a new user to (its human output, not --json): Claude Code by running the printed
// `claude mcp add …` line in the workspace, Codex by the printed `[mcp_servers.cowork]` block in
// its config.toml and the printed `export COWORK_AGENT_TOKEN=…`. The model is the scripted
// stand-in (tests/standin/), so everything but the model is real: the CLI's MCP client, the
// daemon, the routines. Each agent starts a task, lists the capabilities, reads (the result
// reaches the model), is refused the ungranted write with the grant line in the tool result; the
// owner runs that line; the write then runs. The audit names source, principal, agent and task.
//
//   COWORK_BIN=target/debug/cowork node --test tests/mcp/agents.test.mjs
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { start } from "../standin/standin.mjs";
import { codexBin, codexEnv, tempHome } from "../standin/clients.mjs";
import { bin, doorFixture } from "./harness.mjs";

const standinBin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../standin/bin");
// An app of a read and a write, as a new user's capability would be, and the daemon.
const { ws, env, cowork } = await doorFixture("agents");

/** `cowork agent create NAME` as a person reads it: the indented lines under each heading. */
function agentCreate(name) {
  const out = cowork("agent", "create", name);
  const lines = out.split("\n");
  const under = (heading) => {
    const from = lines.findIndex((l) => l.startsWith(heading));
    assert.notEqual(from, -1, `no "${heading}" in:\n${out}`);
    const block = [];
    for (const line of lines.slice(from + 1)) {
      if (!line.startsWith("  ")) break;
      block.push(line.slice(2));
    }
    return block;
  };
  return { out, claude: under("Claude Code"), codex: under("Codex") };
}

/** Runs a process to its end; resolves `{ code, stdout, stderr }`. */
function run(command, args, options, timeoutMs = 120_000) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} ran over ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const grantLine = (login) => `cowork agent grant tasks/tasks-add allow --agent ${login} --workspace ${ws}`;

/**
 * The turns of the first session: start a task, list, read, try the write, each call with the
 * task's id as a model does (the tools ask for it; Claude Code speaks the stateless 2026-07-28
 * revision, where no session remembers the task). `task.id` is filled in by `followTask` once
 * start_task's answer has reached the "model", before the turn that reads.
 */
function firstSession(login, task, { errorFlag }) {
  const refused = { toolResult: [grantLine(login), `tasks-add is not granted to the agent ${login}`] };
  if (errorFlag) refused.toolResultError = true;
  return [
    { expect: { toolOffered: ["mcp__cowork__start_task", "mcp__cowork__list_capabilities", "mcp__cowork__read", "mcp__cowork__run"] }, tool: { name: "mcp__cowork__start_task", input: {} } },
    { expect: { toolResult: '"taskId"' }, tool: { name: "mcp__cowork__list_capabilities", input: {} } },
    { expect: { toolResult: ["tasks-list", "not granted", grantLine(login)] }, tool: { name: "mcp__cowork__read", input: task.read } },
    { expect: { toolResult: "write the report" }, tool: { name: "mcp__cowork__run", input: task.write } },
    { expect: refused, text: "Adding needs a grant: ask the owner to run the line." },
  ];
}

/** The calls' inputs, and the stand-in's hook that gives them the taskId once the model has seen it. */
function followTask() {
  const task = {
    id: null,
    read: { capability: "tasks", tool: "tasks-list" },
    write: { capability: "tasks", tool: "tasks-add", params: { title: "ship it" } },
  };
  task.onRequest = (record) => {
    const seen = JSON.stringify(record.body ?? "").match(/taskId\\*"\s*:\s*\\*"(t-[0-9a-f]{16})/);
    if (task.id || !seen) return;
    task.id = seen[1];
    task.read.taskId = task.write.taskId = task.id;
  };
  return task;
}

/** The turns of the second session, after the grant: the write, for the first session's task. */
function secondSession(taskId) {
  return [
    { tool: { name: "mcp__cowork__run", input: { capability: "tasks", tool: "tasks-add", params: { title: "ship it" }, taskId } } },
    { expect: { toolResult: '"added"' }, text: "Added." },
  ];
}

/** The audit of the task: `[routine, status, source, principal, agent, taskId]`, newest first. */
function audit(taskId) {
  const { runs } = JSON.parse(cowork("routine", "runs", "--task", taskId, "--json"));
  return runs.map((r) => [r.capability, r.status, r.context.source, r.context.principal, r.context.agent, r.context.taskId]);
}

async function withStandin(turns, fn, onRequest) {
  const standin = await start({ plan: { turns }, onRequest });
  try {
    const result = await fn(standin);
    standin.assertDone();
    return result;
  } finally {
    await standin.close();
  }
}

/**
 * What each agent goes through, `session(url, prompt)` being one run of its CLI against the
 * stand-in at `url`: list, read, a refused write with the grant line (Claude Code flags it as an
 * error; Codex sends no such flag), the owner's grant, the write; then the audit of the task.
 */
async function throughTheDoor({ login, agent, session, errorFlag }) {
  fs.rmSync(path.join(ws, "added.txt"), { force: true });
  const task = followTask();
  await withStandin(firstSession(login, task, { errorFlag }), async (standin) => {
    const first = await session(standin.url, "add 'ship it' to my tasks");
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.match(first.stdout, /Adding needs a grant/);
  }, task.onRequest);
  const taskId = task.id;
  assert.match(taskId ?? "", /^t-/, "start_task's answer reached the model");
  assert.equal(fs.existsSync(path.join(ws, "added.txt")), false, "a call not granted never starts");

  execFileSync(bin, grantLine(login).split(" ").slice(1), { env });
  await withStandin(secondSession(taskId), async (standin) => {
    const second = await session(standin.url, "try again, it is granted now");
    assert.equal(second.code, 0, second.stdout + second.stderr);
  });
  assert.equal(fs.readFileSync(path.join(ws, "added.txt"), "utf8"), "ship it");

  assert.deepEqual(audit(taskId), [
    ["tasks-add", "ok", "mcp", login, agent, taskId],
    ["tasks-add", "denied", "mcp", login, agent, taskId],
    ["tasks-list", "ok", "mcp", login, agent, taskId],
  ]);
}

test("Claude Code, connected by the line `cowork agent create` prints: lists, reads, is refused the write with the grant line, runs it once granted", async () => {
  const created = agentCreate("claude");
  assert.equal(created.claude.length, 1, created.out);
  assert.match(created.claude[0], /^claude mcp add --transport http cowork '/);
  const claudeHome = tempHome("cowork-agents-claude-");
  after(() => fs.rmSync(claudeHome, { recursive: true, force: true }));
  // tests/standin/bin/claude is the pinned Claude Code pointed at $STANDIN_URL in $STANDIN_HOME:
  // the printed line runs as the person would paste it, in the workspace (local scope).
  const claudeEnv = (url) => ({ ...process.env, PATH: `${standinBin}:${process.env.PATH}`, STANDIN_URL: url, STANDIN_HOME: claudeHome });
  const added = await run("sh", ["-c", created.claude[0]], { cwd: ws, env: claudeEnv("http://127.0.0.1:9") });
  assert.equal(added.code, 0, added.stdout + added.stderr);
  // The session the person then starts there: the door's tools pre-approved as they would approve them.
  const session = (url, prompt) =>
    run("claude", ["-p", "--output-format", "stream-json", "--verbose", "--allowedTools", "mcp__cowork", "--", prompt], { cwd: ws, env: claudeEnv(url) });
  await throughTheDoor({ login: "claude", agent: "claude-code", session, errorFlag: true });
});

test("Codex, connected by the block and the export `cowork agent create` prints: lists, reads, is refused the write with the grant line, runs it once granted", async () => {
  const created = agentCreate("codex");
  const exported = created.codex.at(-1).match(/^export COWORK_AGENT_TOKEN=(cwa_[0-9a-f]{64})$/);
  assert.ok(exported, created.out);
  const block = created.codex.slice(0, -1).join("\n");
  assert.match(block, /^\[mcp_servers\.cowork\]\nurl = "http:\/\/127\.0\.0\.1:\d+\/api\/mcp\?ws=[^"]+"\nbearer_token_env_var = "COWORK_AGENT_TOKEN"$/);
  const codexHome = tempHome("cowork-agents-codex-");
  after(() => fs.rmSync(codexHome, { recursive: true, force: true }));
  // codexEnv writes the stand-in's provider into $CODEX_HOME/config.toml; the person's block goes
  // after it, as they would add it to theirs.
  const session = (url, prompt) => {
    const codexEnvironment = { ...codexEnv({ url, home: codexHome }), COWORK_AGENT_TOKEN: exported[1] };
    fs.appendFileSync(path.join(codexHome, ".codex/config.toml"), `\n${block}\n`);
    return run(codexBin(), ["exec", "--json", "--skip-git-repo-check", "--", prompt], { cwd: ws, env: codexEnvironment });
  };
  await throughTheDoor({ login: "codex", agent: "codex", session, errorFlag: false });
});
