/**
 * Run once by scripts/test-desktop before the test files, in the same session: opens the desktop
 * app on a fresh workspace until the rail is painted, then quits it. On a fresh machine that first
 * start pays for reading WebKitGTK and the app from disk, the font cache and the web process's
 * first launch — tens of seconds on a cold, busy machine — so no test's wait has to. Not a test:
 * a failure here is reported and the tests run anyway (they report what is wrong).
 */
import { rmSync } from "node:fs"
import { join } from "node:path"
import { HOME, alive, closeDesktop, daemonJson, openDesktop } from "./desktop.mjs"
import { makeWorkspace, removeWorkspace } from "./workspace.mjs"

const workspace = makeWorkspace()
let app
try {
  app = await openDesktop(workspace)
} catch (error) {
  process.stderr.write(`note: the warm-up start of the desktop app failed: ${error.message}\n`)
  // A half-started app would hold the one instance the tests start.
  const pid = daemonJson()?.pid
  if (pid && alive(pid)) process.kill(pid, "SIGKILL")
  rmSync(join(HOME, "daemon.json"), { force: true })
} finally {
  await closeDesktop(app).catch((error) => process.stderr.write(`note: warm-up: ${error.message}\n`))
  removeWorkspace(workspace)
}
