// The peer of `cargo bench -p cowork-queue --bench queue`: npm plainjob (better-sqlite3, WAL,
// synchronous = NORMAL — its own settings) doing what ours does, one job at a time: add, then
// take (getAndMarkJobAsProcessing) and finish (markJobAsDone) until the queue is empty. Prints
// one JSON line: {jobs, ms}.
import Database from "better-sqlite3"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { better, defineQueue } from "plainjob"

const jobs = Number(process.argv[2] ?? 5000)
const dir = mkdtempSync(join(tmpdir(), "plainjob-"))
const quiet = { error() {}, warn() {}, info() {}, debug() {} }
const queue = defineQueue({ connection: better(new Database(join(dir, "jobs.db"))), logger: quiet })

const start = performance.now()
for (let i = 0; i < jobs; i++) queue.add("task", { body: `task ${i}` })
let done = 0
for (;;) {
  const job = queue.getAndMarkJobAsProcessing("task")
  if (!job) break
  queue.markJobAsDone(job.id)
  done++
}
const ms = performance.now() - start
queue.close()
rmSync(dir, { recursive: true, force: true })
console.log(JSON.stringify({ jobs: done, ms }))
