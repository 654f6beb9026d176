// CPU seconds by process over a stretch of a bench, from /proc (Linux): which of the processes
// a stream crosses (the daemon, Chromium's browser, network and renderer processes, the shell)
// spends what. A process that exited within the stretch is not counted (`tr` of a flood).
import { readFileSync, readdirSync } from "node:fs"

function snapshot() {
  const ticks = new Map()
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      ticks.set(pid, Number(fields[11]) + Number(fields[12]))
    } catch {
      // Gone meanwhile.
    }
  }
  return ticks
}

/** What a process is: Chromium's by its `--type` (renderers by pid), else its program. */
function kind(pid) {
  const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
  if (!/chrom/.test(argv[0])) return argv[0].split("/").pop() || `pid ${pid}`
  const line = argv.join(" ")
  const type = /--type=([a-z-]+)/.exec(line)?.[1] ?? "browser"
  const sub = /--utility-sub-type=[\w.]*?(\w+)(?:\s|$)/.exec(line)?.[1]
  return `chromium ${type}${sub ? ` ${sub}` : ""}${type === "renderer" ? ` ${pid}` : ""}`
}

/** Starts counting; `stop()` answers [what, CPU seconds, share of one core] of `wanted` kinds. */
export function cpuSince(wanted = /^(chromium|cowork$|bash$)/) {
  const before = snapshot()
  const started = performance.now()
  return () => {
    const wall = (performance.now() - started) / 1000
    const by = new Map()
    for (const [pid, ticks] of snapshot()) {
      const spent = (ticks - (before.get(pid) ?? 0)) / 100
      if (spent <= 0) continue
      let what
      try {
        what = kind(pid)
      } catch {
        continue
      }
      if (wanted.test(what)) by.set(what, (by.get(what) ?? 0) + spent)
    }
    return [...by].sort((a, b) => b[1] - a[1]).map(([what, spent]) => [what, spent, spent / wall])
  }
}

/**
 * The whole machine's CPU from /proc/stat, the others' work and the kernel's included (a pipe's,
 * a terminal's and a socket's copies): `stop()` answers { busy, system } in cores.
 */
export function machineSince() {
  const read = () => {
    const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync("/proc/stat", "utf8")
      .split("\n")[0].split(/\s+/).slice(1, 9).map(Number)
    const all = user + nice + system + idle + iowait + irq + softirq + steal
    return { all, idle: idle + iowait, system: system + irq + softirq }
  }
  const before = read()
  const cores = readFileSync("/proc/stat", "utf8").split("\n").filter((l) => /^cpu\d/.test(l)).length
  return () => {
    const after = read()
    const all = after.all - before.all
    return {
      busy: (cores * (all - (after.idle - before.idle))) / all,
      system: (cores * (after.system - before.system)) / all,
    }
  }
}
