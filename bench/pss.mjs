// Memory as the benchmarks count it: PSS (/proc/<pid>/smaps_rollup: shared pages split among the
// processes that map them) over a process and all its descendants.
import { readFileSync, readdirSync } from "node:fs"

/** Every process now: pid → { comm (the program's name from its command line), ppid }. */
export function processes() {
  const table = new Map()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const close = stat.lastIndexOf(")")
      // comm in stat is cut to 15 characters (WebKitWebProces): take the command line's.
      const argv0 = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0")[0]
      const comm = argv0 ? argv0.split("/").pop() : stat.slice(stat.indexOf("(") + 1, close)
      const ppid = Number(stat.slice(close + 2).split(" ")[1])
      table.set(Number(entry), { comm, ppid })
    } catch {
      // The process ended while we looked.
    }
  }
  return table
}

/** `root` and every process below it in `table`. */
export function descendants(table, root) {
  const tree = [root]
  for (let i = 0; i < tree.length; i++) for (const [pid, p] of table) if (p.ppid === tree[i]) tree.push(pid)
  return tree
}

/** A process's PSS in kB (0 once it has gone). */
export function pssKb(pid) {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))[1])
  } catch {
    return 0
  }
}

/** `root`'s process tree now, one row per process: its pid, program and PSS in kB. */
export function treePss(root, table = processes()) {
  return descendants(table, root).map((pid) => ({ pid, comm: table.get(pid)?.comm ?? "?", kb: pssKb(pid) }))
}

/** "WebKitWebProcess ×4 233.3 + cowork-desktop 109.7": rows' PSS in MB by program, largest first. */
export function byProgram(rows) {
  const programs = new Map()
  for (const row of rows) programs.set(row.comm, [...(programs.get(row.comm) ?? []), row.kb])
  return [...programs]
    .map(([comm, kbs]) => ({ comm, count: kbs.length, mb: kbs.reduce((a, b) => a + b, 0) / 1024 }))
    .sort((a, b) => b.mb - a.mb)
    .map(({ comm, count, mb }) => `${comm}${count > 1 ? ` ×${count}` : ""} ${mb.toFixed(1)}`)
    .join(" + ")
}
