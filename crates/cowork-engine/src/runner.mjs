// The routine side of a run: the daemon starts one fresh Bun or Node process per run with this
// file (ahead of time when it keeps a warm spare: spares.rs), builds `ctx`, calls the routine's
// default export with (args, ctx) and reports the outcome. Each process serves exactly one run.
//
// It talks to the daemon over four inherited pipes:
//   fd 0  the run's inputs (`init` in protocol.rs: the module, its arguments, the run id …) as one
//         JSON document, then end-of-file: the daemon writes them when it gives this process its
//         run (at once for a cold start, when it is claimed for a spare), so nothing of a run is
//         in the process before then, and only this process can read them
//   fd 3  requests and events as JSON lines, this process → daemon (written synchronously, so
//         nothing is lost when the routine exits right after)
//   fd 4  answers to asynchronous requests (routines.run, notify, badge)
//   fd 5  answers to synchronous requests (ctx.db, ctx.secrets …), read with a blocking readSync
//         because `ctx.db` is synchronous by contract
// console.log/info/debug/warn/error travel on fd 3 too, labelled with the stream they stand for,
// so the daemon gets a routine's lines in the order it wrote them (two pipes read apart interleave
// at random); what is written to stdout and stderr directly still arrives on those pipes.

// Nothing is imported up front. Each built-in module costs Bun several ms of start-up (node:util
// ~10 ms, node:fs ~6 ms, where an empty script takes ~16 ms in all), so each is loaded on first
// use; on Bun a trivial run reads its inputs and writes its outcome with Bun's own file API and
// loads none. What the daemon can work out once (the module's file URL, the data folder) comes
// in the inputs instead.
const bun = typeof Bun !== "undefined";
const builtin = (name) => process.getBuiltinModule(name);
// The real exit, for the runner's own use: the routine's `process.exit` is replaced (see report).
const exit = process.exit.bind(process);
let fsModule = null;
let util = null;
let pathModule = null;
const fs = () => (fsModule ??= builtin("node:fs"));
const format = (...parts) => (util ??= builtin("node:util")).format(...parts);
const path = () => (pathModule ??= builtin("node:path"));

// Every op this file sends. protocol.rs decodes exactly these: a Rust test fails when an op is
// on one side only, and when an op is sent here without being listed.
export const OPS = [
  "log", "done", "fail", "exit",
  "db.query", "db.exec", "db.begin", "db.commit", "db.rollback",
  "queue", "journal.add",
  "secrets.get", "secrets.list", "secrets.set",
  "credential.fields", "credential.status", "credential.token", "credential.authorize", "credential.start", "credential.disconnect",
  "routines.run", "consent.request", "notify", "badge",
  "auth.idToken", "browser",
];

const REQUESTS = 3;
const ASYNC_ANSWERS = 4;
const SYNC_ANSWERS = 5;

// Plain typed arrays rather than Buffer, whose first use costs Bun a few ms.
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function send(message) {
  const bytes = encoder.encode(JSON.stringify(message) + "\n");
  let offset = 0;
  while (offset < bytes.length) offset += fs().writeSync(REQUESTS, bytes, offset);
}

// A longer line is sent cut, with how many bytes were left out (`cut`): a routine logging a huge
// value must not cost the pipe and the daemon its size. The daemon keeps less of a line than this
// (LINE_CAP in run.rs) and masks secrets before it cuts again, so a secret this cut straddles
// shows none of its characters.
const LINE_CAP_CHARS = 64 * 1024;

