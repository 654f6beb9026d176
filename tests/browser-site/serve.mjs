// The browser automation test site (issue 43): forms, a login, a dynamic list, an article, a
// same-origin iframe and a slow page, on loopback. Node ≥ 20, no dependency.
//
//   node tests/browser-site/serve.mjs [port]      → prints `listening http://127.0.0.1:<port>/`
//   import { serve } from "./serve.mjs"; const site = await serve(); site.url; await site.close();
//
// Pages:
//   /                 links to every page
//   /login            a sign-in form (user "ana", password "correct horse"); POST sets a session
//                     cookie and redirects to /account; a wrong password shows "Wrong password"
//   /account          "Signed in as ana" (or redirects to /login without the cookie)
//   /form             a form with a text field, an email, a select, a checkbox, radio buttons and
//                     a textarea; POST /form shows what was submitted on /submitted
//   /list             500 rows rendered by script after load, a filter box that re-renders on
//                     input (React-like: it reads the input event), a "Load more" button
//   /article          a long article (headings, paragraphs, a list, a table) in <main>, with nav
//                     and footer chrome around it
//   /frame            a page holding a same-origin <iframe src="/frame/inner"> with a button that
//                     writes "Clicked inside" into the frame
//   /slow?ms=N        answers after N ms (default 3000)
//   /navigate-away    a button that navigates to /article 1 s after its click
//   /editing          an input, a textarea and a contenteditable, each holding text, for the
//                     editing chords (Control+A, Shift+arrows, Control+C/X/V/Z)

import http from "node:http";

const page = (title, body, head = "") => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}
<style>body{font-family:sans-serif;max-width:48rem;margin:1rem auto}label{display:block;margin:.4rem 0}</style>
</head><body>${body}</body></html>`;

const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu".split(" ");
const ROWS = Array.from({ length: 500 }, (_, i) => ({
  id: i + 1,
  name: `${WORDS[i % 26]}-${WORDS[(i * 7) % 26]}-${i + 1}`,
  owner: ["Ana", "Ben", "Chloé", "Dev", "Eun"][i % 5],
  status: ["open", "closed", "pending"][i % 3],
}));

const pages = {
  "/": () => page("Browser test site", `<h1>Browser test site</h1><ul>
    <li><a href="/login">Sign in</a></li><li><a href="/form">Order form</a></li>
    <li><a href="/list">Orders list</a></li><li><a href="/article">Article</a></li>
    <li><a href="/frame">Frame</a></li><li><a href="/slow">Slow page</a></li>
    <li><a href="/navigate-away">Navigate away</a></li></ul>`),
  "/login": (req, url) => page("Sign in", `<h1>Sign in</h1>
    ${url.searchParams.get("error") ? `<p role="alert">Wrong password</p>` : ""}
    <form method="post" action="/login">
      <label>Username <input name="user" autocomplete="username"></label>
      <label>Password <input name="password" type="password" autocomplete="current-password"></label>
      <button type="submit">Sign in</button>
    </form>`),
  "/account": (req) => {
    if (!/(^|; )session=ana(;|$)/.test(req.headers.cookie ?? "")) return { redirect: "/login" };
    return page("Account", `<h1>Account</h1><p>Signed in as ana</p><a href="/">Home</a>`);
  },
  "/form": () => page("Order form", `<h1>Order form</h1>
    <form method="post" action="/form">
      <label>Full name <input name="name" required></label>
      <label>Email <input name="email" type="email"></label>
      <label>Size <select name="size"><option value="s">Small</option><option value="m">Medium</option><option value="l">Large</option></select></label>
      <label><input type="checkbox" name="gift"> Gift wrap</label>
      <fieldset><legend>Delivery</legend>
        <label><input type="radio" name="delivery" value="standard" checked> Standard</label>
        <label><input type="radio" name="delivery" value="express"> Express</label></fieldset>
      <label>Notes <textarea name="notes"></textarea></label>
      <button type="submit">Place order</button>
    </form>`),
  "/list": () => page("Orders", `<h1>Orders</h1>
    <label>Filter <input id="filter" placeholder="name, owner or status"></label>
    <p id="count" aria-live="polite"></p>
    <table><thead><tr><th>#</th><th>Name</th><th>Owner</th><th>Status</th><th></th></tr></thead><tbody id="rows"></tbody></table>
    <button id="more">Load more</button><p id="picked" role="status"></p>
    <script>
      const rows = ${JSON.stringify(ROWS)};
      let shown = 50;
      const render = () => {
        const q = document.getElementById("filter").value.toLowerCase();
        const hits = rows.filter((r) => !q || [r.name, r.owner, r.status].some((v) => v.toLowerCase().includes(q)));
        document.getElementById("count").textContent = hits.length + " orders";
        document.getElementById("rows").innerHTML = hits.slice(0, shown).map((r) =>
          "<tr><td>" + r.id + "</td><td>" + r.name + "</td><td>" + r.owner + "</td><td>" + r.status +
          "</td><td><button data-id='" + r.id + "'>Open " + r.name + "</button></td></tr>").join("");
      };
      // Rendered after load, as a framework would; the filter reacts to real input events only.
      setTimeout(render, 300);
      document.getElementById("filter").addEventListener("input", render);
      document.getElementById("more").addEventListener("click", () => { shown += 50; render(); });
      document.getElementById("rows").addEventListener("click", (e) => {
        const id = e.target.dataset?.id;
        if (id) document.getElementById("picked").textContent = "Opened order " + id;
      });
    </script>`),
  "/article": () => page("Why loopback matters", `<nav><a href="/">Home</a> · <a href="/list">Orders</a> · <a href="/login">Sign in</a></nav>
    <main><article><h1>Why loopback matters</h1><p><em>By Ana Lima, 6 December 2026</em></p>
    ${Array.from({ length: 12 }, (_, i) => `<h2>Part ${i + 1}</h2><p>${"Local services answer in microseconds and never leave the machine. ".repeat(6)}The figure for part ${i + 1} is ${(i + 1) * 17}.</p>`).join("")}
    <ul><li>No network</li><li>No account</li><li>No waiting</li></ul>
    <table><tr><th>Case</th><th>Latency</th></tr><tr><td>loopback</td><td>0.05 ms</td></tr><tr><td>LAN</td><td>0.5 ms</td></tr></table>
    <p>The answer to the quiz is <strong>tangerine</strong>.</p></article></main>
    <footer><p>© Test site</p><a href="/">Home</a></footer>`),
  "/frame": () => page("Frame", `<h1>Outer page</h1><iframe title="Inner form" src="/frame/inner" width="600" height="200"></iframe>`),
  "/frame/inner": () => page("Inner", `<label>Code <input id="code"></label><button id="go">Apply code</button><p id="out" role="status"></p>
    <script>document.getElementById("go").addEventListener("click", () => {
      document.getElementById("out").textContent = "Clicked inside with " + document.getElementById("code").value; });</script>`),
  "/navigate-away": () => page("Leaving", `<h1>Leaving</h1><button id="go">Go</button>
    <script>document.getElementById("go").addEventListener("click", () => setTimeout(() => { location.href = "/article"; }, 1000));</script>`),
  "/editing": () => page("Editing", `<h1>Editing</h1>
    <label>Line <input id="line" value="hello world"></label>
    <label>Text <textarea id="text">first line
