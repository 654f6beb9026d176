// A small site as a release build would ship it: SQLite compiled to WebAssembly (sql.js), a
// query box, a table of what it returns, and a database file opened and saved the web's standard
// ways — `launchQueue` (a file the browser launched it with), the File System Access pickers where
// the browser has them, else a file input and a download. Nothing here knows about Cowork.
const status = document.getElementById("status")
const out = document.getElementById("out")
const run = document.getElementById("run")
const save = document.getElementById("save")
const pick = document.getElementById("pick")
const fileLabel = document.getElementById("file")
let db
let handle = null
let name = "untitled.sqlite"

function show(result) {
  out.textContent = ""
  for (const { columns, values } of result) {
    const table = document.createElement("table")
    const head = table.insertRow()
    for (const column of columns)
      head.appendChild(document.createElement("th")).textContent = column
    for (const row of values) {
      const line = table.insertRow()
      for (const value of row) line.insertCell().textContent = String(value)
    }
    out.appendChild(table)
  }
}

run.addEventListener("click", () => {
  try {
    show(db.exec(document.getElementById("sql").value))
  } catch (error) {
    out.textContent = String(error)
  }
})

const ready = initSqlJs({ locateFile: (file) => file }).then(
  (SQL) => {
    db = new SQL.Database()
    const [version] = db.exec("select sqlite_version()")[0].values[0]
    status.textContent = `SQLite ${version} in WebAssembly · cross-origin isolated: ${self.crossOriginIsolated}`
    run.disabled = false
    save.disabled = false
    return SQL
  },
  (error) => {
    status.textContent = `SQLite did not load: ${error}`
  },
)

async function load(file, from) {
  const SQL = await ready
  db = new SQL.Database(new Uint8Array(await file.arrayBuffer()))
  name = file.name
  fileLabel.textContent = `${name} (${from})`
}

if ("launchQueue" in window)
  window.launchQueue.setConsumer(async (params) => {
    if (!params.files.length) return
    handle = params.files[0]
    await load(await handle.getFile(), "launchQueue")
  })

document.getElementById("open").addEventListener("click", async () => {
  if (!window.showOpenFilePicker) return pick.click()
  ;[handle] = await window.showOpenFilePicker({
    types: [{ accept: { "application/x-sqlite3": [".sqlite"] } }],
  })
  await load(await handle.getFile(), "picker")
})

pick.addEventListener("change", async () => {
  handle = null
  await load(pick.files[0], "file input")
})

save.addEventListener("click", async () => {
  const bytes = db.export()
  if (handle) {
    const writable = await handle.createWritable()
    await writable.write(bytes)
    await writable.close()
  } else {
    const link = document.createElement("a")
    link.href = URL.createObjectURL(new Blob([bytes]))
    link.download = name
    link.click()
  }
  fileLabel.textContent = `${name} (saved)`
})