// `text` as sent: at most LINE_CAP_CHARS characters, and how many bytes were left out.
function capped(text) {
  if (text.length <= LINE_CAP_CHARS) return [text, 0];
  // Never half a surrogate pair.
  const high = text.charCodeAt(LINE_CAP_CHARS - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? LINE_CAP_CHARS - 1 : LINE_CAP_CHARS;
  return [text.slice(0, end), Buffer.byteLength(text.slice(end), "utf8")];
}

function sendLine(stream, text) {
  const [line, cut] = capped(text);
  const message = stream ? { op: "log", stream, line } : { op: "log", line };
  if (cut) message.cut = cut;
  send(message);
}

// Each console method's stream, as the routine would have printed it.
const CONSOLE_STREAMS = { log: "stdout", info: "stdout", debug: "stdout", warn: "stderr", error: "stderr" };

function routeConsole() {
  for (const [method, stream] of Object.entries(CONSOLE_STREAMS)) {
    // One message per line, as the pipes were read: a line is what the Output panel shows and
    // what a multi-line secret is masked by.
    console[method] = (...parts) => {
      for (const line of format(...parts).split("\n")) sendLine(stream, line.replace(/\r$/, ""));
    };
  }
}

function named(name, message, extra) {
  const error = new Error(message);
  error.name = name;
  return Object.assign(error, extra);
}

function failure(answer) {
  return named(answer.error.name, answer.error.message, answer.error.runId ? { runId: answer.error.runId } : {});
}

let nextId = 1;
const waiting = new Map();
let answers = null;

// Opened on the first asynchronous request: an open stream keeps the process alive, and a routine
// that never awaits the daemon should not pay for it. Lines are split here: no line reader.
async function listen() {
  let pending = "";
  fs().createReadStream(null, { fd: ASYNC_ANSWERS, encoding: "utf8" }).on("data", (chunk) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop();
    for (const line of lines) answered(JSON.parse(line));
  });
}

function answered(answer) {
  const pending = waiting.get(answer.id);
  if (!pending) return;
  waiting.delete(answer.id);
  if (answer.error) pending.reject(failure(answer));
  else pending.resolve(answer.ok);
}

async function call(op, args) {
  answers ??= listen();
  await answers;
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    send({ id, op, args });
  });
}

// What was read of the synchronous answers and not yet answered, and the buffer reads go into:
// allocated once, not per call (a routine taking tasks one at a time makes thousands of calls,
// and a fresh 64 KiB buffer each was a fifth of a call's time on Bun).
let syncBuffer = new Uint8Array(0);
let syncChunk = null;
function callSync(op, args) {
  const id = nextId++;
  send({ id, op, args, sync: true });
  syncChunk ??= new Uint8Array(64 * 1024);
  for (;;) {
    const newline = syncBuffer.indexOf(10);
    if (newline >= 0) {
      const line = decoder.decode(syncBuffer.subarray(0, newline));
      syncBuffer = syncBuffer.subarray(newline + 1);
      const answer = JSON.parse(line);
      if (answer.error) throw failure(answer);
      return answer.ok;
    }
    const read = fs().readSync(SYNC_ANSWERS, syncChunk, 0, syncChunk.length, null);
    if (read === 0) throw named("Disconnected", "the daemon closed this run's channel");
    // Copied out: the next read reuses the chunk.
    if (syncBuffer.length === 0) {
      syncBuffer = syncChunk.slice(0, read);
      continue;
    }
    const joined = new Uint8Array(syncBuffer.length + read);
    joined.set(syncBuffer);
    joined.set(syncChunk.subarray(0, read), syncBuffer.length);
    syncBuffer = joined;
  }
}

// The task store in this process: the daemon names its Node-API module (cowork-queue-napi,
// copied beside this file) in the run's inputs, and it is loaded at the first `ctx.queue` call.
// One call through the daemon was a round trip of ~100 µs around ~27 µs of store work; here it
// is the store's work. Without the module (the engine found none, or was told not to use it),
// or when it does not load here, each call goes to the daemon as the `queue` op, which answers
// the same JSON from the same store code.
let queueStore = null;
function queueInProcess(init) {
  if (!init.queueModule) return;
  queueStore = { file: init.queueModule, root: init.workspaceRoot, module: null, typed: false };
}

// The module, loaded (and bound to the run's workspace) at the first call; null without one.
function queueModule() {
  if (queueStore && !queueStore.module) {
    const loaded = { exports: {} };
    try {
      process.dlopen(loaded, queueStore.file);
    } catch {}
    if (typeof loaded.exports.call !== "function") return (queueStore = null);
    queueStore.module = loaded.exports;
    try {
      queueStore.typed = loaded.exports.bind(queueStore.root) === true;
    } catch {}
  }
  return queueStore?.module ?? null;
}

function queueAnswer(text) {
  const answer = JSON.parse(text);
  if (answer.error) throw failure(answer);
  return answer.ok;
}

