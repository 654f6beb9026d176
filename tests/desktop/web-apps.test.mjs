// Web apps in the desktop window (page 12 "Web apps"): files routed to a web app reach the page as
// it ships in WebKitGTK, which has no File System Access API — the objects come from the script the
// daemon adds to a page opened with a routed file (crates/cowork-daemon/src/web_files.rs). The
// apps are the Chromium test's (ui/test/web-apps): SQL Pad (SQLite in WebAssembly, npm `sql.js`)
// gets a database by `launchQueue` and saves it with `createWritable`; Notes, a plain page, gets a
// note by its file input or — as Drop Notes, `"open": "drop:#drop"` — by a drop, and saves it by
// an `<a download>` of the file's name. Each save is checked on disk.
import assert from "node:assert/strict"
import { cpSync, copyFileSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { after, before, describe, test } from "node:test"
import { closeDesktop, enterPane, openDesktop, screenshotScreen, skip } from "./desktop.mjs"
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

describe("web apps in the desktop window", { skip }, () => {
  let workspace
  let app
  before(async () => {
    workspace = makeWorkspace()
    await addWebApps(workspace)
    app = await openDesktop(workspace)
  })
  after(async () => {
    await closeDesktop(app)
    if (workspace) removeWorkspace(workspace)
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
