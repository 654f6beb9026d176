// A small site as a release build would ship it: SQLite compiled to WebAssembly (sql.js), a
// query box, a table of what it returns. Nothing here knows about Cowork.
const status = document.getElementById("status")
const out = document.getElementById("out")
const run = document.getElementById("run")
let db

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

initSqlJs({ locateFile: (file) => file }).then(
  (SQL) => {
    db = new SQL.Database()
    const [version] = db.exec("select sqlite_version()")[0].values[0]
    status.textContent = `SQLite ${version} in WebAssembly · cross-origin isolated: ${self.crossOriginIsolated}`
    run.disabled = false
  },
  (error) => {
    status.textContent = `SQLite did not load: ${error}`
  },
)
