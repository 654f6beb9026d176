// Runs a command beside the real desktop app: starts it (through the test session's WebDriver,
// as the desktop tests do) on a throwaway workspace, runs the command in that workspace with the
// session's COWORK_HOME, then quits the app. For the browser comparison's Cowork column:
//
//   COWORK_WEBDRIVER_PORT=4460 tests/desktop/session \
//     node tests/browser-site/with-desktop.mjs node tests/browser-site/compare.mjs cowork <modules> <cowork>
//
// Relative paths in the command are resolved from where this was started. Exits with the
// command's code.
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { closeDesktop, openDesktop } from "../desktop/desktop.mjs"
import { makeWorkspace, removeWorkspace } from "../desktop/workspace.mjs"

const [command, ...args] = process.argv.slice(2)
if (!command) {
  console.error("usage: with-desktop.mjs <command> [args…]")
  process.exit(2)
}
const absolute = args.map((arg) => (existsSync(arg) ? resolve(arg) : arg))
const workspace = makeWorkspace()
const app = await openDesktop(workspace)
let status = 1
try {
  status = spawnSync(command, absolute, { cwd: workspace, stdio: "inherit", env: process.env }).status ?? 1
} finally {
  await closeDesktop(app)
  removeWorkspace(workspace)
}
process.exit(status)
