// The consent question of `ctx.command.run` as the person meets it in the desktop app: a native
// dialog (not a page a widget could draw over) titled by the app that asks, over the window; the
// run waits for the answer, and a command the person refused never runs. Answered in another
// window (a browser tab on the same daemon), the native dialog closes and that answer counts.
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { HOME, cowork, daemonJson, finished, onFreshWorkspace, screenshotScreen, skip, startRoutine, windowsNamed } from "./desktop.mjs"
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

  test("a question answered in another window closes the native dialog, and that answer counts", async () => {
    const marker = join(workspace, "allowed.txt")
    await until(() => cowork(["routine", "list", "--workspace", workspace]).stdout.includes("ops-run"), { what: "ops-run to be registered" })
    // Another window on the same daemon (a browser tab on `cowork app serve`) follows the questions.
    const daemon = `http://127.0.0.1:${daemonJson().port}`
    const owner = { authorization: `Bearer ${readFileSync(join(HOME, "daemon.token"), "utf8").trim()}` }
    const following = new AbortController()
    const stream = await fetch(`${daemon}/api/consent/requests`, { headers: owner, signal: following.signal })
    const questions = stream.body.pipeThrough(new TextDecoderStream()).getReader()
    const ended = finished(startRoutine(workspace, "ops-run", { marker }))
    let heard = ""
    // The question's whole line: its id answers it.
    while (!/"appTitle".*\n/.test(heard)) heard += (await questions.read()).value
    const { id } = JSON.parse(heard.split("\n").find((line) => line.startsWith("data:")).slice(5))
    await until(() => windowsNamed("^Allow Ops to run a command\\?$").length > 0, { what: "the consent dialog" })
    const answered = await fetch(`${daemon}/api/consent/answer`, {
      method: "POST",
      headers: { ...owner, "content-type": "application/json" },
      body: JSON.stringify({ id, granted: true }),
    })
    assert.equal(answered.status, 200)
    await until(() => windowsNamed("^Allow Ops").length === 0, { what: "the native dialog to close", timeoutMs: 10_000 })
    const { code, stdout } = await ended
    assert.equal(code, 0)
    assert.deepEqual(JSON.parse(stdout).result, "ran", stdout)
    assert.ok(existsSync(marker), "the command allowed in the other window ran")
    following.abort()
  })
})
