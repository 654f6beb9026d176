// File › Open Folder… (Ctrl+O) asks for a folder with the native picker, which starts in the folder
// that holds the open workspace (its siblings are the likely next ones), not on GTK's empty
// "Recent": choosing at once (Return, the picker's Open) opens that folder.
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { after, before, describe, test } from "node:test"
import { closeDesktop, openDesktop, pressKeys, screenshotScreen, skip, windowsNamed } from "./desktop.mjs"
import { until } from "./webdriver.mjs"
import { makeWorkspace } from "./workspace.mjs"

describe("Open Folder", { skip }, () => {
  let parent
  let app

  before(async () => {
    // <parent>/notes is the workspace; <parent>/clients is the folder beside it.
    parent = mkdtempSync(join(tmpdir(), "cowork-open-folder-"))
    const workspace = join(parent, "notes")
    renameSync(makeWorkspace(), workspace)
    mkdirSync(join(parent, "clients"))
    app = await openDesktop(workspace)
  })

  after(async () => {
    await closeDesktop(app)
    if (parent) rmSync(parent, { recursive: true, force: true })
  })

  test("the folder picker starts in the folder that holds the workspace", async () => {
    pressKeys(app.pid, "ctrl+o")
    const [picker] = await until(() => windowsNamed("^Open Folder$", app.pid).length && windowsNamed("^Open Folder$", app.pid), { what: "the folder picker" })
    await new Promise((resolve) => setTimeout(resolve, 1000))
    screenshotScreen("open-folder-picker")
    execFileSync("xdotool", ["windowfocus", "--sync", picker])
    execFileSync("xdotool", ["key", "--clearmodifiers", "Return"])
    // The folder the picker showed is the one opened: the window's title names it.
    await until(() => windowsNamed(`^Cowork Studio — ${basename(parent)}$`, app.pid).length === 1, { timeoutMs: 20_000, what: `the window to open ${parent}` })
    assert.equal(windowsNamed("^Open Folder$", app.pid).length, 0, "the picker closed")
  })
})
