// Web apps in the desktop window (page 12 "Web apps"): files routed to a web app reach the page as
// it ships in WebKitGTK, which has no File System Access API — the objects come from the script the
// daemon adds to a page opened with a routed file (crates/cowork-daemon/src/web_files.rs). The
// apps are the Chromium test's (ui/test/web-apps): SQL Pad (SQLite in WebAssembly, npm `sql.js`)
// gets a database by `launchQueue` and saves it with `createWritable`; Notes, a plain page, gets a
// note by its file input or — as Drop Notes, `"open": "drop:#drop"` — by a drop, and saves it by
// an `<a download>` of the file's name. Each save is checked on disk. Its "Save as…" (another
// name, by `showSaveFilePicker`) opens the native GTK save dialog, answered here with the real
// keyboard (xdotool): a name typed there is where the note lands; Escape writes nothing anywhere.
// A build kept out of the app (`"download"`) comes from an https server on loopback with the
// session's test certificate (tests/desktop/session: COWORK_TEST_TLS, trusted by the app through
// COWORK_EXTRA_CA_CERTS); it sends half the zip and holds the rest until the tab shows 50%.
import assert from "node:assert/strict"
import { execFileSync, spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { cpSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:https"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { after, before, describe, test } from "node:test"
import { closeDesktop, enterPane, openDesktop, railTile, screenshotScreen, skip, windowsNamed } from "./desktop.mjs"
import { until } from "./webdriver.mjs"
import { makeWorkspace, removeWorkspace } from "./workspace.mjs"

const ui = fileURLToPath(new URL("../../ui/", import.meta.url))
const initSqlJs = createRequire(join(ui, "package.json"))("sql.js")

/** A SQLite database holding `items(name)` with these rows. */
async function database(names) {
  const db = new (await initSqlJs()).Database()
  db.run("create table items (name text)")
  for (const name of names) db.run("insert into items values (?)", [name])
  return db.export()
}

/** The names in a database file's `items`. */
async function itemsIn(path) {
  const db = new (await initSqlJs()).Database(readFileSync(path))
  return (db.exec("select name from items order by rowid")[0]?.values ?? []).map((row) => String(row[0]))
}

/**
 * An https server (the session's test certificate) of a zipped site, one top folder holding its
 * page and 2 MB that do not compress: it sends the first half, then the rest once `release()` is
 * called. Returns { url, sha256, release, close }.
 */
async function slowBuild() {
  const tls = process.env.COWORK_TEST_TLS
  const made = spawnSync("python3", ["-c", [
    "import io, os, sys, zipfile",
    "out = io.BytesIO()",
    "with zipfile.ZipFile(out, 'w') as z:",
    "    z.writestr('far/index.html', '<!doctype html><title>Far</title><p id=far>Downloaded and opened</p>')",
    "    z.writestr('far/padding.bin', os.urandom(2 << 20))",
    "sys.stdout.buffer.write(out.getvalue())",
  ].join("\n")], { maxBuffer: 8 << 20 })
  assert.equal(made.status, 0, String(made.stderr))
  const zip = made.stdout
  let release
  const rest = new Promise((resolve) => { release = resolve })
  const server = createServer({ cert: readFileSync(join(tls, "leaf.pem")), key: readFileSync(join(tls, "leaf.key")) }, (_, response) => {
    const half = Math.ceil(zip.length / 2)
    response.writeHead(200, { "content-type": "application/zip", "content-length": zip.length })
    response.write(zip.subarray(0, half))
    rest.then(() => response.end(zip.subarray(half)))
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `https://127.0.0.1:${server.address().port}/far.zip`,
    sha256: createHash("sha256").update(zip).digest("hex"),
    release,
    close: () => { release(); server.close() },
  }
}

/** Adds the test web apps and their routed files to the fixture workspace. */
async function addWebApps(workspace) {
  const apps = join(workspace, ".cowork/apps")
  cpSync(join(ui, "test/web-apps/sqlpad"), join(apps, "sqlpad"), { recursive: true })
  for (const file of ["sql-wasm.js", "sql-wasm.wasm"])
    copyFileSync(join(ui, "node_modules/sql.js/dist", file), join(apps, "sqlpad/web", file))
  cpSync(join(ui, "test/web-apps/notes"), join(apps, "notes"), { recursive: true })
  cpSync(join(ui, "test/web-apps/notes"), join(apps, "drop-notes"), { recursive: true })
  const dropNotes = { name: "drop-notes", version: "1.0.0", title: "Drop Notes", web: { index: "web/index.html", open: "drop:#drop" }, fileRouting: { "**/*.dropnote": "web/index.html" } }
  writeFileSync(join(apps, "drop-notes/cowork.json"), JSON.stringify(dropNotes))
  writeFileSync(join(workspace, "shop.sqlite"), await database(["tea", "coffee"]))
  writeFileSync(join(workspace, "list.note"), "milk")
  writeFileSync(join(workspace, "inbox.dropnote"), "call Ann")
}

/** Opens `name` from the Explorer's tree (a click on its row, as the DOM has it). */
async function openInExplorer(session, name) {
  const click = `const item = [...document.querySelectorAll('[role="treeitem"]')].find((each) => each.textContent.trim() === arguments[0]); item?.click(); return Boolean(item)`
  await until(() => session.execute(click, name), { what: `${name} in the Explorer` })
}

/** The text of `selector` in the current frame, once `probe(text)` holds. */
const textOf = (session, selector, probe, what) =>
  until(async () => {
    const text = await session.execute("return document.querySelector(arguments[0])?.textContent ?? ''", selector)
    return probe(text) && text
  }, { what })

/** The visible native Save As dialogs (any process's: the search of desktop.mjs, which retries a window going away mid-search). */
const saveAsDialogs = () => windowsNamed("^Save As$")

/** Focuses X window `id` and types `keys` (xdotool key names) into it. */
function pressIn(id, ...keys) {
  execFileSync("xdotool", ["windowraise", id])
  execFileSync("xdotool", ["windowfocus", "--sync", id])
  for (const key of keys) execFileSync("xdotool", ["key", "--clearmodifiers", key])
}

/** The downloads the desktop app has staged before their save dialog (src-tauri/src/save_as.rs). */
const staged = () => {
  const folder = join(process.env.COWORK_HOME, "save-as")
  return existsSync(folder) ? readdirSync(folder) : []
}

describe("web apps in the desktop window", { skip }, () => {
  let workspace
  let app
  let build
  before(async () => {
    workspace = makeWorkspace()
    await addWebApps(workspace)
    build = await slowBuild()
    mkdirSync(join(workspace, ".cowork/apps/far"))
    const far = { name: "far", version: "1.0.0", title: "Far Site", web: { index: "index.html", download: { url: build.url, sha256: build.sha256 } } }
    writeFileSync(join(workspace, ".cowork/apps/far/cowork.json"), JSON.stringify(far))
    app = await openDesktop(workspace)
  })
  after(async () => {
    build?.close()
    await closeDesktop(app)
    if (workspace) removeWorkspace(workspace)
  })

  test("a downloaded build shows its progress on the first open, then the site", async () => {
    const { session } = app
    await session.click(await railTile(session, "Far Site"))
    const words = '[data-web-app][data-app="far"] p.text-xs'
    await textOf(session, words, (text) => /^50% · 1\.0 MB of 2\.0 MB$/.test(text), "the progress at 50%")
    const fraction = await session.execute("const bar = document.querySelector('[data-app=\"far\"] progress'); return bar.value / bar.max")
    assert.ok(Math.abs(fraction - 0.5) < 0.001, `the bar at ${fraction}`)
    screenshotScreen("web-apps-downloading")
    build.release()
    await enterPane(session, "far")
    await textOf(session, "#far", (text) => text === "Downloaded and opened", "the downloaded page")
    await session.switchToFrame(null)
    screenshotScreen("web-apps-downloaded")
  })

  test("a routed database reaches the WASM app by launchQueue, is edited and saved back", async () => {
    const { session } = app
    await openInExplorer(session, "shop.sqlite")
    await enterPane(session, "sqlpad")
    await textOf(session, "#file", (text) => text === "shop.sqlite (launchQueue)", "SQL Pad to get shop.sqlite")
    assert.equal(await session.execute("return location.search + ('cowork' in window)"), "false", "the token left the address; no SDK")
    await session.execute("document.getElementById('sql').value = arguments[0]; document.getElementById('run').click()", "insert into items values ('milk'); select count(*) as n from items")
    await textOf(session, "#out", (text) => text.includes("3"), "the count after the insert")
    await session.click(await session.find("#save"))
    await textOf(session, "#file", (text) => text === "shop.sqlite (saved)", "the save")
    await until(async () => (await itemsIn(join(workspace, "shop.sqlite"))).length === 3, { what: "shop.sqlite on disk to hold the new row" })
    assert.deepEqual(await itemsIn(join(workspace, "shop.sqlite")), ["tea", "coffee", "milk"])
    await session.switchToFrame(null)
    screenshotScreen("web-apps-sqlpad-saved")
  })

  test("a routed note reaches a plain page by its file input and saves back by its download", async () => {
    const { session } = app
    await openInExplorer(session, "list.note")
    await enterPane(session, "notes")
    await textOf(session, "#file", (text) => text === "no note open", "Notes to load")
    await session.execute("document.getElementById('pick').click()")
    await textOf(session, "#file", (text) => text === "list.note (file input)", "the file input to get list.note")
    await session.execute("document.getElementById('text').value += '\\neggs'; document.getElementById('save').click()")
    await until(() => readFileSync(join(workspace, "list.note"), "utf8") === "milk\neggs", { what: "list.note on disk to change" })
    await session.switchToFrame(null)
  })

  test("Save as… asks where with the native dialog, writes where the person chose, and nothing when cancelled", async () => {
    const { session } = app
    const downloads = join(homedir(), "Downloads", "copy-list.note")
    const downloadedBefore = existsSync(downloads)
    await openInExplorer(session, "list.note")
    await enterPane(session, "notes")
    await textOf(session, "#file", (text) => text.startsWith("list.note"), "Notes to hold list.note")
    const text = await session.execute("return document.getElementById('text').value")

    await session.execute("document.getElementById('save-as').click()")
    const [dialog] = await until(() => saveAsDialogs().length && saveAsDialogs(), { what: "the native Save As dialog" })
    screenshotScreen("web-apps-save-as-dialog")
    assert.equal(staged().length, 1, "the page's bytes wait in the staging folder while the dialog asks")
    // It opens on the workspace's folder with the page's name filled in; the person types another.
    pressIn(dialog, "ctrl+a")
    execFileSync("xdotool", ["type", "--delay", "20", "chosen.note"])
    pressIn(dialog, "Return")
    await until(() => existsSync(join(workspace, "chosen.note")), { what: "chosen.note in the workspace" })
    assert.equal(readFileSync(join(workspace, "chosen.note"), "utf8"), text)
    await textOf(session, "#file", (shown) => shown === "copy-list.note (saved as)", "the page's save to finish")
    await until(() => staged().length === 0, { what: "the staged copy to be removed" })

    // Cancelled: nothing in the workspace, nothing in ~/Downloads, nothing staged left.
    await session.execute("document.getElementById('save-as').click()")
    const [again] = await until(() => saveAsDialogs().length && saveAsDialogs(), { what: "the Save As dialog again" })
    pressIn(again, "Escape")
    await until(() => saveAsDialogs().length === 0, { what: "the dialog to close" })
    // The page's save is refused as a browser's own picker refuses it: an AbortError.
    await textOf(session, "#file", (shown) => shown === "list.note (AbortError)", "the page to hear of the cancel")
    await until(() => staged().length === 0, { what: "the cancelled copy to be removed" })
    assert.equal(existsSync(join(workspace, "copy-list.note")), false)
    assert.equal(existsSync(downloads), downloadedBefore, "WebKitGTK's own download handling was not used")
    assert.equal(readFileSync(join(workspace, "chosen.note"), "utf8"), text)
    await session.switchToFrame(null)
  })

  test("a note routed to a drop-only app is dropped on its element and saved back", async () => {
    const { session } = app
    await openInExplorer(session, "inbox.dropnote")
    await enterPane(session, "drop-notes")
    await textOf(session, "#file", (text) => text === "inbox.dropnote (dropped)", "the drop")
    await session.execute("document.getElementById('text').value = 'call Ann at 5'; document.getElementById('save').click()")
    await until(() => readFileSync(join(workspace, "inbox.dropnote"), "utf8") === "call Ann at 5", { what: "inbox.dropnote on disk to change" })
    await session.switchToFrame(null)
    screenshotScreen("web-apps-drop-notes-saved")
  })
})
