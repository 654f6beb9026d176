// The fixture workspace the desktop tests open: a temp folder with small apps written the way a
// person writes them (.cowork/apps/<name>/cowork.json, a routine file, a widget), so each test
// drives one behaviour through the real shell and the real daemon.
//
// - hello: a tab widget that runs `hello-greet` when it opens and prints the result.
// - alerts, urgent, burst, quiet, tagged, clicky, away, focus, counter, slow: one app per notification test (the limit
//   of 6 a minute is per app, so tests never spend each other's budget). Each has the routine
//   `<app>-notify` — `{notifications: [{title, body?, tag?}], badge?, waitMs?}` → every
//   `ctx.notify` in turn, then `ctx.badge`, then a wait — and a sidebar widget, so a click on its
//   banner has a pane to open.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const NOTIFIERS = ["alerts", "urgent", "burst", "quiet", "tagged", "clicky", "away", "focus", "counter", "slow"]

const NOTIFY_ROUTINE = `// Posts each of args.notifications, sets the badge, waits: what the desktop tests trigger.
export default async (args, ctx) => {
  const deliveries = [];
  for (const notification of args.notifications ?? []) deliveries.push((await ctx.notify(notification)).delivery);
  if (args.badge !== undefined) await ctx.badge(args.badge);
  if (args.waitMs) await new Promise((resolve) => setTimeout(resolve, args.waitMs));
  return { deliveries };
};
`

const PANE_WIDGET = (title) => `// A pane that says whose it is, so a test sees which app a banner click opened.
export default function Pane() {
  return <h1 data-testid="pane-title">${title} pane</h1>;
}
`

const GREET_ROUTINE = `export default async (args) => ({ greeting: \`Hello, \${args.name}!\`, at: new Date().toISOString() });
`

const HELLO_WIDGET = `// Runs hello-greet once it opens and prints the greeting: a routine's result, visible.
import { useEffect, useState } from "react";

export default function Hello() {
  const [result, setResult] = useState("running…");
  useEffect(() => {
    window.cowork.routines.run("hello-greet", { name: "desktop" }).then(
      (value) => setResult(value.greeting),
      (error) => setResult(\`failed: \${error.name}: \${error.message}\`),
    );
  }, []);
  return (
    <main style={{ padding: 24, fontFamily: "sans-serif" }}>
      <h1>Hello app</h1>
      <p data-testid="result">{result}</p>
    </main>
  );
}
`

function writeApp(root, name, files) {
  const dir = join(root, ".cowork/apps", name)
  mkdirSync(dir, { recursive: true })
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), typeof text === "string" ? text : JSON.stringify(text, null, 2))
}

const title = (name) => name[0].toUpperCase() + name.slice(1)

/** Creates the fixture workspace and returns its path; `removeWorkspace` deletes it. */
export function makeWorkspace() {
  const root = mkdtempSync(join(tmpdir(), "cowork-desktop-ws-"))
  writeApp(root, "hello", {
    "cowork.json": {
      name: "hello",
      version: "1.0.0",
      title: "Hello",
      description: "Greets the desktop: a widget that runs a routine and prints what it returned.",
      icon: "rocket",
      color: "#1A73E8",
      entry: "hello.jsx",
      display: "tab",
      routines: { "hello-greet": { file: "greet.ts", readOnly: true, description: "Returns a greeting for `name`." } },
    },
    "hello.jsx": HELLO_WIDGET,
    "greet.ts": GREET_ROUTINE,
  })
  for (const name of NOTIFIERS) {
    writeApp(root, name, {
      "cowork.json": {
        name,
        version: "1.0.0",
        title: title(name),
        description: `Raises the notifications a desktop test asks for (${name}).`,
        icon: "bell",
        entry: "pane.jsx",
        display: "sidebar",
        routines: { [`${name}-notify`]: { file: "notify.ts", description: "Posts args.notifications, sets args.badge, waits args.waitMs." } },
      },
      "notify.ts": NOTIFY_ROUTINE,
      "pane.jsx": PANE_WIDGET(title(name)),
    })
  }
  return root
}

/** Writes `.cowork/workspace.json` (the running daemon picks it up within 250 ms). */
export function writeWorkspaceJson(root, value) {
  writeFileSync(join(root, ".cowork/workspace.json"), JSON.stringify(value, null, 2))
}

export function removeWorkspace(root) {
  rmSync(root, { recursive: true, force: true })
}
