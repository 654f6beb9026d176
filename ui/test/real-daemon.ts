/** The REAL `cowork` binary for the tests that run it (daemon.test.ts, web-apps.test.ts). */
import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import { rmSync } from "node:fs"
import { createServer } from "node:net"
import { homedir } from "node:os"
import { join } from "node:path"

/** `$COWORK_BIN`, else `$CARGO_TARGET_DIR/debug/cowork`, else `~/.cache/cowork-target/debug/cowork`. */
export const binary =
  process.env.COWORK_BIN ??
  join(process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/cowork-target"), "debug/cowork")

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** `cowork app serve <workspace>` on a free port: the daemon and the workbench's address it prints. */
export async function serve(
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<{ daemon: ChildProcess; url: string }> {
  const port = await freePort()
  const daemon = spawn(binary, ["app", "serve", workspace, "--no-open", "--port", String(port)], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ""
    daemon.stdout!.on("data", (chunk) => {
      out += chunk
      const line = out.split("\n").find((l) => l.startsWith("Workbench: "))
      if (line) resolve(line.slice("Workbench: ".length).trim())
    })
    daemon.on("exit", (code) => reject(new Error(`cowork app serve exited (${code}): ${out}`)))
  })
  return { daemon, url }
}

/** `cowork stop`, then the process ended and `folders` (its home, the workspace) removed. */
export function stop(
  daemon: ChildProcess | undefined,
  env: NodeJS.ProcessEnv,
  ...folders: string[]
) {
  spawnSync(binary, ["stop"], { env })
  daemon?.kill()
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
}