function queueCall(request) {
  const module = queueModule();
  if (!module) return callSync("queue", request);
  return queueAnswer(module.call(queueStore.root, JSON.stringify(request)));
}

// The hot verbs of a one-at-a-time loop (send, receive, ack without options) have typed entry
// points in the module: their arguments cross as strings and numbers, not as a request's JSON
// (~1/4 of a call's cost above the store's own). Any other shape takes queueCall, which answers
// the same (cowork-queue-napi's tests compare the two).
function typedQueue() {
  const module = queueModule();
  return module && queueStore.typed ? module : null;
}
const noOptions = (options) => {
  if (options === null || typeof options !== "object" || Array.isArray(options)) return false;
  for (const _ in options) return false;
  return true;
};
const onlyAs = (options) => {
  if (options === null || typeof options !== "object" || Array.isArray(options)) return false;
  for (const key in options) if (key !== "as") return false;
  return options.as === undefined || options.as === null || typeof options.as === "string";
};

// `ctx.queue(name)`: the workspace's task queue, synchronous like `ctx.db` (cowork-queue runs
// each call, in this process or in the daemon or CLI that started this run: queueCall). Which
// method each wrapper sends, and with which fields, is pinned with sdk.ts and cowork.d.ts by
// tests/queue_sdk.rs.
function makeQueue(queue) {
  if (typeof queue !== "string" || queue === "") throw named("BadRequest", "ctx.queue(name): a queue name is required");
  const method = (name, args) => queueCall({ method: name, queue, ...args });
  let typed = null;
  return {
    send: (body, options = {}) => (typeof body === "string" && noOptions(options) && (typed ??= typedQueue())
      ? queueAnswer(typed.send(queue, body))
      : method("send", { body, options })),
    receive: (options = {}) => (onlyAs(options) && (typed ??= typedQueue())
      ? queueAnswer(typed.receive(queue, options.as ?? null))
      : method("receive", { options })),
    ack: (id, receipt, options = {}) => (Number.isSafeInteger(id) && typeof receipt === "string" && noOptions(options) && (typed ??= typedQueue())
      ? queueAnswer(typed.ack(queue, id, receipt))
      : method("ack", { id, receipt, options })),
    sendMany: (tasks) => method("sendMany", { tasks }),
    receiveMany: (max, options = {}) => method("receiveMany", { max, options }),
    ackMany: (acks) => method("ackMany", { acks }),
    nack: (id, receipt, options = {}) => method("nack", { id, receipt, options }),
    approve: (id) => method("approve", { id }),
    reject: (id, comment, options = {}) => method("reject", { id, comment, files: options.files ?? [] }),
    reply: (id, body, options = {}) => method("reply", { id, body, options }),
    retry: (id) => method("retry", { id }),
    peek: (id) => method("peek", { id }),
    list: (query = {}) => method("items", { query }),
    counts: () => method("counts", {}),
  };
}

// A name must reach a file (or folder) below `dir`: "." or "a//b" would resolve to `dir` itself
// (write(".") replaced the folder with a file, remove(".") deleted it), ".." and "/x" outside it.
function insideFolder(dir, name, what) {
  if (typeof name !== "string" || name === "") throw named("BadRequest", `${what}: a name is required`);
  const parts = name.split("/");
  if (path().isAbsolute(name) || name.includes("\\") || parts.some((part) => part === "" || part === "." || part === "..")) {
    throw named("BadRequest", `${what}: "${name}" must name something inside ${dir} (relative, no "..", no "." or empty parts)`);
  }
  const file = path().join(dir, name);
  refuseLinks(dir, parts, what, name);
  return file;
}

// The check above is textual: a symbolic link inside the data folder (synced or checked out there)
// would still lead a write outside it. Every part of the way that exists, the folder itself
// included, must be a real file or folder, not a link.
function refuseLinks(dir, parts, what, name) {
  let at = dir;
  for (const part of ["", ...parts]) {
    at = part ? path().join(at, part) : at;
    let stat;
    try {
      stat = fs().lstatSync(at);
    } catch {
      return; // Nothing there yet: what is created below it is created inside.
    }
    if (stat.isSymbolicLink()) {
      throw named("BadRequest", `${what}: "${name ?? "."}" goes through ${at}, a symbolic link (the data folder holds only real files and folders)`);
    }
  }
}

