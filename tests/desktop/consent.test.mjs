// The consent question of `ctx.command.run` as the person meets it in the desktop app: a native
// dialog (not a page a widget could draw over) titled by the app that asks, over the window; the
// run waits for the answer, and a command the person refused never runs.
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { cowork, finished, onFreshWorkspace, screenshotScreen, skip, startRoutine, windowsNamed } from "./desktop.mjs"
import { until } from "./webdriver.mjs"

/** Runs `touch <args.marker>` through ctx.command.run and says how it went. */
const RUN = `export default async (args, ctx) => {
  try {
    await ctx.command.run(\`touch '\${args.marker}'\`, { value: "touch the marker" })
    return "ran"
  } catch (e) {
    return e.name
  }
}
`

describe("consent in the desktop app", { skip }, () => {
  const fixture = onFreshWorkspace()
  let workspace
  before(() => {
    ;({ workspace } = fixture)
    const dir = join(workspace, ".cowork/apps/ops")
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "run.ts"), RUN)
    writeFileSync(join(dir, "cowork.json"), JSON.stringify({
      name: "ops", version: "1.0.0", title: "Ops", kind: "app",
      routines: { "ops-run": { file: "run.ts", description: "Runs a command, after the person's yes." } },
    }))
  })

  test("a command waits for a native dialog titled by its app, and a refusal runs nothing", async () => {
    const marker = join(workspace, "marker.txt")
    // The daemon's watcher registers the new app within moments (the CLI reads the folder).
    await until(() => cowork(["routine", "list", "--workspace", workspace]).stdout.includes("ops-run"), { what: "ops-run to be registered" })
    const ended = finished(startRoutine(workspace, "ops-run", { marker }))
    const [dialog] = await until(() => {
      const found = windowsNamed("^Allow Ops to run a command\\?$")
      return found.length > 0 && found
    }, { what: "the consent dialog" })
    screenshotScreen("consent-dialog")
    assert.ok(!existsSync(marker), "nothing runs before the answer")
    // Escape answers Deny (with no window manager, focus goes to the dialog directly).
    execFileSync("xdotool", ["windowraise", dialog])
    execFileSync("xdotool", ["windowfocus", "--sync", dialog])
    execFileSync("xdotool", ["key", "--clearmodifiers", "Escape"])
    const { code, stdout } = await ended
    assert.equal(code, 0)
    const outcome = JSON.parse(stdout)
    assert.deepEqual(outcome.result, "Denied", JSON.stringify(outcome))
    assert.ok(!existsSync(marker), "the refused command did not run")
    assert.deepEqual(windowsNamed("^Allow Ops"), [], "the dialog is gone")
  })
})
