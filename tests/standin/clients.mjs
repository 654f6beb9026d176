// Runs the real agent CLIs — Claude Code and Codex, installed into tests/standin/node_modules by
// scripts/install-deps — against the stand-in (standin.mjs), offline and quiet: a throwaway HOME
// and config folder per run (nothing of the machine's own config or credentials leaks in), no
// telemetry, no update checks, no network beyond the URLs given.
//
//   const run = await runClaude({ url: standin.url, prompt: "…", mcp: { cowork: { url, token } } });
//   const session = startClaude({ url, mcp }); session.onControl(fn); session.send("…"); …
//   const run = await runCodex({ url: standin.url, prompt: "…", mcp: { cowork: { url, token } } });
//   const codex = startCodex({ url, mcp }); await codex.initialized; await codex.turn(await codex.startThread(), "…");
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The Claude Code binary: $CLAUDE_BIN, else the one tests/standin/package.json installs: the
 * native binary of the platform's optional package (what the package's postinstall links to
 * bin/claude.exe, which without that script is a stub), else bin/claude.exe.
 */
export function claudeBin() {
  if (process.env.CLAUDE_BIN) return process.env.CLAUDE_BIN;
  const native = path.join(here, `node_modules/@anthropic-ai/claude-code-${process.platform}-${process.arch}/claude`);
  return fs.existsSync(native) ? native : path.join(here, "node_modules/@anthropic-ai/claude-code/bin/claude.exe");
}

/** The Codex binary: $CODEX_BIN, else the native one of the package tests/standin/package.json installs. */
export function codexBin() {
  if (process.env.CODEX_BIN) return process.env.CODEX_BIN;
  const triple = { x64: "x86_64-unknown-linux-musl", arm64: "aarch64-unknown-linux-musl" }[process.arch];
  const pkg = { x64: "codex-linux-x64", arm64: "codex-linux-arm64" }[process.arch];
  return path.join(here, `node_modules/@openai/${pkg}/vendor/${triple}/bin/codex`);
}

/** A fresh, empty folder to be the CLI's HOME (and its config and cache folders) for one run. */
export function tempHome(prefix = "standin-home-") {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * The parent's environment minus anything that would point a CLI at a real account, a real
 * model API or the machine's own config: every ANTHROPIC_*, CLAUDE_*, OPENAI_*, CODEX_* and
 * proxy variable goes, and HOME and the XDG folders move to `home`.
 */
export const FOREIGN_ENV = /^(ANTHROPIC_|CLAUDE_|CLAUDECODE|OPENAI_|CODEX_|OTEL_|AWS_|GOOGLE_|VERTEX_|BEDROCK_|(https?|all|no)_proxy$)/i;

function isolatedEnv(home) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!FOREIGN_ENV.test(k)) env[k] = v;
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_DATA_HOME: path.join(home, ".local/share"),
    XDG_STATE_HOME: path.join(home, ".local/state"),
    NO_PROXY: "127.0.0.1,localhost,::1",
  });
  return env;
}

// ---------------------------------------------------------------------------------------------
// Claude Code

/**
 * Claude Code's environment against the stand-in at `url`. The key is any string: the stand-in
 * does not check it. Tool search off, so MCP tools are offered to the model directly as
 * `mcp__<server>__<tool>` (with it on they hide behind ToolSearch).
 */
export function claudeEnv({ url, home, env = {} }) {
  return {
    ...isolatedEnv(home),
    CLAUDE_CONFIG_DIR: path.join(home, ".claude"),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: "sk-ant-standin",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: "1",
    ENABLE_TOOL_SEARCH: "false",
    ...env,
  };
}

/**
 * `--mcp-config`'s JSON for `{ name: server }`: an HTTP server `{ url, token?, headers? }`, or one
 * the CLI starts itself over stdio `{ command, args?, env? }` (e.g. `cowork mcp-browser`).
 */
export function claudeMcpConfig(mcp) {
  const mcpServers = {};
  for (const [name, s] of Object.entries(mcp)) {
    mcpServers[name] = s.command
      ? { type: "stdio", command: s.command, args: s.args ?? [], env: s.env ?? {} }
      : { type: "http", url: s.url, headers: { ...(s.token ? { Authorization: `Bearer ${s.token}` } : {}), ...s.headers } };
  }
  return JSON.stringify({ mcpServers });
}