function makeData(init) {
  const dir = init.dataDir;
  const relative = (abs) => path().relative(init.workspaceRoot, abs).split(path().sep).join("/");
  const ensureIgnored = () => {
    const ignore = path().join(path().dirname(dir), ".gitignore");
    if (!fs().existsSync(ignore)) fs().writeFileSync(ignore, init.dataIgnore);
  };
  return {
    dir,
    path: (name) => insideFolder(dir, name, "ctx.data.path"),
    read(name, fallback = null) {
      const file = insideFolder(dir, name, "ctx.data.read");
      try {
        return JSON.parse(fs().readFileSync(file, "utf8"));
      } catch {
        return fallback;
      }
    },
    write(name, value) {
      const file = insideFolder(dir, name, "ctx.data.write");
      fs().mkdirSync(path().dirname(file), { recursive: true });
      ensureIgnored();
      // Atomic: a crash mid-write leaves the old file, never half of the new one.
      const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
      const fd = fs().openSync(temp, "w");
      try {
        fs().writeSync(fd, JSON.stringify(value, null, 2) + "\n");
        fs().fsyncSync(fd);
      } finally {
        fs().closeSync(fd);
      }
      fs().renameSync(temp, file);
      return relative(file);
    },
    list(subfolder = "") {
      const folder = subfolder ? insideFolder(dir, subfolder, "ctx.data.list") : dir;
      if (!subfolder) refuseLinks(dir, [], "ctx.data.list");
      try {
        return fs().readdirSync(folder).filter((n) => !n.endsWith(".tmp")).sort();
      } catch {
        return [];
      }
    },
    remove(name) {
      const file = insideFolder(dir, name, "ctx.data.remove");
      try {
        fs().rmSync(file, { recursive: true });
        return true;
      } catch {
        return false;
      }
    },
    fileName(title, fallback = "untitled") {
      const base = String(title ?? "")
        .normalize("NFKD")
        .replace(/[\u0300-\u036f]/g, "")
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, 80)
        .replace(/-+$/, "");
      return base || fallback;
    },
  };
}

function makeDb(dbPath) {
  if (typeof dbPath !== "string" || dbPath === "") throw named("BadRequest", "ctx.db(path): a workspace-relative .db path is required");
  const query = (sql, params) => callSync("db.query", { path: dbPath, sql, params: params ?? [] });
  const exec = (sql, params) => callSync("db.exec", { path: dbPath, sql, params: params ?? [] });
  const transaction = (fn) => {
    callSync("db.begin", { path: dbPath });
    try {
      const value = fn();
      if (value && typeof value.then === "function") {
        throw named("BadRequest", "ctx.db().transaction(fn): fn must be synchronous (it returned a Promise)");
      }
      callSync("db.commit", { path: dbPath });
      return value;
    } catch (error) {
      callSync("db.rollback", { path: dbPath });
      throw error;
    }
  };
  return { query, exec, transaction };
}

