// The demo workspace (a fresh copy of examples/demo) served by the real `cowork` daemon, for the
// benches that drive its apps in Chromium: each value in `approve` approved ahead for `app` (as
// "Always" in the consent dialog; an `[app, value]` pair for another app), bench-only apps copied
// in from `apps` (name → folder), the workbench's URL once the daemon prints it. The daemon and
// both folders go when the script exits.
import { spawn, spawnSync } from "node:child_process"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const repo = new URL("..", import.meta.url).pathname

export async function serveDemo(binary, { app, approve = [], apps = {} } = {}) {
  const home = mkdtempSync(join(tmpdir(), "cowork-bench-home-"))
  const workspace = mkdtempSync(join(tmpdir(), "cowork-bench-ws-"))
  cpSync(join(repo, "examples/demo"), workspace, { recursive: true, verbatimSymlinks: true, filter: (p) => !/\/\.cowork\/(data|local)(\/|$)/.test(p) })
  for (const [name, folder] of Object.entries(apps)) cpSync(folder, join(workspace, ".cowork/apps", name), { recursive: true })
  const env = { ...process.env, COWORK_HOME: home }
  for (const grant of approve) {
    const [to, value] = Array.isArray(grant) ? grant : [app, grant]
    spawnSync(binary, ["consent", "allow", value, "--app", to, "--workspace", workspace], { env })
  }
  const daemon = spawn(binary, ["app", "serve", workspace, "--no-open", "--port", "0"], { env, stdio: ["ignore", "pipe", "inherit"] })
  process.on("exit", () => {
    daemon.kill()
    rmSync(home, { recursive: true, force: true })
    rmSync(workspace, { recursive: true, force: true })
  })
  return { url: await workbenchUrl(daemon), home, workspace }
}

/** The workbench's URL that `cowork app serve` (a child with piped stdout) prints. */
export function workbenchUrl(daemon) {
  return new Promise((resolve, reject) => {
    let out = ""
    daemon.stdout.on("data", (chunk) => {
      out += chunk
      const line = out.split("\n").find((l) => l.startsWith("Workbench: "))
      if (line) resolve(line.slice(11).trim())
    })
    daemon.on("exit", (code) => reject(new Error(`cowork exited (${code})`)))
  })
}
