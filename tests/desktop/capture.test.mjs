// `cowork.capture` as the person meets it in the desktop app: a widget asks, Cowork's own native
// dialog names the app and what it asks for, nothing starts before Allow; a recording shows the
// pill with Stop, Stop finalises the file in the workspace and the pane's onStop fires. A still is
// a PNG, on disk or handed back; a refusal and an undeclared ask reject by name.
// The display has no sound server here: the recording is the screen alone (tests/capture/rig and
// the Rust tests cover the sound).
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { enterPane, onFreshWorkspace, railTile, screenshotScreen, skip } from "./desktop.mjs"
import { until } from "./webdriver.mjs"

const WIDGET = `export default function Recorder() {
  return <p data-testid="ready">ready</p>
}
`

/** The visible X windows whose name matches `pattern` (xdotool's regular expression). */
function windowsNamed(pattern) {
  try {
    return execFileSync("xdotool", ["search", "--onlyvisible", "--name", pattern], { encoding: "utf8" }).split("\n").filter(Boolean)
  } catch {
    return [] // xdotool exits 1 when nothing matches
  }
}

/** Focuses X window `id` and presses `keys` in it. */
function press(id, ...keys) {
  execFileSync("xdotool", ["windowraise", id])
  execFileSync("xdotool", ["windowfocus", "--sync", id])
  for (const key of keys) execFileSync("xdotool", ["key", "--clearmodifiers", key])
}

/** Clicks the button labelled `label` in the capture dialog `id`, with the real pointer (xdotool). */
function clickButton(id, label) {
  // The dialog's two buttons share its bottom row: Allow on the left half, Deny on the right.
  const geometry = execFileSync("xdotool", ["getwindowgeometry", "--shell", id], { encoding: "utf8" })
  const value = (key) => Number(geometry.match(new RegExp(`${key}=(\\d+)`))[1])
  const [x, y, w, h] = [value("X"), value("Y"), value("WIDTH"), value("HEIGHT")]
  const dx = label === "Allow" ? w / 4 : (3 * w) / 4
  execFileSync("xdotool", ["mousemove", "--sync", String(Math.round(x + dx)), String(y + h - 16), "click", "1"])
}