function makeCtx(init, run) {
  queueInProcess(init);
  const identity = Object.freeze({
    user: init.identity.user ? Object.freeze({ ...init.identity.user }) : null,
    organization: init.identity.organization ? Object.freeze({ ...init.identity.organization }) : null,
  });
  return {
    workspaceRoot: init.workspaceRoot,
    identity,
    log: (...parts) => sendLine(undefined, format(...parts)),
    error: (name, message) => named(String(name), String(message ?? "")),
    unchanged: () => {
      run.unchanged = true;
    },
    data: makeData(init),
    db: makeDb,
    routines: {
      run: (id, args = {}, options = {}) => call("routines.run", { id, args, timeoutMs: options.timeoutMs ?? null }),
    },
    notify: (notification) => call("notify", notification ?? {}),
    badge: (count) => call("badge", { count }),
    auth: {
      // Frozen with ctx.identity at the start of the run; a fresh copy each call.
      getState: async () => ({ authenticated: init.auth.authenticated, user: init.auth.user ? { ...init.auth.user } : null }),
      getIdToken: () => call("auth.idToken", {}),
    },
    secrets: {
      get: (name) => callSync("secrets.get", { name }) ?? undefined,
      list: () => callSync("secrets.list", {}),
      set: (name, value) => {
        callSync("secrets.set", { name, value: String(value) });
      },
    },
    credential: {
      fields: () => callSync("credential.fields", {}),
      status: () => callSync("credential.status", {}),
      token: (options = {}) => call("credential.token", { force: Boolean(options.force) }),
      start: () => call("credential.start", {}),
      disconnect: () => call("credential.disconnect", {}),
      fetch: credentialFetch,
    },
    command: {
      run: async (cmd, options = {}) => {
        if (typeof cmd !== "string" || cmd.trim() === "") throw named("BadRequest", "ctx.command.run(cmd, options): cmd is a shell command line");
        const answer = await call("consent.request", {
          value: options.value ?? cmd,
          title: options.title,
          description: options.description,
          command: cmd,
        });
        if (!answer.granted) throw named("Denied", answer.message ?? "the command was not allowed");
        return runShell(cmd, init.workspaceRoot, options.timeoutMs);
      },
    },
    consent: {
      request: (request = {}) => call("consent.request", request),
    },
    queue: makeQueue,
    journal: {
      add: (entry = {}) => callSync("journal.add", entry),
    },
    browser: makeBrowser(),
  };
}

