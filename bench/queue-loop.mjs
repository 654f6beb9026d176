// The one-at-a-time loop of `cargo bench -p cowork-engine --bench queue`, on the task store's
// Node-API module (cowork-queue-napi) in a bare Bun or Node process: no engine, no runner — what
// a routine's `ctx.queue` costs above the store's own work, and how that moves from one process
// to the next (BENCHMARKS.md, "Through a routine's `ctx.queue`").
//   bun queue-loop.mjs <module.so> [jobs] [rounds]      (or: node queue-loop.mjs …)
// The module: the `libcowork_queue_napi.so` of a release build (target/release/). Each round
// sends <jobs> tasks, then receives and acks each, through the module's typed verbs with every
// answer's JSON parsed, as runner.mjs does, on a queue of its own in one fresh workspace (the
// module holds one store per process). Prints one JSON line a round: tasks per second of wall
// and per CPU-second of the process, its user and system milliseconds, its minor page faults,
// and the CPU milliseconds of each of its threads (by name: a JIT or GC thread shows there).
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const [file, jobsArg, roundsArg] = process.argv.slice(2)
if (!file) throw new Error("usage: queue-loop.mjs <libcowork_queue_napi.so> [jobs] [rounds]")
const jobs = Number(jobsArg ?? 5000)
const rounds = Number(roundsArg ?? 1)
const workspace = mkdtempSync(join(tmpdir(), "queue-loop-"))
const loaded = { exports: {} }
process.dlopen(loaded, file)
const store = loaded.exports
if (store.bind(workspace) !== true) throw new Error("the module did not bind the workspace")

const answer = (text) => {
  const parsed = JSON.parse(text)
  if (parsed.error) throw new Error(`${parsed.error.name}: ${parsed.error.message}`)
  return parsed.ok
}

// CPU milliseconds of each thread so far, by thread name (10 ms ticks).
const threads = () => {
  const by = {}
  for (const id of readdirSync("/proc/self/task")) {
    const stat = readFileSync(`/proc/self/task/${id}/stat`, "utf8")
    const name = readFileSync(`/proc/self/task/${id}/comm`, "utf8").trim()
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    by[name] = (by[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10
  }
  return by
}

const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.version}`
try {
  for (let round = 0; round < rounds; round++) measure(round)
} finally {
  rmSync(workspace, { recursive: true })
}

function measure(round) {
  const queue = `loop${round}`
  // Opens the store before the clock (the first round), as the bench does: the queue does not
  // exist yet, so the answer is a refusal, not read.
  store.call(workspace, JSON.stringify({ method: "counts", queue }))
  const before = { threads: threads(), usage: process.resourceUsage() }
  const cpu = process.cpuUsage()
  const start = performance.now()
  for (let i = 0; i < jobs; i++) answer(store.send(queue, `task ${i}`))
  let done = 0
  for (let t = answer(store.receive(queue, "worker")); t; t = answer(store.receive(queue, "worker"))) {
    answer(store.ack(queue, t.id, t.receipt))
    done++
  }
  const ms = performance.now() - start
  const used = process.cpuUsage(cpu)
  if (done !== jobs) throw new Error(`${done} of ${jobs} tasks came back`)
  const after = { threads: threads(), usage: process.resourceUsage() }
  const perThread = Object.fromEntries(
    Object.entries(after.threads).map(([name, msOf]) => [name, msOf - (before.threads[name] ?? 0)]),
  )
  console.log(JSON.stringify({
    runtime,
    round,
    jobs,
    wall: Math.round(jobs / (ms / 1000)),
    perCpuSecond: Math.round(jobs / ((used.user + used.system) / 1e6)),
    userMs: Math.round(used.user / 1000),
    systemMs: Math.round(used.system / 1000),
    minorFaults: after.usage.minorPageFault - before.usage.minorPageFault,
    threadsMs: perThread,
  }))
}