second line</textarea></label>
    <p>Rich</p><div id="rich" contenteditable="true" role="textbox" aria-label="Rich">bold <b>words</b> here</div>`),
};

function readBody(req) {
  return new Promise((resolve) => {
    let body = "";
    req.on("data", (chunk) => { body += chunk; });
    req.on("end", () => resolve(new URLSearchParams(body)));
  });
}

async function handle(req, res) {
  const url = new URL(req.url, "http://x");
  const send = (status, body, headers = {}) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...headers });
    res.end(body);
  };
  if (req.method === "POST" && url.pathname === "/login") {
    const form = await readBody(req);
    if (form.get("user") === "ana" && form.get("password") === "correct horse") {
      return send(303, "", { location: "/account", "set-cookie": "session=ana; Path=/; HttpOnly; SameSite=Lax" });
    }
    return send(303, "", { location: "/login?error=1" });
  }
  if (req.method === "POST" && url.pathname === "/form") {
    const form = await readBody(req);
    const rows = [...form].map(([k, v]) => `<tr><th>${escape(k)}</th><td>${escape(v)}</td></tr>`).join("");
    return send(200, page("Order placed", `<h1>Order placed</h1><table>${rows}</table>`));
  }
  if (url.pathname === "/slow") {
    const ms = Math.min(Number(url.searchParams.get("ms") ?? 3000), 60000);
    await new Promise((r) => setTimeout(r, ms));
    return send(200, page("Slow page", `<h1>Finally loaded</h1><p>after ${ms} ms</p>`));
  }
  const render = pages[url.pathname];
  if (!render) return send(404, page("Not found", "<h1>Not found</h1>"));
  const out = render(req, url);
  if (out?.redirect) return send(303, "", { location: out.redirect });
  return send(200, out);
}

/** Starts the site on 127.0.0.1 (`port` 0: any free one). */
export function serve(port = 0) {
  return new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      handle(req, res).catch((e) => { res.writeHead(500); res.end(String(e)); });
    });
    server.listen(port, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${server.address().port}/`;
      resolve({ url, server, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }) });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const site = await serve(Number(process.argv[2] ?? 0));
  console.log(`listening ${site.url}`);
}
