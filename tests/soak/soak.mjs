#!/usr/bin/env node
// The crash-safety soak: kills the daemon (and, half the time, a running routine's process first)
// with SIGKILL at a random moment while writers hit ctx.data, ctx.db, the secret store, the task
// queue, the audit log and workspace.json (an app switched on and off); then restarts the daemon
// on the same port and checks that every acknowledged write is there, that no file is half-written
// or empty, that every store opens, that no routine process outlived the daemon and that the
// daemon reclaimed its pidfile and port. Prints the iterations and anything lost; exits 1 on a loss.
//
//   COWORK_BIN=target/release/cowork node tests/soak/soak.mjs [--kills 1000] [--seed 42]
//
// A write is acknowledged when the daemon's answer says so: a routine run answered ok (it wrote
// its data file, its row, its secret and its queue task, in that order, before returning), and a
// switch answered 200. A write in flight at the kill may land or not; it must never land halfway.

import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const KILLS = option("kills", 20);
let seed = option("seed", Date.now() % 100000);
const SEED = seed;
// A small deterministic generator, so a failing seed can be replayed.
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const bin = process.env.COWORK_BIN;
if (!bin || !fs.existsSync(bin)) {
  console.error("error: set COWORK_BIN to a built cowork binary (cargo build --release -p cowork-cli)");
  process.exit(2);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "cowork-soak-"));
const home = path.join(scratch, "home");
const ws = path.join(scratch, "ws");
const write = (rel, text) => {
  fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
  fs.writeFileSync(path.join(ws, rel), text);
};
write(".cowork/apps/soak/cowork.json", JSON.stringify({
  name: "soak", version: "1.0.0", routines: { "soak-write": "write.ts", "soak-check": "check.ts" },
}));
write(".cowork/apps/soak/write.ts", `export default (args: any, ctx: any) => {
  const i = args.i;
  ctx.data.write(\`w/\${i}.json\`, { i });
  const db = ctx.db("soak.db");
  db.exec("create table if not exists t (i integer primary key)");
  db.exec("insert into t (i) values (?)", [i]);
  ctx.secrets.set(\`soak.n\${i}\`, String(i));
  const task = ctx.queue("soak").send(JSON.stringify({ i }));
  return { i, task: task.id };
};
`);
write(".cowork/apps/soak/check.ts", `export default (args: any, ctx: any) => {
  const missing: string[] = [];
  for (const i of args.acked) {
    if (ctx.data.read(\`w/\${i}.json\`)?.i !== i) missing.push(\`ctx.data w/\${i}.json\`);
  }
  ctx.db("soak.db").exec("create table if not exists t (i integer primary key)");
  const rows = new Set(ctx.db("soak.db").query("select i from t").map((r: any) => r.i));
  for (const i of args.acked) if (!rows.has(i)) missing.push(\`ctx.db row \${i}\`);
  const secrets = new Set(ctx.secrets.list());
  for (const i of args.acked) {
    if (!secrets.has(\`soak.n\${i}\`) || ctx.secrets.get(\`soak.n\${i}\`) !== String(i)) missing.push(\`secret soak.n\${i}\`);
  }
  for (const id of args.tasks) {
    try { if (ctx.queue("soak").peek(id) == null) missing.push(\`queue task \${id}\`); }
    catch (error: any) { missing.push(\`queue task \${id}: \${error.name}\`); }
  }
  return { missing, rows: rows.size, secrets: secrets.size };
};
`);
write(".cowork/apps/toggle/cowork.json", JSON.stringify({ name: "toggle", version: "1.0.0", routines: { "toggle-it": "it.ts" } }));
write(".cowork/apps/toggle/it.ts", "export default () => 1;\n");