// ctx.browser: each action is one "browser" request (cowork_wire::browser::Action, tagged by its
// name) with the page it is for ({ tabIndex } or a site app's { app }) and its budget; the engine
// refuses an app without "requires": ["desktop"], the daemon asks consent and the shell acts.
function makeBrowser() {
  const act = (action, fields, options = {}) => {
    const { tabIndex, app, timeoutMs } = options ?? {};
    const target = {};
    if (tabIndex !== undefined && tabIndex !== null) target.tabIndex = tabIndex;
    if (app !== undefined && app !== null) target.app = app;
    const request = { action, ...fields, target };
    if (timeoutMs !== undefined && timeoutMs !== null) request.timeoutMs = timeoutMs;
    return call("browser", request);
  };
  // waitFor's condition: { text, gone? } | { ref, state } | { url? , navigation: true } |
  // { networkIdle: true } | a string (its text), or the wire's own { for: … }.
  const condition = (c) => {
    if (typeof c === "string") return { for: "text", text: c };
    if (c === null || typeof c !== "object") throw named("BadRequest", "browser.waitFor(condition): a text, or { text } / { ref, state } / { navigation: true, url? } / { networkIdle: true }");
    if (c.for) return c;
    if (c.ref !== undefined) return { for: "ref", ref: c.ref, state: c.state ?? "visible" };
    if (c.text !== undefined) return { for: "text", text: c.text, gone: Boolean(c.gone) };
    if (c.networkIdle) return { for: "networkIdle" };
    if (c.navigation || c.url !== undefined) return c.url === undefined ? { for: "navigation" } : { for: "navigation", url: c.url };
    throw named("BadRequest", "browser.waitFor(condition): a text, or { text } / { ref, state } / { navigation: true, url? } / { networkIdle: true }");
  };
  const ref = (options) => (options?.ref === undefined || options?.ref === null ? {} : { ref: options.ref });
  const open = (url, options) => act("open", url === undefined || url === null ? {} : { url: String(url) }, options);
  return {
    open,
    // Deprecated: what open() does.
    toggle: (options) => open(undefined, options),
    navigate: (url, options) => act("navigate", { url: String(url) }, options),
    snapshot: (options = {}) => act("snapshot", { ...ref(options), ...(options.cursor ? { cursor: options.cursor } : {}) }, options),
    find: (query = {}, options = {}) => act("find", {
      ...(query.role !== undefined ? { role: query.role } : {}),
      ...(query.name !== undefined ? { name: query.name } : {}),
      ...(query.text !== undefined ? { text: query.text } : {}),
      ...(query.exact ? { exact: true } : {}),
    }, options),
    click: (node, options = {}) => act("click", { ref: node, ...(options.button ? { button: options.button } : {}), ...(options.double ? { double: true } : {}) }, options),
    fill: (node, value, options) => act("fill", { ref: node, value: String(value) }, options),
    type: (text, options = {}) => act("type", { ...ref(options), text: String(text), ...(options.submit ? { submit: true } : {}) }, options),
    press: (key, options = {}) => act("press", { ...ref(options), key: String(key) }, options),
    select: (node, values, options) => act("select", { ref: node, values: (Array.isArray(values) ? values : [values]).map(String) }, options),
    check: (node, checked = true, options) => act("check", { ref: node, checked: Boolean(checked) }, options),
    waitFor: (c, options) => act("waitFor", { condition: condition(c) }, options),
    read: (options = {}) => act("read", { ...ref(options), ...(options.cursor ? { cursor: options.cursor } : {}) }, options),
    screenshot: (options = {}) => act("screenshot", { ...ref(options), ...(options.fullPage ? { fullPage: true } : {}) }, options),
    tabs: () => act("tabs", {}),
    close: (options) => act("close", {}, options),
    // A function is sent as its source and called in the page; the answer is its value.
    evaluate: async (js, options) => (await act("evaluate", { js: typeof js === "function" ? `(${js})()` : String(js) }, options)).value,
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// How long to wait before retry `attempt` (0-based) of a 429/5xx: the service's Retry-After when it
// gives one (capped at 30 s), else 0.5 s doubling.
function retryDelay(response, attempt) {
  const after = Number(response.headers.get("retry-after"));
  if (Number.isFinite(after) && after >= 0) return Math.min(after, 30) * 1000;
  return 500 * 2 ** attempt;
}

// ctx.credential.fetch: the daemon says what to send (a sign-in's bearer, checked against the
// provider's API hosts; a key sends nothing by itself), 401 refreshes once, 429/5xx retry.
async function credentialFetch(url, init = {}) {
  const { retries = 2, json, ...rest } = init;
  if (!Number.isInteger(retries) || retries < 0 || retries > 4) throw named("BadRequest", "credential.fetch: retries is a whole number from 0 to 4");
  const headers = new Headers(rest.headers ?? {});
  let body = rest.body;
  if (json !== undefined) {
    body = JSON.stringify(json);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  const target = String(url);
  let auth = await call("credential.authorize", { url: target, force: false });
  let refreshed = false;
  for (let attempt = 0; ; ) {
    const sent = new Headers(headers);
    if (auth.authorization) sent.set("authorization", auth.authorization);
    const response = await fetch(target, { ...rest, headers: sent, body });
    if (response.status === 401 && auth.authorization && !refreshed) {
      refreshed = true;
      auth = await call("credential.authorize", { url: target, force: true });
      continue;
    }
    if ((response.status === 429 || response.status >= 500) && attempt < retries) {
      await sleep(retryDelay(response, attempt));
      attempt += 1;
      continue;
    }
    return response;
  }
}

// A command runs in a login shell (so it finds what the person's PATH has) in the workspace; it
// is in this process's group, so the run's timeout ends it too. It must not inherit this run's
// channel: with fd 3 a command could send `op: "done"` and forge the routine's result. Neither
// runtime can mark an inherited fd close-on-exec, so a plain sh closes 3–5 and then execs the
// login shell.
const CLOSE_CHANNEL = 'exec 3>&- 4>&- 5>&-; exec "$0" -lc "$1"';

async function runShell(cmd, cwd, timeoutMs) {
  const { spawn } = await import("node:child_process");
  return new Promise((resolve, reject) => {
    const shell = process.env.SHELL || "/bin/sh";
    const child = spawn("/bin/sh", ["-c", CLOSE_CHANNEL, shell, cmd], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    const err = [];
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => err.push(chunk));
    const timer = timeoutMs ? setTimeout(() => {
      child.kill("SIGKILL");
      reject(named("Timeout", `the command did not finish within ${timeoutMs} ms: ${cmd}`));
    }, timeoutMs) : null;
    child.on("error", (error) => reject(named("CommandFailed", `${shell} could not start: ${error.message}`)));
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") });
    });
  });
}

function serializable(value) {
  if (value === undefined) return { value: null };
  const notSerializable = (why) => ({ value: null, warning: `the routine's return value is not JSON-serializable (${why}); the caller gets null` });
  try {
    const text = JSON.stringify(value);
    // A function or a Symbol has no JSON form: stringify gives undefined instead of throwing.
    if (text === undefined) return notSerializable(`a ${typeof value}`);
    return { value: JSON.parse(text) };
  } catch (error) {
    return notSerializable(error.message);
  }
}

// What the routine threw, its message and stack capped as a log line is: a huge message must not
// cost the pipe and the daemon its size either.
function describe(error) {
  const thrown = error instanceof Error
    ? { name: error.name || "Error", text: String(error.message), stack: error.stack && capped(String(error.stack))[0] }
    : { name: "Error", text: typeof error === "string" ? error : format(error) };
  const [message, cut] = capped(thrown.text);
  const described = { name: thrown.name, message };
  if (thrown.stack) described.stack = thrown.stack;
  if (cut) described.cut = cut;
  return described;
}

// The run's inputs, from stdin (blocking until this process is given its run). End-of-file with
// nothing means the daemon is gone before giving this process a run: nothing to do.
async function inputs() {
  const text = bun ? await Bun.stdin.text() : fs().readFileSync(0, "utf8");
  if (text === "") exit(0);
  return JSON.parse(text);
}

// After its outcome this process waits to be ended rather than exiting: it is its descendants'
// subreaper (process.rs), so what the routine started and left behind — even a grandchild that
// detached itself after its parent quit — is still in its tree when the daemon kills that tree,
// which it does as soon as it has read the outcome (the minute below is only a backstop).
let reported = false;
async function report(outcome) {
  if (reported) return;
  reported = true;
  if (fsModule || !bun) {
    send(outcome);
  } else {
    // Nothing else was ever written on fd 3, so this one write cannot overtake another.
    const sink = Bun.file(REQUESTS).writer();
    sink.write(JSON.stringify(outcome) + "\n");
    await sink.flush();
  }
  setTimeout(() => exit(0), 60_000);
}

// A routine that calls process.exit before its outcome must not end this process either: what it
// started would be reparented to init, out of the tree kill's reach. The exit is reported with its
// code, and this process blocks (Atomics.wait sleeps; it cannot return to the routine's code) until
// the daemon ends the tree.
process.exit = (code) => {
  if (!reported) {
    reported = true;
    send({ op: "exit", code: Number(code ?? process.exitCode ?? 0) | 0 });
  }
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
  exit(0);
};

// What a run's inputs hold, emptied: a throwaway ctx built from it before the inputs are read.
const NO_RUN = {
  identity: { user: null, organization: null },
  auth: { authenticated: false, user: null },
  workspaceRoot: "",
  dataDir: "",
  queueModule: null,
};

async function main() {
  routeConsole();
  // Bun and Node compile a function at its first call: building a ctx (and the outcome) once
  // here, before a spare waits for its run, takes that work (~0.3 ms on Bun) off the run's path.
  // A cold start does the same work either way.
  makeCtx(NO_RUN, {});
  serializable({});
  // Bun sets its module loader up at its first import of a file (~0.3 ms): a spare pays that
  // on an empty module beside this file (spares.rs's WARM_MODULE), not in its run's import.
  await import(new URL("./warm.mjs", import.meta.url).href).catch(() => {});
  const init = await inputs();
  // The environment a fresh process would have had: ctx.command.run and the routine see it.
  process.env.COWORK_RUN_ID = init.runId;
  const run = { unchanged: false };
  const ctx = makeCtx(init, run);
  let outcome;
  try {
    const module = await import(init.entry);
    if (typeof module.default !== "function") {
      throw named("BadRoutine", `${init.file} has no default export function: write \`export default async (args, ctx) => { … }\``);
    }
    const { value, warning } = serializable(await module.default(init.args, ctx));
    outcome = { op: "done", result: value, unchanged: run.unchanged, warning };
  } catch (error) {
    outcome = { op: "fail", error: describe(error) };
  }
  await report(outcome);
}

process.on("uncaughtException", (error) => report({ op: "fail", error: describe(error) }));
process.on("unhandledRejection", (error) => report({ op: "fail", error: describe(error) }));

main();
