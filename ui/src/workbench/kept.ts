/**
 * What the workbench writes down per workspace in this browser's localStorage — the shell
 * (shell.ts) and the window (window-memory.ts) — kept for the most recently written only. Each new
 * workspace added about 23 KB of shell for good: after a few hundred (every desktop test run opens
 * new ones) WebKit's quota was full and every write threw QuotaExceededError — one, uncaught in
 * the window's memory, left Manage Workspace blank. A write through `keep` never throws.
 */

/** The keys written through `keep`, the most recent first. */
const RECENT = "cowork.kept"

/** How many keys `keep` holds: a shell and a window for each of the last 32 workspaces. */
export const MOST = 64

/** A per-workspace key (`cowork.shell:<workspace>`, `cowork.window:<workspace>`): its workspace. */
const PER_WORKSPACE = /^cowork\.(?:shell|window):(.*)$/s

/**
 * Writes `value` under `key`; past `MOST` keys the least recently written go. When storage is full
 * all the same (keys from before this list, or written by another page), every other workspace's
 * go and it tries once more; refused even then, nothing is written, as on a first start.
 */
export function keep(key: string, value: string) {
  try {
    const recent = [key, ...recentKeys().filter((other) => other !== key)]
    for (const old of recent.splice(MOST)) localStorage.removeItem(old)
    localStorage.setItem(RECENT, JSON.stringify(recent))
    localStorage.setItem(key, value)
  } catch {
    try {
      const workspace = PER_WORKSPACE.exec(key)?.[1]
      for (const other of perWorkspaceKeys()) {
        if (PER_WORKSPACE.exec(other)?.[1] !== workspace) localStorage.removeItem(other)
      }
      localStorage.setItem(RECENT, JSON.stringify(perWorkspaceKeys()))
      localStorage.setItem(key, value)
    } catch {
      // Refused even so: the next start has nothing of it, as a first start.
    }
  }
}

function recentKeys(): string[] {
  try {
    const list: unknown = JSON.parse(localStorage.getItem(RECENT) ?? "[]")
    return Array.isArray(list) ? list.filter((key) => typeof key === "string") : []
  } catch {
    return []
  }
}

function perWorkspaceKeys() {
  const keys: string[] = []
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i)
    if (key && PER_WORKSPACE.test(key)) keys.push(key)
  }
  return keys
}
