#!/usr/bin/env node
// A scripted stand-in for the agents' model APIs on loopback: Anthropic Messages (Claude Code) and
// OpenAI Responses (Codex). The real CLIs run against it offline; it answers each of their agent
// loop's requests with the next turn of a plan (text, tool calls, questions), checks what the CLI
// sent (e.g. the real result of the tool it ran), and keeps every request it saw. README.md beside
// this file describes the plan format.
//
// As a library:  const s = await start({ plan }); … s.url, s.requests, s.failures, s.assertDone(), await s.close()
// As a program:  node standin.mjs PLAN.json [--port N]   (first stdout line: the URL; then one JSON line per request)
import http from "node:http";
import fs from "node:fs";
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";

/** Starts a stand-in answering with `plan` (an object or a JSON string) on `host`:`port` (0: any free port). */
export async function start({ plan = { turns: [] }, port = 0, host = "127.0.0.1", onRequest } = {}) {
  const state = { plan: normalizePlan(plan), next: 0, seq: 0 };
  const requests = [];
  const failures = [];
  const open = new Set();

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      handle(req, res, Buffer.concat(chunks).toString("utf8")).catch((error) => {
        fail(null, `internal error of the stand-in: ${error.stack ?? error}`);
        if (!res.headersSent) sendJson(res, 500, { type: "error", error: { type: "api_error", message: String(error) } });
        res.end();
      });
    });
  });
  server.on("connection", (socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
  });

  function fail(record, message) {
    const failure = { seq: record?.seq ?? null, turn: record?.turn ?? null, message };
    failures.push(failure);
    record?.failures.push(message);
  }

  async function handle(req, res, raw) {
    const url = new URL(req.url, "http://standin");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    // The stand-in's own control routes, for tests in other languages (a Rust test, a desktop test).
    if (path === "/_standin/requests" && req.method === "GET") return sendJson(res, 200, { requests, failures, turnsLeft: turnsLeft() });
    if (path === "/_standin/plan" && req.method === "POST") {
      state.plan = normalizePlan(raw);
      state.next = 0;
      return sendJson(res, 200, { turns: state.plan.turns.length });
    }

    let body = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    const record = {
      seq: ++state.seq,
      method: req.method,
      path: url.pathname + url.search,
      api: null,
      kind: "unknown",
      turn: null,
      stream: false,
      model: body?.model ?? null,
      failures: [],
      headers: req.headers,
      body,
    };
    requests.push(record);
    try {
      const route = routeOf(req.method, path);
      record.api = route.api;
      record.kind = route.kind;
      if (route.kind === "unknown") {
        // Whatever else a client asks for gets an error shaped as its API's, at once: never a hang.
        return sendJson(res, 404, route.api === "openai"
          ? { error: { message: `stand-in: no route ${req.method} ${url.pathname}`, type: "invalid_request_error", code: "not_found" } }
          : { type: "error", error: { type: "not_found_error", message: `stand-in: no route ${req.method} ${url.pathname}` } });
      }
      if (route.kind === "models") return sendJson(res, 200, modelsList(route.api, body));
      if (route.kind === "model") return sendJson(res, 200, modelEntry(route.api, decodeURIComponent(path.split("/").pop())));
      if (route.kind === "count_tokens") return sendJson(res, 200, { input_tokens: estimateTokens(raw) });

      record.stream = body?.stream === true || route.api === "openai";
      const side = route.api === "anthropic" && isSideRequest(body);
      if (side) {
        record.kind = "side";
        return await answer(res, record, state.plan.side ?? { text: "ok" }, route.api);
      }
      record.kind = "turn";
      if (state.next >= state.plan.turns.length) {
        const message = `the plan has no turn left for request #${record.seq} (${state.plan.turns.length} planned)`;
        fail(record, message);
        return await answer(res, record, { text: `stand-in: ${message}` }, route.api);
      }
      record.turn = state.next++;
      const turn = state.plan.turns[record.turn];
      const view = viewOf(route.api, body);
      for (const message of checkTurn(turn.expect, view)) fail(record, `turn ${record.turn}: ${message}`);
      if (record.failures.length) {
        // Stop the agent here rather than run the rest of the plan on a conversation gone wrong.
        return await answer(res, record, { text: `stand-in: ${record.failures.join("; ")}` }, route.api);
      }
      return await answer(res, record, turn, route.api, view);
    } finally {
      onRequest?.(record);
    }
  }

  async function answer(res, record, turn, api, view = viewOf(api, record.body)) {
    if (turn.delayMs) await sleep(turn.delayMs);
    if (turn.error) {
      const { status = 500, type = "api_error", message = "stand-in: planned error" } = turn.error;
      const headers = turn.error.retry === false ? { "x-should-retry": "false" } : {};
      return sendJson(res, status, api === "openai" ? { error: { message, type, code: type } } : { type: "error", error: { type, message } }, headers);
    }
    const blocks = [];
    for (const message of blocksOf(turn, view, blocks)) fail(record, `turn ${record.turn}: ${message}`);
    record.answer = blocks.map((b) => (b.type === "text" ? { text: b.text } : b.type === "tool_use" ? { tool: b.name, input: b.input } : { thinking: b.thinking }));
    const writer = api === "openai" ? openaiWriter(record) : anthropicWriter(record, turn);
    if (!record.stream) return sendJson(res, 200, writer.whole(blocks));
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const send = (event, data) => new Promise((resolve) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`, resolve));
    const pause = () => (turn.chunkDelayMs ? sleep(turn.chunkDelayMs) : Promise.resolve());
    await writer.stream(blocks, send, pause);
    if (turn.hang) {
      // An agent that never finishes its turn: for tests of interrupts and kills mid-turn.
      await new Promise((resolve) => res.on("close", resolve));
      return;
    }
    await writer.finish(blocks, send);
    res.end();
  }

  function turnsLeft() {
    return state.plan.turns.length - state.next;
  }

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const actual = server.address().port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${actual}`,
    port: actual,
    requests,
    failures,
    /** The turns of the plan not answered yet. */
    turnsLeft,
    /** Replaces the plan (and starts again from its first turn). */
    setPlan(plan) {
      state.plan = normalizePlan(plan);
      state.next = 0;
    },
    /** Throws a readable error when a check failed, a request found no turn, or turns are left. */
    assertDone() {
      const problems = failures.map((f) => `request #${f.seq}: ${f.message}`);
      if (turnsLeft() > 0) problems.push(`${turnsLeft()} of ${state.plan.turns.length} planned turns were never asked for (next: turn ${state.next})`);
      if (problems.length) throw new Error(`the stand-in's plan did not run as written:\n- ${problems.join("\n- ")}\nrequests seen: ${summarize(requests)}`);
    },
    close() {
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** One line per request, for error messages: `#3 POST /v1/messages turn 1`. */
export function summarize(requests) {
  return requests.map((r) => `#${r.seq} ${r.method} ${r.path} ${r.kind}${r.turn != null ? ` ${r.turn}` : ""}${r.failures.length ? " FAILED" : ""}`).join(", ") || "none";
}

// ---------------------------------------------------------------------------------------------
// Routes

function routeOf(method, path) {
  const p = path.replace(/^\/v1(?=\/)/, "");
  const openai = (kind) => ({ api: "openai", kind });
  const anthropic = (kind) => ({ api: "anthropic", kind });
  if (method === "POST" && p === "/messages") return anthropic("messages");
  if (method === "POST" && p === "/messages/count_tokens") return anthropic("count_tokens");
  if (method === "POST" && p === "/responses") return openai("messages");
  if (method === "GET" && p === "/models") return { api: "models", kind: "models" };
  if (method === "GET" && p.startsWith("/models/")) return { api: "models", kind: "model" };
  return { api: p.startsWith("/responses") || p.startsWith("/chat") ? "openai" : "anthropic", kind: "unknown" };
}

const MODELS = ["claude-opus-5-5", "claude-sonnet-4-5", "claude-haiku-4-5", "gpt-5.5-codex", "gpt-5"];

function modelsList() {
  // Both shapes at once: Anthropic's `data[].id/type/display_name`, OpenAI's `data[].id/object`, and
  // Codex's `models[]` (its model catalogue); each client ignores the fields it does not know.
  const data = MODELS.map((id) => modelEntry(null, id));
  return { data, object: "list", has_more: false, first_id: MODELS[0], last_id: MODELS.at(-1), models: [] };
}

function modelEntry(_api, id) {
  return { id, type: "model", object: "model", display_name: id, created_at: "2026-01-01T00:00:00Z", created: 1767225600, owned_by: "stand-in" };
}

function estimateTokens(raw) {
  return Math.max(1, Math.round((raw?.length ?? 0) / 4));
}

/**
 * Claude Code's own small requests beside its agent loop (a title, a topic, a quota probe…): they
 * offer no tools and ask for a short answer. Offering no tools is not enough: a run with
 * `--tools ""` (a text-only task) offers none either, and asks for the model's whole output
 * (Claude Code 2.1.328: `max_tokens` 128000); `-p` runs made no side request at all.
 */
export const SIDE_MAX_TOKENS = 8192;

function isSideRequest(body) {
  const noTools = !Array.isArray(body?.tools) || body.tools.length === 0;
  return noTools && typeof body?.max_tokens === "number" && body.max_tokens <= SIDE_MAX_TOKENS;
}

// ---------------------------------------------------------------------------------------------
// Plans

/** Accepts a plan object, a JSON string, or a bare array of turns; checks its shape. */
export function normalizePlan(plan) {
  if (typeof plan === "string") plan = JSON.parse(plan);
  if (Array.isArray(plan)) plan = { turns: plan };
  if (!plan || !Array.isArray(plan.turns)) throw new Error("failed to read the stand-in's plan: it needs `turns`, an array (see tests/standin/README.md)");
  const known = new Set(["text", "thinking", "tool", "tools", "ask", "expect", "error", "delayMs", "chunkDelayMs", "hang", "stop", "note"]);
  plan.turns.forEach((turn, i) => {
    if (typeof turn === "string") plan.turns[i] = turn = { text: turn };
    for (const key of Object.keys(turn)) {
      if (!known.has(key)) throw new Error(`failed to read turn ${i} of the stand-in's plan: unknown key "${key}" (known: ${[...known].join(", ")})`);
    }
  });
  return plan;
}

/** The blocks a turn answers with, in order: thinking, text, tool calls (questions are a tool call). */
function blocksOf(turn, view, blocks) {
  const problems = [];
  if (turn.thinking) blocks.push({ type: "thinking", thinking: turn.thinking });
  if (turn.text != null) blocks.push({ type: "text", text: Array.isArray(turn.text) ? turn.text.join("") : turn.text, chunks: Array.isArray(turn.text) ? turn.text : chunk(turn.text) });
  const calls = [...(turn.tool ? [turn.tool] : []), ...(turn.tools ?? [])];
  if (turn.ask) {
    // Claude Code's AskUserQuestion, or Codex's request_user_input where that is what is offered.
    const codex = view.tools.includes("request_user_input") && !view.tools.includes("AskUserQuestion");
    calls.push(codex ? { name: "request_user_input", input: codexAskInput(turn.ask) } : { name: "AskUserQuestion", input: askInput(turn.ask) });
  }
  for (const call of calls) {
    const name = resolveTool(call.name, view.tools);
    if (!name.ok) problems.push(name.message);
    blocks.push({ type: "tool_use", id: `toolu_standin_${randomUUID().replaceAll("-", "").slice(0, 20)}`, name: name.name, input: call.input ?? call.arguments ?? {} });
  }
  if (!blocks.length) blocks.push({ type: "text", text: "", chunks: [""] });
  return problems;
}

/** `{question, options: ["A", "B"]}` or `{questions: [...]}` → AskUserQuestion's input. */
function askInput(ask) {
  const questions = ask.questions ?? [ask];
  return {
    questions: questions.map((q) => ({
      question: q.question,
      header: q.header ?? String(q.question).slice(0, 12),
      multiSelect: q.multiSelect ?? false,
      options: q.options.map((o) => (typeof o === "string" ? { label: o, description: o } : o)),
    })),
  };
}

/** The same for Codex's request_user_input: each question also has an `id` (`q1`, `q2`… unless given). */
function codexAskInput(ask) {
  return { questions: askInput(ask).questions.map(({ multiSelect, ...q }, i) => ({ id: (ask.questions ?? [ask])[i].id ?? `q${i + 1}`, ...q })) };
}

/** Words with their trailing spaces: a realistic stream of small deltas. */
function chunk(text) {
  const parts = String(text).match(/\S+\s*|\s+/g);
  return parts ?? [""];
}

/**
 * A tool name in a plan is exact (`mcp__cowork__read`), a glob (`mcp__*__read`), or a regular
 * expression between slashes (`/^mcp__cowork__re/`); it is resolved against the tools the request
 * offers, so a test need not know how a client spells an MCP server's tools.
 */
function resolveTool(pattern, offered) {
  if (!pattern) return { ok: false, name: "missing_tool_name", message: "a tool call has no `name`" };
  const match = matcher(pattern, true);
  const found = offered.find((t) => match(t));
  if (found) return { ok: true, name: found };
  const literal = !/[*?]/.test(pattern) && !/^\/.*\/[a-z]*$/.test(pattern);
  return {
    ok: false,
    name: literal ? pattern : "no_matching_tool",
    message: `no tool offered matches "${pattern}"; offered: ${offered.join(", ") || "none"}`,
  };
}

/** A string matcher: `/re/flags` is a regular expression; else a substring (or with `whole`, exact or a glob). */
export function matcher(pattern, whole = false) {
  const re = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  if (re) {
    const regex = new RegExp(re[1], re[2]);
    return (s) => regex.test(s);
  }
  if (whole) {
    if (!/[*?]/.test(pattern)) return (s) => s === pattern;
    const regex = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll("?", ".")}$`);
    return (s) => regex.test(s);
  }
  return (s) => String(s).includes(pattern);
}

// ---------------------------------------------------------------------------------------------
// What a request says, the same for both APIs

/**
 * The parts of a request a plan can check: the tools offered, the last user text, the tool results
 * just sent back, the system prompt, the whole body as text.
 */
export function viewOf(api, body) {
  if (!body || typeof body !== "object") return { tools: [], userText: "", toolResults: [], system: "", raw: String(body ?? "") };
  const raw = JSON.stringify(body);
  if (api === "openai") {
    const input = Array.isArray(body.input) ? body.input : [{ type: "message", role: "user", content: [{ type: "input_text", text: String(body.input ?? "") }] }];
    const texts = (content) => (Array.isArray(content) ? content.map((c) => c.text ?? "").join("\n") : String(content ?? ""));
    const lastUser = input.findLast((i) => (i.type === "message" || !i.type) && i.role === "user");
    const outputs = [];
    for (let i = input.length - 1; i >= 0 && /_output$/.test(input[i].type ?? ""); i--) outputs.unshift(input[i]);
    const calls = new Map(input.filter((i) => /_call$/.test(i.type ?? "")).map((i) => [i.call_id, i.namespace ? `${i.namespace}__${i.name}` : i.name]));
    // A function's output is a string, or (an MCP tool's) a list of content items.
    const outputText = (o) => (typeof o === "string" ? o : Array.isArray(o) ? o.map((c) => c.text ?? JSON.stringify(c)).join("\n") : JSON.stringify(o));
    return {
      tools: (body.tools ?? []).flatMap(openaiToolNames),
      userText: lastUser ? texts(lastUser.content) : "",
      toolResults: outputs.map((o) => ({
        id: o.call_id,
        name: calls.get(o.call_id) ?? null,
        text: outputText(o.output),
        isError: null,
      })),
      system: [body.instructions ?? "", ...input.filter((i) => i.role === "developer" || i.role === "system").map((i) => texts(i.content))].join("\n"),
      raw,
    };
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const lastUser = messages.findLast((m) => m.role === "user");
  const content = lastUser ? (typeof lastUser.content === "string" ? [{ type: "text", text: lastUser.content }] : lastUser.content) : [];
  const names = new Map();
  for (const m of messages) if (m.role === "assistant" && Array.isArray(m.content)) for (const b of m.content) if (b.type === "tool_use") names.set(b.id, b.name);
  const text = (c) => (typeof c === "string" ? c : Array.isArray(c) ? c.map((b) => (b.type === "text" ? b.text : JSON.stringify(b))).join("\n") : JSON.stringify(c ?? ""));
  return {
    tools: (body.tools ?? []).map((t) => t.name).filter(Boolean),
    userText: content.filter((b) => b.type === "text").map((b) => b.text).join("\n"),
    toolResults: content.filter((b) => b.type === "tool_result").map((b) => ({ id: b.tool_use_id, name: names.get(b.tool_use_id) ?? null, text: text(b.content), isError: b.is_error === true })),
    system: [
      text(body.system ?? ""),
      ...messages.filter((m) => m.role === "system").map((m) => text(m.content)),
    ].join("\n"),
    raw,
  };
}

/**
 * Codex offers functions by name, and each MCP server's tools grouped in a namespace
 * (`{type: "namespace", name: "mcp__notes", tools: [{name: "read_note"}]}`): a tool of a namespace
 * is named here `<namespace>__<tool>` (`mcp__notes__read_note`, as Claude Code spells it), and
 * called with `namespace` and `name` apart (see `openaiCall`).
 */
function openaiToolNames(tool) {
  if (Array.isArray(tool.tools)) return tool.tools.flatMap(openaiToolNames).map((name) => (tool.name ? `${tool.name}__${name}` : name));
  if (tool.name) return [tool.name];
  if (tool.type === "function" && tool.function?.name) return [tool.function.name];
  return [];
}

/** `{ namespace?, name }` of a tool offered as `<namespace>__<tool>` by `openaiToolNames`. */
function openaiCall(tools, joined) {
  for (const tool of tools ?? []) {
    if (!Array.isArray(tool.tools) || !tool.name) continue;
    const inner = tool.tools.find((t) => `${tool.name}__${t.name}` === joined);
    if (inner) return { namespace: tool.name, name: inner.name };
  }
  return { name: joined };
}

const CHECKS = {
  toolResult: "the tool results sent back",
  toolResultError: "whether the tool result is an error",
  userText: "the last user message's text",
  toolOffered: "the tools offered",
  toolNotOffered: "the tools offered",
  system: "the system prompt",
  contains: "the request body",
  notContains: "the request body",
};

/** Checks `expect` against a request's view; returns what did not hold, each saying what it saw. */
export function checkTurn(expect, view) {
  if (!expect) return [];
  const problems = [];
  const clip = (s, n = 300) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
  for (const [key, want] of Object.entries(expect)) {
    if (!(key in CHECKS)) {
      problems.push(`unknown check "${key}" (known: ${Object.keys(CHECKS).join(", ")})`);
      continue;
    }
    const wants = Array.isArray(want) ? want : [want];
    for (const w of wants) {
      switch (key) {
        case "toolResult": {
          const m = matcher(w);
          if (!view.toolResults.length) problems.push(`expected a tool result matching ${JSON.stringify(w)}, but the request carries no tool result (last user text: ${JSON.stringify(clip(view.userText))})`);
          else if (!view.toolResults.some((r) => m(r.text))) problems.push(`expected a tool result matching ${JSON.stringify(w)}, got ${view.toolResults.map((r) => `${r.name ?? r.id}: ${JSON.stringify(clip(r.text))}`).join("; ")}`);
          break;
        }
        case "toolResultError":
          if (!view.toolResults.length) problems.push(`expected a tool result (is_error ${w}), but the request carries none`);
          else if (!view.toolResults.some((r) => r.isError === w)) problems.push(`expected a tool result with is_error ${w}, got ${view.toolResults.map((r) => `${r.name ?? r.id}: is_error ${r.isError} ${JSON.stringify(clip(r.text, 120))}`).join("; ")}`);
          break;
        case "userText":
          if (!matcher(w)(view.userText)) problems.push(`expected the last user text to match ${JSON.stringify(w)}, got ${JSON.stringify(clip(view.userText))}`);
          break;
        case "toolOffered":
          if (!view.tools.some(matcher(w, true))) problems.push(`expected a tool matching ${JSON.stringify(w)} to be offered; offered: ${view.tools.join(", ") || "none"}`);
          break;
        case "toolNotOffered":
          if (view.tools.some(matcher(w, true))) problems.push(`expected no tool matching ${JSON.stringify(w)} to be offered; offered: ${view.tools.filter(matcher(w, true)).join(", ")}`);
          break;
        case "system":
          if (!matcher(w)(view.system)) problems.push(`expected the system prompt to match ${JSON.stringify(w)}`);
          break;
        case "contains":
          if (!matcher(w)(view.raw)) problems.push(`expected the request to contain ${JSON.stringify(w)}`);
          break;
        case "notContains":
          if (matcher(w)(view.raw)) problems.push(`expected the request not to contain ${JSON.stringify(w)}`);
          break;
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

function anthropicWriter(record, turn) {
  const id = `msg_standin_${record.seq}`;
  const model = record.model ?? "claude-opus-5-5";
  const stopReason = () => turn.stop ?? "end_turn";
  const usage = { input_tokens: 10, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const stop = (blocks) => (turn.stop ?? (blocks.some((b) => b.type === "tool_use") ? "tool_use" : stopReason()));
  const whole = (b) =>
    b.type === "text" ? { type: "text", text: b.text }
    : b.type === "thinking" ? { type: "thinking", thinking: b.thinking, signature: "standin" }
    : { type: "tool_use", id: b.id, name: b.name, input: b.input };
  return {
    whole(blocks) {
      return { id, type: "message", role: "assistant", model, content: blocks.map(whole), stop_reason: stop(blocks), stop_sequence: null, usage: { ...usage, output_tokens: 5 } };
    },
    async stream(blocks, send, pause) {
      await send("message_start", { type: "message_start", message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
      await send("ping", { type: "ping" });
      for (const [index, b] of blocks.entries()) {
        if (b.type === "text") {
          await send("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
          for (const text of b.chunks) {
            await send("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text } });
            await pause();
          }
        } else if (b.type === "thinking") {
          await send("content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
          await send("content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: b.thinking } });
          await send("content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature: "standin" } });
        } else {
          await send("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
          const json = JSON.stringify(b.input);
          for (let i = 0; i < json.length; i += 40) await send("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(i, i + 40) } });
          await pause();
        }
        await send("content_block_stop", { type: "content_block_stop", index });
      }
    },
    async finish(blocks, send) {
      await send("message_delta", { type: "message_delta", delta: { stop_reason: stop(blocks), stop_sequence: null }, usage: { output_tokens: 5 } });
      await send("message_stop", { type: "message_stop" });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses (Codex)

function openaiWriter(record) {
  const id = `resp_standin_${record.seq}`;
  const model = record.model ?? "gpt-5.5-codex";
  const created = Math.floor(Date.now() / 1000);
  const items = [];
  const response = (status, output) => ({ id, object: "response", created_at: created, status, model, output, usage: null });
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  const item = (b, i) =>
    b.type === "text" ? { id: `msg_standin_${record.seq}_${i}`, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: b.text, annotations: [] }] }
    : b.type === "thinking" ? { id: `rs_standin_${record.seq}_${i}`, type: "reasoning", summary: [{ type: "summary_text", text: b.thinking }] }
    : { id: `fc_standin_${record.seq}_${i}`, type: "function_call", status: "completed", call_id: b.id.replace("toolu_", "call_"), ...openaiCall(record.body?.tools, b.name), arguments: JSON.stringify(b.input) };
  return {
    whole(blocks) {
      return { ...response("completed", blocks.map(item)), usage };
    },
    async stream(blocks, send, pause) {
      let n = 0;
      const ev = (type, data) => send(type, { type, sequence_number: n++, ...data });
      await ev("response.created", { response: response("in_progress", []) });
      await ev("response.in_progress", { response: response("in_progress", []) });
      for (const [output_index, b] of blocks.entries()) {
        const done = item(b, output_index);
        if (b.type === "text") {
          await ev("response.output_item.added", { output_index, item: { ...done, status: "in_progress", content: [] } });
          await ev("response.content_part.added", { item_id: done.id, output_index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
          for (const delta of b.chunks) {
            await ev("response.output_text.delta", { item_id: done.id, output_index, content_index: 0, delta });
            await pause();
          }
          await ev("response.output_text.done", { item_id: done.id, output_index, content_index: 0, text: b.text });
          await ev("response.content_part.done", { item_id: done.id, output_index, content_index: 0, part: done.content[0] });
        } else if (b.type === "thinking") {
          await ev("response.output_item.added", { output_index, item: { ...done, summary: [] } });
        } else {
          await ev("response.output_item.added", { output_index, item: { ...done, status: "in_progress", arguments: "" } });
          for (let i = 0; i < done.arguments.length; i += 40) await ev("response.function_call_arguments.delta", { item_id: done.id, output_index, delta: done.arguments.slice(i, i + 40) });
          await ev("response.function_call_arguments.done", { item_id: done.id, output_index, arguments: done.arguments });
          await pause();
        }
        await ev("response.output_item.done", { output_index, item: done });
        items.push(done);
      }
      this.ev = ev;
    },
    async finish() {
      await this.ev("response.completed", { response: { ...response("completed", items), usage } });
    },
  };
}

// ---------------------------------------------------------------------------------------------

function sendJson(res, status, value, headers = {}) {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

// As a program: the URL on the first stdout line, then a JSON line per request (the body left out:
// GET <url>/_standin/requests has everything).
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  let port = 0;
  let file = null;
  let quiet = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--port") port = Number(args[++i]);
    else if (args[i] === "--quiet") quiet = true;
    else if (args[i] === "--help" || args[i] === "-h") {
      console.log("usage: node standin.mjs [PLAN.json | -] [--port N] [--quiet]\nPrints its URL on the first line, then one JSON line per request (none with --quiet). README.md beside this file has the plan format.");
      process.exit(0);
    } else file = args[i];
  }
  let plan = { turns: [] };
  try {
    if (file) plan = normalizePlan(fs.readFileSync(file === "-" ? 0 : file, "utf8"));
  } catch (error) {
    console.error(`error: failed to read the plan ${JSON.stringify(file)}: ${error.message}`);
    process.exit(2);
  }
  const s = await start({
    plan,
    port,
    // A caller that reads the first line only must pass --quiet: a full pipe would block the server.
    onRequest: (r) => quiet || console.log(JSON.stringify({ seq: r.seq, method: r.method, path: r.path, kind: r.kind, turn: r.turn, failures: r.failures, answer: r.answer })),
  });
  console.log(s.url);
  const stop = async () => {
    await s.close();
    process.exit(s.failures.length ? 1 : 0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