/**
 * Claude Code's flags: print mode with stream-json output; the MCP servers given and no other
 * (`--strict-mcp-config`); `allowedTools` pre-approved (by default every tool of the given MCP
 * servers); with `input: "stream-json"` it reads user messages and control responses on stdin,
 * and with `permissions: "stdio"` it asks the host over that control protocol before each tool
 * that is not pre-approved (and for AskUserQuestion's answers).
 */
export function claudeArgs({ prompt, mcp = {}, allowedTools, input = "text", permissions, model, args = [] }) {
  const out = ["-p", "--output-format", "stream-json", "--verbose"];
  if (input === "stream-json") out.push("--input-format", "stream-json");
  if (permissions === "stdio") out.push("--permission-prompt-tool", "stdio");
  if (Object.keys(mcp).length) out.push("--mcp-config", claudeMcpConfig(mcp));
  out.push("--strict-mcp-config");
  const allowed = allowedTools ?? Object.keys(mcp).map((name) => `mcp__${name}`);
  if (allowed.length) out.push("--allowedTools", allowed.join(","));
  if (model) out.push("--model", model);
  out.push(...args);
  if (prompt != null && input !== "stream-json") out.push("--", prompt);
  return out;
}

/**
 * Runs `claude -p PROMPT` to its end. Resolves `{ code, signal, messages, result, stdout, stderr, home }`
 * (`home` is removed by then unless given or `keepHome`):
 * `messages` the stream-json lines parsed, `result` the final `result` message.
 */
