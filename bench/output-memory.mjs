// What a routine's output costs the daemon's memory, as QA measured it: a real
// `cowork start --headless` (its own temporary Cowork root), a warm-up run of a trivial routine,
// then one load through `POST /api/routines/run`; VmHWM (peak) and VmRSS of the daemon's process
// before and after. Loads: 800 MB printed to stdout with no newline, and 300,000 `ctx.log` lines
// of 1 KB. Each round is a fresh daemon; given two binaries, their rounds alternate (A B A B …)
// so machine noise hits both alike, and the medians print side by side.
//
//   node bench/output-memory.mjs <cowork> [<baseline cowork>] [rounds, default 3]
//
// Bun is found as the daemon finds it (COWORK_BUN, PATH, ~/.cowork-studio/runtime).
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, loadavg } from "node:os";
import { join } from "node:path";

const [ours, baseline, roundsArg] = process.argv.slice(2);
if (!ours) throw new Error("usage: node bench/output-memory.mjs <cowork> [<baseline cowork>] [rounds]");
const ROUNDS = Number(roundsArg ?? 3);

const LOADS = {
  "stdout 800 MB, no newline": `export default async () => {
  const chunk = "y".repeat(1 << 20);
  for (let i = 0; i < 800; i++) await new Promise((done) => process.stdout.write(chunk, done));
  return "printed";
};
`,
  "ctx.log 300,000 x 1 KB": `export default async (_args, ctx) => {
  const pad = "p".repeat(1000);
  for (let i = 0; i < 300000; i++) ctx.log(\`\${i} \${pad}\`);
  return "logged";
};
`,
};

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/// VmHWM and VmRSS of `pid`, in MiB.
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"))[1]) / 1024;
  return { hwm: field("VmHWM"), rss: field("VmRSS") };
}

async function round(bin, load) {
  const home = mkdtempSync(join(tmpdir(), "cowork-output-home-"));
  const ws = mkdtempSync(join(tmpdir(), "cowork-output-ws-"));
  const app = join(ws, ".cowork/apps/output");
  mkdirSync(app, { recursive: true });
  writeFileSync(
    join(app, "cowork.json"),
    JSON.stringify({ name: "output", version: "1.0.0", routines: { "output-warm": "warm.ts", "output-load": { file: "load.ts", timeout: 300 } } }),
  );
  writeFileSync(join(app, "warm.ts"), "export default () => 1\n");
  writeFileSync(join(app, "load.ts"), LOADS[load]);
  const port = await freePort();
  const daemon = spawn(bin, ["start", "--headless", "--port", String(port)], {
    env: { ...process.env, COWORK_HOME: home },
    stdio: ["ignore", "ignore", "ignore"],
  });
  try {
    const deadline = Date.now() + 60_000;
    while (!existsSync(join(home, "daemon.token"))) {
      if (Date.now() > deadline) throw new Error(`${bin} did not start`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const token = readFileSync(join(home, "daemon.token"), "utf8").trim();
    const run = async (id) => {
      for (;;) {
        try {
          const response = await fetch(`http://127.0.0.1:${port}/api/routines/run`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ workspace: ws, id, args: {} }),
          });
          const answer = await response.json();
          if (answer.ok !== true) throw new Error(`${id}: ${JSON.stringify(answer)}`);
          return answer;
        } catch (error) {
          if (error.cause?.code !== "ECONNREFUSED" || Date.now() > deadline) throw error;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    };
    await run("output-warm");
    const before = memory(daemon.pid);
    const started = Date.now();
    await run("output-load");
    const seconds = (Date.now() - started) / 1000;
    const after = memory(daemon.pid);
    return { peak: after.hwm, growth: after.hwm - before.hwm, held: after.rss - before.rss, before: before.rss, seconds };
  } finally {
    daemon.kill("SIGKILL");
    await new Promise((r) => daemon.once("exit", r));
    rmSync(home, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
}

const median = (rounds, key) => rounds.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(rounds.length / 2)];
const show = (rounds) =>
  `VmRSS before ${median(rounds, "before").toFixed(1)} MB, peak +${median(rounds, "growth").toFixed(1)} MB ` +
  `(VmHWM ${median(rounds, "peak").toFixed(1)} MB), held after the run +${median(rounds, "held").toFixed(1)} MB, ` +
  `load ${median(rounds, "seconds").toFixed(2)} s`;

console.log(`${ROUNDS} rounds per load, each a fresh daemon; MB = MiB; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
for (const load of Object.keys(LOADS)) {
  const mine = [];
  const theirs = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (baseline) theirs.push(await round(baseline, load));
    mine.push(await round(ours, load));
  }
  console.log(load);
  console.log(`  ${ours}: ${show(mine)}`);
  if (baseline) {
    console.log(`  ${baseline}: ${show(theirs)}`);
    const ratio = (key) => (median(mine, key) / Math.max(median(theirs, key), 0.1)).toFixed(4);
    console.log(`  ratio (first ÷ baseline): peak growth ${ratio("growth")}×, held after ${ratio("held")}×`);
  }
}
console.log(`load average after ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