const env = { ...process.env, COWORK_HOME: home };
delete env.COWORK_BIN;
const run = (argv) => new Promise((resolve) => {
  const child = spawn(bin, argv, { cwd: ws, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  child.on("close", (code) => resolve({ code, out }));
});
const setup = await run(["secrets", "init", "--key-file"]);
if (setup.code !== 0) {
  console.error(`error: cowork secrets init --key-file failed: ${setup.out}`);
  process.exit(2);
}

const freePort = () => new Promise((resolve) => {
  const server = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  });
});
const port = await freePort();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let daemon = null;
let token = null;
async function startDaemon() {
  daemon = spawn(bin, ["start", "--headless", "--port", String(port)], { cwd: ws, env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  daemon.stderr.on("data", (d) => (stderr += d));
  const deadline = Date.now() + 20000;
  for (;;) {
    try {
      const pidfile = JSON.parse(fs.readFileSync(path.join(home, "daemon.json"), "utf8"));
      token = fs.readFileSync(path.join(home, "daemon.token"), "utf8").trim();
      const health = await fetch(`http://127.0.0.1:${port}/api/health`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json());
      if (pidfile.pid === daemon.pid && health.pid === daemon.pid) return;
    } catch {
      // Not up yet.
    }
    if (Date.now() > deadline || daemon.exitCode !== null) {
      throw new Error(`the daemon did not reclaim its pidfile and port ${port}: ${stderr}\nwho listens on it: ${listeners(port).join("; ") || "nobody now"}`);
    }
    await sleep(10);
  }
}

async function post(route, body) {
  const response = await fetch(`http://127.0.0.1:${port}${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/// Processes running the runner of this soak's Cowork root.
/** The processes holding a socket that listens on `port` (pid, state and command line). */
function listeners(port) {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set();
  for (const line of fs.readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[1]?.endsWith(`:${hex}`) && fields[3] === "0A") inodes.add(`socket:[${fields[9]}]`);
  }
  const found = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const holds = fs.readdirSync(`/proc/${entry}/fd`).some((fd) => inodes.has(fs.readlinkSync(`/proc/${entry}/fd/${fd}`)));
      if (!holds) continue;
      const state = fs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1][0];
      found.push(`${entry} (${state}) ${fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim()}`);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

function routineProcesses() {
  const runner = path.join(home, "cache", "runner");
  const found = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const state = fs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1][0];
      if (cmdline.includes(runner) && state !== "Z") found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

let next = 0;
// Each loss is printed as it is found, and again in the summary.
const lost = [];
lost.push = (...lines) => {
  for (const line of lines) console.log(`lost: ${line}`);
  return Array.prototype.push.apply(lost, lines);
};
const ackedRuns = [];
// Runs that answered a failure, by error name (a killed routine process is one): not lost, since
// never acknowledged, but printed.
const refused = new Map();
let acknowledged = 0;
let switches = 0;
// Whether the toggle app was on when the last check read workspace.json (null before any).
let toggleFound = null;
let routineKills = 0;
const started = Date.now();
for (let iteration = 1; iteration <= KILLS; iteration++) {
  await startDaemon();
  const acked = [];
  const tasks = [];
  let alive = true;
  const writer = async () => {
    while (alive) {
      const i = next++;
      try {
        const { body } = await post("/api/routines/run", { workspace: ws, id: "soak-write", args: { i } });
        if (!body.ok) refused.set(body.error?.name, body.error?.message);
        if (body.ok && body.result?.i === i) {
          acked.push(i);
          tasks.push(body.result.task);
          ackedRuns.push(body.runId);
        }
      } catch {
        return; // The daemon is gone.
      }
    }
  };
  // The last switch acknowledged, and the one in flight (either may be on disk after a kill).
  const toggle = { acked: null, inFlight: null };
  const toggler = async () => {
    let enabled = false;
    while (alive) {
      toggle.inFlight = enabled;
      try {
        const { status } = await post("/api/apps/enable", { workspace: ws, app: "toggle", enabled });
        if (status !== 200) throw new Error(`switch answered ${status}`);
        toggle.acked = enabled;
        switches++;
      } catch {
        return;
      }
      enabled = !enabled;
    }
  };
  const writers = [writer(), writer(), writer(), toggler()];
  await sleep(150 + random() * 900);
  if (random() < 0.5) {
    const victims = routineProcesses();
    if (victims.length > 0) {
      try {
        process.kill(victims[Math.floor(random() * victims.length)], "SIGKILL");
        routineKills++;
      } catch {
        // It ended on its own meanwhile.
      }
      await sleep(random() * 50);
    }
  }
  process.kill(daemon.pid, "SIGKILL");
  alive = false;
  await Promise.all(writers);
  await new Promise((resolve) => (daemon.exitCode !== null || daemon.signalCode !== null ? resolve() : daemon.on("exit", resolve)));

  // Nothing outlives the daemon: its routines die with it (PR_SET_PDEATHSIG).
  const orphanDeadline = Date.now() + 3000;
  while (routineProcesses().length > 0 && Date.now() < orphanDeadline) await sleep(20);
  const orphans = routineProcesses();
  if (orphans.length > 0) {
    lost.push(`iteration ${iteration}: routine processes outlived the daemon: ${orphans.join(", ")}`);
    for (const pid of orphans) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
  }

  // Restarted on the same port: it must reclaim the stale pidfile and the port.
  await startDaemon();
  const check = await post("/api/routines/run", { workspace: ws, id: "soak-check", args: { acked, tasks } });
  if (!check.body.ok) {
    lost.push(`iteration ${iteration}: the stores did not open: ${JSON.stringify(check.body.error)}`);
  } else {
    for (const what of check.body.result.missing) lost.push(`iteration ${iteration}: acknowledged but missing: ${what}`);
  }
  // workspace.json parses, and holds the last acknowledged switch or the one in flight.
  try {
    const config = JSON.parse(fs.readFileSync(path.join(ws, ".cowork/workspace.json"), "utf8"));
    const disabled = (config.disabled?.apps ?? []).some((app) => app.endsWith("toggle"));
    // With no switch acknowledged in this iteration, the state the last check found still holds.
    const settled = toggle.acked ?? toggleFound;
    const allowed = [settled, toggle.inFlight].filter((v) => v !== null).map((enabled) => !enabled);
    if (allowed.length > 0 && !allowed.includes(disabled)) {
      lost.push(`iteration ${iteration}: workspace.json says toggle is ${disabled ? "off" : "on"}, but the last acknowledged switch turned it ${settled ? "on" : "off"}`);
    }
    toggleFound = !disabled;
  } catch (error) {
    if (toggle.acked !== null) lost.push(`iteration ${iteration}: workspace.json does not parse: ${error.message}`);
  }
  acknowledged += acked.length;
  process.kill(daemon.pid, "SIGKILL");
  await new Promise((resolve) => (daemon.exitCode !== null || daemon.signalCode !== null ? resolve() : daemon.on("exit", resolve)));
  if (iteration % 50 === 0 || iteration === KILLS) {
    console.log(`${iteration} kills, ${acknowledged} acknowledged runs, ${switches} switches, ${routineKills} routine processes killed, ${lost.length} lost (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
}

// Every file is whole: each data file parses, every audit line parses.
const dataDir = path.join(ws, ".cowork/data/soak/w");
for (const name of fs.existsSync(dataDir) ? fs.readdirSync(dataDir) : []) {
  if (name.endsWith(".tmp")) continue; // A write the kill interrupted: never under its real name.
  const text = fs.readFileSync(path.join(dataDir, name), "utf8");
  try {
    JSON.parse(text);
  } catch {
    lost.push(`data file ${name} is half-written or empty: ${JSON.stringify(text.slice(0, 40))}`);
  }
}
const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
let auditLines = 0;
const audited = new Set();
for (const file of walk(path.join(home, "workspaces")).filter((f) => f.endsWith(".jsonl"))) {
  for (const line of fs.readFileSync(file, "utf8").split("\n").filter(Boolean)) {
    auditLines++;
    try {
      JSON.parse(line);
    } catch {
      lost.push(`audit line in ${file} is cut: ${line.slice(0, 60)}`);
    }
    for (const id of line.match(/[0-9a-f]{32}/g) ?? []) audited.add(id);
  }
}
for (const id of ackedRuns) if (!audited.has(id)) lost.push(`run ${id} was acknowledged but has no audit line`);

console.log(`soak (seed ${SEED}): ${KILLS} kills of the daemon, ${routineKills} of routine processes; ${acknowledged} acknowledged runs (a data file, a row, a secret and a queue task each), ${switches} switches, ${auditLines} audit lines; lost: ${lost.length}`);
for (const [name, message] of refused) console.log(`unacknowledged runs included ${name}: ${message}`);
for (const line of lost) console.log(`  ${line}`);
fs.rmSync(scratch, { recursive: true, force: true });
process.exit(lost.length === 0 ? 0 : 1);