export async function runClaude({ url, prompt, cwd, mcp, allowedTools, model, args, env, timeoutMs = 90_000, home, keepHome = false }) {
  const removeHome = !home && !keepHome;
  home ??= tempHome();
  const child = spawn(claudeBin(), claudeArgs({ prompt, mcp, allowedTools, model, args }), {
    cwd: cwd ?? home,
    env: claudeEnv({ url, home, env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  return collect(child, timeoutMs, home, "claude", removeHome);
}

/**
 * Starts Claude Code as a desktop host does: stream-json in and out, permission prompts and
 * AskUserQuestion over the control protocol on stdio. Returns a session:
 * - `send(text)`: a user message;
 * - `onControl(fn)`: `fn(request)` answers each `can_use_tool` request (`request.tool_name`,
 *   `request.input`, `request.tool_use_id`) with `{ behavior: "allow", updatedInput }` or
 *   `{ behavior: "deny", message }` (sync or async); without it every request is denied;
 * - `next(predicate, timeoutMs)`: resolves the first message (already seen or to come) that
 *   `predicate` accepts and that an earlier `next` did not take;
 * - `request(subtype, fields)`: a control request of the host (`interrupt`, `set_model`, …);
 * - `messages`, `stderr`; `close()` ends stdin and waits; `kill()`.
 */
export function startClaude({ url, cwd, mcp, allowedTools, model, args, env, home, keepHome = false, initialize = true }) {
  const removeHome = !home && !keepHome;
  home ??= tempHome();
  const child = spawn(claudeBin(), claudeArgs({ mcp, allowedTools, model, args, input: "stream-json", permissions: "stdio" }), {
    cwd: cwd ?? home,
    env: claudeEnv({ url, home, env }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const session = new LineSession(child, "claude", home, removeHome);
  let decide = () => ({ behavior: "deny", message: "denied by the test (no onControl handler)" });
  session.onControl = (fn) => {
    decide = fn;
  };
  session.controlRequests = [];
  session.on("control_request", async (m) => {
    session.controlRequests.push(m);
    const request = m.request ?? {};
    let response;
    try {
      response = request.subtype === "can_use_tool" ? await decide(request) : {};
      session.write({ type: "control_response", response: { subtype: "success", request_id: m.request_id, response } });
    } catch (error) {
      session.write({ type: "control_response", response: { subtype: "error", request_id: m.request_id, error: String(error.message ?? error) } });
    }
  });
  session.send = (text) => session.write({ type: "user", session_id: "", parent_tool_use_id: null, message: { role: "user", content: [{ type: "text", text }] } });
  let ids = 0;
  session.request = (subtype, fields = {}) => {
    const request_id = `host_${++ids}_${randomUUID().slice(0, 8)}`;
    session.write({ type: "control_request", request_id, request: { subtype, ...fields } });
    return session.next((m) => m.type === "control_response" && m.response?.request_id === request_id);
  };
  if (initialize) session.initialized = session.request("initialize", { hooks: null });
  return session;
}

/** The answer to an AskUserQuestion `can_use_tool` request: `answers` maps each question's text to a label. */
export function answerQuestions(request, answers) {
  return { behavior: "allow", updatedInput: { ...request.input, answers } };
}

// ---------------------------------------------------------------------------------------------
// Codex

/**
 * The model Codex is told to use: one of its own catalogue (`model_catalog_json`, written by
 * `codexEnv`). Codex 0.169's built-in models have `supports_search_tool`, and with it Codex offers
 * no MCP tool to the model, only a `tool_search` tool that loads them on demand; a model unknown
 * to it runs with "fallback metadata" and says so in an error item of `--json`. This entry has
 * neither: MCP tools are offered directly, one namespace per server (`mcp__<server>` holding
 * `<tool>`), which the stand-in names `mcp__<server>__<tool>` as Claude Code does.
 */
export const CODEX_MODEL = "standin";

export function codexCatalog(model = CODEX_MODEL) {
  return {
    models: [
      {
        slug: model,
        display_name: "stand-in",
        description: "The scripted stand-in of tests/standin",
        base_instructions: "You are the scripted stand-in of a model, in a test.",
        context_window: 200000,
        input_modalities: ["text"],
        truncation_policy: { mode: "tokens", limit: 10000 },
        shell_type: "shell_command",
        supports_search_tool: false,
        supports_parallel_tool_calls: false,
        support_verbosity: false,
        default_verbosity: null,
        apply_patch_tool_type: null,
        default_reasoning_summary: "none",
        default_reasoning_level: null,
        supported_reasoning_levels: [],
        supports_reasoning_summary_parameter: false,
        supports_reasoning_summaries: false,
        experimental_supported_tools: [],
        visibility: "list",
        supported_in_api: true,
        priority: 1,
      },
    ],
  };
}

/**
 * Codex's config.toml against the stand-in: a custom provider on `url` with the Responses API
 * and the stand-in's model catalogue, no update checks, no analytics or feedback upload, no
 * login; the MCP servers given (HTTP, with their bearer token from an environment variable).
 */
export function codexConfig({ url, mcp = {}, model = CODEX_MODEL, catalog }) {
  const q = (s) => JSON.stringify(String(s));
  const lines = [
    `model = ${q(model)}`,
    ...(catalog ? [`model_catalog_json = ${q(catalog)}`] : []),
    `model_provider = "standin"`,
    `approval_policy = "never"`,
    `sandbox_mode = "danger-full-access"`,
    `check_for_update_on_startup = false`,
    `hide_agent_reasoning = true`,
    ``,
    `[model_providers.standin]`,
    `name = "stand-in"`,
    `base_url = ${q(`${url}/v1`)}`,
    `wire_api = "responses"`,
    `env_key = "STANDIN_API_KEY"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    ``,
    // Plugins sync a marketplace: Codex looked up github.com, api.github.com and chatgpt.com
    // (measured with strace) even with no plugin configured; off, it asks nothing of the network.
    `[features]`,
    `plugins = false`,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    `[feedback]`,
    `enabled = false`,
    ``,
    `[otel]`,
    `exporter = "none"`,
    `log_user_prompt = false`,
  ];
  const table = (o) => `{ ${Object.entries(o).map(([k, v]) => `${q(k)} = ${q(v)}`).join(", ")} }`;
  for (const [name, s] of Object.entries(mcp)) {
    lines.push("", `[mcp_servers.${q(name)}]`);
    if (s.command) {
      // A server Codex starts itself, over stdio.
      lines.push(`command = ${q(s.command)}`, `args = [${(s.args ?? []).map(q).join(", ")}]`);
      if (s.env) lines.push(`env = ${table(s.env)}`);
    } else {
      lines.push(`url = ${q(s.url)}`);
      if (s.token) lines.push(`bearer_token_env_var = ${q(tokenVar(name))}`);
      if (s.headers) lines.push(`http_headers = ${table(s.headers)}`);
    }
    lines.push(`startup_timeout_sec = 20`, `tool_timeout_sec = 60`);
  }
  return lines.join("\n") + "\n";
}

function tokenVar(name) {
  return `STANDIN_MCP_TOKEN_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

/** Codex's environment: CODEX_HOME in the throwaway home (holding config.toml), tokens in variables. */
export function codexEnv({ url, home, mcp = {}, model, env = {} }) {
  const codexHome = path.join(home, ".codex");
  fs.mkdirSync(codexHome, { recursive: true });
  const catalog = path.join(codexHome, "standin-models.json");
  fs.writeFileSync(catalog, JSON.stringify(codexCatalog(model ?? CODEX_MODEL)));
  fs.writeFileSync(path.join(codexHome, "config.toml"), codexConfig({ url, mcp, model: model ?? CODEX_MODEL, catalog }));
  const tokens = Object.fromEntries(Object.entries(mcp).filter(([, s]) => s.token).map(([name, s]) => [tokenVar(name), s.token]));
  return { ...isolatedEnv(home), CODEX_HOME: codexHome, STANDIN_API_KEY: "sk-standin", RUST_LOG: "error", ...tokens, ...env };
}

/**
 * Runs `codex exec --json PROMPT` to its end. Resolves `{ code, signal, messages, stdout, stderr, home }`
 * (`home` is removed by then unless given or `keepHome`):
 * `messages` the JSON lines of `--json` (`thread.started`, `item.completed`, `turn.completed`, …).
 */
export async function runCodex({ url, prompt, cwd, mcp, model, args = [], env, timeoutMs = 90_000, home, keepHome = false }) {
  const removeHome = !home && !keepHome;
  home ??= tempHome();
  const child = spawn(codexBin(), ["exec", "--json", "--skip-git-repo-check", ...args, "--", prompt], {
    cwd: cwd ?? home,
    env: codexEnv({ url, home, mcp, model, env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  return collect(child, timeoutMs, home, "codex", removeHome);
}

/**
 * Starts `codex app-server` (JSON-RPC over stdio, one JSON object a line), as a desktop host runs
 * Codex for a chat, after `initialize`. Returns a session:
 * - `call(method, params)`: a request; resolves its `result`, rejects with its `error`;
 * - `notify(method, params)`: a notification;
 * - `onRequest(fn)`: `fn(message)` answers each request of the server (`item/tool/requestUserInput`,
 *   `item/commandExecution/requestApproval`, `mcpServer/elicitation/request`…) with a result
 *   (sync or async); without it each gets an error;
 * - `startThread(params)` → the thread's id, `turn(threadId, text)` → the `turn/completed`
 *   notification's params (the items streamed on the way are in `messages`);
 * - `next(predicate)`, `messages`, `stderr`, `close()`, `kill()` as `startClaude`'s.
 */
export function startCodex({ url, cwd, mcp, model, args = [], env, home, keepHome = false }) {
  const removeHome = !home && !keepHome;
  home ??= tempHome();
  const child = spawn(codexBin(), ["app-server", ...args], {
    cwd: cwd ?? home,
    env: codexEnv({ url, home, mcp, model, env }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const session = new LineSession(child, "codex app-server", home, removeHome);
  let ids = 0;
  let answer = (m) => {
    throw new Error(`the test has no onRequest handler for ${m.method}`);
  };
  session.onRequest = (fn) => {
    answer = fn;
  };
  session.serverRequests = [];
  session.on("*", async (m) => {
    if (m.method == null || m.id == null) return;
    session.serverRequests.push(m);
    try {
      session.write({ id: m.id, result: await answer(m) });
    } catch (error) {
      session.write({ id: m.id, error: { code: -32000, message: String(error.message ?? error) } });
    }
  });
  session.notify = (method, params) => session.write(params === undefined ? { method } : { method, params });
  session.call = async (method, params, timeoutMs) => {
    const id = `host-${++ids}`;
    session.write({ id, method, params });
    const reply = await session.next((m) => m.id === id && m.method == null, timeoutMs);
    if (reply.error) throw new Error(`codex app-server: ${method} failed: ${JSON.stringify(reply.error)}`);
    return reply.result;
  };
  session.startThread = async (params = {}) => (await session.call("thread/start", { cwd: cwd ?? home, ...params })).thread.id;
  session.turn = async (threadId, text, timeoutMs) => {
    const { turn } = await session.call("turn/start", { threadId, input: [{ type: "text", text, text_elements: [] }] });
    const done = await session.next((m) => m.method === "turn/completed" && m.params?.turn?.id === turn.id, timeoutMs);
    return done.params;
  };
  session.initialized = session.call("initialize", { clientInfo: { name: "standin-test", title: null, version: "0" }, capabilities: null }).then((result) => {
    session.notify("initialized");
    return result;
  });
  return session;
}

// ---------------------------------------------------------------------------------------------

/** Waits for a one-shot CLI run; a run past `timeoutMs` is killed and rejected with what it printed. */
function collect(child, timeoutMs, home, name, removeHome) {
  const session = new LineSession(child, name, home, removeHome);
  return session.exit(timeoutMs).then(({ code, signal }) => ({
    code,
    signal,
    messages: session.messages,
    result: session.messages.findLast((m) => m.type === "result") ?? null,
    stdout: session.stdout,
    stderr: session.stderr,
    home,
  }));
}

/** A child speaking JSON lines on stdout (and read on stdin). */
class LineSession {
  constructor(child, name, home, removeHome = false) {
    this.child = child;
    this.name = name;
    this.home = home;
    this.messages = [];
    this.stdout = "";
    this.stderr = "";
    this.taken = new Set();
    this.waiters = [];
    this.listeners = new Map();
    // A home the helper made is removed once the CLI exits (pass `home`, or `keepHome: true`, to
    // look into it afterwards: Claude Code's transcripts, Codex's sessions and logs).
    this.exited = new Promise((resolve) =>
      child.on("close", (code, signal) => {
        if (removeHome) fs.rmSync(home, { recursive: true, force: true });
        resolve({ code, signal });
      }),
    );
    child.stderr.on("data", (d) => (this.stderr += d));
    readline.createInterface({ input: child.stdout }).on("line", (line) => {
      this.stdout += `${line}\n`;
      let m;
      try {
        m = JSON.parse(line);
      } catch {
        return;
      }
      this.messages.push(m);
      for (const fn of [...(this.listeners.get(m.type) ?? []), ...(this.listeners.get("*") ?? [])]) fn(m);
      this.waiters = this.waiters.filter((w) => !w.offer(m, this.messages.length - 1));
    });
    this.exited.then(() => {
      for (const w of this.waiters) w.fail();
      this.waiters = [];
    });
  }

  on(type, fn) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }

  write(message) {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** The first message `predicate` accepts that no earlier `next` took: seen already, or to come. */
  next(predicate, timeoutMs = 60_000) {
    const index = this.messages.findIndex((m, i) => !this.taken.has(i) && predicate(m));
    if (index >= 0) {
      this.taken.add(index);
      return Promise.resolve(this.messages[index]);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(this.error(`no matching message within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        offer: (m, i) => {
          if (this.taken.has(i) || !predicate(m)) return false;
          this.taken.add(i);
          clearTimeout(timer);
          resolve(m);
          return true;
        },
        fail: () => {
          clearTimeout(timer);
          reject(this.error("the CLI exited before a matching message"));
        },
      };
      this.waiters.push(waiter);
    });
  }

  error(what) {
    const tail = (s) => s.split("\n").slice(-15).join("\n");
    return new Error(`${this.name}: ${what}\n--- stdout (last lines) ---\n${tail(this.stdout)}\n--- stderr (last lines) ---\n${tail(this.stderr)}`);
  }

  /** Resolves `{ code, signal }` when the CLI exits; kills it and rejects after `timeoutMs`. */
  async exit(timeoutMs = 60_000) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => {
        this.child.kill("SIGKILL");
        reject(this.error(`still running after ${timeoutMs} ms: killed`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends stdin (the CLI finishes its turn and exits) and waits. */
  close(timeoutMs) {
    this.child.stdin.end();
    return this.exit(timeoutMs);
  }

  kill(signal = "SIGKILL") {
    this.child.kill(signal);
    return this.exited;
  }
}
