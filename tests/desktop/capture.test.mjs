// `cowork.capture` as the person meets it in the desktop app: a widget asks, Cowork's own native
// dialog names the app and what it asks for, nothing starts before Allow; a recording shows the
// pill with Stop, Stop finalises the file in the workspace and the pane's onStop fires. A still is
// a PNG, on disk or handed back; a refusal and an undeclared ask reject by name. A reloaded pane
// takes the running recording back (capture.current) with its live sound, and a recording stops
// cleanly when free space falls under 2 GB.
// The display has no sound server of its own: tests/capture/rig gives it one (a tone on the
// default sink) for the tests that record sound.
import assert from "node:assert/strict"
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { after, before, describe, test } from "node:test"
import { fileURLToPath } from "node:url"
import { enterPane, onFreshWorkspace, railTile, screenshotScreen, skip, windowsNamed } from "./desktop.mjs"
import { until } from "./webdriver.mjs"

const RIG = fileURLToPath(new URL("../capture/rig", import.meta.url))
const noSound = ["pulseaudio", "pactl", "gst-launch-1.0", "ffprobe"].find((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0)
// As the shared `skip`: in CI a missing tool is a failure, not a skip.
if (noSound && process.env.CI) throw new Error(`the capture tests need ${noSound}: scripts/install-deps installs it`)
const soundSkip = noSound ? `${noSound} is missing (scripts/install-deps installs it)` : false

const WIDGET = `export default function Recorder() {
  return <p data-testid="ready">ready</p>
}
`

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
      entry: "recorder.jsx", capture: ["screen", "system-audio"],
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
    writeFileSync(join(dir, "cowork.json"), JSON.stringify({ ...manifest, capture: [...manifest.capture, "screenshot"] }))
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

  /** Starts a recording of `options` whose session lands in window.__session, Allows it, and waits for the pill. */
  async function record(options, dialogTitle) {
    await session.execute("window.__stopped = null; window.__session = null")
    await start(`cowork.capture.record(${JSON.stringify(options)}).then((s) => { window.__session = s; s.onStop((e) => { window.__stopped = e }); return { id: s.id, file: s.file } })`)
    const [dialog] = await until(() => {
      const found = windowsNamed(dialogTitle)
      return found.length > 0 && found
    }, { what: "the capture dialog" })
    clickButton(dialog, "Allow")
    const answer = await outcome()
    assert.ok(answer.ok, JSON.stringify(answer))
    await until(() => windowsNamed("^Cowork Studio — Recording$").length > 0, { what: "the recording pill" })
    return answer.ok
  }

  /** ffprobe's codec names and duration (s) of `file`. */
  function probe(file) {
    const out = execFileSync("ffprobe", ["-v", "error", "-show_entries", "format=duration:stream=codec_name", "-of", "json", file], { encoding: "utf8" })
    const json = JSON.parse(out)
    return { codecs: json.streams.map((s) => s.codec_name), duration: Number(json.format.duration) }
  }

  describe("with a sound server", { skip: soundSkip }, () => {
    let sound
    before(async () => {
      // The rig's PulseAudio, where the app under test looks for one; it ends when its stdin closes.
      sound = spawn(RIG, ["sh", "-c", "echo ready; read _"], { stdio: ["pipe", "pipe", "inherit"] })
      await new Promise((resolve, reject) => {
        sound.stdout.on("data", (data) => String(data).includes("ready") && resolve())
        sound.on("exit", (code) => reject(new Error(`tests/capture/rig exited ${code} before its sound was ready`)))
      })
    })
    after(async () => {
      if (!sound || sound.exitCode !== null) return
      const ended = new Promise((resolve) => sound.on("exit", resolve))
      sound.stdin.end()
      await ended
    })

    test("a reloaded pane takes the recording back with capture.current(): live sound reaches it, its stop() ends it, its onStop fires", async () => {
      const started = await record({ video: "screen", audio: { system: true }, live: true }, "^Allow Recorder to record your screen and the sound your computer plays\\?$")
      // The pane reloads (a new page, its listeners gone); the recording goes on.
      await session.execute("setTimeout(() => location.reload(), 50); return true")
      await until(async () => {
        await session.switchToFrame(null)
        await enterPane(session, "recorder")
        return session.execute(`return document.querySelector('[data-testid="ready"]') !== null && window.__session === undefined`)
      }, { what: "the pane to reload (a fresh page)" })
      await session.execute(`window.__frames = []; window.__stopped = null
        window.__current = null
        cowork.capture.current().then((s) => {
          if (!s) return void (window.__current = { none: "capture.current() gave null" })
          window.__session = s
          s.onAudio((frame) => window.__frames.push([frame.byteLength, performance.now()]))
          s.onStop((e) => { window.__stopped = e })
          window.__current = { id: s.id, file: s.file }
        }, (e) => { window.__current = { error: e.name, message: e.message } })
        return true`)
      const current = await until(() => session.execute("return window.__current"), { what: "capture.current()" })
      assert.deepEqual(current, { id: started.id, file: started.file }, "the running recording, handed back")
      // Live frames of 20 ms reach the reloaded pane, about 50 a second.
      await until(() => session.execute("return window.__frames.length > 25"), { what: "live frames in the reloaded pane" })
      await new Promise((resolve) => setTimeout(resolve, 3000))
      const frames = await session.execute("return window.__frames")
      assert.ok(frames.every(([bytes]) => bytes === 640), "every frame is 640 bytes (20 ms of 16 kHz mono)")
      const tail = frames.slice(10) // past the first batch, which may hold what queued during the reload
      const perSecond = ((tail.length - 1) * 1000) / (tail.at(-1)[1] - tail[0][1])
      assert.ok(perSecond > 35 && perSecond < 65, `${perSecond.toFixed(1)} frames a second`)
      assert.ok(existsSync(join(workspace, `${started.file}.part`)), "still recording")
      await session.execute("return window.__session.stop().then(() => true)")
      const stopped = await until(() => session.execute("return window.__stopped"), { what: "the reloaded pane's onStop" })
      assert.deepEqual(stopped, { file: started.file, reason: "stop() from its app" })
      const file = join(workspace, started.file)
      assert.ok(existsSync(file) && !existsSync(`${file}.part`), "the .part became the file")
      const { codecs, duration } = probe(file)
      assert.deepEqual(codecs, ["vp8", "opus"])
      assert.ok(duration > 3, `${duration} s recorded`)
      await until(() => windowsNamed("^Cowork Studio — Recording$").length === 0, { what: "the pill to go" })
    })
  })

  test("free space falling under 2 GB stops a recording cleanly: the file is kept, onStop says DiskFull, the bell says why", async (t) => {
    // Real free space: a tmpfs of 2 GB and 8 MB under the workspace (mounting needs root, as in CI).
    const disk = join(workspace, "disk")
    mkdirSync(disk)
    const mount = spawnSync("mount", ["-t", "tmpfs", "-o", "size=2056m", "tmpfs", disk], { encoding: "utf8" })
    if (mount.status !== 0) return t.skip(`cannot mount a tmpfs here: ${mount.stderr.trim()}`)
    try {
      const started = await record({ video: "screen", file: "disk/take.webm" }, "^Allow Recorder to record your screen\\?$")
      assert.equal(started.file, "disk/take.webm")
      const file = join(disk, "take.webm")
      await until(() => existsSync(`${file}.part`), { what: "the .part" })
      await new Promise((resolve) => setTimeout(resolve, 2000))
      assert.equal(await session.execute("return window.__stopped"), null, "it records while 2 GB are free")
      // Something else fills the disk: under 2 GB free now.
      writeFileSync(join(disk, "ballast"), Buffer.alloc(16 << 20))
      const stopped = await until(() => session.execute("return window.__stopped"), { what: "onStop after the disk filled" })
      assert.deepEqual(stopped, { file: "disk/take.webm", reason: "under 2 GB of free disk space", error: "DiskFull" })
      assert.ok(existsSync(file) && !existsSync(`${file}.part`), "the .part became the file")
      const { codecs, duration } = probe(file)
      assert.deepEqual(codecs, ["vp8"])
      assert.ok(duration > 1.5, `${duration} s kept`)
      await until(() => windowsNamed("^Cowork Studio — Recording$").length === 0, { what: "the pill to go" })
      // The bell (and the Output panel) say why it stopped.
      await session.switchToFrame(null)
      await session.click(await session.waitFor('button[aria-label^="Notifications ("]'))
      const rows = await until(async () => {
        const texts = await session.execute(`return [...document.querySelectorAll('[data-testid="notification"]')].map((row) => row.textContent)`)
        return texts.some((text) => text.includes("disk/take.webm (under 2 GB")) && texts
      }, { what: "the bell's line about the recording" })
      assert.ok(rows.some((text) => text.includes("Recording saved to disk/take.webm (under 2 GB of free disk space)")), JSON.stringify(rows))
      screenshotScreen("capture-disk-full-bell")
    } finally {
      spawnSync("umount", ["-l", disk])
    }
  })
})
