// Heavy pages for bench/site-apps (issue 45, "Memory"): three site apps as people keep them open
// all day — a mail inbox, a chat and a tracker table — each page building thousands of DOM nodes
// from its script (as the sites' own frameworks do) and changing its title every second (an
// unread count), served on loopback: mail on 127.0.0.1, chat on localhost and tracker on [::1],
// three sites, as the apps people install stand on sites of their own.
import { createServer } from "node:http"

/** The three pages: each one's window title (the app's title) and how many rows it builds. */
export const HEAVY = {
  mail: { title: "Heavy Mail", rows: 2500 },
  chat: { title: "Heavy Chat", rows: 2500 },
  tracker: { title: "Heavy Tracker", rows: 1500 },
}
export const HEAVY_HOSTS = { mail: "127.0.0.1", chat: "localhost", tracker: "[::1]" }

const STYLE = `
  body { font: 13px system-ui, sans-serif; margin: 0; color: #222 }
  header { position: sticky; top: 0; background: #f4f4f8; padding: 8px 12px; border-bottom: 1px solid #ddd }
  .row { display: flex; gap: 8px; padding: 4px 12px; border-bottom: 1px solid #eee; align-items: center }
  .row.unread b { color: #1a4fd0 }
  .avatar { width: 24px; height: 24px; border-radius: 12px; flex: none }
  .snippet { color: #777; overflow: hidden; white-space: nowrap; text-overflow: ellipsis }
  .tag { font-size: 11px; padding: 0 4px; border-radius: 3px; background: #e8eefc }
  table { border-collapse: collapse; width: 100% }
  td, th { border: 1px solid #e4e4e4; padding: 2px 6px; text-align: left }
`

// Each page's script: builds its rows, then every second bumps the unread count in its title and
// touches one row, as a live inbox or chat does. Deterministic (no Math.random), so every run and
// both browsers build the same DOM.
const SCRIPTS = {
  mail: `
    const list = document.getElementById("list")
    for (let i = 0; i < ROWS; i++) {
      const row = document.createElement("div")
      row.className = i % 7 === 0 ? "row unread" : "row"
      row.innerHTML = '<input type="checkbox"><span class="avatar" style="background:hsl(' + (i * 37) % 360 + ',60%,70%)"></span>'
        + '<b>Sender ' + i + '</b><span class="tag">' + ["work", "family", "news"][i % 3] + '</span>'
        + '<span>Re: the plan for week ' + (i % 52) + '</span>'
        + '<span class="snippet">— thanks for the notes, I have gone through them and added a few questions at the end ' + i + '</span>'
        + '<time>' + (8 + i % 10) + ':' + String(i % 60).padStart(2, "0") + '</time>'
      list.append(row)
    }
    let unread = 12
    setInterval(() => {
      unread++
      document.title = "(" + unread + ") Inbox — Mail"
      list.children[unread % ROWS].classList.toggle("unread")
    }, 1000)`,
  chat: `
    const list = document.getElementById("list")
    for (let i = 0; i < ROWS; i++) {
      const row = document.createElement("div")
      row.className = "row"
      row.innerHTML = '<span class="avatar" style="background:hsl(' + (i * 53) % 360 + ',50%,60%)"></span>'
        + '<div><div><b>Person ' + (i % 40) + '</b> <time>' + (9 + i % 9) + ':' + String(i % 60).padStart(2, "0") + '</time></div>'
        + '<p style="margin:2px 0">Message ' + i + ': did anyone look at the numbers from yesterday? <a href="#m' + i + '">#' + i + '</a></p></div>'
      list.append(row)
    }
    let unread = 3
    setInterval(() => {
      unread++
      document.title = "(" + unread + ") Chat"
      const row = document.createElement("div")
      row.className = "row"
      row.textContent = "New message " + unread
      list.append(row)
      list.firstElementChild.remove()
    }, 1000)`,
  tracker: `
    const body = document.getElementById("body")
    for (let i = 0; i < ROWS; i++) {
      const row = document.createElement("tr")
      row.innerHTML = '<td>T-' + i + '</td><td>Fix the ' + ["login", "export", "search", "upload"][i % 4] + ' flow on ' + ["web", "desktop", "mobile"][i % 3] + '</td>'
        + '<td><span class="tag">' + ["open", "in review", "done"][i % 3] + '</span></td><td>Owner ' + (i % 25) + '</td>'
        + '<td>' + (i % 13) + ' pts</td><td>2026-' + String(1 + i % 12).padStart(2, "0") + '-' + String(1 + i % 28).padStart(2, "0") + '</td>'
      body.append(row)
    }
    let changed = 0
    setInterval(() => {
      changed++
      document.title = "(" + changed + ") Tracker"
      body.children[changed % ROWS].cells[2].firstChild.textContent = ["open", "in review", "done"][changed % 3]
    }, 1000)`,
}

function page(name) {
  const { rows } = HEAVY[name]
  const content = name === "tracker" ? '<table><thead><tr><th>Id</th><th>Title</th><th>State</th><th>Owner</th><th>Size</th><th>Due</th></tr></thead><tbody id="body"></tbody></table>' : '<div id="list"></div>'
  return `<!doctype html><meta charset="utf-8"><title>${name}</title><style>${STYLE}</style>
<header>${name}</header>${content}
<script>const ROWS = ${rows};${SCRIPTS[name]}</script>`
}

/** Serves the heavy pages at `/<name>/` on 127.0.0.1 and [::1] (one port): `port`, `url(name)`, `close()`. */
export async function serveHeavySites() {
  const pages = Object.fromEntries(Object.keys(HEAVY).map((name) => [name, page(name)]))
  const serve = (request, response) => {
    const name = /^\/([^/]+)\/(index\.html)?$/.exec(new URL(request.url, "http://127.0.0.1").pathname)?.[1]
    if (pages[name]) response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(pages[name])
    else response.writeHead(404).end("not found")
  }
  const server = createServer(serve)
  const server6 = createServer(serve)
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = server.address().port
  await new Promise((resolve, reject) => server6.once("error", reject).listen(port, "::1", resolve))
  return {
    port,
    url: (name) => `http://${HEAVY_HOSTS[name]}:${port}/${name}/`,
    close: () => Promise.all([server, server6].map((each) => new Promise((resolve) => each.close(resolve)))),
  }
}