describe("capture in the desktop app", { skip }, () => {
  const fixture = onFreshWorkspace()
  let workspace
  let session
  before(async () => {
    ;({ workspace } = fixture)
    session = fixture.app.session
    const dir = join(workspace, ".cowork/apps/recorder")
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "recorder.jsx"), WIDGET)
    writeFileSync(join(dir, "cowork.json"), JSON.stringify({
      name: "recorder", version: "1.0.0", title: "Recorder", kind: "app", icon: "record",
      entry: "recorder.jsx", capture: ["screen"],
    }))
    await session.click(await railTile(session, "Recorder"))
    await enterPane(session, "recorder")
    await session.waitFor('[data-testid="ready"]')
  })

  /** Starts `call` (a cowork.capture expression) in the pane; its outcome lands in window.__outcome. */
  const start = (call) =>
    session.execute(`window.__outcome = undefined
      ${call}.then((v) => { window.__outcome = { ok: v } }, (e) => { window.__outcome = { error: e.name, message: e.message } })
      return true`)
  const outcome = () => until(() => session.execute("return window.__outcome ?? null"), { what: "the capture call to settle" })

  test("a still the manifest does not declare is refused by name, before any dialog", async () => {
    await start("cowork.capture.shot()")
    const answer = await outcome()
    assert.equal(answer.error, "NotDeclared", JSON.stringify(answer))
    assert.match(answer.message, /"screenshot"/)
    assert.deepEqual(windowsNamed("^Allow Recorder"), [], "no dialog was shown")
  })

  test("Deny (Escape) in Cowork's dialog rejects Denied, and nothing is recorded", async () => {
    await start('cowork.capture.record({ video: "screen" })')
    const [dialog] = await until(() => {
      const found = windowsNamed("^Allow Recorder to record your screen\\?$")
      return found.length > 0 && found
    }, { what: "the capture dialog" })
    press(dialog, "Escape")
    const answer = await outcome()
    assert.equal(answer.error, "Denied", JSON.stringify(answer))
    assert.ok(!existsSync(join(workspace, "Recordings")), "nothing was written")
  })

  test("Allow starts the recording with the pill; Stop finalises the file and onStop fires", async () => {
    await session.execute("window.__stopped = null")
    await start('cowork.capture.record({ video: "screen" }).then((s) => { s.onStop((e) => { window.__stopped = e }); return { id: s.id, file: s.file } })')
    const [dialog] = await until(() => {
      const found = windowsNamed("^Allow Recorder to record your screen\\?$")
      return found.length > 0 && found
    }, { what: "the capture dialog" })
    screenshotScreen("capture-dialog")
    assert.equal(await session.execute("return window.__outcome ?? null"), null, "nothing starts before the answer")
    clickButton(dialog, "Allow")
    const answer = await outcome()
    assert.ok(answer.ok, JSON.stringify(answer))
    assert.match(answer.ok.file, /^Recordings\/\d{4}-\d{2}-\d{2}-\d{6}-recorder\.webm$/)
    const [pill] = await until(() => {
      const found = windowsNamed("^Cowork Studio — Recording$")
      return found.length > 0 && found
    }, { what: "the recording pill" })
    screenshotScreen("capture-pill")
    // A second capture in the same workspace waits its turn.
    await start("cowork.capture.record({ video: \"screen\" })")
    assert.equal((await outcome()).error, "Busy")
    await new Promise((resolve) => setTimeout(resolve, 2000))
    assert.ok(existsSync(join(workspace, `${answer.ok.file}.part`)), "it records to a .part")
    press(pill, "space") // Stop has the pill's focus
    const stopped = await until(() => session.execute("return window.__stopped"), { what: "onStop" })
    assert.equal(stopped.file, answer.ok.file)
    const file = join(workspace, answer.ok.file)
    assert.ok(existsSync(file) && !existsSync(`${file}.part`), "the .part became the file")
    assert.equal(readFileSync(file).subarray(0, 4).toString("hex"), "1a45dfa3", "a WebM (EBML) file")
    await until(() => windowsNamed("^Cowork Studio — Recording$").length === 0, { what: "the pill to go" })
  })

  test("a still can be handed back as a PNG Blob after Allow", async () => {
    const dir = join(workspace, ".cowork/apps/recorder")
    const manifest = JSON.parse(readFileSync(join(dir, "cowork.json"), "utf8"))
    writeFileSync(join(dir, "cowork.json"), JSON.stringify({ ...manifest, capture: ["screen", "screenshot"] }))
    const before = readdirSync(join(workspace, "Recordings")).length
    await until(async () => {
      await start("cowork.capture.shot({ image: true }).then(async (r) => ({ type: r.image.type, size: r.image.size, head: [...new Uint8Array(await r.image.slice(0, 4).arrayBuffer())], path: r.path ?? null }))")
      const [dialog] = await until(() => {
        const found = windowsNamed("^Allow Recorder to take a picture of your screen\\?$")
        if (found.length) return found
        return session.execute("return window.__outcome?.error === 'NotDeclared'") .then((refused) => refused && ["refused"])
      }, { what: "the still's dialog (once the manifest change is read)" })
      if (dialog === "refused") return false
      clickButton(dialog, "Allow")
      return true
    }, { what: "the manifest change to be read" })
    const answer = await outcome()
    assert.ok(answer.ok, JSON.stringify(answer))
    assert.equal(answer.ok.type, "image/png")
    assert.deepEqual(answer.ok.head, [0x89, 0x50, 0x4e, 0x47])
    assert.ok(answer.ok.size > 1000, `${answer.ok.size} bytes`)
    assert.equal(answer.ok.path, null, "image: true alone writes no file")
    assert.equal(readdirSync(join(workspace, "Recordings")).length, before)
  })
})
