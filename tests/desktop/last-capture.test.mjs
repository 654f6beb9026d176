// The workspace's last capture (`cowork publish --screenshot` offers it): leaving a workspace for
// another keeps the main window as it was as <root>/workspaces/<key>/last-capture.png — a PNG of
// the window's own size (the window, not the screen), readable by its owner only.
import assert from "node:assert/strict"
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, test } from "node:test"
import { cowork, HOME, onFreshWorkspace, skip, visibleWindows, windowsNamed } from "./desktop.mjs"
import { until } from "./webdriver.mjs"

/** Every last-capture.png under the root's workspaces/. */
function lastCaptures() {
  const dir = join(HOME, "workspaces")
  if (!existsSync(dir)) return []
  return readdirSync(dir).map((key) => join(dir, key, "last-capture.png")).filter((file) => existsSync(file))
}

/** The visible main window (the workbench) of process `pid`, and its size. */
function mainWindowSize(pid) {
  const [id] = visibleWindows(pid)
  assert.ok(id, "the main window is showing")
  const info = spawnSync("xwininfo", ["-id", id], { encoding: "utf8" }).stdout
  return { width: Number(/Width: (\d+)/.exec(info)[1]), height: Number(/Height: (\d+)/.exec(info)[1]) }
}

describe("the workspace's last capture", { skip }, () => {
  const fixture = onFreshWorkspace()

  test("leaving a workspace keeps its window as last-capture.png", async () => {
    const { app, workspace } = fixture
    const size = mainWindowSize(app.pid)
    const before = lastCaptures()
    const other = mkdtempSync(join(tmpdir(), "cowork-desktop-other-"))
    try {
      assert.equal(cowork(["open", "--workspace", other]).status, 0)
      const file = await until(() => lastCaptures().find((f) => !before.includes(f) || statSync(f).mtimeMs > Date.now() - 60_000), { what: "the last capture of the workspace left" })
      const png = readFileSync(file)
      assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "a PNG")
      assert.deepEqual({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }, size, "the window's own size")
      assert.equal(statSync(file).mode & 0o777, 0o600)
      // Back, so the app quits on a workspace that still exists.
      assert.equal(cowork(["open", "--workspace", workspace]).status, 0)
      await until(() => windowsNamed("cowork-desktop-ws-", app.pid).length > 0, { what: "the main window back on the fixture workspace" })
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })
})
