// The peer of `cargo bench -p cowork-engine --bench queue`: npm plainjob (better-sqlite3, WAL,
// synchronous = NORMAL — its own settings) doing what ours does: add every job, then take
// (getAndMarkJobAsProcessing) and finish (markJobAsDone) until the queue is empty.
//   node queue-plainjob.mjs <jobs> [one | send-batched | batched] [batch]
// one: each call its own transaction. send-batched: added <batch> to a transaction with plainjob's
// own addMany, taken and finished one at a time. batched: addMany too, and plainjob having no batch
// take or finish, <batch> takes, then <batch> finishes, each inside one better-sqlite3 transaction
// (plainjob's own transactions nest in it as savepoints). Prints one JSON line: {jobs, ms, cpuMs}
// (cpuMs: the process's CPU time over the same span, user and system).
import Database from "better-sqlite3"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { better, defineQueue } from "plainjob"

const jobs = Number(process.argv[2] ?? 5000)
const mode = process.argv[3] ?? "one"
const batch = Number(process.argv[4] ?? 100)
if (!["one", "send-batched", "batched"].includes(mode)) throw new Error(`unknown mode ${mode}`)
const dir = mkdtempSync(join(tmpdir(), "plainjob-"))
const quiet = { error() {}, warn() {}, info() {}, debug() {} }
const db = new Database(join(dir, "jobs.db"))
const queue = defineQueue({ connection: better(db), logger: quiet })

// Takes up to `n` jobs and finishes them: one transaction for the takes, one for the finishes.
const takeBatch = db.transaction((n) => {
  const ids = []
  for (let i = 0; i < n; i++) {
    const job = queue.getAndMarkJobAsProcessing("task")
    if (!job) break
    ids.push(job.id)
  }
  return ids
})
const finishBatch = db.transaction((ids) => {
  for (const id of ids) queue.markJobAsDone(id)
})

const cpu = process.cpuUsage()
const start = performance.now()
if (mode === "one") {
  for (let i = 0; i < jobs; i++) queue.add("task", { body: `task ${i}` })
} else {
  for (let i = 0; i < jobs; i += batch) {
    const bodies = []
    for (let j = i; j < Math.min(i + batch, jobs); j++) bodies.push({ body: `task ${j}` })
    queue.addMany("task", bodies)
  }
}
let done = 0
if (mode === "batched") {
  for (;;) {
    const ids = takeBatch.immediate(batch)
    if (ids.length === 0) break
    finishBatch.immediate(ids)
    done += ids.length
  }
} else {
  for (;;) {
    const job = queue.getAndMarkJobAsProcessing("task")
    if (!job) break
    queue.markJobAsDone(job.id)
    done++
  }
}
const ms = performance.now() - start
const used = process.cpuUsage(cpu)
queue.close()
rmSync(dir, { recursive: true, force: true })
console.log(JSON.stringify({ jobs: done, ms, cpuMs: (used.user + used.system) / 1000 }))
