// Quit (File › Quit, Ctrl+Q) stops the daemon the app hosts cleanly: a routine that was running
// finishes and writes its audit line, and no daemon.json is left behind.
import assert from "node:assert/strict"
import { before, describe, test } from "node:test"
import { alive, auditLines, daemonJson, daemonStatus, finished, onFreshWorkspace, quitDesktop, skip, startRoutine } from "./desktop.mjs"
import { until } from "./webdriver.mjs"

describe("quit", { skip }, () => {
  const fixture = onFreshWorkspace()
  let workspace
  let app
  before(() => ({ workspace, app } = fixture))

  test("Quit lets a running routine finish, audits it, and leaves no daemon behind", async () => {
    const ended = finished(startRoutine(workspace, "slow-notify", { waitMs: 3000 }))
    // The run is in the daemon's hands once it holds a slot.
    await until(() => daemonStatus()?.slots.used >= 1, { what: "slow-notify to be running in the daemon" })
    await quitDesktop(app, 60_000)
    const { code, stdout } = await ended
    assert.equal(code, 0, "the routine's caller got its answer")
    assert.equal(JSON.parse(stdout).ok, true)
    assert.equal(daemonJson(), null, "no daemon.json is left")
    assert.equal(daemonStatus(), null, "no daemon answers")
    const line = auditLines().find((record) => record.capability === "slow-notify" && record.context.workspace === workspace)
    assert.ok(line, "the audit log holds the run")
    assert.equal(line.status, "ok")
    assert.ok(!alive(app.pid))
  })
})
